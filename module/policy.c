// SPDX-License-Identifier: GPL-2.0
/*
 * The per-address-space syscall policy (SKAS_SET_POLICY) and the safe list
 * of SKAS_POLICY_NATIVE.
 *
 * The table is written by the runtime while guests run and read without a
 * lock by the sys_enter probe: an entry's value is written first and its
 * action last (release); the probe reads the action first (acquire).
 */

#include <linux/fcntl.h>
#include <linux/futex.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/unistd.h>

#include "skas.h"

/* Any arguments: the call only touches the caller's memory, fds, thread. */
static bool skas_native_any(const struct pt_regs *regs)
{
	return true;
}

/*
 * futex: the non-PI commands only.  They act on futex words in the
 * caller's memory (or in memory it shares with whoever mapped the same
 * pages).  The PI commands look owner tasks up by the host tid stored in
 * the word, which the guest could point at any host task: trapped.
 */
static bool skas_native_futex(const struct pt_regs *regs)
{
	switch ((int)regs->si & FUTEX_CMD_MASK) {
	case FUTEX_WAIT:
	case FUTEX_WAKE:
	case FUTEX_WAIT_BITSET:
	case FUTEX_WAKE_BITSET:
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
	case FUTEX_WAKE_OP:
		return true;
	default:
		return false;
	}
}

/*
 * clock_*: the fixed clocks only.  A negative clockid names the CPU clock
 * of another host process by host pid, or a clock device by fd: trapped.
 * The host answers -EINVAL for a positive one it does not know.
 */
static bool skas_native_clock(const struct pt_regs *regs)
{
	return (int)regs->di >= 0;
}

/*
 * newfstatat(fd, "", buf, AT_EMPTY_PATH), glibc's fstat(): an fd, not
 * AT_FDCWD (the guest's cwd is the runtime's to answer: fstat would say
 * EBADF), the flags exactly (both ints to the kernel) and a path that is
 * empty now.  Another thread of the guest could fill the path in before
 * the host reads it, and a path reaches any host file: so the call never
 * runs as itself, but as fstat(fd, buf), which reads no path
 * (skas_native_as_fstat()).  A path not in memory (or NULL) traps.
 */
static bool skas_native_fstatat(const struct pt_regs *regs)
{
	char c;

	return (int)regs->di >= 0 &&
	       (unsigned int)regs->r10 == AT_EMPTY_PATH &&
	       !copy_from_user_nofault(&c, (const char __user *)regs->si, 1) &&
	       !c;
}

/**
 * struct skas_native - an entry of the NATIVE safe list
 * @check: the run-time check of the arguments in the sys_enter probe;
 *         false traps the call as if it were SKAS_POLICY_TRAP
 * @mark:  for a call on the fd in its first argument, the SKAS_FD_MARK_*
 *         of which one is needed with SKAS_POLICY_MARKED; 0 for the others
 */
struct skas_native {
	bool (*check)(const struct pt_regs *regs);
	u32 mark;
};

#define SKAS_MARK_RW	(SKAS_FD_MARK_READ | SKAS_FD_MARK_WRITE)

/*
 * The safe list: the only syscalls SKAS_POLICY_NATIVE accepts, each with
 * why it is confined to the calling task's own memory, its own fds (the
 * guest's fd table holds only what the runtime installed) and its own
 * thread state.  Documentation/design.rst lists what is left off and why.
 */
