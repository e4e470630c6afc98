// SPDX-License-Identifier: GPL-2.0
/*
 * SKAS_CLONE: guest fork.  The child is a copy-on-write copy, bound before
 * it runs, starting with its parent's registers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

#define CODE	0x100000UL
#define DATA	0x200000UL

/*
 * mov $39,%eax; syscall		(stop 1: getpid; the clone happens here)
 * mov $60,%eax; syscall		(stop 2: exit, reported)
 * ud2
 */
static const unsigned char code[] = {
	0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05,
	0xb8, 0x3c, 0x00, 0x00, 0x00, 0x0f, 0x05,
	0x0f, 0x0b,
};

static int do_clone(int thread, struct skas_clone *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	return ioctl(thread, SKAS_CLONE, c) ? -errno : 0;
}

FIXTURE(guest) {
	struct skas_guest g;
};

FIXTURE_SETUP(guest)
{
	struct skas_guest *g = &self->g;
	uint64_t v = 1;

	ASSERT_EQ(0, skas_guest_start(g));
	ASSERT_EQ(1, skas_map_anon(g->as, CODE, 4096, PROT_READ | PROT_EXEC));
	ASSERT_EQ(1, skas_map_anon(g->as, DATA, 4096,
				   PROT_READ | PROT_WRITE));
	ASSERT_EQ((long)sizeof(code),
		  skas_rw(g->as, true, CODE, (void *)code, sizeof(code)));
	ASSERT_EQ(8, skas_rw(g->as, true, DATA, &v, 8));
	skas_regs_at(g, CODE);
	g->run->regs.rsp = DATA + 4096;
	g->run->regs.r13 = 0x1313;
	g->run->regs.fs_base = 0x5000;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(g));
	ASSERT_EQ(39U, g->run->exit.syscall.nr);
}

FIXTURE_TEARDOWN(guest)
{
	skas_guest_stop(&self->g);
}

