// SPDX-License-Identifier: GPL-2.0
/*
 * Round-trip micro-benchmark (prints, never asserts a time): a guest
 * getpid loop handled by a minimal runtime loop (TRAP), answered in the
 * kernel (CONST), against native getpid.  Usage: roundtrip [ITERATIONS]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "skas_test.h"

#define CODE	0x100000UL

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	/*
	 * 1: mov $39,%eax; syscall; dec %r12; jnz 1b; mov $60,%eax; syscall
	 */
	static const unsigned char code[] = {
		0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05,
		0x49, 0xff, 0xcc, 0x75, 0xf4,
		0xb8, 0x3c, 0x00, 0x00, 0x00, 0x0f, 0x05,
	};
	long n = argc > 1 ? atol(argv[1]) : 20000, i;
	struct skas_policy p;
	struct skas_guest g;
	double t0, native, trap, cnst;

	cpu_set_t one;

	/* One CPU for runtime and guest: the sync handoff case. */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (argc > 2 && !strcmp(argv[2], "1cpu"))
		sched_setaffinity(0, sizeof(one), &one);
	if (skas_guest_start(&g) ||
	    skas_map_anon(g.as, CODE, 4096, PROT_READ | PROT_EXEC) != 1 ||
	    skas_rw(g.as, true, CODE, (void *)code, sizeof(code)) !=
	    sizeof(code)) {
		printf("not ok 1 roundtrip: guest setup\n");
		return 1;
	}
	printf("TAP version 13\n1..1\n");

	t0 = now();
	for (i = 0; i < n; i++)
		syscall(SYS_getpid);
	native = (now() - t0) / n;

	/* TRAP: every getpid is a SKAS_RUN round trip. */
	skas_regs_at(&g, CODE);
	g.run->regs.r12 = n;
	t0 = now();
	for (i = 0; ; i++) {
		if (skas_run(&g) != SKAS_EXIT_SYSCALL)
			break;
		if (g.run->exit.syscall.nr == 60)
			break;
		g.run->regs.rax = 1;
	}
	trap = (now() - t0) / n;

	/* CONST: answered in the kernel, one run for the whole loop. */
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.nr = 39;
	p.action = SKAS_POLICY_CONST;
	p.value = 1;
	ioctl(g.as, SKAS_SET_POLICY, &p);
	skas_regs_at(&g, CODE);
	g.run->regs.r12 = n;
	t0 = now();
	while (skas_run(&g) == SKAS_EXIT_INTERRUPTED)
		;
	cnst = (now() - t0) / n;

	printf("# %ld iterations%s\n", n,
	       argc > 2 ? " (runtime and guest on one CPU)" : "");
	printf("# native getpid   %8.0f ns/op  1.00x\n", native);
	printf("# skas TRAP       %8.0f ns/op  %.2fx\n", trap, trap / native);
	printf("# skas CONST      %8.0f ns/op  %.2fx\n", cnst, cnst / native);
	printf("ok 1 roundtrip (%ld trap round trips)\n", i);
	skas_guest_stop(&g);
	return 0;
}
