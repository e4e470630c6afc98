// SPDX-License-Identifier: GPL-2.0
/*
 * SKAS_SET_POLICY: syscalls answered in the kernel (CONST, THREAD) without
 * a stop, or run on the host in the guest's context (NATIVE, safe list
 * only), for the 64-bit ABI only; TRAP again on demand; inherited by a
 * fork, kept by SKAS_RESET; NATIVE calls interrupted by a kick restart.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

#define CODE	0x100000UL
#define DATA	0x200000UL

/* mov $NR,%eax; syscall; ud2 (NR patched at byte 1) */
static unsigned char code[] = {
	0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x0f, 0x0b,
};

FIXTURE(guest) {
	struct skas_guest g;
};

FIXTURE_SETUP(guest)
{
	ASSERT_EQ(0, skas_guest_start(&self->g));
	ASSERT_EQ(1, skas_map_anon(self->g.as, CODE, 4096,
				   PROT_READ | PROT_WRITE | PROT_EXEC));
	ASSERT_EQ((long)sizeof(code), skas_rw(self->g.as, true, CODE, code,
					      sizeof(code)));
}

FIXTURE_TEARDOWN(guest)
{
	skas_guest_stop(&self->g);
}

TEST_F(guest, const_answers_without_a_stop)
{
	struct skas_run *run = self->g.run;

	ASSERT_EQ(0, skas_set_policy(self->g.as, 39, SKAS_POLICY_CONST, 4321));
	skas_regs_at(&self->g, CODE);
	/* The syscall returns 4321 in the kernel; the next stop is ud2. */
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGILL, run->exit.fault.signo);
	EXPECT_EQ(4321U, run->regs.rax);
	EXPECT_EQ(CODE + 7, run->regs.rip);
	/* Negative values (errors) too. */
	ASSERT_EQ(0, skas_set_policy(self->g.as, 39, SKAS_POLICY_CONST, -EPERM));
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ((unsigned long long)-EPERM, run->regs.rax);
	/* Back to TRAP. */
	ASSERT_EQ(0, skas_set_policy(self->g.as, 39, SKAS_POLICY_TRAP, 0));
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(39U, run->exit.syscall.nr);
}

/* Other numbers and other ABIs with the same number still trap. */
TEST_F(guest, const_is_per_number_and_64_bit_only)
{
	static const unsigned char int80[] = { 0xcd, 0x80, 0x0f, 0x0b };
	struct skas_run *run = self->g.run;

	ASSERT_EQ(0, skas_set_policy(self->g.as, 39, SKAS_POLICY_CONST, 1));
	ASSERT_EQ(0, skas_set_policy(self->g.as, 1, SKAS_POLICY_CONST, 1));
	skas_regs_at(&self->g, CODE);
	run->regs.rax = 0;	/* patched code sets eax: use the int80 page */
	ASSERT_EQ(4, skas_rw(self->g.as, true, CODE + 0x100, (void *)int80,
			     4));
	skas_regs_at(&self->g, CODE + 0x100);
	run->regs.rax = 1;	/* ia32 exit; 64-bit 1 is CONST */
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ((unsigned)SKAS_ABI_IA32, run->exit.syscall.abi);
	/* x32 getpid: trapped. */
	code[1] = 0x27;
	code[4] = 0x40;	/* eax = 0x40000027 */
	ASSERT_EQ((long)sizeof(code), skas_rw(self->g.as, true, CODE, code,
					      sizeof(code)));
	code[4] = 0;
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ((unsigned)SKAS_ABI_X32, run->exit.syscall.abi);
}

TEST_F(guest, fork_inherits_policy)
{
	struct skas_clone c;
	struct skas_run *crun;

	ASSERT_EQ(0, skas_set_policy(self->g.as, 39, SKAS_POLICY_CONST, 77));
	/* Stop the parent at a trapped syscall to clone it. */
	ASSERT_EQ(0, skas_set_policy(self->g.as, 60, SKAS_POLICY_TRAP, 0));
	static const unsigned char ex[] = { 0xb8, 0x3c, 0, 0, 0, 0x0f, 0x05,
					    0xeb, 0xb7 };
	/* CODE+0x40: exit trap, then jmp back to CODE (getpid; ud2). */
	ASSERT_EQ((long)sizeof(ex), skas_rw(self->g.as, true, CODE + 0x40,
					    (void *)ex, sizeof(ex)));
	skas_regs_at(&self->g, CODE + 0x40);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	ASSERT_EQ(0, ioctl(self->g.thread, SKAS_CLONE, &c));
	crun = skas_map_run(c.thread_fd);
	ASSERT_NE(NULL, crun);
	ASSERT_EQ(0, ioctl(c.thread_fd, SKAS_RUN, 0));
	ASSERT_EQ((unsigned)SKAS_EXIT_FAULT, crun->exit_reason);
	EXPECT_EQ(77U, crun->regs.rax);
	munmap(crun, SKAS_RUN_PAGE_SIZE);
	close(c.thread_fd);
	close(c.aspace_fd);
	waitpid(c.host_tid, NULL, 0);
}

