// SPDX-License-Identifier: GPL-2.0
/*
 * libuml clone: guest fork (a copy-on-write duplicate address space) and
 * guest threads (a second host task in the same address space); destroying
 * them leaves no host process behind.
 */
#include <pthread.h>
#include <sys/resource.h>
#include <sys/time.h>

#include "libuml_test.h"

FIXTURE(clone) {
	struct uml_host *host;
	struct uml_aspace *as;
	struct uml_thread *t;
	struct uml_regs *r;
	struct uml_exit ex;
};
UML_VARIANTS(clone);

FIXTURE_SETUP(clone)
{
	UML_OPEN_OR_SKIP(&self->host, variant->backend);
	ASSERT_EQ(0, uml_aspace_create(self->host, &self->as, &self->t));
	self->r = uml_thread_regs(self->t);
}

FIXTURE_TEARDOWN(clone)
{
	uml_host_close(self->host);
}

/* Load code and data, run to the guest's first syscall (fork/clone). */
static int run_to_syscall(struct uml_aspace *as, struct uml_thread *t,
			  const void *code, size_t len, struct uml_exit *ex)
{
	struct uml_regs *r = uml_thread_regs(t);
	int ret = load_code(as, GUEST_CODE, code, len);

	if (!ret)
		ret = map_data(as, GUEST_DATA);
	if (ret)
		return ret;
	r->rip = GUEST_CODE;
	r->rsp = GUEST_DATA + PAGE;
	ret = uml_thread_run(t, ex);
	if (!ret && ex->reason != UML_EXIT_SYSCALL)
		ret = -EPROTO;
	return ret;
}

TEST_F(clone, fork_is_a_cow_copy)
{
	struct uml_aspace *cas;
	struct uml_thread *c;
	uint64_t v = 0xaaaa, w = 0;
	int ppid = uml_thread_host_tid(self->t), cpid;

	UML_NEED_FORK(variant->backend);

	ASSERT_EQ(0, run_to_syscall(self->as, self->t, code_fork,
				    sizeof(code_fork), &self->ex));
	ASSERT_EQ(57, self->ex.syscall.nr);
	ASSERT_EQ(8, uml_mem_write(self->as, GUEST_DATA, &v, 8));

	ASSERT_EQ(0, uml_thread_clone(self->t, 0, &c, &cas));
	ASSERT_NE(NULL, cas);
	ASSERT_NE(self->as, cas);
	EXPECT_EQ(cas, uml_thread_aspace(c));
	EXPECT_NE(ppid, uml_thread_host_tid(c));
	EXPECT_EQ(2, count_children());
	/* Same registers, same memory. */
	EXPECT_EQ(self->r->rip, uml_thread_regs(c)->rip);
	EXPECT_EQ(self->r->rsp, uml_thread_regs(c)->rsp);
	EXPECT_EQ(8, uml_mem_read(cas, &w, GUEST_DATA, 8));
	EXPECT_EQ(0xaaaa, w);
	/* The child has not run: it would have stored to GUEST_DATA. */
	usleep(50000);
	EXPECT_EQ(8, uml_mem_read(cas, &w, GUEST_DATA, 8));
	EXPECT_EQ(0xaaaa, w);
	/* A runtime write to one is invisible in the other. */
	v = 0xbbbb;
	EXPECT_EQ(8, uml_mem_write(self->as, GUEST_DATA + 8, &v, 8));
	EXPECT_EQ(8, uml_mem_read(cas, &w, GUEST_DATA + 8, 8));
	EXPECT_EQ(0, w);
	/* Child gets 0, parent the child's id: both store it and exit. */
	uml_thread_regs(c)->rax = 0;
	self->r->rax = 1234;
	ASSERT_EQ(0, uml_thread_run(c, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(60, self->ex.syscall.nr);
	EXPECT_EQ(0, self->ex.syscall.args[0]);
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(1234, self->ex.syscall.args[0]);
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA, 8));
	EXPECT_EQ(1234, w);
	EXPECT_EQ(8, uml_mem_read(cas, &w, GUEST_DATA, 8));
	EXPECT_EQ(0, w);
	/* Mem ops in the child do not touch the parent. */
	EXPECT_EQ(0, uml_aspace_unmap(cas, GUEST_DATA, PAGE));
	EXPECT_EQ(-EFAULT, uml_mem_read(cas, &w, GUEST_DATA, 8));
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA, 8));
	/* Each is destroyed alone. */
	cpid = uml_thread_host_tid(c);
	uml_aspace_destroy(cas);
	EXPECT_FALSE(pid_exists(cpid));
	EXPECT_TRUE(pid_exists(ppid));
	EXPECT_EQ(1, count_children());
}

