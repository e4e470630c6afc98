// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ptrace backend, address-space side: the stub process, its hollowing,
 * syscall injection, the mem ops and guest memory access.
 *
 * One stub process per guest thread; the threads of one address space
 * share their mm (clone(CLONE_VM)).  Every stub is a child of the runtime
 * (the first by fork, the others by an injected clone(CLONE_PARENT)) and
 * is traced by the runtime thread that created the host, so that thread
 * reaps them: no zombie outlives uml_aspace_destroy().  PTRACE_O_EXITKILL
 * and PR_SET_PDEATHSIG make sure no stub outlives the runtime.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "stub.h"

_Static_assert(sizeof(struct uml_regs) == sizeof(struct user_regs_struct),
	       "uml_regs must match user_regs_struct");
_Static_assert(sizeof(struct uml_fpregs) == sizeof(struct user_fpregs_struct),
	       "uml_fpregs must match user_fpregs_struct");


/* Anything at or above this is beyond the 47-bit user address space. */
#define USER_END	0x7ffffffff000ULL
/* A vDSO below this (legacy bottom-up layout) is unmapped, not kept. */
#define VDSO_KEEP_MIN	0x7e0000000000ULL

/* The kernel ABI flag glibc sets behind our back; raw rt_sigaction needs it. */
#define KSA_RESTORER	0x04000000


int __uml_ptrace_host_init(struct uml_host *host)
{
	int fd = __uml_stub_memfd();

	if (fd < 0)
		return fd;
	host->stub_fd = fd;
	host->ops = &__uml_ptrace_ops;
	return 0;
}

