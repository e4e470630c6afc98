// SPDX-License-Identifier: GPL-2.0-only
/*
 * Capabilities: capget, capset and prctl's capability calls.
 *
 * The guest's ids are the host's (identity.c: one user), so its capabilities
 * follow the kernel's rules for those ids without file capabilities:
 * a root guest holds every capability the host kernel knows (up to
 * /proc/sys/kernel/cap_last_cap), any other none, and each thread may
 * drop some with capset, keep them across exec only as the kernel does
 * for root (cap_bprm_creds_from_file()).  Holding one gives the guest no
 * power over the host: the runtime still refuses what it refuses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "umlrun.h"

/* Every capability the host kernel has. */
static uint64_t cap_all(void)
{
	static uint64_t all;
	FILE *f;
	int last = 40;	/* CAP_CHECKPOINT_RESTORE, 5.9 to at least 6.12 */

	if (all)
		return all;
	f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	if (f) {
		if (fscanf(f, "%d", &last) != 1 || last < 0 || last > 63)
			last = 40;
		fclose(f);
	}
	all = last == 63 ? ~0ULL : (1ULL << (last + 1)) - 1;
	return all;
}

static bool cap_known(uint64_t cap)
{
	return cap < 64 && (cap_all() & (1ULL << cap));
}

/*
 * The first guest thread: what a process of the host's ids starts with,
 * within the runtime's own bounding set; a root guest has the runtime's
 * own permitted and effective sets (a container's root may lack some:
 * the guest must not believe it holds them).
 */
void cred_init(struct task *t)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = { 0 };
	uint64_t cap;

	t->cap_bset = 0;
	for (cap = 0; cap < 64; cap++)
		if (cap_known(cap) && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1)
			t->cap_bset |= 1ULL << cap;
	t->cap_inh = t->cap_amb = 0;
	t->cap_prm = t->cap_eff = 0;
	if (host_euid == 0 && syscall(SYS_capget, &hdr, d) == 0) {
		t->cap_prm = ((uint64_t)d[1].permitted << 32 | d[0].permitted) &
			     cap_all();
		t->cap_eff = ((uint64_t)d[1].effective << 32 | d[0].effective) &
			     cap_all();
	}
}

/* fork and clone: the child thread has its creator's sets. */
void cred_inherit(struct task *c, const struct task *t)
{
	c->cap_eff = t->cap_eff;
	c->cap_prm = t->cap_prm;
	c->cap_inh = t->cap_inh;
	c->cap_bset = t->cap_bset;
	c->cap_amb = t->cap_amb;
}

/*
 * execve of a file without capabilities: root gets the bounding set (and
 * its effective set), anyone else keeps the ambient set only.
 */
void cred_exec(struct task *t)
{
	t->securebits &= ~SECBIT_KEEP_CAPS;	/* cap_bprm_creds_from_file() */
	if (host_euid == 0 || host_uid == 0) {
		t->cap_prm = t->cap_bset | t->cap_inh;
		t->cap_eff = host_euid == 0 ? t->cap_prm : 0;
		t->cap_amb = 0;
	} else {
		t->cap_prm = t->cap_eff = t->cap_amb;
	}
}

/* The header's version: how many data structs it means, or -EINVAL. */
static int cap_version(struct task *t, uint64_t uhdr, int *n)
{
	uint32_t v;

	if (copy_from_guest(t, &v, uhdr, 4) < 0)
		return -EFAULT;
	switch (v) {
	case _LINUX_CAPABILITY_VERSION_1:
		*n = 1;
		return 0;
	case _LINUX_CAPABILITY_VERSION_2:
	case _LINUX_CAPABILITY_VERSION_3:
		*n = 2;
		return 0;
	}
	v = _LINUX_CAPABILITY_VERSION_3;
	return copy_to_guest(t, uhdr, &v, 4) < 0 ? -EFAULT : -EINVAL;
}

long sys_capget(struct task *t, const uint64_t *a)
{
	struct __user_cap_data_struct d[2];
	struct task *o;
	int n, r, pid;

	r = cap_version(t, a[0], &n);
	if (!a[1])	/* a probe for the version */
		return r == -EINVAL ? 0 : r;
	if (r < 0)
		return r;
	if (copy_from_guest(t, &pid, a[0] + 4, 4) < 0)
		return -EFAULT;
	if (pid < 0)
		return -EINVAL;
	o = pid ? task_by_tid(pid) : t;
	if (!o)
		return -ESRCH;
	d[0].effective = o->cap_eff;
	d[0].permitted = o->cap_prm;
	d[0].inheritable = o->cap_inh;
	d[1].effective = o->cap_eff >> 32;
	d[1].permitted = o->cap_prm >> 32;
	d[1].inheritable = o->cap_inh >> 32;
	return copy_to_guest(t, a[1], d, n * sizeof(d[0])) < 0 ? -EFAULT : 0;
}

