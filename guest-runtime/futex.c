// SPDX-License-Identifier: GPL-2.0-only
/*
 * Futexes: wait, wake, requeue and wake-op, with bitsets and both clocks,
 * checked in the order kernel/futex/ checks them.  Waiters are the
 * runtime's blocked tasks, keyed as the kernel keys them (futex_key_of():
 * a shared futex in a MAP_SHARED mapping by what is mapped, any other by
 * address space and address); priority-inheritance operations are not
 * provided.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <string.h>
#include <time.h>

#include "umlrun.h"

/*
 * Wake up to @n (at least one, as Linux's FUTEX_WAKE does) tasks waiting
 * on futex @k whose bitset meets @bitset; with @tok, move up to @requeue
 * more of them to wait on @to (key @tok) instead.  Woken plus moved.
 *
 * A waiter is a task whose futex wait has not ended (t->w.futex is set
 * until it does): blocked, or woken by something else (a signal it then
 * ignores) and not yet run again, which would otherwise wait on, having
 * missed this wake-up; the kernel's waiter stays queued likewise.  A
 * woken wait returns 0 even if a signal came too (futex_woken), as the
 * kernel's does: the signal's handler runs after it.
 */
static int futex_walk(const struct futex_key *k, int n, uint32_t bitset,
		      uint64_t to, const struct futex_key *tok, int requeue)
{
	int done = 0, moved = 0;
	struct proc *p;
	struct task *t;

	for (p = procs; p; p = p->next) {
		if (p->state != PROC_ALIVE || (k->as && p->as != k->as))
			continue;
		for (t = p->threads; t; t = t->next_in_proc) {
			if ((t->state != TASK_BLOCKED &&
			     t->state != TASK_SYSCALL) || !t->w.futex ||
			    memcmp(&t->w.fkey, k, sizeof(*k)) ||
			    !(t->w.futex_bitset & bitset))
				continue;
			if (done < n) {
				t->w.futex = 0;
				t->w.futex_woken = true;
				sched_wake(t);
				done++;
			} else if (tok && moved < requeue) {
				t->w.futex = to;
				t->w.fkey = *tok;
				moved++;
			} else {
				return done + moved;
			}
		}
	}
	return done + moved;
}

int futex_wake(const struct futex_key *k, int n, uint32_t bitset)
{
	return futex_walk(k, n > 0 ? n : 1, bitset, 0, NULL, 0);
}

/*
 * get_futex_key()'s checks of a futex word: aligned, in the user part of
 * the address space, and for a shared futex mapped.
 */
static int futex_key(struct task *t, uint64_t uaddr, bool shared)
{
	uint32_t val;

	if (uaddr & 3)
		return -EINVAL;
	if (uaddr >= t->p->mm->top)
		return -EFAULT;
	if (shared && copy_from_guest(t, &val, uaddr, sizeof(val)) < 0)
		return -EFAULT;
	return 0;
}

/* The guest word at @uaddr (-EINVAL unaligned, -EFAULT unreadable). */
static int futex_get(struct task *t, uint64_t uaddr, uint32_t *val)
{
	if (uaddr & 3)
		return -EINVAL;
	return copy_from_guest(t, val, uaddr, sizeof(*val)) < 0 ? -EFAULT : 0;
}

/* FUTEX_WAKE_OP's operation on the word at @uaddr: its comparison or -errno. */
static int futex_op(struct task *t, uint32_t enc, uint64_t uaddr)
{
	unsigned int op = (enc >> 28) & 7, cmp = (enc >> 24) & 15;
	uint32_t oparg = (uint32_t)((int32_t)(enc << 8) >> 20);
	int32_t cmparg = (int32_t)(enc << 20) >> 20;
	uint32_t old, new;
	int r;

	if (enc & ((uint32_t)FUTEX_OP_OPARG_SHIFT << 28))
		oparg = 1u << (oparg & 31);
	/*
	 * The kernel's read-modify-write is atomic; ours is a read and a write
	 * of guest memory, so guest code on other CPUs (of this process or of
	 * one sharing the page) must not run between them.  Rare: glibc's
	 * condition variables stopped using FUTEX_WAKE_OP in 2.25.
	 */
	world_stop();
	r = futex_get(t, uaddr, &old);
	if (r)
		return r;
	switch (op) {
	case FUTEX_OP_SET:
		new = oparg;
		break;
	case FUTEX_OP_ADD:
		new = old + oparg;
		break;
	case FUTEX_OP_OR:
		new = old | oparg;
		break;
	case FUTEX_OP_ANDN:
		new = old & ~oparg;
		break;
	case FUTEX_OP_XOR:
		new = old ^ oparg;
		break;
	default:
		return -ENOSYS;
	}
	if (copy_to_guest(t, uaddr, &new, sizeof(new)) < 0)
		return -EFAULT;
	switch (cmp) {
	case FUTEX_OP_CMP_EQ:
		return (int32_t)old == cmparg;
	case FUTEX_OP_CMP_NE:
		return (int32_t)old != cmparg;
	case FUTEX_OP_CMP_LT:
		return (int32_t)old < cmparg;
	case FUTEX_OP_CMP_GE:
		return (int32_t)old >= cmparg;
	case FUTEX_OP_CMP_LE:
		return (int32_t)old <= cmparg;
	case FUTEX_OP_CMP_GT:
		return (int32_t)old > cmparg;
	default:
		return -ENOSYS;
	}
}

