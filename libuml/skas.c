// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * skas backend, address-space side: /dev/skas, the stub that attaches to a
 * guest thread, the mem ops (one SKAS_MEM ioctl per batch), reset and
 * guest memory access.  The run loop and clone are in skas_run.c, FPU
 * state in skas_fpu.c.
 *
 * Object chain (Documentation/uapi.rst): /dev/skas -> SKAS_CREATE_ASPACE
 * -> address-space fd -> SKAS_CREATE_THREAD -> thread fd, whose run page
 * the library mmaps (uml_thread_regs() points into it).  The host task of
 * a thread is libuml's stub ELF (stub.S) executed from a memfd with the
 * thread fd as fd 3: it calls SKAS_ATTACH, and the module hollows it.
 * Every stub is a child of the runtime, which reaps it: no zombie outlives
 * uml_aspace_destroy().  The module kills the tasks of an address space
 * when the runtime's fds go, so none outlives the runtime either.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/skas.h>

#include "internal.h"
#include "stub.h"

_Static_assert(SKAS_ATTACH == STUB_SKAS_ATTACH, "stub.h: SKAS_ATTACH");
_Static_assert(sizeof(struct skas_attach) == 32, "stub.S: skas_attach");
_Static_assert(sizeof(struct skas_regs) == sizeof(struct uml_regs),
	       "skas_regs must match uml_regs");
_Static_assert(UML_MAP_SHARED == SKAS_MAP_SHARED &&
	       UML_MAP_PRIVATE == SKAS_MAP_PRIVATE &&
	       UML_MAP_ANONYMOUS == SKAS_MAP_ANONYMOUS, "map flags");
_Static_assert(UML_POLICY_TRAP == SKAS_POLICY_TRAP &&
	       UML_POLICY_CONST == SKAS_POLICY_CONST &&
	       UML_POLICY_NATIVE == SKAS_POLICY_NATIVE &&
	       UML_POLICY_THREAD == SKAS_POLICY_THREAD &&
	       UML_POLICY_NR == SKAS_POLICY_NR, "policy actions");
_Static_assert(UML_MEM_MAP == SKAS_MEM_MAP && UML_MEM_UNMAP == SKAS_MEM_UNMAP &&
	       UML_MEM_PROTECT == SKAS_MEM_PROTECT, "mem ops");


/* The end of the 47-bit user address space. */
#define USER_TOP	0x800000000000ULL
/* How long a stub may take from fork to its first stop. */
#define ATTACH_TIMEOUT_MS	10000

static const int needed_caps[] = {
	SKAS_CAP_ASPACE, SKAS_CAP_THREAD, SKAS_CAP_MEM,
	SKAS_CAP_SIGSYS,	/* else a vsyscall would read as a kick */
};

static int has_cap(int dev, int cap)
{
	return ioctl(dev, SKAS_CHECK_EXTENSION, (unsigned long)cap) > 0;
}

/* The tiers skas.ko announces, as a UML_POLICY_BIT() mask. */
static unsigned int policies(int dev)
{
	unsigned int mask = UML_POLICY_BIT(UML_POLICY_TRAP);

	if (has_cap(dev, SKAS_CAP_POLICY))
		mask |= UML_POLICY_BIT(UML_POLICY_CONST);
	if (has_cap(dev, SKAS_CAP_POLICY) && has_cap(dev, SKAS_CAP_POLICY_NATIVE))
		mask |= UML_POLICY_BIT(UML_POLICY_NATIVE) |
			UML_POLICY_BIT(UML_POLICY_THREAD);
	if ((mask & UML_POLICY_BIT(UML_POLICY_NATIVE)) &&
	    ioctl(dev, SKAS_CHECK_EXTENSION, SKAS_CAP_FD_MARK) ==
	    SKAS_FD_MARK_MAX)
		mask |= UML_POLICY_BIT(UML_POLICY_NATIVE_MARKED);
	return mask;
}

