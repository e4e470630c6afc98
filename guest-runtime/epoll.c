// SPDX-License-Identifier: GPL-2.0-only
/*
 * epoll: a host epoll instance of the runtime behind each guest one.
 *
 * Every guest fd names a host fd of the runtime (fd.c), so a guest's
 * epoll_ctl is the host's on those fds, with the guest's epoll_data kept
 * as it is: the host's epoll does the work (level and edge triggering,
 * EPOLLONESHOT, EPOLLEXCLUSIVE, nesting, dropping a file when its last
 * descriptor closes) and its events come back with the guest's data.
 * epoll_wait asks the host without waiting, and a guest that must wait
 * parks on the host epoll fd, which polls readable when it has events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "umlrun.h"

#define EPOLL_CHUNK	1024	/* events per host call */

long sys_epoll_create1(struct task *t, const uint64_t *a)
{
	struct file *f;
	int hfd;

	if ((int)a[0] & ~EPOLL_CLOEXEC)
		return -EINVAL;
	hfd = epoll_create1(EPOLL_CLOEXEC);
	if (hfd < 0)
		return -errno;
	f = file_new(hfd, O_RDWR);
	if (!f) {
		close(hfd);
		return -ENOMEM;
	}
	f->pollable = f->hostnb = true;
	f->kind = FILE_EPOLL;
	return fd_install(t, 0, f, (int)a[0] & EPOLL_CLOEXEC);
}

long sys_epoll_create(struct task *t, const uint64_t *a)
{
	if ((int)a[0] <= 0)
		return -EINVAL;
	return sys_epoll_create1(t, (uint64_t[]){ 0 });
}

long sys_epoll_ctl(struct task *t, const uint64_t *a)
{
	struct epoll_event ev = { 0 };
	struct file *ep, *f;
	int op = a[1];

	if (op != EPOLL_CTL_DEL && copy_from_guest(t, &ev, a[3], sizeof(ev)) < 0)
		return -EFAULT;
	ep = fd_lookup(t, a[0]);
	f = fd_lookup(t, a[2]);
	if (!ep || !f)
		return -EBADF;
	if (ep == f || ep->kind != FILE_EPOLL)
		return -EINVAL;
	/* A signalfd is readable at most; its host eventfd is writable. */
	if (f->kind == FILE_SIGNALFD)
		ev.events &= ~(EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND);
	return epoll_ctl(ep->hostfd, op, f->hostfd, &ev) < 0 ? -errno : 0;
}

/* epoll_wait on the deadline already in t->sys_deadline (0: none). */
static long epoll_wait_common(struct task *t, const uint64_t *a, bool poll_only)
{
	int max = a[2], n;
	struct epoll_event *ev;
	struct file *ep;

	if (max <= 0 || max > INT_MAX / (int)sizeof(*ev))
		return -EINVAL;
	ep = fd_lookup(t, a[0]);
	if (!ep)
		return -EBADF;
	if (ep->kind != FILE_EPOLL)
		return -EINVAL;
	if (max > EPOLL_CHUNK)
		max = EPOLL_CHUNK;
	ev = malloc(max * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	n = epoll_wait(ep->hostfd, ev, max, 0);
	if (n < 0)
		n = -errno;
	if (n > 0 && copy_to_guest(t, a[1], ev, n * sizeof(*ev)) < 0)
		n = -EFAULT;	/* the events are lost, as in the kernel */
	free(ev);
	if (n || poll_only || (t->sys_deadline && t->sys_deadline <= now_ns()))
		return n;
	block_on_fd(t, ep->hostfd, POLLIN);
	return t->sys_deadline ? block_until(t, t->sys_deadline) : SYS_BLOCK;
}

/* A millisecond timeout: -1 (or any negative) waits for ever. */
static bool ms_deadline(struct task *t, int ms)
{
	if (!t->sys_again)
		t->sys_deadline = ms > 0 ? now_ns() + ms * 1000000LL + 1 : 0;
	return ms == 0;
}

long sys_epoll_wait(struct task *t, const uint64_t *a)
{
	bool now = ms_deadline(t, a[3]);

	return epoll_wait_common(t, a, now);
}

long sys_epoll_pwait(struct task *t, const uint64_t *a)
{
	bool now = ms_deadline(t, a[3]);
	long r = sig_wait_mask(t, a[4], a[5]);

	if (r == 0)
		r = epoll_wait_common(t, a, now);
	return sig_wait_mask_end(t, r);
}

long sys_epoll_pwait2(struct task *t, const uint64_t *a)
{
	long r = guest_timeout(t, a[3]);

	if (r == 0)
		r = sig_wait_mask(t, a[4], a[5]);
	if (r == 0)
		r = epoll_wait_common(t, a, false);
	return sig_wait_mask_end(t, r);
}
