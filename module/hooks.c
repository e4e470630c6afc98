// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel hooks: the tracepoint probes and the task hash.
 *
 * The probes are registered only while at least one address space exists,
 * and for SKAS_HOOKS_LINGER after the last one goes (skas_hooks_get() and
 * skas_hooks_put()), so that host syscalls take the fast path when no
 * guest is alive.  skas_probes_registered counts them and is
 * readable in /sys/module/skas/parameters/probes_registered.
 *
 * Every probe first looks current (or the signal's target) up in an RCU
 * hash of guest tasks; for any other task that is all it costs.  The
 * sys_enter probe, the one at every syscall, is the run path's entry and
 * lives in run.c with it.
 */

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "skas.h"

int skas_probes_registered;
module_param_named(probes_registered, skas_probes_registered, int, 0444);
MODULE_PARM_DESC(probes_registered,
		 "number of tracepoint probes registered (read-only)");

DEFINE_HASHTABLE(skas_tasks, SKAS_TASKS_BITS);
static DEFINE_SPINLOCK(skas_tasks_lock);

static DEFINE_MUTEX(skas_hooks_lock);
static unsigned int skas_hooks_users;

/**
 * skas_task_bind() - make t->task a guest task, seen by the probes.
 * @t: the thread; t->task is set.  The hash holds a reference on @t.
 */
void skas_task_bind(struct skas_thread *t)
{
	skas_thread_get(t);
	spin_lock(&skas_tasks_lock);
	hash_add_rcu(skas_tasks, &t->hnode, (unsigned long)t->task);
	/*
	 * Its syscalls must reach the probe, whatever skas_tasks_untrace()
	 * did to the task before: under the lock that walk takes.
	 */
	set_task_syscall_work(t->task, SYSCALL_TRACEPOINT);
	spin_unlock(&skas_tasks_lock);
}

/**
 * skas_tasks_untrace() - set or clear the syscall tracepoint work of every
 * task that is not a guest (module/untrace.c).
 * @on: set it (what the kernel did when the first probe came), or clear it.
 *
 * A guest task keeps it: the check and the change are under the lock that
 * skas_task_bind() sets it under, and a guest's fork child, on the task
 * list before the fork probe binds it, does not run before that.  A task
 * that a walk misses (forked during it) keeps what its parent had, as it
 * would with the kernel's own walk (syscall_regfunc()).
 *
 * Return: the number of tasks changed.
 */
unsigned int skas_tasks_untrace(bool on)
{
	struct task_struct *p, *task;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process_thread(p, task) {
		spin_lock(&skas_tasks_lock);
		if (!skas_task_lookup(task)) {
			if (on)
				set_task_syscall_work(task, SYSCALL_TRACEPOINT);
			else
				clear_task_syscall_work(task,
							SYSCALL_TRACEPOINT);
			n++;
		}
		spin_unlock(&skas_tasks_lock);
	}
	rcu_read_unlock();
	return n;
}

/**
 * skas_task_unbind() - remove t->task from the hash and drop its reference.
 * @t: the thread, bound by skas_task_bind().  Called once, from the
 *     sched_process_exit probe (atomic context).
 */
void skas_task_unbind(struct skas_thread *t)
{
	spin_lock(&skas_tasks_lock);
	hash_del_rcu(&t->hnode);
	spin_unlock(&skas_tasks_lock);
	/* Readers are in probes: the final free waits for a grace period. */
	skas_thread_put(t);
}

static void skas_probe_process_exit(void *data, struct task_struct *task)
{
	struct skas_thread *t;

	rcu_read_lock();
	t = skas_task_lookup(task);
	if (unlikely(t))
		skas_thread_exited(t, task);
	rcu_read_unlock();
}

static void skas_probe_process_fork(void *data, struct task_struct *parent,
				    struct task_struct *child)
{
	struct skas_thread *t;

	rcu_read_lock();
	t = skas_task_lookup(parent);
	if (unlikely(t))
		skas_thread_forked(t, child);
	rcu_read_unlock();
}

/*
 * A fault signal a guest task raises for itself can only come from the
 * kernel (a guest makes no syscalls that signal): force_sig_fault() with
 * details (si_code > 0), or force_sig() with SEND_SIG_PRIV (#GP, #SS, bad
 * iret...).  SIGSYS counts only as a seccomp filter's SECCOMP_RET_TRAP
 * (SYS_SECCOMP): libuml's stub traps the legacy vsyscall page with one,
 * since emulate_vsyscall() runs seccomp but no sys_enter tracepoint.
 * Anything else, a kill() from outside included, is an outside signal.
 */
static bool skas_sig_fault(int sig, struct kernel_siginfo *info,
			   struct task_struct *task)
{
	if (task != current)
		return false;
	switch (sig) {
	case SIGSEGV:
	case SIGBUS:
	case SIGILL:
	case SIGFPE:
	case SIGTRAP:
		break;
	case SIGSYS:
		return info != SEND_SIG_NOINFO && info != SEND_SIG_PRIV &&
		       info->si_code == SYS_SECCOMP;
	default:
		return false;
	}
	if (info == SEND_SIG_PRIV)
		return true;
	return info != SEND_SIG_NOINFO && info->si_code > 0;
}

static void skas_probe_signal_generate(void *data, int sig,
				       struct kernel_siginfo *info,
				       struct task_struct *task, int group,
				       int result)
{
	struct skas_thread *t;

	if (sig == SIGKILL)
		return;
	rcu_read_lock();
	t = skas_task_lookup(task);
	if (unlikely(t)) {
		if (skas_sig_fault(sig, info, task))
			skas_thread_fault(t, sig);
		else
			skas_thread_signal(t);
	}
	rcu_read_unlock();
}

struct skas_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

static struct skas_tp skas_tps[] = {
	{ "sys_enter", skas_probe_sys_enter },
	{ "sched_process_exit", skas_probe_process_exit },
	{ "signal_generate", skas_probe_signal_generate },
	{ "sched_process_fork", skas_probe_process_fork },
};

/* Not probed, only watched: skas_syscall_probe_alone(). */
static struct tracepoint *skas_tp_sys_exit;

static void skas_tp_find(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(skas_tps); i++)
		if (!strcmp(tp->name, skas_tps[i].name))
			skas_tps[i].tp = tp;
	if (!strcmp(tp->name, "sys_exit"))
		skas_tp_sys_exit = tp;
}

