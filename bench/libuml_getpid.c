// SPDX-License-Identifier: GPL-2.0
/*
 * getpid round trip through libuml with the smallest possible runtime: a
 * guest whose code is "1: mov $39, %eax; syscall; jmp 1b", and a loop that
 * answers each UML_EXIT_SYSCALL.  The floor under umlrun's getpid (which
 * adds its own dispatch), per backend.  Same loop as
 * selftests/libuml/bench_roundtrip, one backend per run, in the output
 * format of the other workloads.
 *
 * Usage: libuml_getpid ptrace|skas|skas+spin|skas+yield [N]	(default 20000)
 *
 * skas+spin is skas with adaptive spinning at the host's maximum
 * (uml_thread_set_spin(), Documentation/design.rst, "Adaptive spinning"),
 * skas+yield with yield before sleep (uml_thread_set_yield(), "Yield
 * before sleep").
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/mman.h>

#include "bench.h"
#include "uml.h"

#define GUEST_CODE	0x400000ULL

int main(int argc, char **argv)
{
	static const unsigned char code[] = {
		0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7,
	};
	long n = bench_arg(argc, argv, 2, 20000), i;
	enum uml_backend b;
	struct uml_host *h;
	struct uml_aspace *as;
	struct uml_thread *t;
	struct uml_exit ex;
	struct uml_regs *r;
	double t0;
	bool spin, yield;
	long len;
	int ret;

	spin = argc >= 2 && !strcmp(argv[1], "skas+spin");
	yield = argc >= 2 && !strcmp(argv[1], "skas+yield");
	if (argc < 2 || (spin || yield ? uml_backend_parse("skas", &b) :
			 uml_backend_parse(argv[1], &b)) ||
	    b == UML_BACKEND_AUTO) {
		fprintf(stderr,
			"usage: libuml_getpid ptrace|skas|skas+spin|skas+yield [N]\n");
		return 2;
	}
	ret = uml_host_open(&h, b);
	if (ret)
		bench_na("libuml %s backend: %s", argv[1], uml_strerror(ret));
	ret = uml_aspace_create(h, &as, &t);
	if (ret)
		bench_na("uml_aspace_create: %s", uml_strerror(ret));
	if (spin) {
		long max = uml_host_spin_max(h);

		ret = max > 0 ? uml_thread_set_spin(t, max) : -EOPNOTSUPP;
		if (ret)
			bench_na("uml_thread_set_spin: %s", uml_strerror(ret));
	}
	if (yield) {
		ret = uml_thread_set_yield(t, 1);
		if (ret)
			bench_na("uml_thread_set_yield: %s", uml_strerror(ret));
	}
	ret = uml_aspace_map(as, GUEST_CODE, 0x1000, PROT_READ | PROT_EXEC,
			     UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, -1, 0);
	if (ret)
		bench_na("uml_aspace_map: %s", uml_strerror(ret));
	len = uml_mem_write(as, GUEST_CODE, code, sizeof(code));
	if (len != sizeof(code))
		bench_na("uml_mem_write: %s",
			 uml_strerror(len < 0 ? (int)len : -EFAULT));
	r = uml_thread_regs(t);
	r->rip = GUEST_CODE;
	for (i = 0; i < n / 10 + 1; i++) {	/* warm up */
		ret = uml_thread_run(t, &ex);
		if (ret || ex.reason != UML_EXIT_SYSCALL)
			bench_na("uml_thread_run: %s, exit reason %d",
				 uml_strerror(ret), (int)ex.reason);
		r->rax = 1;
	}
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		ret = uml_thread_run(t, &ex);
		if (ret || ex.reason != UML_EXIT_SYSCALL)
			bench_na("uml_thread_run: %s, exit reason %d",
				 uml_strerror(ret), (int)ex.reason);
		r->rax = 1;
	}
	bench_result((bench_now_ns() - t0) / n);
	uml_host_close(h);
	return 0;
}
