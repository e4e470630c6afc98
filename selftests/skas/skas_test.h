/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the skas selftests.
 */
#ifndef SKAS_TEST_H
#define SKAS_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/skas.h>

#define SKAS_DEV	"/dev/skas"
#define SKAS_MODULE	"/lib/modules/skas.ko"

/* An address that is never mapped in user space: a kernel address. */
#define SKAS_BAD_PTR	((void *)0xffff800000000000UL)

static inline int skas_open_dev(void)
{
	return open(SKAS_DEV, O_RDWR | O_CLOEXEC);
}

/*
 * The text of /sys/module/skas/parameters/@name into @buf: 0, or -1
 * without it (no module, or a module without it).
 */
static inline int skas_param_read(const char *name, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/skas/parameters/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* A number parameter (probes_registered, objects), or -1 without it. */
static inline long skas_param(const char *name)
{
	char buf[32];

	if (skas_param_read(name, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

/*
 * Wait up to 5 s for a count of the module to be 0: its objects
 * ("objects": address spaces and threads) and "probes_registered" go
 * after their tasks, an RCU grace period, and for the probes a linger of
 * a second.  Returns the count, -1 without the module.
 */
static inline long skas_wait_param_zero(const char *name)
{
	long n = skas_param(name);

	for (int i = 0; i < 500 && n > 0; i++) {
		usleep(10000);
		n = skas_param(name);
	}
	return n;
}

/* Load skas.ko (finit_module), unload it (never waits); 0 or -errno. */
static inline int skas_load(void)
{
	int fd, ret;

	fd = open(SKAS_MODULE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

static inline int skas_unload(void)
{
	return syscall(SYS_delete_module, "skas", O_NONBLOCK) ? -errno : 0;
}

/* SKAS_CREATE_ASPACE with a well-formed argument; -errno on failure. */
static inline int skas_create_aspace(int dev)
{
	struct skas_create_aspace args;
	int fd;

	memset(&args, 0, sizeof(args));
	args.size = sizeof(args);
	fd = ioctl(dev, SKAS_CREATE_ASPACE, &args);
	return fd < 0 ? -errno : fd;
}

/* SKAS_CREATE_THREAD with a well-formed argument; -errno on failure. */
static inline int skas_create_thread(int as)
{
	struct skas_create_thread args;
	int fd;

	memset(&args, 0, sizeof(args));
	args.size = sizeof(args);
	fd = ioctl(as, SKAS_CREATE_THREAD, &args);
	return fd < 0 ? -errno : fd;
}

static inline struct skas_run *skas_map_run(int thread)
{
	void *p = mmap(NULL, SKAS_RUN_PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED, thread, 0);

	return p == MAP_FAILED ? NULL : (struct skas_run *)p;
}

/*
 * Make the calling process a fit stub: no signal handlers, no rseq area.
 * Returns 0 or a step number that failed.  The handlers go with the raw
 * syscall: glibc's signal() refuses its internal signals 32 and 33, which
 * have handlers once the runtime has a thread (attach says EBUSY then).
 */
static inline int skas_stub_prepare(void)
{
	struct { unsigned long handler, flags, restorer, mask; } dfl;
	char *area = (char *)__builtin_thread_pointer() + __rseq_offset;
	int sig;

	memset(&dfl, 0, sizeof(dfl));	/* SIG_DFL */
	for (sig = 1; sig < 65; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			syscall(SYS_rt_sigaction, sig, &dfl, NULL, 8);
	/* glibc registered 32 bytes; __rseq_size may say less (2.40+). */
	if (__rseq_size &&
	    syscall(SYS_rseq, area, 32, 1 /* RSEQ_FLAG_UNREGISTER */,
		    0x53053053) &&
	    syscall(SYS_rseq, area, __rseq_size, 1, 0x53053053))
		return 10;
	return 0;
}

/*
 * If set, run by each stub child after skas_stub_prepare() (e.g. to
 * install a seccomp filter); a nonzero return is the stub's exit code.
 */
static int (*skas_stub_pre_attach)(void);

/*
 * A stub child: prepare, wait @delay microseconds, attach to @thread;
 * exits only if attach fails.
 */
static inline void __attribute__((noreturn))
skas_stub_main_after(int thread, useconds_t delay)
{
	struct skas_attach args;
	int ret;

	ret = skas_stub_prepare();
	if (!ret && skas_stub_pre_attach)
		ret = skas_stub_pre_attach();
	if (ret)
		_exit(ret);
	if (delay)
		usleep(delay);
	memset(&args, 0, sizeof(args));
	args.size = sizeof(args);
	ioctl(thread, SKAS_ATTACH, &args);
	_exit(errno);
}

static inline void skas_stub_main(int thread)
{
	skas_stub_main_after(thread, 0);
}

/* A guest: address space, thread, run page, attached stub. */
struct skas_guest {
	int dev, as, thread;
	pid_t pid;
	struct skas_run *run;
};

/*
 * A guest whose stub waits @delay microseconds before it attaches;
 * *@forked (if given) is set once the stub exists.  Returns 0, or -errno /
 * a positive stub exit code on failure.
 */
static inline int skas_guest_start_slow(struct skas_guest *g,
					useconds_t delay, volatile int *forked)
{
	struct pollfd pfd;
	int status;

	memset(g, 0, sizeof(*g));
	g->dev = g->as = g->thread = -1;
	g->dev = skas_open_dev();
	if (g->dev < 0)
		return -errno;
	g->as = skas_create_aspace(g->dev);
	if (g->as < 0)
		return g->as;
	g->thread = skas_create_thread(g->as);
	if (g->thread < 0)
		return g->thread;
	g->run = skas_map_run(g->thread);
	if (!g->run)
		return -errno;
	g->pid = fork();
	if (g->pid < 0)
		return -errno;
	if (g->pid == 0)
		skas_stub_main_after(g->thread, delay);
	if (forked)
		*forked = 1;
	pfd.fd = g->thread;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) != 1) {
		if (waitpid(g->pid, &status, WNOHANG) == g->pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
		return -ETIMEDOUT;
	}
	return 0;
}

static inline int skas_guest_start(struct skas_guest *g)
{
	return skas_guest_start_slow(g, 0, NULL);
}

/* Close everything; the module kills the stub; reap it. */
static inline void skas_guest_stop(struct skas_guest *g)
{
	if (g->run)
		munmap(g->run, SKAS_RUN_PAGE_SIZE);
	if (g->thread >= 0)
		close(g->thread);
	if (g->as >= 0)
		close(g->as);
	if (g->dev >= 0)
		close(g->dev);
	if (g->pid > 0)
		waitpid(g->pid, NULL, 0);
}

/* SKAS_RUN; returns the exit reason or -errno. */
static inline int skas_run(struct skas_guest *g)
{
	if (ioctl(g->thread, SKAS_RUN, 0))
		return -errno;
	return g->run->exit_reason;
}

/* SKAS_SET_POLICY for one syscall, with @flags; 0 or -errno. */
static inline int skas_set_policy_flags(int as, unsigned int nr,
					unsigned int action, unsigned int flags,
					long long value)
{
	struct skas_policy p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.nr = nr;
	p.action = action;
	p.flags = flags;
	p.value = value;
	return ioctl(as, SKAS_SET_POLICY, &p) ? -errno : 0;
}

/* SKAS_SET_POLICY for one syscall; 0 or -errno. */
static inline int skas_set_policy(int as, unsigned int nr, unsigned int action,
				  long long value)
{
	return skas_set_policy_flags(as, nr, action, 0, value);
}

/* SKAS_INSTALL_FD of the runtime's @fd at the guest's @target; 0 or -errno. */
static inline int skas_install_fd(int as, int fd, int target,
				  unsigned int flags)
{
	struct skas_install_fd a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.fd = fd;
	a.target = target;
	a.flags = flags;
	return ioctl(as, SKAS_INSTALL_FD, &a) ? -errno : 0;
}

/* One SKAS_MEM operation; returns the ioctl result (-errno on failure). */
static inline int skas_mem1(int as, unsigned int op, unsigned long addr,
			    unsigned long len, unsigned int prot,
			    unsigned int flags, int fd, unsigned long offset)
{
	struct skas_mem_op o;
	struct skas_mem_batch b;
	int ret;

	memset(&o, 0, sizeof(o));
	o.op = op;
	o.addr = addr;
	o.len = len;
	o.prot = prot;
	o.flags = flags;
	o.fd = fd;
	o.offset = offset;
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.count = 1;
	b.ops = (unsigned long)&o;
	ret = ioctl(as, SKAS_MEM, &b);
	return ret < 0 ? -errno : ret;
}

/* SKAS_RUN_MEM with @n operations; the ioctl's result, -errno. */
static inline int skas_run_mem(struct skas_guest *g, struct skas_mem_op *ops,
			       unsigned int n, int *error)
{
	struct skas_mem_batch b;
	int ret;

	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.count = n;
	b.ops = (unsigned long)ops;
	ret = ioctl(g->thread, SKAS_RUN_MEM, &b) ? -errno : 0;
	if (error)
		*error = b.error;
	return ret;
}

static inline int skas_map_anon(int as, unsigned long addr, unsigned long len,
				unsigned int prot)
{
	return skas_mem1(as, SKAS_MEM_MAP, addr, len, prot,
			 SKAS_MAP_PRIVATE | SKAS_MAP_ANONYMOUS, -1, 0);
}

/* SKAS_MEM_READ/WRITE; returns bytes or -errno. */
static inline long skas_rw(int as, bool write, unsigned long addr, void *buf,
			   unsigned long len)
{
	struct skas_mem_rw rw;
	long ret;

	memset(&rw, 0, sizeof(rw));
	rw.size = sizeof(rw);
	rw.addr = addr;
	rw.buf = (unsigned long)buf;
	rw.len = len;
	ret = ioctl(as, write ? SKAS_MEM_WRITE : SKAS_MEM_READ, &rw);
	return ret < 0 ? -errno : ret;
}

/* Registers for syscall @nr(@a0 ... @a3) at @rip, the stack at @rsp. */
static inline void skas_set_call(struct skas_run *run, unsigned long rip,
				 unsigned long rsp, long nr, unsigned long a0,
				 unsigned long a1, unsigned long a2,
				 unsigned long a3)
{
	memset(&run->regs, 0, sizeof(run->regs));
	run->regs.rip = rip;
	run->regs.eflags = 0x202;
	run->regs.rsp = rsp;
	run->regs.rax = nr;
	run->regs.rdi = a0;
	run->regs.rsi = a1;
	run->regs.rdx = a2;
	run->regs.r10 = a3;
}

/* Registers for running at @rip with a valid user state. */
static inline void skas_regs_at(struct skas_guest *g, unsigned long rip)
{
	memset(&g->run->regs, 0, sizeof(g->run->regs));
	g->run->regs.rip = rip;
	g->run->regs.eflags = 0x202;
}

#endif /* SKAS_TEST_H */
