// SPDX-License-Identifier: GPL-2.0
/*
 * The run path of a guest thread: the guest's side (the sys_enter and
 * signal probes, stop_work, the park) and the runtime's (SKAS_RUN, kicks,
 * a memory batch run in the guest).
 *
 * A guest task never runs a syscall: the sys_enter probe records it, makes
 * the kernel skip it (orig_ax = -1) and queues stop_work.  The task_work
 * runs on the way back to user mode, in the guest's own process context:
 * it publishes the event in the run page, wakes the runtime and sleeps
 * until SKAS_RUN hands it new registers, which it writes to its pt_regs
 * before returning to user mode.  Faults (signal_generate probe) and kicks
 * (kick_work, queued with TWA_SIGNAL) park the same way.
 *
 * Every queued task_work holds a reference on the thread; task_works can't
 * be cancelled, so the object lives until they have run (they run at the
 * latest in do_exit()).
 */

#include <linux/errno.h>
#include <linux/moduleparam.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "skas.h"

/*
 * Hand-offs.  The runtime and its guest thread take turns: each wakes the
 * other with __wake_up_sync() and sleeps at once.  Left to itself the
 * scheduler wakes the sleeper on the CPU it last ran on, idle by then: an
 * IPI and an idle exit for every switch, a third of an unpinned round trip
 * under QEMU.  The waits below ask instead that a sync wake-up run the
 * woken task on the waker's CPU (WF_CURRENT_CPU, 6.6 and later), as
 * seccomp's user notification does with SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP.
 * No exported wake-up takes that flag, but the wait entry's own function
 * passes its flags to default_wake_function() (exported).  Other wake-ups
 * (kicks, exits, poll) keep the scheduler's choice, as does a task whose
 * affinity excludes the waker's CPU.  Without the flag (6.1) these are
 * plain waits.  (Adding it only while the waker is alone on its CPU,
 * single_task_running(), measured slower.)  A thread that spins
 * (spin.c) hands off with plain wake-ups instead: it wants the two tasks
 * on two CPUs.
 */
static bool skas_handoff_same_cpu = !!SKAS_WF_CURRENT_CPU;
module_param_named(handoff_same_cpu, skas_handoff_same_cpu, bool, 0444);
MODULE_PARM_DESC(handoff_same_cpu,
		 "A hand-off runs the woken task on the waker's CPU (read-only)");

static int skas_handoff_wake(struct wait_queue_entry *wait, unsigned int mode,
			     int flags, void *key)
{
	if (flags & SKAS_WF_SYNC)
		flags |= SKAS_WF_CURRENT_CPU;
	return autoremove_wake_function(wait, mode, flags, key);
}

/*
 * Wake the other side of a hand-off, which waits on @wq.  A side that
 * spins or yields is not on @wq yet: then there is no wake-up to make,
 * and no lock of @wq to take (a cache line both CPUs would write).  The
 * barrier of wq_has_sleeper() pairs with prepare_to_wait_event()'s, whose
 * waiter checks its condition again once queued: either it sees the new
 * state, or this sees it queued.
 */
static void skas_handoff_wake_up(struct skas_thread *t,
				 struct wait_queue_head *wq)
{
	if (!wq_has_sleeper(wq))
		return;
	if (READ_ONCE(t->spin_ns))
		wake_up(wq);
	else
		__wake_up_sync(wq, TASK_NORMAL);
}

/*
 * wait_event_state() with skas_handoff_wake(), until @done(@t): 0 then, or
 * -ERESTARTSYS for a signal that @state lets in; first a spin while @peer
 * (NULL: none) works towards it on another CPU, or a yield to it on this
 * one (spin.c).  Inlined, so @done is a direct call.
 */
static __always_inline long
skas_handoff_wait(struct wait_queue_head *wq, bool (*done)(struct skas_thread *),
		  struct skas_thread *t, unsigned int state,
		  struct task_struct *peer)
{
	DEFINE_WAIT_FUNC(wait, skas_handoff_wake);
	long ret = 0;

	might_sleep();
	if (done(t) || skas_spin(t, done, peer) || skas_yield(t, done, peer))
		return 0;
	if (READ_ONCE(t->spin_ns))
		wait.func = autoremove_wake_function;
	for (;;) {
		ret = prepare_to_wait_event(wq, &wait, state);
		if (done(t)) {
			ret = 0;
			break;
		}
		if (ret)
			break;
		schedule();
	}
	finish_wait(wq, &wait);
	return ret;
}

/*
 * The runtime's conditions: the guest stopped (a run, or SKAS_RUN_MEM's
 * batch and run, is over); its batch is over.
 */
static bool skas_rt_stopped(struct skas_thread *t)
{
	int state = READ_ONCE(t->state);

	return state != SKAS_T_RUNNING && state != SKAS_T_OPS;
}

static bool skas_rt_ops_over(struct skas_thread *t)
{
	return READ_ONCE(t->state) != SKAS_T_OPS;
}

/**
 * skas_guest_end() - kill the guest for @cause.  Runs in the guest.
 * @t:     the thread of current.
 * @cause: SKAS_END_*, reported with this thread's SKAS_EXIT_EXITED.
 *
 * SIGKILL takes the whole thread group: what made the module give up
 * (a tracer, a syscall the kernel did not skip, a native syscall that did
 * not come) concerns the task, not one operation.  Other guests are not
 * affected.  Also called from the sys_enter probe (atomic); never with
 * t->lock held.
 */
static void skas_guest_end(struct skas_thread *t, u32 cause)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	if (!t->end_cause)
		t->end_cause = cause;
	spin_unlock_irqrestore(&t->lock, flags);
	force_sig(SIGKILL);
}

/*
 * A traced guest is not one: a tracer's stops come before the sys_enter
 * probe (syscall entry, get_signal() on the way to user mode) and can
 * rewrite what the module relies on, such as the registers of an armed
 * native syscall.
 */
