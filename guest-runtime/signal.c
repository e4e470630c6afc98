// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest signals: dispositions, masks, queues, delivery.  The frame a
 * handler gets and rt_sigreturn are in sigframe.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <unistd.h>

#include "umlrun.h"

#define KSA_RESTORER	0x04000000
#define SIG_DFL_H	0ULL
#define SIG_IGN_H	1ULL

enum { ACT_TERM, ACT_IGN, ACT_STOP };

static int default_action(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGURG: case SIGWINCH: case SIGCONT:
		return ACT_IGN;
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return ACT_STOP;
	default:
		return ACT_TERM;
	}
}

struct sighand *sighand_new(void)
{
	struct sighand *sh = calloc(1, sizeof(*sh));

	if (sh)
		sh->refs = 1;
	return sh;
}

struct sighand *sighand_copy(const struct sighand *src)
{
	struct sighand *sh = sighand_new();

	if (sh)
		memcpy(sh->act, src->act, sizeof(sh->act));
	return sh;
}

void sighand_put(struct sighand *sh)
{
	if (sh && --sh->refs == 0)
		free(sh);
}

static bool sig_ignored(struct proc *p, int sig)
{
	uint64_t h = p->sh->act[sig].handler;

	if (h == SIG_IGN_H)
		return true;
	return h == SIG_DFL_H && default_action(sig) == ACT_IGN;
}

/* A signal reached a thread: a blocked syscall there must notice it. */
static void sig_kick(struct task *t, int sig)
{
	if (t->sigmask & SIGBIT(sig))
		return;
	if (t->state == TASK_BLOCKED && !t->w.vfork)
		sched_wake(t);
	else
		task_kick(t);	/* it may run on another worker */
}

/*
 * Real-time signals queued in all: a bound on the runtime's memory,
 * whatever RLIMIT_SIGPENDING allows.
 */
#define RT_QUEUE_MAX	1024
static int rt_queued;

/*
 * Signals queued with their information, in all: the one guest user's
 * count that RLIMIT_SIGPENDING bounds (the kernel's ucounts, checked in
 * __sigqueue_alloc() against the target's limit).  A standard signal
 * queued past it is in q->lost (its information lost, not counted).
 */
static long sig_queued;

/*
 * May @si be queued for @p with its information?  A standard signal
 * from the kernel or kill() (si_code >= 0) overrides the limit, a
 * real-time one never does (__send_signal_locked()); a POSIX timer's
 * signal had its entry made with the timer (posix-timers.c).
 */
static bool sigpending_allows(const struct proc *p, const struct ksiginfo *si)
{
	if (si->code == SI_TIMER || (si->signo < SIGRTMIN_K && si->code >= 0))
		return true;
	return (uint64_t)sig_queued < p->rlim[RLIMIT_SIGPENDING].cur;
}

/*
 * @sig pending in @q with no entry, past the limit: the kernel's signal
 * that "loses its information" (collect_signal() then gives SI_USER,
 * pid and uid 0).  If one is pending already, it merges with that one.
 */
static int sigqueue_lost(struct sigqueue *q, int sig)
{
	if (!(q->set & SIGBIT(sig))) {
		q->set |= SIGBIT(sig);
		q->lost |= SIGBIT(sig);
		sigfd_dirty = true;
	}
	return 0;
}

/*
 * Queue @si for @p: a standard signal once (a second one merges), a
 * real-time one each time it is sent.  Past RLIMIT_SIGPENDING (or
 * RT_QUEUE_MAX) a real-time one not from kill() fails with -EAGAIN, as
 * sigqueue() and tgkill() do (a runtime-made one is then merged); any
 * other is queued without its information, as SI_USER from pid 0.
 */
static int sigqueue_add(const struct proc *p, struct sigqueue *q,
			const struct ksiginfo *si)
{
	bool room = sigpending_allows(p, si);
	struct qsig *n, **pp;

	if (si->signo >= SIGRTMIN_K) {
		n = room && rt_queued < RT_QUEUE_MAX ? malloc(sizeof(*n)) : NULL;
		if (!n && si->code != SI_USER)
			return -EAGAIN;
		if (!n)
			return sigqueue_lost(q, si->signo);
		rt_queued++;
		sig_queued++;
		n->si = *si;
		n->next = NULL;
		for (pp = &q->rt; *pp; pp = &(*pp)->next)
			;
		*pp = n;
		q->set |= SIGBIT(si->signo);
		sigfd_dirty = true;
		return 0;
	}
	if (q->set & SIGBIT(si->signo))
		return 0;	/* standard signals do not queue */
	if (!room)
		return sigqueue_lost(q, si->signo);
	sig_queued++;
	q->set |= SIGBIT(si->signo);
	q->info[si->signo] = *si;
	sigfd_dirty = true;
	return 0;
}

