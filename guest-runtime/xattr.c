// SPDX-License-Identifier: GPL-2.0-only
/*
 * Extended attributes of host files: get, set, list and remove, each in
 * its path, l (no final symlink) and f (fd) form.
 *
 * The runtime copies the guest's arguments as fs/xattr.c copies them, in
 * its order (the name first for set, the path first for the others; a
 * name empty or of 256 bytes and more ERANGE, a value past 64 KiB E2BIG,
 * unknown flags EINVAL), then makes the host's call on the host file:
 * an fd's host fd, or a path resolved inside --root as every path
 * syscall (fs.c) and named as /proc/self/fd/N of its O_PATH fd, so that
 * the host kernel checks the namespace, the file type and the
 * permissions as it checks its own.  The runtime's ids are the guest's,
 * so the host grants the guest nothing the runtime's user lacks; a
 * guest that dropped CAP_SYS_ADMIN sees no trusted.* attributes and
 * cannot change them or security.*, as the kernel's xattr_permission()
 * rules it.  Changing needs --rw on a file, directory or symlink, as any
 * change does (EROFS).  The files the runtime makes for /proc answer as
 * procfs: EOPNOTSUPP, and an empty list.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "umlrun.h"

#define XATTR_NAME_MAX_	255
#define XATTR_SIZE_MAX_	65536
#define XATTR_LIST_MAX_	65536
#define CAP_SYS_ADMIN_BIT 21

/* The host file of a call: a path's O_PATH fd (owned) or a guest fd's. */
struct xfile {
	int fd;
	bool owned;
	bool synth;
	char path[32];		/* /proc/self/fd/N for a path */
};

static int xfile_path(struct task *t, uint64_t upath, bool follow,
		      struct xfile *x)
{
	int fd = path_open_opath(t, upath, follow);

	if (fd < 0)
		return fd;
	x->fd = fd;
	x->owned = true;
	x->synth = false;
	snprintf(x->path, sizeof(x->path), "/proc/self/fd/%d", fd);
	return 0;
}

static int xfile_fd(struct task *t, unsigned int gfd, struct xfile *x)
{
	struct file *f = fd_lookup(t, gfd);

	if (!f)
		return -EBADF;
	x->fd = f->hostfd;
	x->owned = false;
	x->synth = f->synth;
	x->path[0] = 0;
	return 0;
}

static void xfile_put(struct xfile *x)
{
	if (x->owned)
		close(x->fd);
}

/* As the kernel's import of a name: EFAULT, or ERANGE for "" and >= 256. */
static int name_in(struct task *t, uint64_t uname, char *name)
{
	int r = strncpy_from_guest(t, name, uname, XATTR_NAME_MAX_ + 1);

	if (r == -EFAULT)
		return r;
	return r <= 0 ? -ERANGE : 0;
}

static bool admin(struct task *t)
{
	return t->cap_eff & (1ULL << CAP_SYS_ADMIN_BIT);
}

/* xattr_permission()'s rules that the runtime's own powers would skip. */
static int may_touch(struct task *t, const char *name, bool write)
{
	if (strncmp(name, "trusted.", 8) == 0 && !admin(t))
		return write ? -EPERM : -ENODATA;
	if (write && strncmp(name, "security.", 9) == 0 && !admin(t))
		return -EPERM;
	return 0;
}

/* A change needs --rw, on anything but a device, FIFO or socket. */
static int may_change(const struct xfile *x)
{
	struct stat st;

	if (opt.rw || fstat(x->fd, &st) < 0)
		return 0;
	return S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
	       S_ISLNK(st.st_mode) ? -EROFS : 0;
}

static long do_get(struct task *t, struct xfile *x, uint64_t uname,
		   uint64_t uval, uint64_t size)
{
	char name[XATTR_NAME_MAX_ + 1], *buf = NULL;
	long r;

	r = name_in(t, uname, name);
	if (r == 0 && x->synth)
		r = -EOPNOTSUPP;
	if (r == 0)
		r = may_touch(t, name, false);
	if (r < 0)
		return r;
	if (size > XATTR_SIZE_MAX_)
		size = XATTR_SIZE_MAX_;
	if (size && !(buf = malloc(size)))
		return -ENOMEM;
	r = x->path[0] ? getxattr(x->path, name, buf, size)
		       : fgetxattr(x->fd, name, buf, size);
	if (r < 0)
		r = -errno;
	else if (size && r > 0 && copy_to_guest(t, uval, buf, r) < 0)
		r = -EFAULT;
	free(buf);
	return r;
}

static long do_set(struct task *t, struct xfile *x, const char *name,
		   const void *val, uint64_t size, int flags)
{
	long r = x->synth ? -EOPNOTSUPP : may_change(x);

	if (r == 0)
		r = may_touch(t, name, true);
	if (r < 0)
		return r;
	r = x->path[0] ? setxattr(x->path, name, val, size, flags)
		       : fsetxattr(x->fd, name, val, size, flags);
	return r < 0 ? -errno : 0;
}

/* Drop the trusted.* names a guest without CAP_SYS_ADMIN does not see. */
static long list_filter(struct task *t, char *list, long n)
{
	long i = 0, o = 0, len;

	if (admin(t))
		return n;
	while (i < n) {
		len = strnlen(list + i, n - i) + 1;
		if (strncmp(list + i, "trusted.", 8) != 0) {
			memmove(list + o, list + i, len);
			o += len;
		}
		i += len;
	}
	return o;
}

