// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 12 (security review), items 9 and 10: the module's kernel memory
 * is charged to the caller's memory cgroup, its ioctls fail cleanly at
 * each allocation failure (fail-nth), SKAS_INSTALL_FD refuses skas
 * descriptors, and SKAS_ATTACH refuses a stub that shares its fd table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

#define DATA	0x200000UL
#define FILEMAP	0x300000UL
#define CGROOT	"/sys/fs/cgroup"

/* Wait up to 5 s for the module's object count to be @want; returns it. */
static long objects_settle(long want)
{
	long n = skas_param("objects");

	for (int i = 0; i < 500 && n != want; i++) {
		usleep(10000);
		n = skas_param("objects");
	}
	return n;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* The value of @key in a flat-keyed file (memory.events), or -1. */
static long read_key(const char *path, const char *key)
{
	char line[128], k[64];
	long v, ret = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", k, &v) == 2 && !strcmp(k, key))
			ret = v;
	fclose(f);
	return ret;
}

static long read_long(const char *path)
{
	char buf[32] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
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

static int guest_nr_fds(pid_t pid)
{
	char path[64];
	int n = 0;

	for (int fd = 0; fd < 64; fd++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
		if (!access(path, F_OK))
			n++;
	}
	return n;
}

/*
 * A skas descriptor in the guest's own table would be a reference cycle
 * (the guest keeps its address space, whose last close is what kills it,
 * alive after its runtime is gone) and would hand the guest the ioctls
 * that drive it: SKAS_INSTALL_FD refuses them.
 */
TEST_F(guest, install_fd_refuses_skas_descriptors)
{
	int other = skas_create_aspace(self->g.dev);
	int p[2];

	ASSERT_LE(0, other);
	EXPECT_EQ(-EINVAL, skas_install_fd(self->g.as, self->g.dev, 3, 0));
	EXPECT_EQ(-EINVAL, skas_install_fd(self->g.as, self->g.as, 4, 0));
	EXPECT_EQ(-EINVAL, skas_install_fd(self->g.as, self->g.thread, 5, 0));
	EXPECT_EQ(-EINVAL, skas_install_fd(self->g.as, other, 6, 0));
	EXPECT_EQ(0, guest_nr_fds(self->g.pid));
	close(other);
	/* Anything else still goes in. */
	ASSERT_EQ(0, pipe(p));
	EXPECT_EQ(0, skas_install_fd(self->g.as, p[0], 3, 0));
	EXPECT_EQ(1, guest_nr_fds(self->g.pid));
	close(p[0]);
	close(p[1]);
}

/*
 * The same cycle through a mapping: a guest mapping of a thread's run page
 * holds the thread's file.  SKAS_MEM refuses skas descriptors for file
 * mappings (the others have no mmap).
 */
TEST_F(guest, mem_map_refuses_skas_descriptors)
{
	int other = skas_create_thread(self->g.as);

	ASSERT_LE(0, other);
	EXPECT_EQ(-EINVAL, skas_mem1(self->g.as, SKAS_MEM_MAP, FILEMAP, 4096,
				     PROT_READ | PROT_WRITE, SKAS_MAP_SHARED,
				     self->g.thread, 0));
	EXPECT_EQ(-EINVAL, skas_mem1(self->g.as, SKAS_MEM_MAP, FILEMAP, 4096,
				     PROT_READ | PROT_WRITE, SKAS_MAP_SHARED,
				     other, 0));
	EXPECT_EQ(-EINVAL, skas_mem1(self->g.as, SKAS_MEM_MAP, FILEMAP, 4096,
				     PROT_READ, SKAS_MAP_SHARED, self->g.as,
				     0));
	close(other);
	/* Nothing was mapped there. */
	EXPECT_EQ(-EFAULT, skas_rw(self->g.as, false, FILEMAP, &other, 1));
}

/*
 * A stub sharing its fd table (clone(CLONE_FILES) without CLONE_VM):
 * hollowing would close the other task's descriptors, and NATIVE I/O
 * would reach them.  SKAS_ATTACH says EBUSY; nothing is closed.
 */
TEST(attach_refused_with_shared_fd_table)
{
	int dev, as, thread, probe, status = 0;
	pid_t pid;

	dev = skas_open_dev();
	ASSERT_LE(0, dev);
	as = skas_create_aspace(dev);
	ASSERT_LE(0, as);
	thread = skas_create_thread(as);
	ASSERT_LE(0, thread);
	probe = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, probe);
	pid = syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
	ASSERT_LE(0, pid);
	if (pid == 0)
		skas_stub_main(thread);	/* exits with attach's errno */
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == EBUSY)
		TH_LOG("stub status %#x", status);
	/* Our descriptors are all still there. */
	EXPECT_LE(0, fcntl(probe, F_GETFD));
	EXPECT_LE(0, fcntl(thread, F_GETFD));
	close(probe);
	close(thread);
	close(as);
	close(dev);
	EXPECT_EQ(0, skas_wait_param_zero("objects"));
}

