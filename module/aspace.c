// SPDX-License-Identifier: GPL-2.0
/*
 * Address-space objects: one per guest address space, behind an anon-inode
 * file descriptor.  The last close of that descriptor destroys the object.
 */

#include <linux/anon_inodes.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/skas.h>
#include <linux/uaccess.h>

#include "skas.h"

/**
 * struct skas_aspace - a guest address space
 * @dummy: placeholder until the object grows state
 */
struct skas_aspace {
	int dummy;
};

static int skas_aspace_release(struct inode *inode, struct file *file)
{
	struct skas_aspace *as = file->private_data;

	kfree(as);
	return 0;
}

static long skas_aspace_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	return -ENOTTY;
}

static const struct file_operations skas_aspace_fops = {
	.owner		= THIS_MODULE,
	.release	= skas_aspace_release,
	.unlocked_ioctl	= skas_aspace_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static bool skas_zeroed(const __u64 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/**
 * skas_create_aspace() - SKAS_CREATE_ASPACE: a new, empty address space.
 * @uarg: user pointer to a struct skas_create_aspace.
 *
 * Return: a new O_CLOEXEC file descriptor for the address space, or
 * -EFAULT (bad @uarg), -EINVAL (wrong size, unknown flags, nonzero reserved
 * fields), -ENOMEM, or an error from anon_inode_getfd().
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

	as = kzalloc(sizeof(*as), GFP_KERNEL);
	if (!as)
		return -ENOMEM;

	fd = anon_inode_getfd("[skas-aspace]", &skas_aspace_fops, as,
			      O_RDWR | O_CLOEXEC);
	if (fd < 0)
		kfree(as);
	return fd;
}