/* waitpid() for one traced task, restarting on EINTR. */
int __uml_pt_wait(pid_t pid, int *status)
{
	pid_t r;

	do {
		r = waitpid(pid, status, __WALL);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

/*
 * __uml_pt_wait() for the task of @t, with wait4() @flags beside __WALL
 * (WUNTRACED: a group stop of the untraced stub too): a death's rusage
 * (each stub is a process of its own) goes to the address space's.
 */
int __uml_pt_wait_flags(struct uml_thread *t, int *status, int flags)
{
	struct rusage ru;
	pid_t r;

	do {
		r = wait4(t->pid, status, __WALL | flags, &ru);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (!WIFSTOPPED(*status))
		__uml_aspace_usage_add(t->as, &ru);
	return 0;
}

int __uml_pt_wait_thread(struct uml_thread *t, int *status)
{
	return __uml_pt_wait_flags(t, status, 0);
}

struct uml_thread *__uml_pt_thread_new(struct uml_aspace *as, pid_t pid)
{
	struct uml_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->pid = pid;
	t->pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (t->pidfd < 0) {
		free(t);
		return NULL;
	}
	fcntl(t->pidfd, F_SETFD, FD_CLOEXEC);
	__uml_thread_link(as, t);
	return t;
}

/* Kill and reap the thread's host task (if still there), free it. */
void __uml_pt_thread_free(struct uml_thread *t)
{
	int status;

	if (t->pid) {
		syscall(SYS_pidfd_send_signal, t->pidfd, SIGKILL, NULL, 0);
		/* Skip any stop still to be reported; reap the death. */
		while (!__uml_pt_wait_thread(t, &status) && WIFSTOPPED(status))
			;
		__uml_thread_gone(t);
	}
	close(t->pidfd);
	__uml_thread_unlink(t);
	free(t);
}

struct uml_aspace *__uml_pt_aspace_new(struct uml_host *host, pid_t pid,
				       int sock)
{
	struct uml_aspace *as = calloc(1, sizeof(*as));
	char path[64];

	if (!as)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	as->memfd = open(path, O_RDWR | O_CLOEXEC);
	if (as->memfd < 0) {
		free(as);
		return NULL;
	}
	as->sock = sock;
	__uml_aspace_link(host, as);
	return as;
}

static void aspace_destroy(struct uml_aspace *as, struct rusage *ru)
{
	while (as->threads)
		__uml_pt_thread_free(as->threads);
	if (ru)
		*ru = as->usage;
	close(as->memfd);
	close(as->sock);
	__uml_aspace_unlink(as);
	free(as);
}

static long mem_rw(struct uml_aspace *as, void *buf, uint64_t addr,
		   size_t len, int write);

/* Write the stub's scratch page (uml_mem_write() refuses the stub). */
static int scratch_write(struct uml_aspace *as, const void *buf, size_t len)
{
	return mem_rw(as, (void *)buf, STUB_SCRATCH, len, 1) == (long)len ?
	       0 : -EFAULT;
}

/* ---- syscall injection ------------------------------------------------ */

int __uml_pt_save(struct uml_thread *t, void *kregs)
{
	return ptrace(PTRACE_GETREGS, t->pid, 0, kregs) ? -errno : 0;
}

int __uml_pt_restore(struct uml_thread *t, const void *kregs)
{
	return ptrace(PTRACE_SETREGS, t->pid, 0, kregs) ? -errno : 0;
}

static int is_fault_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGTRAP;
}

/* The task died while we injected: remember it for the next run. */
long __uml_pt_inject_died(struct uml_thread *t, int status)
{
	t->exit_pending = 1;
	t->exit_status = status;
	__uml_thread_gone(t);
	return -ESRCH;
}

/*
 * ptrace() failed on a task we hold stopped: ESRCH means it was killed
 * (SIGKILL from outside); collect its death so that state stays exact.
 */
long __uml_pt_inject_failed(struct uml_thread *t)
{
	int err = errno, status;

	if (err != ESRCH)
		return -err;
	while (!__uml_pt_wait_thread(t, &status))
		if (!WIFSTOPPED(status))
			return __uml_pt_inject_died(t, status);
	return -ESRCH;
}

/*
 * Run the syscall @nr in the stopped task @t, at the stub's "syscall; int3",
 * starting from the register set @base (the caller saved and restores the
 * guest's).  A signal that arrives meanwhile (a kick, a stray kill) is
 * swallowed and remembered as an interruption; a fork/clone event stores
 * the new task's pid in *@event_pid.
 */
static long inject(struct uml_thread *t, const struct user_regs_struct *base,
		   long nr, const long a[6], pid_t *event_pid)
{
	struct user_regs_struct r = *base;
	unsigned long msg;
	siginfo_t si;
	int status, sig, ret;

	r.rip = STUB_SYSCALL;
	r.rax = nr;
	r.orig_rax = -1;	/* no syscall-restart games on the way out */
	r.rdi = a[0];
	r.rsi = a[1];
	r.rdx = a[2];
	r.r10 = a[3];
	r.r8 = a[4];
	r.r9 = a[5];
	if (ptrace(PTRACE_SETREGS, t->pid, 0, &r))
		return __uml_pt_inject_failed(t);
	sig = 0;
	for (;;) {
		if (ptrace(PTRACE_CONT, t->pid, 0, sig))
			return __uml_pt_inject_failed(t);
		sig = 0;
		ret = __uml_pt_wait_thread(t, &status);
		if (ret)
			return ret;
		if (!WIFSTOPPED(status))
			return __uml_pt_inject_died(t, status);
		if (status >> 16) {	/* a ptrace event: fork or clone */
			if (event_pid && !ptrace(PTRACE_GETEVENTMSG, t->pid,
						 0, &msg))
				*event_pid = msg;
			continue;
		}
		if (WSTOPSIG(status) == SIGTRAP) {
			if (ptrace(PTRACE_GETREGS, t->pid, 0, &r))
				return -errno;
			if (r.rip == STUB_SYSCALL_END)
				return r.rax;
			/* Only stub code can run here; never resume elsewhere. */
			if (r.rip < STUB_BASE || r.rip >= STUB_BASE + STUB_CODE_SIZE)
				return -EFAULT;
			continue;
		}
		if (!ptrace(PTRACE_GETSIGINFO, t->pid, 0, &si) &&
		    is_fault_signal(si.si_signo) && si.si_code > 0)
			return -EFAULT;		/* the stub itself faulted */
		t->interrupted = 1;
	}
}

long __uml_pt_inject(struct uml_thread *t, long nr, long a1, long a2,
		     long a3, long a4, long a5, long a6)
{
	struct user_regs_struct base;
	long a[6] = { a1, a2, a3, a4, a5, a6 };
	long ret;

	ret = __uml_pt_save(t, &base);
	if (ret)
		return ret;
	ret = inject(t, &base, nr, a, NULL);
	if (t->pid)
		__uml_pt_restore(t, &base);
	return ret;
}

long __uml_pt_inject_event(struct uml_thread *t,
			   const struct user_regs_struct *base, long nr,
			   const long a[6], pid_t *event_pid)
{
	return inject(t, base, nr, a, event_pid);
}

/* ---- stub start-up ---------------------------------------------------- */

/*
 * The child between fork and exec: async-signal-safe calls only (the
 * runtime may be multithreaded).  It keeps the socket as STUB_SOCK_FD and
 * nothing else, resets signal state, installs the vsyscall filter (uml.c)
 * if @filter, and execs the stub under PTRACE_TRACEME.
 */
static void __attribute__((noreturn)) stub_child(int stub_fd, int sock,
						 pid_t parent, int filter)
{
	static char *const argv[] = { "uml-stub", NULL };
	static char *const envp[] = { NULL };
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t all;
	char path[40];
	int sig, fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	/* Its own process group: see thread_release(). */
	setpgid(0, 0);
	/* For stub_confine()'s filter, inherited by the exec. */
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	for (sig = 1; sig < 65; sig++)
		sigaction(sig, &sa, NULL);
	/*
	 * A kick (SIGUSR1) still stops a traced stub (a tracer sees ignored
	 * signals too), but one that reaches a released stub is dropped
	 * instead of killing it: see thread_adopt().
	 */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);

	/* Everything but the socket goes: fds 0-2 now, the rest at exec. */
	fd = __uml_stub_child_fds(stub_fd, sock, STUB_SOCK_FD);
	if (fd < 0 || (filter && __uml_stub_vsyscall_filter()))
		_exit(127);
	if (ptrace(PTRACE_TRACEME, 0, 0, 0))
		_exit(127);
	syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	execve(path, argv, envp);
	_exit(127);
}

struct range {
	uint64_t start, end;
};

/*
 * Read the stub's maps: what to keep (stub, vDSO, vvar) goes to @keep
 * (sorted, as the maps are) and the vDSO/vvar ranges to @info.
 */
static int stub_layout(pid_t pid, struct range *keep, int max,
		       struct uml_aspace_info *info)
{
	char path[64], line[512], name[256];
	unsigned long long s, e;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	memset(info, 0, sizeof(*info));
	while (fgets(line, sizeof(line), f)) {
		name[0] = 0;
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %255s", &s, &e,
			   name) < 2)
			continue;
		if (s >= USER_END)
			continue;
		if (s >= STUB_BASE && e <= STUB_END) {
			/* the stub's own pages */
		} else if (s >= VDSO_KEEP_MIN && !strcmp(name, "[vdso]")) {
			info->vdso_base = s;
			info->vdso_len = e - s;
		} else if (s >= VDSO_KEEP_MIN && !strncmp(name, "[vvar", 5)) {
			/* [vvar] and, on newer kernels, [vvar_vclock] */
			if (!info->vvar_base || s < info->vvar_base) {
				info->vvar_len += info->vvar_base ?
					info->vvar_base - s : e - s;
				info->vvar_base = s;
			}
			if (e > info->vvar_base + info->vvar_len)
				info->vvar_len = e - info->vvar_base;
		} else {
			continue;
		}
		if (n && keep[n - 1].end == s) {
			keep[n - 1].end = e;
		} else if (n < max) {
			keep[n].start = s;
			keep[n++].end = e;
		} else {
			fclose(f);
			return -E2BIG;
		}
	}
	fclose(f);
	info->guest_top = STUB_BASE;
	if (info->vdso_base && info->vdso_base < info->guest_top)
		info->guest_top = info->vdso_base;
	if (info->vvar_base && info->vvar_base < info->guest_top)
		info->guest_top = info->vvar_base;
	return n;
}

