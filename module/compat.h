/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel version differences, in one place.  Force-included in every object
 * by Kbuild (-include), driven by SKAS_COMPAT_* macros that Kbuild defines
 * from feature probes of the target kernel's headers.  Core files call the
 * skas_*() wrappers below and never test kernel versions.
 */
#ifndef _SKAS_COMPAT_H
#define _SKAS_COMPAT_H

#include <linux/file.h>
#include <linux/sched/signal.h>

/*
 * skas_dequeue_signal() - dequeue one signal of current, not in @mask.
 * Caller holds current->sighand->siglock.
 */
#ifdef SKAS_COMPAT_DEQUEUE_SIGNAL_TASK
#define skas_dequeue_signal(mask, info, type) \
	dequeue_signal(current, mask, info, type)
#else
#define skas_dequeue_signal(mask, info, type) \
	dequeue_signal(mask, info, type)
#endif

/*
 * skas_receive_fd() - install @file in current's fd table at the lowest
 * free number, after security_file_receive().  Return: the fd or -errno.
 */
#ifdef SKAS_COMPAT_RECEIVE_FD_UFD
#define skas_receive_fd(file, o_flags)	receive_fd(file, NULL, o_flags)
#else
#define skas_receive_fd(file, o_flags)	receive_fd(file, o_flags)
#endif

/*
 * Wake-up flags as try_to_wake_up() and the wait entries' functions get
 * them (kernel/sched/sched.h, internal but stable): WF_SYNC, "the waker
 * goes to sleep", is 0x10 on 6.1 and 6.12; WF_CURRENT_CPU, "run the woken
 * task on this CPU", came in 6.6 as 0x40 (6.12 and 7.3 alike; sched_ext's
 * BPF programs use the same values).  6.1 has no such flag, and its
 * default_wake_function() warns on any flag but WF_SYNC: 0 there.
 */
#define SKAS_WF_SYNC		0x10
#ifdef SKAS_COMPAT_WF_CURRENT_CPU
#define SKAS_WF_CURRENT_CPU	0x40
#else
#define SKAS_WF_CURRENT_CPU	0
#endif

/*
 * The sys_enter probe's RCU read side.  Up to 6.13 a tracepoint calls its
 * probes with preemption disabled, which is an RCU read-side critical
 * section already: the lookup needs no lock of its own, and that probe
 * runs at every syscall of every task.  From 6.14 the syscall tracepoints
 * may fault and call their probes preemptible: take the lock there.
 */
#ifdef SKAS_COMPAT_FAULTABLE_SYSCALL_TP
#define skas_sys_enter_lock()		rcu_read_lock()
#define skas_sys_enter_unlock()		rcu_read_unlock()
#else
#define skas_sys_enter_lock()		lockdep_assert_preemption_disabled()
#define skas_sys_enter_unlock()		do { } while (0)
#endif

#endif /* _SKAS_COMPAT_H */
