// SPDX-License-Identifier: GPL-2.0
/*
 * CPU-bound work in parallel: K workers, processes or threads, each
 * running N rounds of a fixed arithmetic loop (no syscall, no memory
 * traffic), and the time until all are done.  One operation is one round
 * of one worker, so with K CPUs free the result does not depend on K;
 * a runtime that runs one guest thread at a time makes it K times longer.
 *
 * Usage: spin procs|threads K [N]	(default N 20000)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MAX_WORKERS	16

static long rounds;

/* About 2,000 instructions a round; the result keeps it from folding. */
static uint64_t work(long n)
{
	uint64_t x = 88172645463325252ULL;
	long i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < 500; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
	return x;
}

static void *worker(void *arg)
{
	(void)arg;
	return (void *)(uintptr_t)work(rounds);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long k = bench_arg(argc, argv, 2, 2), i;
	pthread_t th[MAX_WORKERS];
	double t0, t1;
	int status;
	pid_t pid;

	rounds = bench_arg(argc, argv, 3, 20000);
	if (k > MAX_WORKERS) {
		fprintf(stderr, "at most %d workers\n", MAX_WORKERS);
		return 2;
	}
	t0 = bench_now_ns();
	if (!strcmp(mode, "procs")) {
		for (i = 0; i < k; i++) {
			pid = fork();
			if (pid < 0)
				bench_die("fork");
			if (!pid)
				_exit(work(rounds) == 1);	/* never 1 */
		}
		for (i = 0; i < k; i++)
			if (wait(&status) < 0 || !WIFEXITED(status) ||
			    WEXITSTATUS(status))
				bench_die("a worker");
	} else if (!strcmp(mode, "threads")) {
		for (i = 0; i < k; i++)
			if (pthread_create(&th[i], NULL, worker, NULL))
				bench_die("pthread_create");
		for (i = 0; i < k; i++)
			pthread_join(th[i], NULL);
	} else {
		fprintf(stderr, "usage: spin procs|threads K [N]\n");
		return 2;
	}
	t1 = bench_now_ns();
	bench_result((t1 - t0) / rounds);
	return 0;
}
