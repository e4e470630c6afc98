// SPDX-License-Identifier: GPL-2.0
/*
 * Outside signals (SKAS_CAP_SIGNAL_INTERRUPT): a signal sent to a guest
 * task from outside, or raised by one of its NATIVE syscalls, neither kills
 * nor stops it: the run reports SKAS_EXIT_INTERRUPTED and the guest goes on
 * where it was.  Only SIGKILL and the guest's own faults keep their
 * meaning.  The stubs here block nothing themselves: the module does.
 * A seccomp filter's SECCOMP_RET_TRAP is a fault too (SKAS_CAP_SIGSYS):
 * libuml's stubs trap the legacy vsyscall page that way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

#define CODE	0x100000UL
#define DATA	0x200000UL
#define PC_LOOP	CODE		/* 1: mov $39,%eax; syscall; jmp 1b */
#define PC_SPIN	(CODE + 0x20)	/* jmp . */
#define PC_SEGV	(CODE + 0x40)	/* mov 0,%eax (a real SIGSEGV) */
#define PC_SC	(CODE + 0x60)	/* syscall; ud2 */

static const unsigned char loop39[] = {
	0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7,
};
static const unsigned char spin[] = { 0xeb, 0xfe };
static const unsigned char segv[] = { 0x8b, 0x04, 0x25, 0, 0, 0, 0 };
static const unsigned char sc_ud2[] = { 0x0f, 0x05, 0x0f, 0x0b };

static int map_code(int as)
{
	if (skas_map_anon(as, CODE, 4096, PROT_READ | PROT_EXEC) != 1)
		return 1;
	if (skas_map_anon(as, DATA, 4096, PROT_READ | PROT_WRITE) != 1)
		return 2;
	if (skas_rw(as, true, PC_LOOP, (void *)loop39, sizeof(loop39)) !=
	    sizeof(loop39) ||
	    skas_rw(as, true, PC_SPIN, (void *)spin, 2) != 2 ||
	    skas_rw(as, true, PC_SEGV, (void *)segv, sizeof(segv)) !=
	    sizeof(segv) ||
	    skas_rw(as, true, PC_SC, (void *)sc_ud2, 4) != 4)
		return 3;
	return 0;
}

/* The state letter of /proc/PID/stat, or '?'. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* The SigBlk mask of /proc/PID/status, or 0. */
static unsigned long long proc_sigblk(pid_t pid)
{
	unsigned long long mask = 0;
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %llx", &mask) == 1)
			break;
	fclose(f);
	return mask;
}

/* Every signal but SIGKILL (bit 8), as /proc shows it. */
#define ALL_BUT_KILL	(~0ULL & ~(1ULL << (SIGKILL - 1)))

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* SKAS_RUN in a runtime pthread, so that the main thread can signal. */
struct bg_run {
	struct skas_guest *g;
	int ret;
	int done;
	pthread_t th;
};

static void *bg_fn(void *p)
{
	struct bg_run *b = p;

	b->ret = skas_run(b->g);
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Start a run that must still be going 200 ms later. */
static void bg_start(struct __test_metadata *_metadata, struct bg_run *b,
		     struct skas_guest *g)
{
	b->g = g;
	b->ret = 0;
	b->done = 0;
	ASSERT_EQ(0, pthread_create(&b->th, NULL, bg_fn, b));
	msleep(200);
	ASSERT_FALSE(__atomic_load_n(&b->done, __ATOMIC_ACQUIRE));
}

static int bg_join(struct bg_run *b)
{
	pthread_join(b->th, NULL);
	return b->ret;
}

/* Run until something else than INTERRUPTED comes (a few times at most). */
static int run_until_not_interrupted(struct skas_guest *g)
{
	int i, ret = -1;

	for (i = 0; i < 4; i++) {
		ret = skas_run(g);
		if (ret != SKAS_EXIT_INTERRUPTED)
			break;
	}
	return ret;
}

static bool has_cap(int dev, int cap)
{
	return ioctl(dev, SKAS_CHECK_EXTENSION, cap) > 0;
}

FIXTURE(sig) {
	struct skas_guest g;
};

FIXTURE_SETUP(sig)
{
	ASSERT_EQ(0, skas_guest_start(&self->g));
	ASSERT_EQ(0, map_code(self->g.as));
}

FIXTURE_TEARDOWN(sig)
{
	skas_guest_stop(&self->g);
}

/* The guest is at its getpid loop's syscall, parked. */
static void at_loop(struct __test_metadata *_metadata, struct skas_guest *g)
{
	skas_regs_at(g, PC_LOOP);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(g));
	ASSERT_EQ(39U, g->run->exit.syscall.nr);
}

