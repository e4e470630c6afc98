// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scheduling as a guest sees it: nice values, policies and their
 * parameters, I/O priorities, affinity and the guest's CPUs, sched_yield.
 *
 * The runtime schedules its guest threads round robin in slices of its
 * own (sched.c) whatever they ask for.  What a thread sets here is
 * checked as the kernel checks it (kernel/sched/syscalls.c, 6.12) and
 * kept: it is read back, inherited over fork and clone (reset there by
 * SCHED_RESET_ON_FORK), kept over exec; it is not applied.  A thread
 * needs CAP_SYS_NICE (cred.c) or the host's RLIMIT_NICE / RLIMIT_RTPRIO
 * for what the kernel reserves to it: a lower nice value, a real-time
 * policy, SCHED_DEADLINE, leaving SCHED_IDLE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "umlrun.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE		6
#endif
#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK	0x40000000
#endif
#define SCHED_FLAG_RESET_ON_FORK	0x01
#define SCHED_FLAG_RECLAIM		0x02
#define SCHED_FLAG_DL_OVERRUN		0x04
#define SCHED_FLAG_KEEP_POLICY		0x08
#define SCHED_FLAG_KEEP_PARAMS		0x10
#define SCHED_FLAG_UTIL_CLAMP		0x60
#define SCHED_FLAG_ALL			0x7f
#define SCHED_FLAG_SUGOV		0x10000000
#define SCHED_ATTR_SIZE_VER0		48
#define SETPARAM_POLICY			-1
#define MAX_RT_PRIO			100
#define PAGE_BYTES			4096

/* include/uapi/linux/sched/types.h, VER1 (56 bytes). */
struct guest_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

static bool rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static bool valid_policy(int policy)
{
	return policy == SCHED_OTHER || policy == SCHED_BATCH ||
	       policy == SCHED_IDLE || rt_policy(policy) ||
	       policy == SCHED_DEADLINE;
}

static bool has_sys_nice(const struct task *t)
{
	return t->cap_eff & (1ULL << CAP_SYS_NICE);
}

static uint64_t host_rlimit(int res)
{
	struct rlimit rl;

	return getrlimit(res, &rl) ? 0 : rl.rlim_cur;
}

/* is_nice_reduction(): does RLIMIT_NICE allow going down to @nice? */
static bool nice_reduction(int nice)
{
	return host_rlimit(RLIMIT_NICE) >= (uint64_t)(20 - nice);
}

/* can_nice(): may @t go down to @nice? */
static bool can_nice(const struct task *t, int nice)
{
	return nice_reduction(nice) || has_sys_nice(t);
}

/*
 * The thread @pid names for the sched_* calls: the caller for 0, -EINVAL
 * for a negative one (before anything is read), -ESRCH for none.
 */
static struct task *sched_task(struct task *t, int64_t pid, long *err)
{
	static __thread struct task zombie;
	struct proc *p;
	struct task *d;

	if ((int)pid < 0) {
		*err = -EINVAL;
		return NULL;
	}
	d = (int)pid ? task_by_tid(pid) : t;
	if (d)
		return d;
	/*
	 * A zombie not reaped yet is still there for the kernel, with its
	 * leader's attributes (what a parent reads of a child that exited at
	 * once): a copy, which a set changes to no effect.
	 */
	p = proc_by_pid(pid);
	if (p && p->state == PROC_ZOMBIE) {
		memset(&zombie, 0, sizeof(zombie));
		zombie.p = p;
		zombie.tid = p->pid;
		zombie.sched = p->exit_sched;
		zombie.cpu = -1;
		return &zombie;
	}
	*err = -ESRCH;
	return NULL;
}

/* __checkparam_dl(): deadline parameters the kernel would accept. */
static bool dl_params_ok(const struct guest_sched_attr *at)
{
	uint64_t period = at->sched_period ? at->sched_period
					   : at->sched_deadline;

	if (at->sched_flags & SCHED_FLAG_SUGOV)
		return true;
	if (!at->sched_deadline || at->sched_runtime < 1024)
		return false;
	if ((at->sched_deadline | period) & (1ULL << 63))
		return false;
	if (period < at->sched_deadline ||
	    at->sched_deadline < at->sched_runtime)
		return false;
	/* sysctl_sched_dl_period_min and _max (100 us, 2^22 us), in ns. */
	return period >= 100000 && period <= 4194304000ULL;
}

