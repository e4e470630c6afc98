// SPDX-License-Identifier: GPL-2.0
/*
 * gettimeofday loop, through the vDSO (no kernel entry at all when the
 * clocksource allows it: what a guest gets for free if its runtime maps the
 * host vDSO) and through the raw syscall (a full round trip).  Mirrors the
 * KVM story of 2010, where moving the PM timer into the kernel halved the
 * cost of gettimeofday in guests.
 *
 * Usage: gettimeofday vdso|raw [N]	(default 1000000)
 */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench.h"

int main(int argc, char **argv)
{
	long n = bench_arg(argc, argv, 2, 1000000), i;
	struct timeval tv;
	double t0;
	int raw;

	if (argc < 2 || (strcmp(argv[1], "vdso") && strcmp(argv[1], "raw"))) {
		fprintf(stderr, "usage: gettimeofday vdso|raw [N]\n");
		return 2;
	}
	raw = !strcmp(argv[1], "raw");
	for (i = 0; i < n / 10; i++)
		raw ? syscall(SYS_gettimeofday, &tv, NULL) : gettimeofday(&tv, NULL);
	t0 = bench_now_ns();
	if (raw)
		for (i = 0; i < n; i++)
			syscall(SYS_gettimeofday, &tv, NULL);
	else
		for (i = 0; i < n; i++)
			gettimeofday(&tv, NULL);
	bench_result((bench_now_ns() - t0) / n);
	return 0;
}
