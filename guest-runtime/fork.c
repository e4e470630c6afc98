// SPDX-License-Identifier: GPL-2.0-only
/*
 * fork, vfork, clone (processes and threads), exit and wait.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "umlrun.h"

struct proc *proc_alloc(void);

/* clone3's, past the 32 bits of clone's flags (include/uapi/linux/sched.h) */
#define G_CLONE_CLEAR_SIGHAND	0x100000000ULL
#define G_CLONE_INTO_CGROUP	0x200000000ULL
#define G_CLONE_NEWTIME		0x00000080ULL
#define CLONE_ARGS_SIZE_VER0	64
#define CLONE_ARGS_SIZE_VER2	88
#define CAP_SYS_ADMIN_BIT	21
#define CAP_CHECKPOINT_RESTORE_BIT 40

static void child_regs(struct task *parent, struct task *child, uint64_t flags,
		       uint64_t stack, uint64_t tls)
{
	struct uml_regs *r = uml_thread_regs(child->th);

	*r = *uml_thread_regs(parent->th);
	r->rax = 0;
	if (stack)
		r->rsp = stack;
	if (flags & CLONE_SETTLS)
		r->fs_base = tls;
}

static void clone_tids(struct task *t, struct task *c, uint64_t flags,
		       uint64_t ptid, uint64_t ctid)
{
	uint32_t tid = c->tid;

	if (flags & CLONE_PARENT_SETTID)
		copy_to_guest(t, ptid, &tid, sizeof(tid));
	if (flags & CLONE_CHILD_SETTID)
		copy_to_guest(c, ctid, &tid, sizeof(tid));
	if (flags & CLONE_CHILD_CLEARTID)
		c->clear_child_tid = ctid;
}

/*
 * What a new thread gets from its creator, as copy_process() gives it:
 * credentials and no_new_privs, the timer slack, affinity and scheduling
 * attributes; not the parent-death signal, which the kernel clears in
 * every child.
 */
static void task_inherit(struct task *c, const struct task *t)
{
	cred_inherit(c, t);
	c->securebits = t->securebits;
	c->no_new_privs = t->no_new_privs;
	c->timer_slack_ns = t->timer_slack_ns;
	c->cpumask = t->cpumask;
	sched_inherit(c, t);
	c->personality = t->personality;
	c->pdeath_signal = 0;
}

static long clone_thread(struct task *t, uint64_t flags, uint64_t stack,
			 uint64_t ptid, uint64_t ctid, uint64_t tls,
			 struct file *pidfd)
{
	struct uml_thread *th;
	struct task *c;
	int tid, r;

	if (!(flags & CLONE_VM) || !(flags & CLONE_SIGHAND))
		return -EINVAL;
	tid = pid_alloc();
	if (tid < 0)
		return tid;
	r = uml_thread_clone(t->th, UML_CLONE_THREAD, &th, NULL);
	if (r < 0)
		return r;
	c = task_new(t->p, th, tid);
	if (!c) {
		uml_thread_destroy(th);
		return -ENOMEM;
	}
	c->sigmask = t->sigmask;
	task_inherit(c, t);
	child_regs(t, c, flags, stack, tls);
	clone_tids(t, c, flags, ptid, ctid);
	if (pidfd)
		pidfd_bind(pidfd, t->p, c, tid);
	fast_task_setup(c);
	sched_enqueue(c);
	return tid;
}

/* A CLONE_VM child runs in @as: its owner's host usage is not all its own. */
static void as_lend(struct uml_aspace *as)
{
	struct proc *q;

	for (q = procs; q; q = q->next)
		if (q->as == as && !q->as_shared)
			q->as_lent = true;
}

