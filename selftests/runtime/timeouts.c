// SPDX-License-Identifier: GPL-2.0-only
/*
 * Timeouts of 2^63 - 1 seconds, as the runtime fuzzer passes them: each
 * sleeping call must sleep until a signal breaks it (EINTR), as on Linux,
 * not return at once because seconds * 10^9 wrapped the runtime's
 * deadline; an itimer or a POSIX timer that far ahead must not fire, nor
 * one whose interval is that long fire again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t hits;

static void on_alrm(int sig)
{
	(void)sig;
	hits++;
}

/* SIGALRM in 100 ms. */
static void arm(void)
{
	struct itimerval it = { .it_value = { 0, 100000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static int check(const char *what, long r)
{
	if (r == -1 && errno == EINTR)
		return 0;
	printf("%s: %ld (%s), wanted EINTR\n", what, r,
	       r < 0 ? strerror(errno) : "no error");
	return 1;
}

int main(void)
{
	struct timespec ts = { LONG_MAX, 0 };
	struct timeval tv = { LONG_MAX, 0 };
	struct sigaction sa;
	struct itimerval it = { .it_value = { LONG_MAX, 0 } };
	struct epoll_event ev;
	struct sigevent sev;
	timer_t tid;
	sigset_t set;
	int bad = 0, word = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alrm;
	sigaction(SIGALRM, &sa, NULL);

	arm();
	bad |= check("nanosleep", nanosleep(&ts, NULL));
	arm();
	errno = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	bad |= check("clock_nanosleep", errno ? -1 : 0);
	arm();
	bad |= check("ppoll", ppoll(NULL, 0, &ts, NULL));
	arm();
	bad |= check("pselect6", pselect(0, NULL, NULL, NULL, &ts, NULL));
	arm();
	bad |= check("select", select(0, NULL, NULL, NULL, &tv));
	arm();
	bad |= check("futex", syscall(SYS_futex, &word, FUTEX_WAIT, 0, &ts,
				      NULL, 0));

	arm();
	bad |= check("epoll_pwait2", syscall(441 /* epoll_pwait2 */,
					     epoll_create1(0), &ev, 1, &ts,
					     NULL, 8));
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	arm();
	bad |= check("rt_sigtimedwait", sigtimedwait(&set, NULL, &ts));

	/* A POSIX timer that far ahead, and one with such an interval. */
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGALRM;
	hits = 0;
	if (timer_create(CLOCK_MONOTONIC, &sev, &tid) == 0) {
		struct itimerspec its = { .it_value = { LONG_MAX, 0 } };
		struct timespec nap = { 0, 200000000 };

		timer_settime(tid, 0, &its, NULL);
		nanosleep(&nap, NULL);
		its.it_value.tv_sec = 0;
		its.it_value.tv_nsec = 1000000;
		its.it_interval.tv_sec = LONG_MAX;
		timer_settime(tid, 0, &its, NULL);
		nanosleep(&nap, NULL);
		nap.tv_nsec = 200000000;
		nanosleep(&nap, NULL);
		timer_delete(tid);
		if (hits != 1) {
			printf("POSIX timers 2^63 - 1 s ahead fired %d times, wanted 1\n",
			       (int)hits);
			bad = 1;
		}
	} else {
		printf("timer_create: %s\n", strerror(errno));
		bad = 1;
	}

	hits = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	ts.tv_sec = 0;
	ts.tv_nsec = 200000000;
	nanosleep(&ts, NULL);
	if (hits) {
		printf("an itimer 2^63 - 1 s ahead fired\n");
		bad = 1;
	}
	if (!bad)
		puts("timeouts ok");
	return bad;
}