TEST_F(guest, policy_bad_args)
{
	struct skas_policy p;

	EXPECT_EQ(-EINVAL, skas_set_policy(self->g.as, SKAS_POLICY_NR,
				      SKAS_POLICY_CONST, 0));
	EXPECT_EQ(-EINVAL, skas_set_policy(self->g.as, ~0U, SKAS_POLICY_CONST, 0));
	EXPECT_EQ(-EINVAL, skas_set_policy(self->g.as, 39, 4, 0));
	EXPECT_EQ(-EINVAL, skas_set_policy(self->g.as, 39, ~0U, 0));
	EXPECT_EQ(-EINVAL, skas_set_policy(self->g.as, 39, SKAS_POLICY_TRAP, 5));
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.nr = 39;
	p.reserved[1] = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_SET_POLICY, &p));
	EXPECT_EQ(EINVAL, errno);
	p.reserved[1] = 0;
	p.flags = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_SET_POLICY, &p));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_SET_POLICY, SKAS_BAD_PTR));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.thread, SKAS_SET_POLICY, &p));
	EXPECT_EQ(ENOTTY, errno);
}


TEST(native_capability)
{
	int dev = skas_open_dev();

	ASSERT_LE(0, dev);
	EXPECT_LT(0, ioctl(dev, SKAS_CHECK_EXTENSION, SKAS_CAP_POLICY_NATIVE));
	close(dev);
}

/*
 * CODE + 0x00: syscall; ud2
 * CODE + 0x10: syscall; ud2
 * CODE + 0x20: mov $228,%eax; syscall; jmp CODE + 0x20
 * CODE + 0x30: jmp CODE
 */
#define PC_SC	(CODE + 0x00)
#define PC_SC2	(CODE + 0x10)
#define PC_LOOP	(CODE + 0x20)
#define PC_JMP	(CODE + 0x30)

static const unsigned char sc_ud2[] = { 0x0f, 0x05, 0x0f, 0x0b };
static const unsigned char loop228[] = {
	0xb8, 0xe4, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7,
};
static const unsigned char jmp_sc[] = { 0xeb, 0xce };

/* Map and fill CODE and DATA; 0 or a failed step. */
static int map_code(int as)
{
	if (skas_map_anon(as, CODE, 4096, PROT_READ | PROT_EXEC) != 1)
		return 1;
	if (skas_map_anon(as, DATA, 4096, PROT_READ | PROT_WRITE) != 1)
		return 2;
	if (skas_rw(as, true, PC_SC, (void *)sc_ud2, 4) != 4 ||
	    skas_rw(as, true, PC_SC2, (void *)sc_ud2, 4) != 4 ||
	    skas_rw(as, true, PC_LOOP, (void *)loop228, sizeof(loop228)) !=
	    sizeof(loop228) ||
	    skas_rw(as, true, PC_JMP, (void *)jmp_sc, 2) != 2)
		return 3;
	return 0;
}

/* Point a thread at @rip with syscall @nr and its first four arguments. */
static void set_call(struct skas_run *run, unsigned long rip, long nr,
		     unsigned long a0, unsigned long a1, unsigned long a2,
		     unsigned long a3)
{
	skas_set_call(run, rip, DATA + 4096, nr, a0, a1, a2, a3);
}

static int run_fd(int thread, struct skas_run *run)
{
	if (ioctl(thread, SKAS_RUN, 0))
		return -errno;
	return run->exit_reason;
}

/* Run one syscall at @rip in @thread; the exit reason or -errno. */
static int call_t(int thread, struct skas_run *run, unsigned long rip,
		  long nr, unsigned long a0, unsigned long a1,
		  unsigned long a2, unsigned long a3)
{
	set_call(run, rip, nr, a0, a1, a2, a3);
	return run_fd(thread, run);
}

/* A NATIVE or answered call ends at the ud2 after it, with rax set. */
#define ASSERT_RAN(r_, pc_) do {					\
	ASSERT_EQ((unsigned)SKAS_EXIT_FAULT, (r_)->exit_reason);	\
	ASSERT_EQ(SIGILL, (int)(r_)->exit.fault.signo);		\
	ASSERT_EQ((pc_) + 2, (r_)->regs.rip);				\
} while (0)

static long long ns_of(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ns_of(&ts);
}

/* SKAS_RUN in a runtime pthread, so that the main thread can kick. */
struct bg_run {
	int thread;
	struct skas_run *run;
	int ret;
	int done;
	pthread_t th;
};

