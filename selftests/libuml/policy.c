// SPDX-License-Identifier: GPL-2.0
/*
 * libuml syscall policy (the fast tiers): what each backend announces, that
 * a tier it does not announce is refused without effect, and, where the
 * host has them, that CONST, THREAD and NATIVE answer without a stop, that
 * a fork inherits the policy, a new thread starts with value 0 and TRAP
 * undoes them.
 */
#include <time.h>

#include "libuml_test.h"

#define NR_READ			0
#define NR_GETPID		39
#define NR_EXECVE		59
#define NR_GETTID		186
#define NR_CLOCK_GETTIME	228

/* syscall; ud2: the guest stops either at the syscall or at the ud2. */
static const unsigned char code_syscall_ud2[] = { 0x0f, 0x05, 0x0f, 0x0b };

FIXTURE(policy) {
	struct uml_host *host;
	struct uml_aspace *as;
	struct uml_thread *t;
	struct uml_exit ex;
	unsigned int tiers;
};
UML_VARIANTS(policy);

FIXTURE_SETUP(policy)
{
	UML_OPEN_OR_SKIP(&self->host, variant->backend);
	ASSERT_EQ(0, uml_aspace_create(self->host, &self->as, &self->t));
	ASSERT_EQ(0, load_code(self->as, GUEST_CODE, code_syscall_ud2,
			       sizeof(code_syscall_ud2)));
	ASSERT_EQ(0, map_data(self->as, GUEST_DATA));
	self->tiers = uml_host_policies(self->host);
}

FIXTURE_TEARDOWN(policy)
{
	uml_host_close(self->host);
}

/* Point @t at the syscall with number @nr and argument @a0, run it once. */
static int do_syscall(struct uml_thread *t, uint64_t nr, uint64_t a0,
		      uint64_t a1, struct uml_exit *ex)
{
	struct uml_regs *r = uml_thread_regs(t);

	r->rip = GUEST_CODE;
	r->rsp = GUEST_DATA + PAGE;
	r->rax = nr;
	r->rdi = a0;
	r->rsi = a1;
	return uml_thread_run(t, ex);
}

/* The syscall was answered by the host: the guest ran on to its ud2. */
#define ASSERT_ANSWERED(t, ex, val) do {				\
	ASSERT_EQ(UML_EXIT_FAULT, (ex)->reason);			\
	ASSERT_EQ(SIGILL, (ex)->fault.signo);				\
	ASSERT_EQ((uint64_t)(val), uml_thread_regs(t)->rax);		\
} while (0)

#define ASSERT_TRAPPED(ex, want) do {					\
	ASSERT_EQ(UML_EXIT_SYSCALL, (ex)->reason);			\
	ASSERT_EQ((want), (ex)->syscall.nr);				\
} while (0)

#define NEED_TIER(self, tier, name) do {				\
	if (!((self)->tiers & UML_POLICY_BIT(tier)))			\
		SKIP(return, "%s backend has no %s tier", 		\
		     uml_backend_name(variant->backend), name);		\
} while (0)

TEST_F(policy, tiers_announced_match_the_backend)
{
	unsigned int want = UML_POLICY_BIT(UML_POLICY_TRAP);

	if (variant->backend == UML_BACKEND_SKAS) {
		if (skas_has_cap(SKAS_CAP_POLICY))
			want |= UML_POLICY_BIT(UML_POLICY_CONST);
		if (skas_has_cap(SKAS_CAP_POLICY) &&
		    skas_has_cap(SKAS_CAP_POLICY_NATIVE))
			want |= UML_POLICY_BIT(UML_POLICY_NATIVE) |
				UML_POLICY_BIT(UML_POLICY_THREAD);
		if ((want & UML_POLICY_BIT(UML_POLICY_NATIVE)) &&
		    skas_has_cap(SKAS_CAP_FD_MARK))
			want |= UML_POLICY_BIT(UML_POLICY_NATIVE_MARKED);
	}
	EXPECT_EQ(want, self->tiers);
}