static bool skas_guest_traced(struct skas_thread *t)
{
	if (likely(!READ_ONCE(current->ptrace)))
		return false;
	skas_guest_end(t, SKAS_END_PTRACED);
	return true;
}

/*
 * A NATIVE newfstatat(fd, "", buf, AT_EMPTY_PATH) (checked by the safe
 * list) runs as fstat(fd, buf), which reads no path.  Its registers go
 * back before anyone else sees them, so that the guest finds rsi as it
 * left it and a restart restarts the newfstatat: @fstat_work, which runs
 * on the way out of the syscall, or the park of a stop queued during it,
 * which runs first (task_works run last in, first out).  Return: true if
 * rewritten, false (trap it) if the task_work cannot be queued.
 */
static bool skas_native_as_fstat(struct skas_thread *t, struct pt_regs *regs)
{
	if (t->fstat_pending || skas_thread_queue(t, &t->fstat_work, TWA_RESUME))
		return false;
	t->fstat_path = regs->si;
	t->fstat_pending = true;
	regs->si = regs->dx;
	regs->orig_ax = __NR_fstat;
	return true;
}

static void skas_native_fstat_back(struct skas_thread *t, struct pt_regs *regs)
{
	if (!t->fstat_pending)
		return;
	t->fstat_pending = false;
	regs->si = t->fstat_path;
	regs->orig_ax = __NR_newfstatat;
}

static void skas_fstat_work_fn(struct callback_head *cb)
{
	struct skas_thread *t = container_of(cb, struct skas_thread,
					     fstat_work);

	skas_native_fstat_back(t, task_pt_regs(current));
	skas_thread_put(t);
}

/*
 * restart_syscall runs on the host only to go on with the NATIVE syscall
 * that this thread's last stop interrupted (-ERESTART_RESTARTBLOCK: the
 * restart block is the one that syscall set up), at the instruction it was
 * interrupted at.  Any other restart_syscall is trapped.  One chance: the
 * next syscall of the thread consumes it.
 */
static bool skas_native_restart(struct skas_thread *t, struct pt_regs *regs,
				long id, bool restart_ok)
{
	if (!restart_ok || id != __NR_restart_syscall || in_ia32_syscall() ||
	    regs->ip != t->restart_ip + 2)
		return false;
	regs->orig_ax = id;
	return true;
}

/* The armed native syscall's arguments, as skas_native_arm() set them. */
static bool skas_native_args_match(struct skas_thread *t,
				   const struct pt_regs *regs)
{
	const unsigned long *a = t->native_args;

	return regs->di == a[0] && regs->si == a[1] && regs->dx == a[2] &&
	       regs->r10 == a[3] && regs->r8 == a[4] && regs->r9 == a[5];
}

/*
 * The armed native syscall's entry: let it run if it is the one.  Out of
 * line, as the probe's other calls are (skas_thread_trap_syscall()).
 */
static noinline void skas_native_entry(struct skas_thread *t,
				       struct pt_regs *regs, long id)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	t->native_armed = false;
	t->native_passed = regs->ip == t->native_ip && id == t->native_nr &&
			   !in_ia32_syscall() && skas_native_args_match(t, regs);
	if (!t->native_passed || t->native_bounce)
		regs->orig_ax = -1;
	if (!skas_thread_queue(t, &t->stop_work, TWA_RESUME)) {
		t->native_active = true;
		t->stop_queued = true;
	}
	spin_unlock_irqrestore(&t->lock, flags);
}

/*
 * A trapped syscall: record its number and arguments, and queue the stop.
 * The lock orders the stop with kicks (stop_queued).  Out of line, as the
 * probe's other calls are (skas_thread_trap_syscall()).
 */
static noinline void skas_trap_record(struct skas_thread *t,
				      struct pt_regs *regs, long id)
{
	struct skas_exit_syscall *sc = &t->ev.syscall;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	t->ev.reason = SKAS_EXIT_SYSCALL;
	t->entry_ax = regs->ax;
	sc->nr = id;
	sc->pad = 0;
	if (in_ia32_syscall()) {
		sc->abi = SKAS_ABI_IA32;
		sc->args[0] = (u32)regs->bx;
		sc->args[1] = (u32)regs->cx;
		sc->args[2] = (u32)regs->dx;
		sc->args[3] = (u32)regs->si;
		sc->args[4] = (u32)regs->di;
		sc->args[5] = (u32)regs->bp;
	} else {
		sc->abi = (id & __X32_SYSCALL_BIT) ? SKAS_ABI_X32 : SKAS_ABI_64;
		sc->args[0] = regs->di;
		sc->args[1] = regs->si;
		sc->args[2] = regs->dx;
		sc->args[3] = regs->r10;
		sc->args[4] = regs->r8;
		sc->args[5] = regs->r9;
	}
	if (!skas_thread_queue(t, &t->stop_work, TWA_RESUME))
		t->stop_queued = true;
	spin_unlock_irqrestore(&t->lock, flags);
}

/*
 * A NATIVE entry's syscall: run it on the host in this task (orig_ax back
 * to @id) if it passes the safe list's check, else trap it.  Out of line:
 * see skas_thread_trap_syscall().
 */
static noinline void skas_trap_native(struct skas_thread *t,
				      struct pt_regs *regs, long id, u32 entry)
{
	if (!skas_native_ok(t, id, entry, regs))
		skas_trap_record(t, regs, id);
	else if (id != __NR_newfstatat)
		regs->orig_ax = id;
	else if (!skas_native_as_fstat(t, regs))
		skas_trap_record(t, regs, id);
}

/*
 * The policy of a 64-bit syscall, applied in the probe without a stop:
 * CONST and THREAD answer it (it is skipped: orig_ax = -1 already, and ax
 * gets the value); NATIVE runs it or traps it (skas_trap_native()).
 * Return: true if handled, false to trap it.
 */
