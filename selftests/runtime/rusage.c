// SPDX-License-Identifier: GPL-2.0-only
/*
 * getrusage, times and wait4's rusage report real CPU time, faults and
 * peak RSS: a process that burns 100 ms of CPU sees it in RUSAGE_SELF and
 * times(), its parent in wait4's rusage, RUSAGE_CHILDREN and tms_cutime
 * once it is reaped; two threads that burn 100 ms each and end add their
 * time to RUSAGE_SELF, each once, and none to the main thread's
 * RUSAGE_THREAD; a vfork child's 100 ms are its own, not its parent's;
 * bad input is refused.  Prints "rusage ok", or exits
 * with the number of the check that failed.  Runs natively too: the
 * expectations are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
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

#define LOOP	2000000		/* iterations between two looks */

static void loop(void)
{
	unsigned long i;

	for (i = 0; i < LOOP; i++)
		x += i;
}

/*
 * Burn CPU until getrusage(RUSAGE_SELF) says 100 ms of user time (more
 * than the process had at the start, @base µs): the loops it took, or -1
 * after 20 s.
 */
static long burn_from(long base)
{
	struct timespec t0, t1;
	struct rusage ru;
	long n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		loop();
		n++;
		if (getrusage(RUSAGE_SELF, &ru))
			return -1;
		if (usec(&ru.ru_utime) - base >= 100000)
			return n;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec > 20)
			return -1;
	}
}

static int burn(void)
{
	return burn_from(0) < 0 ? -1 : 0;
}

/* The loops the main thread took for its first 100 ms. */
static long loops_100ms;

/* A thread does those loops: its own user time then (µs), or -1. */
static void *burn_thread(void *arg)
{
	struct rusage ru;
	long n;

	(void)arg;
	for (n = 0; n < loops_100ms; n++)
		loop();
	if (getrusage(RUSAGE_THREAD, &ru))
		return (void *)-1L;
	return (void *)usec(&ru.ru_utime);
}

/*
 * Two threads do the work of 100 ms each and end, one after the other:
 * each one's RUSAGE_THREAD says about that (not its process's), the
 * process's user time grows by what they used, each counted once (give
 * or take a clock tick each), and the main thread, waiting meanwhile,
 * burns none of it.  0, or the number of the check.
 */
static int threads(void)
{
	struct rusage self0, self1, th0, th1;
	pthread_t a, b;
	void *ra, *rb;
	long d, sum;

	if (getrusage(RUSAGE_SELF, &self0) || getrusage(RUSAGE_THREAD, &th0))
		return 12;
	/* One after the other: two on one core's siblings would each be slow. */
	if (pthread_create(&a, NULL, burn_thread, NULL) || pthread_join(a, &ra) ||
	    pthread_create(&b, NULL, burn_thread, NULL) || pthread_join(b, &rb))
		return 13;
	if ((long)ra < 0 || (long)rb < 0)
		return 14;
	if (getrusage(RUSAGE_SELF, &self1) || getrusage(RUSAGE_THREAD, &th1))
		return 15;
	if ((long)ra < 40000 || (long)ra >= 180000 || (long)rb < 40000 ||
	    (long)rb >= 180000) {
		printf("threads: RUSAGE_THREAD %ld and %ld us for 100 ms each\n",
		       (long)ra, (long)rb);
		return 16;
	}
	d = usec(&self1.ru_utime) - usec(&self0.ru_utime);
	sum = (long)ra + (long)rb;
	if (d < sum - 30000 || d >= sum + 60000) {
		printf("threads: RUSAGE_SELF grew by %ld us, the threads used %ld\n",
		       d, sum);
		return 17;
	}
	d = usec(&th1.ru_utime) - usec(&th0.ru_utime);
	if (d >= 50000) {
		printf("threads: the main thread's RUSAGE_THREAD grew by %ld us\n", d);
		return 18;
	}
	return 0;
}

/*
 * A vfork child (in its parent's memory, one host thread group with it
 * under skas) burns 100 ms: its wait4 rusage holds that, not its
 * parent's 300 ms before, and the parent's own time does not grow by it.
 */
static int vfork_child(void)
{
	struct rusage self0, self1, ru;
	pid_t pid;
	int st;
	long d;

	if (getrusage(RUSAGE_SELF, &self0))
		return 19;
	pid = vfork();
	if (pid == 0)
		_exit(burn() ? 1 : 0);
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		return 20;
	if (usec(&ru.ru_utime) < 100000 || usec(&ru.ru_utime) >= 250000) {
		printf("vfork: the child's user time %ld us\n", usec(&ru.ru_utime));
		return 21;
	}
	if (getrusage(RUSAGE_SELF, &self1))
		return 22;
	d = usec(&self1.ru_utime) - usec(&self0.ru_utime);
	if (d >= 100000) {
		printf("vfork: the parent's user time grew by %ld us\n", d);
		return 23;
	}
	return 0;
}

int main(void)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct rusage ru;
	struct tms tm;
	int st;
	pid_t pid;

	loops_100ms = burn_from(0);
	if (loops_100ms < 0)
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
	st = threads();
	if (!st)
		st = vfork_child();
	if (st)
		return st;
	errno = 0;
	if (syscall(SYS_getrusage, 99, &ru) != -1 || errno != EINVAL ||
	    syscall(SYS_getrusage, RUSAGE_SELF, 8) != -1 || errno != EFAULT)
		return 11;
	puts("rusage ok");
	return 0;
}