/* SKAS_CAP_SPIN's longest spin, ns; 0 if the module can't spin. */
static unsigned int spin_max(int dev)
{
#ifdef SKAS_CAP_SPIN
	int ns = ioctl(dev, SKAS_CHECK_EXTENSION, SKAS_CAP_SPIN);

	return ns > 0 ? (unsigned int)ns : 0;
#else
	(void)dev;
	return 0;
#endif
}

/* Open /dev/skas and check that it speaks our API; the fd or -errno. */
static int dev_open(void)
{
	unsigned int i;
	int fd, ret;

	fd = open("/dev/skas", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, SKAS_GET_API_VERSION, 0);
	if (ret != SKAS_API_VERSION) {
		close(fd);
		return -EPROTO;
	}
	for (i = 0; i < sizeof(needed_caps) / sizeof(needed_caps[0]); i++) {
		if (!has_cap(fd, needed_caps[i])) {
			close(fd);
			return -EOPNOTSUPP;
		}
	}
	return fd;
}

int __uml_skas_probe(void)
{
	int fd = dev_open();

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int __uml_skas_host_init(struct uml_host *host)
{
	int dev = dev_open(), fd;

	if (dev < 0)
		return dev;
	fd = __uml_stub_memfd();
	if (fd < 0) {
		close(dev);
		return fd;
	}
	host->dev_fd = dev;
	host->stub_fd = fd;
#ifdef SKAS_CAP_CLONE
	host->skas_clone = has_cap(dev, SKAS_CAP_CLONE);
#endif
#if defined(SKAS_CAP_CLONE_THREAD) && defined(SKAS_CLONE_THREAD)
	host->skas_clone_thread = has_cap(dev, SKAS_CAP_CLONE_THREAD);
#endif
	host->skas_xstate = __uml_skas_xstate_cap(dev);
	host->skas_run_mem = has_cap(dev, SKAS_CAP_RUN_MEM) > 0;
	host->spin_max = spin_max(dev);
#ifdef SKAS_CAP_YIELD
	host->can_yield = has_cap(dev, SKAS_CAP_YIELD) > 0;
#endif
	host->policies = policies(dev);
	host->ops = &__uml_skas_ops;
	return 0;
}

struct uml_regs *__uml_skas_regs(struct uml_thread *t)
{
	return (struct uml_regs *)(void *)&t->run->regs;
}

/* ---- objects ---------------------------------------------------------- */

struct uml_aspace *__uml_skas_aspace_new(struct uml_host *host, int fd)
{
	struct uml_aspace *as = calloc(1, sizeof(*as));

	if (!as)
		return NULL;
	as->fd = fd;
	as->sock = -1;
	as->memfd = -1;
	__uml_aspace_link(host, as);
	return as;
}

/* Wrap thread fd @fd, whose task is @pid: takes @fd over, even on failure. */
struct uml_thread *__uml_skas_thread_new(struct uml_aspace *as, int fd,
					 pid_t pid)
{
	struct uml_thread *t = calloc(1, sizeof(*t));
	void *run;

	if (!t)
		goto fail;
	t->fd = fd;
	t->pid = pid;
	/* -1 for a task that is no thread-group leader (6.1 has no
	 * PIDFD_THREAD): closing its thread fd is what kills it then. */
	t->pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (t->pidfd >= 0)
		fcntl(t->pidfd, F_SETFD, FD_CLOEXEC);
	run = mmap(NULL, SKAS_RUN_PAGE_SIZE, PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0);
	if (run == MAP_FAILED) {
		if (t->pidfd >= 0)
			close(t->pidfd);
		goto fail;
	}
	t->run = run;
	__uml_thread_link(as, t);
	return t;
fail:
	free(t);
	close(fd);
	return NULL;
}

/*
 * Reap our child @pid (a stub of @as), restarting on EINTR; its wait
 * status.  A group leader's rusage is its whole group's: into as->usage
 * (@as NULL: a stub that never was one's).
 */
int __uml_skas_reap(struct uml_aspace *as, pid_t pid)
{
	struct rusage ru;
	int status = 0;
	pid_t r;

	while ((r = wait4(pid, &status, __WALL, &ru)) < 0 && errno == EINTR)
		;
	if (as && r == pid)
		__uml_aspace_usage_add(as, &ru);
	return status;
}

static int others_alive(const struct uml_thread *t)
{
	const struct uml_thread *o;

	for (o = t->as->threads; o; o = o->next)
		if (o != t && __uml_thread_pid(o))
			return 1;
	return 0;
}

/*
 * End the thread's host task (if still there), reap it, free it.  The
 * threads of one address space are host threads of one group (skas.ko's
 * SKAS_CLONE_THREAD), whose leader is the runtime's child: a SIGKILL to
 * any of them would end them all, so one thread among others is ended by
 * closing its fd (the module makes it exit by itself), and the leader can
 * only be reaped once the whole group is gone.  What to do is decided
 * under as->lock, so that of two threads freed at once the second reaps
 * the leader; the reaps themselves wait outside it.
 */
void __uml_skas_thread_free(struct uml_thread *t)
{
	struct uml_aspace *as = t->as;
	pid_t pid, leader = 0;
	int others;

	pthread_mutex_lock(&as->lock);
	others = others_alive(t);
	pid = t->pid;
	__uml_thread_gone(t);
	if (pid && others && pid == as->leader) {
		as->leader_unreaped = pid;
		pid = 0;
	}
	if (!others) {
		leader = as->leader_unreaped;
		as->leader_unreaped = 0;
	}
	pthread_mutex_unlock(&as->lock);

	if (pid && !others && t->pidfd >= 0)
		syscall(SYS_pidfd_send_signal, t->pidfd, SIGKILL, NULL, 0);
	munmap(t->run, SKAS_RUN_PAGE_SIZE);
	close(t->fd);		/* the module ends the task, if still there */
	if (pid)		/* ECHILD at once for a non-leader thread */
		__uml_skas_reap(as, pid);
	if (leader)
		__uml_skas_reap(as, leader);
	if (t->pidfd >= 0)
		close(t->pidfd);
	__uml_thread_unlink(t);
	free(t);
}

static void aspace_destroy(struct uml_aspace *as, struct rusage *ru)
{
	while (as->threads)
		__uml_skas_thread_free(as->threads);
	close(as->fd);
	if (as->leader_unreaped)
		__uml_skas_reap(as, as->leader_unreaped);
	if (ru)
		*ru = as->usage;
	__uml_aspace_unlink(as);
	free(as);
}

static void thread_destroy(struct uml_thread *t)
{
	__uml_skas_thread_free(t);
}

/* ---- the stub --------------------------------------------------------- */

/*
 * The child between fork and exec: async-signal-safe calls only (the
 * runtime may be multithreaded).  The thread fd becomes STUB_SKAS_FD, the
 * only fd kept; signal dispositions go back to default (SKAS_ATTACH
 * refuses a task with handlers, and exec keeps SIG_IGN).
 *
 * Unlike a ptraced stub, a skas guest task is not protected from host
 * signals by a tracer.  A module with SKAS_CAP_SIGNAL_INTERRUPT blocks
 * them all at SKAS_ATTACH (SIGSTOP too) and reports them as
 * UML_EXIT_INTERRUPTED; without it a default-fatal signal from outside
 * would kill the stub and a SIGTSTP stop it.  So the stub also leaves the
 * runtime's session (no terminal ^C or ^Z reaches it) and blocks every
 * signal it can itself: the kernel still delivers its own fault signals,
 * which the module reports as UML_EXIT_FAULT, and SIGKILL.  Last, where
 * the host emulates vsyscalls, it installs the vsyscall filter (uml.c),
 * whose SIGSYS the module reports (SKAS_CAP_SIGSYS).
 */
static void __attribute__((noreturn)) stub_child(int stub_fd, int tfd,
						 int filter)
{
	static char *const argv[] = { "uml-stub", "skas", NULL };
	static char *const envp[] = { NULL };
	struct sigaction sa = { .sa_handler = SIG_DFL };
	uint64_t all = ~0ULL;	/* glibc's sigfillset() leaves out 32, 33 */
	char path[40];
	int sig, fd;

	setsid();
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, sizeof(all));
	for (sig = 1; sig < 65; sig++)
		sigaction(sig, &sa, NULL);
	fd = __uml_stub_child_fds(stub_fd, tfd, STUB_SKAS_FD);
	if (fd < 0 || (filter && __uml_stub_vsyscall_filter()))
		_exit(127);
	syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	execve(path, argv, envp);
	_exit(127);
}