/* Unmap everything of the freshly exec'd stub but @keep. */
static int stub_hollow(struct uml_thread *t, const struct range *keep, int n)
{
	uint64_t from = 0;
	long ret;
	int i;

	for (i = 0; i <= n; i++) {
		uint64_t to = i < n ? keep[i].start : USER_END;

		if (to > from) {
			ret = __uml_pt_inject(t, SYS_munmap, from, to - from,
					      0, 0, 0, 0);
			if (ret)
				return ret;
		}
		if (i < n)
			from = keep[i].end;
	}
	return 0;
}

/*
 * The fault-info handler (see ptrace_run.c): an alternate stack in the
 * stub's data, per task (a CLONE_VM child starts without one), and for
 * each fault signal a handler at STUB_HANDLER that traps at once, per
 * process (inherited by clone and fork, as there is no CLONE_SIGHAND).
 */
int __uml_pt_setup_altstack(struct uml_thread *t)
{
	struct {
		uint64_t sp;
		int32_t flags, pad;
		uint64_t size;
	} ss = { .sp = STUB_ALTSTACK, .size = STUB_ALTSTACK_SIZE };

	long ret = -EFAULT;

	pthread_mutex_lock(&t->as->stub_lock);
	if (!scratch_write(t->as, &ss, sizeof(ss)))
		ret = __uml_pt_inject(t, SYS_sigaltstack, STUB_SCRATCH,
				      0, 0, 0, 0, 0);
	pthread_mutex_unlock(&t->as->stub_lock);
	return ret;
}