static bool skas_policy_apply(struct skas_thread *t, struct pt_regs *regs,
			      long id)
{
	struct skas_policy_entry *p;
	u32 entry;

	/* Pairs with the release that publishes the table. */
	p = smp_load_acquire(&t->as->policy);
	if (!p || id < 0 || id >= SKAS_POLICY_NR || in_ia32_syscall())
		return false;
	/* Pairs with the release in SKAS_SET_POLICY: the value is set. */
	entry = smp_load_acquire(&p[id].action);
	switch (entry & SKAS_ENTRY_ACTION) {
	case SKAS_POLICY_CONST:
		regs->ax = READ_ONCE(p[id].value);
		return true;
	case SKAS_POLICY_THREAD:
		regs->ax = READ_ONCE(t->run->thread_value);
		return true;
	case SKAS_POLICY_NATIVE:
		skas_trap_native(t, regs, id, entry);
		return true;
	default:
		return false;
	}
}

/* A traced guest's syscall (skas_guest_traced()): skipped, the guest killed. */
static noinline void skas_trap_traced(struct skas_thread *t,
				      struct pt_regs *regs)
{
	regs->orig_ax = -1;
	skas_guest_end(t, SKAS_END_PTRACED);
}

/*
 * The sys_enter probe for a guest task: @t is the thread of current, @regs
 * its pt_regs, @id the syscall number.  Runs with preemption disabled
 * (up to 6.13; skas_sys_enter_lock()).  The syscall is skipped unless the
 * runtime allowed it: a one-shot skas_native_arm(), a NATIVE policy entry,
 * or the restart of an interrupted NATIVE syscall.  A traced guest is
 * killed (skas_guest_traced()).
 *
 * Up to the trap no lock is taken, so that the policy's answers (CONST,
 * THREAD, NATIVE) cost no more than their lookup: what is read is this
 * task's own (native_armed, restart_ok and stop_queued are written only
 * by the guest task once it runs, or before it first does), or changes
 * from elsewhere only while the task is parked (state).  Every path that
 * calls out ends in the call (skas_trap_traced(), skas_native_entry(),
 * skas_trap_native(), skas_trap_record()), so that nothing is saved
 * across one: inlined in the probe, neither a miss (a host task) nor a
 * policy's answer pushes a register.
 */
static void skas_thread_trap_syscall(struct skas_thread *t,
				     struct pt_regs *regs, long id)
{
	bool restart_ok;

	if (unlikely(READ_ONCE(current->ptrace))) {
		skas_trap_traced(t, regs);
		return;
	}
	if (unlikely(t->native_armed)) {
		skas_native_entry(t, regs, id);
		return;
	}
	regs->orig_ax = -1;
	restart_ok = t->restart_ok;
	t->restart_ok = false;
	if (READ_ONCE(t->state) != SKAS_T_RUNNING || t->stop_queued ||
	    skas_native_restart(t, regs, id, restart_ok) ||
	    skas_policy_apply(t, regs, id))
		return;
	skas_trap_record(t, regs, id);
}

/**
 * skas_probe_sys_enter() - the sys_enter probe (module/hooks.c registers
 * it): at every syscall of every task while it is registered, so short.
 * @data: unused.
 * @regs: current's pt_regs.
 * @id:   the syscall number.
 */
void skas_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct skas_thread *t;

	skas_sys_enter_lock();
	t = skas_task_lookup(current);
	if (unlikely(t))
		skas_thread_trap_syscall(t, regs, id);
	skas_sys_enter_unlock();
}

/**
 * skas_thread_fault() - signal_generate probe: a fault signal for current.
 * @t:   the thread of current.
 * @sig: the signal (already queued on current).
 *
 * Called with current's siglock held.  get_signal() runs task_works before
 * it dequeues anything, so stop_work takes the signal off the queue before
 * it can be delivered, and reports it.
 */
void skas_thread_fault(struct skas_thread *t, int sig)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	if (t->state == SKAS_T_RUNNING && !t->stop_queued) {
		t->ev.reason = SKAS_EXIT_FAULT;
		memset(&t->ev.fault, 0, sizeof(t->ev.fault));
		t->ev.fault.signo = sig;
		if (!skas_thread_queue(t, &t->stop_work, TWA_RESUME))
			t->stop_queued = true;
	}
	spin_unlock_irqrestore(&t->lock, flags);
}

/**
 * skas_thread_signal() - signal_generate probe: an outside signal for a
 * guest task.
 * @t: the thread of the signal's target.
 *
 * Any signal but SIGKILL and the task's own faults: a kill() from outside,
 * a terminal's, SIGPIPE or SIGXFSZ from a NATIVE syscall.  The guest task
 * blocks it (skas_guest_block_signals()), so it is only queued; report it
 * like a kick (SKAS_EXIT_INTERRUPTED), and the park drops it from the
 * queue.  Called with the target's siglock held.
 */
void skas_thread_signal(struct skas_thread *t)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	skas_thread_kick_locked(t);
	spin_unlock_irqrestore(&t->lock, flags);
}

/*
 * A batch is over (done, failed or waiting no more): stop; or, for
 * SKAS_RUN_MEM's when all of it was done, run.  Going on to run wakes
 * nobody: the runtime waits for the run's stop.  A kick that came during
 * the batch is the run's.  Return: true to run (the caller loads the
 * registers and returns to user mode); @t->req is the runtime's again.
 */
