// SPDX-License-Identifier: GPL-2.0-only
/*
 * membarrier (kernel/sched/membarrier.c): the kernel's commands, flags,
 * registrations (per address space: kept over fork, cleared by exec) and
 * errors.  A barrier stops the world (smp.c): every guest thread running
 * on another worker is kicked into the host kernel and waits there until
 * the call returns, which orders its memory accesses and serializes its
 * core as the kernel's IPIs do; the ones not running enter the host
 * kernel before they run again.  PRIVATE commands stop the world only if
 * a thread of the caller's address space runs elsewhere, and with one
 * runtime thread (--cpus=1) nothing else runs at all.  The rseq commands
 * are EINVAL, as on a kernel without CONFIG_RSEQ: the guest has no rseq.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "umlrun.h"

/* membarrier_state's bits, one per registration. */
#define REG_GLOBAL	0x1
#define REG_PRIVATE	0x2
#define REG_SYNC_CORE	0x4

/* 6.3's, not in every uapi header */
#define CMD_GET_REGISTRATIONS	(1 << 9)
#define CMD_RSEQ	(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ | \
			 MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ)

/* QUERY's answer: the host's commands (nohz_full drops GLOBAL; 6.1 has no
 * GET_REGISTRATIONS), less rseq's. */
static long query_mask(void)
{
	static long mask = -1;

	if (mask < 0) {
		mask = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
		if (mask < 0)
			mask = errno == ENOSYS ? -ENOSYS : MEMBARRIER_CMD_GLOBAL;
		else
			mask &= ~(long)CMD_RSEQ;
	}
	return mask;
}

long sys_membarrier(struct task *t, const uint64_t *a)
{
	int cmd = (int)a[0];
	unsigned int flags = (unsigned int)a[1];
	struct mm *mm = t->p->mm;
	long r = 0;

	if (query_mask() == -ENOSYS)
		return -ENOSYS;	/* a host without CONFIG_MEMBARRIER: nor the guest */

	if (cmd == MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) {
		if (flags && flags != MEMBARRIER_CMD_FLAG_CPU)
			return -EINVAL;
	} else if (flags) {
		return -EINVAL;
	}
	if (cmd != MEMBARRIER_CMD_QUERY && cmd > 0 && (cmd & (cmd - 1)) == 0 &&
	    !(query_mask() & cmd) && !(cmd & CMD_RSEQ))
		return -EINVAL;		/* a command the host lacks */
	switch (cmd) {
	case MEMBARRIER_CMD_QUERY:
		return query_mask();
	case MEMBARRIER_CMD_GLOBAL:
	case MEMBARRIER_CMD_GLOBAL_EXPEDITED:
		world_stop();
		return 0;
	case MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED:
		mm->membarrier |= REG_GLOBAL;
		return 0;
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED:
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE:
		if (!(mm->membarrier & (cmd == MEMBARRIER_CMD_PRIVATE_EXPEDITED ?
					REG_PRIVATE : REG_SYNC_CORE)))
			return -EPERM;
		world_stop_for(t->p);
		return 0;
	case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED:
		mm->membarrier |= REG_PRIVATE;
		return 0;
	case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE:
		mm->membarrier |= REG_SYNC_CORE;
		return 0;
	case CMD_GET_REGISTRATIONS:
		if (mm->membarrier & REG_GLOBAL)
			r |= MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED;
		if (mm->membarrier & REG_PRIVATE)
			r |= MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED;
		if (mm->membarrier & REG_SYNC_CORE)
			r |= MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE;
		return r;
	default:
		return -EINVAL;		/* the rseq ones among them */
	}
}
