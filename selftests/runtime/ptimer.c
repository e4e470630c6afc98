// SPDX-License-Identifier: GPL-2.0-only
/*
 * POSIX timers against the kernel's rules: a one-shot timer's signal
 * (SI_TIMER, its id and value), overruns of a periodic one whose signal
 * waits, timer_gettime counting down and disarming, SIGEV_NONE,
 * SIGEV_THREAD_ID, the default sigevent, ABSTIME in the past, a fork
 * child without its parent's timers, and bad clocks, sigevents, ids and
 * times.  Prints "ptimer ok", or exits with the number of the check that
 * failed.  Runs natively too: the expectations are the kernel's.
 *
 * "ptimer capped": a 1 ns periodic timer armed 3 s in the past reports
 * INT_MAX overruns with its first signal (LTP's timer_settime03).
 * "ptimer spin": a 1 ns POSIX timer and a 1 us ITIMER_REAL, both with
 * handlers, then a spin until killed: a guest that does so must not keep
 * the runtime from running the others (busybox.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fails(long r, int err)
{
	return r != -1 || errno != err;
}

static int wait_sig(sigset_t *set, siginfo_t *si)
{
	struct timespec ts = { 2, 0 };

	return sigtimedwait(set, si, &ts);
}

static int checks(void);
static volatile sig_atomic_t fired;
static volatile int first_overrun = -1;
static timer_t capped_id;

static void on_timer(int sig)
{
	(void)sig;
	fired = 1;
}

/* The first signal's overruns, then the timer disarmed. */
static void on_capped(int sig)
{
	static const struct itimerspec off;

	(void)sig;
	if (first_overrun < 0)
		first_overrun = timer_getoverrun(capped_id);
	timer_settime(capped_id, 0, &off, NULL);
	fired = 1;
}

static int capped(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL,
			       .sigev_signo = SIGUSR1 };
	struct itimerspec it = { .it_interval = { 0, 1 } };

	signal(SIGUSR1, on_capped);
	if (timer_create(CLOCK_REALTIME, &ev, &capped_id))
		return 2;
	clock_gettime(CLOCK_REALTIME, &it.it_value);
	it.it_value.tv_sec -= 3;	/* 3e9 periods: past INT_MAX */
	if (timer_settime(capped_id, TIMER_ABSTIME, &it, NULL))
		return 3;
	while (!fired)
		;
	printf("overruns %s\n", first_overrun == INT_MAX ? "capped" :
	       "not capped");
	return 0;
}

static int spin(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL,
			       .sigev_signo = SIGUSR1 };
	struct itimerspec it = { { 0, 1 }, { 0, 1 } };
	struct itimerval iv = { { 0, 1 }, { 0, 1 } };
	timer_t id;

	signal(SIGUSR1, on_timer);
	signal(SIGALRM, on_timer);
	if (timer_create(CLOCK_MONOTONIC, &ev, &id) ||
	    timer_settime(id, 0, &it, NULL) || setitimer(ITIMER_REAL, &iv, NULL))
		return 2;
	for (;;)
		;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "capped"))
		return capped();
	if (argc == 2 && !strcmp(argv[1], "spin"))
		return spin();
	return checks();
}