static int proc_copy_state(struct proc *p, struct proc *parent,
			   uint64_t flags)
{
	groot_put(p->root);
	p->root = groot_get(parent->root);	/* a chroot is inherited */
	if (p->as_shared) {
		p->mm = parent->mm;
		p->mm->refs++;
	} else {
		p->mm = mm_copy(parent->mm);
	}
	if (flags & CLONE_FILES) {
		p->fdt = parent->fdt;
		p->fdt->refs++;
	} else {
		p->fdt = fdt_copy(parent->fdt);
	}
	p->sh = sighand_copy(parent->sh);
	p->cwdfd = fcntl(parent->cwdfd, F_DUPFD_CLOEXEC, 3);
	p->cwd_in_proc = parent->cwd_in_proc;
	p->exe = strdup(parent->exe);
	if (!p->mm || !p->fdt || !p->sh || p->cwdfd < 0 || !p->exe)
		return -ENOMEM;
	memcpy(p->comm, parent->comm, sizeof(p->comm));
	if (parent->cmdline) {
		p->cmdline = malloc(parent->cmdline_len + 1);
		if (!p->cmdline)
			return -ENOMEM;
		memcpy(p->cmdline, parent->cmdline, parent->cmdline_len);
		p->cmdline_len = parent->cmdline_len;
	}
	p->umask = parent->umask;
	memcpy(p->rlim, parent->rlim, sizeof(p->rlim));
	p->dumpable = parent->dumpable;	/* not subreaper: the kernel's is not */
	p->pgid = parent->pgid;
	p->sid = parent->sid;
	p->parent = (flags & CLONE_PARENT) ? parent->parent : parent;
	/* As copy_process(): a sibling gets the caller's exit signal. */
	p->exit_signal = (flags & CLONE_PARENT) ? parent->exit_signal
						: (int)(flags & 0xff);
	return 0;
}

static long clone_process(struct task *t, uint64_t flags, uint64_t stack,
			  uint64_t ptid, uint64_t ctid, uint64_t tls,
			  struct file *pidfd, int pidfd_nr)
{
	struct uml_thread *th;
	struct uml_aspace *as;
	struct proc *p;
	struct task *c;
	int r;

	if (nprocs >= opt.max_procs)
		return -EAGAIN;
	/*
	 * CLONE_VM (vfork, posix_spawn): the child is a new process whose
	 * thread runs in the parent's address space until it execs or exits
	 * (exec.c and proc.c then give it its own, or just end the thread).
	 */
	if (flags & CLONE_VM) {
		as = t->p->as;
		/* Its guest fd table is not that of the host's it runs in. */
		r = uml_thread_clone(t->th, UML_CLONE_THREAD | UML_CLONE_UNMARKED,
				     &th, NULL);
	} else {
		r = uml_thread_clone(t->th, 0, &th, &as);
	}
	if (r < 0)
		return r;
	p = proc_alloc();
	if (!p) {
		if (flags & CLONE_VM)
			uml_thread_destroy(th);
		else
			uml_aspace_destroy(as);
		return -EAGAIN;
	}
	p->as = as;
	p->as_shared = flags & CLONE_VM;
	if (p->as_shared)
		as_lend(as);
	p->state = PROC_ALIVE;
	c = task_new(p, th, p->pid);
	if (!c || proc_copy_state(p, t->p, flags) < 0) {
		p->parent = NULL;	/* nobody to notify: it never ran */
		proc_exit_group(p, SIGKILL);
		proc_reap(p);
		return -ENOMEM;
	}
	if (pidfd) {
		pidfd_bind(pidfd, p, NULL, p->pid);
		/* Installed after copy_files(): not in a table of its own. */
		if (!(flags & CLONE_FILES) && pidfd_nr < p->fdt->size &&
		    p->fdt->ent[pidfd_nr].f == pidfd) {
			file_put(pidfd);
			p->fdt->ent[pidfd_nr].f = NULL;
			p->fdt->ent[pidfd_nr].cloexec = false;
		}
	}
	fdpass_fork(p, t->p);
	if (flags & G_CLONE_CLEAR_SIGHAND)
		sig_exec_reset(p);	/* clone3: flush_signal_handlers() */
	/* Its getpid, getppid... are still the parent's: correct them. */
	if (p->as_shared) {
		fast_as_shared(t->p);
	} else {
		fast_proc_inherit(p, t->p);
		fast_proc_sync(p);
	}
	fast_task_setup(c);
	c->sigmask = t->sigmask;
	task_inherit(c, t);
	c->ss_sp = t->ss_sp;
	c->ss_size = t->ss_size;
	c->ss_flags = t->ss_flags;
	child_regs(t, c, flags, stack, tls);
	clone_tids(t, c, flags, ptid, ctid);
	sched_enqueue(c);
	if (flags & CLONE_VFORK) {
		/* The parent waits until the child execs or exits. */
		p->vfork_parent = t;
		t->sys_done = 0;
		t->w.vfork = true;
		t->vfork_child = p->pid;
		return SYS_BLOCK;
	}
	return p->pid;
}

