// SPDX-License-Identifier: GPL-2.0
/*
 * SKAS_CLONE: guest fork and guest threads, as a native clone of the guest
 * task.
 *
 * The parent guest task makes a real clone() through the native-syscall
 * primitive: CLONE_PARENT | SIGCHLD for a fork, so the host does the
 * copy-on-write and the child's parent is the runtime (which reaps it);
 * CLONE_VM | CLONE_THREAD | ... for a thread in the same address space.  The sched_process_fork
 * probe fires before wake_up_new_task(): it binds the child to a thread
 * object prepared by SKAS_CLONE and queues its stop_work, so the child
 * parks before it runs a single user instruction.
 */

#include <linux/file.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/uaccess.h>

#include "skas.h"

/**
 * skas_thread_forked() - sched_process_fork probe for a guest parent.
 * @t:     the parent's thread (current is the parent).
 * @child: the new task, not yet running.
 *
 * Only the armed native clone of SKAS_CLONE gets here with a prepared
 * child: guests cannot make syscalls of their own.
 */
void skas_thread_forked(struct skas_thread *t, struct task_struct *child)
{
	struct skas_thread *c;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	c = t->clone_child;
	if (!t->native_active || !t->native_passed)
		c = NULL;
	t->clone_child = NULL;
	if (c)
		c->clone_regs = t->native_saved;
	spin_unlock_irqrestore(&t->lock, flags);
	if (!c)
		return;

	/* The child's address space is not visible to anyone yet. */
	if (c->as != t->as) {
		mmgrab(child->mm);
		c->as->mm = child->mm;
		c->as->syscall_insn = t->as->syscall_insn;
	}
	spin_lock_irqsave(&c->lock, flags);
	c->task = get_task_struct(child);
	c->state = SKAS_T_RUNNING;
	c->clone_start = true;
	if (!skas_thread_queue(c, &c->stop_work, TWA_RESUME))
		c->stop_queued = true;
	spin_unlock_irqrestore(&c->lock, flags);
	skas_task_bind(c);
}

/* Install the child's files; on failure the child is killed and freed. */
static long skas_clone_install(struct skas_thread *c, struct skas_clone *args,
			       void __user *uarg)
{
	bool fork = !(args->flags & SKAS_CLONE_THREAD);
	struct file *tfile, *afile;
	int tfd, afd;
	long ret;

	afd = -1;
	afile = NULL;
	tfd = get_unused_fd_flags(O_CLOEXEC);
	if (fork)
		afd = get_unused_fd_flags(O_CLOEXEC);
	if (tfd < 0 || (fork && afd < 0)) {
		ret = tfd < 0 ? tfd : afd;
		goto err_fds;
	}
	if (fork) {
		afile = skas_aspace_file(c->as);
		if (IS_ERR(afile)) {
			ret = PTR_ERR(afile);
			goto err_fds;
		}
		skas_aspace_get(c->as);	/* afile's; ours goes with c */
	}
	tfile = skas_thread_file(c);
	if (IS_ERR(tfile)) {
		ret = PTR_ERR(tfile);
		if (afile)
			fput(afile);
		goto err_fds;
	}
	args->thread_fd = tfd;
	args->aspace_fd = afd;
	if (copy_to_user(uarg, args, sizeof(*args))) {
		fput(tfile);	/* kills the child */
		if (afile)
			fput(afile);
		put_unused_fd(tfd);
		if (afd >= 0)
			put_unused_fd(afd);
		return -EFAULT;
	}
	fd_install(tfd, tfile);
	if (afile)
		fd_install(afd, afile);
	return 0;

err_fds:
	if (tfd >= 0)
		put_unused_fd(tfd);
	if (afd >= 0)
		put_unused_fd(afd);
	skas_thread_kill(c, false);
	skas_thread_put(c);
	return ret;
}

