// SPDX-License-Identifier: GPL-2.0
/*
 * SKAS_GET_XSTATE and SKAS_SET_XSTATE: the FPU and vector state of a
 * stopped guest thread, what the guest set and what it then sees, and the
 * images and arguments they refuse; the same load as an operation of
 * SKAS_RUN_MEM (SKAS_MEM_SET_XSTATE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

#define CODE	0x100000UL

/* The XSAVE standard format. */
#define FX_FCW		0
#define FX_MXCSR	24
#define FX_XMM(n)	(160 + 16 * (n))
#define FX_SW		416
#define FX_XCR0		464
#define HDR		512
#define XFEATURE_SSE	(1ULL << 1)

#define PATTERN0	0x1122334455667788ULL
#define PATTERN1	0x0123456789abcdefULL

/*
 * movabs $PATTERN0, %rax; movq %rax, %xmm0; mov $39, %eax; syscall;
 * movq %xmm1, %rdi; mov $39, %eax; syscall; ud2
 */
static const unsigned char code[] = {
	0x48, 0xb8, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	0x66, 0x48, 0x0f, 0x6e, 0xc0,
	0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05,
	0x66, 0x48, 0x0f, 0x7e, 0xcf,
	0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05,
	0x0f, 0x0b,
};

static uint64_t xcr0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

static uint64_t u64_at(const unsigned char *img, size_t off)
{
	uint64_t v;

	memcpy(&v, img + off, sizeof(v));
	return v;
}

static void set_u64(unsigned char *img, size_t off, uint64_t v)
{
	memcpy(img + off, &v, sizeof(v));
}

static int xstate(int thread, unsigned long cmd, void *buf, unsigned int len)
{
	struct skas_xstate x;

	memset(&x, 0, sizeof(x));
	x.size = sizeof(x);
	x.buf = (uintptr_t)buf;
	x.len = len;
	return ioctl(thread, cmd, &x) ? -errno : 0;
}

FIXTURE(guest) {
	struct skas_guest g;
	int size;
	unsigned char *img;
};

FIXTURE_SETUP(guest)
{
	int ret = skas_guest_start(&self->g);

	ASSERT_EQ(0, ret) TH_LOG("guest start: %d", ret);
	self->size = ioctl(self->g.dev, SKAS_CHECK_EXTENSION, SKAS_CAP_XSTATE);
	if (self->size <= 0)
		SKIP(return, "no SKAS_CAP_XSTATE: a CPU without XSAVE");
	self->img = calloc(1, self->size);
	ASSERT_NE(NULL, self->img);
	ASSERT_EQ(1, skas_map_anon(self->g.as, CODE, 4096,
				   PROT_READ | PROT_EXEC));
	ASSERT_EQ((long)sizeof(code),
		  skas_rw(self->g.as, true, CODE, (void *)code, sizeof(code)));
	skas_regs_at(&self->g, CODE);
}

FIXTURE_TEARDOWN(guest)
{
	free(self->img);
	skas_guest_stop(&self->g);
}

/*
 * The size is the standard format's up to the end of the last feature
 * (XCR0's but AMX tiles), as ptrace's image of a task without AMX.
 */
TEST_F(guest, size_is_the_standard_formats)
{
	uint64_t mask = xcr0() & ~(3ULL << 17);
	uint32_t a, b, c, d, end = 576;
	int i;

	for (i = 2; i < 64; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		a = 0xd;
		c = i;
		__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
		if (a + b > end)
			end = a + b;
	}
	EXPECT_EQ((int)end, self->size);
}