static int setup_handlers(struct uml_thread *t)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP };
	struct {
		uint64_t handler, flags, restorer, mask;
	} ksa = {
		.handler = STUB_HANDLER,
		.flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | KSA_RESTORER,
		.restorer = STUB_HANDLER,	/* never returns anyway */
	};
	unsigned int i;
	long ret;

	if (scratch_write(t->as, &ksa, sizeof(ksa)))
		return -EFAULT;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		ret = __uml_pt_inject(t, SYS_rt_sigaction, sigs[i],
				      STUB_SCRATCH, 0, 8, 0, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A stub runs host syscalls only at its own "syscall" instruction, where
 * the tracer injects them; the guest's are stopped by PTRACE_SYSEMU before
 * seccomp is reached.  So a seccomp filter that kills any syscall made
 * elsewhere changes nothing while the stub is traced, and keeps guest
 * code from making host syscalls if it ever runs untraced: a released
 * stub (thread_release()) continued by an outside SIGCONT.  Calls from
 * the vsyscall page pass, for the vsyscall filter, if any, to judge.
 */
static const struct sock_filter confine_insns[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SD_IP_HI),		/* 0 */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, STUB_SYSCALL_RET >> 32, 0, 2),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SD_IP_LO),		/* 2 */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)STUB_SYSCALL_RET, 4, 5),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, VSYSCALL_PAGE >> 32, 0, 4),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SD_IP_LO),		/* 5 */
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xfffff000),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)VSYSCALL_PAGE, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),		/* 8 */
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),	/* 9 */
};