/* A stub that did not attach: why, from its exit status. */
static int stub_failed(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	status = __uml_skas_reap(NULL, pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) &&
	    WEXITSTATUS(status) != 127)
		return -WEXITSTATUS(status);	/* SKAS_ATTACH's errno */
	return -ENOEXEC;
}

/* Start a stub for thread fd @tfd and wait until it attached and stopped. */
static int stub_start(struct uml_host *host, int tfd, pid_t *pidp)
{
	struct pollfd p[2];
	int pidfd, ret;
	pid_t pid = 0;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		stub_child(host->stub_fd, tfd, host->vsyscall_filter);
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	p[0].fd = tfd;
	p[0].events = POLLIN;
	p[1].fd = pidfd;
	p[1].events = POLLIN;
	do {
		p[0].revents = p[1].revents = 0;
		ret = poll(p, pidfd >= 0 ? 2 : 1, ATTACH_TIMEOUT_MS);
	} while (ret < 0 && errno == EINTR);
	if (pidfd >= 0)
		close(pidfd);
	if (ret > 0 && (p[0].revents & (POLLIN | POLLHUP)) == POLLIN) {
		*pidp = pid;
		return 0;
	}
	ret = stub_failed(pid);
	return ret;
}

/*
 * The hollow stub's layout: the vDSO and vvar it kept, and guest_top.
 * Like the ptrace backend, guests map below STUB_BASE, where libuml keeps
 * its helper pages (skas_fpu.c).
 */