/*
 * user_check_sched_setscheduler() less its CAP_SYS_NICE: may a thread
 * without it give @d these attributes?  (Same owner: one user.)
 */
static bool user_may_set(const struct task *d,
			 const struct guest_sched_attr *at, int policy,
			 bool reset)
{
	uint64_t rlim;

	if ((policy == SCHED_OTHER || policy == SCHED_BATCH) &&
	    at->sched_nice < d->sched.nice && !nice_reduction(at->sched_nice))
		return false;
	if (rt_policy(policy)) {
		rlim = host_rlimit(RLIMIT_RTPRIO);
		if (policy != d->sched.policy && !rlim)
			return false;
		if (at->sched_priority > d->sched.prio &&
		    at->sched_priority > rlim)
			return false;
	}
	if (policy == SCHED_DEADLINE)
		return false;
	if (d->sched.policy == SCHED_IDLE && policy != SCHED_IDLE &&
	    !nice_reduction(d->sched.nice))
		return false;
	return !d->sched.reset_on_fork || reset;
}

/*
 * __sched_setscheduler() for @d, asked by @t: the checks in the kernel's
 * order, then the attributes kept.  @at->sched_policy may be
 * SETPARAM_POLICY: keep the policy.
 */
static long sched_set(struct task *t, struct task *d,
		      const struct guest_sched_attr *at)
{
	int policy = (int)at->sched_policy, nice = at->sched_nice;
	bool reset = at->sched_flags & SCHED_FLAG_RESET_ON_FORK;

	if (policy < 0) {
		reset = d->sched.reset_on_fork;
		policy = d->sched.policy;
	} else if (!valid_policy(policy)) {
		return -EINVAL;
	}
	if (at->sched_flags & ~(uint64_t)(SCHED_FLAG_ALL | SCHED_FLAG_SUGOV))
		return -EINVAL;
	if (at->sched_priority > MAX_RT_PRIO - 1)
		return -EINVAL;
	if (policy == SCHED_DEADLINE ? !dl_params_ok(at) :
	    rt_policy(policy) != (at->sched_priority != 0))
		return -EINVAL;
	if (!has_sys_nice(t) && !user_may_set(d, at, policy, reset))
		return -EPERM;
	if (at->sched_flags & SCHED_FLAG_SUGOV)
		return -EINVAL;
	/* The host kernel's CONFIG_UCLAMP_TASK is off in Debian. */
	if (at->sched_flags & SCHED_FLAG_UTIL_CLAMP)
		return -EOPNOTSUPP;
	d->sched.policy = policy;
	d->sched.reset_on_fork = reset;
	d->sched.prio = rt_policy(policy) ? at->sched_priority : 0;
	if (policy == SCHED_OTHER || policy == SCHED_BATCH)
		d->sched.nice = nice;	/* the fair policies only */
	if (policy == SCHED_DEADLINE) {
		d->sched.dl_runtime = at->sched_runtime;
		d->sched.dl_deadline = at->sched_deadline;
		d->sched.dl_period = at->sched_period ? at->sched_period
						      : at->sched_deadline;
	}
	return 0;
}

/* sched_setscheduler(2) and sched_setparam(2): nice values stay. */
static long set_param(struct task *t, const uint64_t *a, int policy)
{
	struct guest_sched_attr at = { .sched_policy = policy };
	struct task *d;
	long err = 0;
	int prio;

	if (!a[2] || (int)a[0] < 0)
		return -EINVAL;
	if (copy_from_guest(t, &prio, a[2], sizeof(prio)) < 0)
		return -EFAULT;
	d = sched_task(t, a[0], &err);
	if (!d)
		return err;
	if (policy >= 0 && (policy & SCHED_RESET_ON_FORK)) {
		at.sched_flags = SCHED_FLAG_RESET_ON_FORK;
		at.sched_policy = policy & ~SCHED_RESET_ON_FORK;
	}
	at.sched_priority = prio;
	at.sched_nice = d->sched.nice;
	return sched_set(t, d, &at);
}

