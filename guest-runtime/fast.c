// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fast tiers (libuml's syscall policy): syscalls the host answers
 * without a round trip to the runtime.  Documentation/runtime.rst, "Fast
 * tiers", says which ones and why.
 *
 *  - CONST for the identity calls that take no argument: the value is the
 *    process's, kept equal to what the handler in identity.c would return.
 *    Every change of one (fork, reparenting, setpgid, setsid, the setuid
 *    family, execve) calls fast_proc_sync() before the process runs again.
 *  - THREAD for gettid: each task's value is its tid, set before its first
 *    run (a new host thread starts with 0).
 *  - NATIVE for the vDSO's time fallbacks, which cannot block.  Never for
 *    a call that may block: the one runtime thread drives every guest
 *    thread, and a guest asleep in the host would hold the others up.
 *
 * A policy lives in the address space: a fork inherits it (the child's
 * values are the parent's until fast_proc_sync() corrects them) and
 * execve (uml_aspace_reset()) keeps it.  struct proc caches what the host
 * holds, so a sync that changes nothing costs no syscall.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "umlrun.h"

static const unsigned int const_nrs[FAST_NCONST] = {
	SYS_getpid,
	SYS_getppid,
	SYS_getuid,
	SYS_geteuid,
	SYS_getgid,
	SYS_getegid,
	SYS_getpgrp,
};

static const unsigned int native_nrs[] = {
	SYS_clock_gettime,
	SYS_clock_getres,
	SYS_gettimeofday,
	SYS_time,
};

static bool const_on, thread_on, native_on;
static unsigned int native_mask;	/* native_nrs[] the host accepted */
static const char *off_why;		/* why the tiers are off, or NULL */

void fast_init(void)
{
	unsigned int tiers = uml_host_policies(host);

	if (opt.no_fast) {
		off_why = "--no-fast";
		return;
	}
	const_on = tiers & UML_POLICY_BIT(UML_POLICY_CONST);
	thread_on = tiers & UML_POLICY_BIT(UML_POLICY_THREAD);
	native_on = tiers & UML_POLICY_BIT(UML_POLICY_NATIVE);
	if (!const_on && !thread_on && !native_on)
		off_why = "the backend has none";
}

bool fast_vdso(void)
{
	return !opt.no_fast;
}

/* The identity values a process's CONST syscalls return (identity.c's). */
static void const_values(const struct proc *p, int64_t *v)
{
	v[0] = p->pid;
	v[1] = p->parent ? p->parent->pid : 0;
	v[2] = host_uid;
	v[3] = host_euid;
	v[4] = host_gid;
	v[5] = host_egid;
	v[6] = p->pgid;
}

/*
 * Put syscall const_nrs[i] of @p to @v, or to TRAP if the host refuses:
 * the handler then answers it.  A stale value must never stay, so a host
 * that refuses even TRAP is fatal.
 */
static void const_set(struct proc *p, int i, int64_t v)
{
	int r = uml_aspace_set_policy(p->as, const_nrs[i], UML_POLICY_CONST, v);

	if (r == 0) {
		p->fast_val[i] = v;
		p->fast_const |= 1u << i;
		return;
	}
	r = uml_aspace_set_policy(p->as, const_nrs[i], UML_POLICY_TRAP, 0);
	if (r < 0)
		die("cannot reset the policy of syscall %u: %s", const_nrs[i],
		    uml_strerror(r));
	p->fast_const &= ~(1u << i);
}

void fast_proc_sync(struct proc *p)
{
	int64_t v[FAST_NCONST];
	int i;

	if (!const_on || !p->as || p->as_shared)
		return;
	const_values(p, v);
	for (i = 0; i < FAST_NCONST; i++)
		if (!(p->fast_const & (1u << i)) || p->fast_val[i] != v[i])
			const_set(p, i, v[i]);
}

/*
 * @parent's address space gets a CLONE_VM child, another process with its
 * own pid, parent and group: those CONST answers would be wrong for one
 * of them, so they trap until the child leaves (the next
 * fast_proc_sync() of @parent puts them back).  The ids are shared.
 */
void fast_as_shared(struct proc *parent)
{
	int i;

	for (i = 0; const_on && i < FAST_NCONST; i++) {
		if (const_nrs[i] != SYS_getpid && const_nrs[i] != SYS_getppid &&
		    const_nrs[i] != SYS_getpgrp)
			continue;
		if (uml_aspace_set_policy(parent->as, const_nrs[i],
					  UML_POLICY_TRAP, 0) < 0)
			die("cannot reset the policy of syscall %u",
			    const_nrs[i]);
		parent->fast_const &= ~(1u << i);
	}
}

/* A fork child: the host copied the parent's policy, so its cache too. */
void fast_proc_inherit(struct proc *child, const struct proc *parent)
{
	memcpy(child->fast_val, parent->fast_val, sizeof(child->fast_val));
	child->fast_const = parent->fast_const;
}

void fast_task_setup(struct task *t)
{
	if (thread_on && uml_thread_set_value(t->th, t->tid) < 0)
		die("cannot set the thread value of tid %d", t->tid);
}

/* The first address space: the policies every later one inherits. */
void fast_aspace_init(struct proc *p)
{
	unsigned int i;
	int r;

	if (thread_on) {
		r = uml_aspace_set_policy(p->as, SYS_gettid, UML_POLICY_THREAD, 0);
		if (r < 0) {
			warnx_("gettid stays trapped: %s", uml_strerror(r));
			thread_on = false;
		}
	}
	/*
	 * rseq: umlrun has none, so its answer is -ENOSYS whatever the
	 * arguments (misc.c): glibc asks at every program's and thread's
	 * start.  Kept through exec and fork, as the policy is.
	 */
	if (const_on) {
		r = uml_aspace_set_policy(p->as, SYS_rseq, UML_POLICY_CONST,
					  -ENOSYS);
		if (r < 0 && opt.stats)
			warnx_("rseq stays trapped: %s", uml_strerror(r));
	}
	for (i = 0; native_on && i < ARRAY_SIZE(native_nrs); i++) {
		r = uml_aspace_set_policy(p->as, native_nrs[i],
					  UML_POLICY_NATIVE, 0);
		if (r == 0)
			native_mask |= 1u << i;
		else if (opt.stats)
			warnx_("%s stays trapped: %s",
			       syscall_desc(native_nrs[i])->name,
			       uml_strerror(r));
	}
	fast_proc_sync(p);
}

/* The tier umlrun asks for syscall @nr when the host has it, or NULL. */
const char *fast_tier_name(unsigned long nr)
{
	unsigned int i;

	for (i = 0; i < FAST_NCONST; i++)
		if (const_nrs[i] == nr)
			return "const";
	if (nr == SYS_rseq)
		return "const";
	for (i = 0; i < ARRAY_SIZE(native_nrs); i++)
		if (native_nrs[i] == nr)
			return "native";
	if (fdpass_marked_nr(nr))
		return "native-fd";
	return nr == SYS_gettid ? "thread" : NULL;
}

void fast_stats_print(void)
{
	unsigned int i;
	int n = 0;

	if (off_why) {
		fprintf(stderr, "umlrun: fast tiers off (%s), vDSO %s\n",
			off_why, fast_vdso() ? "on" : "off");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(native_nrs); i++)
		n += !!(native_mask & (1u << i));
	fprintf(stderr, "umlrun: fast tiers on: const %s, thread %s, "
		"native %d of %zu, vDSO %s\n", const_on ? "on" : "off",
		thread_on ? "on" : "off", n, ARRAY_SIZE(native_nrs),
		fast_vdso() ? "on" : "off");
}
