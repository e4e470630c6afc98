// SPDX-License-Identifier: GPL-2.0-only
/*
 * getrusage, times and wait4's rusage report real CPU time, faults and
 * peak RSS: a process that burns 100 ms of CPU sees it in RUSAGE_SELF and
 * times(), its parent in wait4's rusage, RUSAGE_CHILDREN and tms_cutime
 * once it is reaped; bad input is refused.  Prints "rusage ok", or exits
 * with the number of the check that failed.  Runs natively too: the
 * expectations are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long usec(const struct timeval *tv)
{
	return tv->tv_sec * 1000000L + tv->tv_usec;
}

static volatile unsigned long x;

/* Burn CPU until getrusage says 100 ms of user time; 0, or -1 after 20 s. */
static int burn(void)
{
	struct timespec t0, t1;
	struct rusage ru;
	unsigned long i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		for (i = 0; i < 20000000; i++)
			x += i;
		if (getrusage(RUSAGE_SELF, &ru))
			return -1;
		if (usec(&ru.ru_utime) >= 100000)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec > 20)
			return -1;
	}
}

int main(void)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct rusage ru;
	struct tms tm;
	int st;
	pid_t pid;

	if (burn())
		return 2;
	if (getrusage(RUSAGE_SELF, &ru) || ru.ru_maxrss <= 0 || ru.ru_minflt <= 0)
		return 3;
	if (times(&tm) == (clock_t)-1 || tm.tms_utime < hz / 20)
		return 4;
	if (getrusage(RUSAGE_THREAD, &ru) || usec(&ru.ru_utime) < 50000)
		return 5;
	if (getrusage(RUSAGE_CHILDREN, &ru) || usec(&ru.ru_utime) != 0)
		return 6;
	pid = fork();
	if (pid == 0)
		_exit(burn() ? 1 : 0);
	if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 7;
	if (usec(&ru.ru_utime) < 100000)
		return 8;
	if (getrusage(RUSAGE_CHILDREN, &ru) || usec(&ru.ru_utime) < 100000)
		return 9;
	if (times(&tm) == (clock_t)-1 || tm.tms_cutime < hz / 10)
		return 10;
	errno = 0;
	if (syscall(SYS_getrusage, 99, &ru) != -1 || errno != EINVAL ||
	    syscall(SYS_getrusage, RUSAGE_SELF, 8) != -1 || errno != EFAULT)
		return 11;
	puts("rusage ok");
	return 0;
}
