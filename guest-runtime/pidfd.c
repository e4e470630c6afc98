// SPDX-License-Identifier: GPL-2.0-only
/*
 * pidfds: pidfd_open, pidfd_send_signal, pidfd_getfd and waitid(P_PIDFD).
 *
 * A pidfd names a guest process (or with PIDFD_THREAD a thread), not a
 * number: the struct file holds the process (pid_proc) and, for a thread
 * other than the leader, the task (pid_task); proc_reap() and
 * task_unlink() clear them, so a pid that is used again is never
 * mistaken for the old one.  What the host gives is readiness: behind
 * each pidfd is a host pipe of the runtime, whose read end is the fd
 * the guest polls.  When the process exits (the thread, for a thread
 * pidfd of a thread other than the leader) the runtime writes a byte
 * into it, so the pidfd polls readable (POLLIN) as the kernel's
 * pidfd_poll() says once the task is a zombie; when it is reaped (the
 * thread gone) the write end closes, which adds POLLHUP, as pidfd_poll()
 * says once no task is left.  poll, select and epoll are the host's on
 * the read end, so they agree; a pipe's read end is never writable.
 * read, write and the rest are EINVAL as for a file without those
 * operations, fstat shows pidfs's inode (mode 0700 without a type, one
 * inode per process).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umlrun.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL
#endif
#define PIDFD_SIGNAL_THREAD		(1U << 0)
#define PIDFD_SIGNAL_THREAD_GROUP	(1U << 1)
#define PIDFD_SIGNAL_PROCESS_GROUP	(1U << 2)
#define SI_TKILL_K	(-6)

/* The kernel's pid types, in the kernel's order (pid_type). */
enum { PT_PID, PT_TGID, PT_PGID };

static struct file *pidfds;	/* every pidfd */
static uint64_t pidfd_inos = 300;	/* pidfs starts above RESERVED_PIDS */

/* Readable now; with @gone, hung up too (the write end closes). */
static void pidfd_ready(struct file *f, bool gone)
{
	if (!f->pid_ready && f->pid_wfd >= 0 && write(f->pid_wfd, "x", 1) == 1)
		f->pid_ready = true;
	if (gone && f->pid_wfd >= 0) {
		close(f->pid_wfd);
		f->pid_wfd = -1;
	}
	io_activity = true;
}

/* proc_exit_group(): the process @p is a zombie now. */
void pidfd_exited(struct proc *p)
{
	struct file *f;

	for (f = pidfds; f; f = f->pid_next)
		if (f->pid_proc == p && !f->pid_task)
			pidfd_ready(f, false);
}

/* What @f names is gone: it names nothing any more, and hangs up. */
static void pidfd_release(struct file *f)
{
	f->pid_proc = NULL;
	f->pid_task = NULL;
	pidfd_ready(f, true);
}

/* proc_reap(): @p is gone; its pidfds name no process any more. */
void pidfd_reaped(struct proc *p)
{
	struct file *f;

	for (f = pidfds; f; f = f->pid_next)
		if (f->pid_proc == p)
			pidfd_release(f);
}

/*
 * task_unlink(): thread @t is gone.  A thread other than the leader is
 * released at once, as the kernel's release_task() of a non-leader; the
 * leader's pidfds wait for the whole process (delay_group_leader()).
 */
void pidfd_task_gone(struct task *t)
{
	struct file *f;

	for (f = pidfds; f; f = f->pid_next)
		if (f->pid_task == t)
			pidfd_release(f);
}

/* file_put(): the last reference of pidfd @f goes. */
void pidfd_forget(struct file *f)
{
	struct file **pp;

	for (pp = &pidfds; *pp; pp = &(*pp)->pid_next) {
		if (*pp == f) {
			*pp = f->pid_next;
			break;
		}
	}
	if (f->pid_wfd >= 0)
		close(f->pid_wfd);
	f->pid_wfd = -1;
}

/* A new pidfd of @flags naming nothing yet, in @t's table: its fd. */
static long pidfd_new(struct task *t, unsigned int flags, struct file **fp)
{
	struct file *f;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	f = file_new(fds[0], O_RDWR | (flags & (O_NONBLOCK | PIDFD_THREAD)));
	if (!f) {
		close(fds[0]);
		close(fds[1]);
		return -ENOMEM;
	}
	f->kind = FILE_PIDFD;
	f->hostnb = true;
	f->pid_wfd = fds[1];
	f->pid_next = pidfds;
	pidfds = f;
	*fp = f;
	return fd_install(t, 0, f, true);	/* always close-on-exec */
}

/* Pidfd @f names @p now, or its thread @th (not the leader) if given. */
void pidfd_bind(struct file *f, struct proc *p, struct task *th, int nr)
{
	f->pid_nr = nr;
	f->pid_proc = p;
	f->pid_task = th;
	if (th) {
		if (!th->pidfd_ino)
			th->pidfd_ino = ++pidfd_inos;
		f->pid_ino = th->pidfd_ino;
	} else {
		if (!p->pidfd_ino)
			p->pidfd_ino = ++pidfd_inos;
		f->pid_ino = p->pidfd_ino;
	}
	if (p->state != PROC_ALIVE)
		pidfd_ready(f, false);	/* a zombie's pidfd is readable */
}