static bool skas_guest_ops_done(struct skas_thread *t)
{
	unsigned long flags;
	bool run;

	spin_lock_irqsave(&t->lock, flags);
	run = t->ops_then_run && !t->req->error &&
	      t->req->done == t->req->count && !skas_dying();
	/* Dying after the last operation: it is done, but nothing runs. */
	if (t->ops_then_run && !run && !t->req->error)
		t->req->error = -EINTR;
	t->ops_then_run = false;
	if (run) {
		t->state = SKAS_T_RUNNING;
		if (t->kick_pending) {
			t->kick_pending = false;
			skas_thread_kick_locked(t);
		}
	} else {
		t->state = SKAS_T_STOPPED;
	}
	spin_unlock_irqrestore(&t->lock, flags);
	if (!run)
		skas_handoff_wake_up(t, &t->rt_wq);
	return run;
}

/*
 * skas_thread_kill() of one thread of a guest thread group: leave with a
 * native exit(0), which ends only this task.
 */
static void skas_guest_self_exit(struct skas_thread *t)
{
	static const unsigned long args[6];

	if (skas_native_arm(t, __NR_exit, args) > 0) {
		t->native_exit = true;
		return;
	}
	force_sig(SIGKILL);	/* no syscall instruction: the group goes */
}

/*
 * A parked guest sleeps interruptibly and freezable (no load, no hung-task
 * warning either way).  Freezable alone serves the suspend freezer, which
 * freezes the sleep in place; the cgroup v2 freezer and a ptrace stop need
 * the task in get_signal(), on its way to user mode, and wake the sleep
 * with TIF_SIGPENDING for that, as does a task_work queued with
 * TWA_SIGNAL: see skas_guest_bounce().  Every other signal is blocked.
 */
#define SKAS_PARK_STATE	(TASK_INTERRUPTIBLE | TASK_FREEZABLE)

static bool skas_guest_woken(struct skas_thread *t)
{
	int state = READ_ONCE(t->state);

	return state == SKAS_T_RUNNING || state == SKAS_T_OPS ||
	       READ_ONCE(t->exit_req);
}

/* SKAS_RUN released us: load its registers. */
static void skas_guest_resume(struct skas_thread *t)
{
	/* The restart of an interrupted NATIVE call: only where it was. */
	if (t->regs_in.rip != t->restart_ip)
		t->restart_ok = false;
	skas_regs_from_user(task_pt_regs(current), &t->regs_in);
}

/*
 * Leave the park for get_signal() and come back: return to user mode at
 * the vDSO's syscall instruction with a syscall armed that never runs
 * (orig_ax = -1 in the probe) and whose stop_work restores the registers
 * and waits again (skas_native_done()).  The state stays as it is: the
 * runtime may run or use the thread meanwhile, the wait sees it after.
 * get_signal() runs pending task_works first, so a bounce cannot be done
 * from the task_work itself: it would park again at once.
 *
 * Return: true if the caller must return to user mode (bounced, or the
 * vDSO's instruction was changed and the guest is being killed).
 */
static bool skas_guest_bounce(struct skas_thread *t)
{
	static const unsigned long args[6];
	unsigned long flags;
	int ret;

	ret = skas_native_arm(t, __NR_getpid, args);
	if (ret > 0) {
		spin_lock_irqsave(&t->lock, flags);
		t->native_bounce = true;
		spin_unlock_irqrestore(&t->lock, flags);
	}
	return ret != -EOPNOTSUPP;
}

/*
 * A kick or a fault stops the guest while a bounce is out, before its
 * syscall: the registers are the bounce's.  Put back the parked ones, and
 * the runtime's if it ran the thread meanwhile (RUNNING), as the wait
 * would have.
 */
static void skas_bounce_cancel(struct skas_thread *t, struct pt_regs *regs)
{
	unsigned long flags;
	bool running;

	spin_lock_irqsave(&t->lock, flags);
	t->native_armed = false;
	t->native_bounce = false;
	t->bounce_kick = false;
	running = t->state == SKAS_T_RUNNING;
	spin_unlock_irqrestore(&t->lock, flags);
	*regs = t->native_saved;
	if (running)
		skas_guest_resume(t);
}

/*
 * Sleep until the runtime wakes us; spin first while @driver (NULL: none)
 * runs, or yield to it.  Return: true to go on, false to return to user
 * mode now (dying, killed, bounced).
 */
static bool skas_guest_sleep(struct skas_thread *t, struct task_struct *driver)
{
	if (!skas_handoff_wait(&t->guest_wq, skas_guest_woken, t,
			       SKAS_PARK_STATE, driver))
		return true;
	if (skas_dying() || skas_guest_traced(t) || skas_guest_bounce(t))
		return false;
	/* No syscall instruction to bounce through: killable, unfreezable. */
	return !skas_handoff_wait(&t->guest_wq, skas_guest_woken, t,
				  TASK_KILLABLE, NULL);
}

/*
 * The parked guest's loop: sleep until SKAS_RUN releases us (load the new
 * registers and return to user mode) or SKAS_MEM hands us a batch (run it
 * and sleep again, or, for SKAS_RUN_MEM, go on to run).  A batch
 * operation that needs a real syscall in this task (skas_native_arm())
 * returns to user mode to make it; the batch goes on in stop_work once the
 * syscall is done.  Only SIGKILL cuts the park
 * short; other wake-ups come back to it (skas_guest_sleep()).  @driver:
 * the runtime task to spin for or yield to, or NULL.
 */
static void skas_guest_wait(struct skas_thread *t, struct task_struct *driver)
{
	for (;;) {
		if (!skas_guest_sleep(t, driver) || skas_guest_traced(t))
			return;
		if (READ_ONCE(t->exit_req) &&
		    READ_ONCE(t->state) != SKAS_T_OPS) {
			skas_guest_self_exit(t);
			return;
		}
		if (READ_ONCE(t->state) == SKAS_T_RUNNING)
			break;
		/* SKAS_MEM: run the batch here, in the guest's mm. */
		if (skas_mem_exec(t, t->req))
			return;
		if (skas_guest_ops_done(t))
			break;
	}
	skas_guest_resume(t);
}

