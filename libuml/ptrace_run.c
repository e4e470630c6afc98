// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ptrace backend, thread side: running a guest thread with PTRACE_SYSEMU,
 * turning its stops into uml_exit events, kicks, FPU state, clone, and
 * handing a thread over to another runtime thread (a new tracer).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "stub.h"

#define USER_CS		0x33
#define USER_DS		0x2b
#define USER_END	0x7ffffffff000ULL
#define X32_BIT		0x40000000ULL
#define ARCH_I386	0x40000003U	/* AUDIT_ARCH_I386 */
/* The signal a kick sends; any non-fault signal stop reads as a kick. */
#define SIGKICK		SIGUSR1
#define XSTATE_MAX	65536
/* NT, IOPL, VM, VIF, VIP: never from the runtime's registers. */
#define EFLAGS_UNSAFE	(0x4000 | 0x3000 | 0x20000 | 0x80000 | 0x100000)

long __uml_pt_inject_event(struct uml_thread *t,
			   const struct user_regs_struct *base, long nr,
			   const long a[6], pid_t *event_pid);
struct uml_aspace *__uml_pt_aspace_new(struct uml_host *host, pid_t pid,
				       int sock);

static int is_fault(const siginfo_t *si)
{
	int s = si->si_signo;

	/* si_code > 0: sent by the kernel for a fault, not by kill(). */
	return (s == SIGSEGV || s == SIGBUS || s == SIGILL || s == SIGFPE ||
		s == SIGTRAP) && si->si_code > 0;
}

static void report_exit(struct uml_thread *t, int status, struct uml_exit *ex)
{
	__uml_thread_gone(t);
	t->dead = 1;
	t->exit_pending = 0;
	ex->reason = UML_EXIT_EXITED;
	ex->exited.status = status;
}

static void fill_syscall(struct uml_thread *t, struct uml_exit *ex)
{
	struct __ptrace_syscall_info info;
	const struct uml_regs *r = &t->regs;
	int i;

	ex->reason = UML_EXIT_SYSCALL;
	/*
	 * The syscall instruction leaves rcx = rip and r11 = rflags, and the
	 * kernel saves them as the user's: then it was no int $0x80, and the
	 * extra PTRACE_GET_SYSCALL_INFO is not needed.  (A guest that fakes
	 * this around an int $0x80 only misleads its own emulation.)
	 */
	if (r->rcx == r->rip && r->r11 == r->eflags)
		goto regs64;
	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->pid, sizeof(info), &info) > 0 &&
	    info.op == PTRACE_SYSCALL_INFO_ENTRY) {
		ex->syscall.nr = info.entry.nr;
		for (i = 0; i < 6; i++)
			ex->syscall.args[i] = info.entry.args[i];
		if (info.arch == ARCH_I386) {
			ex->syscall.abi = UML_ABI_IA32;
			return;
		}
	} else {
regs64:
		ex->syscall.nr = r->orig_rax;
		ex->syscall.args[0] = r->rdi;
		ex->syscall.args[1] = r->rsi;
		ex->syscall.args[2] = r->rdx;
		ex->syscall.args[3] = r->r10;
		ex->syscall.args[4] = r->r8;
		ex->syscall.args[5] = r->r9;
	}
	ex->syscall.abi = ex->syscall.nr & X32_BIT ? UML_ABI_X32 : UML_ABI_64;
}

/*
 * ptrace does not show a fault's trap number and error code; the signal
 * frame does.  So deliver the signal to the stub's handler (alternate
 * stack in the stub's data, SA_NODEFER, empty mask: the signal state is
 * untouched), which traps at once, read the frame's sigcontext, then put
 * back the registers and the extended FPU state the delivery reset.
 */
