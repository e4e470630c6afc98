// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timers of a process's CPU time: ITIMER_VIRTUAL (user time, then
 * SIGVTALRM), ITIMER_PROF (user and system time, SIGPROF) and
 * RLIMIT_CPU (SIGXCPU at the soft limit and every second after it,
 * SIGKILL at the hard one), as kernel/time/itimer.c and posix-cpu-timers.c
 * keep them.
 *
 * The guest's threads are host tasks: their CPU time is the host's
 * (usage.c).  It grows only while a guest thread runs, and while one runs
 * the runtime's 10 ms slice ends; the timers are checked there
 * (cpu_timers_check(), from sched.c), as the kernel checks them at its
 * tick, and before the runtime sleeps.  Only processes with a timer
 * armed or a CPU limit are sampled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

#include "umlrun.h"

enum { CPU_VIRT, CPU_PROF };

/* The kernel's TICK_NSEC: the resolution of CLOCK_MONOTONIC_COARSE. */
static uint64_t tick_ns(void)
{
	static uint64_t ns;
	struct timespec ts;

	if (!ns)
		ns = clock_getres(CLOCK_MONOTONIC_COARSE, &ts) == 0 &&
		     ts.tv_nsec > 0 ? (uint64_t)ts.tv_nsec : 4000000;
	return ns;
}

/* @p's CPU time as the timer @which counts it, ns. */
static void cpu_sample(struct proc *p, uint64_t s[2])
{
	uint64_t user, sys;

	usage_cpu_ns(p, &user, &sys);
	s[CPU_VIRT] = user;
	s[CPU_PROF] = user + sys;
}

static void send_kernel_sig(struct proc *p, int sig)
{
	struct ksiginfo si = { .signo = sig, .code = 0x80 /* SI_KERNEL */ };

	sig_send_proc(p, &si);
}

/* check_cpu_itimer(): at its expiry the signal, then the next period. */
static void itimer_check(struct proc *p, int which, uint64_t now)
{
	uint64_t *exp = &p->cpu_it_expires[which];

	if (!*exp || now < *exp)
		return;
	*exp = p->cpu_it_incr[which] ? *exp + p->cpu_it_incr[which] : 0;
	send_kernel_sig(p, which == CPU_VIRT ? SIGVTALRM : SIGPROF);
}

/* check_process_timers()'s RLIMIT_CPU: the limit is in seconds. */
static void rlimit_cpu_check(struct proc *p, uint64_t ptime)
{
	struct grlimit *l = &p->rlim[RLIMIT_CPU];

	if (l->cur == RLIM_INFINITY)
		return;
	if (l->max != RLIM_INFINITY && ptime / 1000000000 >= l->max) {
		send_kernel_sig(p, SIGKILL);
		return;
	}
	if (ptime / 1000000000 >= l->cur) {
		send_kernel_sig(p, SIGXCPU);
		l->cur++;	/* the next one a second later */
	}
}

static bool cpu_timed(const struct proc *p)
{
	return p->state == PROC_ALIVE &&
	       (p->cpu_it_expires[CPU_VIRT] || p->cpu_it_expires[CPU_PROF] ||
		p->rlim[RLIMIT_CPU].cur != RLIM_INFINITY);
}

void cpu_timers_check(void)
{
	struct proc *p, *next;
	uint64_t s[2];

	for (p = procs; p; p = next) {
		next = p->next;
		if (!cpu_timed(p))
			continue;
		cpu_sample(p, s);
		itimer_check(p, CPU_VIRT, s[CPU_VIRT]);
		itimer_check(p, CPU_PROF, s[CPU_PROF]);
		rlimit_cpu_check(p, s[CPU_PROF]);
	}
}

/* get_cpu_itimer(): the time left, a tick if it is about to fire. */
static void cpu_itimer_get(struct proc *p, int which, const uint64_t s[2],
			   struct itimerval *it)
{
	uint64_t left = p->cpu_it_expires[which];

	if (left)
		left = left <= s[which] ? tick_ns() : left - s[which];
	it->it_value.tv_sec = left / 1000000000;
	it->it_value.tv_usec = left % 1000000000 / 1000;
	it->it_interval.tv_sec = p->cpu_it_incr[which] / 1000000000;
	it->it_interval.tv_usec = p->cpu_it_incr[which] % 1000000000 / 1000;
}

static int cpu_which(int which)
{
	return which == ITIMER_VIRTUAL ? CPU_VIRT : CPU_PROF;
}

/* getitimer of ITIMER_VIRTUAL or ITIMER_PROF. */
void cpu_itimer_read(struct proc *p, int which, struct itimerval *it)
{
	uint64_t s[2];

	cpu_sample(p, s);
	cpu_itimer_get(p, cpu_which(which), s, it);
}

/*
 * set_cpu_itimer(): the old value into @old, then @it armed from now (a
 * tick later, as the kernel's, so that it never fires early), or off.
 */
void cpu_itimer_set(struct proc *p, int which, const struct itimerval *it,
		    struct itimerval *old)
{
	uint64_t s[2], val = timeval_ns(&it->it_value);
	int w = cpu_which(which);

	cpu_sample(p, s);
	cpu_itimer_get(p, w, s, old);
	p->cpu_it_expires[w] = val ? s[w] + val + tick_ns() : 0;
	p->cpu_it_incr[w] = timeval_ns(&it->it_interval);
}
