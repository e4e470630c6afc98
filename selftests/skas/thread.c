// SPDX-License-Identifier: GPL-2.0
/*
 * Guest threads: attach, the run loop, faults, exits, kicks, and the
 * probes' lifetime.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

/* Alive: exists and is not a zombie (init may reap it late). */
static bool task_alive(pid_t pid)
{
	char path[64], state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state != 'Z' && state != 'X' && state != 0;
}

/*
 * A "syscall" instruction in the vDSO, which the stub keeps at the same
 * address as ours (it is a fork).  Guests have no other code until memory
 * can be mapped into them.
 */
static unsigned long vdso_syscall_insn(void)
{
	const unsigned char *p = (const void *)getauxval(AT_SYSINFO_EHDR);
	unsigned int i;

	for (i = 0; p && i < 8192 - 1; i++)
		if (p[i] == 0x0f && p[i + 1] == 0x05)
			return (unsigned long)p + i;
	return 0;
}

FIXTURE(guest) {
	struct skas_guest g;
};

FIXTURE_SETUP(guest)
{
	int ret = skas_guest_start(&self->g);

	ASSERT_EQ(0, ret) TH_LOG("guest start: %d (%s)", ret,
				 ret < 0 ? strerror(-ret) : "stub exit code");
}

FIXTURE_TEARDOWN(guest)
{
	skas_guest_stop(&self->g);
}

/* Jumping to an unmapped address: a SIGSEGV fault event, not a death. */
TEST_F(guest, fault_at_unmapped_rip)
{
	struct skas_run *run = self->g.run;

	skas_regs_at(&self->g, 0x10000);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g))
		TH_LOG("rip %#llx rax %#llx signo %d", (unsigned long long)run->regs.rip,
		       (unsigned long long)run->regs.rax, run->exit.fault.signo);
	EXPECT_EQ(SIGSEGV, run->exit.fault.signo);
	EXPECT_EQ(SEGV_MAPERR, run->exit.fault.code);
	EXPECT_EQ(0x10000U, run->exit.fault.addr);
	EXPECT_EQ(14U, run->exit.fault.trapno);	/* #PF */
	EXPECT_EQ(0x10000U, run->regs.rip);
	/* Again: the signal was taken, the guest lives on. */
	skas_regs_at(&self->g, 0x20000);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(0x20000U, run->exit.fault.addr);
	EXPECT_EQ(0, waitpid(self->g.pid, NULL, WNOHANG));
}

/* exit_group(7) from the guest: reported, not executed. */
TEST_F(guest, syscall_is_trapped_not_executed)
{
	struct skas_run *run = self->g.run;
	unsigned long insn = vdso_syscall_insn();
	int i;

	ASSERT_NE(0UL, insn);
	for (i = 0; i < 3; i++) {
		skas_regs_at(&self->g, insn);
		run->regs.rax = 231;	/* exit_group */
		run->regs.rdi = 7;
		run->regs.rsi = 0x1111;
		run->regs.rdx = 0x2222;
		run->regs.r10 = 0x3333;
		run->regs.r8 = 0x4444;
		run->regs.r9 = 0x5555;
		run->regs.rbx = 0xb0b0;
		ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
		EXPECT_EQ(231U, run->exit.syscall.nr);
		EXPECT_EQ((unsigned)SKAS_ABI_64, run->exit.syscall.abi);
		EXPECT_EQ(7U, run->exit.syscall.args[0]);
		EXPECT_EQ(0x1111U, run->exit.syscall.args[1]);
		EXPECT_EQ(0x2222U, run->exit.syscall.args[2]);
		EXPECT_EQ(0x3333U, run->exit.syscall.args[3]);
		EXPECT_EQ(0x4444U, run->exit.syscall.args[4]);
		EXPECT_EQ(0x5555U, run->exit.syscall.args[5]);
		EXPECT_EQ(insn + 2, run->regs.rip);
		EXPECT_EQ(231U, run->regs.orig_rax);
		EXPECT_EQ((unsigned long long)-ENOSYS, run->regs.rax);
		EXPECT_EQ(0xb0b0U, run->regs.rbx);
		EXPECT_EQ(0, waitpid(self->g.pid, NULL, WNOHANG));
	}
}