TEST_F(policy, bad_arguments_are_einval)
{
	EXPECT_EQ(-EINVAL, uml_aspace_set_policy(self->as, UML_POLICY_NR,
						 UML_POLICY_TRAP, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_set_policy(self->as, NR_GETPID,
						 (enum uml_policy)5, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_set_policy(self->as, NR_GETPID,
						 UML_POLICY_TRAP, 1));
	EXPECT_EQ(-EINVAL, uml_aspace_set_policy(self->as, NR_GETTID,
						 UML_POLICY_THREAD, 5));
	EXPECT_EQ(-EINVAL, uml_aspace_set_policy(NULL, NR_GETPID,
						 UML_POLICY_TRAP, 0));
	/* Nothing changed: getpid still traps. */
	ASSERT_EQ(0, do_syscall(self->t, NR_GETPID, 0, 0, &self->ex));
	ASSERT_TRAPPED(&self->ex, NR_GETPID);
}

/* Every tier the host does not announce is refused and changes nothing. */
TEST_F(policy, unannounced_tiers_are_eopnotsupp)
{
	static const struct { unsigned int tier, nr; } t[] = {
		{ UML_POLICY_CONST, NR_GETPID },
		{ UML_POLICY_NATIVE, NR_CLOCK_GETTIME },
		{ UML_POLICY_THREAD, NR_GETTID },
		{ UML_POLICY_NATIVE_MARKED, NR_READ },
	};
	unsigned int i, refused = 0;

	ASSERT_EQ(0, uml_aspace_set_policy(self->as, NR_GETPID,
					   UML_POLICY_TRAP, 0));
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (self->tiers & UML_POLICY_BIT(t[i].tier))
			continue;
		refused++;
		EXPECT_EQ(-EOPNOTSUPP, uml_aspace_set_policy(self->as, t[i].nr,
			  t[i].tier, t[i].tier == UML_POLICY_CONST ? 7 : 0));
		ASSERT_EQ(0, do_syscall(self->t, t[i].nr, 1, GUEST_DATA,
					&self->ex));
		ASSERT_TRAPPED(&self->ex, t[i].nr);
	}
	if (!(self->tiers & UML_POLICY_BIT(UML_POLICY_THREAD)))
		EXPECT_EQ(-EOPNOTSUPP, uml_thread_set_value(self->t, 3));
	if (!(self->tiers & UML_POLICY_BIT(UML_POLICY_NATIVE_MARKED))) {
		struct uml_mem_op op = { .op = UML_MEM_CLOSE_FD, .fd = -1,
					 .addr = 3 };

		EXPECT_EQ(-EOPNOTSUPP, uml_aspace_mark_fds(self->as, 3, 1,
							   UML_FD_MARK_READ));
		EXPECT_EQ(-EOPNOTSUPP, uml_aspace_mem(self->as, &op, 1, NULL));
	}
	if (variant->backend == UML_BACKEND_PTRACE)
		EXPECT_EQ(4, refused);
	if (!refused)
		SKIP(return, "the host announces every tier");
}

TEST_F(policy, const_answers_without_a_stop_and_trap_undoes_it)
{
	NEED_TIER(self, UML_POLICY_CONST, "CONST");
	ASSERT_EQ(0, uml_aspace_set_policy(self->as, NR_GETPID,
					   UML_POLICY_CONST, 4242));
	ASSERT_EQ(0, do_syscall(self->t, NR_GETPID, 0, 0, &self->ex));
	ASSERT_ANSWERED(self->t, &self->ex, 4242);

	/* A new value replaces the old one; negative values are errors. */
	ASSERT_EQ(0, uml_aspace_set_policy(self->as, NR_GETPID,
					   UML_POLICY_CONST, -ESRCH));
	ASSERT_EQ(0, do_syscall(self->t, NR_GETPID, 0, 0, &self->ex));
	ASSERT_ANSWERED(self->t, &self->ex, -ESRCH);

	ASSERT_EQ(0, uml_aspace_set_policy(self->as, NR_GETPID,
					   UML_POLICY_TRAP, 0));
	ASSERT_EQ(0, do_syscall(self->t, NR_GETPID, 0, 0, &self->ex));
	ASSERT_TRAPPED(&self->ex, NR_GETPID);
}

TEST_F(policy, fork_inherits_and_diverges)
{
	struct uml_thread *c;
	struct uml_aspace *cas;
	struct uml_exit cex;

	NEED_TIER(self, UML_POLICY_CONST, "CONST");
	UML_NEED_FORK(variant->backend);
	ASSERT_EQ(0, uml_aspace_set_policy(self->as, NR_GETPID,
					   UML_POLICY_CONST, 1));
	ASSERT_EQ(0, uml_thread_clone(self->t, 0, &c, &cas));
	ASSERT_EQ(0, do_syscall(c, NR_GETPID, 0, 0, &cex));
	ASSERT_ANSWERED(c, &cex, 1);
	/* The child's own value does not touch the parent's. */
	ASSERT_EQ(0, uml_aspace_set_policy(cas, NR_GETPID, UML_POLICY_CONST, 2));
	ASSERT_EQ(0, do_syscall(c, NR_GETPID, 0, 0, &cex));
	ASSERT_ANSWERED(c, &cex, 2);
	ASSERT_EQ(0, do_syscall(self->t, NR_GETPID, 0, 0, &self->ex));
	ASSERT_ANSWERED(self->t, &self->ex, 1);
}

TEST_F(policy, reset_keeps_the_policy)
{
	NEED_TIER(self, UML_POLICY_CONST, "CONST");
	ASSERT_EQ(0, uml_aspace_set_policy(self->as, NR_GETPID,
					   UML_POLICY_CONST, 99));
	ASSERT_EQ(0, uml_aspace_reset(self->as));
	ASSERT_EQ(0, load_code(self->as, GUEST_CODE, code_syscall_ud2,
			       sizeof(code_syscall_ud2)));
	ASSERT_EQ(0, map_data(self->as, GUEST_DATA));
	ASSERT_EQ(0, do_syscall(self->t, NR_GETPID, 0, 0, &self->ex));
	ASSERT_ANSWERED(self->t, &self->ex, 99);
}

TEST_F(policy, thread_value_is_per_thread_and_starts_at_zero)
{
	struct uml_thread *c;
	struct uml_exit cex;

	NEED_TIER(self, UML_POLICY_THREAD, "THREAD");
	ASSERT_EQ(0, uml_aspace_set_policy(self->as, NR_GETTID,
					   UML_POLICY_THREAD, 0));
	ASSERT_EQ(0, uml_thread_set_value(self->t, 501));
	ASSERT_EQ(0, do_syscall(self->t, NR_GETTID, 0, 0, &self->ex));
	ASSERT_ANSWERED(self->t, &self->ex, 501);

	UML_NEED_THREADS(variant->backend);
	ASSERT_EQ(0, uml_thread_clone(self->t, UML_CLONE_THREAD, &c, NULL));
	ASSERT_EQ(0, do_syscall(c, NR_GETTID, 0, 0, &cex));
	ASSERT_ANSWERED(c, &cex, 0);
	ASSERT_EQ(0, uml_thread_set_value(c, 502));
	ASSERT_EQ(0, do_syscall(c, NR_GETTID, 0, 0, &cex));
	ASSERT_ANSWERED(c, &cex, 502);
	ASSERT_EQ(0, do_syscall(self->t, NR_GETTID, 0, 0, &self->ex));
	ASSERT_ANSWERED(self->t, &self->ex, 501);
}

TEST_F(policy, native_runs_in_the_guest_and_is_confined)
{
	struct timespec ts = { 0, 0 }, before;

	NEED_TIER(self, UML_POLICY_NATIVE, "NATIVE");
	EXPECT_EQ(-EPERM, uml_aspace_set_policy(self->as, NR_EXECVE,
						UML_POLICY_NATIVE, 0));
	ASSERT_EQ(0, do_syscall(self->t, NR_EXECVE, 0, 0, &self->ex));
	ASSERT_TRAPPED(&self->ex, NR_EXECVE);

	ASSERT_EQ(0, uml_aspace_set_policy(self->as, NR_CLOCK_GETTIME,
					   UML_POLICY_NATIVE, 0));
	ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, &before));
	ASSERT_EQ(0, do_syscall(self->t, NR_CLOCK_GETTIME, CLOCK_MONOTONIC,
				GUEST_DATA, &self->ex));
	ASSERT_ANSWERED(self->t, &self->ex, 0);
	ASSERT_EQ(sizeof(ts), uml_mem_read(self->as, &ts, GUEST_DATA,
					   sizeof(ts)));
	EXPECT_TRUE(ts.tv_sec > before.tv_sec ||
		    (ts.tv_sec == before.tv_sec && ts.tv_nsec >= before.tv_nsec));
	/* Errors come back as the host's: an unmapped buffer. */
	ASSERT_EQ(0, do_syscall(self->t, NR_CLOCK_GETTIME, CLOCK_MONOTONIC,
				0x1000, &self->ex));
	ASSERT_ANSWERED(self->t, &self->ex, -EFAULT);
}

