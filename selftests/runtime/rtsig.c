// SPDX-License-Identifier: GPL-2.0-only
/*
 * Real-time signals queue, each with its own siginfo, and standard ones
 * merge, as in the kernel: sigqueue's values come back in order from
 * sigtimedwait (SI_QUEUE, the sender's pid), a wait ends when another
 * process queues one, rt_tgsigqueueinfo reaches a thread's handler with
 * its value, nobody fakes a kernel code for another process, and bad
 * sizes, timeouts, signals and ids are refused.  Prints "rtsig ok", or
 * exits with the number of the check that failed.  Runs natively too:
 * the expectations are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int got_value;

static void on_rt(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	got_value = si->si_value.sival_int;
}

static int fails(long r, int err)
{
	return r != -1 || errno != err;
}

int main(void)
{
	struct timespec ts = { 0, 10000000 }, bad = { 0, -1 };
	struct sigaction sa = { .sa_sigaction = on_rt, .sa_flags = SA_SIGINFO };
	int rt = SIGRTMIN, i, st;
	siginfo_t si;
	sigset_t set;
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, rt);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* Three instances queue, each with its value, in order. */
	for (i = 1; i <= 3; i++)
		if (sigqueue(getpid(), rt, (union sigval){ .sival_int = i }))
			return 2;
	for (i = 1; i <= 3; i++) {
		if (sigtimedwait(&set, &si, &ts) != rt || si.si_code != SI_QUEUE ||
		    si.si_value.sival_int != i || si.si_pid != getpid() ||
		    si.si_uid != getuid())
			return 3;
	}
	if (fails(sigtimedwait(&set, &si, &ts), EAGAIN))
		return 4;
	/* A standard signal merges. */
	for (i = 0; i < 3; i++)
		kill(getpid(), SIGUSR1);
	if (sigtimedwait(&set, &si, &ts) != SIGUSR1 || si.si_code != SI_USER ||
	    fails(sigtimedwait(&set, &si, &ts), EAGAIN))
		return 5;
	/* A wait that another process's sigqueue ends. */
	pid = fork();
	if (pid == 0) {
		usleep(50000);
		_exit(sigqueue(getppid(), rt, (union sigval){ .sival_int = 77 }) != 0);
	}
	if (sigwaitinfo(&set, &si) != rt || si.si_value.sival_int != 77 ||
	    si.si_pid != pid || waitpid(pid, &st, 0) != pid || st)
		return 6;
	/* To a thread's handler, with its value. */
	sigaction(rt, &sa, NULL);
	memset(&si, 0, sizeof(si));
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = 55;
	if (syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), rt, &si))
		return 7;
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	if (got_value != 55)
		return 8;
	/* Only a user code for another process; any for oneself. */
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	si.si_code = SI_USER;
	if (fails(syscall(SYS_rt_sigqueueinfo, pid, SIGUSR2, &si), EPERM))
		return 9;
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	/* Bad input. */
	if (fails(syscall(SYS_rt_sigtimedwait, &set, NULL, &ts, 7), EINVAL) ||
	    fails(sigtimedwait(&set, NULL, &bad), EINVAL) ||
	    fails(syscall(SYS_rt_sigtimedwait, 8, NULL, &ts, 8), EFAULT) ||
	    fails(sigqueue(getpid(), 65, (union sigval){ 0 }), EINVAL) ||
	    fails(sigqueue(0x3fffffff, rt, (union sigval){ 0 }), ESRCH) ||
	    fails(syscall(SYS_rt_tgsigqueueinfo, 0, gettid(), rt, &si), EINVAL) ||
	    fails(syscall(SYS_rt_sigqueueinfo, getpid(), rt, 8), EFAULT))
		return 10;
	puts("rtsig ok");
	return 0;
}