static void *bg_fn(void *p)
{
	struct bg_run *b = p;

	b->ret = run_fd(b->thread, b->run);
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int bg_start(struct bg_run *b, int thread, struct skas_run *run)
{
	b->thread = thread;
	b->run = run;
	b->ret = 0;
	b->done = 0;
	return pthread_create(&b->th, NULL, bg_fn, b);
}

static bool bg_done(struct bg_run *b)
{
	return __atomic_load_n(&b->done, __ATOMIC_ACQUIRE);
}

static int bg_join(struct bg_run *b)
{
	pthread_join(b->th, NULL);
	return b->ret;
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int clone_thread(int thread, struct skas_clone *c, bool thr)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->flags = thr ? SKAS_CLONE_THREAD : 0;
	return ioctl(thread, SKAS_CLONE, c) ? -errno : 0;
}

FIXTURE(native) {
	struct skas_guest g;
};

FIXTURE_SETUP(native)
{
	ASSERT_EQ(0, skas_guest_start(&self->g));
	ASSERT_EQ(0, map_code(self->g.as));
}

FIXTURE_TEARDOWN(native)
{
	skas_guest_stop(&self->g);
}

/* Run a syscall in the fixture's first thread. */
#define CALL(rip, nr, a0, a1, a2, a3) \
	call_t(self->g.thread, self->g.run, rip, nr, a0, a1, a2, a3)

TEST_F(native, thread_answers_each_threads_own_value)
{
	struct skas_run *run = self->g.run, *crun;
	struct skas_clone c;

	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_gettid, SKAS_POLICY_THREAD,
				0));
	run->thread_value = 1234;
	CALL(PC_SC, SYS_gettid, 0, 0, 0, 0);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ(1234U, run->regs.rax);
	/* Changed while stopped: the next call sees it. */
	run->thread_value = -5;
	CALL(PC_SC, SYS_gettid, 0, 0, 0, 0);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ((unsigned long long)-5, run->regs.rax);

	/* A thread clone starts at 0 and has its own value. */
	run->thread_value = 1234;
	ASSERT_EQ(0, clone_thread(self->g.thread, &c, true));
	crun = skas_map_run(c.thread_fd);
	ASSERT_NE(NULL, crun);
	EXPECT_EQ(0, crun->thread_value);
	call_t(c.thread_fd, crun, PC_SC, SYS_gettid, 0, 0, 0, 0);
	ASSERT_RAN(crun, PC_SC);
	EXPECT_EQ(0U, crun->regs.rax);
	crun->thread_value = 7;
	call_t(c.thread_fd, crun, PC_SC, SYS_gettid, 0, 0, 0, 0);
	ASSERT_RAN(crun, PC_SC);
	EXPECT_EQ(7U, crun->regs.rax);
	CALL(PC_SC, SYS_gettid, 0, 0, 0, 0);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ(1234U, run->regs.rax);
	munmap(crun, SKAS_RUN_PAGE_SIZE);
	close(c.thread_fd);

	/* So does a fork child, whose aspace inherits THREAD. */
	ASSERT_EQ(0, clone_thread(self->g.thread, &c, false));
	crun = skas_map_run(c.thread_fd);
	ASSERT_NE(NULL, crun);
	call_t(c.thread_fd, crun, PC_SC, SYS_gettid, 0, 0, 0, 0);
	ASSERT_RAN(crun, PC_SC);
	EXPECT_EQ(0U, crun->regs.rax);
	crun->thread_value = 99;
	call_t(c.thread_fd, crun, PC_SC, SYS_gettid, 0, 0, 0, 0);
	ASSERT_RAN(crun, PC_SC);
	EXPECT_EQ(99U, crun->regs.rax);
	munmap(crun, SKAS_RUN_PAGE_SIZE);
	close(c.thread_fd);
	close(c.aspace_fd);
	waitpid(c.host_tid, NULL, 0);
}

TEST_F(native, clock_gettime_runs_on_the_host)
{
	struct skas_run *run = self->g.run;
	struct timespec ts = { 0, 0 };
	long long before, after;

	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_clock_gettime,
				SKAS_POLICY_NATIVE, 0));
	before = now_ns();
	CALL(PC_SC, SYS_clock_gettime, CLOCK_MONOTONIC, DATA, 0, 0);
	after = now_ns();
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ(0U, run->regs.rax);
	ASSERT_EQ((long)sizeof(ts), skas_rw(self->g.as, false, DATA, &ts,
					    sizeof(ts)));
	EXPECT_LE(before, ns_of(&ts));
	EXPECT_GE(after, ns_of(&ts));
	/* A CPU clock of some host pid or a clock fd: trapped. */
	ASSERT_EQ(SKAS_EXIT_SYSCALL,
		  CALL(PC_SC, SYS_clock_gettime, (unsigned int)-6, DATA,
		       0, 0));
	EXPECT_EQ((unsigned)SYS_clock_gettime, run->exit.syscall.nr);
	/* The host's errors, in the guest: an unknown clock, a bad pointer. */
	CALL(PC_SC, SYS_clock_gettime, 12345, DATA, 0, 0);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ((unsigned long long)-EINVAL, run->regs.rax);
	CALL(PC_SC, SYS_clock_gettime, CLOCK_MONOTONIC, 0x1000, 0, 0);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ((unsigned long long)-EFAULT, run->regs.rax);
	/* TRAP again. */
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_clock_gettime,
				SKAS_POLICY_TRAP, 0));
	ASSERT_EQ(SKAS_EXIT_SYSCALL,
		  CALL(PC_SC, SYS_clock_gettime, CLOCK_MONOTONIC, DATA,
		       0, 0));
}

