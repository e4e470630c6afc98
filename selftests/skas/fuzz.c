// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded, struct-aware, time-bounded ioctl fuzzer.  Usage:
 *   fuzz [SEED [SECONDS]]
 * It drives one guest with random commands, random structures built from
 * interesting values, random registers and random guest code (mostly
 * faults; syscalls are trapped, or in the third test often NATIVE or
 * THREAD, with random arguments, cut short by the watchdog's kicks).  It
 * passes if every call returns a sane result and the guest stays in the
 * runtime's hands; the harness fails the run on any kernel warning.
 * Prints the seed to reproduce.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

static unsigned long fuzz_seed = 1;
static unsigned int fuzz_seconds = 10;
static __thread uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static uint64_t pick(const uint64_t *v, unsigned int n)
{
	return v[rnd() % n];
}

#define PICK(v) pick(v, sizeof(v) / sizeof(v[0]))

static uint64_t rnd_addr(void)
{
	static const uint64_t v[] = {
		0, 1, 0x1000, 0x10000, 0x100000, 0x101000, 0x200000,
		0x7ffffffff000ULL, 0x800000000000ULL, 0xfffffffffffff000ULL,
		0xffff888000000000ULL, 0xffffffff81000000ULL, ~0ULL,
	};

	if (rnd() % 4 == 0)
		return PICK(v);
	if (rnd() % 2)
		return getauxval(AT_SYSINFO_EHDR) + (rnd() % 4) * 4096;
	return 0x100000 + (rnd() % 64) * 4096 + (rnd() % 8 == 0 ? rnd() % 4096 : 0);
}

static uint64_t rnd_len(void)
{
	static const uint64_t v[] = { 0, 1, 4096, 8192, 0x10000, 4095,
				      ~0ULL, 0x800000000000ULL };

	return rnd() % 3 ? 4096 * (1 + rnd() % 16) : PICK(v);
}

static uint32_t rnd_small(void)
{
	static const uint64_t v[] = { 0, 1, 2, 3, 7, 0x20, 0x22, 0x21, 0x23,
				      0x80000000, 0xffffffff };

	return rnd() % 2 ? PICK(v) : (uint32_t)rnd();
}

static void *rnd_ptr(void *good)
{
	static const uint64_t v[] = { 0, 1, 0xffff800000000000ULL,
				      0x7ffffffff000ULL, ~0ULL };

	return rnd() % 8 ? good : (void *)(uintptr_t)PICK(v);
}

/* Fill a structure: mostly well-formed, sometimes a field broken. */
static void fill_header(void *p, size_t size)
{
	uint32_t *u = p;

	memset(p, 0, size);
	u[0] = rnd() % 10 ? size : rnd_small();
	if (rnd() % 10 == 0)
		u[1] = rnd_small();
	if (rnd() % 10 == 0)
		((uint8_t *)p)[size - 1 - rnd() % 8] = rnd();
}

/*
 * QEMU TCG (with SMAP) emulates the stack accesses of a user-mode IRET,
 * far RET and far CALL as supervisor accesses: if the stack is unmapped
 * the guest kernel sees a supervisor #PF from user mode and oopses.  Any
 * process can do that there, with or without this module (a two-line
 * reproducer oopses Debian 6.12 under the harness), so random code and
 * data never contain those opcodes (iret cf, lret ca/cb, ff for lcall).
 */
static void scrub(unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] == 0xcf || p[i] == 0xca || p[i] == 0xcb ||
		    p[i] == 0xff)
			p[i] = 0x90;
}

static bool sane_errno(int e)
{
	switch (e) {
	case EINVAL: case EFAULT: case EBADF: case ENOTTY: case EBUSY:
	case ENOENT: case ESRCH: case ENOMEM: case EPERM: case EOPNOTSUPP:
	case EACCES: case EEXIST: case EINTR: case ENODEV: case EOVERFLOW:
		return true;
	}
	return false;
}

