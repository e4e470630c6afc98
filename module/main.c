// SPDX-License-Identifier: GPL-2.0
/*
 * skas.ko: the /dev/skas device and module init/exit.
 *
 * /dev/skas is a misc device created with mode 0660, owned by root:root.
 * Access for a group of users is granted by a udev rule, as for /dev/kvm.
 */

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/skas.h>
#include <linux/sysfs.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "skas.h"

/* Final frees of objects that may be dropped in atomic context. */
struct workqueue_struct *skas_wq;

/*
 * Objects alive.  An open skas file pins the module (fops->owner), but an
 * object may outlive its files for a moment (a killed guest task still
 * exiting, its task_works, an RCU grace period): module exit waits for the
 * count to drop to zero.
 */
static atomic_t skas_objects = ATOMIC_INIT(0);

void skas_objects_inc(void)
{
	atomic_inc(&skas_objects);
}

void skas_objects_dec(void)
{
	if (atomic_dec_and_test(&skas_objects))
		wake_up_var(&skas_objects);
}

/* Read-only in /sys/module/skas/parameters/objects: the leak checks of tests. */
static int skas_objects_show(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&skas_objects));
}

static const struct kernel_param_ops skas_objects_ops = {
	.get = skas_objects_show,
};

module_param_cb(objects, &skas_objects_ops, NULL, 0444);
MODULE_PARM_DESC(objects, "address space and thread objects alive");

/**
 * skas_check_extension() - answer SKAS_CHECK_EXTENSION.
 * @cap: a SKAS_CAP_* number, as passed by user space.
 *
 * Return: a positive value if the capability is present, 0 if it is not or
 * if @cap is unknown.
 */
static long skas_check_extension(unsigned long cap)
{
	switch (cap) {
	case SKAS_CAP_ASPACE:
	case SKAS_CAP_THREAD:
	case SKAS_CAP_MEM:
	case SKAS_CAP_CLONE:
	case SKAS_CAP_RESET:
	case SKAS_CAP_CLONE_THREAD:
	case SKAS_CAP_POLICY:
	case SKAS_CAP_INSTALL_FD:
	case SKAS_CAP_POLICY_NATIVE:
	case SKAS_CAP_SIGNAL_INTERRUPT:
	case SKAS_CAP_SIGSYS:
	case SKAS_CAP_END_CAUSE:
	case SKAS_CAP_RUN_MEM:
	case SKAS_CAP_YIELD:
		return 1;
	case SKAS_CAP_XSTATE:
		return skas_xstate_size();
	case SKAS_CAP_RUN_XSTATE:
		return skas_xstate_size() > 0;
	case SKAS_CAP_FD_MARK:
		return SKAS_FD_MARK_MAX;
	case SKAS_CAP_SPIN:
		return skas_spin_max();
	default:
		return 0;
	}
}

static long skas_dev_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	switch (cmd) {
	case SKAS_GET_API_VERSION:
		return SKAS_API_VERSION;
	case SKAS_CHECK_EXTENSION:
		return skas_check_extension(arg);
	case SKAS_CREATE_ASPACE:
		return skas_create_aspace((void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations skas_dev_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= skas_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

/*
 * A fixed minor from the range devices.txt reserves for local use (10,
 * 243-254), as KVM has its own: kmod's static nodes then create /dev/skas
 * at boot (the devname alias below) and its first open loads the module.
 */
#define SKAS_MINOR	249

static struct miscdevice skas_dev = {
	.minor	= SKAS_MINOR,
	.name	= "skas",
	.fops	= &skas_dev_fops,
	.mode	= 0660,
};

static int __init skas_init(void)
{
	int ret;

	skas_xstate_init();
	ret = skas_hooks_init();
	if (ret)
		goto err_hooks;

	skas_wq = alloc_workqueue("skas", 0, 0);
	if (!skas_wq) {
		ret = -ENOMEM;
		goto err_wq;
	}

	ret = misc_register(&skas_dev);
	if (ret == -EBUSY) {
		pr_notice("minor %d is taken: /dev/skas gets a dynamic one, and opening it cannot load the module\n",
			  SKAS_MINOR);
		skas_dev.minor = MISC_DYNAMIC_MINOR;
		ret = misc_register(&skas_dev);
	}
	if (ret) {
		pr_err("cannot register /dev/skas: %d\n", ret);
		goto err_misc;
	}

	return 0;

err_misc:
	destroy_workqueue(skas_wq);
err_wq:
	skas_hooks_exit();
err_hooks:
	return ret;
}

static void __exit skas_exit(void)
{
	misc_deregister(&skas_dev);
	wait_var_event(&skas_objects, !atomic_read(&skas_objects));
	/* The last free may still be returning from its work item. */
	rcu_barrier();
	destroy_workqueue(skas_wq);
	skas_hooks_exit();
}

module_init(skas_init);
module_exit(skas_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("skas: address spaces and guest threads for user-mode kernels");
MODULE_AUTHOR("The skas project");
MODULE_VERSION(SKAS_VERSION);
MODULE_ALIAS_MISCDEV(SKAS_MINOR);
MODULE_ALIAS("devname:skas");
