// SPDX-License-Identifier: GPL-2.0-only
/*
 * Clocks, sleeping, and the per-process ITIMER_REAL and alarm (the CPU-time
 * interval timers: cputimer.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

#include "umlrun.h"

/*
 * A CPU-time clock of the guest's (posix_cpu_clock_get()): the calling
 * process's or thread's (CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID)
 * or one a pid or tid names, encoded as the kernel's MAKE_*_CPUCLOCK() do;
 * a thread's only within the caller's process, a process's by its pid (or
 * the caller's own tid).  With @res its resolution, the host's for the
 * same kind of clock.  1: not a CPU-time clock (the host's, then: a fixed
 * clock); 0; -EINVAL, for a clock fd among others (CLOCKFD: a guest fd is
 * no host clock).
 */
static int cpu_clock(struct task *t, clockid_t id, struct timespec *ts, bool res)
{
	int which = 2, pid = 0;
	bool thread;
	struct proc *p = t->p;
	struct task *th = NULL;
	uint64_t ns;

	if (id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID) {
		thread = id == CLOCK_THREAD_CPUTIME_ID;
	} else if (id < 0) {
		which = id & 3;
		thread = id & 4;
		pid = ~(id >> 3);
		if (which == 3)
			return -EINVAL;	/* CLOCKFD */
	} else {
		return 1;
	}
	if (thread) {
		th = pid ? task_by_tid(pid) : t;
		if (!th || th->p != t->p)
			return -EINVAL;
	} else if (pid) {
		th = task_by_tid(pid);
		p = proc_by_pid(pid);
		if (th == t)
			p = t->p;	/* the caller's own tid names its process */
		else if (!p)
			return -EINVAL;
		th = NULL;
	}
	if (res) {
		/* the host's answer for its own clock of that kind */
		clockid_t own = (clockid_t)(~0u << 3 | 4 | which);

		return clock_getres(own, ts) < 0 ? -errno : 0;
	}
	ns = usage_cpu_clock(p, th, which);
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
	return 0;
}

long sys_clock_gettime(struct task *t, const uint64_t *a)
{
	struct timespec ts;
	int r = cpu_clock(t, (int)a[0], &ts, false);

	if (r < 0)
		return r;
	if (r && clock_gettime((int)a[0], &ts) < 0)
		return -errno;
	return copy_to_guest(t, a[1], &ts, sizeof(ts)) < 0 ? -EFAULT : 0;
}

long sys_clock_getres(struct task *t, const uint64_t *a)
{
	struct timespec ts;
	int r = cpu_clock(t, (int)a[0], &ts, true);

	if (r < 0)
		return r;
	if (r && clock_getres((int)a[0], &ts) < 0)
		return -errno;
	if (a[1] && copy_to_guest(t, a[1], &ts, sizeof(ts)) < 0)
		return -EFAULT;
	return 0;
}

long sys_gettimeofday(struct task *t, const uint64_t *a)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	if (a[0] && copy_to_guest(t, a[0], &tv, sizeof(tv)) < 0)
		return -EFAULT;
	if (a[1]) {
		uint32_t tz[2] = { 0, 0 };

		if (copy_to_guest(t, a[1], tz, sizeof(tz)) < 0)
			return -EFAULT;
	}
	return 0;
}

long sys_time(struct task *t, const uint64_t *a)
{
	int64_t now = time(NULL);

	if (a[0] && copy_to_guest(t, a[0], &now, 8) < 0)
		return -EFAULT;
	return now;
}

/*
 * Sleep until t->sys_deadline (CLOCK_MONOTONIC ns).  A signal's EINTR
 * writes the time left to @urem (0: none), or is EFAULT if it cannot:
 * the dispatcher does that (syscall_interrupted()), from t->sys_rem.
 */
static long sleep_until(struct task *t, uint64_t urem)
{
	if (t->sys_deadline - now_ns() <= 0)
		return 0;
	t->sys_rem = urem;
	return block_until(t, t->sys_deadline);
}

long sys_nanosleep(struct task *t, const uint64_t *a)
{
	struct timespec ts;

	if (!t->sys_again) {
		if (copy_from_guest(t, &ts, a[0], sizeof(ts)) < 0)
			return -EFAULT;
		if (ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000 || ts.tv_sec < 0)
			return -EINVAL;
		t->sys_deadline = ns_after(timespec_ns(&ts));
	}
	return sleep_until(t, a[1]);
}

/*
 * Which clocks a guest may sleep on, as the kernel's clockid_to_kclock()
 * and its nsleep: the host says, asked to sleep until a time long past
 * (so it returns at once: 0, or EINVAL for no such clock, EOPNOTSUPP for
 * one without sleeps, EPERM for an alarm clock without CAP_WAKE_ALARM).
 * The CPU-time clocks are not offered: EINVAL.
 */
static int sleep_clock_ok(clockid_t id)
{
	static const struct timespec past = { 0, 0 };

	if (id < 0 || id == CLOCK_PROCESS_CPUTIME_ID)
		return -EINVAL;
	/* The raw call: glibc refuses CLOCK_THREAD_CPUTIME_ID by itself. */
	return syscall(SYS_clock_nanosleep, id, TIMER_ABSTIME, &past, NULL) ?
	       -errno : 0;
}