/* Is a real-time @sig queued in @q? */
static bool rt_queued_in(const struct sigqueue *q, int sig)
{
	const struct qsig *n;

	for (n = q->rt; n; n = n->next)
		if (n->si.signo == sig)
			return true;
	return false;
}

/* Take the oldest pending @sig off @q into @si. */
static void sigqueue_take(struct sigqueue *q, int sig, struct ksiginfo *si)
{
	struct qsig **pp, *n;

	sigfd_dirty = true;
	if (q->lost & SIGBIT(sig)) {	/* the oldest: no entry, no info */
		q->lost &= ~SIGBIT(sig);
		if (!rt_queued_in(q, sig))
			q->set &= ~SIGBIT(sig);
		memset(si, 0, sizeof(*si));
		si->signo = sig;
		return;
	}
	if (sig < SIGRTMIN_K) {
		q->set &= ~SIGBIT(sig);
		*si = q->info[sig];
		sig_queued--;
		return;
	}
	for (pp = &q->rt; *pp && (*pp)->si.signo != sig; pp = &(*pp)->next)
		;
	n = *pp;
	if (!n) {	/* cannot happen: the bit says one is there */
		q->set &= ~SIGBIT(sig);
		memset(si, 0, sizeof(*si));
		si->signo = sig;
		return;
	}
	*pp = n->next;
	*si = n->si;
	free(n);
	rt_queued--;
	sig_queued--;
	if (!rt_queued_in(q, sig))
		q->set &= ~SIGBIT(sig);
}

/* Drop every pending signal of @set from @q (all of it: 0 ends a queue). */
void sigqueue_drop(struct sigqueue *q, uint64_t set)
{
	uint64_t std = q->set & set & ~q->lost & (SIGBIT(SIGRTMIN_K) - 1);
	struct qsig **pp = &q->rt, *n;

	if (q->set & set)
		sigfd_dirty = true;
	sig_queued -= __builtin_popcountll(std);
	q->set &= ~set;
	q->lost &= ~set;
	while ((n = *pp)) {
		if (set & SIGBIT(n->si.signo)) {
			*pp = n->next;
			free(n);
			rt_queued--;
			sig_queued--;
		} else {
			pp = &n->next;
		}
	}
}

#define STOPSIGS (SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) | SIGBIT(SIGTTIN) | \
		  SIGBIT(SIGTTOU))

static void drop_pending(struct proc *p, uint64_t set)
{
	struct task *o;

	sigqueue_drop(&p->shared_pending, set);
	for (o = p->threads; o; o = o->next_in_proc)
		sigqueue_drop(&o->pending, set);
}

/* Effects a signal has when it is sent, whatever its disposition. */
static void sig_send_effects(struct proc *p, int sig)
{
	if (sig == SIGCONT) {
		drop_pending(p, STOPSIGS);
		proc_continue(p);
	} else if (STOPSIGS & SIGBIT(sig)) {
		drop_pending(p, SIGBIT(SIGCONT));
	}
}

/*
 * Every signal the runtime sends goes through sig_send_task(),
 * sig_send_proc() or sig_force(): each refuses a number its tables
 * (act[], info[], the 64-bit sets) cannot hold, whoever computed it.
 */
/*
 * Blocked in @t, counting what rt_sigtimedwait unblocked for its wait (the
 * kernel's real_blocked): an ignored signal that is blocked is queued, not
 * dropped (sig_ignored() in kernel/signal.c), so sigwaitinfo gets it.
 */
static bool blocked_in(const struct task *t, int sig)
{
	uint64_t m = t->sigmask | (t->sigwait_active ? t->sigwait_saved : 0);

	return m & SIGBIT(sig);
}