/*
 * A stop (a kick) cut a NATIVE syscall short: do here what the kernel's
 * restart logic (arch_do_signal_or_restart()) would do after the
 * task_works, since the registers the runtime gets and gives back never
 * carry a syscall to restart (orig_ax = -1).  So rip is back at the
 * syscall instruction and rax holds the number again, or restart_syscall
 * for a call that set up a restart block; resuming unchanged restarts it.
 * Only this 64-bit ABI can be NATIVE.
 */
static void skas_native_interrupted(struct skas_thread *t,
				    struct pt_regs *regs)
{
	if ((long)regs->orig_ax < 0)
		return;
	switch ((long)regs->ax) {
	case -ERESTARTNOHAND:
	case -ERESTARTSYS:
	case -ERESTARTNOINTR:
		regs->ax = regs->orig_ax;
		regs->ip -= 2;
		break;
	case -ERESTART_RESTARTBLOCK:
		regs->ax = __NR_restart_syscall;
		regs->ip -= 2;
		t->restart_ok = true;
		t->restart_ip = regs->ip;
		break;
	}
	regs->orig_ax = -1;
}

/*
 * Park the guest: publish @ev and the registers, wake the runtime, then
 * wait.  Runs in the guest's process context, on its way to user mode.
 */
static void skas_guest_park(struct skas_thread *t, struct skas_event *ev,
			    bool first)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct task_struct *driver = NULL;
	struct skas_run *run = t->run;
	unsigned long flags;

	if (skas_guest_traced(t))
		return;
	skas_native_fstat_back(t, regs);
	if (READ_ONCE(t->native_bounce)) {
		skas_bounce_cancel(t, regs);
		if (ev->reason == SKAS_EXIT_FAULT) {
			/* The vDSO's instruction faulted: not a syscall. */
			skas_guest_end(t, SKAS_END_NATIVE);
			return;
		}
	}
	if (first) {
		WRITE_ONCE(t->as->syscall_insn, skas_find_syscall_insn());
		memset(&run->regs, 0, sizeof(run->regs));
	} else if (t->clone_start) {
		/*
		 * A clone child starts with its parent's guest registers, not
		 * with those of the native clone it came out of.
		 */
		t->clone_start = false;
		*regs = t->clone_regs;
		regs->orig_ax = -1;
		skas_regs_to_user(&run->regs, regs);
	} else {
		skas_native_interrupted(t, regs);
		if (ev->reason == SKAS_EXIT_FAULT)
			skas_take_fault(ev);
		/*
		 * A skipped syscall leaves ax as the entry code set it (the
		 * probe saw it).  Anything else means this kernel ran it
		 * despite orig_ax = -1: kill this guest, and only this one
		 * (every guest is checked at each of its own traps).
		 */
		if (ev->reason == SKAS_EXIT_SYSCALL &&
		    regs->ax != t->entry_ax) {
			skas_guest_end(t, SKAS_END_SKIP);
			return;
		}
		skas_regs_to_user(&run->regs, regs);
		if (ev->reason == SKAS_EXIT_SYSCALL)
			run->regs.orig_rax = ev->syscall.nr;
	}
	/* After skas_take_fault(): outside signals go, the fault's too. */
	skas_guest_flush_signals();
	/* Only the event's member: the copies are a trap's largest. */
	if (ev->reason == SKAS_EXIT_SYSCALL)
		run->exit.syscall = ev->syscall;
	else if (ev->reason == SKAS_EXIT_FAULT)
		run->exit.fault = ev->fault;
	run->flags = 0;
	memset(run->reserved, 0, sizeof(run->reserved));
	WRITE_ONCE(run->exit_reason, ev->reason);

	spin_lock_irqsave(&t->lock, flags);
	t->state = SKAS_T_STOPPED;
	t->attached = true;
	if (skas_wants_driver(t) && t->driver)
		driver = get_task_struct(t->driver);
	spin_unlock_irqrestore(&t->lock, flags);
	skas_handoff_wake_up(t, &t->rt_wq);

	skas_guest_wait(t, driver);
	if (driver)
		put_task_struct(driver);
}

/*
 * Read the two bytes at @insn in current's mm.  copy_from_user() obeys
 * the guest's PKRU, which the guest (WRPKRU) or its runtime
 * (SKAS_SET_XSTATE) may have set to deny its own pages; a remote read
 * does not, as ptrace's does not.
 */
static int skas_read_insn(unsigned long insn, u8 code[2])
{
	if (!copy_from_user(code, (const void __user *)insn, 2))
		return 0;
	return access_process_vm(current, insn, code, 2, 0) == 2 ? 0 : -EFAULT;
}

/**
 * skas_native_arm() - make the guest execute one real syscall.
 * @t:    the thread of current, parked in state SKAS_T_OPS.
 * @nr:   the x86-64 syscall number.
 * @args: its six arguments.
 *
 * Points current's registers at the vDSO's syscall instruction and arms a
 * one-shot pass for exactly that syscall at exactly that address in the
 * sys_enter probe.  When the caller returns to user mode the syscall runs
 * in the guest's own context; stop_work collects the result
 * (skas_native_done()) and restores the registers.
 *
 * The instruction is in guest memory, which a guest with a descriptor of
 * its own /proc/PID/mem (or its runtime) can change: check it here, and
 * the probe checks that the syscall that comes is this one.  Either
 * failing kills the guest (SKAS_END_NATIVE).
 *
 * Return: 1 (armed), -EOPNOTSUPP if the vDSO has no syscall instruction,
 * or -EIO if it is one no more (the guest is being killed).
 */
