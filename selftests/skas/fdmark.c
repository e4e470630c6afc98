// SPDX-License-Identifier: GPL-2.0
/*
 * fd marks (SKAS_CAP_FD_MARK): a NATIVE read or write with
 * SKAS_POLICY_MARKED runs on the host only on a guest fd the runtime
 * marked, SKAS_MEM_INSTALL_FD and SKAS_MEM_CLOSE_FD change the guest's fd
 * table and clear the marks, a fork copies them, an UNMARKED clone ignores
 * them, and every bad value is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

/* CODE: syscall; ud2.  A call that runs ends at the ud2 (SIGILL). */
static const unsigned char sc_ud2[] = { 0x0f, 0x05, 0x0f, 0x0b };

static int mark_fds(int as, unsigned int first, unsigned int count,
		    unsigned int marks)
{
	struct skas_mark_fds m;

	memset(&m, 0, sizeof(m));
	m.size = sizeof(m);
	m.first = first;
	m.count = count;
	m.marks = marks;
	return ioctl(as, SKAS_MARK_FDS, &m) ? -errno : 0;
}

static int set_marked(int as, unsigned int nr)
{
	return skas_set_policy_flags(as, nr, SKAS_POLICY_NATIVE,
				     SKAS_POLICY_MARKED, 0);
}

/* One SKAS_MEM fd operation; the ioctl's result or -errno. */
static int fd_op(int as, unsigned int op, int fd, unsigned long target,
		 unsigned int flags)
{
	return skas_mem1(as, op, target, 0, 0, flags, fd, 0);
}

/*
 * Run syscall @nr(@a0, @a1, @a2) in @thread: its result if it ran on the
 * host, else 1000 + the exit reason (a trap is 1000 + SKAS_EXIT_SYSCALL).
 */
static long call(int thread, struct skas_run *run, long nr, unsigned long a0,
		 unsigned long a1, unsigned long a2)
{
	skas_set_call(run, CODE, DATA + 4096, nr, a0, a1, a2, 0);
	if (ioctl(thread, SKAS_RUN, 0))
		return -10000 - errno;
	if (run->exit_reason == SKAS_EXIT_FAULT &&
	    run->exit.fault.signo == SIGILL && run->regs.rip == CODE + 2)
		return (long)run->regs.rax;
	return 1000 + run->exit_reason;
}

#define TRAPPED	(1000 + SKAS_EXIT_SYSCALL)

FIXTURE(mark) {
	struct skas_guest g;
	int p[2];	/* a pipe: its read end goes to the guest's fd 3 */
};

FIXTURE_SETUP(mark)
{
	int dev = skas_open_dev();
	long cap;

	ASSERT_LE(0, dev);
	cap = ioctl(dev, SKAS_CHECK_EXTENSION, SKAS_CAP_FD_MARK);
	close(dev);
	ASSERT_EQ(SKAS_FD_MARK_MAX, cap);
	ASSERT_EQ(0, skas_guest_start(&self->g));
	ASSERT_EQ(1, skas_map_anon(self->g.as, CODE, 4096,
				   PROT_READ | PROT_EXEC));
	ASSERT_EQ(1, skas_map_anon(self->g.as, DATA, 4096,
				   PROT_READ | PROT_WRITE));
	ASSERT_EQ(4, skas_rw(self->g.as, true, CODE, (void *)sc_ud2, 4));
	ASSERT_EQ(0, pipe2(self->p, O_NONBLOCK));
	ASSERT_EQ(1, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, self->p[0], 3, 0));
	ASSERT_EQ(0, set_marked(self->g.as, SYS_read));
	ASSERT_EQ(0, set_marked(self->g.as, SYS_write));
	ASSERT_EQ(0, set_marked(self->g.as, SYS_lseek));
}

FIXTURE_TEARDOWN(mark)
{
	skas_guest_stop(&self->g);
	close(self->p[0]);
	close(self->p[1]);
}

#define CALL(nr, a0, a1, a2) \
	call(self->g.thread, self->g.run, nr, a0, a1, a2)

