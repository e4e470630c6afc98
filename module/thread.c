// SPDX-License-Identifier: GPL-2.0
/*
 * Guest threads, the objects: a host task (the stub) bound to an address
 * space by SKAS_ATTACH, its thread file (ioctls, the mmapped run page,
 * poll), its references and its end.  The run path is in run.c.
 */

#include <linux/anon_inodes.h>
#include <linux/errno.h>
#include <linux/file.h>
#include <linux/fdtable.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "skas.h"

/*
 * Module text must outlive our task_work callbacks.  Their last statement
 * drops their thread reference, which may be the last one: then this
 * free, skas_objects_dec() and module exit could all be done before the
 * callback has returned through module text.  module_put() at the end of
 * a callback would leave the same window; the kernel closes it for files
 * by dropping the module in __fput() after ->release() has returned, for
 * kthreads with module_put_and_kthread_exit(), which never returns.
 *
 * Here: a thread's callbacks run only in t->task, and one can hold the
 * last reference only once the task has left the task hash, in do_exit()
 * (the sched_process_exit probe); from then on it runs from
 * exit_task_work(), which has returned, with every callback it ran, when
 * exit_notify() sets exit_state.  So the free waits for exit_state before
 * the object count that module exit waits for goes down.  The wait is
 * short: nothing between exit_task_work() and exit_notify() sleeps long.
 */
static void skas_thread_wait_task_done(struct task_struct *task)
{
	while (!READ_ONCE(task->exit_state))
		schedule_timeout_uninterruptible(1);
}

static void skas_thread_free(struct work_struct *work)
{
	struct skas_thread *t = container_of(to_rcu_work(work),
					     struct skas_thread, free_work);
	struct skas_aspace *as = t->as;

	mutex_lock(&as->lock);
	list_del(&t->node);
	mutex_unlock(&as->lock);
	if (t->task) {
		skas_thread_wait_task_done(t->task);
		put_task_struct(t->task);
	}
	if (t->driver)
		put_task_struct(t->driver);
	free_page((unsigned long)t->run);
	kfree(t);
	skas_aspace_put(as);
	skas_objects_dec();
}

static void skas_thread_release_ref(struct kref *ref)
{
	struct skas_thread *t = container_of(ref, struct skas_thread, ref);

	/* Probes may still see @t in the task hash: wait a grace period. */
	queue_rcu_work(skas_wq, &t->free_work);
}

void skas_thread_get(struct skas_thread *t)
{
	kref_get(&t->ref);
}

/* May be called in atomic context: the free runs on skas_wq. */
void skas_thread_put(struct skas_thread *t)
{
	kref_put(&t->ref, skas_thread_release_ref);
}

/**
 * skas_thread_kill() - end the thread's host task, if it has one.
 * @t:     the thread.
 * @group: SIGKILL its whole thread group (the address space goes); else
 *         one thread of several leaves alone (see below).
 */
void skas_thread_kill(struct skas_thread *t, bool group)
{
	struct task_struct *task = NULL;
	bool self_exit = false, wake = false;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	if (t->task && t->state != SKAS_T_DEAD) {
		task = get_task_struct(t->task);
		/*
		 * SIGKILL would take the whole thread group: one guest thread
		 * of several leaves by itself, with a native exit().
		 */
		if (!group && get_nr_threads(task) > 1) {
			self_exit = true;
			t->exit_req = true;
			if (t->state == SKAS_T_STOPPED) {
				t->state = SKAS_T_RUNNING;
				wake = true;
			} else {
				skas_thread_kick_locked(t);
			}
		}
	}
	spin_unlock_irqrestore(&t->lock, flags);
	if (wake)
		wake_up(&t->guest_wq);
	if (task && !self_exit)
		send_sig(SIGKILL, task, 1);
	if (task)
		put_task_struct(task);
}

/* Queue @work on the guest task with a reference.  Caller holds t->lock. */
int skas_thread_queue(struct skas_thread *t, struct callback_head *work,
		      enum task_work_notify_mode mode)
{
	int ret;

	skas_thread_get(t);
	ret = task_work_add(t->task, work, mode);
	if (ret)
		skas_thread_put(t);
	return ret;
}

/**
 * skas_thread_exited() - sched_process_exit probe for a guest task.
 * @t:    the thread of @task.
 * @task: the exiting task (current).
 */
void skas_thread_exited(struct skas_thread *t, struct task_struct *task)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	t->state = SKAS_T_DEAD;
	t->exit_status = task->exit_code;
	spin_unlock_irqrestore(&t->lock, flags);
	wake_up(&t->rt_wq);
	skas_task_unbind(t);
}