long sys_sched_setscheduler(struct task *t, const uint64_t *a)
{
	if ((int)a[1] < 0)
		return -EINVAL;
	return set_param(t, (uint64_t[3]){ a[0], 0, a[2] }, (int)a[1]);
}

long sys_sched_setparam(struct task *t, const uint64_t *a)
{
	return set_param(t, (uint64_t[3]){ a[0], 0, a[1] }, SETPARAM_POLICY);
}

long sys_sched_getscheduler(struct task *t, const uint64_t *a)
{
	long err = 0;
	struct task *d = sched_task(t, a[0], &err);

	if (!d)
		return err;
	return d->sched.policy |
	       (d->sched.reset_on_fork ? SCHED_RESET_ON_FORK : 0);
}

long sys_sched_getparam(struct task *t, const uint64_t *a)
{
	long err = 0;
	struct task *d;
	int prio;

	if (!a[1] || (int)a[0] < 0)
		return -EINVAL;
	d = sched_task(t, a[0], &err);
	if (!d)
		return err;
	prio = d->sched.prio;
	return copy_to_guest(t, a[1], &prio, sizeof(prio)) < 0 ? -EFAULT : 0;
}

long sys_sched_get_priority_max(struct task *t, const uint64_t *a)
{
	(void)t;
	if (rt_policy((int)a[0]))
		return MAX_RT_PRIO - 1;
	return valid_policy((int)a[0]) ? 0 : -EINVAL;
}

long sys_sched_get_priority_min(struct task *t, const uint64_t *a)
{
	(void)t;
	if (rt_policy((int)a[0]))
		return 1;
	return valid_policy((int)a[0]) ? 0 : -EINVAL;
}

/* FIFO has no time slice; everyone else gets the runtime's own. */
/*
 * SCHED_RR's time slice: the host's sched_rr_timeslice_ms, which the guest
 * reads in /proc/sys/kernel (RR_TIMESLICE, 100 ms, if unreadable).
 */
static long rr_timeslice_ms(void)
{
	static long ms;

	if (!ms) {
		ms = host_sysctl("kernel/sched_rr_timeslice_ms", 0, 100);
		if (ms <= 0)
			ms = 100;
	}
	return ms;
}

long sys_sched_rr_get_interval(struct task *t, const uint64_t *a)
{
	struct timespec ts = { 0, 0 };
	long err = 0;
	struct task *d = sched_task(t, a[0], &err);

	if (!d)
		return err;
	if (d->sched.policy == SCHED_RR) {
		long ms = rr_timeslice_ms();

		ts.tv_sec = ms / 1000;
		ts.tv_nsec = ms % 1000 * 1000000;
	} else if (d->sched.policy != SCHED_FIFO) {
		ts.tv_nsec = SLICE_NS;	/* the runtime's own slice */
	}
	return copy_to_guest(t, a[1], &ts, sizeof(ts)) < 0 ? -EFAULT : 0;
}

/* sched_copy_attr(): the guest's struct, of the size it says. */
static long attr_from_guest(struct task *t, uint64_t uattr,
			    struct guest_sched_attr *at)
{
	uint32_t size, big = sizeof(*at);
	unsigned char tail[64];
	uint64_t off;

	memset(at, 0, sizeof(*at));
	if (copy_from_guest(t, &size, uattr, sizeof(size)) < 0)
		return -EFAULT;
	if (!size)
		size = SCHED_ATTR_SIZE_VER0;
	if (size < SCHED_ATTR_SIZE_VER0 || size > PAGE_BYTES)
		goto too_big;
	if (copy_from_guest(t, at, uattr, size < big ? size : big) < 0)
		return -EFAULT;
	/* copy_struct_from_user(): what we do not know must be zero. */
	for (off = big; off < size; off += sizeof(tail)) {
		uint64_t n = size - off < sizeof(tail) ? size - off
						       : sizeof(tail);
		uint64_t i;

		if (copy_from_guest(t, tail, uattr + off, n) < 0)
			return -EFAULT;
		for (i = 0; i < n; i++)
			if (tail[i])
				goto too_big;
	}
	if ((at->sched_flags & SCHED_FLAG_UTIL_CLAMP) && size < big)
		return -EINVAL;
	if (at->sched_nice < -20)
		at->sched_nice = -20;
	if (at->sched_nice > 19)
		at->sched_nice = 19;
	return 0;
too_big:
	copy_to_guest(t, uattr, &big, sizeof(big));	/* as put_user(): unchecked */
	return -E2BIG;
}