int skas_native_arm(struct skas_thread *t, long nr, const unsigned long *args)
{
	unsigned long insn = READ_ONCE(t->as->syscall_insn);
	struct pt_regs *regs = task_pt_regs(current);
	unsigned long flags;
	u8 code[2];

	if (!insn)
		return -EOPNOTSUPP;
	if (skas_read_insn(insn, code) || code[0] != 0x0f || code[1] != 0x05) {
		/* A remote read fails for a task being killed: not its fault. */
		if (skas_dying())
			return -EINTR;
		skas_guest_end(t, SKAS_END_NATIVE);
		return -EIO;
	}
	memcpy(t->native_args, args, sizeof(t->native_args));
	t->native_saved = *regs;
	regs->ip = insn;
	regs->ax = nr;
	regs->di = args[0];
	regs->si = args[1];
	regs->dx = args[2];
	regs->r10 = args[3];
	regs->r8 = args[4];
	regs->r9 = args[5];
	regs->orig_ax = -1;
	/*
	 * Sane state for the one instruction: the guest's eflags could
	 * single-step it, and a non-canonical rsp makes the return to user
	 * mode fault (IRET #GP), which would be a signal in the middle of
	 * the batch.  All restored by skas_native_done().
	 */
	regs->flags = X86_EFLAGS_IF | X86_EFLAGS_FIXED;
	regs->sp = 0;
	spin_lock_irqsave(&t->lock, flags);
	t->native_nr = nr;
	t->native_ip = insn + 2;
	t->native_armed = true;
	spin_unlock_irqrestore(&t->lock, flags);
	return 1;
}

/*
 * stop_work after a bounce's syscall (skipped): registers back, and wait
 * again; or report the kick that came while it was out, with the
 * runtime's registers if it ran the thread meanwhile.  Not inlined: its
 * event would share skas_stop_work_fn()'s frame with the one there.
 */
static noinline_for_stack void skas_bounce_done(struct skas_thread *t)
{
	struct skas_event ev = { .reason = SKAS_EXIT_INTERRUPTED };
	unsigned long flags;
	bool kicked;

	spin_lock_irqsave(&t->lock, flags);
	t->native_bounce = false;
	kicked = t->bounce_kick && t->state == SKAS_T_RUNNING;
	t->bounce_kick = false;
	spin_unlock_irqrestore(&t->lock, flags);
	if (skas_dying())
		return;
	if (!kicked) {
		skas_guest_wait(t, NULL);
		return;
	}
	skas_guest_resume(t);
	skas_guest_park(t, &ev, false);
}

/*
 * stop_work after a native syscall: result, registers back, go on.  A
 * syscall that is not the armed one (@passed false: the instruction was
 * changed after skas_native_arm() checked it, or a tracer changed the
 * registers) fails the operation and kills the guest.
 */
static void skas_native_done(struct skas_thread *t, bool passed)
{
	struct pt_regs *regs = task_pt_regs(current);
	long result = passed ? (long)regs->ax : -EIO;

	*regs = t->native_saved;
	if (!passed && !skas_dying())
		skas_guest_end(t, SKAS_END_NATIVE);
	if (READ_ONCE(t->native_bounce)) {
		skas_bounce_done(t);
		return;
	}
	skas_mem_native_result(t, t->req, result);
	if (!skas_dying() && !t->req->error &&
	    skas_mem_exec(t, t->req))
		return;
	if (skas_dying() && !t->req->error && t->req->done < t->req->count)
		t->req->error = -EINTR;
	if (skas_guest_ops_done(t))
		skas_guest_resume(t);
	else if (!skas_dying())
		skas_guest_wait(t, NULL);
}

/*
 * The first stop after SKAS_ATTACH: hollow the stub, and park in a second
 * pass of stop_work.  Unmapping and closing drop file references through
 * deferred fput()s, task_works of their own; queued after the second pass,
 * they run before it (task_works run last in, first out).  So when the
 * runtime died before the attach, the thread file's last reference goes
 * here, its release SIGKILLs this task, and the park sees the kill instead
 * of waiting for a SKAS_RUN that nobody can issue any more.
 */
static void skas_guest_hollow(struct skas_thread *t)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&t->lock, flags);
	ret = skas_thread_queue(t, &t->stop_work, TWA_RESUME);
	if (!ret) {
		t->first_park = true;
		t->stop_queued = true;
	}
	spin_unlock_irqrestore(&t->lock, flags);
	if (ret) {
		force_sig(SIGKILL);	/* exiting already: never run the stub */
		return;
	}
	skas_hollow_mm();
	skas_close_all_fds();
}

static void skas_stop_work_fn(struct callback_head *cb)
{
	struct skas_thread *t = container_of(cb, struct skas_thread,
					     stop_work);
	struct skas_event ev;
	unsigned long flags;
	bool first, first_park, native, passed;

	spin_lock_irqsave(&t->lock, flags);
	t->stop_queued = false;
	ev = t->ev;
	first = t->first_stop;
	t->first_stop = false;
	first_park = t->first_park;
	t->first_park = false;
	native = t->native_active;
	passed = t->native_passed;
	t->native_active = false;
	spin_unlock_irqrestore(&t->lock, flags);

	if (first) {
		if (!skas_dying())
			skas_guest_hollow(t);
	} else if (native && t->native_exit) {
		;	/* exit() ran, or will not: this task is leaving */
	} else if (native) {
		skas_native_done(t, passed);
	} else if (!skas_dying()) {
		skas_guest_park(t, &ev, first_park);
	}
	skas_thread_put(t);
}

static void skas_kick_work_fn(struct callback_head *cb)
{
	struct skas_thread *t = container_of(cb, struct skas_thread,
					     kick_work);
	struct skas_event ev = { .reason = SKAS_EXIT_INTERRUPTED };
	unsigned long flags;
	bool park;

	spin_lock_irqsave(&t->lock, flags);
	t->kick_queued = false;
	/* A pending stop (trap, fault) reports first; it ends the run. */
	park = t->state == SKAS_T_RUNNING && !t->stop_queued;
	spin_unlock_irqrestore(&t->lock, flags);

	if (park && !skas_dying())
		skas_guest_park(t, &ev, false);
	skas_thread_put(t);
}