static long do_clone(struct task *t, uint64_t flags, uint64_t stack,
		     uint64_t ptid, uint64_t ctid, uint64_t tls, uint64_t upidfd)
{
	struct file *pf = NULL;
	long r, pfd = -1;
	int32_t v;

	if (t->sys_again && t->vfork_child) {
		long pid = t->vfork_child;

		t->vfork_child = 0;
		return pid;
	}
	/* copy_process()'s rules, in its order. */
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	/* The guest's init makes no siblings: its parent is not a guest. */
	if ((flags & CLONE_PARENT) && !t->p->parent)
		return -EINVAL;
	if (flags & (CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET |
		     CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP))
		return -EINVAL;
	if ((flags & CLONE_PIDFD) && (flags & CLONE_DETACHED))
		return -EINVAL;
	if (flags & CLONE_PIDFD) {
		/* The fd is written before the child exists: EFAULT fails it. */
		pfd = pidfd_for_clone(t, flags & CLONE_THREAD, &pf);
		if (pfd < 0)
			return pfd;
		v = pfd;
		if (copy_to_guest(t, upidfd, &v, sizeof(v)) < 0) {
			sys_close(t, (uint64_t[]){ pfd });
			return -EFAULT;
		}
	}
	if (flags & CLONE_THREAD)
		r = clone_thread(t, flags, stack, ptid, ctid, tls, pf);
	else
		r = clone_process(t, flags, stack, ptid, ctid, tls, pf, pfd);
	if (r < 0 && r != SYS_BLOCK && pf)
		sys_close(t, (uint64_t[]){ pfd });
	return r;
}

long sys_clone(struct task *t, const uint64_t *a)
{
	uint32_t flags = a[0];

	/*
	 * x86-64 order: flags, stack, parent_tid, child_tid, tls; the pidfd
	 * goes where parent_tid points, so not both (kernel_clone()).
	 */
	if ((flags & CLONE_PIDFD) && (flags & CLONE_PARENT_SETTID))
		return -EINVAL;
	return do_clone(t, flags, a[1], a[2], a[3], a[4], a[2]);
}

/* include/uapi/linux/sched.h */
struct g_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls;
	uint64_t set_tid, set_tid_size;	/* CLONE_ARGS_SIZE_VER1 */
	uint64_t cgroup;		/* CLONE_ARGS_SIZE_VER2 */
};


/*
 * The kernel's copy_struct_from_user(): a larger struct than ours is
 * fine if what we do not know of it is zero (else E2BIG).
 */
static int clone_args_in(struct task *t, uint64_t uargs, uint64_t size,
			 struct g_clone_args *ca)
{
	unsigned char tail[256];
	uint64_t off, n;
	size_t i;

	memset(ca, 0, sizeof(*ca));
	for (off = sizeof(*ca); off < size; off += n) {
		n = size - off < sizeof(tail) ? size - off : sizeof(tail);
		if (copy_from_guest(t, tail, uargs + off, n) < 0)
			return -EFAULT;
		for (i = 0; i < n; i++)
			if (tail[i])
				return -E2BIG;
	}
	n = size < sizeof(*ca) ? size : sizeof(*ca);
	return copy_from_guest(t, ca, uargs, n) < 0 ? -EFAULT : 0;
}

/*
 * set_tid: the guest has one pid namespace, so one pid, which needs
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE (a root guest has them) and
 * must be free: as alloc_pid() checks it, in its order.
 */
static int clone_set_tid(struct task *t, const int32_t *tids, uint64_t n)
{
	if (n > 1)
		return -EINVAL;
	if (tids[0] < 1 || tids[0] >= PID_MAX)
		return -EINVAL;
	if (!(t->cap_eff & ((1ULL << CAP_SYS_ADMIN_BIT) |
			    (1ULL << CAP_CHECKPOINT_RESTORE_BIT))))
		return -EPERM;
	if (proc_by_pid(tids[0]) || task_by_tid(tids[0]))
		return -EEXIST;
	return 0;
}

/*
 * clone3: the checks of copy_clone_args_from_user() and
 * clone3_args_valid(), then clone's own path.  No cgroups in a guest:
 * CLONE_INTO_CGROUP is EINVAL.
 */