TEST_F(guest, get_shows_what_the_guest_set)
{
	unsigned char *img = self->img;
	int i;

	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_GET_XSTATE, img, self->size));
	EXPECT_EQ(PATTERN0, u64_at(img, FX_XMM(0)));
	EXPECT_NE(0ULL, u64_at(img, HDR) & XFEATURE_SSE);
	EXPECT_EQ(0ULL, u64_at(img, HDR) & ~xcr0());
	EXPECT_EQ(0ULL, u64_at(img, HDR + 8));		/* XCOMP_BV */
	EXPECT_EQ(xcr0(), u64_at(img, FX_XCR0));
	for (i = FX_SW; i < 512; i++)
		if (i < FX_XCR0 || i >= FX_XCR0 + 8)
			ASSERT_EQ(0, img[i]) TH_LOG("software byte %d", i);
	/* Not the runtime's own state. */
	EXPECT_EQ(0x1f80U, *(uint32_t *)(img + FX_MXCSR) & 0xffff);
}

TEST_F(guest, set_is_what_the_guest_sees)
{
	struct skas_run *run = self->g.run;
	unsigned char *img = self->img;

	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_GET_XSTATE, img, self->size));
	set_u64(img, FX_XMM(1), PATTERN1);
	set_u64(img, HDR, u64_at(img, HDR) | XFEATURE_SSE);
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_SET_XSTATE, img, self->size));
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(PATTERN1, run->exit.syscall.args[0]);
	/* What it did not change stayed. */
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_GET_XSTATE, img, self->size));
	EXPECT_EQ(PATTERN0, u64_at(img, FX_XMM(0)));
	EXPECT_EQ(PATTERN1, u64_at(img, FX_XMM(1)));
}

/* XSTATE_BV 0 and MXCSR's default: the init state, as after execve. */
TEST_F(guest, an_empty_image_is_the_init_state)
{
	unsigned char *img = self->img;

	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	memset(img, 0, self->size);
	*(uint32_t *)(img + FX_MXCSR) = 0x1f80;
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_SET_XSTATE, img, self->size));
	memset(img, 0xff, self->size);
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_GET_XSTATE, img, self->size));
	EXPECT_EQ(0ULL, u64_at(img, FX_XMM(0)));
	EXPECT_EQ(0x37f, *(uint16_t *)(img + FX_FCW));
	EXPECT_EQ(0x1f80U, *(uint32_t *)(img + FX_MXCSR));
}

/* SKAS_XSTATE_INIT: the image, then the state a signal handler starts in. */
TEST_F(guest, get_with_init_then_the_init_state)
{
	struct skas_run *run = self->g.run;
	unsigned char *img = self->img;
	struct skas_xstate x;

	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	memset(&x, 0, sizeof(x));
	x.size = sizeof(x);
	x.flags = SKAS_XSTATE_INIT;
	x.buf = (uintptr_t)img;
	x.len = self->size;
	ASSERT_EQ(0, ioctl(self->g.thread, SKAS_GET_XSTATE, &x));
	EXPECT_EQ(PATTERN0, u64_at(img, FX_XMM(0)));
	memset(img, 0xff, self->size);
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_GET_XSTATE, img, self->size));
	EXPECT_EQ(0ULL, u64_at(img, FX_XMM(0)));
	EXPECT_EQ(0x37f, *(uint16_t *)(img + FX_FCW));
	EXPECT_EQ(0x1f80U, *(uint32_t *)(img + FX_MXCSR));
	/* And the guest runs on with it: its xmm1 is 0 now. */
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(0ULL, run->exit.syscall.args[0]);
}