static long skas_thread_attach(struct skas_thread *t, void __user *uarg)
{
	struct skas_aspace *as = t->as;
	struct skas_attach args;
	unsigned long flags;
	int i, ret = 0;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.size != sizeof(args) || args.flags ||
	    !skas_zeroed(args.reserved, ARRAY_SIZE(args.reserved)))
		return -EINVAL;
	if (!uid_eq(current_euid(), as->owner))
		return -EPERM;
	/* A tracer could change what the module relies on: no guest. */
	if (current->ptrace)
		return -EPERM;
	if (!current->mm || get_nr_threads(current) != 1 ||
	    atomic_read(&current->mm->mm_users) != 1)
		return -EBUSY;
	/*
	 * Nor its fd table (a CLONE_FILES peer): hollowing would close the
	 * peer's descriptors, and NATIVE I/O would reach them.  Only the stub
	 * itself could share it later, and it never runs its code again.
	 */
	if (atomic_read(&current->files->count) != 1)
		return -EBUSY;
#ifdef CONFIG_RSEQ
	if (current->rseq)
		return -EBUSY;
#endif
	/* The stub must not have signal handlers: they would run its code. */
	spin_lock_irq(&skas_sighand()->siglock);
	for (i = 0; i < _NSIG; i++) {
		__sighandler_t h = skas_sighand()->action[i].sa.sa_handler;

		if (h != SIG_DFL && h != SIG_IGN)
			ret = -EBUSY;
	}
	spin_unlock_irq(&skas_sighand()->siglock);
	if (ret)
		return ret;

	mutex_lock(&as->lock);
	if (as->mm) {
		ret = -EBUSY;
		goto out;
	}
	spin_lock_irqsave(&t->lock, flags);
	if (t->state != SKAS_T_NEW) {
		spin_unlock_irqrestore(&t->lock, flags);
		ret = -EBUSY;
		goto out;
	}
	t->task = get_task_struct(current);
	t->state = SKAS_T_RUNNING;
	t->first_stop = true;
	memset(&t->ev, 0, sizeof(t->ev));
	ret = skas_thread_queue(t, &t->stop_work, TWA_RESUME);
	if (ret) {
		put_task_struct(t->task);
		t->task = NULL;
		t->state = SKAS_T_NEW;
		spin_unlock_irqrestore(&t->lock, flags);
		goto out;
	}
	t->stop_queued = true;
	spin_unlock_irqrestore(&t->lock, flags);
	/* Before the probes see it: no outside signal stops or kills it. */
	spin_lock_irq(&skas_sighand()->siglock);
	skas_guest_block_signals();
	spin_unlock_irq(&skas_sighand()->siglock);
	mmgrab(current->mm);
	as->mm = current->mm;
	skas_task_bind(t);
out:
	mutex_unlock(&as->lock);
	return ret;
}