static int stub_layout(pid_t pid, struct uml_aspace_info *info)
{
	char path[64], line[512], name[256];
	unsigned long long s, e;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	memset(info, 0, sizeof(*info));
	while (fgets(line, sizeof(line), f)) {
		name[0] = 0;
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %255s", &s, &e,
			   name) < 2 || s >= USER_TOP)
			continue;
		if (!strcmp(name, "[vdso]")) {
			info->vdso_base = s;
			info->vdso_len = e - s;
		} else if (!strncmp(name, "[vvar", 5)) {
			/* [vvar] and, on newer kernels, [vvar_vclock] */
			if (!info->vvar_base || s < info->vvar_base) {
				info->vvar_len += info->vvar_base ?
					info->vvar_base - s : e - s;
				info->vvar_base = s;
			}
			if (e > info->vvar_base + info->vvar_len)
				info->vvar_len = e - info->vvar_base;
		}
	}
	fclose(f);
	info->guest_top = STUB_BASE;
	if (info->vdso_base && info->vdso_base < info->guest_top)
		info->guest_top = info->vdso_base;
	if (info->vvar_base && info->vvar_base < info->guest_top)
		info->guest_top = info->vvar_base;
	/* The helper pages must not collide with what the module kept. */
	if ((info->vdso_base && info->vdso_base < SKAS_HELPER_END &&
	     info->vdso_base + info->vdso_len > STUB_BASE) ||
	    (info->vvar_base && info->vvar_base < SKAS_HELPER_END &&
	     info->vvar_base + info->vvar_len > STUB_BASE))
		return -EEXIST;
	return 0;
}

static int create_fd(int fd, unsigned long cmd)
{
	/* struct skas_create_aspace and _thread have the same shape. */
	struct skas_create_thread args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.size = sizeof(args);
	ret = ioctl(fd, cmd, &args);
	return ret < 0 ? -errno : ret;
}