/* x32 numbers are trapped too, with their ABI. */
TEST_F(guest, x32_syscall_is_trapped)
{
	struct skas_run *run = self->g.run;
	unsigned long insn = vdso_syscall_insn();

	ASSERT_NE(0UL, insn);
	skas_regs_at(&self->g, insn);
	run->regs.rax = 0x40000000 | 60;	/* x32 exit */
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(0x40000000U | 60, run->exit.syscall.nr);
	EXPECT_EQ((unsigned)SKAS_ABI_X32, run->exit.syscall.abi);
	EXPECT_EQ(0, waitpid(self->g.pid, NULL, WNOHANG));
}

/* rcx and r11 set by the runtime survive the return to the guest. */
TEST_F(guest, registers_round_trip)
{
	struct skas_run *run = self->g.run;
	unsigned long insn = vdso_syscall_insn();

	ASSERT_NE(0UL, insn);
	skas_regs_at(&self->g, insn);
	run->regs.rax = 39;
	run->regs.rsp = 0x7000;
	run->regs.r12 = 0x1212;
	run->regs.r15 = 0x1515;
	run->regs.fs_base = 0x123000;
	run->regs.gs_base = 0x456000;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(0x7000U, run->regs.rsp);
	EXPECT_EQ(0x1212U, run->regs.r12);
	EXPECT_EQ(0x1515U, run->regs.r15);
	EXPECT_EQ(0x123000U, run->regs.fs_base);
	EXPECT_EQ(0x456000U, run->regs.gs_base);
	/* The syscall instruction clobbers rcx and r11 (rip, rflags). */
	EXPECT_EQ(insn + 2, run->regs.rcx);
}

/* The stub's own memory is gone: its code can't be run. */
TEST_F(guest, stub_memory_is_unmapped)
{
	struct skas_run *run = self->g.run;
	unsigned long code = (unsigned long)&skas_stub_main;

	skas_regs_at(&self->g, code);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGSEGV, run->exit.fault.signo);
	EXPECT_EQ(code, run->exit.fault.addr);
}

TEST_F(guest, killed_guest_is_EXITED_then_ESRCH)
{
	struct skas_run *run = self->g.run;
	int status;

	ASSERT_EQ(0, kill(self->g.pid, SIGKILL));
	ASSERT_EQ(self->g.pid, waitpid(self->g.pid, &status, 0));
	self->g.pid = 0;
	ASSERT_EQ(SKAS_EXIT_EXITED, skas_run(&self->g));
	EXPECT_TRUE(WIFSIGNALED(run->exit.exited.status));
	EXPECT_EQ(SIGKILL, WTERMSIG(run->exit.exited.status));
	EXPECT_EQ(-ESRCH, skas_run(&self->g));
	EXPECT_EQ(-ESRCH, skas_run(&self->g));
}

TEST_F(guest, kick_while_stopped_interrupts_next_run)
{
	ASSERT_EQ(0, ioctl(self->g.thread, SKAS_KICK, 0));
	skas_regs_at(&self->g, 0x10000);
	ASSERT_EQ(SKAS_EXIT_INTERRUPTED, skas_run(&self->g));
	/* The kick is consumed: the next run really runs. */
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
}

TEST_F(guest, second_attach_EBUSY)
{
	struct skas_attach args;

	memset(&args, 0, sizeof(args));
	args.size = sizeof(args);
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.thread, SKAS_ATTACH, &args));
	EXPECT_EQ(EBUSY, errno);
}

TEST_F(guest, bad_rip_EINVAL)
{
	/* Beyond 5-level paging's user half, or kernel addresses. */
	unsigned long bad[] = { 0x0100000000000000UL, 0xffff888000000000UL,
				0xffffffff81000000UL, ~0UL };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned long rip = bad[i];

		skas_regs_at(&self->g, rip);
		EXPECT_EQ(-EINVAL, skas_run(&self->g)) TH_LOG("rip %#lx", rip);
	}
	skas_regs_at(&self->g, 0x10000);
	self->g.run->regs.fs_base = 0xffff888000000000UL;
	EXPECT_EQ(-EINVAL, skas_run(&self->g));
	/* Still usable. */
	skas_regs_at(&self->g, 0x10000);
	EXPECT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
}