static long do_list(struct task *t, struct xfile *x, uint64_t ulist,
		    uint64_t size)
{
	char *buf;
	long r;

	if (x->synth)
		return 0;
	if (size > XATTR_LIST_MAX_)
		size = XATTR_LIST_MAX_;
	/* The whole list, to filter it: then the guest's size decides. */
	buf = malloc(XATTR_LIST_MAX_);
	if (!buf)
		return -ENOMEM;
	r = x->path[0] ? listxattr(x->path, buf, XATTR_LIST_MAX_)
		       : flistxattr(x->fd, buf, XATTR_LIST_MAX_);
	if (r < 0)
		r = errno == ERANGE ? -E2BIG : -errno;
	else
		r = list_filter(t, buf, r);
	if (r > 0 && size && (uint64_t)r > size)
		r = size == XATTR_LIST_MAX_ ? -E2BIG : -ERANGE;
	else if (r > 0 && size && copy_to_guest(t, ulist, buf, r) < 0)
		r = -EFAULT;
	free(buf);
	return r;
}

static long do_remove(struct task *t, struct xfile *x, const char *name)
{
	long r = x->synth ? -EOPNOTSUPP : may_change(x);

	if (r == 0)
		r = may_touch(t, name, true);
	if (r < 0)
		return r;
	r = x->path[0] ? removexattr(x->path, name) : fremovexattr(x->fd, name);
	return r < 0 ? -errno : 0;
}

/* ---- the calls ---- */

static long path_get_common(struct task *t, const uint64_t *a, bool follow)
{
	struct xfile x;
	long r = xfile_path(t, a[0], follow, &x);

	if (r < 0)
		return r;
	r = do_get(t, &x, a[1], a[2], a[3]);
	xfile_put(&x);
	return r;
}

long sys_getxattr(struct task *t, const uint64_t *a)
{
	return path_get_common(t, a, true);
}

long sys_lgetxattr(struct task *t, const uint64_t *a)
{
	return path_get_common(t, a, false);
}

long sys_fgetxattr(struct task *t, const uint64_t *a)
{
	struct xfile x;
	long r = xfile_fd(t, a[0], &x);

	return r < 0 ? r : do_get(t, &x, a[1], a[2], a[3]);
}

/* setxattr_copy(): flags, the name, the size, the value, in that order. */
static long set_args(struct task *t, const uint64_t *a, char *name,
		     void **val)
{
	long r;

	*val = NULL;
	if ((int)a[4] & ~(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	r = name_in(t, a[1], name);
	if (r < 0)
		return r;
	if (!a[3])
		return 0;
	if (a[3] > XATTR_SIZE_MAX_)
		return -E2BIG;
	*val = malloc(a[3]);
	if (!*val)
		return -ENOMEM;
	if (copy_from_guest(t, *val, a[2], a[3]) < 0) {
		free(*val);
		*val = NULL;
		return -EFAULT;
	}
	return 0;
}

static long path_set_common(struct task *t, const uint64_t *a, bool follow)
{
	char name[XATTR_NAME_MAX_ + 1];
	struct xfile x;
	void *val;
	long r = set_args(t, a, name, &val);

	if (r == 0)
		r = xfile_path(t, a[0], follow, &x);
	if (r == 0) {
		r = do_set(t, &x, name, val, a[3], a[4]);
		xfile_put(&x);
	}
	free(val);
	return r;
}

long sys_setxattr(struct task *t, const uint64_t *a)
{
	return path_set_common(t, a, true);
}

long sys_lsetxattr(struct task *t, const uint64_t *a)
{
	return path_set_common(t, a, false);
}

long sys_fsetxattr(struct task *t, const uint64_t *a)
{
	char name[XATTR_NAME_MAX_ + 1];
	struct xfile x;
	void *val = NULL;
	long r = xfile_fd(t, a[0], &x);

	if (r == 0)
		r = set_args(t, a, name, &val);
	if (r == 0)
		r = do_set(t, &x, name, val, a[3], a[4]);
	free(val);
	return r;
}

static long path_list_common(struct task *t, const uint64_t *a, bool follow)
{
	struct xfile x;
	long r = xfile_path(t, a[0], follow, &x);

	if (r < 0)
		return r;
	r = do_list(t, &x, a[1], a[2]);
	xfile_put(&x);
	return r;
}

long sys_listxattr(struct task *t, const uint64_t *a)
{
	return path_list_common(t, a, true);
}

long sys_llistxattr(struct task *t, const uint64_t *a)
{
	return path_list_common(t, a, false);
}

long sys_flistxattr(struct task *t, const uint64_t *a)
{
	struct xfile x;
	long r = xfile_fd(t, a[0], &x);

	return r < 0 ? r : do_list(t, &x, a[1], a[2]);
}

static long path_remove_common(struct task *t, const uint64_t *a, bool follow)
{
	char name[XATTR_NAME_MAX_ + 1];
	struct xfile x;
	long r = xfile_path(t, a[0], follow, &x);

	if (r < 0)
		return r;
	r = x.synth ? -EOPNOTSUPP : may_change(&x);
	if (r == 0)
		r = name_in(t, a[1], name);
	if (r == 0)
		r = do_remove(t, &x, name);
	xfile_put(&x);
	return r;
}

long sys_removexattr(struct task *t, const uint64_t *a)
{
	return path_remove_common(t, a, true);
}

long sys_lremovexattr(struct task *t, const uint64_t *a)
{
	return path_remove_common(t, a, false);
}

long sys_fremovexattr(struct task *t, const uint64_t *a)
{
	char name[XATTR_NAME_MAX_ + 1];
	struct xfile x;
	long r = xfile_fd(t, a[0], &x);

	if (r == 0)
		r = x.synth ? -EOPNOTSUPP : may_change(&x);
	if (r == 0)
		r = name_in(t, a[1], name);
	if (r == 0)
		r = do_remove(t, &x, name);
	return r;
}