static int aspace_create(struct uml_host *host, struct uml_aspace **asp,
			 struct uml_thread **threadp)
{
	struct uml_aspace *as;
	struct uml_thread *t;
	int afd, tfd, ret;
	pid_t pid = 0;

	_Static_assert(sizeof(struct skas_create_aspace) ==
		       sizeof(struct skas_create_thread), "create args");
	afd = create_fd(host->dev_fd, SKAS_CREATE_ASPACE);
	if (afd < 0)
		return afd;
	as = __uml_skas_aspace_new(host, afd);
	if (!as) {
		close(afd);
		return -ENOMEM;
	}
	tfd = create_fd(afd, SKAS_CREATE_THREAD);
	if (tfd < 0) {
		aspace_destroy(as, NULL);
		return tfd;
	}
	ret = stub_start(host, tfd, &pid);
	if (ret) {
		close(tfd);
		aspace_destroy(as, NULL);
		return ret;
	}
	as->leader = pid;
	t = __uml_skas_thread_new(as, tfd, pid);
	if (!t) {
		ret = errno ? -errno : -ENOMEM;
		kill(pid, SIGKILL);
		__uml_skas_reap(NULL, pid);
		aspace_destroy(as, NULL);
		return ret;
	}
	ret = stub_layout(pid, &as->info);
	/* The module does FPU state itself, or the helper pages do it. */
	if (!ret && !host->skas_xstate)
		ret = __uml_skas_helper_setup(as);
	if (ret) {
		aspace_destroy(as, NULL);
		return ret;
	}
	*asp = as;
	*threadp = t;
	return 0;
}

/* ---- mem ops ---------------------------------------------------------- */

/* The module's form of @n checked operations (UML_MEM_* == SKAS_MEM_*). */
static struct skas_mem_op *mem_ops(const struct uml_mem_op *ops,
				   unsigned int n)
{
	struct skas_mem_op *k = calloc(n ? n : 1, sizeof(*k));
	unsigned int i;

	if (!k)
		return NULL;
	for (i = 0; i < n; i++) {
		k[i].op = ops[i].op;
		k[i].prot = ops[i].prot;
		k[i].addr = ops[i].addr;
		k[i].len = ops[i].len;
		k[i].fd = -1;
		if (ops[i].op == UML_MEM_INSTALL_FD) {
			k[i].fd = ops[i].fd;
			/* UML_FD_CLOEXEC, UML_INSTALL_MARK_*: the module's */
			k[i].flags = ops[i].flags;
		}
		if (ops[i].op != UML_MEM_MAP)
			continue;
		k[i].flags = ops[i].flags;
		if (!(ops[i].flags & UML_MAP_ANONYMOUS)) {
			k[i].fd = ops[i].fd;
			k[i].offset = ops[i].offset;
		}
	}
	return k;
}

/*
 * A batch ioctl (SKAS_MEM on an address space, SKAS_RUN_MEM on a thread)
 * of @n checked operations: its return value (SKAS_MEM: the number done),
 * with the batch's error in *@err; or -errno.
 */
int __uml_skas_mem_ioctl(int fd, unsigned long cmd,
			 const struct uml_mem_op *ops, unsigned int n, int *err)
{
	struct skas_mem_batch b;
	struct skas_mem_op *k = mem_ops(ops, n);
	int ret;

	if (!k)
		return -ENOMEM;
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.count = n;
	b.ops = (uintptr_t)k;
	ret = ioctl(fd, cmd, &b);
	if (ret < 0)
		ret = errno == ENOENT ? -ESRCH : -errno;
	else
		*err = b.error;
	free(k);
	return ret;
}

/* One SKAS_MEM ioctl: the number done, or -errno if the first failed. */
static int mem_submit(struct uml_aspace *as, const struct uml_mem_op *ops,
		      unsigned int n, int *err)
{
	return __uml_skas_mem_ioctl(as->fd, SKAS_MEM, ops, n, err);
}

