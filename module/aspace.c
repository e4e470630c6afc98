// SPDX-License-Identifier: GPL-2.0
/*
 * Address-space objects: one per guest address space, behind an anon-inode
 * file descriptor.  The last close of that descriptor kills the host tasks
 * of its threads; the object itself goes when its threads are gone.
 */

#include <linux/anon_inodes.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "skas.h"

void skas_aspace_get(struct skas_aspace *as)
{
	kref_get(&as->ref);
}

static void skas_aspace_free(struct kref *ref)
{
	struct skas_aspace *as = container_of(ref, struct skas_aspace, ref);

	if (as->mm)
		mmdrop(as->mm);
	kvfree(as->policy);
	kfree(as);
	skas_hooks_put();
	skas_objects_dec();
}

/* May sleep (the final put unregisters the probes if it is the last). */
void skas_aspace_put(struct skas_aspace *as)
{
	kref_put(&as->ref, skas_aspace_free);
}

static int skas_aspace_release(struct inode *inode, struct file *file)
{
	struct skas_aspace *as = file->private_data;
	struct skas_thread *t;

	mutex_lock(&as->lock);
	list_for_each_entry(t, &as->threads, node)
		skas_thread_kill(t, true);
	mutex_unlock(&as->lock);
	skas_aspace_put(as);
	return 0;
}

static long skas_aspace_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	struct skas_aspace *as = file->private_data;

	/* The fd is the capability; the creator's uid is checked as well. */
	if (_IOC_TYPE(cmd) == SKASIO && !uid_eq(current_euid(), as->owner))
		return -EPERM;

	switch (cmd) {
	case SKAS_CREATE_THREAD:
		return skas_create_thread(as, (void __user *)arg);
	case SKAS_MEM:
		return skas_aspace_mem(as, (void __user *)arg);
	case SKAS_MEM_READ:
		return skas_aspace_rw(as, (void __user *)arg, false);
	case SKAS_MEM_WRITE:
		return skas_aspace_rw(as, (void __user *)arg, true);
	case SKAS_RESET:
		return skas_aspace_reset(as);
	case SKAS_SET_POLICY:
		return skas_aspace_set_policy(as, (void __user *)arg);
	case SKAS_INSTALL_FD:
		return skas_aspace_install_fd(as, (void __user *)arg);
	case SKAS_MARK_FDS:
		return skas_aspace_mark_fds(as, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations skas_aspace_fops = {
	.owner		= THIS_MODULE,
	.release	= skas_aspace_release,
	.unlocked_ioctl	= skas_aspace_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

/**
 * skas_create_aspace() - SKAS_CREATE_ASPACE: a new, empty address space.
 * @uarg: user pointer to a struct skas_create_aspace.
 *
 * The first address space registers the tracepoint probes; they stay
 * registered until the last one is freed.
 *
 * Return: a new O_CLOEXEC file descriptor for the address space, or
 * -EFAULT (bad @uarg), -EINVAL (wrong size, unknown flags, nonzero reserved
 * fields), -ENOMEM, or an error from anon_inode_getfd() or from
 * tracepoint_probe_register().
 */
long skas_create_aspace(void __user *uarg)
{
	struct skas_create_aspace args;
	struct skas_aspace *as;
	int fd;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.size != sizeof(args) || args.flags ||
	    !skas_zeroed(args.reserved, ARRAY_SIZE(args.reserved)))
		return -EINVAL;

	as = skas_aspace_new(current_euid());
	if (IS_ERR(as))
		return PTR_ERR(as);
	fd = anon_inode_getfd("[skas-aspace]", &skas_aspace_fops, as,
			      O_RDWR | O_CLOEXEC);
	if (fd < 0)
		skas_aspace_put(as);
	return fd;
}

/**
 * skas_aspace_new() - allocate an empty address space, with one reference.
 * @owner: the effective uid allowed to attach to and drive it.
 *
 * Return: the object, or ERR_PTR(-ENOMEM) or a probe registration error.
 */
struct skas_aspace *skas_aspace_new(kuid_t owner)
{
	struct skas_aspace *as;
	int ret;

	as = kzalloc(sizeof(*as), GFP_KERNEL_ACCOUNT);
	if (!as)
		return ERR_PTR(-ENOMEM);
	ret = skas_hooks_get();
	if (ret) {
		kfree(as);
		return ERR_PTR(ret);
	}
	skas_objects_inc();
	kref_init(&as->ref);
	mutex_init(&as->lock);
	INIT_LIST_HEAD(&as->threads);
	as->owner = owner;
	return as;
}

/**
 * skas_aspace_file() - a new file for @as, taking over one reference.
 * @as: the address space.
 *
 * Return: the file, or an ERR_PTR (the reference is then still the
 * caller's).
 */
struct file *skas_aspace_file(struct skas_aspace *as)
{
	return anon_inode_getfile("[skas-aspace]", &skas_aspace_fops, as,
				  O_RDWR);
}