TEST_F(mark, only_a_marked_fd_runs_natively)
{
	char buf[4] = "";

	ASSERT_EQ(2, write(self->p[1], "hi", 2));
	/* Installed but not marked: the runtime gets the call. */
	EXPECT_EQ(TRAPPED, CALL(SYS_read, 3, DATA, 2));
	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, SKAS_FD_MARK_READ));
	EXPECT_EQ(2, CALL(SYS_read, 3, DATA, 2));
	ASSERT_EQ(2, skas_rw(self->g.as, false, DATA, buf, 2));
	EXPECT_EQ(0, memcmp(buf, "hi", 2));
	/* The mark is per fd and per direction. */
	EXPECT_EQ(TRAPPED, CALL(SYS_read, 4, DATA, 2));
	EXPECT_EQ(TRAPPED, CALL(SYS_write, 3, DATA, 2));
	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, SKAS_FD_MARK_WRITE));
	EXPECT_EQ(TRAPPED, CALL(SYS_read, 3, DATA, 2));
	/* A pipe's read end cannot be written: the host says so. */
	EXPECT_EQ(-EBADF, CALL(SYS_write, 3, DATA, 2));
	/* lseek takes either mark (and a pipe cannot seek). */
	EXPECT_EQ(-ESPIPE, CALL(SYS_lseek, 3, 0, SEEK_SET));
	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, 0));
	EXPECT_EQ(TRAPPED, CALL(SYS_lseek, 3, 0, SEEK_SET));
	/* Unmarked numbers: a negative fd, one past the marks. */
	ASSERT_EQ(0, mark_fds(self->g.as, 0, SKAS_FD_MARK_MAX,
			      SKAS_FD_MARK_READ));
	EXPECT_EQ(TRAPPED, CALL(SYS_read, -1UL, DATA, 2));
	EXPECT_EQ(TRAPPED, CALL(SYS_read, SKAS_FD_MARK_MAX, DATA, 2));
	/* The kernel reads an int: the upper half is not the fd's. */
	ASSERT_EQ(1, write(self->p[1], "x", 1));
	EXPECT_EQ(1, CALL(SYS_read, (1UL << 32) | 3, DATA, 2));
	/* A marked fd the guest does not have: the host's EBADF. */
	EXPECT_EQ(-EBADF, CALL(SYS_read, 9, DATA, 2));
}

TEST_F(mark, marks_need_the_marked_policy)
{
	ASSERT_EQ(1, write(self->p[1], "x", 1));
	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, SKAS_FD_MARK_READ));
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_read, SKAS_POLICY_TRAP, 0));
	EXPECT_EQ(TRAPPED, CALL(SYS_read, 3, DATA, 1));
	ASSERT_EQ(0, set_marked(self->g.as, SYS_read));
	EXPECT_EQ(1, CALL(SYS_read, 3, DATA, 1));
}

TEST_F(mark, close_and_install_clear_the_marks)
{
	int q[2];

	ASSERT_EQ(0, pipe2(q, O_NONBLOCK));
	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, SKAS_FD_MARK_READ));
	/* Another file over fd 3: the mark named the old one. */
	ASSERT_EQ(1, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, q[0], 3, 0));
	EXPECT_EQ(TRAPPED, CALL(SYS_read, 3, DATA, 1));
	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, SKAS_FD_MARK_READ));
	ASSERT_EQ(1, write(q[1], "q", 1));
	EXPECT_EQ(1, CALL(SYS_read, 3, DATA, 1));
	/* Closed: unmarked, and really gone from the guest's table. */
	ASSERT_EQ(1, fd_op(self->g.as, SKAS_MEM_CLOSE_FD, -1, 3, 0));
	EXPECT_EQ(TRAPPED, CALL(SYS_read, 3, DATA, 1));
	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, SKAS_FD_MARK_READ));
	EXPECT_EQ(-EBADF, CALL(SYS_read, 3, DATA, 1));
	/* Closing a free number again is no error. */
	EXPECT_EQ(1, fd_op(self->g.as, SKAS_MEM_CLOSE_FD, -1, 3, 0));
	EXPECT_EQ(1, fd_op(self->g.as, SKAS_MEM_CLOSE_FD, -1, 1 << 30, 0));
	close(q[0]);
	close(q[1]);
}