/* A wait's deadline (CLOCK_MONOTONIC ns, 0 none) from guest @uts. */
static int futex_deadline(struct task *t, int op, bool realtime, uint64_t uts)
{
	struct timespec ts, rt;
	int r;

	t->sys_deadline = 0;
	if (!uts)
		return 0;
	r = timespec_from_guest(t, uts, &ts);
	if (r)
		return r;
	if (op == FUTEX_WAIT) {
		/* Relative, whatever the clock; a zero timeout is past. */
		t->sys_deadline = ns_after(timespec_ns(&ts));
	} else if (realtime) {
		clock_gettime(CLOCK_REALTIME, &rt);
		t->sys_deadline = ns_sat((__int128)timespec_ns(&ts) -
					 timespec_ns(&rt) + now_ns());
	} else {
		t->sys_deadline = timespec_ns(&ts);
	}
	if (t->sys_deadline <= 0)
		t->sys_deadline = 1;	/* already past, never "none" */
	return 0;
}

static long futex_wait(struct task *t, const uint64_t *a, int op,
		       bool realtime, uint32_t bitset)
{
	uint32_t val;
	int r;

	if (t->sys_again) {
		if (!t->w.futex)
			return 0;
		if (t->sys_deadline && t->sys_deadline <= now_ns())
			return -ETIMEDOUT;
		return block_until(t, t->sys_deadline);
	}
	r = futex_deadline(t, op, realtime, a[3]);
	if (r)
		return r;
	if (realtime && op == FUTEX_WAIT)
		return -ENOSYS;
	if (!bitset)
		return -EINVAL;
	r = futex_get(t, a[0], &val);
	if (r)
		return r;
	if (val != (uint32_t)a[2])
		return -EAGAIN;
	if (t->sys_deadline && t->sys_deadline <= now_ns())
		return -ETIMEDOUT;
	t->w.futex = a[0];
	t->w.futex_bitset = bitset;
	futex_key_of(t, a[0], !(a[1] & FUTEX_PRIVATE_FLAG), &t->w.fkey);
	return block_until(t, t->sys_deadline);
}

long sys_futex(struct task *t, const uint64_t *a)
{
	int op = a[1] & FUTEX_CMD_MASK, n = (int)a[2], n2 = (int)a[3];
	bool realtime = a[1] & FUTEX_CLOCK_REALTIME;
	bool shared = !(a[1] & FUTEX_PRIVATE_FLAG);
	struct futex_key k, k2;
	uint32_t val;
	int r;

	/* A wait reads its timeout before anything else, as Linux does. */
	if (op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET)
		return futex_wait(t, a, op, realtime,
				  op == FUTEX_WAIT ? FUTEX_BITSET_MATCH_ANY :
						     (uint32_t)a[5]);
	if (realtime)
		return -ENOSYS;
	switch (op) {
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		val = op == FUTEX_WAKE ? FUTEX_BITSET_MATCH_ANY : (uint32_t)a[5];
		if (!val)
			return -EINVAL;
		r = futex_key(t, a[0], shared);
		if (r)
			return r;
		futex_key_of(t, a[0], shared, &k);
		return futex_wake(&k, n, val);
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
		if (n < 0 || n2 < 0)
			return -EINVAL;
		r = futex_key(t, a[0], shared);
		if (!r)
			r = futex_key(t, a[4], shared);
		if (r)
			return r;
		if (op == FUTEX_CMP_REQUEUE) {
			r = futex_get(t, a[0], &val);
			if (r)
				return r;
			if (val != (uint32_t)a[5])
				return -EAGAIN;
		}
		futex_key_of(t, a[0], shared, &k);
		futex_key_of(t, a[4], shared, &k2);
		return futex_walk(&k, n, FUTEX_BITSET_MATCH_ANY, a[4], &k2, n2);
	case FUTEX_WAKE_OP:
		r = futex_key(t, a[0], shared);
		if (!r)
			r = futex_key(t, a[4], shared);
		if (r)
			return r;
		r = futex_op(t, a[5], a[4]);
		if (r < 0)
			return r;
		futex_key_of(t, a[0], shared, &k);
		n = futex_wake(&k, n, FUTEX_BITSET_MATCH_ANY);
		if (r) {
			futex_key_of(t, a[4], shared, &k2);
			n += futex_wake(&k2, n2, FUTEX_BITSET_MATCH_ANY);
		}
		return n;
	default:
		return -ENOSYS;
	}
}