static int stub_confine(struct uml_thread *t)
{
	struct {
		uint16_t len;
		uint16_t pad[3];
		uint64_t filter;
		struct sock_filter insns[sizeof(confine_insns) /
					 sizeof(confine_insns[0])];
	} prog = {
		.len = sizeof(confine_insns) / sizeof(confine_insns[0]),
		.filter = STUB_SCRATCH + offsetof(typeof(prog), insns),
	};
	long ret;

	memcpy(prog.insns, confine_insns, sizeof(confine_insns));
	pthread_mutex_lock(&t->as->stub_lock);
	ret = scratch_write(t->as, &prog, sizeof(prog));
	if (!ret)
		ret = __uml_pt_inject(t, SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				      0, STUB_SCRATCH, 0, 0, 0);
	pthread_mutex_unlock(&t->as->stub_lock);
	return ret;
}

static int stub_start(struct uml_host *host, int sock, pid_t *pidp)
{
	pid_t parent = getpid(), pid;
	int status, ret;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		stub_child(host->stub_fd, sock, parent, host->vsyscall_filter);
	ret = __uml_pt_wait(pid, &status);
	if (!ret && !(WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP))
		ret = -ENOEXEC;		/* the exec failed */
	if (!ret && ptrace(PTRACE_SETOPTIONS, pid, 0, STUB_OPTIONS))
		ret = -errno;
	if (ret) {
		kill(pid, SIGKILL);
		__uml_pt_wait(pid, &status);
		return ret;
	}
	*pidp = pid;
	return 0;
}

static int aspace_create(struct uml_host *host, struct uml_aspace **asp,
			 struct uml_thread **threadp)
{
	struct range keep[8];
	struct uml_aspace *as;
	struct uml_thread *t;
	int sv[2], ret, n, status;
	pid_t pid = 0;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	ret = stub_start(host, sv[1], &pid);
	close(sv[1]);
	if (ret) {
		close(sv[0]);
		return ret;
	}
	as = __uml_pt_aspace_new(host, pid, sv[0]);
	if (!as) {
		ret = errno ? -errno : -ENOMEM;
		kill(pid, SIGKILL);
		__uml_pt_wait(pid, &status);
		close(sv[0]);
		return ret;
	}
	t = __uml_pt_thread_new(as, pid);
	if (!t) {
		kill(pid, SIGKILL);
		__uml_pt_wait(pid, &status);
		aspace_destroy(as, NULL);
		return -ENOMEM;
	}
	n = stub_layout(pid, keep, 8, &as->info);
	ret = n < 0 ? n : stub_hollow(t, keep, n);
	if (!ret)
		ret = __uml_pt_setup_altstack(t);
	if (!ret)
		ret = setup_handlers(t);
	if (!ret)
		ret = stub_confine(t);
	if (ret) {
		aspace_destroy(as, NULL);
		return ret;
	}
	t->interrupted = 0;
	*asp = as;
	*threadp = t;
	return 0;
}

/* ---- mem ops ---------------------------------------------------------- */

/* One batch: the saved guest registers, and a file passed to the stub. */
struct batch {
	struct user_regs_struct saved;
	struct uml_thread *t;
	int rfd;	/* runtime fd last passed, -1 if none */
	int sfd;	/* its number in the stub */
};

static void *mem_batch_begin(struct uml_aspace *as, int *err)
{
	struct batch *b = calloc(1, sizeof(*b));

	if (!b) {
		*err = -ENOMEM;
		return NULL;
	}
	b->rfd = -1;
	/* A stopped task the caller traces; skip killed ones. */
	while ((b->t = __uml_driven_thread(as))) {
		*err = __uml_pt_save(b->t, &b->saved);
		if (!*err)
			return b;
		if (*err != -ESRCH)
			break;
		errno = ESRCH;
		__uml_pt_inject_failed(b->t);
		if (__uml_thread_pid(b->t))
			break;		/* not collected: do not pick it again */
	}
	if (!b->t)
		*err = -ESRCH;
	free(b);
	return NULL;
}

static void batch_close_fd(struct batch *b)
{
	long a[6] = { b->sfd };

	if (b->rfd >= 0 && b->t->pid)
		inject(b->t, &b->saved, SYS_close, a, NULL);
	b->rfd = -1;
}