/**
 * skas_thread_clone() - SKAS_CLONE: fork a stopped guest thread, or start
 * a new thread in its address space.
 * @t:    the parent thread.
 * @uarg: user pointer to a struct skas_clone.
 *
 * The child is stopped (parked, with its parent's registers) on return.
 *
 * Return: 0 with the child's descriptors and tid in *@uarg, or -EFAULT,
 * -EINVAL (bad size, flags, reserved), -EPERM (another uid), -ENOENT (no
 * task attached), -EBUSY (the thread is being run), -ESRCH (it died),
 * -ENOMEM, -EINTR (fatal signal), or clone()'s error.
 */
long skas_thread_clone(struct skas_thread *t, void __user *uarg)
{
	struct skas_mem_op op = { .op = SKAS_OP_CLONE };
	struct skas_mem_req req = { .ops = &op, .count = 1, .tmp_fd = -1 };
	struct file *nofile = NULL;
	struct skas_aspace *as;
	struct skas_thread *c;
	struct skas_clone args;
	unsigned long flags;
	long ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.size != sizeof(args) ||
	    (args.flags & ~(SKAS_CLONE_THREAD | SKAS_CLONE_UNMARKED)) ||
	    args.pad || !skas_zeroed(args.reserved, ARRAY_SIZE(args.reserved)))
		return -EINVAL;
	/*
	 * fork: the runtime (the stub's parent) becomes the child's parent.
	 * thread: a new task in the guest's thread group, sharing its mm.
	 */
	if (args.flags & SKAS_CLONE_THREAD)
		op.flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			   CLONE_THREAD | CLONE_SYSVSEM;
	else
		op.flags = CLONE_PARENT | SIGCHLD;
	if (!uid_eq(current_euid(), t->as->owner))
		return -EPERM;
	if (!READ_ONCE(t->attached))
		return READ_ONCE(t->state) == SKAS_T_DEAD ? -ESRCH : -ENOENT;
	ret = skas_thread_lock(t);
	if (ret)
		return ret;

	if (args.flags & SKAS_CLONE_THREAD) {
		as = t->as;
		skas_aspace_get(as);
	} else {
		as = skas_aspace_new(t->as->owner);
		if (IS_ERR(as)) {
			ret = PTR_ERR(as);
			goto out_unlock;
		}
		ret = skas_aspace_copy_policy(as, t->as);
		if (ret) {
			skas_aspace_put(as);
			goto out_unlock;
		}
		skas_aspace_copy_marks(as, t->as);
	}
	c = skas_thread_new(as);
	skas_aspace_put(as);		/* c holds it now */
	if (!c) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	c->spin_ns = READ_ONCE(t->spin_ns);
	c->yield = READ_ONCE(t->yield);
	/*
	 * Before the child runs: its first call may be a marked one.  A
	 * thread shares the host fd table of its creator, a fork has a copy
	 * of its own, with the marks, for the runtime to sort out.
	 */
	c->unmarked = (args.flags & SKAS_CLONE_UNMARKED) ||
		      (t->unmarked && (args.flags & SKAS_CLONE_THREAD));

	req.files = &nofile;
	spin_lock_irqsave(&t->lock, flags);
	t->clone_child = c;
	spin_unlock_irqrestore(&t->lock, flags);
	skas_thread_exec(t, &req);
	spin_lock_irqsave(&t->lock, flags);
	t->clone_child = NULL;
	spin_unlock_irqrestore(&t->lock, flags);
	mutex_unlock(&t->run_lock);

	/* The child parks at once: wait for it, so that it can be used. */
	if (!req.error &&
	    wait_event_killable(c->rt_wq, READ_ONCE(c->attached) ||
				READ_ONCE(c->state) == SKAS_T_DEAD))
		req.error = -EINTR;
	if (!req.error && READ_ONCE(c->state) == SKAS_T_DEAD)
		req.error = -ESRCH;
	if (req.error) {
		/* If the fork happened after all (parent killed), kill it. */
		skas_thread_kill(c, false);
		skas_thread_put(c);
		return req.error;
	}
	args.host_tid = req.result;
	return skas_clone_install(c, &args, uarg);

out_unlock:
	mutex_unlock(&t->run_lock);
	return ret;
}