/*
 * clone's CLONE_PIDFD: the pidfd goes into the caller's table before the
 * child exists (pidfd_bind() once it does), with PIDFD_THREAD for a
 * thread, as copy_process() makes it.
 */
long pidfd_for_clone(struct task *t, bool thread, struct file **fp)
{
	return pidfd_new(t, thread ? PIDFD_THREAD : 0, fp);
}

long sys_pidfd_open(struct task *t, const uint64_t *a)
{
	int pid = a[0];
	unsigned int flags = a[1];
	struct proc *p;
	struct task *th = NULL;
	struct file *f;
	long fd;

	if (flags & ~(unsigned int)(O_NONBLOCK | PIDFD_THREAD))
		return -EINVAL;
	if (pid <= 0)
		return -EINVAL;
	/*
	 * find_get_pid(), then pid_has_task(): a process's pid (a zombie's
	 * too), or with PIDFD_THREAD any thread's tid.
	 */
	p = proc_by_pid(pid);
	if (!p) {
		th = task_by_tid(pid);
		if (!th)
			return -ESRCH;
		if (!(flags & PIDFD_THREAD))
			return -EINVAL;
		p = th->p;
	}
	fd = pidfd_new(t, flags, &f);
	if (fd >= 0)
		pidfd_bind(f, p, th, pid);
	return fd;
}

/* What a pidfd (or a /proc/<pid> directory) names, as a struct pid. */
struct pidref {
	int nr;
	struct proc *p;		/* NULL: no process has the pid now */
	struct task *th;	/* a thread other than its leader */
	bool thread;		/* PIDFD_THREAD */
};

/*
 * tgid_pidfd_to_pid(): a /proc/<pid> directory opened by the guest is a
 * pidfd too.  Its host fd is the host's /proc/<host tid> of the guest
 * task that ran there; -EBADF for any other file.
 */
static int procdir_ref(struct file *f, struct pidref *r)
{
	char link[64], target[PATH_MAX], *end;
	struct stat st;
	struct proc *p;
	struct task *th;
	long tid;
	ssize_t n;

	if (!f->in_proc || fstat(f->hostfd, &st) < 0 || !S_ISDIR(st.st_mode))
		return -EBADF;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", f->hostfd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -EBADF;
	target[n] = 0;
	if (strncmp(target, "/proc/", 6) != 0)
		return -EBADF;
	tid = strtol(target + 6, &end, 10);
	if (end == target + 6 || *end)
		return -EBADF;
	memset(r, 0, sizeof(*r));
	for (p = procs; p; p = p->next) {
		for (th = p->threads; th; th = th->next_in_proc) {
			if (th->th && uml_thread_host_tid(th->th) == tid) {
				r->nr = th->tid;
				r->p = p;
				r->th = th->tid == p->pid ? NULL : th;
				return 0;
			}
		}
	}
	r->nr = -1;	/* the task is gone: no process has its pid */
	return 0;
}

static int pidfd_ref(struct file *f, struct pidref *r)
{
	if (f->kind != FILE_PIDFD)
		return procdir_ref(f, r);
	r->nr = f->pid_nr;
	r->p = f->pid_proc;
	r->th = f->pid_task;
	r->thread = f->flags & PIDFD_THREAD;
	return 0;
}

/* The thread the pid names (PIDTYPE_PID), if it is still there. */
static struct task *ref_thread(const struct pidref *r)
{
	struct task *th;

	if (r->th)
		return r->th;
	if (!r->p)
		return NULL;
	for (th = r->p->threads; th; th = th->next_in_proc)
		if (th->tid == r->nr)
			return th;
	return NULL;
}

/* kill_pgrp_info(): every process of the group the pid names. */
static long send_pgrp(const struct pidref *r, const struct ksiginfo *si)
{
	struct proc *p, *next;
	int n = 0;

	/* The number is someone else's now: the group is gone with it. */
	if (!r->p && (r->nr <= 0 || proc_by_id(r->nr)))
		return -ESRCH;
	for (p = procs; p; p = p->next)
		n += p->pgid == r->nr;
	if (!n)
		return -ESRCH;
	if (!sig_valid(si->signo) && si->signo)
		return -EINVAL;
	for (p = procs; p && si->signo; p = next) {
		next = p->next;		/* SIGKILL ends, it does not reap */
		if (p->pgid == r->nr && p->state == PROC_ALIVE)
			sig_send_proc(p, si);
	}
	return 0;
}