/*
 * The module checks a whole batch before it runs any of it, so a batch
 * refused outright may hold good operations before the bad one: then it
 * goes again one operation at a time, to stop exactly where uml.h says.
 */
static int mem_chunk(struct uml_aspace *as, const struct uml_mem_op *ops,
		     unsigned int n, int *err)
{
	unsigned int i;
	int ret = mem_submit(as, ops, n, err);

	if (ret >= 0 || n == 1 || ret == -ESRCH || ret == -EBUSY ||
	    ret == -EINTR)
		return ret;
	for (i = 0; i < n; i++) {
		ret = mem_submit(as, ops + i, 1, err);
		if (ret < 0) {
			*err = ret;
			return i ? (int)i : ret;
		}
	}
	return n;
}

/*
 * The module runs a batch in any stopped thread of the address space,
 * which another runtime thread may be destroying: a batch cut short by
 * that thread's death (-ESRCH while the address space lives on) goes on
 * in another, a few times at most.
 */
#define MEM_RETRIES	4

static int mem_batch(struct uml_aspace *as, const struct uml_mem_op *ops,
		     unsigned int n, int *err)
{
	unsigned int done = 0, c, retries = 0;
	int ret, e;

	*err = 0;
	while (done < n) {
		c = n - done < SKAS_MEM_MAX_OPS ? n - done : SKAS_MEM_MAX_OPS;
		e = 0;
		ret = mem_chunk(as, ops + done, c, &e);
		if (ret == -ESRCH && retries++ < MEM_RETRIES)
			continue;
		if (ret < 0) {
			*err = ret;
			return done ? (int)done : ret;
		}
		done += ret;
		if ((unsigned int)ret < c && e == -ESRCH &&
		    retries++ < MEM_RETRIES)
			continue;
		if ((unsigned int)ret < c) {
			*err = e ? e : -EIO;
			return done ? (int)done : *err;
		}
	}
	return done;
}

/* Unmap [from, to) except the vDSO and vvar, which the module keeps. */
static int unmap_around(struct uml_aspace *as, uint64_t from, uint64_t to)
{
	const struct uml_aspace_info *info = &as->info;
	uint64_t b[2] = { info->vdso_base, info->vvar_base };
	uint64_t l[2] = { info->vdso_len, info->vvar_len };
	struct uml_mem_op ops[3];
	int i, n = 0, ret, err = 0;

	if (b[1] < b[0]) {	/* the holes in address order */
		uint64_t tb = b[0], tl = l[0];

		b[0] = b[1];
		l[0] = l[1];
		b[1] = tb;
		l[1] = tl;
	}
	memset(ops, 0, sizeof(ops));
	for (i = 0; i <= 2; i++) {
		uint64_t end = i < 2 ? b[i] : to;

		if (i < 2 && !l[i])
			continue;
		if (end > to)
			end = to;
		if (end > from) {
			ops[n].op = UML_MEM_UNMAP;
			ops[n].fd = -1;
			ops[n].addr = from;
			ops[n++].len = end - from;
		}
		if (i < 2 && b[i] + l[i] > from)
			from = b[i] + l[i];
	}
	ret = n ? mem_batch(as, ops, n, &err) : 0;
	return ret == n ? 0 : (ret < 0 ? ret : err);
}

static int aspace_reset(struct uml_aspace *as)
{
	struct uml_thread *t = as->threads;
	int ret;

	if (t->dead || t->exit_pending)
		return -ESRCH;
	ret = unmap_around(as, UML_GUEST_MIN, as->info.guest_top);
	if (ret)
		return ret;
	memset(__uml_skas_regs(t), 0, sizeof(struct uml_regs));
	return __uml_skas_fpu_reset(t);
}

/* ---- guest memory ----------------------------------------------------- */

