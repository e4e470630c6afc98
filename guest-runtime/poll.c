// SPDX-License-Identifier: GPL-2.0-only
/*
 * poll, ppoll, select and pselect6 over guest fds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/select.h>
#include <time.h>

#include "umlrun.h"

/* Map guest pollfds to host ones; poll once; block if nothing is ready. */
static long do_poll(struct task *t, struct pollfd *g, int n, int64_t deadline)
{
	struct pollfd *h = calloc(n + 1, sizeof(*h));
	int i, ready;

	if (!h)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct file *f = g[i].fd >= 0 ? fd_lookup(t, g[i].fd) : NULL;

		h[i].fd = f ? f->hostfd : -1;
		h[i].events = g[i].events;
		if (f && f->kind == FILE_SIGNALFD)	/* readable at most */
			h[i].events &= POLLIN | POLLRDNORM;
	}
	ready = poll(h, n, 0);
	for (i = 0; i < n; i++) {
		g[i].revents = h[i].revents;
		if (g[i].fd >= 0 && !fd_lookup(t, g[i].fd))
			g[i].revents = POLLNVAL;
	}
	for (i = 0, ready = 0; i < n; i++)
		ready += g[i].revents != 0;
	if (ready || (deadline && deadline <= now_ns())) {
		free(h);
		return ready;
	}
	for (i = 0; i < n; i++)
		if (h[i].fd >= 0)
			block_on_fd(t, h[i].fd, h[i].events | POLLHUP | POLLERR);
	free(h);
	return deadline ? block_until(t, deadline) : SYS_BLOCK;
}

static long poll_common(struct task *t, uint64_t ufds, unsigned int nfds)
{
	int n = nfds;
	struct pollfd *g;
	long r;

	if (nfds > 1024)	/* RLIMIT_NOFILE, as the guest sees it */
		return -EINVAL;
	g = calloc(n + 1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	r = copy_from_guest(t, g, ufds, n * sizeof(*g));
	if (r == 0)
		r = do_poll(t, g, n, t->sys_deadline);
	if (r >= 0 && copy_to_guest(t, ufds, g, n * sizeof(*g)) < 0)
		r = -EFAULT;
	free(g);
	return r;
}

long sys_poll(struct task *t, const uint64_t *a)
{
	if (!t->sys_again)
		t->sys_deadline = (int)a[2] < 0 ? 0 : now_ns() + (int64_t)(int)a[2] * 1000000 + 1;
	return poll_common(t, a[0], a[1]);
}

long sys_ppoll(struct task *t, const uint64_t *a)
{
	long r = guest_timeout(t, a[2]);

	if (r == 0)
		r = sig_wait_mask(t, a[3], a[4]);
	if (r == 0)
		r = poll_common(t, a[0], a[1]);
	return sig_wait_mask_end(t, r);
}

/* select on the deadline already in t->sys_deadline (0: none). */
static long select_common(struct task *t, int nfds, const uint64_t *u)
{
	fd_set sets[3];
	struct pollfd g[FD_SETSIZE];
	int i, k, n = 0;
	long r;

	if (nfds < 0)
		return -EINVAL;
	if (nfds > FD_SETSIZE)
		nfds = FD_SETSIZE;	/* the kernel clamps to its table, too */
	for (k = 0; k < 3; k++) {
		FD_ZERO(&sets[k]);
		if (u[k] && copy_from_guest(t, &sets[k], u[k], (nfds + 7) / 8) < 0)
			return -EFAULT;
	}
	for (i = 0; i < nfds; i++) {
		short ev = (FD_ISSET(i, &sets[0]) ? POLLIN : 0) |
			   (FD_ISSET(i, &sets[1]) ? POLLOUT : 0) |
			   (FD_ISSET(i, &sets[2]) ? POLLPRI : 0);

		if (!ev)
			continue;
		if (!fd_lookup(t, i))
			return -EBADF;
		g[n].fd = i;
		g[n++].events = ev;
	}
	r = do_poll(t, g, n, t->sys_deadline);
	if (r < 0)
		return r;
	for (k = 0; k < 3; k++)
		FD_ZERO(&sets[k]);
	for (i = 0, r = 0; i < n; i++) {
		short re = g[i].revents;

		if ((g[i].events & POLLIN) && (re & (POLLIN | POLLHUP | POLLERR)))
			FD_SET(g[i].fd, &sets[0]), r++;
		if ((g[i].events & POLLOUT) && (re & (POLLOUT | POLLERR)))
			FD_SET(g[i].fd, &sets[1]), r++;
		if ((g[i].events & POLLPRI) && (re & POLLPRI))
			FD_SET(g[i].fd, &sets[2]), r++;
	}
	for (k = 0; k < 3; k++)
		if (u[k] && copy_to_guest(t, u[k], &sets[k], (nfds + 7) / 8) < 0)
			return -EFAULT;
	return r;
}

long sys_select(struct task *t, const uint64_t *a)
{
	struct timeval tv;

	if (!t->sys_again) {
		t->sys_deadline = 0;
		if (a[4]) {
			if (copy_from_guest(t, &tv, a[4], sizeof(tv)) < 0)
				return -EFAULT;
			if (tv.tv_sec < 0 || tv.tv_usec < 0)
				return -EINVAL;
			t->sys_deadline = ns_sat((__int128)now_ns() +
						 timeval_ns(&tv) + 1);
			t->sys_tmo_read = true;
		}
	}
	return select_common(t, a[0], a + 1);
}

long sys_pselect6(struct task *t, const uint64_t *a)
{
	uint64_t sig[2] = { 0, 0 };	/* { const sigset_t *ss; size_t len } */
	long r = guest_timeout(t, a[4]);

	if (r == 0 && !t->sys_again && a[5] &&
	    copy_from_guest(t, sig, a[5], sizeof(sig)) < 0)
		r = -EFAULT;
	if (r == 0)
		r = sig_wait_mask(t, sig[0], sig[1]);
	if (r == 0)
		r = select_common(t, a[0], a + 1);
	return sig_wait_mask_end(t, r);
}

#define STICKY_TIMEOUTS	0x4000000

/*
 * poll_select_finish(): select, pselect6 and ppoll (SC_TMO_* in their
 * table flags) write the time left back to the timeout they read, when
 * they end, whatever their result (a signal's EINTR, an error after the
 * timeout was read); a write that faults is not an error, and a
 * STICKY_TIMEOUTS personality keeps the timeout as it was.  Called by
 * the dispatcher (syscall.c) with the call's arguments and result.
 */
long poll_time_left(struct task *t, unsigned int flags, const uint64_t *a,
		    long ret)
{
	uint64_t p = a[SC_TMO_ARGOF(flags)];
	int64_t left;

	if (!(flags & (SC_TMO_TV | SC_TMO_TS)) || !t->sys_tmo_read || !p ||
	    (t->personality & STICKY_TIMEOUTS))
		return ret;
	left = t->sys_deadline - 1 - now_ns();
	if (left < 0)
		left = 0;
	if (flags & SC_TMO_TV) {
		struct timeval tv = { left / 1000000000,
				      left % 1000000000 / 1000 };

		copy_to_guest(t, p, &tv, sizeof(tv));
	} else {
		struct timespec ts = { left / 1000000000,
				       left % 1000000000 };

		copy_to_guest(t, p, &ts, sizeof(ts));
	}
	return ret;
}