/* 0, or -EAGAIN when a real-time signal finds the queue full. */
int sig_send_task(struct task *t, const struct ksiginfo *si)
{
	struct proc *p = t->p;
	int r;

	if (p->state != PROC_ALIVE || !sig_valid(si->signo))
		return 0;
	if (si->signo == SIGKILL) {
		proc_exit_group(p, SIGKILL);
		return 0;
	}
	sig_send_effects(p, si->signo);
	if (sig_ignored(p, si->signo) && !blocked_in(t, si->signo))
		return 0;
	r = sigqueue_add(p, &t->pending, si);
	sig_kick(t, si->signo);
	return r;
}

int sig_send_proc(struct proc *p, const struct ksiginfo *si)
{
	struct task *t;
	int r;

	if (p->state != PROC_ALIVE || !sig_valid(si->signo))
		return 0;
	if (si->signo == SIGKILL) {
		proc_exit_group(p, SIGKILL);
		return 0;
	}
	sig_send_effects(p, si->signo);
	/* As the kernel: blocked in the thread the pid names, the leader. */
	for (t = p->threads; t && t->tid != p->pid; t = t->next_in_proc)
		;
	if (!t)
		t = p->threads;
	if (sig_ignored(p, si->signo) && !(t && blocked_in(t, si->signo)))
		return 0;
	r = sigqueue_add(p, &p->shared_pending, si);
	for (t = p->threads; t; t = t->next_in_proc) {
		if (!(t->sigmask & SIGBIT(si->signo))) {
			sig_kick(t, si->signo);
			break;
		}
	}
	return r;
}

/* A synchronous fault: it can be neither blocked nor ignored. */
void sig_force(struct task *t, const struct ksiginfo *si)
{
	struct ksigaction *act;

	if (!sig_valid(si->signo)) {
		/* No host fault has such a number: end the guest, not us. */
		proc_exit_group(t->p, SIGKILL);
		return;
	}
	act = &t->p->sh->act[si->signo];
	if ((t->sigmask & SIGBIT(si->signo)) || act->handler == SIG_IGN_H) {
		act->handler = SIG_DFL_H;
		t->sigmask &= ~SIGBIT(si->signo);
	}
	sigqueue_drop(&t->pending, SIGBIT(si->signo));
	sigqueue_add(t->p, &t->pending, si);
}

static uint64_t deliverable(struct task *t)
{
	return (t->pending.set | t->p->shared_pending.set) &
	       ~(t->sigmask & ~UNBLOCKABLE);
}

bool sig_pending_for(struct task *t)
{
	return deliverable(t) != 0;
}

static void notify_parent_stop(struct proc *p, int code, int status)
{
	struct proc *pp = p->parent;
	struct ksiginfo si = { .signo = SIGCHLD, .code = code, .pid = p->pid,
			       .uid = host_uid, .status = status };

	if (!pp || pp->state != PROC_ALIVE)
		return;
	if (!(pp->sh->act[SIGCHLD].flags & SA_NOCLDSTOP))
		sig_send_proc(pp, &si);
	wake_children_waiters(pp);
}

/* Job control: the whole process stops (its threads are not scheduled). */
static void proc_stop(struct proc *p, int sig)
{
	struct task *t;

	if (p->stopped)
		return;
	p->stopped = true;
	for (t = p->threads; t; t = t->next_in_proc)
		task_kick(t);	/* the ones running on other workers stop now */
	p->stop_report = (sig << 8) | 0x7f;
	p->cont_report = false;
	notify_parent_stop(p, CLD_STOPPED, sig);
}

void proc_continue(struct proc *p)
{
	struct task *t;

	if (!p->stopped)
		return;
	p->stopped = false;
	p->stop_report = 0;
	p->cont_report = true;
	for (t = p->threads; t; t = t->next_in_proc)
		if (t->state == TASK_RUNNABLE || t->state == TASK_SYSCALL)
			sched_enqueue(t);
	notify_parent_stop(p, CLD_CONTINUED, SIGCONT);
}

/*
 * Must a pending signal end a blocked syscall?  Only one that runs a
 * handler or kills does: a stop (or an ignored signal) leaves the syscall
 * waiting, as the kernel restarts it transparently.
 */