/* What XRSTOR or ptrace would refuse; the state stays as it was. */
TEST_F(guest, bad_images_are_refused)
{
	unsigned char *img = self->img, *before = calloc(1, self->size);
	struct { size_t off; uint64_t v; const char *what; } bad[] = {
		{ HDR, 1ULL << 63, "XSTATE_BV bit 63" },
		{ HDR, 3ULL << 17, "AMX tiles" },
		{ HDR, ~xcr0() & ~(3ULL << 17) & -(~xcr0() & ~(3ULL << 17)),
		  "the lowest feature not enabled" },
		{ HDR + 8, 1ULL << 63, "XCOMP_BV: compacted" },
		{ HDR + 8, 1, "XCOMP_BV" },
		{ HDR + 16, 1, "header reserved" },
		{ HDR + 56, 1ULL << 56, "header reserved, last byte" },
		{ FX_MXCSR, 0x1f80 | (1ULL << 31), "MXCSR reserved bit" },
	};
	unsigned int i;

	ASSERT_NE(NULL, before);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_GET_XSTATE, before,
			    self->size));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(img, before, self->size);
		if (bad[i].off == FX_MXCSR)
			*(uint32_t *)(img + FX_MXCSR) = bad[i].v;
		else
			set_u64(img, bad[i].off, u64_at(img, bad[i].off) |
				bad[i].v);
		set_u64(img, FX_XMM(0), PATTERN1);
		EXPECT_EQ(-EINVAL, xstate(self->g.thread, SKAS_SET_XSTATE, img,
					  self->size)) TH_LOG("%s", bad[i].what);
	}
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_GET_XSTATE, img, self->size));
	EXPECT_EQ(PATTERN0, u64_at(img, FX_XMM(0)));
	free(before);
}

TEST_F(guest, bad_arguments)
{
	int t = self->g.thread, size = self->size;
	unsigned long cmds[] = { SKAS_GET_XSTATE, SKAS_SET_XSTATE };
	struct skas_xstate x;
	unsigned int i;

	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	for (i = 0; i < 2; i++) {
		unsigned long cmd = cmds[i];

		EXPECT_EQ(-EINVAL, xstate(t, cmd, self->img, size - 1));
		EXPECT_EQ(-EINVAL, xstate(t, cmd, self->img, size + 1));
		EXPECT_EQ(-EINVAL, xstate(t, cmd, self->img, 0));
		EXPECT_EQ(-EFAULT, xstate(t, cmd, NULL, size));
		EXPECT_EQ(-EFAULT, xstate(t, cmd, SKAS_BAD_PTR, size));
		errno = 0;
		EXPECT_EQ(-1, ioctl(t, cmd, SKAS_BAD_PTR));
		EXPECT_EQ(EFAULT, errno);
		memset(&x, 0, sizeof(x));
		x.size = sizeof(x) - 8;
		x.buf = (uintptr_t)self->img;
		x.len = size;
		EXPECT_EQ(-1, ioctl(t, cmd, &x));
		x.size = sizeof(x);
		/* SKAS_XSTATE_INIT is a GET's only flag. */
		x.flags = cmd == SKAS_GET_XSTATE ? 2 : SKAS_XSTATE_INIT;
		EXPECT_EQ(-1, ioctl(t, cmd, &x));
		x.flags = 1U << 31;
		EXPECT_EQ(-1, ioctl(t, cmd, &x));
		x.flags = 0;
		x.pad = 1;
		EXPECT_EQ(-1, ioctl(t, cmd, &x));
		x.pad = 0;
		x.reserved[1] = 1;
		errno = 0;
		EXPECT_EQ(-1, ioctl(t, cmd, &x));
		EXPECT_EQ(EINVAL, errno);
		x.reserved[1] = 0;
		EXPECT_EQ(0, ioctl(t, cmd, &x));
		/* Not on the address space's fd or the device's. */
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->g.as, cmd, &x));
		EXPECT_EQ(ENOTTY, errno);
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->g.dev, cmd, &x));
		EXPECT_EQ(ENOTTY, errno);
	}
}

static void set_xstate_op(struct skas_mem_op *op, void *img, int size)
{
	memset(op, 0, sizeof(*op));
	op->op = SKAS_MEM_SET_XSTATE;
	op->fd = -1;
	op->addr = (uintptr_t)img;
	op->len = size;
}