TEST_F(guest, fork_child_starts_with_parent_registers)
{
	struct skas_run *prun = self->g.run, *crun;
	struct skas_clone c;
	int status;

	ASSERT_EQ(0, do_clone(self->g.thread, &c));
	EXPECT_LT(0, c.host_tid);
	EXPECT_NE(self->g.pid, c.host_tid);
	EXPECT_EQ(FD_CLOEXEC, fcntl(c.thread_fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(FD_CLOEXEC, fcntl(c.aspace_fd, F_GETFD) & FD_CLOEXEC);
	crun = skas_map_run(c.thread_fd);
	ASSERT_NE(NULL, crun);
	/* Poll: the child parks at once, without a run. */
	struct pollfd pfd = { .fd = c.thread_fd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	EXPECT_EQ(prun->regs.rip, crun->regs.rip);
	EXPECT_EQ(prun->regs.rsp, crun->regs.rsp);
	EXPECT_EQ(0x1313U, crun->regs.r13);
	EXPECT_EQ(0x5000U, crun->regs.fs_base);
	EXPECT_EQ((unsigned)SKAS_EXIT_NONE, crun->exit_reason);

	/* Both go on from the syscall, each with its own result. */
	crun->regs.rax = 0;
	ASSERT_EQ(0, ioctl(c.thread_fd, SKAS_RUN, 0));
	ASSERT_EQ((unsigned)SKAS_EXIT_SYSCALL, crun->exit_reason);
	EXPECT_EQ(60U, crun->exit.syscall.nr);
	EXPECT_EQ(0U, crun->regs.rbx);
	prun->regs.rax = c.host_tid;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(60U, prun->exit.syscall.nr);

	munmap(crun, SKAS_RUN_PAGE_SIZE);
	close(c.thread_fd);
	close(c.aspace_fd);
	/* The runtime is the child's parent: it reaps it, killed. */
	ASSERT_EQ(c.host_tid, waitpid(c.host_tid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
}

TEST_F(guest, fork_memory_is_copy_on_write)
{
	uint64_t v = 0;
	struct skas_clone c;

	ASSERT_EQ(0, do_clone(self->g.thread, &c));
	v = 2;
	EXPECT_EQ(8, skas_rw(c.aspace_fd, true, DATA, &v, 8));
	v = 0;
	EXPECT_EQ(8, skas_rw(self->g.as, false, DATA, &v, 8));
	EXPECT_EQ(1U, v);
	v = 0;
	EXPECT_EQ(8, skas_rw(c.aspace_fd, false, DATA, &v, 8));
	EXPECT_EQ(2U, v);
	/* Mappings are separate too. */
	EXPECT_EQ(1, skas_mem1(c.aspace_fd, SKAS_MEM_UNMAP, DATA, 4096, 0, 0,
			       -1, 0));
	EXPECT_EQ(-EFAULT, skas_rw(c.aspace_fd, false, DATA, &v, 8));
	EXPECT_EQ(8, skas_rw(self->g.as, false, DATA, &v, 8));
	close(c.thread_fd);
	close(c.aspace_fd);
	waitpid(c.host_tid, NULL, 0);
}

/* A child of a child, and the grandchild is a full guest too. */
TEST_F(guest, fork_of_a_fork)
{
	struct skas_clone c1, c2;
	struct skas_run *r2;

	ASSERT_EQ(0, do_clone(self->g.thread, &c1));
	/* c1 must be stopped: its first stop counts. */
	struct pollfd pfd = { .fd = c1.thread_fd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	ASSERT_EQ(0, do_clone(c1.thread_fd, &c2));
	r2 = skas_map_run(c2.thread_fd);
	ASSERT_NE(NULL, r2);
	r2->regs.rax = 0;
	ASSERT_EQ(0, ioctl(c2.thread_fd, SKAS_RUN, 0));
	EXPECT_EQ((unsigned)SKAS_EXIT_SYSCALL, r2->exit_reason);
	EXPECT_EQ(60U, r2->exit.syscall.nr);
	munmap(r2, SKAS_RUN_PAGE_SIZE);
	close(c2.thread_fd);
	close(c2.aspace_fd);
	close(c1.thread_fd);
	close(c1.aspace_fd);
	waitpid(c2.host_tid, NULL, 0);
	waitpid(c1.host_tid, NULL, 0);
}

static int clone_thread(int thread, struct skas_clone *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->flags = SKAS_CLONE_THREAD;
	return ioctl(thread, SKAS_CLONE, c) ? -errno : 0;
}

/* A guest thread shares the address space and has its own registers. */
TEST_F(guest, thread_shares_memory)
{
	struct skas_run *prun = self->g.run, *crun;
	struct skas_clone c;
	uint64_t v = 0;

	ASSERT_EQ(0, clone_thread(self->g.thread, &c));
	EXPECT_EQ(-1, c.aspace_fd);
	EXPECT_LT(0, c.host_tid);
	crun = skas_map_run(c.thread_fd);
	ASSERT_NE(NULL, crun);
	EXPECT_EQ(prun->regs.rip, crun->regs.rip);
	EXPECT_EQ(0x1313U, crun->regs.r13);
	/* mov %rdi, DATA; mov $39,%eax; syscall: stores into shared memory */
	static const unsigned char store[] = {
		0x48, 0x89, 0x3c, 0x25, 0x00, 0x00, 0x20, 0x00,
		0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05,
	};
	ASSERT_EQ((long)sizeof(store), skas_rw(self->g.as, true, CODE + 0x100,
					       (void *)store, sizeof(store)));
	crun->regs.rip = CODE + 0x100;
	crun->regs.rdi = 0xabcdef;
	ASSERT_EQ(0, ioctl(c.thread_fd, SKAS_RUN, 0));
	ASSERT_EQ((unsigned)SKAS_EXIT_SYSCALL, crun->exit_reason);
	EXPECT_EQ(8, skas_rw(self->g.as, false, DATA, &v, 8));
	EXPECT_EQ(0xabcdefU, v);
	/* The parent runs on, from its own registers. */
	prun->regs.rax = 0;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(60U, prun->exit.syscall.nr);
	/* Two live threads: no reset. */
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_RESET, 0));
	EXPECT_EQ(EBUSY, errno);
	/* Closing the thread ends that thread only. */
	munmap(crun, SKAS_RUN_PAGE_SIZE);
	close(c.thread_fd);
	EXPECT_EQ(0, waitpid(self->g.pid, NULL, WNOHANG));
	prun->regs.rip = CODE;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(39U, prun->exit.syscall.nr);
	/* One thread again: reset works. */
	for (int i = 0; i < 100 && ioctl(self->g.as, SKAS_RESET, 0); i++)
		usleep(10000);
	EXPECT_EQ(0, ioctl(self->g.as, SKAS_RESET, 0));
}

/* Closing the address space kills every thread of it. */
TEST_F(guest, aspace_close_kills_all_threads)
{
	struct skas_clone c;
	int status;

	ASSERT_EQ(0, clone_thread(self->g.thread, &c));
	close(self->g.as);
	self->g.as = -1;
	ASSERT_EQ(self->g.pid, waitpid(self->g.pid, &status, 0));
	self->g.pid = 0;
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SKAS_EXIT_EXITED, skas_run(&self->g));
	close(c.thread_fd);
}

TEST_F(guest, clone_bad_args)
{
	struct skas_clone c;

	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.thread, SKAS_CLONE, SKAS_BAD_PTR));
	EXPECT_EQ(EFAULT, errno);
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = 4;	/* past SKAS_CLONE_THREAD | SKAS_CLONE_UNMARKED */
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.thread, SKAS_CLONE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.flags = 0;
	c.reserved[0] = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.thread, SKAS_CLONE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.reserved[0] = 0;
	c.size = 0;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.thread, SKAS_CLONE, &c));
	EXPECT_EQ(EINVAL, errno);
	/* On an address-space fd: not a thread command. */
	c.size = sizeof(c);
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_CLONE, &c));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(guest, clone_dead_thread_ESRCH)
{
	struct skas_clone c;

	ASSERT_EQ(0, kill(self->g.pid, SIGKILL));
	ASSERT_EQ(self->g.pid, waitpid(self->g.pid, NULL, 0));
	self->g.pid = 0;
	EXPECT_EQ(-ESRCH, do_clone(self->g.thread, &c));
}

TEST(clone_unattached_ENOENT)
{
	struct skas_clone c;
	int dev = skas_open_dev(), as, t;

	ASSERT_LE(0, dev);
	as = skas_create_aspace(dev);
	ASSERT_LE(0, as);
	t = skas_create_thread(as);
	ASSERT_LE(0, t);
	EXPECT_EQ(-ENOENT, do_clone(t, &c));
	close(t);
	close(as);
	close(dev);
}

TEST_HARNESS_MAIN