long sys_clock_nanosleep(struct task *t, const uint64_t *a)
{
	struct timespec ts, now;
	clockid_t id = (int)a[0];
	int r;

	if (!t->sys_again) {
		r = sleep_clock_ok(id);
		if (r)
			return r;
		if (copy_from_guest(t, &ts, a[2], sizeof(ts)) < 0)
			return -EFAULT;
		if (ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000 || ts.tv_sec < 0)
			return -EINVAL;
		if (clock_gettime(id, &now) < 0)
			return -EINVAL;
		t->sys_deadline = ns_after(timespec_ns(&ts));
		if ((int)a[1] & TIMER_ABSTIME)
			t->sys_deadline = ns_sat((__int128)t->sys_deadline -
						 timespec_ns(&now));
	}
	return sleep_until(t, ((int)a[1] & TIMER_ABSTIME) ? 0 : a[3]);
}

/* ---- ITIMER_REAL and alarm: one timer per process, fired by sched.c ---- */

/*
 * Send SIGALRM for every expired timer; return the next expiry (0: none).
 * As the kernel's it_real_fn(), an expiry only sends: a periodic timer is
 * rearmed when a SIGALRM is taken (itimer_dequeued()), so one whose
 * signal waits, or is ignored, is due no more and a 1 us period cannot
 * keep the scheduler firing it instead of running guests.
 */
int64_t itimers_fire(int64_t now)
{
	struct ksiginfo si = { .signo = SIGALRM, .code = 0x80 /* SI_KERNEL */ };
	int64_t next = 0;
	struct proc *p;

	for (p = procs; p; p = p->next) {
		if (p->state != PROC_ALIVE || !p->itimer_next)
			continue;
		if (p->itimer_next <= now) {
			p->itimer_fired = p->itimer_next;
			p->itimer_next = 0;
			sig_send_proc(p, &si);
			continue;
		}
		if (!next || p->itimer_next < next)
			next = p->itimer_next;
	}
	return next;
}

/*
 * A SIGALRM was taken (dequeue_signal()): a periodic ITIMER_REAL not
 * armed is moved on past now from its last expiry, and armed again.
 */
void itimer_dequeued(struct proc *p)
{
	int64_t now = now_ns(), k;

	if (p->itimer_next || !p->itimer_interval || !p->itimer_fired)
		return;
	k = now < p->itimer_fired ? 1 :
	    (now - p->itimer_fired) / p->itimer_interval + 1;
	p->itimer_next = ns_sat(p->itimer_fired +
				(__int128)k * p->itimer_interval);
	sched_deadline_new();
}

static void itimer_get(struct proc *p, struct itimerval *it)
{
	int64_t left = p->itimer_next ? p->itimer_next - now_ns() : 0;

	if (p->itimer_next && left < 1000)
		left = 1000;
	it->it_value.tv_sec = left / 1000000000;
	it->it_value.tv_usec = left % 1000000000 / 1000;
	it->it_interval.tv_sec = p->itimer_interval / 1000000000;
	it->it_interval.tv_usec = p->itimer_interval % 1000000000 / 1000;
}

long sys_getitimer(struct task *t, const uint64_t *a)
{
	struct itimerval it;

	switch ((int)a[0]) {
	case ITIMER_REAL:
		itimer_get(t->p, &it);
		break;
	case ITIMER_VIRTUAL:
	case ITIMER_PROF:
		cpu_itimer_read(t->p, a[0], &it);	/* cputimer.c */
		break;
	default:
		return -EINVAL;
	}
	return copy_to_guest(t, a[1], &it, sizeof(it)) < 0 ? -EFAULT : 0;
}

/* The kernel's timeval_valid(). */
static bool itimer_tv_ok(const struct timeval *tv)
{
	return tv->tv_sec >= 0 && (unsigned long)tv->tv_usec < 1000000;
}

static void itimer_real_set(struct proc *p, const struct itimerval *it)
{
	p->itimer_next = timeval_ns(&it->it_value) ?
			 ns_after(timeval_ns(&it->it_value)) : 0;
	/* A disarmed timer keeps no period (do_setitimer()). */
	p->itimer_interval = p->itimer_next ? timeval_ns(&it->it_interval) : 0;
	p->itimer_fired = 0;
	sched_deadline_new();
}

/*
 * In the kernel's order: the new value read and checked, the timer set,
 * then the old value written (EFAULT then, with the timer set).  A NULL
 * new value disarms it, the kernel's "misfeature".
 */
long sys_setitimer(struct task *t, const uint64_t *a)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } }, old;

	if (a[1] && copy_from_guest(t, &it, a[1], sizeof(it)) < 0)
		return -EFAULT;
	if (!itimer_tv_ok(&it.it_value) || !itimer_tv_ok(&it.it_interval))
		return -EINVAL;
	switch ((int)a[0]) {
	case ITIMER_REAL:
		itimer_get(t->p, &old);
		itimer_real_set(t->p, &it);
		break;
	case ITIMER_VIRTUAL:
	case ITIMER_PROF:
		cpu_itimer_set(t->p, a[0], &it, &old);
		break;
	default:
		return -EINVAL;
	}
	if (a[2] && copy_to_guest(t, a[2], &old, sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

long sys_alarm(struct task *t, const uint64_t *a)
{
	struct itimerval old;
	long left;

	itimer_get(t->p, &old);
	left = old.it_value.tv_sec + (old.it_value.tv_usec >= 500000);
	if (!left && (old.it_value.tv_usec || old.it_value.tv_sec))
		left = 1;
	t->p->itimer_next = a[0] ? now_ns() + (int64_t)(unsigned int)a[0] *
				   1000000000LL : 0;
	t->p->itimer_interval = 0;
	t->p->itimer_fired = 0;
	sched_deadline_new();
	return left;
}