long sys_clone3(struct task *t, const uint64_t *a)
{
	struct g_clone_args ca;
	int32_t tids[32];
	uint64_t size = a[1], stack;
	long r;

	if (t->sys_again && t->vfork_child)
		return do_clone(t, 0, 0, 0, 0, 0, 0);	/* the vfork wait ended */
	if (size > PAGE_SIZE)
		return -E2BIG;
	if (size < CLONE_ARGS_SIZE_VER0)
		return -EINVAL;
	r = clone_args_in(t, a[0], size, &ca);
	if (r < 0)
		return r;
	if (ca.set_tid_size > ARRAY_SIZE(tids) ||
	    (!ca.set_tid && ca.set_tid_size) || (ca.set_tid && !ca.set_tid_size))
		return -EINVAL;
	if ((ca.exit_signal & ~0xffULL) || ca.exit_signal > NSIG_GUEST)
		return -EINVAL;
	if ((ca.flags & G_CLONE_INTO_CGROUP) &&
	    (ca.cgroup > INT_MAX || size < CLONE_ARGS_SIZE_VER2))
		return -EINVAL;
	if (ca.set_tid && copy_from_guest(t, tids, ca.set_tid,
					  ca.set_tid_size * sizeof(tids[0])) < 0)
		return -EFAULT;
	if (ca.flags & ~(0xffffffffULL | G_CLONE_CLEAR_SIGHAND |
			 G_CLONE_INTO_CGROUP))
		return -EINVAL;
	if (ca.flags & (CLONE_DETACHED | (CSIGNAL & ~G_CLONE_NEWTIME)))
		return -EINVAL;
	if ((ca.flags & CLONE_SIGHAND) && (ca.flags & G_CLONE_CLEAR_SIGHAND))
		return -EINVAL;
	if ((ca.flags & (CLONE_THREAD | CLONE_PARENT)) && ca.exit_signal)
		return -EINVAL;
	if (!ca.stack != !ca.stack_size || ca.stack + ca.stack_size < ca.stack)
		return -EINVAL;
	stack = ca.stack ? ca.stack + ca.stack_size : 0;
	if (ca.flags & (G_CLONE_INTO_CGROUP | G_CLONE_NEWTIME))
		return -EINVAL;
	if (ca.set_tid) {
		r = clone_set_tid(t, tids, ca.set_tid_size);
		if (r < 0)
			return r;
		pid_want = tids[0];
	}
	if ((ca.flags & CLONE_PIDFD) && (ca.flags & CLONE_PARENT_SETTID) &&
	    ca.pidfd == ca.parent_tid)
		return -EINVAL;		/* kernel_clone(): not at one place */
	r = do_clone(t, ca.flags | ca.exit_signal, stack, ca.parent_tid,
		     ca.child_tid, ca.tls, ca.pidfd);
	pid_want = 0;
	return r;
}

long sys_fork(struct task *t, const uint64_t *a)
{
	(void)a;
	return do_clone(t, SIGCHLD, 0, 0, 0, 0, 0);
}

long sys_vfork(struct task *t, const uint64_t *a)
{
	(void)a;
	return do_clone(t, CLONE_VM | CLONE_VFORK | SIGCHLD, 0, 0, 0, 0, 0);
}

long sys_exit(struct task *t, const uint64_t *a)
{
	task_exit(t, a[0]);
	return SYS_NORETURN;
}

long sys_exit_group(struct task *t, const uint64_t *a)
{
	proc_exit_group(t->p, (a[0] & 0xff) << 8);
	return SYS_NORETURN;
}

static bool wait_match(struct proc *self, struct proc *c, int idtype, int id,
		       int options)
{
	if (c->parent != self)
		return false;
	/*
	 * As the kernel's eligible_child(): a child whose exit signal is
	 * not SIGCHLD is a "clone" child, waited for only with __WCLONE
	 * (and then only such children) or __WALL.
	 */
	if (((c->exit_signal != SIGCHLD) ^ !!(options & __WCLONE)) &&
	    !(options & __WALL))
		return false;
	switch (idtype) {
	case P_PID:
		return c->pid == id;
	case P_PGID:
		return c->pgid == id;
	default:
		return true;
	}
}

/* What a wait can collect from a child, by the wait options. */
enum wait_event { WAIT_NONE, WAIT_EXITED, WAIT_STOPPED, WAIT_CONTINUED };

