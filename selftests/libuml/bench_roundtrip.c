// SPDX-License-Identifier: GPL-2.0
/*
 * Round-trip micro-benchmark (not a test: it asserts no time).  A guest
 * loops on getpid; the loop below answers each trap, as a runtime would.
 * Prints ns per round trip for native getpid and for every backend that
 * opens, with the ratio to native.
 *
 * Usage: bench_roundtrip [ITERATIONS]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uml.h"

#define GUEST_CODE	0x400000ULL

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double native(long n)
{
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getpid);
	return (now_ns() - t0) / n;
}

/* ns per round trip, or a negative errno. */
static double backend(enum uml_backend b, long n)
{
	/* 1: mov $39, %eax; syscall; jmp 1b */
	static const unsigned char code[] = {
		0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7,
	};
	struct uml_host *h;
	struct uml_aspace *as;
	struct uml_thread *t;
	struct uml_exit ex;
	struct uml_regs *r;
	double t0, res;
	long i;
	int ret;

	ret = uml_host_open(&h, b);
	if (ret)
		return ret;
	ret = uml_aspace_create(h, &as, &t);
	if (!ret)
		ret = uml_aspace_map(as, GUEST_CODE, 0x1000, PROT_READ | PROT_EXEC,
				     UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, -1, 0);
	if (!ret && uml_mem_write(as, GUEST_CODE, code, sizeof(code)) !=
	    sizeof(code))
		ret = -EFAULT;
	if (ret) {
		uml_host_close(h);
		return ret;
	}
	r = uml_thread_regs(t);
	r->rip = GUEST_CODE;
	for (i = 0; i < n / 10 + 1; i++)	/* warm up */
		uml_thread_run(t, &ex);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		ret = uml_thread_run(t, &ex);
		if (ret || ex.reason != UML_EXIT_SYSCALL)
			break;
		r->rax = 1;
	}
	res = i == n ? (now_ns() - t0) / n : -EPROTO;
	uml_host_close(h);
	return res;
}

int main(int argc, char **argv)
{
	static const enum uml_backend bs[] = {
		UML_BACKEND_PTRACE, UML_BACKEND_SKAS,
	};
	long n = argc > 1 ? atol(argv[1]) : 20000;
	double nat, ns;
	unsigned int i;

	if (n <= 0)
		n = 20000;
	nat = native(n * 10);
	printf("%-10s %12s %8s\n", "backend", "ns/op", "ratio");
	printf("%-10s %12.1f %8.2f\n", "native", nat, 1.0);
	for (i = 0; i < sizeof(bs) / sizeof(bs[0]); i++) {
		ns = backend(bs[i], n);
		if (ns < 0)
			printf("%-10s %12s %8s   # %s\n", uml_backend_name(bs[i]),
			       "-", "-", uml_strerror((int)ns));
		else
			printf("%-10s %12.1f %8.2f\n", uml_backend_name(bs[i]),
			       ns, ns / nat);
	}
	return 0;
}