/* Force a running guest back to a stop.  Caller holds t->lock. */
void skas_thread_kick_locked(struct skas_thread *t)
{
	if (t->state == SKAS_T_RUNNING) {
		/* A bounce's stop_work would resume the guest: it parks. */
		if (t->native_bounce)
			t->bounce_kick = true;
		if (!t->kick_queued && !t->stop_queued &&
		    !skas_thread_queue(t, &t->kick_work, TWA_SIGNAL))
			t->kick_queued = true;
	} else if (t->state == SKAS_T_STOPPED || t->state == SKAS_T_OPS) {
		t->kick_pending = true;
	}
}

long skas_thread_kick(struct skas_thread *t)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	skas_thread_kick_locked(t);
	spin_unlock_irqrestore(&t->lock, flags);
	return 0;
}

/* Report the death of the host task once; -ESRCH after that. */
static long skas_thread_report_exit(struct skas_thread *t)
{
	struct skas_run *run = t->run;
	unsigned long flags;
	bool reported;

	spin_lock_irqsave(&t->lock, flags);
	reported = t->exit_reported;
	t->exit_reported = true;
	spin_unlock_irqrestore(&t->lock, flags);
	if (reported)
		return -ESRCH;
	memset(&run->exit, 0, sizeof(run->exit));
	run->exit.exited.status = t->exit_status;
	run->exit.exited.cause = READ_ONCE(t->end_cause);
	WRITE_ONCE(run->exit_reason, SKAS_EXIT_EXITED);
	return 0;
}

/*
 * Wait for the guest to finish a batch.  Killable: a native syscall that
 * never comes (the guest's code where the vDSO's instruction was) would
 * hold the runtime for ever.  The guest uses @req until it stops or dies,
 * so a runtime being killed kills it and waits for that, which SIGKILL
 * bounds: the batch checks for it after each operation, and the guest
 * dies where it is in user mode.
 */
static void skas_thread_exec_wait(struct skas_thread *t,
				  struct skas_mem_req *req)
{
	if (!skas_handoff_wait(&t->rt_wq, skas_rt_ops_over, t,
			       TASK_KILLABLE, t->task))
		return;
	skas_thread_kill(t, true);
	wait_event(t->rt_wq, READ_ONCE(t->state) != SKAS_T_OPS);
	if (req->done < req->count && !req->error)
		req->error = -EINTR;
}

/*
 * Wait for the run's stop.  A signal kicks the guest (a kick in
 * SKAS_RUN_MEM's batch is its run's); a fatal one leaves the run to a
 * later SKAS_RUN, but not a batch in progress, which uses the caller's
 * @req: see skas_thread_exec_wait().  A batch that did not all run (the
 * guest died in it) fails, and leaves the death to the next SKAS_RUN to
 * report: the run page is not written.
 */
static long skas_thread_wait_stop(struct skas_thread *t,
				  struct skas_mem_req *req)
{
	unsigned long flags;

	if (skas_handoff_wait(&t->rt_wq, skas_rt_stopped, t,
			      TASK_INTERRUPTIBLE, t->task)) {
		/* Signalled: bring the guest back, like KVM_RUN. */
		spin_lock_irqsave(&t->lock, flags);
		skas_thread_kick_locked(t);
		spin_unlock_irqrestore(&t->lock, flags);
		if (skas_handoff_wait(&t->rt_wq, skas_rt_stopped, t,
				      TASK_KILLABLE, NULL)) {
			if (req && READ_ONCE(t->state) == SKAS_T_OPS)
				skas_thread_exec_wait(t, req);
			return -EINTR;
		}
	}
	if (req && req->done < req->count && !req->error)
		req->error = READ_ONCE(t->state) == SKAS_T_DEAD ? -ESRCH :
							       -EINTR;
	if (READ_ONCE(t->state) == SKAS_T_DEAD && !(req && req->error))
		return skas_thread_report_exit(t);
	return 0;
}

/*
 * SKAS_RUN, and SKAS_RUN_MEM with its checked batch @req (else NULL),
 * which the guest applies first: then the wait covers both, one hand-off
 * each way.  Return: 0 (the run page has the event), or -errno; for
 * SKAS_RUN_MEM the batch's failure is in req->error and nothing ran.
 */
static long skas_thread_run_locked(struct skas_thread *t,
				   struct skas_mem_req *req)
{
	struct skas_run *run = t->run;
	unsigned long flags;
	int state, ret;

	spin_lock_irqsave(&t->lock, flags);
	state = t->state;
	if (state == SKAS_T_STOPPED && t->kick_pending) {
		t->kick_pending = false;
		spin_unlock_irqrestore(&t->lock, flags);
		if (req) {
			skas_thread_exec(t, req);
			if (req->error)
				return 0;
		}
		memset(&run->exit, 0, sizeof(run->exit));
		WRITE_ONCE(run->exit_reason, SKAS_EXIT_INTERRUPTED);
		return 0;
	}
	spin_unlock_irqrestore(&t->lock, flags);

	switch (state) {
	case SKAS_T_NEW:
		return -ENOENT;
	case SKAS_T_DEAD:
		return skas_thread_report_exit(t);
	case SKAS_T_RUNNING:
		/* SKAS_RUN_MEM: its batch is for a stopped thread. */
		if (req)
			return -EBUSY;
		if (READ_ONCE(t->attached))
			/* An earlier run was cut short (-EINTR). */
			return skas_thread_wait_stop(t, NULL);
		/* SKAS_ATTACH in progress: wait for its stop, then run. */
		if (wait_event_interruptible(t->rt_wq,
					     READ_ONCE(t->state) !=
					     SKAS_T_RUNNING))
			return -EINTR;
		return skas_thread_run_locked(t, NULL);
	}