/* Runtime registers can't give the guest privileges or 32-bit mode. */
TEST_F(guest, regs_are_sanitized)
{
	struct skas_regs *r = &self->g.run->regs;

	skas_regs_at(&self->g, 0x10000);
	r->cs = 0x23;		/* 32-bit user code */
	r->ss = 0;
	r->eflags = 0x3000 | 0x4000 | 0x20000 | 0x202;	/* IOPL 3, NT, VM */
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(0x33U, r->cs);
	EXPECT_EQ(0x2bU, r->ss);
	EXPECT_EQ(0U, r->eflags & (0x3000 | 0x4000 | 0x20000));
	EXPECT_EQ(0x200U, r->eflags & 0x200);	/* IF stays on */
	EXPECT_EQ(0x10000U, r->rip);
}

/* Start, run and tear down many guests in a row. */
TEST(start_run_stop_50_guests)
{
	struct skas_guest g;
	int i, ret;

	for (i = 0; i < 50; i++) {
		ret = skas_guest_start(&g);
		ASSERT_EQ(0, ret) TH_LOG("guest %d start: %d", i, ret);
		skas_regs_at(&g, 0x10000 + i * 0x1000);
		ret = skas_run(&g);
		ASSERT_EQ(SKAS_EXIT_FAULT, ret)
			TH_LOG("guest %d: exit %d rip %#llx", i, ret,
			       (unsigned long long)g.run->regs.rip);
		ASSERT_EQ(0x10000U + i * 0x1000, g.run->exit.fault.addr);
		skas_guest_stop(&g);
	}
}

TEST(run_unattached_ENOENT)
{
	int dev = skas_open_dev(), as, t;

	ASSERT_LE(0, dev);
	as = skas_create_aspace(dev);
	ASSERT_LE(0, as);
	t = skas_create_thread(as);
	ASSERT_LE(0, t);
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_RUN, 0));
	EXPECT_EQ(ENOENT, errno);
	close(t);
	close(as);
	close(dev);
}

TEST(create_thread_bad_args)
{
	struct skas_create_thread args;
	int dev = skas_open_dev(), as;

	ASSERT_LE(0, dev);
	as = skas_create_aspace(dev);
	ASSERT_LE(0, as);
	errno = 0;
	EXPECT_EQ(-1, ioctl(as, SKAS_CREATE_THREAD, SKAS_BAD_PTR));
	EXPECT_EQ(EFAULT, errno);
	memset(&args, 0, sizeof(args));
	args.size = sizeof(args);
	args.flags = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(as, SKAS_CREATE_THREAD, &args));
	EXPECT_EQ(EINVAL, errno);
	args.flags = 0;
	args.reserved[0] = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(as, SKAS_CREATE_THREAD, &args));
	EXPECT_EQ(EINVAL, errno);
	/* Thread commands on an aspace fd, aspace commands on /dev/skas. */
	errno = 0;
	EXPECT_EQ(-1, ioctl(as, SKAS_RUN, 0));
	EXPECT_EQ(ENOTTY, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(dev, SKAS_CREATE_THREAD, &args));
	EXPECT_EQ(ENOTTY, errno);
	close(as);
	close(dev);
}

TEST(attach_bad_args)
{
	struct skas_attach args;
	int dev = skas_open_dev(), as, t;

	ASSERT_LE(0, dev);
	as = skas_create_aspace(dev);
	ASSERT_LE(0, as);
	t = skas_create_thread(as);
	ASSERT_LE(0, t);
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_ATTACH, SKAS_BAD_PTR));
	EXPECT_EQ(EFAULT, errno);
	memset(&args, 0, sizeof(args));
	args.size = sizeof(args) - 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_ATTACH, &args));
	EXPECT_EQ(EINVAL, errno);
	args.size = sizeof(args);
	args.reserved[2] = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_ATTACH, &args));
	EXPECT_EQ(EINVAL, errno);
	/* The harness installed signal handlers here: not a fit stub. */
	args.reserved[2] = 0;
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_ATTACH, &args));
	EXPECT_EQ(EBUSY, errno);
	close(t);
	close(as);
	close(dev);
}