static void fault_info(struct uml_thread *t, int sig, struct uml_exit *ex)
{
	struct user_regs_struct kr, hr;
	uint64_t sc[2];		/* sigcontext err, trapno */
	struct iovec iov;
	void *xs;
	int status, have_xs;

	if (ptrace(PTRACE_GETREGS, t->pid, 0, &kr))
		return;
	xs = malloc(XSTATE_MAX);
	if (!xs)
		return;
	iov.iov_base = xs;
	iov.iov_len = XSTATE_MAX;
	have_xs = !ptrace(PTRACE_GETREGSET, t->pid, NT_X86_XSTATE, &iov);
	/* The altstack is the address space's: one frame on it at a time. */
	pthread_mutex_lock(&t->as->stub_lock);
	if (ptrace(PTRACE_CONT, t->pid, 0, sig))
		goto out;
	for (;;) {
		if (__uml_pt_wait_thread(t, &status))
			goto out;
		if (!WIFSTOPPED(status)) {
			t->exit_pending = 1;
			t->exit_status = status;
			__uml_thread_gone(t);
			goto out;
		}
		if (WSTOPSIG(status) == SIGTRAP && !(status >> 16) &&
		    !ptrace(PTRACE_GETREGS, t->pid, 0, &hr) &&
		    hr.rip == STUB_HANDLER_END)
			break;
		if (WSTOPSIG(status) != SIGKICK)
			goto restore;	/* delivery failed: no details */
		t->interrupted = 1;
		if (ptrace(PTRACE_CONT, t->pid, 0, 0))
			goto out;
	}
	/* rdx = ucontext; uc_mcontext at 40, err and trapno at +152. */
	if (hr.rdx >= STUB_ALTSTACK && hr.rdx < STUB_END - 256 &&
	    uml_mem_read(t->as, sc, hr.rdx + 40 + 152, sizeof(sc)) ==
	    sizeof(sc)) {
		ex->fault.error_code = sc[0];
		ex->fault.trapno = sc[1];
	}
restore:
	ptrace(PTRACE_SETREGS, t->pid, 0, &kr);
	if (have_xs)
		ptrace(PTRACE_SETREGSET, t->pid, NT_X86_XSTATE, &iov);
out:
	pthread_mutex_unlock(&t->as->stub_lock);
	free(xs);
}

/* A stop that is not a syscall: a fault, or anything else (a kick). */
static void fill_signal(struct uml_thread *t, struct uml_exit *ex)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, t->pid, 0, &si)) {
		ex->reason = UML_EXIT_INTERRUPTED;
		return;
	}
	/* A vsyscall, trapped by the stub's filter: the SIGSYS goes. */
	if (si.si_signo == SIGSYS &&
	    __uml_vsyscall_fault(&t->regs, si.si_code,
				 (uintptr_t)si.si_call_addr, ex))
		return;
	if (!is_fault(&si)) {
		ex->reason = UML_EXIT_INTERRUPTED;
		return;
	}
	ex->reason = UML_EXIT_FAULT;
	ex->fault.signo = si.si_signo;
	ex->fault.code = si.si_code;
	ex->fault.addr = (uintptr_t)si.si_addr;
	fault_info(t, si.si_signo, ex);
}

/* Registers as the runtime left them, made safe to load. */
static int load_regs(struct uml_thread *t)
{
	struct user_regs_struct r;

	memcpy(&r, &t->regs, sizeof(r));
	if (r.fs_base >= USER_END || r.gs_base >= USER_END)
		return -EINVAL;
	r.cs = USER_CS;		/* putreg() would accept a 32-bit CS */
	r.ss = USER_DS;
	r.eflags &= ~EFLAGS_UNSAFE;	/* putreg() lets NT through */
	r.orig_rax = -1;	/* the result in rax stays as set */
	if (ptrace(PTRACE_SETREGS, t->pid, 0, &r))
		return errno == ESRCH ? -ESRCH : -EINVAL;
	return 0;
}

int __uml_pt_thread_run(struct uml_thread *t, struct uml_exit *ex)
{
	struct rusage ru;
	int status, kicked = 0, ret;

	memset(ex, 0, sizeof(*ex));
	if (t->dead)
		return -ESRCH;
	if (t->running)
		return -EBUSY;
	if (t->exit_pending) {
		report_exit(t, t->exit_status, ex);
		return 0;
	}
	if (t->interrupted) {
		t->interrupted = 0;
		ex->reason = UML_EXIT_INTERRUPTED;
		return 0;
	}
	ret = load_regs(t);
	if (ret == -ESRCH)	/* killed while stopped: collect it below */
		goto wait;
	if (ret)
		return ret;
	if (ptrace(PTRACE_SYSEMU, t->pid, 0, 0) && errno != ESRCH)
		return -errno;
wait:
	ret = 0;
	t->running = 1;
	for (;;) {
		if (wait4(t->pid, &status, __WALL, &ru) < 0) {
			if (errno != EINTR) {
				ret = -errno;
				break;
			}
			/* The runtime was signalled: stop the guest. */
			if (!kicked++)
				uml_thread_kick(t);
			continue;
		}
		if (!WIFSTOPPED(status)) {
			__uml_aspace_usage_add(t->as, &ru);
			report_exit(t, status, ex);
			break;
		}
		if (status >> 16) {	/* stray ptrace event: go on */
			ptrace(PTRACE_SYSEMU, t->pid, 0, 0);
			continue;
		}
		if (ptrace(PTRACE_GETREGS, t->pid, 0, &t->regs)) {
			ret = -errno;
			break;
		}
		if (WSTOPSIG(status) == (SIGTRAP | 0x80))
			fill_syscall(t, ex);
		else
			fill_signal(t, ex);
		break;
	}
	t->running = 0;
	return ret;
}