static const struct skas_native skas_native_safe[SKAS_POLICY_NR] = {
	/* futex words in guest memory; non-PI commands (checked) */
	[__NR_futex]		= { skas_native_futex },
	/* like futex WAIT on several words; no PI variant exists */
	[__NR_futex_waitv]	= { skas_native_any },
	/* reads a clock into guest memory; fixed clocks (checked) */
	[__NR_clock_gettime]	= { skas_native_clock },
	/* clock resolution into guest memory; fixed clocks (checked) */
	[__NR_clock_getres]	= { skas_native_clock },
	/* the time into guest memory (the timezone is global) */
	[__NR_gettimeofday]	= { skas_native_any },
	/* the time, returned and into guest memory */
	[__NR_time]		= { skas_native_any },
	/* sleeps this task; the rest into guest memory */
	[__NR_nanosleep]	= { skas_native_any },
	/* sleeps this task on a fixed clock (checked) */
	[__NR_clock_nanosleep]	= { skas_native_clock },
	/* gives up this task's CPU */
	[__NR_sched_yield]	= { skas_native_any },
	/* random bytes into guest memory */
	[__NR_getrandom]	= { skas_native_any },
	/* this task's CPU and node into guest memory */
	[__NR_getcpu]		= { skas_native_any },
	/* I/O on the guest's own fds into and from guest memory */
	[__NR_read]		= { skas_native_any, SKAS_FD_MARK_READ },
	[__NR_write]		= { skas_native_any, SKAS_FD_MARK_WRITE },
	[__NR_pread64]		= { skas_native_any, SKAS_FD_MARK_READ },
	[__NR_pwrite64]		= { skas_native_any, SKAS_FD_MARK_WRITE },
	[__NR_readv]		= { skas_native_any, SKAS_FD_MARK_READ },
	[__NR_writev]		= { skas_native_any, SKAS_FD_MARK_WRITE },
	[__NR_preadv]		= { skas_native_any, SKAS_FD_MARK_READ },
	[__NR_pwritev]		= { skas_native_any, SKAS_FD_MARK_WRITE },
	/* the file position of a guest fd */
	[__NR_lseek]		= { skas_native_any, SKAS_MARK_RW },
	/* the attributes of a guest fd's file into guest memory */
	[__NR_fstat]		= { skas_native_any, SKAS_MARK_RW },
	/* the same, with an empty path: run as fstat (checked) */
	[__NR_newfstatat]	= { skas_native_fstatat, SKAS_MARK_RW },
};

/*
 * Does the fd in @regs->di carry one of @mark's marks in @t's address
 * space?  The fd is an int to the kernel (fdget(unsigned int)): the upper
 * half of the register is ignored there as here.
 */
static bool skas_fd_marked(const struct skas_thread *t,
			   const struct pt_regs *regs, u32 mark)
{
	unsigned int fd = (unsigned int)regs->di;

	if (t->unmarked || fd >= SKAS_FD_MARK_MAX)
		return false;
	return ((mark & SKAS_FD_MARK_READ) && test_bit(fd, t->as->fd_read)) ||
	       ((mark & SKAS_FD_MARK_WRITE) && test_bit(fd, t->as->fd_write));
}

/**
 * skas_native_ok() - may this 64-bit syscall, set NATIVE, run on the host?
 * @t:     the guest thread making it.
 * @id:    the syscall number, below SKAS_POLICY_NR.
 * @entry: its policy entry's action word.
 * @regs:  the guest's registers at sys_enter.
 *
 * Called by the sys_enter probe, atomic context.
 *
 * Return: true if @id is on the safe list, its arguments pass its check
 * and, with SKAS_POLICY_MARKED, its fd has the mark it needs.
 */
bool skas_native_ok(const struct skas_thread *t, long id, u32 entry,
		    const struct pt_regs *regs)
{
	const struct skas_native *n = &skas_native_safe[id];

	if ((entry & SKAS_ENTRY_MARKED) && !skas_fd_marked(t, regs, n->mark))
		return false;
	return n->check && n->check(regs);
}

/**
 * skas_aspace_mark_fd() - set the marks of one guest fd.
 * @as:    the address space.
 * @fd:    the guest fd; nothing to do at or above SKAS_FD_MARK_MAX.
 * @marks: SKAS_FD_MARK_READ | SKAS_FD_MARK_WRITE, or 0.
 */
void skas_aspace_mark_fd(struct skas_aspace *as, u64 fd, u32 marks)
{
	if (fd >= SKAS_FD_MARK_MAX)
		return;
	if (marks & SKAS_FD_MARK_READ)
		set_bit(fd, as->fd_read);
	else
		clear_bit(fd, as->fd_read);
	if (marks & SKAS_FD_MARK_WRITE)
		set_bit(fd, as->fd_write);
	else
		clear_bit(fd, as->fd_write);
}

/**
 * skas_aspace_unmark_fd() - clear the marks of one guest fd.
 * @as: the address space.
 * @fd: the guest fd.
 */
void skas_aspace_unmark_fd(struct skas_aspace *as, u64 fd)
{
	skas_aspace_mark_fd(as, fd, 0);
}