/*
 * Memory cgroups.  cgroup2 is mounted here if init did not; the test's
 * child moves itself into a cgroup of its own.
 */
#define MEMCG_WARM	128	/* objects measured without a limit */
#define MEMCG_MAX	600	/* objects tried under the limit */
#define MEMCG_ROOM	(2 << 20)

struct memcg_result {
	int ready;
	int count;	/* address space + thread pairs created */
	int err;	/* errno of the failure that ended the loop, or 0 */
	long before, after;	/* memory.current around MEMCG_WARM pairs */
};

static int memcg_setup(struct __test_metadata *_metadata, char *dir,
		       size_t len)
{
	char buf[256] = { 0 };
	int fd, n;

	if (access(CGROOT "/cgroup.controllers", F_OK) &&
	    mount("cgroup2", CGROOT, "cgroup2", 0, NULL))
		SKIP(return -1, "no cgroup2 at " CGROOT ": %s", strerror(errno));
	fd = open(CGROOT "/cgroup.controllers", O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0 || !strstr(buf, "memory"))
		SKIP(return -1, "no memory controller (CONFIG_MEMCG)");
	write_str(CGROOT "/cgroup.subtree_control", "+memory");
	snprintf(dir, len, CGROOT "/skas-hardening-%d", getpid());
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Make address space + thread pairs (each with a policy) up to @max. */
static void memcg_fill(int dev, struct memcg_result *r, int max)
{
	int as, thread;

	int ret;

	while (r->count < max) {
		as = skas_create_aspace(dev);
		if (as < 0) {
			r->err = -as;
			return;
		}
		ret = skas_set_policy(as, SYS_getpid, SKAS_POLICY_CONST, 1);
		if (ret) {
			r->err = -ret;
			return;
		}
		thread = skas_create_thread(as);
		if (thread < 0) {
			r->err = -thread;
			return;
		}
		r->count++;
	}
}

static void __attribute__((noreturn))
memcg_child(const char *dir, struct memcg_result *r)
{
	struct rlimit nofile = { 4096, 4096 };
	char path[256], pid[32], max[32];
	volatile char stack[65536];
	int dev;

	/* Fault the stack in now, not under the limit. */
	for (size_t i = 0; i < sizeof(stack); i += 1024)
		stack[i] = 1;
	if (setrlimit(RLIMIT_NOFILE, &nofile))
		_exit(10);
	dev = skas_open_dev();
	if (dev < 0)
		_exit(11);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_str(path, pid))
		_exit(12);
	snprintf(path, sizeof(path), "%s/memory.current", dir);
	r->before = read_long(path);
	memcg_fill(dev, r, MEMCG_WARM);
	r->after = read_long(path);
	if (r->err)
		_exit(13);
	snprintf(path, sizeof(path), "%s/memory.max", dir);
	snprintf(max, sizeof(max), "%ld", r->after + MEMCG_ROOM);
	if (write_str(path, max))
		_exit(14);
	r->ready = 1;
	memcg_fill(dev, r, MEMCG_MAX);
	_exit(0);
}