struct fuzz {
	struct skas_guest g;
	pthread_t watchdog;
	volatile int stop;
	bool native;
	unsigned long calls, runs, events[5];
};

/* The NATIVE calls of the third test (all of the safe list but I/O). */
static const uint64_t native_nrs[] = {
	SYS_futex, SYS_futex_waitv, SYS_clock_gettime, SYS_clock_getres,
	SYS_gettimeofday, SYS_time, SYS_nanosleep, SYS_clock_nanosleep,
	SYS_sched_yield, SYS_getrandom, SYS_getcpu, SYS_read, SYS_write,
	SYS_lseek, SYS_fstat, SYS_restart_syscall, SYS_gettid,
};

/* Kick the guest now and then, so random code that spins ends. */
static void *watchdog(void *arg)
{
	struct fuzz *f = arg;

	while (!f->stop) {
		usleep(20000);
		ioctl(f->g.thread, SKAS_KICK, 0);
	}
	return NULL;
}

static volatile unsigned long insane;
static int last_bad_errno;
static unsigned long last_bad_cmd;

static int fz_ioctl(int fd, unsigned long cmd, ...)
{
	va_list ap;
	unsigned long arg;
	int ret;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	ret = ioctl(fd, cmd, arg);
	if (ret < 0 && !sane_errno(errno)) {
		insane++;
		last_bad_errno = errno;
		last_bad_cmd = cmd;
	}
	return ret;
}

/* A random batch of up to 4 operations, mostly well-formed. */
static void fill_batch(struct skas_mem_op ops[4], struct skas_mem_batch *b)
{
	unsigned int i, n = 1 + rnd() % 4;

	for (i = 0; i < n; i++) {
		fill_header(&ops[i], sizeof(ops[i]));
		ops[i].op = rnd() % 8 ? 1 + rnd() % 5 : rnd_small();
		ops[i].prot = rnd() % 8 ? rnd() % 8 : rnd_small();
		ops[i].flags = rnd() % 4 ? 0x22 : rnd_small();
		ops[i].fd = rnd() % 4 ? -1 : (int)rnd_small();
		ops[i].addr = rnd_addr();
		ops[i].len = rnd_len();
		ops[i].offset = rnd() % 8 ? 0 : rnd_len();
		ops[i].reserved = rnd() % 16 ? 0 : 1;
		if (ops[i].op != 1) {
			ops[i].flags = rnd() % 8 ? 0 : ops[i].flags;
		}
		/* INSTALL_FD, CLOSE_FD: a guest fd, no range. */
		if (ops[i].op == 4 || ops[i].op == 5) {
			ops[i].addr = rnd() % 4 ? rnd() % 8 : rnd_addr();
			ops[i].len = rnd() % 4 ? 0 : ops[i].len;
		}
	}
	fill_header(b, sizeof(*b));
	b->count = rnd() % 10 ? n : rnd_small();
	b->ops = (uintptr_t)rnd_ptr(ops);
}

static void fuzz_mem(struct fuzz *f)
{
	struct skas_mem_op ops[4];
	struct skas_mem_batch b;

	fill_batch(ops, &b);
	fz_ioctl(f->g.as, SKAS_MEM, rnd_ptr(&b));
}

/*
 * SKAS_GET_XSTATE, then SKAS_SET_XSTATE of that image with random bytes
 * changed, mostly in the FXSAVE area and the header the checks read.
 */