/* The kernel's pidfd_send_signal(), check for check in its order. */
long sys_pidfd_send_signal(struct task *t, const uint64_t *a)
{
	unsigned int flags = a[3], scope = flags & 7;
	int sig = a[1], type;
	struct ksiginfo si;
	struct pidref r;
	struct task *th;
	struct file *f;
	int32_t w[32];
	long err;

	if (flags & ~7U)
		return -EINVAL;
	if (scope & (scope - 1))
		return -EINVAL;		/* one scope at most */
	f = fd_lookup(t, a[0]);
	if (!f || (f->flags & O_PATH))
		return -EBADF;
	err = pidfd_ref(f, &r);
	if (err < 0)
		return err;
	if (scope == PIDFD_SIGNAL_THREAD)
		type = PT_PID;
	else if (scope == PIDFD_SIGNAL_THREAD_GROUP)
		type = PT_TGID;
	else if (scope == PIDFD_SIGNAL_PROCESS_GROUP)
		type = PT_PGID;
	else
		type = r.thread ? PT_PID : PT_TGID;
	memset(&si, 0, sizeof(si));
	if (a[2]) {
		if (copy_from_guest(t, w, a[2], sizeof(w)) < 0)
			return -EFAULT;
		if (sig != w[0])
			return -EINVAL;
		/* Only to itself may a task send any code it likes. */
		if ((r.nr != t->tid || ref_thread(&r) != t || type > PT_TGID) &&
		    (w[2] >= 0 || w[2] == SI_TKILL_K))
			return -EPERM;
		si.code = w[2];
		si.pid = w[4];
		si.uid = w[5];
		memcpy(&si.value, &w[6], 8);
	} else {
		si.code = type == PT_PID ? SI_TKILL_K : 0;	/* SI_USER */
		si.pid = t->p->pid;
		si.uid = host_uid;
	}
	si.signo = sig;
	if (type == PT_PGID)
		return send_pgrp(&r, &si);
	/*
	 * kill_pid_info_type(): the task with the pid (ESRCH if none), then
	 * its whole process or itself.  A leader that ended before its
	 * process is a zombie task until the process is reaped.
	 */
	if (!r.p)
		return -ESRCH;
	if (sig < 0 || sig > NSIG_GUEST)
		return -EINVAL;
	if (!sig)
		return 0;
	if (type == PT_TGID)
		return sig_send_proc(r.p, &si);
	th = ref_thread(&r);
	return th ? sig_send_task(th, &si) : 0;
}

/* ioctl on a pidfd, as 6.12's pidfd_ioctl(): no command the runtime has. */
long pidfd_ioctl(struct file *f, unsigned long arg)
{
	struct pidref r;

	if (arg)
		return -EINVAL;
	pidfd_ref(f, &r);
	return r.p ? -ENOTTY : -ESRCH;	/* a zombie leader is a task */
}

/* fstat of a pidfd: pidfs's inode, as pidfs_getattr() shows it. */
void pidfd_stat(struct task *t, int gfd, struct stat *st)
{
	struct file *f = fd_lookup(t, gfd);

	if (!f || f->kind != FILE_PIDFD)
		return;
	st->st_mode = S_IRWXU;	/* no file type, as pidfs_getattr() */
	st->st_nlink = 1;
	st->st_uid = 0;
	st->st_gid = 0;
	st->st_ino = f->pid_ino;
	st->st_size = 0;
}

/*
 * waitid(P_PIDFD): the child the pidfd names, as P_PID; *@pid its pid,
 * *@nonblock the pidfd's O_NONBLOCK (a wait that finds nothing is then
 * EAGAIN).  -EBADF for a file that is not a pidfd, -ECHILD when the
 * pidfd names no process that could be a child (reaped, or a thread).
 */
int pidfd_wait_target(struct task *t, int fd, int *pid, bool *nonblock)
{
	struct file *f = fd_lookup(t, fd);

	if (!f || f->kind != FILE_PIDFD)
		return -EBADF;
	*nonblock = f->flags & O_NONBLOCK;
	if (!f->pid_proc || f->pid_task)
		return -ECHILD;
	*pid = f->pid_nr;
	return 0;
}

/*
 * pidfd_getfd(): a copy of file @fd of the thread the pidfd names, with
 * close-on-exec, as the kernel's checks go: the flags, the pidfd, the
 * thread (ESRCH once it is gone), ptrace access (one user: the target's
 * dumpable flag, or CAP_SYS_PTRACE), the fd.
 */
long sys_pidfd_getfd(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]), *g;
	struct pidref r;
	struct task *th;
	long err;

	if ((unsigned int)a[2])
		return -EINVAL;
	if (!f || f->kind != FILE_PIDFD)
		return -EBADF;
	err = pidfd_ref(f, &r);
	if (err < 0)
		return err;
	th = ref_thread(&r);
	if (!th || th->state == TASK_DEAD || th->p->state != PROC_ALIVE)
		return -ESRCH;
	if (!proc_may_ptrace(t, th->p))
		return -EPERM;
	if ((int)a[1] < 0 || !th->p->fdt || (int)a[1] >= th->p->fdt->size ||
	    !(g = th->p->fdt->ent[(int)a[1]].f))
		return -EBADF;
	return fd_install(t, 0, file_get(g), true);
}