/**
 * skas_syscall_probe_alone() - is our sys_enter probe the only probe of
 * the two syscall tracepoints (the ones whose work flag every task has)?
 *
 * Reads the tracepoints' probe arrays, which are freed only after an RCU
 * grace period.  Return: true if sys_enter has exactly our probe and
 * sys_exit none.
 */
bool skas_syscall_probe_alone(void)
{
	struct tracepoint_func *f;
	bool alone;

	rcu_read_lock();
	f = rcu_dereference(skas_tps[0].tp->funcs);
	alone = f && f[0].func == skas_probe_sys_enter && !f[1].func &&
		!rcu_access_pointer(skas_tp_sys_exit->funcs);
	rcu_read_unlock();
	return alone;
}

static void skas_hooks_unregister(unsigned int n)
{
	while (n--) {
		tracepoint_probe_unregister(skas_tps[n].tp, skas_tps[n].probe,
					    NULL);
		skas_probes_registered--;
	}
	/* No probe runs any more when this returns. */
	tracepoint_synchronize_unregister();
}

/*
 * Registering and unregistering patch kernel text (the tracepoints' static
 * keys) and walk every thread; a runtime that starts and ends guests many
 * times a second would do it for each.  So the probes linger a moment
 * after the last address space goes.
 */
#define SKAS_HOOKS_LINGER	HZ

static bool skas_hooks_live;

static void skas_hooks_unreg_fn(struct work_struct *work)
{
	mutex_lock(&skas_hooks_lock);
	if (!skas_hooks_users && skas_hooks_live) {
		/* Every task traced again first: another probe may remain. */
		skas_untrace_stop();
		skas_hooks_unregister(ARRAY_SIZE(skas_tps));
		skas_hooks_live = false;
	}
	mutex_unlock(&skas_hooks_lock);
}

static DECLARE_DELAYED_WORK(skas_hooks_unreg, skas_hooks_unreg_fn);

/**
 * skas_hooks_get() - make sure the probes are registered, for one user.
 *
 * Return: 0 or a -errno from tracepoint_probe_register().
 */
int skas_hooks_get(void)
{
	unsigned int i;
	int ret = 0;

	mutex_lock(&skas_hooks_lock);
	if (!skas_hooks_live) {
		for (i = 0; i < ARRAY_SIZE(skas_tps); i++) {
			ret = tracepoint_probe_register(skas_tps[i].tp,
							skas_tps[i].probe,
							NULL);
			if (ret)
				break;
			skas_probes_registered++;
		}
		if (ret) {
			skas_hooks_unregister(i);
		} else {
			skas_hooks_live = true;
			skas_untrace_start();
		}
	}
	if (!ret)
		skas_hooks_users++;
	mutex_unlock(&skas_hooks_lock);
	return ret;
}

/**
 * skas_hooks_put() - drop a user; the last one schedules the unregistering
 * SKAS_HOOKS_LINGER later (a new user in between keeps the probes).
 */
void skas_hooks_put(void)
{
	mutex_lock(&skas_hooks_lock);
	if (!--skas_hooks_users)
		mod_delayed_work(system_wq, &skas_hooks_unreg,
				 SKAS_HOOKS_LINGER);
	mutex_unlock(&skas_hooks_lock);
}

/**
 * skas_hooks_init() - find the tracepoints the module needs.
 *
 * Return: 0, or -ENOENT if the kernel lacks one (e.g. no
 * CONFIG_FTRACE_SYSCALLS for sys_enter).
 */
int skas_hooks_init(void)
{
	unsigned int i;

	for_each_kernel_tracepoint(skas_tp_find, NULL);
	for (i = 0; i < ARRAY_SIZE(skas_tps); i++) {
		if (!skas_tps[i].tp) {
			pr_err("tracepoint %s not found\n", skas_tps[i].name);
			return -ENOENT;
		}
	}
	if (!skas_tp_sys_exit) {
		pr_err("tracepoint sys_exit not found\n");
		return -ENOENT;
	}
	return 0;
}

/**
 * skas_hooks_exit() - counterpart of skas_hooks_init(): unregister now if
 * the probes are still lingering.  No address space is left by then.
 */
void skas_hooks_exit(void)
{
	cancel_delayed_work_sync(&skas_hooks_unreg);
	skas_hooks_unreg_fn(NULL);
}