static void fuzz_xstate(struct fuzz *f)
{
	static unsigned char img[65536] __attribute__((aligned(64)));
	int size = ioctl(f->g.dev, SKAS_CHECK_EXTENSION, SKAS_CAP_XSTATE);
	struct skas_xstate x;
	unsigned int i, n = 1 + rnd() % 4;

	if (size <= 0 || size > (int)sizeof(img))
		return;
	fill_header(&x, sizeof(x));
	x.buf = (uintptr_t)rnd_ptr(img);
	x.len = rnd() % 8 ? (unsigned int)size : rnd_small();
	fz_ioctl(f->g.thread, SKAS_GET_XSTATE, rnd_ptr(&x));
	for (i = 0; i < n; i++) {
		unsigned int off = rnd() % (rnd() % 2 ? 576 : (unsigned int)size);

		img[off] = rnd() % 2 ? (unsigned char)rnd() :
			   (unsigned char)(img[off] ^ (1U << (rnd() % 8)));
	}
	fz_ioctl(f->g.thread, SKAS_SET_XSTATE, rnd_ptr(&x));
}

static void fuzz_rw(struct fuzz *f)
{
	static char buf[3 * 4096];
	struct skas_mem_rw rw;

	fill_header(&rw, sizeof(rw));
	rw.addr = rnd_addr();
	rw.buf = (uintptr_t)rnd_ptr(buf);
	/* Never more than the buffer: a read would overrun it. */
	rw.len = rnd() % 8 || rw.buf == (uintptr_t)buf ?
		 rnd() % sizeof(buf) : rnd_len();
	if (rnd() % 2)
		for (unsigned int i = 0; i < sizeof(buf); i += 8)
			*(uint64_t *)(buf + i) = rnd();
	scrub((unsigned char *)buf, sizeof(buf));
	fz_ioctl(f->g.as, rnd() % 2 ? SKAS_MEM_READ : SKAS_MEM_WRITE,
	      rnd_ptr(&rw));
}

static void fuzz_run(struct fuzz *f)
{
	uint64_t *r = (uint64_t *)&f->g.run->regs;
	unsigned int i, n = sizeof(f->g.run->regs) / 8;

	if (rnd() % 2) {
		/* Keep the guest's registers, perturb a few. */
		for (i = 0; i < 3; i++)
			r[rnd() % n] = rnd() % 2 ? rnd() : rnd_addr();
	} else {
		for (i = 0; i < n; i++)
			r[i] = rnd() % 2 ? rnd_addr() : rnd();
	}
	/* Run only code the fuzzer wrote (scrubbed), not the vDSO's. */
	if (rnd() % 2 || f->g.run->regs.rip - 0x100000 >= 64 * 4096)
		f->g.run->regs.rip = 0x100000 + rnd() % 4096;
	if (f->native && rnd() % 2) {
		/* A syscall of the NATIVE set, random arguments. */
		f->g.run->regs.rip = 0x100000 + rnd() % 4094;
		f->g.run->regs.rax = PICK(native_nrs);
		skas_rw(f->g.as, true, f->g.run->regs.rip, "\x0f\x05", 2);
	}
	struct skas_regs before = f->g.run->regs;
	struct skas_mem_op ops[4];
	struct skas_mem_batch b;
	int ret;

	/* A quarter of the runs apply a random batch first. */
	if (rnd() % 4) {
		ret = fz_ioctl(f->g.thread, SKAS_RUN, 0);
	} else {
		fill_batch(ops, &b);
		ret = fz_ioctl(f->g.thread, SKAS_RUN_MEM, rnd_ptr(&b));
	}
	if (ret == 0) {
		f->runs++;
		if (f->g.run->exit_reason < 5)
			f->events[f->g.run->exit_reason]++;
		if (f->g.run->exit_reason == SKAS_EXIT_EXITED)
			fprintf(stderr, "# guest exited: status %#x, ran at "
				"rip %#llx rsp %#llx eflags %#llx fs %#llx\n",
				f->g.run->exit.exited.status,
				(unsigned long long)before.rip,
				(unsigned long long)before.rsp,
				(unsigned long long)before.eflags,
				(unsigned long long)before.fs_base);
	}
}