int __uml_pt_thread_kick(struct uml_thread *t)
{
	if (!__uml_thread_pid(t))
		return -ESRCH;
	if (syscall(SYS_pidfd_send_signal, t->pidfd, SIGKICK, NULL, 0))
		return -errno;
	return 0;
}

int __uml_pt_get_fpregs(struct uml_thread *t, struct uml_fpregs *fp)
{
	if (!t->pid)
		return -ESRCH;
	return ptrace(PTRACE_GETFPREGS, t->pid, 0, fp) ? -errno : 0;
}

int __uml_pt_set_fpregs(struct uml_thread *t, const struct uml_fpregs *fp)
{
	if (!t->pid)
		return -ESRCH;
	return ptrace(PTRACE_SETFPREGS, t->pid, 0, fp) ? -errno : 0;
}

long __uml_pt_get_xstate(struct uml_thread *t, void *buf, size_t len)
{
	struct iovec iov;
	void *xs;
	long ret;

	if (!t->pid)
		return -ESRCH;
	xs = malloc(XSTATE_MAX);
	if (!xs)
		return -ENOMEM;
	iov.iov_base = xs;
	iov.iov_len = XSTATE_MAX;
	if (ptrace(PTRACE_GETREGSET, t->pid, NT_X86_XSTATE, &iov)) {
		ret = -errno;
	} else {
		ret = iov.iov_len;
		if (len && len < iov.iov_len)
			ret = -ENOSPC;
		else if (len)
			memcpy(buf, xs, iov.iov_len);
	}
	free(xs);
	return ret;
}

int __uml_pt_set_xstate(struct uml_thread *t, const void *buf, size_t len)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	if (!t->pid)
		return -ESRCH;
	if (ptrace(PTRACE_SETREGSET, t->pid, NT_X86_XSTATE, &iov))
		return errno == EFAULT || errno == EIO ? -EINVAL : -errno;
	return 0;
}

/* Kill and reap a half-made child. */
static void child_abort(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	__uml_pt_wait(pid, &status);
}

/*
 * Clone by injecting clone() into the parent's stub: the host does the
 * copy-on-write (fork) or shares the mm (thread).  CLONE_PARENT makes the
 * child the runtime's child, so we reap it; PTRACE_O_TRACEFORK attaches it
 * and stops it (SIGSTOP) before it runs a single instruction.
 */
int __uml_pt_thread_clone(struct uml_thread *parent, unsigned int flags,
			  struct uml_thread **childp,
			  struct uml_aspace **child_asp)
{
	struct uml_aspace *as = parent->as, *cas = as;
	struct user_regs_struct saved;
	struct uml_thread *c;
	long a[6] = { CLONE_PARENT | SIGCHLD };
	int status, sock;
	pid_t cpid = 0;
	long ret;

	if (!parent->pid)
		return -ESRCH;
	if (flags & UML_CLONE_THREAD)
		a[0] |= CLONE_VM | CLONE_FILES;
	ret = __uml_pt_save(parent, &saved);
	if (ret)
		return ret;
	ret = __uml_pt_inject_event(parent, &saved, SYS_clone, a, &cpid);
	if (parent->pid)
		__uml_pt_restore(parent, &saved);
	if (ret < 0)
		return ret;
	cpid = ret;
	if (__uml_pt_wait(cpid, &status) || !WIFSTOPPED(status)) {
		child_abort(cpid);
		return -ECHILD;
	}
	if (!(flags & UML_CLONE_THREAD)) {
		sock = fcntl(as->sock, F_DUPFD_CLOEXEC, 0);
		cas = sock < 0 ? NULL : __uml_pt_aspace_new(as->host, cpid, sock);
		if (!cas) {
			if (sock >= 0)
				close(sock);
			child_abort(cpid);
			return -ENOMEM;
		}
		cas->info = as->info;
	}
	c = __uml_pt_thread_new(cas, cpid);
	if (!c) {
		child_abort(cpid);
		if (cas != as)
			uml_aspace_destroy(cas);
		return -ENOMEM;
	}
	/*
	 * A CLONE_VM child has no altstack: give it the stub's.  A fork child
	 * copied the parent stub's fds: an fd that a batch on another thread
	 * of the parent passed in (at the lowest free number: 0 to 2, then 4
	 * up) would stay open in it; only the socket stays.  -ENOSYS (before
	 * 5.9) leaves just that leak.
	 */
	if (flags & UML_CLONE_THREAD)
		ret = __uml_pt_setup_altstack(c);
	else if (__uml_pt_inject(c, SYS_close_range, 0, STUB_SOCK_FD - 1,
				 0, 0, 0, 0) == -ESRCH ||
		 __uml_pt_inject(c, SYS_close_range, STUB_SOCK_FD + 1, ~0U,
				 0, 0, 0, 0) == -ESRCH)
		ret = -ESRCH;
	else
		ret = 0;
	if (ret) {
		if (cas != as)
			uml_aspace_destroy(cas);
		else
			__uml_pt_thread_free(c);
		return ret;
	}
	c->interrupted = 0;
	c->regs = parent->regs;
	*childp = c;
	if (child_asp)
		*child_asp = cas == as ? NULL : cas;
	return 0;
}