/*
 * @sig sent while the guest is parked: the next run is INTERRUPTED, the
 * one after goes on to the next syscall; the task neither died nor stopped.
 */
static void parked_signal(struct __test_metadata *_metadata,
			  struct skas_guest *g, int sig)
{
	struct skas_run *run = g->run;

	ASSERT_EQ(0, kill(g->pid, sig));
	EXPECT_NE('T', proc_state(g->pid));
	EXPECT_NE('t', proc_state(g->pid));
	ASSERT_EQ(SKAS_EXIT_INTERRUPTED, skas_run(g))
		TH_LOG("signal %d: %u", sig, run->exit_reason);
	EXPECT_EQ(PC_LOOP + 7, run->regs.rip);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(g))
		TH_LOG("signal %d: %u", sig, run->exit_reason);
	EXPECT_EQ(39U, run->exit.syscall.nr);
	EXPECT_EQ(0, waitpid(g->pid, NULL, WNOHANG));
	EXPECT_EQ(ALL_BUT_KILL, proc_sigblk(g->pid));
}

/*
 * @sig sent while the guest spins in user mode: the run comes back
 * INTERRUPTED at the spin, and the guest is parked, not stopped.
 */
static void running_signal(struct __test_metadata *_metadata,
			   struct skas_guest *g, int sig)
{
	struct bg_run b;

	skas_regs_at(g, PC_SPIN);
	bg_start(_metadata, &b, g);
	ASSERT_EQ(0, kill(g->pid, sig));
	ASSERT_EQ(SKAS_EXIT_INTERRUPTED, bg_join(&b))
		TH_LOG("signal %d: %u", sig, g->run->exit_reason);
	EXPECT_EQ(PC_SPIN, g->run->regs.rip);
	EXPECT_NE('T', proc_state(g->pid));
	EXPECT_NE('t', proc_state(g->pid));
	EXPECT_EQ(0, waitpid(g->pid, NULL, WNOHANG));
	/* And it goes on. */
	at_loop(_metadata, g);
}

TEST(capability)
{
	int dev = skas_open_dev();

	ASSERT_LE(0, dev);
	EXPECT_TRUE(has_cap(dev, SKAS_CAP_SIGNAL_INTERRUPT));
	close(dev);
}

/* In the stub before it attaches: getpid traps (SIGSYS), all else runs. */
static int trap_getpid(void)
{
	static const struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(insns) / sizeof(insns[0]),
		.filter = (struct sock_filter *)insns,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return 20;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) ? 21 : 0;
}

/*
 * seccomp runs before the sys_enter tracepoint: a trapped syscall never
 * reaches the probe, and its SIGSYS is the guest's own fault, reported with
 * si_call_addr (after the syscall instruction); the call did not run (rax
 * is its number again) and the guest lives on.  Other syscalls still trap.
 */
TEST(seccomp_trap_is_a_fault)
{
	struct skas_guest g;
	int ret, dev = skas_open_dev();

	ASSERT_LE(0, dev);
	EXPECT_TRUE(has_cap(dev, SKAS_CAP_SIGSYS));
	close(dev);
	skas_stub_pre_attach = trap_getpid;
	ret = skas_guest_start(&g);
	skas_stub_pre_attach = NULL;
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, map_code(g.as));
	skas_regs_at(&g, PC_SC);
	g.run->regs.rax = SYS_getpid;
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&g))
		TH_LOG("event %u", g.run->exit_reason);
	EXPECT_EQ(SIGSYS, g.run->exit.fault.signo);
	EXPECT_EQ(1, g.run->exit.fault.code);		/* SYS_SECCOMP */
	EXPECT_EQ(PC_SC + 2, g.run->exit.fault.addr);
	EXPECT_EQ(0U, g.run->exit.fault.trapno);
	EXPECT_EQ(0U, g.run->exit.fault.error_code);
	EXPECT_EQ(PC_SC + 2, g.run->regs.rip);
	EXPECT_EQ((__u64)SYS_getpid, g.run->regs.rax);
	EXPECT_EQ(0, waitpid(g.pid, NULL, WNOHANG));
	/* On to the ud2, and the same instruction with another number. */
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&g));
	EXPECT_EQ(SIGILL, g.run->exit.fault.signo);
	skas_regs_at(&g, PC_SC);
	g.run->regs.rax = SYS_getuid;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&g));
	EXPECT_EQ((__u64)SYS_getuid, g.run->exit.syscall.nr);
	skas_guest_stop(&g);
}