long sys_sched_setattr(struct task *t, const uint64_t *a)
{
	struct guest_sched_attr at;
	struct task *d;
	long err = 0;

	if (!a[1] || (int)a[0] < 0 || (unsigned int)a[2])
		return -EINVAL;
	err = attr_from_guest(t, a[1], &at);
	if (err)
		return err;
	if ((int)at.sched_policy < 0)
		return -EINVAL;
	if (at.sched_flags & SCHED_FLAG_KEEP_POLICY)
		at.sched_policy = SETPARAM_POLICY;
	d = sched_task(t, a[0], &err);
	if (!d)
		return err;
	if (at.sched_flags & SCHED_FLAG_KEEP_PARAMS) {
		at.sched_priority = d->sched.prio;
		at.sched_nice = d->sched.nice;
		at.sched_runtime = d->sched.dl_runtime;
		at.sched_deadline = d->sched.dl_deadline;
		at.sched_period = d->sched.dl_period;
	}
	return sched_set(t, d, &at);
}

long sys_sched_getattr(struct task *t, const uint64_t *a)
{
	struct guest_sched_attr at;
	uint64_t usize = (unsigned int)a[2];
	struct task *d;
	long err = 0;

	if (!a[1] || (int)a[0] < 0 || usize > PAGE_BYTES ||
	    usize < SCHED_ATTR_SIZE_VER0 || (unsigned int)a[3])
		return -EINVAL;
	d = sched_task(t, a[0], &err);
	if (!d)
		return err;
	memset(&at, 0, sizeof(at));
	at.size = usize < sizeof(at) ? usize : sizeof(at);
	at.sched_policy = d->sched.policy;
	at.sched_flags = d->sched.reset_on_fork ? SCHED_FLAG_RESET_ON_FORK : 0;
	if (d->sched.policy == SCHED_DEADLINE) {
		at.sched_runtime = d->sched.dl_runtime;
		at.sched_deadline = d->sched.dl_deadline;
		at.sched_period = d->sched.dl_period;
	} else if (rt_policy(d->sched.policy)) {
		at.sched_priority = d->sched.prio;
	} else {
		at.sched_nice = d->sched.nice;
	}
	at.sched_util_max = 1024;	/* SCHED_CAPACITY_SCALE */
	return copy_to_guest(t, a[1], &at, at.size) < 0 ? -EFAULT : 0;
}

/* What a new thread gets: its creator's, less what RESET_ON_FORK drops. */
void sched_inherit(struct task *c, const struct task *t)
{
	c->sched = t->sched;
	c->ioprio = t->ioprio;		/* copy_io() */
	if (c->sched.reset_on_fork) {
		if (c->sched.policy != SCHED_OTHER &&
		    c->sched.policy != SCHED_BATCH &&
		    c->sched.policy != SCHED_IDLE) {
			c->sched.policy = SCHED_OTHER;
			c->sched.prio = 0;
		}
		if (c->sched.nice < 0)
			c->sched.nice = 0;
		c->sched.reset_on_fork = false;
	}
}

/*
 * getpriority and setpriority: the threads (which, who) names, as the
 * kernel's: PRIO_PROCESS a thread (0: the caller), PRIO_PGRP the threads
 * of a process group (0: the caller's), PRIO_USER every guest thread
 * (one user: the host's uid, 0 for the caller's).  For each: @fn.
 * -EINVAL for an unknown @which, -ESRCH for no thread.
 */
