// SPDX-License-Identifier: GPL-2.0-only
/*
 * POSIX timers: timer_create, timer_settime, timer_gettime,
 * timer_getoverrun, timer_delete.
 *
 * Each process keeps its timers; the scheduler fires them with the
 * itimers (posix_timers_fire() from poll_events()).  An expiry sends the
 * timer's signal (SI_TIMER, its id and value) to the process, or to one
 * of its threads for SIGEV_THREAD_ID.  As in the kernel, a periodic timer
 * is rearmed when that signal is taken (posixtimer_rearm()), not before:
 * the periods that passed meanwhile are its overruns, which the siginfo
 * reports.  So a timer whose signal waits costs the runtime nothing, and
 * a 1 ns period cannot keep the scheduler firing it instead of running
 * guests.  An ignored signal is not queued: the timer is moved on, at
 * least a tick (4 ms) ahead, as posix_timer_fn() does.  SIGEV_NONE timers
 * are never due: their expiry is computed when read.  The
 * clocks are the host's (the guest's time is the host's); the CPU-time
 * clocks are not offered (EINVAL).  exec deletes a process's timers, a
 * fork child starts with none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "umlrun.h"

#define TIMERS_MAX	1024	/* per process */

struct ptimer {
	struct ptimer *next;
	int id;
	clockid_t clock;
	int notify, signo, tid;
	uint64_t value;
	int64_t expires;	/* CLOCK_MONOTONIC ns, 0: disarmed */
	int64_t interval;
	int64_t forwards;	/* periods moved on since its last rearm */
	int last_overrun;
	unsigned int gen;	/* timer_settime's count: a stale signal's */
	bool queued;		/* its signal is pending: rearmed when taken */
};

#define TICK_NS		4000000LL	/* a jiffy of Debian's HZ=250 */

/* hrtimer_forward(): past @now by whole periods, counted in forwards. */
static void timer_forward(struct ptimer *tm, int64_t now)
{
	int64_t k;

	if (!tm->interval || tm->expires > now)
		return;
	k = (now - tm->expires) / tm->interval + 1;
	tm->expires = ns_sat(tm->expires + (__int128)k * tm->interval);
	tm->forwards = tm->forwards + k < 0 ? INT64_MAX : tm->forwards + k;
}

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct ptimer *timer_find(struct proc *p, uint64_t id)
{
	struct ptimer *tm;

	for (tm = p->timers; tm; tm = tm->next)
		if ((uint64_t)tm->id == id)
			return tm;
	return NULL;
}

static bool clock_ok(clockid_t c)
{
	switch (c) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
	case CLOCK_REALTIME_ALARM:
	case CLOCK_BOOTTIME_ALARM:
	case CLOCK_TAI:
		return true;
	}
	return false;
}

long sys_timer_create(struct task *t, const uint64_t *a)
{
	struct { uint64_t value; int32_t signo, notify, tid, pad[11]; } ev;
	struct ptimer *tm;
	int id, n = 0;

	if (!clock_ok((clockid_t)a[0]))
		return -EINVAL;
	if (a[1]) {
		if (copy_from_guest(t, &ev, a[1], sizeof(ev)) < 0)
			return -EFAULT;
	} else {
		ev.signo = SIGALRM;
		ev.notify = SIGEV_SIGNAL;
	}
	switch (ev.notify) {
	case SIGEV_SIGNAL | SIGEV_THREAD_ID: {
		struct task *d = task_by_tid(ev.tid);

		if (!d || d->p != t->p)
			return -EINVAL;
	}
		/* fall through */
	case SIGEV_SIGNAL:
	case SIGEV_THREAD:
		if (!sig_valid(ev.signo))
			return -EINVAL;
		break;
	case SIGEV_NONE:
		break;
	default:
		return -EINVAL;
	}
	for (id = 0; timer_find(t->p, id); id++)
		;
	for (tm = t->p->timers; tm; tm = tm->next)
		n++;
	if (n >= TIMERS_MAX)
		return -EAGAIN;
	tm = calloc(1, sizeof(*tm));
	if (!tm)
		return -EAGAIN;
	tm->id = id;
	tm->clock = a[0];
	tm->notify = ev.notify;
	tm->signo = ev.signo;
	tm->tid = ev.tid;
	tm->value = a[1] ? ev.value : (uint64_t)id;
	if (copy_to_guest(t, a[2], &id, sizeof(id)) < 0) {
		free(tm);
		return -EFAULT;
	}
	tm->next = t->p->timers;
	t->p->timers = tm;
	return 0;
}

/*
 * common_timer_get(): a periodic timer whose signal waits, or a
 * SIGEV_NONE one, is moved on first; an expired one-shot timer is 0.
 */
static void timer_get(struct ptimer *tm, struct itimerspec *it)
{
	int64_t now = now_ns(), left;

	if (tm->queued || tm->notify == SIGEV_NONE)
		timer_forward(tm, now);
	if (tm->notify == SIGEV_NONE && !tm->interval && tm->expires &&
	    tm->expires <= now)
		tm->expires = 0;
	left = tm->expires ? tm->expires - now : 0;
	if (tm->expires && left < 1)
		left = 1;
	it->it_value.tv_sec = left / 1000000000;
	it->it_value.tv_nsec = left % 1000000000;
	it->it_interval.tv_sec = tm->interval / 1000000000;
	it->it_interval.tv_nsec = tm->interval % 1000000000;
}

