// SPDX-License-Identifier: GPL-2.0
/*
 * What a hand-off's waiter does before it sleeps.  Adaptive spinning
 * (SKAS_CAP_SPIN): it polls its condition for a bounded time while the
 * other side runs on another CPU.  Yield before sleep (SKAS_CAP_YIELD):
 * it lets the other side run on this CPU first.
 *
 * A round trip is two hand-offs, and each, as a sleep and a wake-up, costs
 * a dequeue, a switch to the other task or to idle, and on the way back an
 * enqueue, an IPI and an idle exit.  When the runtime and its guest thread
 * run on two CPUs, a waiter that keeps polling sees the other side's
 * answer within a cache-line transfer and returns with no scheduler work
 * at all: the path gVisor's systrap platform takes in user space.
 *
 * A spin is only worth it while the answer can come soon, and must never
 * keep the other side from the CPU, so the waiter stops polling as soon
 * as its peer (the guest task for the runtime; for the guest, the task
 * that last ran it) sleeps or waits for this very CPU; as soon as the
 * waiter should give up the CPU (need_resched()) or has a signal, a kick
 * (TWA_SIGNAL) or a freeze to see (signal_pending()); and after the
 * thread's spin time.  Then it sleeps as without spinning, whose checks
 * come first, so a spin can't lose a wake-up.  An idle guest's tasks both
 * sleep: its CPU time stays zero.
 *
 * Spinning hand-offs are plain wake-ups, never WF_SYNC or WF_CURRENT_CPU
 * (run.c): those would put both tasks on one CPU, where nothing spins.
 *
 * Yield before sleep (SKAS_CAP_YIELD) is the same idea for one CPU.  A
 * same-CPU hand-off (run.c) queues the woken side on the waker's CPU; if
 * the waker then sleeps, each round trip costs two dequeues, two enqueues
 * and two wake-ups besides the two switches.  A waiter that yields instead
 * stays queued: the other side runs, answers, and its wake-up of a task
 * that never went to sleep is an empty wait queue; when the waiter gets
 * the CPU back the answer is there.  The yield is directed, yield_to()
 * as KVM's spinning vCPUs use it: to the peer only (not to whatever else
 * is queued), only while the peer is queued on this CPU and not running,
 * and once; then the waiter sleeps as without, whose checks come after,
 * so a yield can't lose a wake-up, a kick or a SIGKILL, and an idle guest
 * still sleeps.  The scheduler may refuse it (fairness): the waiter then
 * sleeps at once.
 */

#include <linux/errno.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/smp.h>
#include <linux/uaccess.h>

#include "skas.h"

static unsigned int skas_spin_max_ns = 100 * NSEC_PER_USEC;
module_param_named(spin_max_ns, skas_spin_max_ns, uint, 0444);
MODULE_PARM_DESC(spin_max_ns,
		 "Longest spin a thread may ask for, in ns (0: no SKAS_CAP_SPIN)");

/* SKAS_CHECK_EXTENSION(SKAS_CAP_SPIN) */
long skas_spin_max(void)
{
	return skas_spin_max_ns;
}

/**
 * skas_thread_enable_cap() - SKAS_ENABLE_CAP on a thread.
 * @t:    the thread.
 * @uarg: user pointer to a struct skas_enable_cap.
 *
 * The spin time is read at each wait, so it may change while the thread
 * runs.  Return: 0, -EFAULT or -EINVAL.
 */
long skas_thread_enable_cap(struct skas_thread *t, void __user *uarg)
{
	struct skas_enable_cap cap;

	if (copy_from_user(&cap, uarg, sizeof(cap)))
		return -EFAULT;
	if (cap.flags || !skas_zeroed(&cap.args[1], ARRAY_SIZE(cap.args) - 1))
		return -EINVAL;
	switch (cap.cap) {
	case SKAS_CAP_SPIN:
		if (!skas_spin_max_ns || cap.args[0] > skas_spin_max_ns)
			return -EINVAL;
		WRITE_ONCE(t->spin_ns, cap.args[0]);
		return 0;
	case SKAS_CAP_YIELD:
		if (cap.args[0] > 1)
			return -EINVAL;
		WRITE_ONCE(t->yield, cap.args[0]);
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * skas_spin_drive() - note current as the task that runs @t.
 * @t: the thread; the caller holds its run_lock, for SKAS_RUN.
 *
 * The parked guest spins while this task runs, or yields to it.  A
 * reference keeps the task_struct for the guest to look at; it changes
 * hands only when another runtime thread takes the thread over.
 */
void skas_spin_drive(struct skas_thread *t)
{
	struct task_struct *old;
	unsigned long flags;

	if (likely(t->driver == current) || !skas_wants_driver(t))
		return;
	get_task_struct(current);
	spin_lock_irqsave(&t->lock, flags);
	old = t->driver;
	t->driver = current;
	spin_unlock_irqrestore(&t->lock, flags);
	if (old)
		put_task_struct(old);
}

/*
 * @peer may answer soon: it is running, runnable or being woken
 * (TASK_WAKING, until the wake-up's IPI has its CPU queue it), on another
 * CPU.
 */
static bool skas_peer_busy(struct task_struct *peer)
{
	unsigned int state = READ_ONCE(peer->__state);

	return (state == TASK_RUNNING || state == TASK_WAKING) &&
	       task_cpu(peer) != raw_smp_processor_id();
}

/**
 * skas_spin() - poll for @done(@t) before a hand-off's sleep.
 * @t:    the thread.
 * @done: the wait's condition.
 * @peer: the task that makes it true (a reference is held), or NULL.
 *
 * Return: true if @done(@t) became true; false to go and sleep.
 */
bool skas_spin(struct skas_thread *t, bool (*done)(struct skas_thread *),
	       struct task_struct *peer)
{
	u32 ns = READ_ONCE(t->spin_ns);
	u64 start;

	if (!ns || !peer)
		return false;
	start = local_clock();
	for (;;) {
		if (done(t))
			return true;
		if (need_resched() || signal_pending(current) ||
		    !skas_peer_busy(peer) || local_clock() - start >= ns)
			return false;
		cpu_relax();
	}
}

/**
 * skas_yield() - yield once to @peer, queued on this CPU, before a sleep.
 * @t:    the thread.
 * @done: the wait's condition.
 * @peer: the task that makes it true (a reference is held), or NULL.
 *
 * Return: true if @done(@t) became true meanwhile; false to go and sleep.
 */
bool skas_yield(struct skas_thread *t, bool (*done)(struct skas_thread *),
		struct task_struct *peer)
{
	if (!READ_ONCE(t->yield) || !peer ||
	    task_cpu(peer) != raw_smp_processor_id())
		return false;
	return yield_to(peer, false) > 0 && done(t);
}