static long prio_each(struct task *t, uint64_t which, int who,
		      void (*fn)(struct task *d, void *arg), void *arg)
{
	struct task *d;
	struct proc *p;
	int pgid, n = 0;

	switch (which) {
	case PRIO_PROCESS:
		d = who ? task_by_tid(who) : t;
		if (!d)
			return -ESRCH;
		fn(d, arg);
		return 0;
	case PRIO_PGRP:
		pgid = who ? who : t->p->pgid;
		for (p = procs; p; p = p->next)
			if (p->state == PROC_ALIVE && p->pgid == pgid)
				for (d = p->threads; d; d = d->next_in_proc, n++)
					fn(d, arg);
		return n ? 0 : -ESRCH;
	case PRIO_USER:
		if (who && (uid_t)who != host_uid)
			return -ESRCH;
		for (p = procs; p; p = p->next)
			if (p->state == PROC_ALIVE)
				for (d = p->threads; d; d = d->next_in_proc, n++)
					fn(d, arg);
		return n ? 0 : -ESRCH;
	default:
		return -EINVAL;
	}
}

static void prio_max(struct task *d, void *arg)
{
	int *best = arg;

	if (20 - d->sched.nice > *best)
		*best = 20 - d->sched.nice;
}

/* The kernel returns 20 - nice, the highest of the threads named. */
long sys_getpriority(struct task *t, const uint64_t *a)
{
	int best = 0;
	long r = prio_each(t, a[0], a[1], prio_max, &best);

	return r < 0 ? r : best;
}

struct prio_set {
	struct task *t;
	int nice;
	long err;
};

/* set_one_prio(): a lower value needs the right; the last error counts. */
static void prio_set_one(struct task *d, void *arg)
{
	struct prio_set *s = arg;

	if (s->nice < d->sched.nice && !can_nice(s->t, s->nice))
		s->err = -EACCES;
	else
		d->sched.nice = s->nice;
}

long sys_setpriority(struct task *t, const uint64_t *a)
{
	struct prio_set s = { t, (int)a[2], 0 };
	long r;

	if (s.nice < -20)
		s.nice = -20;
	if (s.nice > 19)
		s.nice = 19;
	r = prio_each(t, a[0], a[1], prio_set_one, &s);
	return r < 0 ? r : s.err;
}

/*
 * I/O priorities (block/ioprio.c): kept per thread, inherited, read back;
 * not applied.  IOPRIO_WHO_* is PRIO_* + 1.
 */
#define IOPRIO_CLASS_SHIFT	13
#define IOPRIO_CLASS(v)		(((v) >> IOPRIO_CLASS_SHIFT) & 7)
#define IOPRIO_LEVEL(v)		((v) & 7)
enum { IOPRIO_NONE, IOPRIO_RT, IOPRIO_BE, IOPRIO_IDLE };

