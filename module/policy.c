// SPDX-License-Identifier: GPL-2.0
/*
 * The per-address-space syscall policy (SKAS_SET_POLICY).
 *
 * The table is written by the runtime while guests run and read without a
 * lock by the sys_enter probe: an entry's value is written first and its
 * action last (release); the probe reads the action first (acquire).
 */

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "skas.h"

/* The policy table, allocated on first use; NULL if out of memory. */
static struct skas_policy_entry *skas_aspace_policy(struct skas_aspace *as)
{
	struct skas_policy_entry *p;

	mutex_lock(&as->lock);
	p = as->policy;
	if (!p) {
		p = kvcalloc(SKAS_POLICY_NR, sizeof(*p), GFP_KERNEL);
		/* Probes read the pointer without the lock. */
		smp_store_release(&as->policy, p);
	}
	mutex_unlock(&as->lock);
	return p;
}

/**
 * skas_aspace_copy_policy() - give a fork child its parent's policy.
 * @to:   the child's address space (not yet visible).
 * @from: the parent's.
 *
 * Return: 0 or -ENOMEM.
 */
int skas_aspace_copy_policy(struct skas_aspace *to, struct skas_aspace *from)
{
	struct skas_policy_entry *p;
	unsigned int i;

	/* Pairs with the release in skas_aspace_policy(). */
	if (!smp_load_acquire(&from->policy))
		return 0;
	p = skas_aspace_policy(to);
	if (!p)
		return -ENOMEM;
	for (i = 0; i < SKAS_POLICY_NR; i++) {
		p[i].value = READ_ONCE(from->policy[i].value);
		p[i].action = READ_ONCE(from->policy[i].action);
	}
	return 0;
}

/**
 * skas_aspace_set_policy() - SKAS_SET_POLICY.
 * @as:   the address space.
 * @uarg: user pointer to a struct skas_policy.
 *
 * Return: 0, or -EFAULT, -EINVAL, -ENOMEM.
 */
long skas_aspace_set_policy(struct skas_aspace *as, void __user *uarg)
{
	struct skas_policy_entry *p;
	struct skas_policy args;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.size != sizeof(args) || args.flags ||
	    !skas_zeroed(args.reserved, ARRAY_SIZE(args.reserved)) ||
	    args.nr >= SKAS_POLICY_NR ||
	    (args.action != SKAS_POLICY_TRAP &&
	     args.action != SKAS_POLICY_CONST) ||
	    (args.action == SKAS_POLICY_TRAP && args.value))
		return -EINVAL;
	p = skas_aspace_policy(as);
	if (!p)
		return -ENOMEM;
	WRITE_ONCE(p[args.nr].value, args.value);
	/* The value first: the probe reads the action with acquire. */
	smp_store_release(&p[args.nr].action, args.action);
	return 0;
}