/*
 * Each address space, thread (its run page) and policy table is charged
 * to the creator's memory cgroup, so a cgroup with a small memory.max
 * cannot pin kernel memory without bound: creating them fails (ENOMEM),
 * or the cgroup's OOM killer ends the creator.
 */
TEST(memcg_charges_and_limits_objects)
{
	struct memcg_result *r;
	char dir[128], path[256];
	long per, events_max, oom_kill;
	int status;
	pid_t pid;

	if (memcg_setup(_metadata, dir, sizeof(dir)))
		return;
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	memset(r, 0, sizeof(*r));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		memcg_child(dir, r);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	snprintf(path, sizeof(path), "%s/memory.events", dir);
	events_max = read_key(path, "max");
	oom_kill = read_key(path, "oom_kill");
	TH_LOG("status %#x, %d pairs, err %d, %ld -> %ld bytes, events max %ld oom_kill %ld",
	       status, r->count, r->err, r->before, r->after, events_max,
	       oom_kill);
	ASSERT_TRUE(r->ready) TH_LOG("child exit %d", WEXITSTATUS(status));
	/* At least the run page and the 8 KiB policy table per pair. */
	per = (r->after - r->before) / MEMCG_WARM;
	EXPECT_LE(SKAS_RUN_PAGE_SIZE + SKAS_POLICY_NR * 16, per);
	/* The limit ends the loop: ENOMEM, or the OOM killer. */
	EXPECT_GT(MEMCG_MAX, r->count);
	EXPECT_TRUE((WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		     r->err == ENOMEM) ||
		    (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
		     oom_kill > 0));
	EXPECT_LT(0, events_max);
	EXPECT_EQ(0, skas_wait_param_zero("objects"));
	EXPECT_EQ(0, rmdir(dir)) TH_LOG("rmdir %s: %s", dir, strerror(errno));
	munmap(r, sizeof(*r));
}

/*
 * fail-nth (CONFIG_FAULT_INJECTION): the n-th fault point of this thread
 * fails.  failslab and fail_page_alloc skip sleeping and order-0
 * allocations unless told otherwise.
 */