TEST_F(native, getrandom_fills_guest_memory)
{
	struct skas_run *run = self->g.run;
	unsigned char buf[64];
	unsigned int i, nonzero = 0;

	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(64, skas_rw(self->g.as, true, DATA, buf, 64));
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_getrandom,
				SKAS_POLICY_NATIVE, 0));
	CALL(PC_SC, SYS_getrandom, DATA, 64, 0, 0);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ(64U, run->regs.rax);
	ASSERT_EQ(64, skas_rw(self->g.as, false, DATA, buf, 64));
	for (i = 0; i < 64; i++)
		nonzero += buf[i] != 0;
	EXPECT_LT(32U, nonzero);
}

/* The PI commands look up host tasks by tid: trapped even if NATIVE. */
TEST_F(native, futex_pi_commands_trap)
{
	struct skas_run *run = self->g.run;
	static const int pi[] = {
		FUTEX_LOCK_PI, FUTEX_UNLOCK_PI, FUTEX_TRYLOCK_PI,
		FUTEX_WAIT_REQUEUE_PI, FUTEX_CMP_REQUEUE_PI, 13 /* LOCK_PI2 */,
	};
	unsigned int i;

	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_futex, SKAS_POLICY_NATIVE,
				0));
	for (i = 0; i < sizeof(pi) / sizeof(pi[0]); i++) {
		ASSERT_EQ(SKAS_EXIT_SYSCALL,
			  CALL(PC_SC, SYS_futex, DATA,
			       pi[i] | FUTEX_PRIVATE_FLAG, 0, 0));
		EXPECT_EQ((unsigned)SYS_futex, run->exit.syscall.nr);
	}
	/* A non-PI one runs: nobody to wake. */
	CALL(PC_SC, SYS_futex, DATA, FUTEX_WAKE_PRIVATE, 1, 0);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ(0U, run->regs.rax);
}

TEST_F(native, futex_wait_times_out)
{
	struct skas_run *run = self->g.run;
	struct timespec to = { 0, 100 * 1000000L };
	uint32_t word = 0;
	long long t0;

	ASSERT_EQ(4, skas_rw(self->g.as, true, DATA, &word, 4));
	ASSERT_EQ((long)sizeof(to), skas_rw(self->g.as, true, DATA + 64, &to,
					    sizeof(to)));
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_futex, SKAS_POLICY_NATIVE,
				0));
	t0 = now_ns();
	CALL(PC_SC, SYS_futex, DATA, FUTEX_WAIT_PRIVATE, 0, DATA + 64);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ((unsigned long long)-ETIMEDOUT, run->regs.rax);
	EXPECT_LE(90 * 1000000LL, now_ns() - t0);
	/* Another value in the word: -EAGAIN at once. */
	CALL(PC_SC, SYS_futex, DATA, FUTEX_WAIT_PRIVATE, 1, DATA + 64);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ((unsigned long long)-EAGAIN, run->regs.rax);
}

/* Two guest threads of one aspace, two runtime threads: wait and wake. */
TEST_F(native, futex_wakes_another_guest_thread)
{
	struct skas_run *run = self->g.run, *crun;
	struct skas_clone c;
	struct bg_run b;
	int i;

	ASSERT_EQ(SKAS_EXIT_SYSCALL, CALL(PC_SC, SYS_getpid, 0, 0, 0,
					   0));
	ASSERT_EQ(0, clone_thread(self->g.thread, &c, true));
	crun = skas_map_run(c.thread_fd);
	ASSERT_NE(NULL, crun);
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_futex, SKAS_POLICY_NATIVE,
				0));
	set_call(run, PC_SC, SYS_futex, DATA, FUTEX_WAIT_PRIVATE, 0, 0);
	ASSERT_EQ(0, bg_start(&b, self->g.thread, run));
	/* Wake until the waiter was there to be woken. */
	for (i = 0; i < 100; i++) {
		msleep(50);
		call_t(c.thread_fd, crun, PC_SC2, SYS_futex, DATA,
		       FUTEX_WAKE_PRIVATE, 1, 0);
		ASSERT_RAN(crun, PC_SC2);
		if (crun->regs.rax == 1)
			break;
		ASSERT_EQ(0U, crun->regs.rax);
		ASSERT_FALSE(bg_done(&b));
	}
	EXPECT_EQ(1U, crun->regs.rax);
	bg_join(&b);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ(0U, run->regs.rax);
	munmap(crun, SKAS_RUN_PAGE_SIZE);
	close(c.thread_fd);
}

/* A blocking NATIVE call in a runtime thread; kicked after a while. */
static void start_blocked(struct __test_metadata *_metadata,
			  struct skas_guest *g, struct bg_run *b)
{
	ASSERT_EQ(0, bg_start(b, g->thread, g->run));
	msleep(200);
	ASSERT_FALSE(bg_done(b));
}

static void kick_and_join(struct __test_metadata *_metadata,
			  struct skas_guest *g, struct bg_run *b)
{
	ASSERT_EQ(0, ioctl(g->thread, SKAS_KICK, 0));
	ASSERT_EQ(SKAS_EXIT_INTERRUPTED, bg_join(b));
}

