// SPDX-License-Identifier: GPL-2.0
/*
 * SKAS_SET_POLICY: syscalls answered in the kernel (CONST) without a stop,
 * for the 64-bit ABI only; TRAP again on demand; inherited by a fork.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

#define CODE	0x100000UL

static int set_policy(int as, unsigned int nr, unsigned int action,
		      long long value)
{
	struct skas_policy p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.nr = nr;
	p.action = action;
	p.value = value;
	return ioctl(as, SKAS_SET_POLICY, &p) ? -errno : 0;
}

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

	ASSERT_EQ(0, set_policy(self->g.as, 39, SKAS_POLICY_CONST, 4321));
	skas_regs_at(&self->g, CODE);
	/* The syscall returns 4321 in the kernel; the next stop is ud2. */
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGILL, run->exit.fault.signo);
	EXPECT_EQ(4321U, run->regs.rax);
	EXPECT_EQ(CODE + 7, run->regs.rip);
	/* Negative values (errors) too. */
	ASSERT_EQ(0, set_policy(self->g.as, 39, SKAS_POLICY_CONST, -EPERM));
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ((unsigned long long)-EPERM, run->regs.rax);
	/* Back to TRAP. */
	ASSERT_EQ(0, set_policy(self->g.as, 39, SKAS_POLICY_TRAP, 0));
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(39U, run->exit.syscall.nr);
}

/* Other numbers and other ABIs with the same number still trap. */
TEST_F(guest, const_is_per_number_and_64_bit_only)
{
	static const unsigned char int80[] = { 0xcd, 0x80, 0x0f, 0x0b };
	struct skas_run *run = self->g.run;

	ASSERT_EQ(0, set_policy(self->g.as, 39, SKAS_POLICY_CONST, 1));
	ASSERT_EQ(0, set_policy(self->g.as, 1, SKAS_POLICY_CONST, 1));
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

	ASSERT_EQ(0, set_policy(self->g.as, 39, SKAS_POLICY_CONST, 77));
	/* Stop the parent at a trapped syscall to clone it. */
	ASSERT_EQ(0, set_policy(self->g.as, 60, SKAS_POLICY_TRAP, 0));
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

	EXPECT_EQ(-EINVAL, set_policy(self->g.as, SKAS_POLICY_NR,
				      SKAS_POLICY_CONST, 0));
	EXPECT_EQ(-EINVAL, set_policy(self->g.as, ~0U, SKAS_POLICY_CONST, 0));
	EXPECT_EQ(-EINVAL, set_policy(self->g.as, 39, 2, 0));
	EXPECT_EQ(-EINVAL, set_policy(self->g.as, 39, ~0U, 0));
	EXPECT_EQ(-EINVAL, set_policy(self->g.as, 39, SKAS_POLICY_TRAP, 5));
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

TEST_HARNESS_MAIN