/* ioprio_check_cap() */
static int ioprio_check(const struct task *t, int v)
{
	switch (IOPRIO_CLASS(v)) {
	case IOPRIO_RT:
		if (!has_sys_nice(t) && !(t->cap_eff & (1ULL << CAP_SYS_ADMIN)))
			return -EPERM;
		/* fall through */
	case IOPRIO_BE:
		return 0;	/* IOPRIO_LEVEL() is below 8 */
	case IOPRIO_IDLE:
		return 0;
	case IOPRIO_NONE:
		return IOPRIO_LEVEL(v) ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

static void ioprio_set_one(struct task *d, void *arg)
{
	d->ioprio = *(int *)arg;
}

/* A kernel without CONFIG_BLOCK has no ioprio calls: nor has its guest. */
static bool host_ioprio(void)
{
	static int has = -1;

	return host_has(&has, SYS_ioprio_get, 0, 0, 0, 0, 0, 0);
}

long sys_ioprio_set(struct task *t, const uint64_t *a)
{
	int v = (int)a[2], r;

	if (!host_ioprio())
		return -ENOSYS;
	r = ioprio_check(t, v);

	if (r)
		return r;
	if ((int)a[0] < 1 || (int)a[0] > 3)
		return -EINVAL;
	return prio_each(t, (int)a[0] - 1, (int)a[1], ioprio_set_one, &v);
}

/* __get_task_ioprio(): none set is the class and level of the nice value. */
static int ioprio_of(const struct task *d)
{
	int cls = IOPRIO_BE;

	if (IOPRIO_CLASS(d->ioprio) != IOPRIO_NONE)
		return d->ioprio;
	if (d->sched.policy == SCHED_IDLE)
		cls = IOPRIO_IDLE;
	else if (rt_policy(d->sched.policy) || d->sched.policy == SCHED_DEADLINE)
		cls = IOPRIO_RT;
	return cls << IOPRIO_CLASS_SHIFT | (d->sched.nice + 20) / 5;
}

static void ioprio_best(struct task *d, void *arg)
{
	int *best = arg, v = ioprio_of(d);

	if (*best < 0 || v < *best)
		*best = v;
}

long sys_ioprio_get(struct task *t, const uint64_t *a)
{
	int which = (int)a[0], best = -1;
	struct task *d;
	long r;

	if (!host_ioprio())
		return -ENOSYS;

	if (which == 1) {	/* IOPRIO_WHO_PROCESS: the raw value */
		d = a[1] ? task_by_tid((int)a[1]) : t;
		return d ? d->ioprio : -ESRCH;
	}
	if (which < 1 || which > 3)
		return -EINVAL;
	r = prio_each(t, which - 1, (int)a[1], ioprio_best, &best);
	return r < 0 ? r : best;
}

long sys_sched_yield(struct task *t, const uint64_t *a)
{
	(void)a;
	t->yield = true;
	return 0;
}

/*
 * The guest's CPUs: one per worker (--cpus, smp.c), set by main().  All
 * that tells the guest about CPUs answers from guest_ncpus:
 * sched_getaffinity and getcpu below, /proc/cpuinfo and
 * /sys/devices/system/cpu/{online,possible,present} (procfs.c).  A task's
 * affinity is where smp.c places it.
 */
int guest_ncpus = 1;

uint64_t guest_cpus_all(void)
{
	return guest_ncpus >= GUEST_MAX_CPUS ? ~0ULL
					     : (1ULL << guest_ncpus) - 1;
}

/* The kernel's cpumask_size(): whole longs for guest_ncpus bits. */
#define CPUMASK_BYTES	8

static struct task *affinity_task(struct task *t, int pid)
{
	return pid ? task_by_tid(pid) : t;
}

/* The kernel's order: the size, the task, then the copy. */
long sys_sched_getaffinity(struct task *t, const uint64_t *a)
{
	unsigned int len = a[1];
	struct task *d;

	if (len * 8ULL < (unsigned int)guest_ncpus || (len & 7))
		return -EINVAL;
	d = affinity_task(t, a[0]);
	if (!d)
		return -ESRCH;
	return copy_to_guest(t, a[2], &d->cpumask, CPUMASK_BYTES) < 0 ?
	       -EFAULT : CPUMASK_BYTES;
}

/*
 * As get_user_cpu_mask(): a shorter mask is zero-extended, a longer one
 * cut; then the task, and a mask without a CPU of the guest's is EINVAL.
 */
long sys_sched_setaffinity(struct task *t, const uint64_t *a)
{
	unsigned int len = a[1];
	uint64_t mask = 0;
	struct task *d;

	if (len > CPUMASK_BYTES)
		len = CPUMASK_BYTES;
	if (len && copy_from_guest(t, &mask, a[2], len) < 0)
		return -EFAULT;
	d = affinity_task(t, a[0]);
	if (!d)
		return -ESRCH;
	mask &= guest_cpus_all();
	if (!mask)
		return -EINVAL;
	d->cpumask = mask;
	if (d->cpu >= 0 && !(mask & (1ULL << d->cpu))) {
		/* Off a CPU it may not use before it runs again (smp.c). */
		d->yield = true;
		task_kick(d);
	}
	return 0;
}

/* The CPU (worker) the task runs on, one of its mask; node 0. */
long sys_getcpu(struct task *t, const uint64_t *a)
{
	uint32_t cpu = t->cpu >= 0 && (t->cpumask & (1ULL << t->cpu)) ?
		       t->cpu : __builtin_ctzll(t->cpumask);
	uint32_t node = 0;
	int err = 0;

	if (a[0] && copy_to_guest(t, a[0], &cpu, 4) < 0)
		err = -EFAULT;
	if (a[1] && copy_to_guest(t, a[1], &node, 4) < 0)
		err = -EFAULT;
	return err;
}