/* An install can mark the fd itself, once it is there. */
TEST_F(mark, an_install_marks_what_it_installed)
{
	int q[2];

	ASSERT_EQ(0, pipe2(q, O_NONBLOCK));
	ASSERT_EQ(1, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, q[0], 7,
			   SKAS_INSTALL_MARK_READ));
	ASSERT_EQ(1, write(q[1], "q", 1));
	EXPECT_EQ(1, CALL(SYS_read, 7, DATA, 1));
	EXPECT_EQ(TRAPPED, CALL(SYS_write, 7, DATA, 1));
	/* Over a marked fd: the new marks only. */
	ASSERT_EQ(1, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, q[1], 7,
			   SKAS_INSTALL_MARK_WRITE));
	EXPECT_EQ(TRAPPED, CALL(SYS_read, 7, DATA, 1));
	EXPECT_EQ(1, CALL(SYS_write, 7, DATA, 1));
	/* Receiving the target number straight away (no dup3) marks too. */
	ASSERT_EQ(1, fd_op(self->g.as, SKAS_MEM_CLOSE_FD, -1, 0, 0));
	ASSERT_EQ(1, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, q[0], 0,
			   SKAS_INSTALL_MARK_READ | SKAS_FD_CLOEXEC));
	EXPECT_EQ(1, CALL(SYS_read, 0, DATA, 1));
	/* Without mark flags an install leaves the fd unmarked. */
	ASSERT_EQ(1, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, q[0], 7, 0));
	EXPECT_EQ(TRAPPED, CALL(SYS_write, 7, DATA, 1));
	/* The free number an install passes through loses its marks. */
	ASSERT_EQ(1, fd_op(self->g.as, SKAS_MEM_CLOSE_FD, -1, 0, 0));
	ASSERT_EQ(0, mark_fds(self->g.as, 0, 1, SKAS_FD_MARK_READ));
	EXPECT_EQ(-EBADF, CALL(SYS_read, 0, DATA, 1));
	ASSERT_EQ(1, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, q[0], 9, 0));
	EXPECT_EQ(TRAPPED, CALL(SYS_read, 0, DATA, 1));
	/* An install that fails marks nothing (past RLIMIT_NOFILE: EBADF). */
	EXPECT_EQ(-EBADF, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, q[0],
				1 << 30, SKAS_INSTALL_MARK_READ));
	close(q[0]);
	close(q[1]);
}

/* The guest cannot move a marked file itself: dup2 and close trap. */
TEST_F(mark, guest_cannot_move_a_marked_fd)
{
	ASSERT_EQ(0, mark_fds(self->g.as, 0, 16, SKAS_FD_MARK_READ));
	ASSERT_EQ(0, set_marked(self->g.as, SYS_fstat));
	EXPECT_EQ(TRAPPED, CALL(SYS_dup2, 3, 5, 0));
	EXPECT_EQ(TRAPPED, CALL(SYS_close, 3, 0, 0));
	EXPECT_EQ(-EBADF, CALL(SYS_fstat, 5, DATA, 0));
	EXPECT_EQ(0, CALL(SYS_fstat, 3, DATA, 0));
	/* dup2 and close are not on the safe list at all. */
	EXPECT_EQ(-EPERM, skas_set_policy(self->g.as, SYS_dup2,
					  SKAS_POLICY_NATIVE, 0));
	EXPECT_EQ(-EPERM, skas_set_policy(self->g.as, SYS_close,
					  SKAS_POLICY_NATIVE, 0));
}

static int clone_flags(int thread, unsigned int flags, struct skas_clone *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->flags = flags;
	return ioctl(thread, SKAS_CLONE, c) ? -errno : 0;
}

static struct skas_run *map_child(struct skas_clone *c)
{
	void *p = mmap(NULL, SKAS_RUN_PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED, c->thread_fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

TEST_F(mark, fork_copies_the_table_and_the_marks)
{
	struct skas_clone c;
	struct skas_run *crun;

	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, SKAS_FD_MARK_READ));
	ASSERT_EQ(0, clone_flags(self->g.thread, 0, &c));
	crun = map_child(&c);
	ASSERT_NE(NULL, crun);
	ASSERT_EQ(2, write(self->p[1], "ab", 2));
	EXPECT_EQ(1, call(c.thread_fd, crun, SYS_read, 3, DATA, 1));
	/* The child's marks are its own from now on. */
	ASSERT_EQ(0, mark_fds(c.aspace_fd, 3, 1, 0));
	EXPECT_EQ(TRAPPED, call(c.thread_fd, crun, SYS_read, 3, DATA, 1));
	EXPECT_EQ(1, CALL(SYS_read, 3, DATA, 1));
	munmap(crun, SKAS_RUN_PAGE_SIZE);
	close(c.thread_fd);
	close(c.aspace_fd);
	waitpid(c.host_tid, NULL, 0);
}

