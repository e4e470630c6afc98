// SPDX-License-Identifier: GPL-2.0
/*
 * The run loop: every syscall entry path is trapped, kicks and runtime
 * signals interrupt a running guest, one SKAS_RUN per thread at a time,
 * many guests at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

#define CODE	0x100000UL

static int load_code(struct skas_guest *g, const void *code, size_t len)
{
	int ret = skas_map_anon(g->as, CODE, 4096, PROT_READ | PROT_EXEC);

	if (ret != 1)
		return ret;
	if (skas_rw(g->as, true, CODE, (void *)code, len) != (long)len)
		return -EIO;
	skas_regs_at(g, CODE);
	return 0;
}

FIXTURE(guest) {
	struct skas_guest g;
};

FIXTURE_SETUP(guest)
{
	int ret = skas_guest_start(&self->g);

	ASSERT_EQ(0, ret) TH_LOG("guest start: %d", ret);
}

FIXTURE_TEARDOWN(guest)
{
	skas_guest_stop(&self->g);
}

/*
 * The end-to-end case on the raw ABI: a guest program that prints
 * with write() and exits, every syscall handled by this loop.
 */
TEST_F(guest, hello_world_guest)
{
	static const unsigned char code[] = {
		0x48, 0x8d, 0x35, 0x1a, 0x00, 0x00, 0x00, /* lea msg(%rip),%rsi */
		0xbf, 0x01, 0x00, 0x00, 0x00,		/* mov $1,%edi */
		0xba, 0x0d, 0x00, 0x00, 0x00,		/* mov $13,%edx */
		0xb8, 0x01, 0x00, 0x00, 0x00,		/* mov $1,%eax */
		0x0f, 0x05,				/* syscall */
		0x89, 0xc7,				/* mov %eax,%edi */
		0xb8, 0xe7, 0x00, 0x00, 0x00,		/* mov $231,%eax */
		0x0f, 0x05,				/* syscall */
		'h', 'e', 'l', 'l', 'o', ',', ' ', 'w', 'o', 'r', 'l', 'd',
		'\n',
	};
	struct skas_run *run = self->g.run;
	char out[64] = "", buf[64];
	int status = -1, n = 0;

	ASSERT_EQ(0, load_code(&self->g, code, sizeof(code)));
	run->regs.rsp = 0;
	for (;;) {
		ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
		struct skas_exit_syscall *sc = &run->exit.syscall;

		ASSERT_LT(n++, 10);
		if (sc->nr == 1 && sc->args[0] == 1 && sc->args[2] < 64) {
			long len = skas_rw(self->g.as, false, sc->args[1], buf,
					   sc->args[2]);

			ASSERT_EQ((long)sc->args[2], len);
			strncat(out, buf, len);
			run->regs.rax = len;
		} else if (sc->nr == 231) {
			status = sc->args[0];
			break;
		} else {
			run->regs.rax = -ENOSYS;
		}
	}
	EXPECT_STREQ("hello, world\n", out);
	EXPECT_EQ(13, status);	/* exit_group(write's result) */
	EXPECT_EQ(2, n);
}

/* int $0x80 with exit's ia32 number: reported with the ia32 ABI. */
TEST_F(guest, int80_is_trapped_with_ia32_abi)
{
	static const unsigned char code[] = { 0xcd, 0x80, 0x0f, 0x0b };
	struct skas_run *run = self->g.run;

	ASSERT_EQ(0, load_code(&self->g, code, sizeof(code)));
	run->regs.rax = 1;		/* ia32 exit */
	run->regs.rbx = 0x100000005ULL;	/* only ebx counts */
	run->regs.rcx = 6;
	run->regs.rdx = 7;
	run->regs.rsi = 8;
	run->regs.rdi = 9;
	run->regs.rbp = 10;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ((unsigned)SKAS_ABI_IA32, run->exit.syscall.abi);
	EXPECT_EQ(1U, run->exit.syscall.nr);
	EXPECT_EQ(5U, run->exit.syscall.args[0]);
	EXPECT_EQ(6U, run->exit.syscall.args[1]);
	EXPECT_EQ(10U, run->exit.syscall.args[5]);
	EXPECT_EQ(CODE + 2, run->regs.rip);
	/* Not executed: the guest is alive and runs on to the ud2. */
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGILL, run->exit.fault.signo);
}

/*
 * sysenter from 64-bit mode: #UD on AMD, or an ia32 syscall on Intel.
 * Either way it must not run the syscall.
 */
TEST_F(guest, sysenter_is_not_executed)
{
	static const unsigned char code[] = { 0x0f, 0x34, 0x0f, 0x0b };
	struct skas_run *run = self->g.run;
	int ret;

	ASSERT_EQ(0, load_code(&self->g, code, sizeof(code)));
	run->regs.rax = 1;	/* ia32 exit */
	run->regs.rbx = 3;
	ret = skas_run(&self->g);
	if (ret == SKAS_EXIT_SYSCALL) {
		EXPECT_EQ((unsigned)SKAS_ABI_IA32, run->exit.syscall.abi);
		EXPECT_EQ(1U, run->exit.syscall.nr);
	} else {
		ASSERT_EQ(SKAS_EXIT_FAULT, ret);
		EXPECT_TRUE(run->exit.fault.signo == SIGILL ||
			    run->exit.fault.signo == SIGSEGV);
	}
	EXPECT_EQ(0, waitpid(self->g.pid, NULL, WNOHANG));
}

