// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads of `make fairness` (bench/fairness-in-vm.sh), natively or
 * as guests under umlrun.  Prints, never asserts.
 *
 *   fairness now			CLOCK_MONOTONIC in seconds
 *   fairness spin			getpid in a loop, for ever (guest A)
 *   fairness echo N GAP_US		N interactive round trips: a byte
 *					written to a child process through a
 *					pipe and echoed back, one every
 *					GAP_US microseconds (the initiator
 *					sleeps in between); prints
 *					"lat p50 p90 max mean" in ns
 *   fairness share T0 T1		sleeps until CLOCK_MONOTONIC T0, then
 *					calls getpid in a loop until T1;
 *					prints "ops N late S" (S: seconds
 *					after T0 it started)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static double now_s(void)
{
	return bench_now_ns() / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int echo(long n, long gap_us)
{
	int there[2], back[2], status;
	double *lat, t0, sum = 0;
	char c = 0;
	pid_t pid;
	long i;

	lat = calloc(n, sizeof(*lat));
	if (!lat || pipe(there) || pipe(back))
		bench_die("setup");
	pid = fork();
	if (pid < 0)
		bench_die("fork");
	if (pid == 0) {
		close(there[1]);	/* so that the parent's close ends it */
		close(back[0]);
		while (read(there[0], &c, 1) == 1)
			if (write(back[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(there[0]);
	close(back[1]);
	for (i = 0; i < n; i++) {
		usleep(gap_us);
		t0 = bench_now_ns();
		if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
			bench_die("echo");
		lat[i] = bench_now_ns() - t0;
		sum += lat[i];
	}
	close(there[1]);
	if (waitpid(pid, &status, 0) != pid || status)
		bench_die("child");
	qsort(lat, n, sizeof(*lat), cmp_double);
	printf("lat %.0f %.0f %.0f %.0f\n", lat[n / 2], lat[n * 9 / 10],
	       lat[n - 1], sum / n);
	free(lat);
	return 0;
}

static int share(double t0, double t1)
{
	struct timespec ts;
	double late, t;
	long ops = 0, i;

	t = t0 - now_s();
	if (t > 0) {
		ts.tv_sec = (time_t)t;
		ts.tv_nsec = (long)((t - ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
	while (now_s() < t0)
		;
	late = now_s() - t0;
	do {
		for (i = 0; i < 64; i++)
			syscall(SYS_getpid);
		ops += 64;
	} while (now_s() < t1);
	printf("ops %ld late %.3f\n", ops, late);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("%.6f\n", now_s());
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "spin"))
		for (;;)
			syscall(SYS_getpid);
	if (argc == 4 && !strcmp(argv[1], "echo"))
		return echo(bench_arg(argc, argv, 2, 100),
			    bench_arg(argc, argv, 3, 1000));
	if (argc == 4 && !strcmp(argv[1], "share"))
		return share(atof(argv[2]), atof(argv[3]));
	fprintf(stderr, "usage: fairness now | spin | echo N GAP_US | share T0 T1\n");
	return 2;
}