static void fuzz_clone(struct fuzz *f)
{
	struct skas_clone c;

	fill_header(&c, sizeof(c));
	if (fz_ioctl(f->g.thread, SKAS_CLONE, rnd_ptr(&c)) == 0) {
		close(c.thread_fd);
		close(c.aspace_fd);
		waitpid(c.host_tid, NULL, 0);
	}
}

static void fuzz_misc(struct fuzz *f)
{
	static const unsigned long cmds[] = {
		SKAS_GET_API_VERSION, SKAS_CHECK_EXTENSION, SKAS_CREATE_ASPACE,
		SKAS_CREATE_THREAD, SKAS_MEM, SKAS_MEM_READ, SKAS_MEM_WRITE,
		SKAS_RESET, SKAS_ATTACH, SKAS_RUN, SKAS_KICK, SKAS_CLONE,
		SKAS_SET_POLICY, SKAS_INSTALL_FD, SKAS_GET_XSTATE,
		SKAS_SET_XSTATE, SKAS_RUN_MEM, SKAS_MARK_FDS,
	};
	int fds[] = { f->g.dev, f->g.as, f->g.thread };
	char buf[64];
	unsigned long cmd = cmds[rnd() % (sizeof(cmds) / sizeof(cmds[0]))];
	int ret, fd = fds[rnd() % 3];

	/* Runs and SKAS_CLONE on the thread are fuzzed on their own. */
	if (fd == f->g.thread && (cmd == SKAS_RUN || cmd == SKAS_RUN_MEM ||
				  cmd == SKAS_CLONE))
		return;
	if (rnd() % 8 == 0)
		cmd = _IOC(rnd() % 4, SKASIO, rnd() % 64, rnd() % 64);
	fill_header(buf, 32);
	ret = fz_ioctl(fd, cmd, rnd() % 4 ? (unsigned long)rnd_ptr(buf) :
		    (unsigned long)rnd());
	if (ret >= 0 && cmd == SKAS_CREATE_ASPACE && fd == f->g.dev)
		close(ret);
	else if (ret >= 0 && cmd == SKAS_CREATE_THREAD && fd == f->g.as)
		close(ret);
}

FIXTURE(fuzz) {
	struct fuzz f;
};

/* Guest #GPs would fill the kernel log with "traps:" lines. */
static void exception_trace(const char *v)
{
	FILE *f = fopen("/proc/sys/debug/exception-trace", "w");

	if (f) {
		fputs(v, f);
		fclose(f);
	}
}

FIXTURE_SETUP(fuzz)
{
	const char *e;

	exception_trace("0");
	e = getenv("SKAS_FUZZ_SEED");
	if (e)
		fuzz_seed = strtoul(e, NULL, 0);
	e = getenv("SKAS_FUZZ_SECONDS");
	if (e)
		fuzz_seconds = strtoul(e, NULL, 0);
	TH_LOG("seed %lu, %u s (SKAS_FUZZ_SEED, SKAS_FUZZ_SECONDS)",
	       fuzz_seed, fuzz_seconds);
	ASSERT_EQ(0, skas_guest_start(&self->f.g));
	ASSERT_EQ(1, skas_map_anon(self->f.g.as, 0x100000, 4096,
				   PROT_READ | PROT_WRITE | PROT_EXEC));
	ASSERT_EQ(0, pthread_create(&self->f.watchdog, NULL, watchdog,
				    &self->f));
}

FIXTURE_TEARDOWN(fuzz)
{
	self->f.stop = 1;
	pthread_join(self->f.watchdog, NULL);
	skas_guest_stop(&self->f.g);
	exception_trace("1");
}

struct fuzzer {
	struct fuzz *f;
	uint64_t seed;
};

