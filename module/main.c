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
#include <linux/skas.h>

#include "skas.h"

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
		return 1;
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

static struct miscdevice skas_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "skas",
	.fops	= &skas_dev_fops,
	.mode	= 0660,
};

static int __init skas_init(void)
{
	int ret;

	ret = misc_register(&skas_dev);
	if (ret)
		goto err_misc;

	return 0;

err_misc:
	pr_err("cannot register /dev/skas: %d\n", ret);
	return ret;
}

static void __exit skas_exit(void)
{
	misc_deregister(&skas_dev);
}

module_init(skas_init);
module_exit(skas_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("skas: address spaces and guest threads for user-mode kernels");
MODULE_AUTHOR("The skas project");