/* The load and the run in one call: the guest runs with the image. */
TEST_F(guest, run_mem_set_is_what_the_guest_sees)
{
	struct skas_run *run = self->g.run;
	unsigned char *img = self->img;
	struct skas_mem_op ops[2];
	int error = -1;

	ASSERT_EQ(1, ioctl(self->g.dev, SKAS_CHECK_EXTENSION,
			   SKAS_CAP_RUN_XSTATE));
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_GET_XSTATE, img, self->size));
	set_u64(img, FX_XMM(1), PATTERN1);
	set_u64(img, HDR, u64_at(img, HDR) | XFEATURE_SSE);
	/* With a mapping in the same batch, on either side of it. */
	set_xstate_op(&ops[0], img, self->size);
	memset(&ops[1], 0, sizeof(ops[1]));
	ops[1].op = SKAS_MEM_MAP;
	ops[1].prot = PROT_READ;
	ops[1].flags = SKAS_MAP_PRIVATE | SKAS_MAP_ANONYMOUS;
	ops[1].fd = -1;
	ops[1].addr = CODE + 0x10000;
	ops[1].len = 4096;
	ASSERT_EQ(0, skas_run_mem(&self->g, ops, 2, &error));
	EXPECT_EQ(0, error);
	ASSERT_EQ((unsigned)SKAS_EXIT_SYSCALL, run->exit_reason);
	EXPECT_EQ(PATTERN1, run->exit.syscall.args[0]);
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_GET_XSTATE, img, self->size));
	EXPECT_EQ(PATTERN0, u64_at(img, FX_XMM(0)));
	EXPECT_EQ(PATTERN1, u64_at(img, FX_XMM(1)));
}

/*
 * What SKAS_SET_XSTATE refuses, the operation refuses before anything
 * runs (the ioctl's -errno; the guest stays where it was), and it is no
 * operation of SKAS_MEM, which has no thread.
 */
TEST_F(guest, run_mem_set_bad_images_and_fields)
{
	unsigned char *img = self->img, *before = calloc(1, self->size);
	int t = self->g.thread, size = self->size, error;
	struct skas_mem_op op, two[2];
	struct skas_mem_batch b;

	ASSERT_NE(NULL, before);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	ASSERT_EQ(0, xstate(t, SKAS_GET_XSTATE, before, size));
	memcpy(img, before, size);
	set_u64(img, FX_XMM(0), PATTERN1);
	set_u64(img, HDR + 8, 1);	/* XCOMP_BV */
	set_xstate_op(&op, img, size);
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, &op, 1, &error));
	memcpy(img, before, size);
	set_u64(img, FX_XMM(0), PATTERN1);
	*(uint32_t *)(img + FX_MXCSR) = 0x1f80 | (1U << 31);
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, &op, 1, &error));
	memcpy(img, before, size);
	set_u64(img, FX_XMM(0), PATTERN1);
	set_xstate_op(&op, img, size - 1);
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, &op, 1, &error));
	set_xstate_op(&op, img, size + 1);
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, &op, 1, &error));
	set_xstate_op(&op, img, 0);
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, &op, 1, &error));
	set_xstate_op(&op, NULL, size);
	EXPECT_EQ(-EFAULT, skas_run_mem(&self->g, &op, 1, &error));
	set_xstate_op(&op, SKAS_BAD_PTR, size);
	EXPECT_EQ(-EFAULT, skas_run_mem(&self->g, &op, 1, &error));
	set_xstate_op(&op, img, size);
	op.fd = 0;
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, &op, 1, &error));
	set_xstate_op(&op, img, size);
	op.prot = PROT_READ;
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, &op, 1, &error));
	set_xstate_op(&op, img, size);
	op.flags = 1;
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, &op, 1, &error));
	set_xstate_op(&op, img, size);
	op.offset = 4096;
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, &op, 1, &error));
	set_xstate_op(&op, img, size);
	op.reserved = 1;
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, &op, 1, &error));
	/* One image per batch. */
	set_xstate_op(&two[0], img, size);
	set_xstate_op(&two[1], img, size);
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, two, 2, &error));
	/* SKAS_MEM on the address space: no thread to load it in. */
	set_xstate_op(&op, img, size);
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.count = 1;
	b.ops = (uintptr_t)&op;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_MEM, &b));
	EXPECT_EQ(EINVAL, errno);
	/* Nothing was loaded, and nothing ran: next is the 2nd syscall. */
	ASSERT_EQ(0, xstate(t, SKAS_GET_XSTATE, img, size));
	EXPECT_EQ(PATTERN0, u64_at(img, FX_XMM(0)));
	EXPECT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	free(before);
}