static enum wait_event wait_event(struct proc *c, int options)
{
	if (c->state == PROC_ZOMBIE)
		return (options & WEXITED) ? WAIT_EXITED : WAIT_NONE;
	if ((options & WSTOPPED) && c->stop_report)
		return WAIT_STOPPED;
	if ((options & WCONTINUED) && c->cont_report)
		return WAIT_CONTINUED;
	return WAIT_NONE;
}

/* Find a child with something to report; -ECHILD if no child matches. */
static struct proc *wait_find(struct task *t, int idtype, int id, int options,
			      enum wait_event *ev, int *err)
{
	struct proc *c;
	bool any = false;

	for (c = procs; c; c = c->next) {
		if (!wait_match(t->p, c, idtype, id, options))
			continue;
		any = true;
		*ev = wait_event(c, options);
		if (*ev != WAIT_NONE)
			return c;
	}
	*err = any ? 0 : -ECHILD;
	return NULL;
}

/* The wait status of the event, which is consumed unless @peek. */
static int wait_collect(struct proc *c, enum wait_event ev, bool peek)
{
	int st;

	switch (ev) {
	case WAIT_STOPPED:
		st = c->stop_report;
		if (!peek)
			c->stop_report = 0;
		return st;
	case WAIT_CONTINUED:
		if (!peek)
			c->cont_report = false;
		return 0xffff;
	default:
		return c->wstatus;
	}
}

long sys_wait4(struct task *t, const uint64_t *a)
{
	int pid = a[0], idtype = P_ALL, id = 0, err, st;
	int options = (int)a[2] | WEXITED;
	enum wait_event ev;
	struct proc *c;

	if ((int)a[2] & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD |
			  __WCLONE | __WALL))
		return -EINVAL;
	if (pid == INT_MIN)
		return -ESRCH;
	if (pid > 0) {
		idtype = P_PID;
		id = pid;
	} else if (pid == 0) {
		idtype = P_PGID;
		id = t->p->pgid;
	} else if (pid < -1) {
		idtype = P_PGID;
		id = -pid;
	}
	c = wait_find(t, idtype, id, options, &ev, &err);
	if (!c) {
		if (err)
			return err;
		if (options & WNOHANG)
			return 0;
		t->w.child = true;
		return SYS_BLOCK;
	}
	st = wait_collect(c, ev, false);
	if (a[1] && copy_to_guest(t, a[1], &st, sizeof(st)) < 0)
		return -EFAULT;
	pid = c->pid;
	/* As kernel_wait4(): the child is reaped even if rusage faults. */
	if (a[3]) {
		struct rusage ru;

		usage_rusage_of(c, &ru);
		if (copy_to_guest(t, a[3], &ru, sizeof(ru)) < 0)
			pid = -EFAULT;
	}
	if (ev == WAIT_EXITED) {
		usage_reaped(t->p, c);
		proc_reap(c);
	}
	return pid;
}

static void waitid_info(int32_t *si, struct proc *c, enum wait_event ev,
			int st)
{
	si[0] = SIGCHLD;
	si[4] = c->pid;
	si[5] = host_uid;
	switch (ev) {
	case WAIT_STOPPED:
		si[2] = CLD_STOPPED;
		si[6] = WSTOPSIG(st);
		break;
	case WAIT_CONTINUED:
		si[2] = CLD_CONTINUED;
		si[6] = SIGCONT;
		break;
	default:
		si[2] = WIFSIGNALED(st) ? CLD_KILLED : CLD_EXITED;
		si[6] = WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st);
	}
}

