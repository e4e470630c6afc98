// SPDX-License-Identifier: GPL-2.0-only
/*
 * getrusage, times and wait4's rusage report real CPU time, faults and
 * peak RSS: a process that burns 100 ms of CPU sees it in RUSAGE_SELF and
 * times(), its parent in wait4's rusage, RUSAGE_CHILDREN and tms_cutime
 * once it is reaped; two threads that burn 100 ms each and end add their
 * time to RUSAGE_SELF, each once, and none to the main thread's
 * RUSAGE_THREAD; a vfork child's 100 ms are its own, not its parent's;
 * wait4 says of a child what it said of itself (one with threads, one
 * that lent its memory to a vfork child), and of a vfork child that
 * burned before it exec'd; bad input is refused.  Prints
 * "rusage ok", or exits with the number of the check that failed.  Runs
 * natively too: the expectations are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
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
 * Burn CPU until getrusage(@who) says @us of user time: 0, or -1 after
 * 20 s.
 */
static int burn_until(int who, long us)
{
	struct timespec t0, t1;
	struct rusage ru;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		loop();
		if (getrusage(who, &ru))
			return -1;
		if (usec(&ru.ru_utime) >= us)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec > 20)
			return -1;
	}
}

static int burn(void)
{
	return burn_until(RUSAGE_SELF, 100000);
}

/*
 * A child's burn, which its parent then judges at 100 ms: 120 ms by its
 * own view, as under umlrun that view (its thread's /proc figures) and
 * the parent's (the host's wait4) are two roundings of one time.
 */
static int burn_child(void)
{
	return burn_until(RUSAGE_SELF, 120000);
}

/* A thread burns 100 ms by its own RUSAGE_THREAD: that figure then, or -1. */
static void *burn_thread(void *arg)
{
	struct rusage ru;

	(void)arg;
	if (burn_until(RUSAGE_THREAD, 100000) || getrusage(RUSAGE_THREAD, &ru))
		return (void *)-1L;
	return (void *)usec(&ru.ru_utime);
}

/*
 * Two threads burn, one after the other (two on one core's siblings would
 * each be slow): 0, or -1; what each said in @r.
 */
static int two_threads(long r[2])
{
	pthread_t th;
	void *v;
	int i;

	for (i = 0; i < 2; i++) {
		if (pthread_create(&th, NULL, burn_thread, NULL) ||
		    pthread_join(th, &v))
			return -1;
		r[i] = (long)v;
	}
	return 0;
}

/*
 * The process has 300 ms; two threads burn 100 ms each by their own
 * RUSAGE_THREAD and end, one after the other: that figure is theirs (a
 * process's would be 300 ms and more from the start), the process's user
 * time grows by what they used, each counted once (give or take a clock
 * tick each), and the main thread, waiting meanwhile, burns none of it.
 * 0, or the number of the check.
 */
static int threads(void)
{
	struct rusage self0, self1, th0, th1;
	long r[2], d, sum;

	if (burn_until(RUSAGE_SELF, 300000) || getrusage(RUSAGE_SELF, &self0) ||
	    getrusage(RUSAGE_THREAD, &th0))
		return 12;
	if (two_threads(r))
		return 13;
	if (r[0] < 0 || r[1] < 0)
		return 14;
	if (getrusage(RUSAGE_SELF, &self1) || getrusage(RUSAGE_THREAD, &th1))
		return 15;
	if (r[0] < 100000 || r[0] >= 250000 || r[1] < 100000 || r[1] >= 250000) {
		printf("threads: RUSAGE_THREAD %ld and %ld us for 100 ms each\n",
		       r[0], r[1]);
		return 16;
	}
	d = usec(&self1.ru_utime) - usec(&self0.ru_utime);
	sum = r[0] + r[1];
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
 * A vfork child that burns 120 ms in our memory, then execs @self with
 * "exit" (NULL: exits): its pid, or -1.
 */
static pid_t vfork_burn(const char *self)
{
	pid_t pid = vfork();

	if (pid == 0) {
		if (burn_child())
			_exit(1);
		if (self)
			execl(self, self, "exit", (char *)NULL);
		_exit(self ? 127 : 0);
	}
	return pid;
}

/*
 * A vfork child (in its parent's memory, one host thread group with it
 * under skas) burns 100 ms: its wait4 rusage holds that, not its
 * parent's 500 ms before, and the parent's own time does not grow by it.
 */
static int vfork_child(void)
{
	struct rusage self0, self1, ru;
	pid_t pid;
	int st;
	long d;

	if (getrusage(RUSAGE_SELF, &self0))
		return 19;
	pid = vfork_burn(NULL);
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

/* A vfork child of ours burns 100 ms in our memory: 0, or -1. */
static int lend(void)
{
	pid_t c = vfork_burn(NULL);
	int st;

	return c < 0 || waitpid(c, &st, 0) != c || st ? -1 : 0;
}

/*
 * What a parent's wait4 says of a child, against what the child said of
 * itself at its end (sent through a pipe): each thread once, nothing of
 * another process.  A child that runs the two threads above; a child
 * that lends its memory to a vfork child of its own (whose 100 ms then
 * count as its children's, not its own).
 */
static int exit_usage(void)
{
	struct rusage ru;
	long self, got, r[2];
	int p[2], st;
	pid_t pid;

	for (int which = 0; which < 2; which++) {
		if (pipe(p))
			return 24;
		pid = fork();
		if (pid == 0) {
			if (which == 0 && two_threads(r))
				_exit(1);
			if (which == 1 && lend())
				_exit(1);
			getrusage(RUSAGE_SELF, &ru);
			self = usec(&ru.ru_utime);
			if (which == 1) {
				getrusage(RUSAGE_CHILDREN, &ru);
				self += usec(&ru.ru_utime);
			}
			_exit(write(p[1], &self, sizeof(self)) != sizeof(self));
		}
		close(p[1]);
		if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || st ||
		    read(p[0], &self, sizeof(self)) != sizeof(self))
			return 25;
		close(p[0]);
		got = usec(&ru.ru_utime);
		if (self < 30000 || got < self - 30000 || got >= self + 50000) {
			printf("%s: wait4 says %ld us, the child said %ld\n",
			       which ? "a lender" : "threads", got, self);
			return 26;
		}
	}
	return 0;
}

/* A vfork child burns 100 ms, then execs: its wait4 rusage has them. */
static int vfork_exec(const char *self)
{
	struct rusage ru;
	pid_t pid;
	int st;

	pid = vfork_burn(self);
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		return 27;
	if (usec(&ru.ru_utime) < 90000) {
		printf("vfork, exec: the child's user time %ld us\n",
		       usec(&ru.ru_utime));
		return 28;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct rusage ru;
	struct tms tm;
	int st;
	pid_t pid;

	if (argc == 2 && !strcmp(argv[1], "exit"))
		return 0;
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
		_exit(burn_child() ? 1 : 0);
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
	if (!st)
		st = exit_usage();
	if (!st)
		st = vfork_exec(argv[0]);
	if (st)
		return st;
	errno = 0;
	if (syscall(SYS_getrusage, 99, &ru) != -1 || errno != EINVAL ||
	    syscall(SYS_getrusage, RUSAGE_SELF, 8) != -1 || errno != EFAULT)
		return 11;
	puts("rusage ok");
	return 0;
}
