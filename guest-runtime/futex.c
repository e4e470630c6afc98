// SPDX-License-Identifier: GPL-2.0-only
/*
 * Futexes: FUTEX_WAIT and FUTEX_WAKE (and their BITSET forms) per address space.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <time.h>

#include "umlrun.h"

long sys_futex(struct task *t, const uint64_t *a)
{
	int op = a[1] & FUTEX_CMD_MASK, woken;
	struct timespec ts;
	uint32_t val;

	switch (op) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
		if (t->sys_again) {
			if (!t->w.futex)
				return 0;
			if (t->sys_deadline && t->sys_deadline <= now_ns())
				return -ETIMEDOUT;
			return block_until(t, t->sys_deadline);
		}
		t->sys_deadline = 0;
		if (copy_from_guest(t, &val, a[0], 4) < 0)
			return -EFAULT;
		if (val != (uint32_t)a[2])
			return -EAGAIN;
		t->w.futex = a[0];
		if (a[3]) {
			if (copy_from_guest(t, &ts, a[3], sizeof(ts)) < 0)
				return -EFAULT;
			t->sys_deadline = op == FUTEX_WAIT ?
					  ns_after(timespec_ns(&ts)) : timespec_ns(&ts);
		}
		return block_until(t, t->sys_deadline);
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		wake_futex(t->p->as, a[0], (int)a[2], &woken);
		return woken;
	default:
		return -ENOSYS;
	}
}