static int checks(void)
{
	struct itimerspec it = { { 0, 0 }, { 0, 20000000 } }, cur;
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1,
			       .sigev_value.sival_int = 99 };
	struct timespec now;
	timer_t id, id2;
	sigset_t set;
	siginfo_t si;
	pid_t pid;
	int st, ov, kid;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* One-shot. */
	if (timer_create(CLOCK_MONOTONIC, &ev, &id) || timer_settime(id, 0, &it, NULL))
		return 2;
	if (timer_gettime(id, &cur) || cur.it_value.tv_nsec > 20000000 ||
	    (!cur.it_value.tv_sec && !cur.it_value.tv_nsec))
		return 3;
	if (wait_sig(&set, &si) != SIGUSR1 || si.si_code != SI_TIMER ||
	    si.si_value.sival_int != 99 || si.si_overrun != 0)
		return 4;
	if (timer_gettime(id, &cur) || cur.it_value.tv_sec || cur.it_value.tv_nsec)
		return 5;
	/* Periodic, its signal left waiting: the expiries count as overruns. */
	it = (struct itimerspec){ { 0, 5000000 }, { 0, 5000000 } };
	if (timer_settime(id, 0, &it, NULL))
		return 6;
	usleep(60000);
	if (wait_sig(&set, &si) != SIGUSR1 || si.si_overrun < 5)
		return 7;
	ov = timer_getoverrun(id);
	if (ov != si.si_overrun)
		return 8;
	it = (struct itimerspec){ { 0, 0 }, { 0, 0 } };
	if (timer_settime(id, 0, &it, &cur) || (!cur.it_interval.tv_nsec))
		return 9;
	/*
	 * An expiry between the wait and the disarm queued one more (5 ms
	 * are a few syscalls under umlrun in QEMU TCG): not check 13's.
	 */
	while (sigtimedwait(&set, &si, &(struct timespec){ 0, 0 }) > 0)
		;
	/* A fork child has none of its parent's timers. */
	pid = fork();
	if (pid == 0)
		_exit(fails(timer_gettime(id, &cur), EINVAL));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 10;
	if (timer_delete(id) || fails(timer_delete(id), EINVAL))
		return 11;
	/* SIGEV_NONE counts down and sends nothing. */
	ev.sigev_notify = SIGEV_NONE;
	it = (struct itimerspec){ { 0, 0 }, { 0, 10000000 } };
	if (timer_create(CLOCK_MONOTONIC, &ev, &id) || timer_settime(id, 0, &it, NULL))
		return 12;
	usleep(20000);
	if (timer_gettime(id, &cur) || cur.it_value.tv_nsec ||
	    sigpending(&set) || sigismember(&set, SIGUSR1))
		return 13;
	timer_delete(id);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGALRM);
	/* SIGEV_THREAD_ID, and ABSTIME in the past: at once. */
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev._sigev_un._tid = gettid();
	clock_gettime(CLOCK_REALTIME, &now);
	it = (struct itimerspec){ { 0, 0 }, { now.tv_sec - 1, 0 } };
	if (timer_create(CLOCK_REALTIME, &ev, &id) ||
	    timer_settime(id, TIMER_ABSTIME, &it, NULL) ||
	    wait_sig(&set, &si) != SIGUSR1 || si.si_code != SI_TIMER)
		return 14;
	timer_delete(id);
	/* No sigevent: SIGALRM, with the timer's id as its value. */
	it = (struct itimerspec){ { 0, 0 }, { 0, 1000000 } };
	if (syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, &kid) ||
	    syscall(SYS_timer_settime, kid, 0, &it, NULL) ||
	    wait_sig(&set, &si) != SIGALRM || si.si_value.sival_int != kid ||
	    si.si_timerid != kid)
		return 15;
	id2 = (timer_t)(long)kid;	/* glibc's timer_t, for these timers */
	/* Bad input. */
	ev.sigev_notify = SIGEV_SIGNAL;
	if (fails(timer_create(99, &ev, &id), EINVAL) ||
	    fails(syscall(SYS_timer_create, CLOCK_MONOTONIC, 8, &id), EFAULT))
		return 16;
	ev.sigev_notify = 99;
	if (fails(timer_create(CLOCK_MONOTONIC, &ev, &id), EINVAL))
		return 17;
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = 0;
	if (fails(timer_create(CLOCK_MONOTONIC, &ev, &id), EINVAL))
		return 18;
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGUSR1;
	ev._sigev_un._tid = 0x3fffffff;
	if (fails(timer_create(CLOCK_MONOTONIC, &ev, &id), EINVAL))
		return 19;
	it.it_value.tv_nsec = 1000000000L;
	if (fails(timer_settime(id2, 0, &it, NULL), EINVAL) ||
	    fails(syscall(SYS_timer_settime, 12345, 0, &it, NULL), EINVAL) ||
	    fails(syscall(SYS_timer_getoverrun, 12345), EINVAL) ||
	    fails(syscall(SYS_timer_gettime, id2, 8), EFAULT))
		return 20;
	timer_delete(id2);
	puts("ptimer ok");
	return 0;
}