TEST_F(sig, attach_blocks_all_but_sigkill)
{
	EXPECT_EQ(ALL_BUT_KILL, proc_sigblk(self->g.pid));
}

TEST_F(sig, default_fatal_signals_interrupt_a_parked_guest)
{
	static const int sigs[] = {
		SIGTERM, SIGUSR1, SIGINT, SIGHUP, SIGQUIT, SIGALRM, SIGPIPE,
		SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS,
		SIGXFSZ, SIGCONT, SIGCHLD,
	};
	unsigned int i;

	at_loop(_metadata, &self->g);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		parked_signal(_metadata, &self->g, sigs[i]);
	parked_signal(_metadata, &self->g, SIGRTMIN);
	parked_signal(_metadata, &self->g, SIGRTMAX);
}

TEST_F(sig, default_fatal_signals_interrupt_a_running_guest)
{
	static const int sigs[] = { SIGTERM, SIGUSR1, SIGINT, SIGSEGV };
	unsigned int i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		running_signal(_metadata, &self->g, sigs[i]);
}

TEST_F(sig, stop_signals_never_stop_a_parked_guest)
{
	static const int sigs[] = { SIGSTOP, SIGTSTP, SIGTTOU, SIGTTIN };
	unsigned int i;

	at_loop(_metadata, &self->g);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		parked_signal(_metadata, &self->g, sigs[i]);
}

TEST_F(sig, stop_signals_never_stop_a_running_guest)
{
	static const int sigs[] = { SIGSTOP, SIGTSTP, SIGTTOU, SIGTTIN };
	unsigned int i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		running_signal(_metadata, &self->g, sigs[i]);
}

/*
 * After a real fault, force_sig_fault() has unblocked SIGSEGV; the module
 * blocks it again, so a SIGSEGV from kill() is no fault and no death.
 */
TEST_F(sig, kill_sigsegv_after_a_real_fault_interrupts)
{
	struct skas_run *run = self->g.run;

	skas_regs_at(&self->g, PC_SEGV);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	ASSERT_EQ(SIGSEGV, (int)run->exit.fault.signo);
	EXPECT_LT(0, (int)run->exit.fault.code);
	EXPECT_EQ(ALL_BUT_KILL, proc_sigblk(self->g.pid));
	/* Parked. */
	at_loop(_metadata, &self->g);
	parked_signal(_metadata, &self->g, SIGSEGV);
	/* Running. */
	running_signal(_metadata, &self->g, SIGSEGV);
	/* A real fault still is one. */
	skas_regs_at(&self->g, PC_SEGV);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	ASSERT_EQ(SIGSEGV, (int)run->exit.fault.signo);
}

/* Many queued real-time signals while parked: one INTERRUPTED, all gone. */
TEST_F(sig, queued_realtime_signals_are_dropped)
{
	union sigval v = { .sival_int = 1 };
	int i;

	at_loop(_metadata, &self->g);
	for (i = 0; i < 100; i++)
		ASSERT_EQ(0, sigqueue(self->g.pid, SIGRTMIN + 1, v));
	ASSERT_EQ(SKAS_EXIT_INTERRUPTED, skas_run(&self->g));
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	/* Dropped at that park: nothing more to report. */
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
}

TEST_F(sig, sigkill_still_kills_a_parked_guest)
{
	int status;

	at_loop(_metadata, &self->g);
	ASSERT_EQ(0, kill(self->g.pid, SIGSTOP));
	ASSERT_EQ(0, kill(self->g.pid, SIGKILL));
	/* The SIGSTOP may be reported first, the death comes next. */
	ASSERT_EQ(SKAS_EXIT_EXITED, run_until_not_interrupted(&self->g));
	status = self->g.run->exit.exited.status;
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
}

