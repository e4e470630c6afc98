// SPDX-License-Identifier: GPL-2.0
/*
 * getpid loop: the cheapest real system call, so its cost is almost all
 * entry/exit (native) or the round trip to the user-mode kernel (guest).
 * The UML getpid figure of 2004 (35x native with SYSEMU) is this loop.
 *
 * Usage: getpid [N]	(default 1000000)
 */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

int main(int argc, char **argv)
{
	long n = bench_arg(argc, argv, 1, 1000000), i;
	double t0;

	for (i = 0; i < n / 10; i++)	/* warm up */
		syscall(SYS_getpid);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getpid);
	bench_result((bench_now_ns() - t0) / n);
	return 0;
}