/*
 * A PKRU that denies the guest its own pages (pkey 0) is the guest's
 * business: its loads fault (SEGV_PKUERR), and the module's native
 * operations, which read the vDSO in the guest's context, still work.
 */
TEST_F(guest, pkru_denying_the_guests_pages)
{
	/* mov 0x100800, %rbx; ud2 */
	static const unsigned char load[] = {
		0x48, 0x8b, 0x1c, 0x25, 0x00, 0x08, 0x10, 0x00, 0x0f, 0x0b,
	};
	struct skas_run *run = self->g.run;
	unsigned char *img = self->img;
	uint32_t a = 0xd, b, c = 9, d, pkru = 1;	/* AD for pkey 0 */

	if (!(xcr0() & (1ULL << 9)))
		SKIP(return, "no PKRU in XCR0");
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	ASSERT_EQ((long)sizeof(load),
		  skas_rw(self->g.as, true, CODE, (void *)load, sizeof(load)));
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_GET_XSTATE, img, self->size));
	memcpy(img + b, &pkru, sizeof(pkru));
	set_u64(img, HDR, u64_at(img, HDR) | 1ULL << 9);
	ASSERT_EQ(0, xstate(self->g.thread, SKAS_SET_XSTATE, img, self->size));
	/* A native operation: mprotect in the guest. */
	EXPECT_EQ(1, skas_mem1(self->g.as, SKAS_MEM_PROTECT, CODE, 4096,
			       PROT_READ | PROT_EXEC, 0, -1, 0));
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGSEGV, run->exit.fault.signo);
	EXPECT_EQ(4, run->exit.fault.code);		/* SEGV_PKUERR */
	EXPECT_EQ(CODE + 0x800, run->exit.fault.addr);
}

static void *run_in_thread(void *arg)
{
	return (void *)(intptr_t)skas_run(arg);
}

/* The thread must be stopped: never attached, running, dead. */
TEST_F(guest, needs_a_stopped_thread)
{
	static const unsigned char spin[] = { 0xeb, 0xfe };	/* jmp . */
	int t = self->g.thread, size = self->size, other;
	pthread_t th;
	void *ret;

	other = skas_create_thread(self->g.as);
	ASSERT_GE(other, 0);
	EXPECT_EQ(-ENOENT, xstate(other, SKAS_GET_XSTATE, self->img, size));
	EXPECT_EQ(-ENOENT, xstate(other, SKAS_SET_XSTATE, self->img, size));
	close(other);

	ASSERT_EQ(0, xstate(t, SKAS_GET_XSTATE, self->img, size));
	ASSERT_EQ((long)sizeof(spin),
		  skas_rw(self->g.as, true, CODE, (void *)spin, sizeof(spin)));
	ASSERT_EQ(0, pthread_create(&th, NULL, run_in_thread, &self->g));
	usleep(200000);
	EXPECT_EQ(-EBUSY, xstate(t, SKAS_GET_XSTATE, self->img, size));
	EXPECT_EQ(-EBUSY, xstate(t, SKAS_SET_XSTATE, self->img, size));
	ASSERT_EQ(0, ioctl(t, SKAS_KICK, 0));
	pthread_join(th, &ret);
	EXPECT_EQ(SKAS_EXIT_INTERRUPTED, (int)(intptr_t)ret);

	kill(self->g.pid, SIGKILL);
	EXPECT_EQ(SKAS_EXIT_EXITED, skas_run(&self->g));
	EXPECT_EQ(-ESRCH, xstate(t, SKAS_GET_XSTATE, self->img, size));
	EXPECT_EQ(-ESRCH, xstate(t, SKAS_SET_XSTATE, self->img, size));
}

TEST_HARNESS_MAIN