TEST_F(native, kick_interrupts_futex_wait_and_resume_restarts_it)
{
	struct skas_run *run = self->g.run;
	struct bg_run b;
	uint32_t word = 1;

	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_futex, SKAS_POLICY_NATIVE,
				0));
	set_call(run, PC_SC, SYS_futex, DATA, FUTEX_WAIT_PRIVATE, 0, 0);
	start_blocked(_metadata, &self->g, &b);
	kick_and_join(_metadata, &self->g, &b);
	/* As the kernel's restart leaves it: at the syscall, rax = nr. */
	EXPECT_EQ(PC_SC, run->regs.rip);
	EXPECT_EQ((unsigned)SYS_futex, run->regs.rax);
	EXPECT_EQ(DATA, run->regs.rdi);
	/* Resumed unchanged, it waits again. */
	start_blocked(_metadata, &self->g, &b);
	kick_and_join(_metadata, &self->g, &b);
	EXPECT_EQ(PC_SC, run->regs.rip);
	EXPECT_EQ((unsigned)SYS_futex, run->regs.rax);
	/* The word changed meanwhile: the restarted wait returns -EAGAIN. */
	ASSERT_EQ(4, skas_rw(self->g.as, true, DATA, &word, 4));
	ASSERT_EQ(SKAS_EXIT_FAULT, run_fd(self->g.thread, run));
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ((unsigned long long)-EAGAIN, run->regs.rax);
}

TEST_F(native, kick_interrupts_nanosleep_and_restart_syscall_goes_on)
{
	struct skas_run *run = self->g.run;
	struct timespec ts = { 0, 700 * 1000000L };
	struct bg_run b;
	long long t0;

	ASSERT_EQ((long)sizeof(ts), skas_rw(self->g.as, true, DATA, &ts,
					    sizeof(ts)));
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_nanosleep, SKAS_POLICY_NATIVE,
				0));
	t0 = now_ns();
	set_call(run, PC_SC, SYS_nanosleep, DATA, 0, 0, 0);
	start_blocked(_metadata, &self->g, &b);
	kick_and_join(_metadata, &self->g, &b);
	EXPECT_EQ(PC_SC, run->regs.rip);
	EXPECT_EQ((unsigned)SYS_restart_syscall, run->regs.rax);
	/* Resumed unchanged: restart_syscall runs natively, sleeps on. */
	ASSERT_EQ(SKAS_EXIT_FAULT, run_fd(self->g.thread, run));
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ(0U, run->regs.rax);
	EXPECT_LE(650 * 1000000LL, now_ns() - t0);
}

TEST_F(native, restart_syscall_runs_only_where_it_was_interrupted)
{
	struct skas_run *run = self->g.run;
	struct timespec ts = { 10, 0 };
	struct bg_run b;

	/* Never set up by a NATIVE call: trapped. */
	ASSERT_EQ(SKAS_EXIT_SYSCALL, CALL(PC_SC, SYS_restart_syscall,
					   0, 0, 0, 0));
	EXPECT_EQ((unsigned)SYS_restart_syscall, run->exit.syscall.nr);
	ASSERT_EQ(-EPERM, skas_set_policy(self->g.as, SYS_restart_syscall,
				     SKAS_POLICY_NATIVE, 0));

	ASSERT_EQ((long)sizeof(ts), skas_rw(self->g.as, true, DATA, &ts,
					    sizeof(ts)));
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_nanosleep, SKAS_POLICY_NATIVE,
				0));
	/* Resumed elsewhere: trapped. */
	set_call(run, PC_SC, SYS_nanosleep, DATA, 0, 0, 0);
	start_blocked(_metadata, &self->g, &b);
	kick_and_join(_metadata, &self->g, &b);
	ASSERT_EQ((unsigned)SYS_restart_syscall, run->regs.rax);
	run->regs.rip = PC_SC2;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, run_fd(self->g.thread, run));
	EXPECT_EQ((unsigned)SYS_restart_syscall, run->exit.syscall.nr);

	/* Resumed elsewhere, even if the guest then jumps back: trapped. */
	set_call(run, PC_SC, SYS_nanosleep, DATA, 0, 0, 0);
	start_blocked(_metadata, &self->g, &b);
	kick_and_join(_metadata, &self->g, &b);
	ASSERT_EQ((unsigned)SYS_restart_syscall, run->regs.rax);
	run->regs.rip = PC_JMP;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, run_fd(self->g.thread, run));
	EXPECT_EQ((unsigned)SYS_restart_syscall, run->exit.syscall.nr);
	EXPECT_EQ(PC_SC + 2, run->regs.rip);

	/* Another syscall first: the chance is gone. */
	set_call(run, PC_SC, SYS_nanosleep, DATA, 0, 0, 0);
	start_blocked(_metadata, &self->g, &b);
	kick_and_join(_metadata, &self->g, &b);
	ASSERT_EQ((unsigned)SYS_restart_syscall, run->regs.rax);
	run->regs.rax = SYS_getpid;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, run_fd(self->g.thread, run));
	EXPECT_EQ((unsigned)SYS_getpid, run->exit.syscall.nr);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, CALL(PC_SC, SYS_restart_syscall,
					   0, 0, 0, 0));
	EXPECT_EQ((unsigned)SYS_restart_syscall, run->exit.syscall.nr);

	/* Unchanged: it sleeps on (until the next kick). */
	set_call(run, PC_SC, SYS_nanosleep, DATA, 0, 0, 0);
	start_blocked(_metadata, &self->g, &b);
	kick_and_join(_metadata, &self->g, &b);
	start_blocked(_metadata, &self->g, &b);
	kick_and_join(_metadata, &self->g, &b);
	EXPECT_EQ(PC_SC, run->regs.rip);
	EXPECT_EQ((unsigned)SYS_restart_syscall, run->regs.rax);
}