	/* One copy, then checks: the run page is shared with user space. */
	memcpy(&t->regs_in, &run->regs, sizeof(t->regs_in));
	ret = skas_regs_check(&t->regs_in);
	if (ret)
		return ret;

	spin_lock_irqsave(&t->lock, flags);
	if (req && t->state != SKAS_T_STOPPED && t->state != SKAS_T_DEAD) {
		spin_unlock_irqrestore(&t->lock, flags);
		return -EBUSY;
	}
	if (t->state == SKAS_T_STOPPED) {
		if (req) {
			t->req = req;
			t->ops_then_run = true;
			t->state = SKAS_T_OPS;
		} else {
			t->state = SKAS_T_RUNNING;
		}
	}
	spin_unlock_irqrestore(&t->lock, flags);
	skas_handoff_wake_up(t, &t->guest_wq);

	/* A batch that failed stops the guest: the run page is as it was. */
	return skas_thread_wait_stop(t, req);
}

/**
 * skas_thread_lock() - take @t's run_lock to use @t briefly.
 * @t: the thread.
 *
 * A runtime with several threads cannot know that SKAS_MEM of another one
 * chose @t to run its batch in, or that a clone or xstate call of another
 * is using it: those hold run_lock briefly and are waited for (killably:
 * a batch's mmap of a file may block).  A SKAS_RUN in progress is not.
 *
 * Return: 0 with run_lock held, -EBUSY, or -EINTR (a fatal signal).
 */
int skas_thread_lock(struct skas_thread *t)
{
	if (mutex_trylock(&t->run_lock))
		return 0;
	if (READ_ONCE(t->in_run))
		return -EBUSY;
	return mutex_lock_killable(&t->run_lock);
}

/*
 * skas_thread_lock() for a SKAS_RUN: in_run is claimed first, so that a
 * second SKAS_RUN always gets -EBUSY (two drivers of one thread) instead
 * of waiting for the first run's end.
 */
static int skas_thread_lock_run(struct skas_thread *t)
{
	if (xchg(&t->in_run, true))
		return -EBUSY;
	if (mutex_lock_killable(&t->run_lock)) {
		WRITE_ONCE(t->in_run, false);
		return -EINTR;
	}
	skas_spin_drive(t);
	return 0;
}

static void skas_thread_unlock_run(struct skas_thread *t)
{
	WRITE_ONCE(t->in_run, false);
	mutex_unlock(&t->run_lock);
}

long skas_thread_run(struct skas_thread *t)
{
	long ret;

	if (!uid_eq(current_euid(), t->as->owner))
		return -EPERM;
	ret = skas_thread_lock_run(t);
	if (ret)
		return ret;
	ret = skas_thread_run_locked(t, NULL);
	skas_thread_unlock_run(t);
	return ret;
}

/**
 * skas_thread_run_mem() - SKAS_RUN_MEM: apply a batch in @t, then run it.
 * @t:    the thread, stopped.
 * @uarg: user pointer to a struct skas_mem_batch.
 *
 * Return: 0 once the run ended, or -errno: those of SKAS_MEM's checks,
 * -EPERM, -EBUSY (@t is being run, or an earlier run was cut short: finish
 * it with SKAS_RUN), -ENOENT, -ESRCH, -EINTR, -EINVAL (bad registers), or
 * the failed operation's (nothing ran; the batch's error field has it).
 */
long skas_thread_run_mem(struct skas_thread *t, void __user *uarg)
{
	struct skas_mem_req req = { .tmp_fd = -1 };
	struct skas_mem_batch args;
	long ret;

	if (!uid_eq(current_euid(), t->as->owner))
		return -EPERM;
	ret = skas_mem_batch_prepare(uarg, &args, &req, true);
	if (ret)
		goto out;
	ret = skas_thread_lock_run(t);
	if (ret)
		goto out;
	ret = skas_thread_run_locked(t, req.count ? &req : NULL);
	skas_thread_unlock_run(t);
	if (req.count) {
		if (!ret)
			ret = req.error;
		args.error = req.error;
		if (copy_to_user(uarg, &args, sizeof(args)) && !ret)
			ret = -EFAULT;
	}
out:
	skas_mem_req_free(&req);
	return ret;
}

/**
 * skas_thread_exec() - run a batch in @t, which must be stopped.
 * @t:   the thread; the caller holds t->run_lock.
 * @req: the batch; req->done and req->error are set (-ESRCH if @t is not
 *       stopped or dies).
 */
void skas_thread_exec(struct skas_thread *t, struct skas_mem_req *req)
{
	unsigned long flags;
	int state;

	spin_lock_irqsave(&t->lock, flags);
	state = t->state;
	if (state == SKAS_T_STOPPED) {
		t->req = req;
		t->state = SKAS_T_OPS;
	}
	spin_unlock_irqrestore(&t->lock, flags);
	if (state == SKAS_T_STOPPED) {
		skas_handoff_wake_up(t, &t->guest_wq);
		skas_thread_exec_wait(t, req);
		if (READ_ONCE(t->state) == SKAS_T_DEAD &&
		    req->done < req->count && !req->error)
			req->error = -ESRCH;
	} else {
		req->error = -ESRCH;
	}
}

/**
 * skas_run_init() - set up the run path of a new thread.
 * @t: the thread, not yet visible to anyone.
 */
void skas_run_init(struct skas_thread *t)
{
	init_waitqueue_head(&t->guest_wq);
	init_waitqueue_head(&t->rt_wq);
	init_task_work(&t->stop_work, skas_stop_work_fn);
	init_task_work(&t->kick_work, skas_kick_work_fn);
	init_task_work(&t->fstat_work, skas_fstat_work_fn);
}
