// SPDX-License-Identifier: GPL-2.0-only
/*
 * eventfd and timerfd: host objects of the runtime behind guest fds.
 *
 * Their semantics (counters, EFD_SEMAPHORE, clocks, ABSTIME, overruns)
 * are the host kernel's own: the runtime creates them non-blocking and
 * close-on-exec, the guest's O_NONBLOCK lives in its struct file, and a
 * read or write that would block parks the guest task on the host fd
 * (fd.c), never the runtime.  The guest's clocks are the host's, so a
 * timer set by the guest fires when the guest expects it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "umlrun.h"

/* A guest fd for the new host object @hfd (-errno passes through). */
static long install_anon(struct task *t, int hfd, int nonblock, int cloexec,
			 enum file_kind kind)
{
	struct file *f;

	if (hfd < 0)
		return -errno;
	f = file_new(hfd, O_RDWR | (nonblock ? O_NONBLOCK : 0));
	if (!f) {
		close(hfd);
		return -ENOMEM;
	}
	f->pollable = f->hostnb = true;
	f->kind = kind;
	return fd_install(t, 0, f, cloexec);
}

long sys_eventfd2(struct task *t, const uint64_t *a)
{
	int flags = a[1];

	if (flags & ~(EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE))
		return -EINVAL;
	return install_anon(t, eventfd((unsigned int)a[0],
				       (flags & EFD_SEMAPHORE) | EFD_NONBLOCK |
				       EFD_CLOEXEC),
			    flags & EFD_NONBLOCK, flags & EFD_CLOEXEC,
			    FILE_EVENTFD);
}

long sys_eventfd(struct task *t, const uint64_t *a)
{
	return sys_eventfd2(t, (uint64_t[]){ a[0], 0 });
}

long sys_timerfd_create(struct task *t, const uint64_t *a)
{
	int flags = a[1];

	if (flags & ~(TFD_CLOEXEC | TFD_NONBLOCK))
		return -EINVAL;
	return install_anon(t, timerfd_create((int)a[0], TFD_NONBLOCK |
					      TFD_CLOEXEC),
			    flags & TFD_NONBLOCK, flags & TFD_CLOEXEC,
			    FILE_TIMERFD);
}


long sys_timerfd_settime(struct task *t, const uint64_t *a)
{
	struct itimerspec new, old;
	int hfd;

	if (copy_from_guest(t, &new, a[2], sizeof(new)) < 0)
		return -EFAULT;
	hfd = fd_host_of(t, a[0], FILE_TIMERFD);
	if (hfd < 0)
		return hfd;
	if (timerfd_settime(hfd, (int)a[1], &new, &old) < 0)
		return -errno;
	if (a[3] && copy_to_guest(t, a[3], &old, sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

/*
 * A blocking read of timerfd @f: wait for its host fd, and until its
 * expiry too, so the runtime wakes the reader then even while other
 * guests run (it polls host fds only between their slices).
 */
long timerfd_block(struct task *t, struct file *f)
{
	struct itimerspec cur;
	long r = block_on_fd(t, f->hostfd, POLLIN);

	if (r == SYS_BLOCK && timerfd_gettime(f->hostfd, &cur) == 0 &&
	    (cur.it_value.tv_sec || cur.it_value.tv_nsec))
		block_until(t, ns_after(timespec_ns(&cur.it_value)));
	return r;
}

long sys_timerfd_gettime(struct task *t, const uint64_t *a)
{
	struct itimerspec cur;
	int hfd = fd_host_of(t, a[0], FILE_TIMERFD);

	if (hfd < 0)
		return hfd;
	if (timerfd_gettime(hfd, &cur) < 0)
		return -errno;
	return copy_to_guest(t, a[1], &cur, sizeof(cur)) < 0 ? -EFAULT : 0;
}