TEST_F(native, kick_interrupts_read_on_a_pipe)
{
	struct skas_run *run = self->g.run;
	char buf[8] = "";
	struct bg_run b;
	int p[2];

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, skas_install_fd(self->g.as, p[0], 3, 0));
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_read, SKAS_POLICY_NATIVE, 0));
	set_call(run, PC_SC, SYS_read, 3, DATA, sizeof(buf), 0);
	start_blocked(_metadata, &self->g, &b);
	kick_and_join(_metadata, &self->g, &b);
	EXPECT_EQ(PC_SC, run->regs.rip);
	EXPECT_EQ((unsigned)SYS_read, run->regs.rax);
	/* Resumed with data there: the read gets it. */
	ASSERT_EQ(2, write(p[1], "hi", 2));
	ASSERT_EQ(SKAS_EXIT_FAULT, run_fd(self->g.thread, run));
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ(2U, run->regs.rax);
	ASSERT_EQ(2, skas_rw(self->g.as, false, DATA, buf, 2));
	EXPECT_EQ(0, memcmp(buf, "hi", 2));
	close(p[0]);
	close(p[1]);
}

static void on_sigusr1(int sig)
{
}

/* A signal to the runtime thread in SKAS_RUN ends a NATIVE wait too. */
TEST_F(native, runtime_signal_interrupts_a_native_wait)
{
	struct skas_run *run = self->g.run;
	struct sigaction sa;
	struct bg_run b;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_futex, SKAS_POLICY_NATIVE,
				0));
	set_call(run, PC_SC, SYS_futex, DATA, FUTEX_WAIT_PRIVATE, 0, 0);
	start_blocked(_metadata, &self->g, &b);
	ASSERT_EQ(0, pthread_kill(b.th, SIGUSR1));
	ASSERT_EQ(SKAS_EXIT_INTERRUPTED, bg_join(&b));
	EXPECT_EQ(PC_SC, run->regs.rip);
	EXPECT_EQ((unsigned)SYS_futex, run->regs.rax);
}

static void wait_forever(struct __test_metadata *_metadata,
			 struct skas_guest *g, struct bg_run *b)
{
	ASSERT_EQ(0, skas_set_policy(g->as, SYS_futex, SKAS_POLICY_NATIVE, 0));
	set_call(g->run, PC_SC, SYS_futex, DATA, FUTEX_WAIT_PRIVATE, 0,
		 0);
	start_blocked(_metadata, g, b);
}

TEST_F(native, sigkill_ends_a_native_wait)
{
	struct bg_run b;

	wait_forever(_metadata, &self->g, &b);
	ASSERT_EQ(0, kill(self->g.pid, SIGKILL));
	ASSERT_EQ(SKAS_EXIT_EXITED, bg_join(&b));
	EXPECT_TRUE(WIFSIGNALED(self->g.run->exit.exited.status));
	EXPECT_EQ(SIGKILL, WTERMSIG(self->g.run->exit.exited.status));
}

TEST_F(native, aspace_close_ends_a_native_wait)
{
	struct bg_run b;

	wait_forever(_metadata, &self->g, &b);
	close(self->g.as);
	self->g.as = -1;
	ASSERT_EQ(SKAS_EXIT_EXITED, bg_join(&b));
	EXPECT_TRUE(WIFSIGNALED(self->g.run->exit.exited.status));
}