/*
 * Faults the kernel raises with force_sig() and no details (#GP here, from
 * a non-canonical stack pointer) are FAULT events too, not deaths.
 */
TEST_F(guest, general_protection_is_a_fault_event)
{
	static const unsigned char code[] = { 0x50, 0x0f, 0x0b };	/* push */
	struct skas_run *run = self->g.run;
	FILE *f;

	/* Keep "traps: ... general protection" out of the kernel log. */
	f = fopen("/proc/sys/debug/exception-trace", "w");
	if (f) {
		fputs("0", f);
		fclose(f);
	}
	ASSERT_EQ(0, load_code(&self->g, code, sizeof(code)));
	run->regs.rsp = 0x8000000000000000ULL;
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_TRUE(run->exit.fault.signo == SIGSEGV ||
		    run->exit.fault.signo == SIGBUS);
	EXPECT_EQ(0, waitpid(self->g.pid, NULL, WNOHANG));
	f = fopen("/proc/sys/debug/exception-trace", "w");
	if (f) {
		fputs("1", f);
		fclose(f);
	}
	/* It lives on. */
	skas_regs_at(&self->g, CODE + 1);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGILL, run->exit.fault.signo);
}

/* A syscall loop: every iteration comes back. */
TEST_F(guest, hundred_round_trips)
{
	/* 1: mov $39,%eax; syscall; jmp 1b */
	static const unsigned char code[] = {
		0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7,
	};
	struct skas_run *run = self->g.run;
	int i;

	ASSERT_EQ(0, load_code(&self->g, code, sizeof(code)));
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
		ASSERT_EQ(39U, run->exit.syscall.nr);
		run->regs.rax = i;
	}
}

static void *kick_later(void *arg)
{
	struct skas_guest *g = arg;

	usleep(200000);
	ioctl(g->thread, SKAS_KICK, 0);
	return NULL;
}

/* A guest spinning in user mode comes back on a kick. */
TEST_F(guest, kick_interrupts_spinning_guest)
{
	static const unsigned char code[] = { 0xeb, 0xfe };	/* jmp . */
	struct skas_run *run = self->g.run;
	pthread_t th;

	ASSERT_EQ(0, load_code(&self->g, code, sizeof(code)));
	ASSERT_EQ(0, pthread_create(&th, NULL, kick_later, &self->g));
	ASSERT_EQ(SKAS_EXIT_INTERRUPTED, skas_run(&self->g));
	pthread_join(th, NULL);
	EXPECT_EQ(CODE, run->regs.rip);
	/* It resumes where it was. */
	ASSERT_EQ(0, pthread_create(&th, NULL, kick_later, &self->g));
	ASSERT_EQ(SKAS_EXIT_INTERRUPTED, skas_run(&self->g));
	pthread_join(th, NULL);
	EXPECT_EQ(CODE, run->regs.rip);
}

static void on_alarm(int sig)
{
}

/* A signal to the runtime during SKAS_RUN: INTERRUPTED, like KVM_RUN. */
TEST_F(guest, runtime_signal_interrupts_run)
{
	static const unsigned char code[] = { 0xeb, 0xfe };
	struct sigaction sa;
	struct itimerspec its;
	timer_t timer;

	ASSERT_EQ(0, load_code(&self->g, code, sizeof(code)));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
				.sigev_signo = SIGUSR1 };
	ASSERT_EQ(0, timer_create(CLOCK_MONOTONIC, &sev, &timer));
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 200000000;
	ASSERT_EQ(0, timer_settime(timer, 0, &its, NULL));
	EXPECT_EQ(SKAS_EXIT_INTERRUPTED, skas_run(&self->g));
	timer_delete(timer);
}

static void *run_in_thread(void *arg)
{
	struct skas_guest *g = arg;

	return (void *)(intptr_t)skas_run(g);
}

/* One SKAS_RUN per thread: a second one gets EBUSY. */
TEST_F(guest, concurrent_run_EBUSY)
{
	static const unsigned char code[] = { 0xeb, 0xfe };
	pthread_t th;
	void *ret;

	ASSERT_EQ(0, load_code(&self->g, code, sizeof(code)));
	ASSERT_EQ(0, pthread_create(&th, NULL, run_in_thread, &self->g));
	usleep(200000);
	EXPECT_EQ(-EBUSY, skas_run(&self->g));
	/* SKAS_MEM needs a stopped thread too. */
	EXPECT_EQ(-EBUSY, skas_map_anon(self->g.as, 0x300000, 4096,
					PROT_READ));
	ASSERT_EQ(0, ioctl(self->g.thread, SKAS_KICK, 0));
	pthread_join(th, &ret);
	EXPECT_EQ(SKAS_EXIT_INTERRUPTED, (int)(intptr_t)ret);
}

