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
	}
	EXPECT_EQ(want, self->tiers);
}

TEST_F(policy, bad_arguments_are_einval)
{
	EXPECT_EQ(-EINVAL, uml_aspace_set_policy(self->as, UML_POLICY_NR,
						 UML_POLICY_TRAP, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_set_policy(self->as, NR_GETPID,
						 (enum uml_policy)4, 0));
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
	if (variant->backend == UML_BACKEND_PTRACE)
		EXPECT_EQ(3, refused);
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

TEST_HARNESS_MAIN