/* ---- changing drivers ------------------------------------------------- */

/*
 * The tracer detaches, leaving the stub stopped.  The SIGSTOP is queued
 * while the stub is held in its ptrace stop, so it takes effect on the way
 * back to user mode, before any guest instruction, whatever stop that was
 * (PTRACE_DETACH's own signal is ignored in an event stop).  Untraced, the
 * stub is covered by its process group (stub_child() in ptrace.c): if the runtime
 * dies, the group is orphaned with a stopped member, and the kernel's
 * SIGHUP ends it.  The first stub's PR_SET_PDEATHSIG goes: it fires when
 * the thread that forked the stub exits, no longer the one that drives it.
 */
int __uml_pt_thread_release(struct uml_thread *t)
{
	int status;

	if (t->pid)
		__uml_pt_inject(t, SYS_prctl, PR_SET_PDEATHSIG, 0, 0, 0, 0, 0);
	if (!t->pid)	/* dead: its driver-to-be reports it */
		return 0;
	if (syscall(SYS_pidfd_send_signal, t->pidfd, SIGSTOP, NULL, 0) ||
	    ptrace(PTRACE_DETACH, t->pid, 0, 0)) {
		if (errno != ESRCH)
			return -errno;
		/* Killed while we trace it: collect the death now. */
		__uml_pt_inject_failed(t);
		return 0;
	}
	/* Only a group stop that happened counts for the orphaned group. */
	if (!__uml_pt_wait_flags(t, &status, WUNTRACED) && !WIFSTOPPED(status))
		__uml_pt_inject_died(t, status);
	return 0;
}

/* Wait for @t's next stop: 0 if by @sig, else -1 (dead: exit_pending). */
static int adopt_wait(struct uml_thread *t, int sig)
{
	int status;

	while (!__uml_pt_wait_thread(t, &status)) {
		if (!WIFSTOPPED(status)) {
			__uml_pt_inject_died(t, status);
			return -1;
		}
		if (WSTOPSIG(status) == sig)
			return 0;
		if (ptrace(PTRACE_CONT, t->pid, 0, 0))
			return -1;
	}
	return -1;
}

/*
 * Attach as the new tracer and take the stub's first stop: the SIGSTOP's
 * signal-delivery stop, or its group stop trapped again (a SIGSTOP event
 * stop).  Then end the group stop with a SIGCONT, which the stub takes
 * before any user instruction: a stop still in effect would keep the
 * next release's from being reported (and SIGCONT drops a SIGSTOP still
 * queued).  A kick that came since the release was dropped (or, sent just
 * before it, is discarded now): the first run reports an interruption, so
 * that none is lost.
 */
int __uml_pt_thread_adopt(struct uml_thread *t)
{
	if (!t->pid)
		return 0;	/* dead: the next run reports it */
	if (ptrace(PTRACE_SEIZE, t->pid, 0, STUB_OPTIONS)) {
		int err = errno;
		siginfo_t si = { 0 };

		/*
		 * A stub killed while released is a zombie (EPERM): the next
		 * run's wait collects it.  Alive, it is traced by another (a
		 * debugger attached meanwhile).
		 */
		if (waitid(P_PIDFD, t->pidfd, &si, WEXITED | WNOHANG |
			   WNOWAIT | __WALL) || !si.si_pid)
			return -err;
	} else if (!adopt_wait(t, SIGSTOP) &&
		   !syscall(SYS_pidfd_send_signal, t->pidfd, SIGCONT, NULL,
			    0) &&
		   !ptrace(PTRACE_CONT, t->pid, 0, 0)) {
		adopt_wait(t, SIGCONT);
	}
	t->interrupted = 1;
	return 0;
}