bool sig_wants_interrupt(struct task *t)
{
	uint64_t set = deliverable(t);
	int sig;

	for (sig = 1; sig <= NSIG_GUEST; sig++) {
		uint64_t h = t->p->sh->act[sig].handler;

		if (!(set & SIGBIT(sig)))
			continue;
		if (h > SIG_IGN_H ||
		    (h == SIG_DFL_H && default_action(sig) == ACT_TERM))
			return true;
	}
	return false;
}

/* Act on the pending stop and ignored signals of a task in a syscall. */
void sig_take_stops(struct task *t)
{
	uint64_t set = deliverable(t);
	int sig;

	for (sig = 1; sig <= NSIG_GUEST; sig++) {
		if (!(set & SIGBIT(sig)))
			continue;
		sigqueue_drop(&t->pending, SIGBIT(sig));
		sigqueue_drop(&t->p->shared_pending, SIGBIT(sig));
		if (t->p->sh->act[sig].handler == SIG_DFL_H &&
		    default_action(sig) == ACT_STOP)
			proc_stop(t->p, sig);
	}
}

/* Does the signal about to be delivered ask for syscall restart? */
int sig_pending_restart(struct task *t)
{
	uint64_t set = deliverable(t);
	int sig;

	if (!set)
		return 0;
	sig = __builtin_ctzll(set) + 1;
	return t->p->sh->act[sig].handler > SIG_IGN_H &&
	       (t->p->sh->act[sig].flags & SA_RESTART);
}

#define SYNCSIGS (SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | SIGBIT(SIGILL) | \
		  SIGBIT(SIGTRAP) | SIGBIT(SIGFPE) | SIGBIT(SIGSYS))

/* A timer's signal was taken: the kernel rearms periodic timers then. */
static void timer_signal_taken(struct proc *p, int sig, struct ksiginfo *si)
{
	if (si->code == -2)	/* SI_TIMER */
		posix_timer_dequeued(p, si);
	if (sig == SIGALRM)
		itimer_dequeued(p);
}

/* The next signal to deliver: faults first, as the kernel does. */
static int sig_dequeue(struct task *t, struct ksiginfo *si)
{
	uint64_t set = deliverable(t);
	struct sigqueue *q;
	int sig;

	if (!set)
		return 0;
	if (set & t->pending.set & SYNCSIGS)
		set &= t->pending.set & SYNCSIGS;
	sig = __builtin_ctzll(set) + 1;
	q = (t->pending.set & SIGBIT(sig)) ? &t->pending
					    : &t->p->shared_pending;
	sigqueue_take(q, sig, si);
	timer_signal_taken(t->p, sig, si);
	return sig;
}

bool sig_on_altstack(const struct task *t, uint64_t sp)
{
	return t->ss_size && sp > t->ss_sp && sp - t->ss_sp <= t->ss_size;
}

/*
 * sig_deliver() (umlrun.h) with a signal pending or a mask to restore:
 * false if the task died.
 */
bool sig_deliver_pending(struct task *t)
{
	struct ksiginfo si;
	struct ksigaction *act;
	uint64_t oldmask;
	int sig;

	for (;;) {
		sig = sig_dequeue(t, &si);
		if (!sig)
			break;
		act = &t->p->sh->act[sig];
		if (act->handler == SIG_IGN_H)
			continue;
		if (act->handler == SIG_DFL_H) {
			if (default_action(sig) == ACT_IGN)
				continue;
			if (default_action(sig) == ACT_STOP) {
				proc_stop(t->p, sig);
				return true;
			}
			proc_exit_group(t->p, sig);
			return false;
		}
		oldmask = t->restore_sigmask ? t->saved_sigmask : t->sigmask;
		t->restore_sigmask = false;
		if (sigframe_setup(t, &si, act, oldmask) < 0) {
			proc_exit_group(t->p, SIGSEGV);
			return false;
		}
		t->sigmask |= act->mask;
		if (!(act->flags & SA_NODEFER))
			t->sigmask |= SIGBIT(sig);
		t->sigmask &= ~UNBLOCKABLE;
		if (act->flags & SA_RESETHAND)
			act->handler = SIG_DFL_H;
		return true;
	}
	if (t->restore_sigmask) {
		t->sigmask = t->saved_sigmask;
		t->restore_sigmask = false;
	}
	return true;
}