TEST_F(mark, unmarked_clones_trap_marked_calls)
{
	struct skas_clone c, gc;
	struct skas_run *crun, *gcrun;

	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, SKAS_FD_MARK_READ));
	ASSERT_EQ(1, write(self->p[1], "a", 1));
	ASSERT_EQ(0, clone_flags(self->g.thread,
				 SKAS_CLONE_THREAD | SKAS_CLONE_UNMARKED, &c));
	crun = map_child(&c);
	ASSERT_NE(NULL, crun);
	EXPECT_EQ(TRAPPED, call(c.thread_fd, crun, SYS_read, 3, DATA, 1));
	/* Its threads inherit it. */
	ASSERT_EQ(0, clone_flags(c.thread_fd, SKAS_CLONE_THREAD, &gc));
	gcrun = map_child(&gc);
	ASSERT_NE(NULL, gcrun);
	EXPECT_EQ(TRAPPED, call(gc.thread_fd, gcrun, SYS_read, 3, DATA, 1));
	munmap(gcrun, SKAS_RUN_PAGE_SIZE);
	close(gc.thread_fd);
	/* Its fork has a host table (and marks) of its own: marked. */
	ASSERT_EQ(0, clone_flags(c.thread_fd, 0, &gc));
	gcrun = map_child(&gc);
	ASSERT_NE(NULL, gcrun);
	EXPECT_EQ(1, call(gc.thread_fd, gcrun, SYS_read, 3, DATA, 1));
	ASSERT_EQ(1, write(self->p[1], "b", 1));
	close(gc.aspace_fd);
	waitpid(gc.host_tid, NULL, 0);
	/* The other threads of the address space still use the mark. */
	EXPECT_EQ(1, CALL(SYS_read, 3, DATA, 1));
	munmap(gcrun, SKAS_RUN_PAGE_SIZE);
	close(gc.thread_fd);
	munmap(crun, SKAS_RUN_PAGE_SIZE);
	close(c.thread_fd);
}

/*
 * A native read blocked on fd 3 when the runtime closes fd 3 (through
 * another, stopped thread) keeps the file it started with, as a read
 * racing close() does on Linux; the next read of fd 3 traps.
 */
struct bg {
	int thread;
	struct skas_run *run;
	long ret;
};

static void *bg_read(void *p)
{
	struct bg *b = p;

	b->ret = call(b->thread, b->run, SYS_read, 3, DATA, 1);
	return NULL;
}

TEST_F(mark, close_while_a_native_read_waits)
{
	struct timespec ts = { 0, 200 * 1000000L };
	struct skas_clone c;
	struct bg b;
	pthread_t th;
	int q[2];

	ASSERT_EQ(0, pipe(q));		/* blocking */
	ASSERT_EQ(1, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, q[0], 3, 0));
	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, SKAS_FD_MARK_READ));
	ASSERT_EQ(0, clone_flags(self->g.thread, SKAS_CLONE_THREAD, &c));
	b.thread = self->g.thread;
	b.run = self->g.run;
	ASSERT_EQ(0, pthread_create(&th, NULL, bg_read, &b));
	nanosleep(&ts, NULL);
	/* Only the child is stopped: the batch runs in it. */
	ASSERT_EQ(1, fd_op(self->g.as, SKAS_MEM_CLOSE_FD, -1, 3, 0));
	ASSERT_EQ(1, write(q[1], "z", 1));
	pthread_join(th, NULL);
	EXPECT_EQ(1, b.ret);
	EXPECT_EQ(TRAPPED, CALL(SYS_read, 3, DATA, 1));
	close(c.thread_fd);
	close(q[0]);
	close(q[1]);
}