long sys_waitid(struct task *t, const uint64_t *a)
{
	int idtype = a[0], id = a[1], options = a[3], err, st;
	int32_t si[32] = { 0 };	/* siginfo_t */
	bool nonblock = false;
	enum wait_event ev;
	struct proc *c;

	if (options & ~(WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED |
			__WNOTHREAD | __WCLONE | __WALL))
		return -EINVAL;
	if (!(options & (WEXITED | WSTOPPED | WCONTINUED)))
		return -EINVAL;
	if ((idtype == P_PID && id <= 0) || (idtype == P_PGID && id < 0) ||
	    (idtype == P_PIDFD && id < 0) ||
	    (idtype != P_ALL && idtype != P_PID && idtype != P_PGID &&
	     idtype != P_PIDFD))
		return -EINVAL;
	if (idtype == P_PGID && id == 0)
		id = t->p->pgid;	/* the caller's group, since Linux 5.4 */
	if (idtype == P_PIDFD) {
		/* The process the pidfd names, as P_PID (pidfd.c). */
		err = pidfd_wait_target(t, id, &id, &nonblock);
		if (err)
			return err;
		idtype = P_PID;
	}
	c = wait_find(t, idtype, id, nonblock ? options | WNOHANG : options,
		      &ev, &err);
	if (!c) {
		if (err)
			return err;
		if (nonblock && !(options & WNOHANG))
			return -EAGAIN;	/* an O_NONBLOCK pidfd */
		if (!(options & WNOHANG)) {
			t->w.child = true;
			return SYS_BLOCK;
		}
	} else {
		st = wait_collect(c, ev, options & WNOWAIT);
		waitid_info(si, c, ev, st);
	}
	if (a[2] && copy_to_guest(t, a[2], si, sizeof(si)) < 0)
		return -EFAULT;
	if (c && a[4]) {
		struct rusage ru;

		usage_rusage_of(c, &ru);
		if (copy_to_guest(t, a[4], &ru, sizeof(ru)) < 0)
			return -EFAULT;
	}
	if (c && ev == WAIT_EXITED && !(options & WNOWAIT)) {
		usage_reaped(t->p, c);
		proc_reap(c);
	}
	return 0;
}

/* fs.nr_open, the most fds a table may hold (the host's sysctl). */
static long nr_open(void)
{
	return host_sysctl("fs/nr_open", 0, 1048576);
}

/* The highest open fd of @fdt, or -1. */
static int fdt_highest(const struct fdtable *fdt)
{
	int i;

	for (i = fdt->size - 1; i >= 0; i--)
		if (fdt->ent[i].f)
			return i;
	return -1;
}

/*
 * unshare (ksys_unshare()): the flags' implications and checks as the
 * kernel's; then a descriptor table of the process's own (CLONE_FILES),
 * and SEM_UNDO's adjustments applied (CLONE_SYSVSEM, "equivalent to
 * exit").  A process's working directory and root are its own already
 * (CLONE_FS), but not a thread's: unsharing them from its other threads
 * is EINVAL.  No namespaces: their flags are EPERM without CAP_SYS_ADMIN,
 * as the kernel checks first, else EINVAL, as a kernel built without them.
 */
long sys_unshare(struct task *t, const uint64_t *a)
{
	uint64_t f = a[0];
	const uint64_t ns = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC |
			    CLONE_NEWNET | CLONE_NEWUSER | CLONE_NEWPID |
			    CLONE_NEWCGROUP | G_CLONE_NEWTIME;
	struct fdtable *fdt;

	if (f & CLONE_NEWUSER)
		f |= CLONE_THREAD | CLONE_FS;
	if (f & CLONE_VM)
		f |= CLONE_SIGHAND;
	if (f & CLONE_SIGHAND)
		f |= CLONE_THREAD;
	if (f & CLONE_NEWNS)
		f |= CLONE_FS;
	if (f & ~(ns | CLONE_THREAD | CLONE_FS | CLONE_SIGHAND | CLONE_VM |
		  CLONE_FILES | CLONE_SYSVSEM))
		return -EINVAL;
	if ((f & (CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)) && t->p->nthreads > 1)
		return -EINVAL;
	if ((f & (CLONE_SIGHAND | CLONE_VM)) && t->p->sh->refs > 1)
		return -EINVAL;
	if ((f & CLONE_VM) && (t->p->as_shared || t->p->mm->refs > 1))
		return -EINVAL;
	if ((f & CLONE_FS) && t->p->nthreads > 1)
		return -EINVAL;	/* per-thread cwds: not provided */
	if (f & ns)
		return (t->cap_eff & (1ULL << CAP_SYS_ADMIN_BIT)) ? -EINVAL : -EPERM;
	if ((f & CLONE_FILES) && t->p->fdt->refs > 1) {
		if (fdt_highest(t->p->fdt) >= nr_open())
			return -EMFILE;	/* dup_fd(): past fs.nr_open */
		fdt = fdt_copy(t->p->fdt);
		if (!fdt)
			return -ENOMEM;
		fdpass_drop(t->p->fdt);	/* two tables in one host table */
		fdt_put(t->p->fdt);
		t->p->fdt = fdt;
	}
	if (f & CLONE_SYSVSEM)
		sem_exit(t->p);
	return 0;
}