static bool subset(uint64_t a, uint64_t b)
{
	return !(a & ~b);
}

long sys_capset(struct task *t, const uint64_t *a)
{
	struct __user_cap_data_struct d[2] = { { 0 } };
	uint64_t eff, prm, inh;
	int n, r, pid;

	r = cap_version(t, a[0], &n);
	if (r < 0)
		return r;
	if (copy_from_guest(t, &pid, a[0] + 4, 4) < 0)
		return -EFAULT;
	if (pid != 0 && pid != t->tid)
		return -EPERM;
	if (copy_from_guest(t, d, a[1], n * sizeof(d[0])) < 0)
		return -EFAULT;
	eff = d[0].effective | (uint64_t)d[1].effective << 32;
	prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	/* cap_capset()'s rules, in its order. */
	if (!(t->cap_eff & (1ULL << CAP_SETPCAP)) &&
	    !subset(inh, t->cap_inh | t->cap_prm))
		return -EPERM;
	if (!subset(inh, t->cap_inh | t->cap_bset))
		return -EPERM;
	if (!subset(prm, t->cap_prm) || !subset(eff, prm))
		return -EPERM;
	t->cap_eff = eff;
	t->cap_prm = prm;
	t->cap_inh = inh;
	t->cap_amb &= prm & inh;
	return 0;
}

/*
 * PR_SET_SECUREBITS as cap_task_prctl(): EPERM for a locked bit changed,
 * a lock undone, a bit the kernel does not know, or without CAP_SETPCAP.
 * Of the bits only keepcaps and SECBIT_NO_CAP_AMBIENT_RAISE act here: the
 * ids never change, so the setuid fixups and SECBIT_NOROOT have nothing
 * to do.
 */
static long set_securebits(struct task *t, uint64_t bits)
{
	uint64_t old = t->securebits;

	if ((((old & SECURE_ALL_LOCKS) >> 1) & (old ^ bits)) ||
	    (old & SECURE_ALL_LOCKS & ~bits) ||
	    (bits & ~(uint64_t)(SECURE_ALL_LOCKS | SECURE_ALL_BITS)) ||
	    !(t->cap_eff & (1ULL << CAP_SETPCAP)))
		return -EPERM;
	t->securebits = bits;
	return 0;
}

/*
 * PR_CAPBSET_*, PR_CAP_AMBIENT, the securebits and keepcaps; -ENOSYS if @a
 * is not one of them.
 */
long cred_prctl(struct task *t, const uint64_t *a)
{
	uint64_t bit = a[1] < 64 ? 1ULL << a[1] : 0;

	switch (a[0]) {
	case PR_GET_SECUREBITS:
		return t->securebits;
	case PR_SET_SECUREBITS:
		return set_securebits(t, a[1]);
	case PR_GET_KEEPCAPS:
		return !!(t->securebits & SECBIT_KEEP_CAPS);
	case PR_SET_KEEPCAPS:
		if (a[1] > 1)
			return -EINVAL;
		if (t->securebits & SECBIT_KEEP_CAPS_LOCKED)
			return -EPERM;
		if (a[1])
			t->securebits |= SECBIT_KEEP_CAPS;
		else
			t->securebits &= ~SECBIT_KEEP_CAPS;
		return 0;
	case PR_CAPBSET_READ:
		return cap_known(a[1]) ? !!(t->cap_bset & bit) : -EINVAL;
	case PR_CAPBSET_DROP:
		if (!(t->cap_eff & (1ULL << CAP_SETPCAP)))
			return -EPERM;
		if (!cap_known(a[1]))
			return -EINVAL;
		t->cap_bset &= ~bit;
		return 0;
	case PR_CAP_AMBIENT:
		if (a[3] || a[4])
			return -EINVAL;
		if (a[1] == PR_CAP_AMBIENT_CLEAR_ALL) {
			if (a[2])
				return -EINVAL;
			t->cap_amb = 0;
			return 0;
		}
		if (!cap_known(a[2]))
			return -EINVAL;
		bit = 1ULL << a[2];
		switch (a[1]) {
		case PR_CAP_AMBIENT_IS_SET:
			return !!(t->cap_amb & bit);
		case PR_CAP_AMBIENT_RAISE:
			if (!(t->cap_prm & bit) || !(t->cap_inh & bit) ||
			    (t->securebits & SECBIT_NO_CAP_AMBIENT_RAISE))
				return -EPERM;
			t->cap_amb |= bit;
			return 0;
		case PR_CAP_AMBIENT_LOWER:
			t->cap_amb &= ~bit;
			return 0;
		}
		return -EINVAL;
	}
	return -ENOSYS;
}