static long skas_thread_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	struct skas_thread *t = file->private_data;

	/* The fd is the capability; the creator's uid is checked as well. */
	if (_IOC_TYPE(cmd) == SKASIO && !uid_eq(current_euid(), t->as->owner))
		return -EPERM;

	switch (cmd) {
	case SKAS_ATTACH:
		return skas_thread_attach(t, (void __user *)arg);
	case SKAS_RUN:
		return skas_thread_run(t);
	case SKAS_KICK:
		return skas_thread_kick(t);
	case SKAS_CLONE:
		return skas_thread_clone(t, (void __user *)arg);
	case SKAS_GET_XSTATE:
		return skas_thread_xstate(t, (void __user *)arg, false);
	case SKAS_SET_XSTATE:
		return skas_thread_xstate(t, (void __user *)arg, true);
	case SKAS_RUN_MEM:
		return skas_thread_run_mem(t, (void __user *)arg);
	case SKAS_ENABLE_CAP:
		return skas_thread_enable_cap(t, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

/*
 * The run page is an ordinary page (alloc_page(GFP_KERNEL_ACCOUNT), as
 * KVM's), mapped at fault time like KVM's: vmalloc_user(), which
 * remap_vmalloc_range() needs, has no accounted variant, and the mapping
 * keeps the file, hence the thread and its page, alive.
 */
static vm_fault_t skas_run_fault(struct vm_fault *vmf)
{
	struct skas_thread *t = vmf->vma->vm_file->private_data;

	if (vmf->pgoff)
		return VM_FAULT_SIGBUS;
	vmf->page = virt_to_page(t->run);
	get_page(vmf->page);
	return 0;
}

static const struct vm_operations_struct skas_run_vm_ops = {
	.fault = skas_run_fault,
};

static int skas_thread_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct skas_thread *t = file->private_data;

	if (!uid_eq(current_euid(), t->as->owner))
		return -EPERM;
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != SKAS_RUN_PAGE_SIZE ||
	    !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	vma->vm_ops = &skas_run_vm_ops;
	return 0;
}

static __poll_t skas_thread_poll(struct file *file, poll_table *wait)
{
	struct skas_thread *t = file->private_data;
	int state;

	poll_wait(file, &t->rt_wq, wait);
	/* Queued before the state is read: pairs with wq_has_sleeper() (run.c). */
	smp_mb();
	state = READ_ONCE(t->state);
	if (state == SKAS_T_DEAD)
		return EPOLLIN | EPOLLHUP;
	if (READ_ONCE(t->attached))
		return EPOLLIN;
	return 0;
}

static int skas_thread_release(struct inode *inode, struct file *file)
{
	struct skas_thread *t = file->private_data;

	skas_thread_kill(t, false);
	/*
	 * Give the guest a moment to die, so that the objects are gone soon
	 * after the last close (rmmod).  Bounded: a close never hangs.
	 */
	if (READ_ONCE(t->task) && READ_ONCE(t->task) != current)
		wait_event_timeout(t->rt_wq,
				   READ_ONCE(t->state) == SKAS_T_DEAD, HZ);
	skas_thread_put(t);
	return 0;
}

static const struct file_operations skas_thread_fops = {
	.owner		= THIS_MODULE,
	.release	= skas_thread_release,
	.unlocked_ioctl	= skas_thread_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= skas_thread_mmap,
	.poll		= skas_thread_poll,
	.llseek		= noop_llseek,
};

/**
 * skas_create_thread() - SKAS_CREATE_THREAD: a thread with no task yet.
 * @as:   the address space.
 * @uarg: user pointer to a struct skas_create_thread.
 *
 * Return: a new O_CLOEXEC thread file descriptor, or -EFAULT, -EINVAL,
 * -ENOMEM, -EMFILE.
 */
long skas_create_thread(struct skas_aspace *as, void __user *uarg)
{
	struct skas_create_thread args;
	struct skas_thread *t;
	int fd;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.size != sizeof(args) || args.flags ||
	    !skas_zeroed(args.reserved, ARRAY_SIZE(args.reserved)))
		return -EINVAL;

	t = skas_thread_new(as);
	if (!t)
		return -ENOMEM;
	fd = anon_inode_getfd("[skas-thread]", &skas_thread_fops, t,
			      O_RDWR | O_CLOEXEC);
	if (fd < 0)
		skas_thread_put(t);
	return fd;
}

/**
 * skas_thread_file() - a new file for @t, taking over one reference.
 * @t: the thread.
 *
 * Return: the file, or an ERR_PTR (the reference is then still the
 * caller's).
 */
struct file *skas_thread_file(struct skas_thread *t)
{
	return anon_inode_getfile("[skas-thread]", &skas_thread_fops, t,
				  O_RDWR);
}

/**
 * skas_thread_new() - a thread of @as with no task, with one reference.
 * @as: the address space (the thread takes a reference).
 *
 * Return: the thread, or NULL (no memory).
 */
struct skas_thread *skas_thread_new(struct skas_aspace *as)
{
	struct skas_thread *t;
	struct page *page;

	BUILD_BUG_ON(sizeof(struct skas_run) > SKAS_RUN_PAGE_SIZE);
	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return NULL;
	/* As KVM's run page: charged to the caller's memory cgroup. */
	BUILD_BUG_ON(SKAS_RUN_PAGE_SIZE != PAGE_SIZE);
	page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	t->run = page ? page_address(page) : NULL;
	if (!t->run) {
		kfree(t);
		return NULL;
	}
	kref_init(&t->ref);
	spin_lock_init(&t->lock);
	mutex_init(&t->run_lock);
	skas_run_init(t);
	INIT_RCU_WORK(&t->free_work, skas_thread_free);
	t->state = SKAS_T_NEW;
	skas_objects_inc();
	skas_aspace_get(as);
	t->as = as;
	mutex_lock(&as->lock);
	list_add_tail(&t->node, &as->threads);
	mutex_unlock(&as->lock);
	return t;
}