/* The fuzzing loop, for fuzz_seconds, with this thread's own rng. */
static void *fuzz_loop(void *arg)
{
	struct fuzzer *z = arg;
	struct fuzz *f = z->f;
	struct timespec t0, t;
	unsigned char code[4096];
	unsigned int i;

	rng = z->seed * 0x9E3779B97F4A7C15ULL + 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		switch (rnd() % 8) {
		case 0:
			fuzz_mem(f);
			break;
		case 1:
			fuzz_rw(f);
			break;
		case 2:
		case 3:
			fuzz_run(f);
			break;
		case 4:
			if (rnd() % 8 == 0)
				fuzz_clone(f);
			else if (rnd() % 2)
				fuzz_xstate(f);
			break;
		case 5:
			/* Fresh random code where guests usually run. */
			for (i = 0; i < sizeof(code); i++)
				code[i] = rnd();
			scrub(code, sizeof(code));
			skas_rw(f->g.as, true, 0x100000, code, sizeof(code));
			break;
		default:
			fuzz_misc(f);
		}
		f->calls++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < (time_t)fuzz_seconds);

	return NULL;
}

static void fuzz_check(struct __test_metadata *_metadata, struct fuzz *f)
{
	unsigned int i;

	TH_LOG("%lu calls, %lu runs: syscall %lu fault %lu exited %lu "
	       "interrupted %lu", f->calls, f->runs, f->events[1],
	       f->events[2], f->events[3], f->events[4]);
	EXPECT_EQ(0UL, insane) TH_LOG("errno %d from cmd %#lx",
				      last_bad_errno, last_bad_cmd);
	/* Nothing the fuzzer did may kill the guest: it only ever traps. */
	EXPECT_EQ(0UL, f->events[3]);
	EXPECT_EQ(0, waitpid(f->g.pid, NULL, WNOHANG));
	/* And it still works. */
	EXPECT_LT(0UL, f->runs);
	ASSERT_EQ(1, skas_map_anon(f->g.as, 0x100000, 4096,
				   PROT_READ | PROT_WRITE | PROT_EXEC));
	ASSERT_EQ(4, skas_rw(f->g.as, true, 0x100000, "\x0f\x05\x0f\x0b",
			     4));
	skas_regs_at(&f->g, 0x100000);
	f->g.run->regs.rax = 39;
	for (i = 0; i < 10; i++) {
		int ret = skas_run(&f->g);

		if (ret != SKAS_EXIT_INTERRUPTED) {
			EXPECT_EQ(SKAS_EXIT_SYSCALL, ret);
			break;
		}
	}
}

TEST_F_TIMEOUT(fuzz, random_ioctls_and_guest_code, 300)
{
	struct fuzzer z = { &self->f, fuzz_seed };

	fuzz_loop(&z);
	fuzz_check(_metadata, &self->f);
}

/* Two runtime threads fuzzing one guest at once: locking, races. */
TEST_F_TIMEOUT(fuzz, two_runtime_threads_at_once, 300)
{
	struct fuzzer z1 = { &self->f, fuzz_seed }, z2 = { &self->f,
							    fuzz_seed + 1000 };
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&th, NULL, fuzz_loop, &z2));
	fuzz_loop(&z1);
	pthread_join(th, NULL);
	fuzz_check(_metadata, &self->f);
}

/* The same with the NATIVE and THREAD tiers on, syscalls made often. */
TEST_F_TIMEOUT(fuzz, native_tier_with_random_arguments, 300)
{
	struct fuzzer z = { &self->f, fuzz_seed + 2000 };
	struct skas_policy p;
	unsigned int i;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	for (i = 0; i < sizeof(native_nrs) / 8; i++) {
		p.nr = native_nrs[i];
		p.action = p.nr == SYS_gettid ? SKAS_POLICY_THREAD :
			   SKAS_POLICY_NATIVE;
		if (p.nr != SYS_restart_syscall)
			ASSERT_EQ(0, ioctl(self->f.g.as, SKAS_SET_POLICY, &p))
				TH_LOG("nr %u", p.nr);
	}
	self->f.g.run->thread_value = 42;
	self->f.native = true;
	fuzz_loop(&z);
	fuzz_check(_metadata, &self->f);
}

TEST_HARNESS_MAIN