long __uml_skas_mem_rw(struct uml_aspace *as, void *buf, uint64_t addr,
		       size_t len, int write)
{
	struct skas_mem_rw rw;
	long ret;

	if (addr >= USER_TOP)
		return -EFAULT;
	if (len > USER_TOP - addr)
		len = USER_TOP - addr;
	memset(&rw, 0, sizeof(rw));
	rw.size = sizeof(rw);
	rw.addr = addr;
	rw.buf = (uintptr_t)buf;
	rw.len = len;
	ret = ioctl(as->fd, write ? SKAS_MEM_WRITE : SKAS_MEM_READ, &rw);
	if (ret < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return ret ? ret : -EFAULT;
}

static long mem_read(struct uml_aspace *as, void *buf, uint64_t addr,
		     size_t len)
{
	return __uml_skas_mem_rw(as, buf, addr, len, 0);
}

static long mem_write(struct uml_aspace *as, uint64_t addr, const void *buf,
		      size_t len)
{
	return __uml_skas_mem_rw(as, (void *)buf, addr, len, 1);
}

static int set_policy(struct uml_aspace *as, unsigned int nr,
		      unsigned int action, int64_t value)
{
	struct skas_policy pol = {
		.size = sizeof(pol),
		.nr = nr,
		.action = action,
		.value = value,
	};

	if (action == UML_POLICY_NATIVE_MARKED) {
		pol.action = SKAS_POLICY_NATIVE;
		pol.flags = SKAS_POLICY_MARKED;
	}

	return ioctl(as->fd, SKAS_SET_POLICY, &pol) ? -errno : 0;
}

static int mark_fds(struct uml_aspace *as, unsigned int first,
		    unsigned int count, unsigned int marks)
{
	struct skas_mark_fds m = {
		.size = sizeof(m),
		.marks = marks,		/* UML_FD_MARK_* == SKAS_FD_MARK_* */
		.first = first,
		.count = count,
	};

	return ioctl(as->fd, SKAS_MARK_FDS, &m) ? -errno : 0;
}

#ifdef SKAS_CAP_SPIN
static int set_spin(struct uml_thread *t, unsigned int ns)
{
	struct skas_enable_cap cap = { .cap = SKAS_CAP_SPIN, .args = { ns } };

	return ioctl(t->fd, SKAS_ENABLE_CAP, &cap) ? -errno : 0;
}
#endif

#ifdef SKAS_CAP_YIELD
static int set_yield(struct uml_thread *t, int on)
{
	struct skas_enable_cap cap = { .cap = SKAS_CAP_YIELD,
				       .args = { on != 0 } };

	return ioctl(t->fd, SKAS_ENABLE_CAP, &cap) ? -errno : 0;
}
#endif

/* The run page is the module's input while the thread is stopped. */
static int set_thread_value(struct uml_thread *t, int64_t value)
{
	if (!t->run)
		return -ESRCH;
	t->run->thread_value = value;
	return 0;
}

const struct uml_ops __uml_skas_ops = {
	.aspace_create = aspace_create,
	.aspace_destroy = aspace_destroy,
	.mem_batch = mem_batch,
	.aspace_reset = aspace_reset,
	.mem_read = mem_read,
	.mem_write = mem_write,
	.thread_run = __uml_skas_thread_run,
	.thread_run_mem = __uml_skas_thread_run_mem,
	.thread_kick = __uml_skas_thread_kick,
	.get_fpregs = __uml_skas_get_fpregs,
	.set_fpregs = __uml_skas_set_fpregs,
	.get_xstate = __uml_skas_get_xstate,
	.set_xstate = __uml_skas_set_xstate,
	.take_xstate = __uml_skas_take_xstate,
	.thread_clone = __uml_skas_thread_clone,
	.thread_destroy = thread_destroy,
	.set_policy = set_policy,
	.set_thread_value = set_thread_value,
	.mark_fds = mark_fds,
#ifdef SKAS_CAP_SPIN
	.set_spin = set_spin,
#endif
#ifdef SKAS_CAP_YIELD
	.set_yield = set_yield,
#endif
};
