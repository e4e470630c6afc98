// SPDX-License-Identifier: GPL-2.0
/*
 * fd marks (SKAS_CAP_FD_MARK): a NATIVE read or write with
 * SKAS_POLICY_MARKED runs on the host only on a guest fd the runtime
 * marked, SKAS_MEM_INSTALL_FD and SKAS_MEM_CLOSE_FD change the guest's fd
 * table and clear the marks, a fork copies them, an UNMARKED clone ignores
 * them, an empty-path newfstatat runs as fstat, and every bad value is
 * refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
 * Run syscall @nr(@a0, @a1, @a2, @a3) in @thread: its result if it ran on
 * the host, else 1000 + the exit reason (a trap is 1000 +
 * SKAS_EXIT_SYSCALL).
 */
static long call4(int thread, struct skas_run *run, long nr, unsigned long a0,
		  unsigned long a1, unsigned long a2, unsigned long a3)
{
	skas_set_call(run, CODE, DATA + 4096, nr, a0, a1, a2, a3);
	if (ioctl(thread, SKAS_RUN, 0))
		return -10000 - errno;
	if (run->exit_reason == SKAS_EXIT_FAULT &&
	    run->exit.fault.signo == SIGILL && run->regs.rip == CODE + 2)
		return (long)run->regs.rax;
	return 1000 + run->exit_reason;
}

static long call(int thread, struct skas_run *run, long nr, unsigned long a0,
		 unsigned long a1, unsigned long a2)
{
	return call4(thread, run, nr, a0, a1, a2, 0);
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
#define CALL4(nr, a0, a1, a2, a3) \
	call4(self->g.thread, self->g.run, nr, a0, a1, a2, a3)

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

#define EMPTY	(DATA + 0x400)	/* "" */
#define STBUF	(DATA + 0x800)	/* a struct stat */

/* The inode a guest's stat wrote to STBUF, or 0. */
static unsigned long guest_ino(int as, mode_t *mode)
{
	struct stat st;

	if (skas_rw(as, false, STBUF, &st, sizeof(st)) != sizeof(st))
		return 0;
	*mode = st.st_mode;
	return st.st_ino;
}

/*
 * glibc's fstat() is newfstatat(fd, "", buf, AT_EMPTY_PATH): on a marked
 * fd it runs on the host (as fstat, which reads no path), and every other
 * form of the call traps.  rsi comes back as the guest left it.
 */
TEST_F(mark, empty_path_fstatat_runs_as_fstat)
{
	const char x[2] = "x";
	struct stat st;
	mode_t mode;
	char c;

	ASSERT_EQ(0, fstat(self->p[0], &st));
	/* The probe reads only a path in memory (else it traps): fault it in. */
	ASSERT_EQ(1, skas_rw(self->g.as, false, EMPTY, &c, 1));
	ASSERT_EQ(0, set_marked(self->g.as, SYS_newfstatat));
	EXPECT_EQ(TRAPPED, CALL4(SYS_newfstatat, 3, EMPTY, STBUF, AT_EMPTY_PATH));
	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, SKAS_FD_MARK_READ));
	EXPECT_EQ(0, CALL4(SYS_newfstatat, 3, EMPTY, STBUF, AT_EMPTY_PATH));
	EXPECT_EQ(st.st_ino, guest_ino(self->g.as, &mode));
	EXPECT_TRUE(S_ISFIFO(mode));
	EXPECT_EQ(EMPTY, self->g.run->regs.rsi);
	EXPECT_EQ(STBUF, self->g.run->regs.rdx);
	EXPECT_EQ((__u64)AT_EMPTY_PATH, self->g.run->regs.r10);
	/* The flags are an int, as to the kernel. */
	EXPECT_EQ(0, CALL4(SYS_newfstatat, 3, EMPTY, STBUF,
			   (1UL << 32) | AT_EMPTY_PATH));
	/* Any other flags, a path, no path: the runtime's. */
	EXPECT_EQ(TRAPPED, CALL4(SYS_newfstatat, 3, EMPTY, STBUF, 0));
	EXPECT_EQ(TRAPPED, CALL4(SYS_newfstatat, 3, EMPTY, STBUF,
				 AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
	EXPECT_EQ(TRAPPED, CALL4(SYS_newfstatat, 3, EMPTY, STBUF, -1UL));
	ASSERT_EQ(2, skas_rw(self->g.as, true, DATA + 0x500, (void *)x, 2));
	EXPECT_EQ(TRAPPED, CALL4(SYS_newfstatat, 3, DATA + 0x500, STBUF,
				 AT_EMPTY_PATH));
	EXPECT_EQ(TRAPPED, CALL4(SYS_newfstatat, 3, 0, STBUF, AT_EMPTY_PATH));
	EXPECT_EQ(TRAPPED, CALL4(SYS_newfstatat, 3, 0x300000, STBUF,
				 AT_EMPTY_PATH));
	EXPECT_EQ(TRAPPED, CALL4(SYS_newfstatat, 3, -1UL, STBUF, AT_EMPTY_PATH));
	/* The host's errors, rsi back all the same. */
	EXPECT_EQ(-EFAULT, CALL4(SYS_newfstatat, 3, EMPTY, 0x300000,
				 AT_EMPTY_PATH));
	EXPECT_EQ(EMPTY, self->g.run->regs.rsi);
	ASSERT_EQ(0, mark_fds(self->g.as, 9, 1, SKAS_FD_MARK_READ));
	EXPECT_EQ(-EBADF, CALL4(SYS_newfstatat, 9, EMPTY, STBUF, AT_EMPTY_PATH));
	/* Unmarked again: trapped. */
	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, 0));
	EXPECT_EQ(TRAPPED, CALL4(SYS_newfstatat, 3, EMPTY, STBUF, AT_EMPTY_PATH));
	/*
	 * NATIVE without MARKED takes any fd, but never AT_FDCWD (the
	 * runtime's cwd is not the task's) or another negative one.
	 */
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_newfstatat,
				     SKAS_POLICY_NATIVE, 0));
	EXPECT_EQ(0, CALL4(SYS_newfstatat, 3, EMPTY, STBUF, AT_EMPTY_PATH));
	EXPECT_EQ(TRAPPED, CALL4(SYS_newfstatat, AT_FDCWD, EMPTY, STBUF,
				 AT_EMPTY_PATH));
	EXPECT_EQ(TRAPPED, CALL4(SYS_newfstatat, (unsigned int)AT_FDCWD, EMPTY,
				 STBUF, AT_EMPTY_PATH));
	EXPECT_EQ(TRAPPED, CALL4(SYS_newfstatat, -1UL, EMPTY, STBUF,
				 AT_EMPTY_PATH));
}

