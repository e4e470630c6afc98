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

#endif /* _SKAS_COMPAT_H */