TEST_F(clone, thread_shares_the_address_space)
{
	struct uml_aspace *cas = (void *)1;
	struct uml_thread *c;
	uint64_t w = 0;
	int cpid;

	UML_NEED_THREADS(variant->backend);

	ASSERT_EQ(0, run_to_syscall(self->as, self->t, code_thread,
				    sizeof(code_thread), &self->ex));
	ASSERT_EQ(56, self->ex.syscall.nr);
	ASSERT_EQ(0, uml_thread_clone(self->t, UML_CLONE_THREAD, &c, &cas));
	EXPECT_EQ(NULL, cas);
	EXPECT_EQ(self->as, uml_thread_aspace(c));
	cpid = uml_thread_host_tid(c);
	EXPECT_NE(uml_thread_host_tid(self->t), cpid);
	EXPECT_EQ(self->r->rip, uml_thread_regs(c)->rip);

	/* The thread stores 0x77 and hits ud2 (fault details work there). */
	uml_thread_regs(c)->rax = 0;
	ASSERT_EQ(0, uml_thread_run(c, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(SIGILL, self->ex.fault.signo);
	EXPECT_EQ(6, self->ex.fault.trapno);
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA + 8, 8));
	EXPECT_EQ(0x77, w);
	/* The parent reads the thread's store. */
	self->r->rax = cpid;
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(60, self->ex.syscall.nr);
	EXPECT_EQ(0x77, self->ex.syscall.args[0]);
	/* A mapping made now is seen by both. */
	ASSERT_EQ(0, map_data(self->as, GUEST_DATA + PAGE));
	uml_thread_destroy(c);
	EXPECT_TRUE(pid_gone_within(cpid, 5000));
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA + PAGE, 8));
	EXPECT_EQ(1, count_children());
}

/* A thread outlives the first thread; mem ops still find a host task. */
TEST_F(clone, aspace_survives_its_first_thread)
{
	struct uml_thread *c;
	uint64_t w;

	UML_NEED_THREADS(variant->backend);

	ASSERT_EQ(0, run_to_syscall(self->as, self->t, code_thread,
				    sizeof(code_thread), &self->ex));
	ASSERT_EQ(0, uml_thread_clone(self->t, UML_CLONE_THREAD, &c, NULL));
	uml_thread_destroy(self->t);
	self->t = NULL;
	ASSERT_EQ(0, map_data(self->as, GUEST_DATA + PAGE));
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA + PAGE, 8));
	uml_thread_regs(c)->rax = 0;
	ASSERT_EQ(0, uml_thread_run(c, &self->ex));
	EXPECT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(0, uml_aspace_reset(self->as));
}

/* A thread killed from outside: mem ops use another; its run says EXITED. */
TEST_F(clone, killed_thread_is_skipped_by_mem_ops)
{
	struct uml_thread *c;
	uint64_t w;
	int cpid, ppid;

	UML_NEED_THREADS(variant->backend);

	ASSERT_EQ(0, run_to_syscall(self->as, self->t, code_thread,
				    sizeof(code_thread), &self->ex));
	ASSERT_EQ(0, uml_thread_clone(self->t, UML_CLONE_THREAD, &c, NULL));
	cpid = uml_thread_host_tid(c);
	ppid = uml_thread_host_tid(self->t);
	ASSERT_EQ(0, kill(cpid, SIGKILL));
	usleep(20000);
	if (!uml_threads_are_processes(variant->backend)) {
		/* One host thread group: the SIGKILL ends every thread. */
		ASSERT_EQ(0, uml_thread_run(c, &self->ex));
		EXPECT_EQ(UML_EXIT_EXITED, self->ex.reason);
		ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
		EXPECT_EQ(UML_EXIT_EXITED, self->ex.reason);
		EXPECT_TRUE(WIFSIGNALED(self->ex.exited.status));
		EXPECT_EQ(-ESRCH, map_data(self->as, GUEST_DATA + PAGE));
		EXPECT_FALSE(pid_exists(cpid));
		EXPECT_FALSE(pid_exists(ppid));		/* reaped */
		EXPECT_EQ(0, count_children());
		return;
	}
	ASSERT_EQ(0, map_data(self->as, GUEST_DATA + PAGE));
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA + PAGE, 8));
	ASSERT_EQ(0, uml_thread_run(c, &self->ex));
	EXPECT_EQ(UML_EXIT_EXITED, self->ex.reason);
	EXPECT_FALSE(pid_exists(cpid));
	self->r->rax = 1;
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	EXPECT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
}