/* Killing the guest while it runs: EXITED, then ESRCH. */
TEST_F(guest, guest_killed_while_running)
{
	static const unsigned char code[] = { 0xeb, 0xfe };
	pthread_t th;
	void *ret;

	ASSERT_EQ(0, load_code(&self->g, code, sizeof(code)));
	ASSERT_EQ(0, pthread_create(&th, NULL, run_in_thread, &self->g));
	usleep(200000);
	ASSERT_EQ(0, kill(self->g.pid, SIGKILL));
	pthread_join(th, &ret);
	EXPECT_EQ(SKAS_EXIT_EXITED, (int)(intptr_t)ret);
	EXPECT_EQ(-ESRCH, skas_run(&self->g));
}

/* 64 address spaces at once, each with its own code and state. */
TEST(sixty_four_guests_at_once)
{
	static struct skas_guest g[64];
	/* mov $N, %edi placed by patching; mov $39,%eax; syscall; ud2 */
	unsigned char code[] = {
		0xbf, 0, 0, 0, 0, 0xb8, 0x27, 0, 0, 0, 0x0f, 0x05, 0x0f, 0x0b,
	};
	int i, ret;

	for (i = 0; i < 64; i++) {
		ret = skas_guest_start(&g[i]);
		ASSERT_EQ(0, ret) TH_LOG("guest %d: %d", i, ret);
		code[1] = i;
		ASSERT_EQ(0, load_code(&g[i], code, sizeof(code)));
	}
	for (i = 0; i < 64; i++) {
		ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&g[i]));
		EXPECT_EQ((unsigned)i, g[i].run->exit.syscall.args[0]);
	}
	for (i = 0; i < 64; i++) {
		ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&g[i]));
		skas_guest_stop(&g[i]);
	}
}

struct driver {
	struct skas_guest g;
	int result;
};

static void *drive(void *arg)
{
	static const unsigned char code[] = {
		0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7,
	};
	struct driver *d = arg;
	int i;

	d->result = load_code(&d->g, code, sizeof(code));
	for (i = 0; i < 200 && !d->result; i++) {
		if (skas_run(&d->g) != SKAS_EXIT_SYSCALL ||
		    d->g.run->exit.syscall.nr != 39)
			d->result = -1;
	}
	return NULL;
}

/* Several runtime threads, each driving its own guest, at once. */
TEST(four_runtime_threads_drive_four_guests)
{
	struct driver d[4];
	pthread_t th[4];
	int i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, skas_guest_start(&d[i].g));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, drive, &d[i]));
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, d[i].result) TH_LOG("driver %d", i);
		skas_guest_stop(&d[i].g);
	}
}

/* The CPU @pid last ran on: field 39 of /proc/PID/stat, or -1. */
static int last_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	int fd, field, cpu = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (field = 2; p && field < 39; field++)
		p = strchr(p + 1, ' ');
	if (p)
		cpu = atoi(p + 1);
	return cpu;
}

static int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu < 0) {
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			CPU_SET(cpu, &set);
	} else {
		CPU_SET(cpu, &set);
	}
	return sched_setaffinity(pid, sizeof(set), &set);
}

/* Y when the module's hand-offs ask for the waker's CPU (6.6 and later). */
static bool handoff_same_cpu(void)
{
	char buf[8];

	return !skas_param_read("handoff_same_cpu", buf, sizeof(buf)) &&
	       buf[0] == 'Y';
}

/*
 * A hand-off runs the woken task where the waker was.  The guest ran on
 * CPU 0 last and may run anywhere; this runtime stays on CPU 1.  Left to
 * itself the scheduler would wake the guest on idle CPU 0 each time.
 * Then the other way round: the guest on CPU 0, the runtime free, last on
 * CPU 1: the runtime's wake-up at each park brings it to CPU 0.
 */
TEST_F(guest, handoffs_run_on_the_wakers_cpu)
{
	static const unsigned char code[] = {
		0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7,
	};
	int i, guest_on_1 = 0, rt_on_0 = 0;

	if (!handoff_same_cpu())
		SKIP(return, "skas.ko's hand-offs keep the scheduler's CPU here (handoff_same_cpu N: no WF_CURRENT_CPU before 6.6)");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU online");
	ASSERT_EQ(0, load_code(&self->g, code, sizeof(code)));
	ASSERT_EQ(0, pin(self->g.pid, 0));
	ASSERT_EQ(0, pin(0, 1));
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	ASSERT_EQ(0, last_cpu(self->g.pid));
	ASSERT_EQ(0, pin(self->g.pid, -1));
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
		guest_on_1 += last_cpu(self->g.pid) == 1;
	}

	ASSERT_EQ(0, pin(self->g.pid, 0));
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	ASSERT_EQ(0, pin(0, -1));
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
		rt_on_0 += sched_getcpu() == 0;
	}
	/* Most, not all: the load balancer may move a task meanwhile. */
	EXPECT_GE(guest_on_1, 40) TH_LOG("guest on the runtime's CPU %d/50",
					 guest_on_1);
	EXPECT_GE(rt_on_0, 40) TH_LOG("runtime on the guest's CPU %d/50",
				      rt_on_0);
}

TEST_HARNESS_MAIN
