// SPDX-License-Identifier: GPL-2.0
/*
 * Signals in a UML guest: a handler and its siginfo, sigreturn keeping the
 * interrupted code's state, blocked and pending signals, a recovered
 * SIGSEGV, nested handlers, the alternate stack, sigqueue's value, a
 * timer's SIGALRM, and signals between processes (kill, SIGKILL, SIGCHLD).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report.h"

static volatile sig_atomic_t got, got_code, got_pid_ok, nested_order;
static sigjmp_buf jb;
static volatile void *segv_addr;
static char altstack[65536];
static volatile int on_alt;
static volatile int rt_value;
/* An address nothing maps, hidden from the compiler's bounds checks. */
static int *volatile bad_ptr = (int *)16;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got = sig;
	got_code = si->si_code;
	got_pid_ok = si->si_pid == getpid();
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	segv_addr = si->si_addr;
	siglongjmp(jb, 1);
}

static void on_usr2_inner(int sig)
{
	(void)sig;
	nested_order = nested_order * 10 + 2;
}

static void on_usr1_outer(int sig)
{
	(void)sig;
	nested_order = nested_order * 10 + 1;
	raise(SIGUSR2);
	nested_order = nested_order * 10 + 3;
}

static void on_alt_handler(int sig)
{
	char here;

	(void)sig;
	on_alt = &here >= altstack && &here < altstack + sizeof(altstack);
}

static void on_rt(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	rt_value = si->si_value.sival_int;
}

static volatile sig_atomic_t alarms;
static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void on_term_exit7(int sig)
{
	(void)sig;
	_exit(7);
}

static volatile sig_atomic_t chld;
static void on_chld(int sig)
{
	(void)sig;
	chld++;
}

static void handler(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void action(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* Work whose result the signal must not change: state kept in registers. */
/* A child that waits for signals until one ends it. */
static pid_t idle_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static int reap(pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static uint64_t mix(uint64_t x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

int main(void)
{
	sigset_t set, old, pend;
	int status;
	pid_t pid;

	/* A handler, its siginfo and sigreturn to the interrupted code. */
	action(SIGUSR1, on_usr1);
	uint64_t before = mix(1, 1000);
	kill(getpid(), SIGUSR1);
	uint64_t after = mix(1, 1000);
	result("handler runs with siginfo", got == SIGUSR1 && got_code == SI_USER && got_pid_ok,
	       "sig %d code %d pid_ok %d", got, got_code, got_pid_ok);
	result("sigreturn resumes the code", before == after, "values differ");

	/* Blocked, pending, delivered at unblock. */
	got = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	raise(SIGUSR1);
	sigpending(&pend);
	int pending = sigismember(&pend, SIGUSR1) && got == 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	result("blocked signal pends, then arrives", pending && got == SIGUSR1,
	       "pending %d got %d", pending, got);

	/* A recovered SIGSEGV at a known address. */
	action(SIGSEGV, on_segv);
	if (!sigsetjmp(jb, 1)) {
		*(volatile int *)bad_ptr = 1;
		result("SIGSEGV is delivered", 0, "no fault");
	} else {
		result("SIGSEGV is delivered", segv_addr == (void *)16, "wrong si_addr");
	}

	/* Nested: USR2 raised inside USR1's handler runs inside it. */
	handler(SIGUSR1, on_usr1_outer, 0);
	handler(SIGUSR2, on_usr2_inner, 0);
	nested_order = 0;
	raise(SIGUSR1);
	result("nested handlers", nested_order == 123, "order %d", nested_order);

	/* The alternate stack. */
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };

	sigaltstack(&ss, NULL);
	handler(SIGUSR2, on_alt_handler, SA_ONSTACK);
	raise(SIGUSR2);
	result("handler on the alternate stack", on_alt, "not on it");

	/* sigqueue's value, a real-time signal. */
	union sigval v = { .sival_int = 4242 };

	action(SIGRTMIN + 1, on_rt);
	sigqueue(getpid(), SIGRTMIN + 1, v);
	result("sigqueue value", rt_value == 4242, "value %d", rt_value);

	/* A timer: three SIGALRMs, waited for with sigsuspend. */
	handler(SIGALRM, on_alarm, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, &old);
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };

	setitimer(ITIMER_REAL, &it, NULL);
	while (alarms < 3)
		sigsuspend(&old);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	result("interval timer's SIGALRM", alarms >= 3, "alarms %d", alarms);

	/* Another process: a handler that exits, SIGKILL, SIGCHLD. */
	handler(SIGCHLD, on_chld, 0);
	handler(SIGTERM, on_term_exit7, 0);
	pid = idle_child();
	kill(pid, SIGTERM);
	status = reap(pid);
	result("kill runs the child's handler", WIFEXITED(status) && WEXITSTATUS(status) == 7,
	       "status 0x%x", status);
	handler(SIGTERM, SIG_DFL, 0);
	pid = idle_child();
	kill(pid, SIGKILL);
	status = reap(pid);
	result("SIGKILL ends the child", WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	       "status 0x%x", status);
	result("SIGCHLD for each child", chld >= 2, "%d", chld);

	/* A child stopped and continued. */
	pid = idle_child();
	kill(pid, SIGSTOP);
	waitpid(pid, &status, WUNTRACED);
	int stopped = WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP;

	kill(pid, SIGCONT);
	waitpid(pid, &status, WCONTINUED);
	int cont = WIFCONTINUED(status);

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	result("SIGSTOP and SIGCONT", stopped && cont, "stopped %d continued %d", stopped, cont);
	return report_done();
}