static void mem_batch_end(struct uml_aspace *as, void *p)
{
	struct batch *b = p;

	(void)as;
	batch_close_fd(b);
	if (b->t->pid)
		__uml_pt_restore(b->t, &b->saved);
	free(b);
}

/* The scratch page layout for recvmsg(). */
struct fd_msg {
	struct msghdr mh;
	struct iovec iov;
	uint64_t seq;
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
};

/* Send @fd to the stub's socket, tagged with @seq. */
static int send_fd(int sock, int fd, uint64_t seq)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct iovec iov = { .iov_base = &seq, .iov_len = sizeof(seq) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = c.buf, .msg_controllen = sizeof(c.buf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	memset(&c, 0, sizeof(c));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == sizeof(seq) ?
	       0 : -errno;
}

/*
 * One non-blocking recvmsg() in the stub: the fd received (-1 when the
 * message carried none) in *@sfdp, its tag in *@seq.  -EAGAIN when the
 * queue is empty.
 */
static int stub_recv_fd(struct batch *b, int *sfdp, uint64_t *seq)
{
	struct fd_msg m, *sm = (struct fd_msg *)STUB_SCRATCH;
	long a[6] = { STUB_SOCK_FD, STUB_SCRATCH,
		      MSG_CMSG_CLOEXEC | MSG_DONTWAIT };
	struct cmsghdr *cm;
	long ret;
	int sfd = -1;

	memset(&m, 0, sizeof(m));
	m.iov.iov_base = &sm->seq;
	m.iov.iov_len = sizeof(m.seq);
	m.mh.msg_iov = &sm->iov;
	m.mh.msg_iovlen = 1;
	m.mh.msg_control = sm->c.buf;
	m.mh.msg_controllen = sizeof(m.c.buf);
	pthread_mutex_lock(&b->t->as->stub_lock);
	ret = scratch_write(b->t->as, &m, sizeof(m));
	if (!ret)
		ret = inject(b->t, &b->saved, SYS_recvmsg, a, NULL);
	if (ret >= 0 && uml_mem_read(b->t->as, &m, STUB_SCRATCH, sizeof(m)) !=
	    sizeof(m))
		ret = -EFAULT;
	pthread_mutex_unlock(&b->t->as->stub_lock);
	if (ret < 0)
		return ret;
	cm = (struct cmsghdr *)m.c.buf;
	if (m.mh.msg_controllen >= CMSG_LEN(sizeof(int)) &&
	    cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&sfd, CMSG_DATA(cm), sizeof(int));
	*seq = m.seq;
	*sfdp = sfd;
	return 0;
}

/*
 * Pass the runtime's @fd into the stub: sendmsg() here, recvmsg() injected
 * there.  Messages carry a sequence number, so a message left behind by an
 * earlier failure can never be taken for this one: stale ones are closed.
 */
static int pass_fd_locked(struct batch *b, int fd)
{
	static uint64_t next_seq;
	uint64_t seq = __atomic_add_fetch(&next_seq, 1, __ATOMIC_RELAXED);
	uint64_t got = 0;
	long a[6] = { 0 };
	int ret, sfd = -1, i;

	ret = send_fd(b->t->as->sock, fd, seq);
	if (ret)
		return ret;
	for (i = 0; i < 64; i++) {
		ret = stub_recv_fd(b, &sfd, &got);
		if (ret)
			return ret;
		if (got == seq && sfd >= 0) {
			b->rfd = fd;
			b->sfd = sfd;
			return 0;
		}
		if (sfd >= 0) {
			a[0] = sfd;
			inject(b->t, &b->saved, SYS_close, a, NULL);
		}
		if (got == seq)
			return -EBADF;
	}
	return -EIO;
}

/* Forked address spaces share the socket: one message at a time. */
static int pass_fd(struct batch *b, int fd)
{
	pthread_mutex_t *lock = &b->t->as->host->pass_lock;
	int ret;

	if (b->rfd == fd)
		return 0;
	batch_close_fd(b);
	pthread_mutex_lock(lock);
	ret = pass_fd_locked(b, fd);
	pthread_mutex_unlock(lock);
	return ret;
}

static int mem_op(struct uml_aspace *as, const struct uml_mem_op *op, void *p)
{
	struct batch *b = p;
	long a[6] = { op->addr, op->len, op->prot };
	long nr, ret;

	(void)as;
	switch (op->op) {
	case UML_MEM_MAP:
		nr = SYS_mmap;
		a[3] = MAP_FIXED | (op->flags & UML_MAP_SHARED ? MAP_SHARED :
				    MAP_PRIVATE);
		if (op->flags & UML_MAP_ANONYMOUS) {
			a[3] |= MAP_ANONYMOUS;
			a[4] = -1;
		} else {
			ret = pass_fd(b, op->fd);
			if (ret)
				return ret;
			a[4] = b->sfd;
			a[5] = op->offset;
		}
		break;
	case UML_MEM_UNMAP:
		nr = SYS_munmap;
		break;
	default:
		nr = SYS_mprotect;
		break;
	}
	ret = inject(b->t, &b->saved, nr, a, NULL);
	if (ret < 0 && ret > -4096)
		return ret;
	if (nr == SYS_mmap && (uint64_t)ret != op->addr)
		return -ENOMEM;		/* MAP_FIXED cannot move; paranoia */
	return 0;
}

/*
 * FPU and vector state to the init state, as execve() leaves it: x87 and
 * SSE given in their init values (FCW 0x37f, MXCSR 0x1f80, the rest 0),
 * every other component left out of XSTATE_BV, which makes the kernel
 * initialize it.  (With neither x87 nor SSE in XSTATE_BV the kernel keeps
 * the old MXCSR.)  @size: the image size, or -errno from asking for it.
 */
static int fpu_reset(struct uml_thread *t, long size)
{
	uint64_t bv = 3;	/* x87, SSE */
	uint32_t mxcsr = 0x1f80;
	uint16_t fcw = 0x37f;
	struct iovec iov;
	int ret = 0;

	if (size < 576)
		return size < 0 ? size : -EIO;
	iov.iov_base = calloc(1, size);
	iov.iov_len = size;
	if (!iov.iov_base)
		return -ENOMEM;
	memcpy(iov.iov_base, &fcw, sizeof(fcw));
	memcpy((char *)iov.iov_base + 24, &mxcsr, sizeof(mxcsr));
	memcpy((char *)iov.iov_base + 512, &bv, sizeof(bv));
	if (ptrace(PTRACE_SETREGSET, t->pid, NT_X86_XSTATE, &iov))
		ret = -errno;
	free(iov.iov_base);
	return ret;
}

/* The state, then the init state: two regset calls. */
static long take_xstate(struct uml_thread *t, void *buf, size_t len)
{
	long size = __uml_pt_get_xstate(t, buf, len);
	int ret;

	if (size < 0)
		return size;
	ret = fpu_reset(t, size);
	return ret ? ret : size;
}

static int aspace_reset(struct uml_aspace *as)
{
	struct uml_thread *t = as->threads;
	long ret;

	if (!t->pid)
		return -ESRCH;
	ret = __uml_pt_inject(t, SYS_munmap, UML_GUEST_MIN,
			      as->info.guest_top - UML_GUEST_MIN, 0, 0, 0, 0);
	if (ret)
		return ret;
	memset(&t->regs, 0, sizeof(t->regs));
	return fpu_reset(t, __uml_pt_get_xstate(t, NULL, 0));
}

/* ---- guest memory ----------------------------------------------------- */

/*
 * Through /proc/PID/mem, which is the address space's whatever task
 * lives: for pages the guest cannot access itself (FOLL_FORCE), and for a
 * caller that drives no thread of it (no pid of a task someone else may
 * reap meanwhile).
 */
static long mem_force(struct uml_aspace *as, void *buf, uint64_t addr,
		      size_t len, int write)
{
	ssize_t r = write ? pwrite(as->memfd, buf, len, addr) :
			    pread(as->memfd, buf, len, addr);
	struct uml_thread *t;
	size_t done = 0;
	long word;

	if (r > 0)
		return r;
	/* /proc/PID/mem may be restricted: word by word with PEEK/POKE. */
	t = __uml_driven_thread(as);
	if (!t)
		return -EFAULT;
	while (done < len) {
		uint64_t a = (addr + done) & ~7ULL;
		size_t off = (addr + done) & 7, n = 8 - off;

		if (n > len - done)
			n = len - done;
		errno = 0;
		word = ptrace(PTRACE_PEEKDATA, t->pid, a, 0);
		if (errno)
			break;
		if (write) {
			memcpy((char *)&word + off, (char *)buf + done, n);
			if (ptrace(PTRACE_POKEDATA, t->pid, a, word))
				break;
		} else {
			memcpy((char *)buf + done, (char *)&word + off, n);
		}
		done += n;
	}
	return done ? (long)done : -EFAULT;
}

static int any_alive(struct uml_aspace *as)
{
	struct uml_thread *t;

	pthread_mutex_lock(&as->lock);
	for (t = as->threads; t && !__uml_thread_pid(t); t = t->next)
		;
	pthread_mutex_unlock(&as->lock);
	return !!t;
}

static long mem_rw(struct uml_aspace *as, void *buf, uint64_t addr,
		   size_t len, int write)
{
	struct uml_thread *t = __uml_driven_thread(as);
	struct iovec local, remote;
	size_t done = 0;
	ssize_t r;

	if (!t && !any_alive(as))
		return -ESRCH;
	if (addr + len < addr)
		return -EFAULT;
	while (done < len) {
		local.iov_base = (char *)buf + done;
		local.iov_len = len - done;
		remote.iov_base = (void *)(uintptr_t)(addr + done);
		remote.iov_len = len - done;
		r = !t ? 0 :
		    write ? process_vm_writev(t->pid, &local, 1, &remote, 1, 0)
			  : process_vm_readv(t->pid, &local, 1, &remote, 1, 0);
		if (r <= 0) {
			r = mem_force(as, (char *)buf + done, addr + done,
				      len - done, write);
			if (r <= 0)
				break;
		}
		done += r;
	}
	return done ? (long)done : -EFAULT;
}

static long mem_read(struct uml_aspace *as, void *buf, uint64_t addr,
		     size_t len)
{
	return mem_rw(as, buf, addr, len, 0);
}

static long mem_write(struct uml_aspace *as, uint64_t addr, const void *buf,
		      size_t len)
{
	return mem_rw(as, (void *)buf, addr, len, 1);
}

static void thread_destroy(struct uml_thread *t)
{
	__uml_pt_thread_free(t);
}

const struct uml_ops __uml_ptrace_ops = {
	.aspace_create = aspace_create,
	.aspace_destroy = aspace_destroy,
	.mem_op = mem_op,
	.mem_batch_begin = mem_batch_begin,
	.mem_batch_end = mem_batch_end,
	.aspace_reset = aspace_reset,
	.mem_read = mem_read,
	.mem_write = mem_write,
	.thread_run = __uml_pt_thread_run,
	.thread_kick = __uml_pt_thread_kick,
	.get_fpregs = __uml_pt_get_fpregs,
	.set_fpregs = __uml_pt_set_fpregs,
	.get_xstate = __uml_pt_get_xstate,
	.set_xstate = __uml_pt_set_xstate,
	.take_xstate = take_xstate,
	.thread_clone = __uml_pt_thread_clone,
	.thread_destroy = thread_destroy,
	.thread_release = __uml_pt_thread_release,
	.thread_adopt = __uml_pt_thread_adopt,
};