/**
 * skas_aspace_copy_marks() - give a fork child its parent's fd marks.
 * @to:   the child's address space (not yet visible).
 * @from: the parent's: its host fd table is what the child's copies.
 */
void skas_aspace_copy_marks(struct skas_aspace *to, struct skas_aspace *from)
{
	bitmap_copy(to->fd_read, from->fd_read, SKAS_FD_MARK_MAX);
	bitmap_copy(to->fd_write, from->fd_write, SKAS_FD_MARK_MAX);
}

/**
 * skas_aspace_mark_fds() - SKAS_MARK_FDS.
 * @as:   the address space.
 * @uarg: user pointer to a struct skas_mark_fds.
 *
 * Each bit changes atomically: a guest thread's call on one of the fds
 * sees its marks before or after, never a mix of two fds' states.
 *
 * Return: 0, or -EFAULT, -EINVAL (bad size, reserved, unknown marks, or a
 * range past SKAS_FD_MARK_MAX).
 */
long skas_aspace_mark_fds(struct skas_aspace *as, void __user *uarg)
{
	struct skas_mark_fds args;
	unsigned int fd;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.size != sizeof(args) || (args.marks & ~SKAS_MARK_RW) ||
	    !skas_zeroed(args.reserved, ARRAY_SIZE(args.reserved)) ||
	    args.first > SKAS_FD_MARK_MAX ||
	    args.count > SKAS_FD_MARK_MAX - args.first)
		return -EINVAL;
	for (fd = args.first; fd < args.first + args.count; fd++)
		skas_aspace_mark_fd(as, fd, args.marks);
	return 0;
}

/* The policy table, allocated on first use; NULL if out of memory. */
static struct skas_policy_entry *skas_aspace_policy(struct skas_aspace *as)
{
	struct skas_policy_entry *p;

	mutex_lock(&as->lock);
	p = as->policy;
	if (!p) {
		p = kvcalloc(SKAS_POLICY_NR, sizeof(*p), GFP_KERNEL_ACCOUNT);
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
 * Every action is copied as it is: the child runs in a host mm and fd
 * table of its own, for which the safe list holds just as well.
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

/* -EINVAL for a malformed request, -EPERM for NATIVE off the safe list. */
static int skas_policy_valid(const struct skas_policy *args)
{
	if (args->size != sizeof(*args) ||
	    (args->flags & ~SKAS_POLICY_MARKED) ||
	    !skas_zeroed(args->reserved, ARRAY_SIZE(args->reserved)) ||
	    args->nr >= SKAS_POLICY_NR)
		return -EINVAL;
	/* MARKED: NATIVE calls on an fd only. */
	if ((args->flags & SKAS_POLICY_MARKED) &&
	    (args->action != SKAS_POLICY_NATIVE ||
	     !skas_native_safe[args->nr].mark))
		return -EINVAL;
	switch (args->action) {
	case SKAS_POLICY_CONST:
		return 0;
	case SKAS_POLICY_TRAP:
	case SKAS_POLICY_THREAD:
		return args->value ? -EINVAL : 0;
	case SKAS_POLICY_NATIVE:
		if (args->value)
			return -EINVAL;
		return skas_native_safe[args->nr].check ? 0 : -EPERM;
	default:
		return -EINVAL;
	}
}

/**
 * skas_aspace_set_policy() - SKAS_SET_POLICY.
 * @as:   the address space.
 * @uarg: user pointer to a struct skas_policy.
 *
 * Safe while guests of @as run: they see the old or the new entry.
 *
 * Return: 0, or -EFAULT, -EINVAL (malformed), -EPERM (NATIVE for a syscall
 * not on the safe list), -ENOMEM.
 */
long skas_aspace_set_policy(struct skas_aspace *as, void __user *uarg)
{
	struct skas_policy_entry *p;
	struct skas_policy args;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	ret = skas_policy_valid(&args);
	if (ret)
		return ret;
	p = skas_aspace_policy(as);
	if (!p)
		return -ENOMEM;
	WRITE_ONCE(p[args.nr].value, args.value);
	/* The value first: the probe reads the action with acquire. */
	smp_store_release(&p[args.nr].action,
			  args.action | ((args.flags & SKAS_POLICY_MARKED) ?
					 SKAS_ENTRY_MARKED : 0));
	return 0;
}