TEST_F(native, forbidden_calls_are_eperm)
{
	static const unsigned int never[] = {
		SYS_execve, SYS_execveat, SYS_ptrace, SYS_process_vm_readv,
		SYS_process_vm_writev, SYS_kill, SYS_tkill, SYS_tgkill,
		SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo,
		SYS_pidfd_send_signal, SYS_ioctl, SYS_fcntl, SYS_prctl,
		SYS_arch_prctl, SYS_mount, SYS_umount2, SYS_unshare, SYS_setns,
		SYS_bpf, SYS_io_uring_setup, SYS_io_uring_enter,
		SYS_io_uring_register, SYS_userfaultfd, SYS_init_module,
		SYS_finit_module, SYS_delete_module, SYS_clone, SYS_clone3,
		SYS_fork, SYS_vfork, SYS_exit, SYS_exit_group,
		SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_rt_sigreturn,
		SYS_rt_sigsuspend, SYS_sigaltstack, SYS_getpid, SYS_gettid,
		SYS_getppid, SYS_getuid, SYS_mmap, SYS_munmap, SYS_mprotect,
		SYS_madvise, SYS_mremap, SYS_brk, SYS_restart_syscall,
		SYS_open, SYS_openat, SYS_close, SYS_dup, SYS_socket,
		SYS_preadv2, SYS_pwritev2, SYS_pidfd_open, SYS_pidfd_getfd,
		SYS_seccomp, SYS_set_tid_address, SYS_set_robust_list,
		SYS_rseq, SYS_sched_setaffinity, SYS_kexec_load,
		SYS_pivot_root, SYS_chroot, SYS_open_tree, SYS_move_mount,
		SYS_fsopen, SYS_fsmount, SYS_mount_setattr, SYS_rt_sigpending,
		SYS_rt_sigtimedwait, SYS_signalfd, SYS_signalfd4, SYS_geteuid,
		SYS_getgid, SYS_getegid, SYS_getpgid, SYS_getpgrp, SYS_getsid,
		SYS_setuid, SYS_setsid, SYS_kexec_file_load, SYS_poll,
		SYS_select, SYS_epoll_wait, SYS_wait4, SYS_waitid,
	};
	static const unsigned int safe[] = {
		SYS_futex, SYS_futex_waitv, SYS_clock_gettime,
		SYS_clock_getres, SYS_gettimeofday, SYS_time, SYS_nanosleep,
		SYS_clock_nanosleep, SYS_sched_yield, SYS_getrandom,
		SYS_getcpu, SYS_read, SYS_write, SYS_pread64, SYS_pwrite64,
		SYS_readv, SYS_writev, SYS_preadv, SYS_pwritev, SYS_lseek,
		SYS_fstat, SYS_newfstatat,
	};
	unsigned int i, nr, n_safe = 0;

	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		EXPECT_EQ(-EPERM, skas_set_policy(self->g.as, never[i],
					     SKAS_POLICY_NATIVE, 0))
			TH_LOG("nr %u", never[i]);
	for (i = 0; i < sizeof(safe) / sizeof(safe[0]); i++)
		EXPECT_EQ(0, skas_set_policy(self->g.as, safe[i],
					SKAS_POLICY_NATIVE, 0))
			TH_LOG("nr %u", safe[i]);
	/* And nothing else. */
	for (nr = 0; nr < SKAS_POLICY_NR; nr++)
		n_safe += !skas_set_policy(self->g.as, nr, SKAS_POLICY_NATIVE, 0);
	EXPECT_EQ(sizeof(safe) / sizeof(safe[0]), n_safe);
}

TEST_F(native, bad_values_are_einval)
{
	EXPECT_EQ(-EINVAL, skas_set_policy(self->g.as, SYS_clock_gettime,
				      SKAS_POLICY_NATIVE, 1));
	EXPECT_EQ(-EINVAL, skas_set_policy(self->g.as, SYS_getpid,
				      SKAS_POLICY_NATIVE, -1));
	EXPECT_EQ(-EINVAL, skas_set_policy(self->g.as, SYS_gettid,
				      SKAS_POLICY_THREAD, 1));
	EXPECT_EQ(-EINVAL, skas_set_policy(self->g.as, SKAS_POLICY_NR,
				      SKAS_POLICY_NATIVE, 0));
	EXPECT_EQ(-EINVAL, skas_set_policy(self->g.as, SKAS_POLICY_NR,
				      SKAS_POLICY_THREAD, 0));
	EXPECT_EQ(-EINVAL, skas_set_policy(self->g.as, SYS_read, 4, 0));
	EXPECT_EQ(-EINVAL, skas_set_policy(self->g.as, SYS_read, 0x102, 0));
}

TEST_F(native, policy_survives_reset)
{
	struct skas_run *run = self->g.run;

	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_getpid, SKAS_POLICY_CONST,
				55));
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_gettid, SKAS_POLICY_THREAD,
				0));
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_getrandom,
				SKAS_POLICY_NATIVE, 0));
	run->thread_value = 9;
	ASSERT_EQ(0, ioctl(self->g.as, SKAS_RESET, 0));
	ASSERT_EQ(0, map_code(self->g.as));
	EXPECT_EQ(9, run->thread_value);
	CALL(PC_SC, SYS_getpid, 0, 0, 0, 0);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ(55U, run->regs.rax);
	CALL(PC_SC, SYS_gettid, 0, 0, 0, 0);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ(9U, run->regs.rax);
	CALL(PC_SC, SYS_getrandom, DATA, 16, 0, 0);
	ASSERT_RAN(run, PC_SC);
	EXPECT_EQ(16U, run->regs.rax);
}

TEST_F(native, fork_inherits_native_and_thread)
{
	struct skas_run *crun;
	struct skas_clone c;
	uint64_t v = 0;

	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_gettid, SKAS_POLICY_THREAD,
				0));
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_getrandom,
				SKAS_POLICY_NATIVE, 0));
	self->g.run->thread_value = 5;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, CALL(PC_SC, SYS_getpid, 0, 0, 0,
					   0));
	ASSERT_EQ(0, clone_thread(self->g.thread, &c, false));
	crun = skas_map_run(c.thread_fd);
	ASSERT_NE(NULL, crun);
	call_t(c.thread_fd, crun, PC_SC, SYS_getrandom, DATA, 8, 0, 0);
	ASSERT_RAN(crun, PC_SC);
	EXPECT_EQ(8U, crun->regs.rax);
	/* Into the child's copy of the memory, not the parent's. */
	ASSERT_EQ(8, skas_rw(c.aspace_fd, false, DATA, &v, 8));
	EXPECT_NE(0U, v);
	ASSERT_EQ(8, skas_rw(self->g.as, false, DATA, &v, 8));
	EXPECT_EQ(0U, v);
	call_t(c.thread_fd, crun, PC_SC, SYS_gettid, 0, 0, 0, 0);
	ASSERT_RAN(crun, PC_SC);
	EXPECT_EQ(0U, crun->regs.rax);
	munmap(crun, SKAS_RUN_PAGE_SIZE);
	close(c.thread_fd);
	close(c.aspace_fd);
	waitpid(c.host_tid, NULL, 0);
}