/* uml_thread_run_mem(): the batch, then the run, on every backend. */
TEST_F(policy, run_mem_applies_the_batch_first)
{
	struct uml_mem_op op = {
		.op = UML_MEM_MAP, .prot = PROT_READ | PROT_WRITE,
		.flags = UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, .fd = -1,
		.addr = GUEST_DATA + 16 * PAGE, .len = PAGE,
	};
	struct uml_regs *r = uml_thread_regs(self->t);
	struct uml_mem_op ops[2];
	uint64_t v = 0;

	r->rip = GUEST_CODE;
	r->rsp = GUEST_DATA + PAGE;
	r->rax = NR_GETPID;
	ASSERT_EQ(0, uml_thread_run_mem(self->t, &op, 1, &self->ex));
	ASSERT_TRAPPED(&self->ex, NR_GETPID);
	EXPECT_EQ(sizeof(v), uml_mem_read(self->as, &v, op.addr, sizeof(v)));
	/* A bad operation: nothing ran. */
	op.len = 1;
	r->rip = GUEST_CODE;
	EXPECT_EQ(-EINVAL, uml_thread_run_mem(self->t, &op, 1, &self->ex));
	EXPECT_EQ(GUEST_CODE, r->rip);
	EXPECT_EQ(-EINVAL, uml_thread_run_mem(self->t, NULL, 1, &self->ex));
	EXPECT_EQ(-EINVAL, uml_thread_run_mem(self->t, &op, 1, NULL));
	/* A closed fd in the second: -EBADF, and the thread did not run. */
	ops[0] = op;
	ops[0].len = PAGE;
	ops[0].addr = GUEST_DATA + 17 * PAGE;
	ops[1] = ops[0];
	ops[1].flags = UML_MAP_PRIVATE;
	ops[1].fd = 9999;
	ops[1].addr = GUEST_DATA + 18 * PAGE;
	EXPECT_EQ(-EBADF, uml_thread_run_mem(self->t, ops, 2, &self->ex));
	EXPECT_EQ(GUEST_CODE, r->rip);
	/* No operation: a plain run. */
	r->rip = GUEST_CODE;
	r->rax = NR_GETPID;
	ASSERT_EQ(0, uml_thread_run_mem(self->t, NULL, 0, &self->ex));
	ASSERT_TRAPPED(&self->ex, NR_GETPID);
}