TEST_F(clone, fork_of_a_fork_and_mass_destroy)
{
	struct uml_aspace *a[4];
	struct uml_thread *t[5], *th;
	int pids[6], i;

	UML_NEED_FORK(variant->backend);
	UML_NEED_THREADS(variant->backend);

	ASSERT_EQ(0, run_to_syscall(self->as, self->t, code_fork,
				    sizeof(code_fork), &self->ex));
	t[0] = self->t;
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, uml_thread_clone(t[i], 0, &t[i + 1], &a[i]));
	ASSERT_EQ(0, uml_thread_clone(t[4], UML_CLONE_THREAD, &th, NULL));
	for (i = 0; i < 5; i++)
		pids[i] = uml_thread_host_tid(t[i]);
	pids[5] = uml_thread_host_tid(th);
	/* Five forks, and the thread where it is a host process of its own. */
	EXPECT_EQ(uml_threads_are_processes(variant->backend) ? 6 : 5,
		  count_children());
	/* The last fork's child still runs fine. */
	uml_thread_regs(t[4])->rax = 0;
	ASSERT_EQ(0, uml_thread_run(t[4], &self->ex));
	EXPECT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(60, self->ex.syscall.nr);
	uml_host_close(self->host);
	self->host = NULL;
	for (i = 0; i < 6; i++)
		EXPECT_FALSE(pid_exists(pids[i]));
	EXPECT_EQ(0, count_children());
}

TEST_F(clone, bad_clone_arguments)
{
	struct uml_thread *c;
	struct uml_aspace *cas;

	EXPECT_EQ(-EINVAL, uml_thread_clone(self->t, 0x100, &c, &cas));
	EXPECT_EQ(-EINVAL, uml_thread_clone(self->t, 0, &c, NULL));
	EXPECT_EQ(-EINVAL, uml_thread_clone(self->t, 0, NULL, &cas));
	/* What the loaded module cannot do is refused, not faked. */
	if (!uml_can_fork(variant->backend))
		EXPECT_EQ(-EOPNOTSUPP, uml_thread_clone(self->t, 0, &c, &cas));
	if (!uml_can_thread(variant->backend))
		EXPECT_EQ(-EOPNOTSUPP, uml_thread_clone(self->t, UML_CLONE_THREAD,
							&c, NULL));
	EXPECT_EQ(1, count_children());
}

struct kicker {
	struct uml_thread *t;
	int ms;
};

static void *kick_later(void *arg)
{
	struct kicker *k = arg;

	usleep(k->ms * 1000);
	uml_thread_kick(k->t);
	return NULL;
}

/* Run @t (at a spin loop) for about @ms ms: 0, or -1. */
static int spin_for(struct uml_thread *t, int ms)
{
	struct kicker k = { t, ms };
	struct uml_exit ex;
	pthread_t th;
	int ret;

	if (pthread_create(&th, NULL, kick_later, &k))
		return -1;
	ret = uml_thread_run(t, &ex);
	pthread_join(th, NULL);
	return ret || ex.reason != UML_EXIT_INTERRUPTED ? -1 : 0;
}

static long usec(const struct timeval *tv)
{
	return tv->tv_sec * 1000000L + tv->tv_usec;
}

/* The user plus system time of host task @tid alone (µs), or -1. */
static long task_cpu_us(int tid)
{
	unsigned long ut, st;
	char path[64], buf[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	/* After "(comm)": 11 fields, then utime and stime. */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return -1;
	return (ut + st) * (1000000 / sysconf(_SC_CLK_TCK));
}

/*
 * uml_aspace_destroy_usage(): the CPU time of every thread that ran in the
 * address space, one destroyed before included, each once (against what
 * the host said of each just before it went, give or take the ticks and
 * the exit's own work); bad input does nothing.
 */
TEST_F(clone, destroy_usage_holds_every_threads_time)
{
	int pid = uml_thread_host_tid(self->t);
	struct uml_thread *c;
	long sum, a, b, got;
	struct rusage ru;

	UML_NEED_THREADS(variant->backend);

	ASSERT_EQ(0, load_code(self->as, GUEST_CODE, code_spin,
			       sizeof(code_spin)));
	ASSERT_EQ(0, map_data(self->as, GUEST_DATA));
	self->r->rip = GUEST_CODE;
	self->r->rsp = GUEST_DATA + PAGE;
	ASSERT_EQ(0, uml_thread_clone(self->t, UML_CLONE_THREAD, &c, NULL));
	ASSERT_EQ(0, spin_for(c, 300));
	a = task_cpu_us(uml_thread_host_tid(c));
	uml_thread_destroy(c);
	ASSERT_EQ(0, spin_for(self->t, 300));
	b = task_cpu_us(pid);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	sum = a + b;
	ASSERT_GE(sum, 100000);		/* the spins got a CPU */

	EXPECT_EQ(-EINVAL, uml_aspace_destroy_usage(NULL, &ru));
	EXPECT_EQ(-EINVAL, uml_aspace_destroy_usage(self->as, NULL));
	EXPECT_TRUE(pid_exists(pid));		/* nothing done */
	ASSERT_EQ(0, uml_aspace_destroy_usage(self->as, &ru));
	self->as = NULL;
	self->t = NULL;
	EXPECT_FALSE(pid_exists(pid));
	got = usec(&ru.ru_utime) + usec(&ru.ru_stime);
	EXPECT_GE(got, sum - 30000);
	EXPECT_LT(got, sum + 100000);
	EXPECT_GT(ru.ru_maxrss, 0);
	EXPECT_EQ(0, count_children());
}

TEST_HARNESS_MAIN