static int nth_open(struct __test_metadata *_metadata)
{
	static const char *const knobs[][2] = {
		{ "/sys/kernel/debug/failslab/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/failslab/verbose", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", "N" },
		{ "/sys/kernel/debug/fail_page_alloc/min-order", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/verbose", "0" },
	};
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	fd = open(path, O_RDWR | O_CLOEXEC);
	/* The debug kernel (the one with kmemleak) must run the walk. */
	if (fd < 0 && !access("/sys/kernel/debug/kmemleak", F_OK)) {
		TH_LOG("no %s on a kmemleak kernel: %s", path, strerror(errno));
		return -2;
	}
	if (fd < 0)
		SKIP(return -1, "no %s (CONFIG_FAULT_INJECTION): %s", path,
		     strerror(errno));
	/* With fail-nth, the kernel must have failslab and fail_page_alloc. */
	for (unsigned int i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (write_str(knobs[i][0], knobs[i][1])) {
			close(fd);
			TH_LOG("%s: %s", knobs[i][0], strerror(errno));
			return -2;
		}
	return fd;
}

static void nth_arm(int fd, int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	if (pwrite(fd, buf, len, 0) != len)
		abort();
}

/* Did the armed failure happen?  Disarms. */
static bool nth_fired(int fd)
{
	char buf[16] = { 0 };
	bool fired;

	if (pread(fd, buf, sizeof(buf) - 1, 0) <= 0)
		abort();
	fired = atoi(buf) == 0;
	if (pwrite(fd, "0", 1, 0) != 1)
		abort();
	return fired;
}

enum nth_op {
	NTH_CREATE_ASPACE, NTH_CREATE_THREAD, NTH_SET_POLICY, NTH_MEM,
	NTH_MEM_READ, NTH_CLONE, NTH_OPS
};

static const char *const nth_names[NTH_OPS] = {
	"SKAS_CREATE_ASPACE", "SKAS_CREATE_THREAD", "SKAS_SET_POLICY",
	"SKAS_MEM", "SKAS_MEM_READ", "SKAS_CLONE",
};

struct nth_ctx {
	struct skas_guest *g;
	int memfd;
	int fresh;		/* NTH_SET_POLICY: a new address space */
	struct skas_clone clone;
};

static void nth_prepare(struct nth_ctx *c, enum nth_op op)
{
	c->fresh = -1;
	if (op == NTH_SET_POLICY)
		c->fresh = skas_create_aspace(c->g->dev);
	memset(&c->clone, 0, sizeof(c->clone));
	c->clone.size = sizeof(c->clone);
}

/* The ioctl under test; >= 0 or -errno. */
static int nth_do(struct nth_ctx *c, enum nth_op op)
{
	char buf[64];

	switch (op) {
	case NTH_CREATE_ASPACE:
		return skas_create_aspace(c->g->dev);
	case NTH_CREATE_THREAD:
		return skas_create_thread(c->g->as);
	case NTH_SET_POLICY:
		return skas_set_policy(c->fresh, SYS_getpid, SKAS_POLICY_CONST,
				       7);
	case NTH_MEM:
		/* A file mapping: the batch holds its file. */
		return skas_mem1(c->g->as, SKAS_MEM_MAP, FILEMAP, 4096,
				 PROT_READ, SKAS_MAP_SHARED, c->memfd, 0);
	case NTH_MEM_READ:
		return skas_rw(c->g->as, false, DATA, buf, sizeof(buf));
	case NTH_CLONE:
		return ioctl(c->g->thread, SKAS_CLONE, &c->clone) ? -errno : 0;
	default:
		return -EINVAL;
	}
}

/* Undo what a call did (or the preparation). */
static void nth_undo(struct nth_ctx *c, enum nth_op op, int ret)
{
	switch (op) {
	case NTH_CREATE_ASPACE:
	case NTH_CREATE_THREAD:
		if (ret >= 0)
			close(ret);
		break;
	case NTH_CLONE:
		if (ret == 0) {
			close(c->clone.thread_fd);
			close(c->clone.aspace_fd);
			waitpid(c->clone.host_tid, NULL, 0);
		}
		/* A child forked before the failure is killed: reap it. */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		break;
	default:
		break;
	}
	if (c->fresh >= 0)
		close(c->fresh);
}

/*
 * Every slab allocation of this task fails while @on (failslab's
 * task-filter and /proc/self/make-it-fail): for an allocation whose single
 * failure a fallback hides (kvmalloc() tries vmalloc()).  The files are
 * opened before, so that turning it off allocates nothing.
 */
static int all_fail(int mif, bool on)
{
	static const char *const knobs[][3] = {
		{ "/sys/kernel/debug/failslab/task-filter", "N", "Y" },
		{ "/sys/kernel/debug/failslab/interval", "1", "1" },
		{ "/sys/kernel/debug/failslab/times", "0", "-1" },
		{ "/sys/kernel/debug/failslab/probability", "0", "100" },
	};

	unsigned int i, n = sizeof(knobs) / sizeof(knobs[0]);

	/*
	 * In an order that never lets the failures reach another task: the
	 * task filter first on, last off.
	 */
	if (!on && pwrite(mif, "0", 1, 0) != 1)
		return -errno;
	for (i = 0; i < n; i++)
		if (write_str(knobs[on ? i : n - 1 - i][0],
			      knobs[on ? i : n - 1 - i][on ? 2 : 1]))
			return -errno;
	if (on && pwrite(mif, "1", 1, 0) != 1)
		return -errno;
	return 0;
}

/*
 * Walk the allocation failures of each ioctl one by one: fail the n-th
 * fault point, n = 1, 2, ... until a call runs without reaching it.  Each
 * call must succeed or fail with ENOMEM, and leave the object count as it
 * was (kmemleak, at the end of the VM run, checks the rest).  At least one
 * failure per ioctl must reach the caller as ENOMEM; SKAS_SET_POLICY's
 * table is a kvcalloc(), whose vmalloc() fallback hides any one failure,
 * so it also runs with every slab allocation failing.
 */
TEST_F_TIMEOUT(guest, fail_nth_walks_allocation_failures, 300)
{
	struct nth_ctx c = { .g = &self->g };
	long base = skas_param("objects");
	int fd, mif, ret, enomem;
	char byte = 1;

	fd = nth_open(_metadata);
	if (fd == -1)
		return;
	ASSERT_LE(0, fd);
	c.memfd = memfd_create("skas-nth", MFD_CLOEXEC);
	ASSERT_LE(0, c.memfd);
	ASSERT_EQ(0, ftruncate(c.memfd, 4096));
	/* Guest memory faulted in: SKAS_MEM_READ then allocates nothing else. */
	ASSERT_EQ(1, skas_map_anon(self->g.as, DATA, 4096,
				   PROT_READ | PROT_WRITE));
	ASSERT_EQ(1, skas_rw(self->g.as, true, DATA, &byte, 1));
	/* A fork copies the policy table: one more allocation to fail. */
	ASSERT_EQ(0, skas_set_policy(self->g.as, SYS_getppid,
				     SKAS_POLICY_CONST, 1));

	for (enum nth_op op = 0; op < NTH_OPS; op++) {
		enomem = 0;
		for (int n = 1; n < 500; n++) {
			nth_prepare(&c, op);
			nth_arm(fd, n);
			ret = nth_do(&c, op);
			if (!nth_fired(fd)) {
				EXPECT_LE(0, ret) TH_LOG("%s unarmed: %d",
							 nth_names[op], ret);
				nth_undo(&c, op, ret);
				TH_LOG("%s: %d fault points, %d ENOMEM",
				       nth_names[op], n - 1, enomem);
				break;
			}
			EXPECT_TRUE(ret >= 0 || ret == -ENOMEM)
				TH_LOG("%s, fault point %d: %d (%s)",
				       nth_names[op], n, ret,
				       ret < 0 ? strerror(-ret) : "ok");
			enomem += ret == -ENOMEM;
			nth_undo(&c, op, ret);
			EXPECT_EQ(base, objects_settle(base))
				TH_LOG("%s, fault point %d: objects leaked",
				       nth_names[op], n);
			/* The guest lives on through every failure. */
			ASSERT_EQ(0, waitpid(self->g.pid, NULL, WNOHANG));
		}
		if (op == NTH_SET_POLICY) {
			mif = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
			ASSERT_LE(0, mif);
			nth_prepare(&c, op);
			ASSERT_LE(0, c.fresh);
			ASSERT_EQ(0, all_fail(mif, true));
			ret = nth_do(&c, op);
			ASSERT_EQ(0, all_fail(mif, false));
			close(mif);
			EXPECT_EQ(-ENOMEM, ret);
			enomem += ret == -ENOMEM;
			/* The table was not kept: the next call allocates it. */
			EXPECT_EQ(0, nth_do(&c, op));
			nth_undo(&c, op, ret);
			EXPECT_EQ(base, objects_settle(base));
		}
		EXPECT_LT(0, enomem) TH_LOG("%s: no failure reached the caller",
					    nth_names[op]);
	}
	close(c.memfd);
	close(fd);
}

TEST_HARNESS_MAIN