/* fd marks: a NATIVE_MARKED read runs only on a marked, installed fd. */
TEST_F(policy, marked_fds_read_natively)
{
	struct uml_mem_op op = { .op = UML_MEM_INSTALL_FD, .addr = 3 };
	struct uml_regs *r = uml_thread_regs(self->t);
	int p[2];

	NEED_TIER(self, UML_POLICY_NATIVE_MARKED, "NATIVE_MARKED");
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(4, write(p[1], "abcd", 4));
	ASSERT_EQ(0, uml_aspace_set_policy(self->as, NR_READ,
					   UML_POLICY_NATIVE_MARKED, 0));
	op.fd = p[0];
	r->rip = GUEST_CODE;
	r->rsp = GUEST_DATA + PAGE;
	r->rax = NR_READ;
	r->rdi = 3;
	r->rsi = GUEST_DATA;
	r->rdx = 2;
	/* Installed with the resume, not marked: the read traps. */
	ASSERT_EQ(0, uml_thread_run_mem(self->t, &op, 1, &self->ex));
	ASSERT_TRAPPED(&self->ex, NR_READ);
	ASSERT_EQ(0, uml_aspace_mark_fds(self->as, 3, 1, UML_FD_MARK_READ));
	ASSERT_EQ(0, do_syscall(self->t, NR_READ, 3, GUEST_DATA, &self->ex));
	/* rdx is still 2 from above */
	ASSERT_ANSWERED(self->t, &self->ex, 2);
	/* Installed and marked with the resume: the read runs at once. */
	op.flags = UML_INSTALL_MARK_READ;
	r->rip = GUEST_CODE;
	r->rax = NR_READ;
	ASSERT_EQ(0, uml_thread_run_mem(self->t, &op, 1, &self->ex));
	ASSERT_ANSWERED(self->t, &self->ex, 2);
	op.flags = 0;
	/* Closed with the resume: unmarked again. */
	op.op = UML_MEM_CLOSE_FD;
	op.fd = -1;
	r->rip = GUEST_CODE;
	r->rax = NR_READ;
	ASSERT_EQ(0, uml_thread_run_mem(self->t, &op, 1, &self->ex));
	ASSERT_TRAPPED(&self->ex, NR_READ);
	/* Bad values */
	EXPECT_EQ(-EINVAL, uml_aspace_mark_fds(self->as, UML_FD_MARK_MAX, 1,
					       UML_FD_MARK_READ));
	EXPECT_EQ(-EINVAL, uml_aspace_mark_fds(self->as, 0, 1, 4));
	EXPECT_EQ(-EINVAL, uml_aspace_mark_fds(NULL, 0, 1, 1));
	op.len = PAGE;
	EXPECT_EQ(-EINVAL, uml_aspace_mem(self->as, &op, 1, NULL));
	op.len = 0;
	op.op = UML_MEM_INSTALL_FD;
	op.fd = 9999;
	EXPECT_EQ(-EBADF, uml_aspace_mem(self->as, &op, 1, NULL));
	op.fd = p[0];
	op.flags = 2;
	EXPECT_EQ(-EINVAL, uml_aspace_mem(self->as, &op, 1, NULL));
	close(p[0]);
	close(p[1]);
}

TEST_HARNESS_MAIN