long sys_timer_settime(struct task *t, const uint64_t *a)
{
	struct itimerspec it, old;
	struct ptimer *tm = timer_find(t->p, (int)a[0]);
	int64_t v;

	if (!a[2])
		return -EINVAL;	/* the syscall checks for a new value first */
	if (copy_from_guest(t, &it, a[2], sizeof(it)) < 0)
		return -EFAULT;
	if (!tm)
		return -EINVAL;
	if (!timespec_ok(&it.it_value) || !timespec_ok(&it.it_interval))
		return -EINVAL;
	timer_get(tm, &old);
	v = timespec_ns(&it.it_value);
	if (v && (a[1] & TIMER_ABSTIME))
		v = ns_sat((__int128)v - clock_ns(tm->clock)); /* now relative */
	/*
	 * An absolute time in the past stays in the past: the periods since
	 * are overruns, as the kernel counts them (capped at INT_MAX).
	 */
	tm->expires = it.it_value.tv_sec || it.it_value.tv_nsec ?
		      ns_sat((__int128)now_ns() + v) : 0;
	if (it.it_value.tv_sec || it.it_value.tv_nsec)
		tm->expires = tm->expires > 0 ? tm->expires : 1;
	tm->interval = timespec_ns(&it.it_interval);
	tm->forwards = 0;
	tm->queued = false;	/* a signal still pending is stale now */
	tm->gen++;
	sched_deadline_new();
	if (a[3] && copy_to_guest(t, a[3], &old, sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

long sys_timer_gettime(struct task *t, const uint64_t *a)
{
	struct ptimer *tm = timer_find(t->p, (int)a[0]);
	struct itimerspec it;

	if (!tm)
		return -EINVAL;
	timer_get(tm, &it);
	return copy_to_guest(t, a[1], &it, sizeof(it)) < 0 ? -EFAULT : 0;
}

long sys_timer_getoverrun(struct task *t, const uint64_t *a)
{
	struct ptimer *tm = timer_find(t->p, (int)a[0]);

	return tm ? tm->last_overrun : -EINVAL;
}

long sys_timer_delete(struct task *t, const uint64_t *a)
{
	struct ptimer **pp, *tm;

	for (pp = &t->p->timers; (tm = *pp); pp = &tm->next) {
		if ((uint64_t)tm->id == (uint64_t)(int)a[0]) {
			*pp = tm->next;
			free(tm);
			return 0;
		}
	}
	return -EINVAL;
}

/* exec and exit: the process's timers go. */
void posix_timers_free(struct proc *p)
{
	struct ptimer *tm;

	while ((tm = p->timers)) {
		p->timers = tm->next;
		free(tm);
	}
}

/*
 * A timer's signal was taken: a periodic timer is rearmed past now, and
 * the siginfo gets the periods moved on since the expiry that sent it
 * (posixtimer_rearm(): it_overrun starts at -1).  Not for a signal that a
 * timer_settime made stale.
 */
void posix_timer_dequeued(struct proc *p, struct ksiginfo *si)
{
	struct ptimer *tm = timer_find(p, si->timerid);
	int64_t o;

	if (!tm || !tm->queued || si->gen != tm->gen)
		return;
	tm->queued = false;
	if (tm->interval) {
		timer_forward(tm, now_ns());
		o = tm->forwards - 1;
		si->overrun = tm->last_overrun = o > INT_MAX ? INT_MAX : (int)o;
		tm->forwards = 0;
		sched_deadline_new();
	}
}

/*
 * @tm of @p expired: send its signal; it stays due no more until that is
 * taken.  True if that ended @p (SIGKILL, which may reap it at once):
 * nothing of it may be touched.
 */
static bool timer_expire(struct proc *p, struct ptimer *tm, int64_t now)
{
	struct ksiginfo si = { .signo = tm->signo, .code = -2 /* SI_TIMER */,
			       .timerid = tm->id, .value = tm->value,
			       .gen = tm->gen };
	struct task *d;
	uint64_t pend;

	if (si.signo == SIGKILL) {
		sig_send_proc(p, &si);
		return true;
	}
	tm->queued = true;
	if (!tm->interval)
		tm->expires = 0;
	d = tm->notify == (SIGEV_SIGNAL | SIGEV_THREAD_ID) ? task_by_tid(tm->tid) : NULL;
	if (d && d->p != p)
		d = NULL;
	if (d)
		sig_send_task(d, &si);
	else
		sig_send_proc(p, &si);
	pend = d ? d->pending.set : p->shared_pending.set;
	if (pend & SIGBIT(si.signo))
		return false;
	/* Ignored, so never queued: moved on, a tick ahead at least. */
	tm->queued = false;
	timer_forward(tm, tm->interval < TICK_NS ? now + TICK_NS : now);
	return false;
}

/* Fire the expired timers of every process; the next expiry (0: none). */
int64_t posix_timers_fire(int64_t now)
{
	struct proc *p, *pnext;
	struct ptimer *tm, *tnext;
	int64_t next = 0;

	for (p = procs; p; p = pnext) {
		pnext = p->next;
		if (p->state != PROC_ALIVE)
			continue;
		for (tm = p->timers; tm; tm = tnext) {
			tnext = tm->next;
			if (!tm->expires || tm->queued || tm->notify == SIGEV_NONE)
				continue;	/* never due, or rearmed when taken */
			if (tm->expires <= now && timer_expire(p, tm, now))
				break;	/* it killed @p: its timers are gone */
			if (tm->expires && !tm->queued &&
			    (!next || tm->expires < next))
				next = tm->expires;
		}
	}
	return next;
}