TEST_F(mark, bad_values)
{
	struct skas_mark_fds m;
	struct skas_policy p;
	struct skas_clone c;

	/* SKAS_MARK_FDS */
	EXPECT_EQ(-EINVAL, mark_fds(self->g.as, 0, 1, 4));
	EXPECT_EQ(-EINVAL, mark_fds(self->g.as, SKAS_FD_MARK_MAX, 1, 1));
	EXPECT_EQ(-EINVAL, mark_fds(self->g.as, 1000, 25, 1));
	EXPECT_EQ(-EINVAL, mark_fds(self->g.as, 1, ~0U, 1));
	EXPECT_EQ(-EINVAL, mark_fds(self->g.as, ~0U, 2, 1));
	EXPECT_EQ(0, mark_fds(self->g.as, SKAS_FD_MARK_MAX, 0, 1));
	EXPECT_EQ(0, mark_fds(self->g.as, 0, SKAS_FD_MARK_MAX, 3));
	memset(&m, 0, sizeof(m));
	m.size = sizeof(m) - 1;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_MARK_FDS, &m));
	EXPECT_EQ(EINVAL, errno);
	m.size = sizeof(m);
	m.reserved[1] = 1;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_MARK_FDS, &m));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_MARK_FDS, SKAS_BAD_PTR));
	EXPECT_EQ(EFAULT, errno);
	/* Not on a thread fd or /dev/skas. */
	EXPECT_EQ(-1, ioctl(self->g.thread, SKAS_MARK_FDS, &m));
	EXPECT_EQ(ENOTTY, errno);

	/* SKAS_POLICY_MARKED: NATIVE calls on an fd only. */
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.nr = SYS_read;
	p.flags = SKAS_POLICY_MARKED;
	p.action = SKAS_POLICY_TRAP;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_SET_POLICY, &p));
	EXPECT_EQ(EINVAL, errno);
	p.action = SKAS_POLICY_CONST;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_SET_POLICY, &p));
	EXPECT_EQ(EINVAL, errno);
	p.action = SKAS_POLICY_NATIVE;
	p.nr = SYS_clock_gettime;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_SET_POLICY, &p));
	EXPECT_EQ(EINVAL, errno);
	p.nr = SYS_close;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_SET_POLICY, &p));
	EXPECT_EQ(EINVAL, errno);
	p.nr = SYS_read;
	p.flags = 2;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_SET_POLICY, &p));
	EXPECT_EQ(EINVAL, errno);

	/* The fd operations */
	EXPECT_EQ(-EINVAL, skas_mem1(self->g.as, SKAS_MEM_INSTALL_FD, 3, 4096,
				     0, 0, self->p[0], 0));
	EXPECT_EQ(-EINVAL, skas_mem1(self->g.as, SKAS_MEM_INSTALL_FD, 3, 0,
				     PROT_READ, 0, self->p[0], 0));
	EXPECT_EQ(-EINVAL, skas_mem1(self->g.as, SKAS_MEM_INSTALL_FD, 3, 0,
				     0, 0, self->p[0], 4096));
	EXPECT_EQ(-EINVAL, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, self->p[0],
				 3, 2));
	EXPECT_EQ(-EINVAL, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, self->p[0],
				 3, 0x400));
	EXPECT_EQ(-EINVAL, fd_op(self->g.as, SKAS_MEM_CLOSE_FD, -1, 3,
				 SKAS_INSTALL_MARK_READ));
	EXPECT_EQ(-EINVAL, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, self->p[0],
				 1UL << 31, 0));
	EXPECT_EQ(-EINVAL, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, self->p[0],
				 -1UL, 0));
	EXPECT_EQ(-EBADF, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, 999, 3, 0));
	EXPECT_EQ(-EBADF, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, -1, 3, 0));
	EXPECT_EQ(-EINVAL, fd_op(self->g.as, SKAS_MEM_INSTALL_FD, self->g.as,
				 3, 0));
	EXPECT_EQ(-EINVAL, fd_op(self->g.as, SKAS_MEM_INSTALL_FD,
				 self->g.thread, 3, 0));
	EXPECT_EQ(-EINVAL, fd_op(self->g.as, SKAS_MEM_CLOSE_FD, 0, 3, 0));
	EXPECT_EQ(-EINVAL, fd_op(self->g.as, SKAS_MEM_CLOSE_FD, -1, 3,
				 SKAS_FD_CLOEXEC));
	EXPECT_EQ(-EINVAL, fd_op(self->g.as, SKAS_MEM_CLOSE_FD, -1,
				 1UL << 31, 0));
	EXPECT_EQ(-EINVAL, skas_mem1(self->g.as, SKAS_MEM_CLOSE_FD, 3, 0, 0, 0,
				     -1, 8));
	EXPECT_EQ(-EINVAL, skas_mem1(self->g.as, 6, 0x100000, 4096, 0, 0,
				     -1, 0));
	/* Nothing of those reached the guest: fd 3 still reads the pipe. */
	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, SKAS_FD_MARK_READ));
	ASSERT_EQ(1, write(self->p[1], "k", 1));
	EXPECT_EQ(1, CALL(SYS_read, 3, DATA, 1));

	/* SKAS_CLONE's flags */
	EXPECT_EQ(-EINVAL, clone_flags(self->g.thread, 4, &c));
	EXPECT_EQ(-EINVAL, clone_flags(self->g.thread, ~0U, &c));
}

TEST_HARNESS_MAIN
