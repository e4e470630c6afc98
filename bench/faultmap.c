// SPDX-License-Identifier: GPL-2.0
/*
 * A page fault answered by mapping the page, as User-Mode Linux answers
 * its processes' faults: a guest stores to one new page after another,
 * each store faults, and the runtime maps that page and resumes the guest.
 * One operation is one page.  On skas.ko's raw ABI, two ways:
 *
 *   mem+run   SKAS_MEM (map the page) then SKAS_RUN: two hand-offs
 *   run-mem   SKAS_RUN_MEM: the map and the resume in one
 *
 * and, for reference, "native": the host's own fault on a fresh anonymous
 * page (the same store loop, no runtime).
 *
 * Usage: faultmap native|mem+run|run-mem [N]	(default 5000)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/skas.h>

#include "bench.h"

#define CODE	0x100000UL
#define AREA	0x10000000UL

/* 1: mov %rax, (%rbx); add $4096, %rbx; jmp 1b */
static const unsigned char code[] = {
	0x48, 0x89, 0x03, 0x48, 0x81, 0xc3, 0x00, 0x10, 0x00, 0x00,
	0xeb, 0xf4,
};

static void native(long n)
{
	char *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t0;
	long i;

	if (p == MAP_FAILED)
		bench_die("mmap");
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		*(volatile long *)(p + i * 4096) = i;
	bench_result((bench_now_ns() - t0) / n);
}

static int mem1(int fd, unsigned long cmd, unsigned long addr,
		unsigned int prot)
{
	struct skas_mem_op op;
	struct skas_mem_batch b;

	memset(&op, 0, sizeof(op));
	op.op = SKAS_MEM_MAP;
	op.addr = addr;
	op.len = 4096;
	op.prot = prot;
	op.flags = SKAS_MAP_PRIVATE | SKAS_MAP_ANONYMOUS;
	op.fd = -1;
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.count = 1;
	b.ops = (uintptr_t)&op;
	return ioctl(fd, cmd, &b);
}

/* A guest on the raw ABI: the stub is this program, forked. */
static int guest(int *asp, int *threadp, struct skas_run **runp)
{
	struct skas_create_aspace ca = { .size = sizeof(ca) };
	struct skas_create_thread ct = { .size = sizeof(ct) };
	struct pollfd pfd;
	int dev, as, t;
	void *run;

	dev = open("/dev/skas", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		bench_na("no /dev/skas");
	if (ioctl(dev, SKAS_CHECK_EXTENSION, SKAS_CAP_RUN_MEM) <= 0)
		bench_na("the module has no SKAS_CAP_RUN_MEM");
	as = ioctl(dev, SKAS_CREATE_ASPACE, &ca);
	t = as < 0 ? -1 : ioctl(as, SKAS_CREATE_THREAD, &ct);
	if (t < 0)
		bench_die("create");
	run = mmap(NULL, SKAS_RUN_PAGE_SIZE, PROT_READ | PROT_WRITE,
		   MAP_SHARED, t, 0);
	if (run == MAP_FAILED)
		bench_die("mmap run page");
	if (fork() == 0) {
		struct skas_attach at = { .size = sizeof(at) };
		struct { unsigned long h, f, r, m; } dfl = { 0 };
		int sig;

		/* A fit stub: default handlers (see skas_test.h), no rseq. */
		for (sig = 1; sig < 65; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				syscall(SYS_rt_sigaction, sig, &dfl, NULL, 8);
		syscall(SYS_rseq, (char *)__builtin_thread_pointer() +
			__rseq_offset, __rseq_size, 1, 0x53053053);
		syscall(SYS_rseq, (char *)__builtin_thread_pointer() +
			__rseq_offset, 32, 1, 0x53053053);
		ioctl(t, SKAS_ATTACH, &at);
		_exit(errno);
	}
	pfd.fd = t;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) != 1)
		bench_die("the stub did not attach");
	*asp = as;
	*threadp = t;
	*runp = run;
	return 0;
}

static void skas(long n, int fused)
{
	struct skas_mem_rw rw = { .size = sizeof(rw) };
	struct skas_run *run;
	int as, t;
	double t0;
	long i;

	guest(&as, &t, &run);
	if (mem1(as, SKAS_MEM, CODE, PROT_READ | PROT_EXEC) != 1)
		bench_die("map code");
	rw.addr = CODE;
	rw.buf = (uintptr_t)code;
	rw.len = sizeof(code);
	if (ioctl(as, SKAS_MEM_WRITE, &rw) != (long)sizeof(code))
		bench_die("write code");
	memset(&run->regs, 0, sizeof(run->regs));
	run->regs.rip = CODE;
	run->regs.eflags = 0x202;
	run->regs.rbx = AREA;
	t0 = bench_now_ns();
	if (ioctl(t, SKAS_RUN, 0))
		bench_die("run");
	for (i = 0; i < n; i++) {
		if (run->exit_reason != SKAS_EXIT_FAULT ||
		    run->exit.fault.addr != AREA + i * 4096UL) {
			errno = EPROTO;
			bench_die("page %ld: exit %u", i, run->exit_reason);
		}
		if (fused) {
			if (mem1(t, SKAS_RUN_MEM, run->exit.fault.addr,
				 PROT_READ | PROT_WRITE))
				bench_die("SKAS_RUN_MEM");
		} else {
			if (mem1(as, SKAS_MEM, run->exit.fault.addr,
				 PROT_READ | PROT_WRITE) != 1)
				bench_die("SKAS_MEM");
			if (ioctl(t, SKAS_RUN, 0))
				bench_die("SKAS_RUN");
		}
	}
	bench_result((bench_now_ns() - t0) / n);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = bench_arg(argc, argv, 2, 5000);

	if (!strcmp(mode, "native"))
		native(n);
	else if (!strcmp(mode, "mem+run"))
		skas(n, 0);
	else if (!strcmp(mode, "run-mem"))
		skas(n, 1);
	else {
		fprintf(stderr, "usage: faultmap native|mem+run|run-mem [N]\n");
		return 2;
	}
	return 0;
}