/*
 * The signal mask of a wait (ppoll, pselect6, epoll_pwait), as the kernel's set_user_sigmask():
 * in force while the call waits; a signal that ends the wait is handled
 * with it and its frame restores the old one; a call that returns by
 * itself restores it at once (sig_wait_mask_end()), so a signal it alone
 * unblocked stays pending, as with restore_saved_sigmask_unless().
 */
int sig_wait_mask(struct task *t, uint64_t uset, uint64_t size)
{
	uint64_t set;

	if (t->sys_again || !uset)
		return 0;
	if (size != 8)
		return -EINVAL;
	if (copy_from_guest(t, &set, uset, 8) < 0)
		return -EFAULT;
	t->saved_sigmask = t->sigmask;
	t->restore_sigmask = true;
	t->sigmask = set & ~UNBLOCKABLE;
	return 0;
}

long sig_wait_mask_end(struct task *t, long r)
{
	if (r != SYS_BLOCK && t->restore_sigmask) {
		t->sigmask = t->saved_sigmask;
		t->restore_sigmask = false;
	}
	return r;
}

/* execve: caught signals go back to their default action. */
void sig_exec_reset(struct proc *p)
{
	struct sighand *sh = sighand_copy(p->sh);
	int i;

	if (!sh)
		return;
	for (i = 1; i <= NSIG_GUEST; i++) {
		if (sh->act[i].handler != SIG_IGN_H)
			sh->act[i].handler = SIG_DFL_H;
		sh->act[i].flags = 0;
		sh->act[i].mask = 0;
	}
	sighand_put(p->sh);
	p->sh = sh;
}

long sys_rt_sigaction(struct task *t, const uint64_t *a)
{
	int sig = a[0];
	struct ksigaction *act, nact;

	if (sig < 1 || sig > NSIG_GUEST || a[3] != 8)
		return -EINVAL;
	act = &t->p->sh->act[sig];
	if (a[1] && copy_from_guest(t, &nact, a[1], sizeof(nact)) < 0)
		return -EFAULT;
	if (a[2] && copy_to_guest(t, a[2], act, sizeof(*act)) < 0)
		return -EFAULT;
	if (!a[1])
		return 0;
	if (sig == SIGKILL || sig == SIGSTOP)
		return -EINVAL;
	nact.mask &= ~UNBLOCKABLE;
	*act = nact;
	if (sig_ignored(t->p, sig)) {
		struct task *o;

		sigqueue_drop(&t->p->shared_pending, SIGBIT(sig));
		for (o = t->p->threads; o; o = o->next_in_proc)
			sigqueue_drop(&o->pending, SIGBIT(sig));
	}
	return 0;
}

long sys_rt_sigprocmask(struct task *t, const uint64_t *a)
{
	uint64_t set, old = t->sigmask;

	if (a[3] != 8)
		return -EINVAL;
	if (a[1]) {
		if (copy_from_guest(t, &set, a[1], 8) < 0)
			return -EFAULT;
		switch (a[0]) {
		case SIG_BLOCK:
			t->sigmask |= set;
			break;
		case SIG_UNBLOCK:
			t->sigmask &= ~set;
			break;
		case SIG_SETMASK:
			t->sigmask = set;
			break;
		default:
			return -EINVAL;
		}
		t->sigmask &= ~UNBLOCKABLE;
	}
	if (a[2] && copy_to_guest(t, a[2], &old, 8) < 0)
		return -EFAULT;
	return 0;
}

long sys_rt_sigpending(struct task *t, const uint64_t *a)
{
	uint64_t set = (t->pending.set | t->p->shared_pending.set) & t->sigmask;

	if (a[1] != 8)
		return -EINVAL;
	return copy_to_guest(t, a[0], &set, 8) < 0 ? -EFAULT : 0;
}

long sys_rt_sigsuspend(struct task *t, const uint64_t *a)
{
	uint64_t set;

	if (!t->sys_again) {
		if (a[1] != 8)
			return -EINVAL;
		if (copy_from_guest(t, &set, a[0], 8) < 0)
			return -EFAULT;
		t->saved_sigmask = t->sigmask;
		t->restore_sigmask = true;
		t->sigmask = set & ~UNBLOCKABLE;
	}
	t->w.signal = true;
	return SYS_BLOCK;
}

long sys_pause(struct task *t, const uint64_t *a)
{
	(void)a;
	t->w.signal = true;
	return SYS_BLOCK;
}

