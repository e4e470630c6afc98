// SPDX-License-Identifier: GPL-2.0
/*
 * memLoop / memLoopPure: each iteration writes one byte in each of NPAGES
 * pages, 4 KiB apart; memLoop also makes one getpid per iteration.  With a
 * user-mode kernel every round trip may switch address spaces and flush the
 * TLB, so memLoop pays NPAGES TLB misses per syscall where memLoopPure pays
 * none: the classic UML/SKAS measurement of TLB cost.  (Under QEMU -icount
 * TLB misses cost no instructions; compare the wall-clock column.)
 *
 * Usage: memloop NPAGES pure|getpid [N]	(default 100000)
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

static void loop(volatile char *mem, long npages, long n, int sys)
{
	long i, p;

	for (i = 0; i < n; i++) {
		for (p = 0; p < npages; p++)
			mem[p * 4096]++;
		if (sys)
			syscall(SYS_getpid);
	}
}

int main(int argc, char **argv)
{
	long npages = bench_arg(argc, argv, 1, 64);
	long n = bench_arg(argc, argv, 3, 100000);
	char *mem;
	double t0;
	int sys;

	if (argc < 3 || (strcmp(argv[2], "pure") && strcmp(argv[2], "getpid"))) {
		fprintf(stderr, "usage: memloop NPAGES pure|getpid [N]\n");
		return 2;
	}
	sys = !strcmp(argv[2], "getpid");
	mem = mmap(NULL, npages * 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		bench_die("mmap %ld pages", npages);
	loop(mem, npages, n / 10 + 1, sys);	/* fault in, warm up */
	t0 = bench_now_ns();
	loop(mem, npages, n, sys);
	bench_result((bench_now_ns() - t0) / n);
	return 0;
}