TEST_F(sig, sigkill_still_kills_a_running_guest)
{
	struct bg_run b;
	int status;

	skas_regs_at(&self->g, PC_SPIN);
	bg_start(_metadata, &b, &self->g);
	ASSERT_EQ(0, kill(self->g.pid, SIGTERM));
	ASSERT_EQ(0, kill(self->g.pid, SIGKILL));
	if (bg_join(&b) == SKAS_EXIT_INTERRUPTED)
		ASSERT_EQ(SKAS_EXIT_EXITED,
			  run_until_not_interrupted(&self->g));
	EXPECT_EQ((unsigned)SKAS_EXIT_EXITED, self->g.run->exit_reason);
	status = self->g.run->exit.exited.status;
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
}

/*
 * A signal while the guest blocks in a NATIVE read: INTERRUPTED, the read
 * restarts when the guest is resumed unchanged, and gets the data.
 */
TEST_F(sig, outside_signals_interrupt_a_native_read)
{
	static const int sigs[] = { SIGTERM, SIGSTOP, SIGTSTP, SIGUSR1 };
	struct skas_run *run = self->g.run;
	char buf[8] = "";
	struct bg_run b;
	unsigned int i;
	int p[2];

	if (!has_cap(self->g.dev, SKAS_CAP_POLICY_NATIVE))
		SKIP(return, "no SKAS_CAP_POLICY_NATIVE");
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, skas_install_fd(self->g.as, p[0], 3, 0));
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_read, SKAS_POLICY_NATIVE, 0));
	skas_regs_at(&self->g, PC_SC);
	run->regs.rsp = DATA + 4096;
	run->regs.rax = SYS_read;
	run->regs.rdi = 3;
	run->regs.rsi = DATA;
	run->regs.rdx = sizeof(buf);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		bg_start(_metadata, &b, &self->g);
		ASSERT_EQ(0, kill(self->g.pid, sigs[i]));
		ASSERT_EQ(SKAS_EXIT_INTERRUPTED, bg_join(&b))
			TH_LOG("signal %d: %u", sigs[i], run->exit_reason);
		EXPECT_EQ(PC_SC, run->regs.rip);
		EXPECT_EQ((unsigned)SYS_read, run->regs.rax);
		EXPECT_NE('T', proc_state(self->g.pid));
	}
	ASSERT_EQ(2, write(p[1], "hi", 2));
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	ASSERT_EQ(SIGILL, (int)run->exit.fault.signo);
	EXPECT_EQ(PC_SC + 2, run->regs.rip);
	EXPECT_EQ(2U, run->regs.rax);
	ASSERT_EQ(2, skas_rw(self->g.as, false, DATA, buf, 2));
	EXPECT_EQ(0, memcmp(buf, "hi", 2));
	close(p[0]);
	close(p[1]);
}

/*
 * SIGPIPE raised by a NATIVE write to a pipe with no reader: the write
 * returns -EPIPE, the run reports INTERRUPTED right after it, and the guest
 * goes on.
 */
TEST_F(sig, sigpipe_from_a_native_write_interrupts)
{
	struct skas_run *run = self->g.run;
	int p[2];

	if (!has_cap(self->g.dev, SKAS_CAP_POLICY_NATIVE))
		SKIP(return, "no SKAS_CAP_POLICY_NATIVE");
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, skas_install_fd(self->g.as, p[1], 3, 0));
	close(p[0]);
	close(p[1]);
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_write, SKAS_POLICY_NATIVE, 0));
	skas_regs_at(&self->g, PC_SC);
	run->regs.rsp = DATA + 4096;
	run->regs.rax = SYS_write;
	run->regs.rdi = 3;
	run->regs.rsi = DATA;
	run->regs.rdx = 1;
	ASSERT_EQ(SKAS_EXIT_INTERRUPTED, skas_run(&self->g));
	EXPECT_EQ(PC_SC + 2, run->regs.rip);
	EXPECT_EQ((unsigned long long)-EPIPE, run->regs.rax);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	ASSERT_EQ(SIGILL, (int)run->exit.fault.signo);
	EXPECT_EQ(0, waitpid(self->g.pid, NULL, WNOHANG));
}

TEST_HARNESS_MAIN