long sys_sigaltstack(struct task *t, const uint64_t *a)
{
	struct { uint64_t sp; int32_t flags, pad; uint64_t size; } ss;
	struct uml_regs *r = uml_thread_regs(t->th);
	uint32_t mode;

	if (a[1]) {
		memset(&ss, 0, sizeof(ss));
		ss.sp = t->ss_sp;
		ss.size = t->ss_size;
		ss.flags = !t->ss_size ? SS_DISABLE
			 : sig_on_altstack(t, r->rsp) ? SS_ONSTACK : 0;
		if (copy_to_guest(t, a[1], &ss, sizeof(ss)) < 0)
			return -EFAULT;
	}
	if (!a[0])
		return 0;
	if (copy_from_guest(t, &ss, a[0], sizeof(ss)) < 0)
		return -EFAULT;
	if (sig_on_altstack(t, r->rsp))
		return -EPERM;
	/* The mode, without SS_AUTODISARM: 0, SS_ONSTACK or SS_DISABLE. */
	mode = ss.flags & ~(1U << 31);
	if (mode != 0 && mode != SS_ONSTACK && mode != SS_DISABLE)
		return -EINVAL;
	if (mode == SS_DISABLE) {
		t->ss_sp = t->ss_size = 0;
		return 0;
	}
	if (ss.size < 2048)
		return -ENOMEM;
	t->ss_sp = ss.sp;
	t->ss_size = ss.size;
	return 0;
}

long sys_kill(struct task *t, const uint64_t *a)
{
	int pid = a[0], sig = a[1], n = 0, pgid = t->p->pgid;
	struct ksiginfo si = { .signo = sig, .code = 0, .pid = t->p->pid,
			       .uid = host_uid };
	struct proc *p, *next, *self = t->p;

	if (sig < 0 || sig > NSIG_GUEST)
		return -EINVAL;
	if (pid == INT_MIN)
		return -ESRCH;	/* as the kernel: -pid would overflow */
	/*
	 * A zombie is there until it is reaped, as in the kernel: kill()
	 * finds it (and the signal does nothing).
	 */
	if (pid > 0) {
		p = proc_by_id(pid);	/* a thread's tid names its process */
		if (!p)
			return -ESRCH;
		if (sig && p->state == PROC_ALIVE)
			sig_send_proc(p, &si);
		return 0;
	}
	/* The caller may die on the way (its own group): send to it last. */
	for (p = procs; p; p = next) {
		next = p->next;
		if (p == self)
			continue;
		if (pid == 0 && p->pgid != pgid)
			continue;
		if (pid == -1 && p == init_proc)
			continue;
		if (pid < -1 && p->pgid != -pid)
			continue;
		if (sig && p->state == PROC_ALIVE)
			sig_send_proc(p, &si);
		n++;
	}
	if ((pid == 0 && self->pgid == pgid) || (pid < -1 && self->pgid == -pid)) {
		n++;
		if (sig)
			sig_send_proc(self, &si);
	}
	return n ? 0 : -ESRCH;
}

static long tkill_common(struct task *t, int tgid, int tid, int sig)
{
	struct ksiginfo si = { .signo = sig, .code = -6 /* SI_TKILL */,
			       .pid = t->p->pid, .uid = host_uid };
	struct task *d = task_by_tid(tid);

	if (sig < 0 || sig > NSIG_GUEST || tid <= 0)
		return -EINVAL;
	if (!d || (tgid > 0 && d->p->pid != tgid))
		return -ESRCH;
	return sig ? sig_send_task(d, &si) : 0;	/* -EAGAIN: queue full */
}

long sys_tkill(struct task *t, const uint64_t *a)
{
	return tkill_common(t, -1, a[0], a[1]);
}

long sys_tgkill(struct task *t, const uint64_t *a)
{
	if ((int)a[0] <= 0 || (int)a[1] <= 0)
		return -EINVAL;
	return tkill_common(t, a[0], a[1], a[2]);
}

/* ---- queued signals and waiting for one ---- */

/*
 * The guest's siginfo for rt_sigqueueinfo: the kernel lets a process
 * make up any code for itself, but for another only a user code (< 0,
 * not SI_TKILL), so nobody fakes a signal of the kernel's.
 */