/*
 * A guest can't set its policy: its aspace fd can't be installed in it
 * (EINVAL), and ioctl is never NATIVE.
 */
TEST_F(native, guest_cannot_widen_its_policy)
{
	struct skas_run *run = self->g.run;
	struct skas_policy p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.nr = SYS_getpid;
	p.action = SKAS_POLICY_CONST;
	ASSERT_EQ((long)sizeof(p), skas_rw(self->g.as, true, DATA, &p,
					   sizeof(p)));
	ASSERT_EQ(-EINVAL, skas_install_fd(self->g.as, self->g.as, 5, 0));
	ASSERT_EQ(SKAS_EXIT_SYSCALL, CALL(PC_SC, SYS_ioctl, 5,
					   SKAS_SET_POLICY, DATA, 0));
	EXPECT_EQ((unsigned)SYS_ioctl, run->exit.syscall.nr);
	ASSERT_EQ(-EPERM, skas_set_policy(self->g.as, SYS_ioctl,
				     SKAS_POLICY_NATIVE, 0));
	/* getpid still traps: the guest's ioctl never ran. */
	ASSERT_EQ(SKAS_EXIT_SYSCALL, CALL(PC_SC, SYS_getpid, 0, 0, 0,
					   0));
}

struct flipper {
	int as;
	int stop;
	int errors;
	unsigned long flips;
};

static void *flip_fn(void *arg)
{
	static const unsigned int actions[] = {
		SKAS_POLICY_TRAP, SKAS_POLICY_CONST, SKAS_POLICY_NATIVE,
		SKAS_POLICY_THREAD,
	};
	struct flipper *f = arg;
	unsigned int a;

	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		a = actions[__atomic_load_n(&f->flips, __ATOMIC_RELAXED) % 4];
		if (skas_set_policy(f->as, SYS_clock_gettime, a, 0))
			f->errors++;
		__atomic_fetch_add(&f->flips, 1, __ATOMIC_RELEASE);
		usleep(500);	/* long enough for the guest to loop a while */
	}
	return NULL;
}

/*
 * The guest loops on clock_gettime while a runtime thread flips its policy
 * through TRAP, CONST, NATIVE and THREAD, 0.5 ms each: every stop must be
 * that call trapped.  It goes on until 40 flips (10 rounds) are done and a
 * NATIVE call has written the time into guest memory, or 60 s.  Counted in
 * flips and seen effects, not in stops: on a loaded host a starved thread
 * made a fixed count of stops see too few flips or no NATIVE call.
 */
#define FLIPS		40
#define FLIP_SECS	60

TEST_F(native, policy_flips_while_the_guest_loops)
{
	struct skas_run *run = self->g.run;
	struct flipper f = { .as = self->g.as };
	struct timespec ts = { 0, 0 };
	time_t end = time(NULL) + FLIP_SECS;
	bool native_ran = false;
	unsigned long flips;
	pthread_t th;
	int i, ret = SKAS_EXIT_SYSCALL;

	set_call(run, PC_LOOP, SYS_clock_gettime, CLOCK_MONOTONIC, DATA, 0, 0);
	ASSERT_EQ(0, pthread_create(&th, NULL, flip_fn, &f));
	for (i = 0; (__atomic_load_n(&f.flips, __ATOMIC_ACQUIRE) < FLIPS ||
		     !native_ran) && time(NULL) < end; i++) {
		ret = run_fd(self->g.thread, run);
		if (ret != SKAS_EXIT_SYSCALL ||
		    run->exit.syscall.nr != SYS_clock_gettime)
			break;
		run->regs.rax = 0;
		/* Only a NATIVE call writes the guest's timespec. */
		if (!native_ran &&
		    skas_rw(self->g.as, false, DATA, &ts, sizeof(ts)) ==
		    (long)sizeof(ts))
			native_ran = ts.tv_sec + ts.tv_nsec != 0;
	}
	__atomic_store_n(&f.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	flips = __atomic_load_n(&f.flips, __ATOMIC_ACQUIRE);
	EXPECT_EQ(SKAS_EXIT_SYSCALL, ret);
	EXPECT_EQ((unsigned)SYS_clock_gettime, run->exit.syscall.nr)
		TH_LOG("exit %d after %d stops", ret, i);
	EXPECT_EQ(0, f.errors);
	EXPECT_LE((unsigned long)FLIPS, flips)
		TH_LOG("%lu flips in %d s, %d stops", flips, FLIP_SECS, i);
	EXPECT_TRUE(native_ran) TH_LOG("no NATIVE call in %lu flips", flips);
}

TEST_HARNESS_MAIN
