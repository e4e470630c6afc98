// SPDX-License-Identifier: GPL-2.0
/*
 * The host-tax opt-in: the untrace_hosts module parameter, off by default.
 *
 * A sys_enter probe costs every task of the host, not only guests: the
 * first probe of a syscall tracepoint sets the syscall tracepoint work on
 * every thread (syscall_regfunc()), and every syscall then takes the slow
 * entry and exit and calls the probe, which finds no guest and returns.
 * With untrace_hosts set, while the probes are registered and ours is the
 * only probe of sys_enter and sys_exit, the work is cleared on every task
 * that is not a guest (skas_tasks_untrace()); guests keep it, and a task
 * that becomes one gets it back (skas_task_bind()).
 *
 * The hazard: the kernel sets the work on every task only for the first
 * probe of the two tracepoints.  A tracer that attaches later (ftrace's
 * or perf's syscall events, a BPF raw tracepoint) would see no syscall of
 * a task whose work is cleared.  So the state is checked every
 * SKAS_UNTRACE_CHECK, and as soon as another probe is found the work is
 * set on every task again, as long as the other probe stays: a tracer
 * misses at most that long of other tasks' syscalls.  The parameter
 * hosts_untraced says how many tasks the last walk cleared (0: none is).
 */

#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "skas.h"

#define SKAS_UNTRACE_CHECK	(HZ / 10)

static DEFINE_MUTEX(skas_untrace_lock);
static bool skas_untrace_hosts;
static bool skas_untrace_live;	/* the probes are registered */
static bool skas_untraced;	/* the last walk cleared the work */
static int skas_hosts_untraced;

static void skas_untrace_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(skas_untrace_work, skas_untrace_fn);

/* Caller holds skas_untrace_lock. */
static void skas_untrace_restore(void)
{
	if (!skas_untraced)
		return;
	skas_tasks_untrace(true);
	skas_untraced = false;
	WRITE_ONCE(skas_hosts_untraced, 0);
}

static void skas_untrace_fn(struct work_struct *work)
{
	mutex_lock(&skas_untrace_lock);
	if (!skas_untrace_live)
		goto out;
	if (!skas_untrace_hosts || !skas_syscall_probe_alone()) {
		skas_untrace_restore();
	} else if (!skas_untraced) {
		WRITE_ONCE(skas_hosts_untraced, skas_tasks_untrace(false));
		skas_untraced = true;
	}
	if (skas_untrace_hosts)
		queue_delayed_work(system_wq, &skas_untrace_work,
				   SKAS_UNTRACE_CHECK);
out:
	mutex_unlock(&skas_untrace_lock);
}

/**
 * skas_untrace_start() - the probes are registered: untrace if asked to.
 *
 * Called with the hooks' mutex held, after registering.
 */
void skas_untrace_start(void)
{
	mutex_lock(&skas_untrace_lock);
	skas_untrace_live = true;
	if (skas_untrace_hosts)
		mod_delayed_work(system_wq, &skas_untrace_work, 0);
	mutex_unlock(&skas_untrace_lock);
}

/**
 * skas_untrace_stop() - the probes are about to go: stop checking, and
 * give every task its work back (another probe may stay).
 *
 * Called with the hooks' mutex held, before unregistering.
 */
void skas_untrace_stop(void)
{
	mutex_lock(&skas_untrace_lock);
	skas_untrace_live = false;
	mutex_unlock(&skas_untrace_lock);
	/* The work takes only skas_untrace_lock: no deadlock. */
	cancel_delayed_work_sync(&skas_untrace_work);
	mutex_lock(&skas_untrace_lock);
	skas_untrace_restore();
	mutex_unlock(&skas_untrace_lock);
}

/*
 * Setting the parameter takes effect at once while the probes are
 * registered, otherwise when they next are.
 */
static int skas_untrace_set(const char *val, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&skas_untrace_lock);
	ret = param_set_bool(val, kp);
	if (!ret && skas_untrace_live)
		mod_delayed_work(system_wq, &skas_untrace_work, 0);
	mutex_unlock(&skas_untrace_lock);
	return ret;
}

static const struct kernel_param_ops skas_untrace_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = skas_untrace_set,
	.get = param_get_bool,
};

module_param_cb(untrace_hosts, &skas_untrace_ops, &skas_untrace_hosts, 0644);
__MODULE_PARM_TYPE(untrace_hosts, "bool");
MODULE_PARM_DESC(untrace_hosts,
		 "Clear the syscall tracepoint work of non-guest tasks while skas's probe is the only one (a later syscall tracer misses up to 100 ms of their syscalls; off by default)");
module_param_named(hosts_untraced, skas_hosts_untraced, int, 0444);
MODULE_PARM_DESC(hosts_untraced,
		 "Tasks the last untrace_hosts walk cleared; 0 if none is (read-only)");