static int queueinfo_in(struct task *t, uint64_t uinfo, int sig, int target,
			struct ksiginfo *si)
{
	int32_t w[32];

	if (copy_from_guest(t, w, uinfo, sizeof(w)) < 0)
		return -EFAULT;
	if ((w[2] >= 0 || w[2] == -6 /* SI_TKILL */) && target != t->tid &&
	    target != t->p->pid)
		return -EPERM;
	memset(si, 0, sizeof(*si));
	si->signo = sig;
	si->code = w[2];
	si->pid = w[4];
	si->uid = w[5];
	memcpy(&si->value, &w[6], 8);
	return 0;
}

long sys_rt_sigqueueinfo(struct task *t, const uint64_t *a)
{
	int pid = a[0], sig = a[1], r;
	struct ksiginfo si;
	struct proc *p;

	r = queueinfo_in(t, a[2], sig, pid, &si);
	if (r < 0)
		return r;
	if (sig < 0 || sig > NSIG_GUEST)
		return -EINVAL;
	p = pid > 0 ? proc_by_id(pid) : NULL;
	if (!p || p->state != PROC_ALIVE)
		return -ESRCH;
	return sig ? sig_send_proc(p, &si) : 0;
}

long sys_rt_tgsigqueueinfo(struct task *t, const uint64_t *a)
{
	int tgid = a[0], tid = a[1], sig = a[2], r;
	struct ksiginfo si;
	struct task *d;

	if (tgid <= 0 || tid <= 0)
		return -EINVAL;
	r = queueinfo_in(t, a[3], sig, tid, &si);
	if (r < 0)
		return r;
	if (sig < 0 || sig > NSIG_GUEST)
		return -EINVAL;
	d = task_by_tid(tid);
	if (!d || d->p->pid != tgid)
		return -ESRCH;
	return sig ? sig_send_task(d, &si) : 0;
}

/* The next pending signal of @set for @t, taken off its queue; 0 if none. */
int sig_take(struct task *t, uint64_t set, struct ksiginfo *si)
{
	uint64_t mine = t->pending.set & set, all = mine | (t->p->shared_pending.set & set);
	int sig;

	if (!all)
		return 0;
	if (all & SYNCSIGS)
		all &= SYNCSIGS;
	sig = __builtin_ctzll(all) + 1;
	sigqueue_take((mine & SIGBIT(sig)) ? &t->pending : &t->p->shared_pending,
		      sig, si);
	timer_signal_taken(t->p, sig, si);
	return sig;
}

/*
 * While rt_sigtimedwait waits, the signals it waits for are unblocked so
 * that their arrival wakes the task (the kernel's real_blocked); the mask
 * is back before anything looks at pending signals again.
 */
bool sig_wait_unmask(struct task *t)
{
	bool ready;

	if (!t->sigwait_active)
		return false;
	/*
	 * One of its signals came: rt_sigtimedwait takes it, blocked or not
	 * (the kernel dequeues with the wait's own mask), so it must not
	 * interrupt the call nor run a handler.
	 */
	ready = (t->pending.set | t->p->shared_pending.set) & t->sigwait_set;
	t->sigmask = t->sigwait_saved;
	t->sigwait_active = false;
	return ready;
}

long sys_rt_sigtimedwait(struct task *t, const uint64_t *a)
{
	struct ksiginfo si;
	uint8_t gi[SIGINFO_SIZE];
	uint64_t set;
	int sig, r;

	if (a[3] != 8)
		return -EINVAL;
	if (copy_from_guest(t, &set, a[0], 8) < 0)
		return -EFAULT;
	set &= ~UNBLOCKABLE;
	r = guest_timeout(t, a[2]);
	if (r < 0)
		return r;
	sig = sig_take(t, set, &si);
	if (sig) {
		sigframe_siginfo(gi, &si);
		if (a[1] && copy_to_guest(t, a[1], gi, sizeof(gi)) < 0)
			return -EFAULT;
		return sig;
	}
	if (a[2] && t->sys_deadline <= now_ns())
		return -EAGAIN;
	t->sigwait_saved = t->sigmask;
	t->sigwait_set = set;
	t->sigwait_active = true;
	t->sigmask &= ~set;
	t->w.signal = true;
	return t->sys_deadline ? block_until(t, t->sys_deadline) : SYS_BLOCK;
}
