// SPDX-License-Identifier: GPL-2.0
/*
 * Pipe ping-pong between two processes: one byte there, one byte back, per
 * operation.  Four syscalls and two context switches natively; under a
 * user-mode kernel every one of them is a round trip, and the two guests'
 * wake-ups go through the runtime's scheduler.
 *
 * Usage: pipe [N]	(default 100000)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static void pingpong(int rfd, int wfd, long n, int first)
{
	char c = 0;
	long i;

	for (i = 0; i < n; i++) {
		if (first && write(wfd, &c, 1) != 1)
			bench_die("write");
		if (read(rfd, &c, 1) != 1)
			bench_die("read");
		if (!first && write(wfd, &c, 1) != 1)
			bench_die("write");
	}
}

int main(int argc, char **argv)
{
	long n = bench_arg(argc, argv, 1, 100000), w = n / 10 + 1;
	int there[2], back[2], status;
	double t0;
	pid_t pid;

	if (pipe(there) || pipe(back))
		bench_die("pipe");
	pid = fork();
	if (pid < 0)
		bench_die("fork");
	if (pid == 0) {
		pingpong(there[0], back[1], w + n, 0);
		_exit(0);
	}
	pingpong(back[0], there[1], w, 1);
	t0 = bench_now_ns();
	pingpong(back[0], there[1], n, 1);
	bench_result((bench_now_ns() - t0) / n);
	if (waitpid(pid, &status, 0) != pid || status)
		bench_die("child");
	return 0;
}
