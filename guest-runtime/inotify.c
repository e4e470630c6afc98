// SPDX-License-Identifier: GPL-2.0-only
/*
 * inotify: a host inotify instance of the runtime behind each guest one.
 *
 * The events, their cookies and names (relative to the watched folder),
 * the watch descriptors and the queue limits are the host kernel's.  A
 * watch's path is resolved as every guest path is (inside --root, never
 * into umlrun's own /proc entries) to an O_PATH fd, which the host then
 * watches through /proc/self/fd/N; IN_DONT_FOLLOW is applied to that
 * resolution, so the host follows only the fd's own link.  Reads park
 * the guest task on the host fd (fd.c), never the runtime.  The checks
 * are 6.12's, in its order: the mask, the fd, the instance, the path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "umlrun.h"

/* include/linux/inotify.h's ALL_INOTIFY_BITS. */
#define ALL_INOTIFY_BITS	(IN_ALL_EVENTS | IN_UNMOUNT | IN_Q_OVERFLOW | \
				 IN_IGNORED | IN_ONLYDIR | IN_DONT_FOLLOW | \
				 IN_EXCL_UNLINK | IN_MASK_ADD | \
				 IN_MASK_CREATE | IN_ISDIR | IN_ONESHOT)

long sys_inotify_init1(struct task *t, const uint64_t *a)
{
	int flags = a[0], hfd;
	struct file *f;

	if (flags & ~(IN_CLOEXEC | IN_NONBLOCK))
		return -EINVAL;
	hfd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (hfd < 0)
		return -errno;
	f = file_new(hfd, O_RDONLY | (flags & IN_NONBLOCK));
	if (!f) {
		close(hfd);
		return -ENOMEM;
	}
	f->pollable = f->hostnb = true;
	f->kind = FILE_INOTIFY;
	return fd_install(t, 0, f, flags & IN_CLOEXEC);
}

long sys_inotify_init(struct task *t, const uint64_t *a)
{
	(void)a;
	return sys_inotify_init1(t, (uint64_t[]){ 0 });
}

long sys_inotify_add_watch(struct task *t, const uint64_t *a)
{
	struct file *f;
	uint32_t mask = a[2];
	char path[32];
	int pfd, wd;

	if ((mask & ~ALL_INOTIFY_BITS) || !(mask & ALL_INOTIFY_BITS))
		return -EINVAL;
	f = fd_lookup(t, a[0]);
	if (!f)
		return -EBADF;
	if ((mask & IN_MASK_ADD) && (mask & IN_MASK_CREATE))
		return -EINVAL;
	if (f->kind != FILE_INOTIFY)
		return -EINVAL;
	pfd = path_open_opath(t, a[1], !(mask & IN_DONT_FOLLOW));
	if (pfd < 0)
		return pfd;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
	wd = inotify_add_watch(f->hostfd, path, mask & ~IN_DONT_FOLLOW);
	wd = wd < 0 ? -errno : wd;
	close(pfd);
	return wd;
}

long sys_inotify_rm_watch(struct task *t, const uint64_t *a)
{
	int hfd = fd_host_of(t, a[0], FILE_INOTIFY);

	if (hfd < 0)
		return hfd;
	return inotify_rm_watch(hfd, (int)a[1]) < 0 ? -errno : 0;
}