/*
 * Guest code at CODE + 0x100: newfstatat(3, EMPTY, STBUF, AT_EMPTY_PATH)
 * in a loop, checking that it returns 0 and that rsi, rdx and r10 come
 * back unchanged; ud2 if not.
 */
static const unsigned char fstatat_loop[] = {
	0xbf, 0x03, 0x00, 0x00, 0x00,		/* mov edi, 3 */
	0xbe, 0x00, 0x04, 0x20, 0x00,		/* mov esi, EMPTY */
	0xba, 0x00, 0x08, 0x20, 0x00,		/* mov edx, STBUF */
	0x41, 0xba, 0x00, 0x10, 0x00, 0x00,	/* mov r10d, AT_EMPTY_PATH */
	0xb8, 0x06, 0x01, 0x00, 0x00,		/* mov eax, 262 */
	0x0f, 0x05,				/* syscall */
	0x48, 0x85, 0xc0, 0x75, 0x1d,		/* test rax, rax; jnz bad */
	0x48, 0x81, 0xfe, 0x00, 0x04, 0x20, 0x00, 0x75, 0x14,	/* rsi */
	0x48, 0x81, 0xfa, 0x00, 0x08, 0x20, 0x00, 0x75, 0x0b,	/* rdx */
	0x49, 0x81, 0xfa, 0x00, 0x10, 0x00, 0x00, 0x75, 0x02,	/* r10 */
	0xeb, 0xc2,				/* jmp loop */
	0x0f, 0x0b,				/* bad: ud2 */
};

struct kicker {
	int thread;
	volatile int stop;
};

static void *kick_often(void *arg)
{
	struct kicker *k = arg;
	const struct timespec t = { 0, 500000 };

	while (!k->stop) {
		ioctl(k->thread, SKAS_KICK, 0);
		nanosleep(&t, NULL);
	}
	return NULL;
}

/*
 * Kicks land anywhere in a loop of native empty-path newfstatat, some in
 * the call's way out, where a stop parks before the task_work that puts
 * rsi back: every stop shows the guest's registers, and the loop never
 * sees them changed.
 */
TEST_F(mark, kicks_during_native_fstatat_see_the_guest_registers)
{
	struct kicker k = { .thread = self->g.thread };
	struct skas_run *run = self->g.run;
	pthread_t th;
	char c;
	int i;

	ASSERT_EQ((long)sizeof(fstatat_loop),
		  skas_rw(self->g.as, true, CODE + 0x100, (void *)fstatat_loop,
			  sizeof(fstatat_loop)));
	ASSERT_EQ(0, set_marked(self->g.as, SYS_newfstatat));
	ASSERT_EQ(0, mark_fds(self->g.as, 3, 1, SKAS_FD_MARK_READ));
	ASSERT_EQ(1, skas_rw(self->g.as, false, EMPTY, &c, 1));
	skas_set_call(run, CODE + 0x100, DATA + 4096, 0, 0, 0, 0, 0);
	ASSERT_EQ(0, pthread_create(&th, NULL, kick_often, &k));
	for (i = 0; i < 300; i++) {
		ASSERT_EQ(0, ioctl(self->g.thread, SKAS_RUN, 0));
		ASSERT_EQ((__u32)SKAS_EXIT_INTERRUPTED, run->exit_reason)
			TH_LOG("stop %d: reason %u at %#llx", i,
			       run->exit_reason, (unsigned long long)run->regs.rip);
		ASSERT_LE(CODE + 0x100, run->regs.rip);
		ASSERT_GT(CODE + 0x100 + sizeof(fstatat_loop) - 2, run->regs.rip);
		/* Past the first two moves, the guest's rsi is EMPTY. */
		if (run->regs.rip > CODE + 0x105) {
			ASSERT_EQ(EMPTY, run->regs.rsi)
				TH_LOG("stop %d at %#llx", i,
				       (unsigned long long)run->regs.rip);
		}
	}
	k.stop = 1;
	pthread_join(th, NULL);
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