TEST(attach_by_other_uid_EPERM)
{
	int dev = skas_open_dev(), as, t, status;
	pid_t pid;

	ASSERT_LE(0, dev);
	as = skas_create_aspace(dev);
	ASSERT_LE(0, as);
	t = skas_create_thread(as);
	ASSERT_LE(0, t);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(20);
		skas_stub_main(t);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EPERM, WEXITSTATUS(status));
	close(t);
	close(as);
	close(dev);
}

/* Holding the fds is not enough: another uid can't drive the guest. */
TEST_F(guest, other_uid_cannot_drive)
{
	struct skas_create_thread ct;
	struct skas_mem_rw rw;
	char c;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(20);
		if (ioctl(self->g.thread, SKAS_RUN, 0) != -1 || errno != EPERM)
			_exit(1);
		if (ioctl(self->g.thread, SKAS_KICK, 0) != -1 || errno != EPERM)
			_exit(2);
		memset(&rw, 0, sizeof(rw));
		rw.size = sizeof(rw);
		rw.addr = 0x10000;
		rw.buf = (unsigned long)&c;
		rw.len = 1;
		if (ioctl(self->g.as, SKAS_MEM_READ, &rw) != -1 ||
		    errno != EPERM)
			_exit(3);
		memset(&ct, 0, sizeof(ct));
		ct.size = sizeof(ct);
		if (ioctl(self->g.as, SKAS_CREATE_THREAD, &ct) != -1 ||
		    errno != EPERM)
			_exit(4);
		if (mmap(NULL, SKAS_RUN_PAGE_SIZE, PROT_READ, MAP_SHARED,
			 self->g.thread, 0) != MAP_FAILED || errno != EPERM)
			_exit(5);
		/* Unknown commands stay ENOTTY when not ours. */
		if (ioctl(self->g.as, _IO('x', 1), 0) != -1 || errno != ENOTTY)
			_exit(6);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* The owner still can. */
	skas_regs_at(&self->g, 0x10000);
	EXPECT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
}

TEST(runtime_death_kills_guest)
{
	struct skas_guest g;
	int pipefd[2], status;
	pid_t rt, guest;

	ASSERT_EQ(0, pipe(pipefd));
	rt = fork();
	ASSERT_LE(0, rt);
	if (rt == 0) {
		if (skas_guest_start(&g))
			_exit(1);
		if (write(pipefd[1], &g.pid, sizeof(g.pid)) != sizeof(g.pid))
			_exit(2);
		pause();
		_exit(3);
	}
	close(pipefd[1]);
	ASSERT_EQ((ssize_t)sizeof(guest), read(pipefd[0], &guest, sizeof(guest)));
	EXPECT_EQ(0, kill(guest, 0));
	ASSERT_EQ(0, kill(rt, SIGKILL));
	ASSERT_EQ(rt, waitpid(rt, &status, 0));
	/* The guest was the runtime's child, now init's: it must die. */
	for (int i = 0; i < 500 && task_alive(guest); i++)
		usleep(10000);
	EXPECT_FALSE(task_alive(guest));
}

TEST(probes_registered_only_while_objects_live)
{
	int dev = skas_open_dev(), as, t;

	ASSERT_LE(0, dev);
	/* Objects of earlier tests are freed asynchronously. */
	EXPECT_EQ(0, skas_wait_param_zero("probes_registered"));
	as = skas_create_aspace(dev);
	ASSERT_LE(0, as);
	EXPECT_LT(0, skas_param("probes_registered"));
	t = skas_create_thread(as);
	ASSERT_LE(0, t);
	close(as);
	/* The thread holds the address space. */
	EXPECT_LT(0, skas_param("probes_registered"));
	close(t);
	/* Unregistered a second after the last address space goes. */
	EXPECT_EQ(0, skas_wait_param_zero("probes_registered"));
	close(dev);
}

TEST_HARNESS_MAIN
