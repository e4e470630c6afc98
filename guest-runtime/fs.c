// SPDX-License-Identifier: GPL-2.0-only
/*
 * Path-based syscalls.  A guest path is resolved to (host dirfd, name):
 * relative paths against the process's cwd (a host O_PATH fd) or the
 * guest dirfd; absolute paths against --root.  With a root other than "/",
 * the parent directory is opened with RESOLVE_IN_ROOT so that ".." and
 * absolute symlinks on the way stay inside it.  Without --rw the guest
 * may not change files (device files excepted).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <limits.h>
#include <poll.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "umlrun.h"

struct hpath {
	int dirfd;
	const char *name;
	int tmpfd;
	bool host;		/* procfs.c made it a host path: use it as is */
	bool own_link;		/* and the runtime's link of a guest file */
	char buf[PATH_MAX];
};

static void hpath_put(struct hpath *hp)
{
	if (hp->tmpfd >= 0)
		close(hp->tmpfd);
	hp->tmpfd = -1;
}

static int fd_guest_path(struct task *t, int hostfd, char *out, size_t len);

/* Open the parent of @path inside @t's root; hp->name is the last part. */
static int open_parent_in_root(struct task *t, struct hpath *hp, char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT,
	};
	char *slash = strrchr(path, '/');
	const char *last = slash ? slash + 1 : path;

	if (!*last || strcmp(last, ".") == 0 || strcmp(last, "..") == 0) {
		last = ".";
	} else if (slash) {
		*slash = 0;
	} else {
		path = (char *)"/";
	}
	hpath_put(hp);
	hp->tmpfd = syscall(SYS_openat2, t->p->root->fd, *path ? path : "/", &how,
			    sizeof(how));
	if (hp->tmpfd < 0)
		return -errno;
	hp->dirfd = hp->tmpfd;
	hp->name = last;
	return 0;
}

/*
 * Resolve absolute guest @path inside the root.  The kernel's
 * RESOLVE_IN_ROOT covers every component but the last; a final symlink
 * is followed here (when @follow), so that it cannot leave the root either.
 */
static int resolve_in_root(struct task *t, struct hpath *hp, char *path,
			   bool follow)
{
	char target[PATH_MAX], base[PATH_MAX];
	struct stat st;
	int r, hops;
	ssize_t n;

	for (hops = 0; hops < 40; hops++) {
		r = open_parent_in_root(t, hp, path);
		if (r < 0 || !follow)
			return r;
		if (fstatat(hp->dirfd, hp->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISLNK(st.st_mode))
			return 0;
		n = readlinkat(hp->dirfd, hp->name, target, sizeof(target) - 1);
		if (n < 0)
			return -errno;
		target[n] = 0;
		if (target[0] == '/') {
			snprintf(hp->buf, sizeof(hp->buf), "%s", target);
		} else {
			r = fd_guest_path(t, hp->dirfd, base, sizeof(base));
			if (r < 0)
				return r;
			if (snprintf(hp->buf, sizeof(hp->buf), "%s/%.*s", base,
				     (int)(sizeof(hp->buf) - 2), target) >=
			    (int)sizeof(hp->buf))
				return -ENAMETOOLONG;
		}
		path = hp->buf;
	}
	return -ELOOP;
}

static int path_host(struct task *t, const char *host, char *out, size_t len)
{
	const char *root = t->p->root->path;
	size_t rl = strlen(root);

	if (t->p->root->slash) {
		snprintf(out, len, "%s", host);
		return 0;
	}
	if (strncmp(host, root, rl) || (host[rl] && host[rl] != '/'))
		return -ENOENT;	/* outside the guest's root */
	snprintf(out, len, "%s", host[rl] ? host + rl : "/");
	return 0;
}

/* The guest path of a host directory fd, inside the root. */
static int fd_guest_path(struct task *t, int hostfd, char *out, size_t len)
{
	char link[64], host[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", hostfd);
	n = readlink(link, host, sizeof(host) - 1);
	if (n < 0)
		return -errno;
	host[n] = 0;
	return path_host(t, host, out, len);
}

/*
 * With a root other than "/", a relative path is made absolute (from the
 * guest path of its base directory) so that ".." stops at the root too.
 */
static int relative_in_root(struct task *t, int basefd, struct hpath *hp,
			    bool follow)
{
	char base[PATH_MAX], *full;
	int r = fd_guest_path(t, basefd, base, sizeof(base));

	if (r < 0)
		return r;
	if (asprintf(&full, "%s/%s", base, hp->buf) < 0)
		return -ENOMEM;
	if (strlen(full) >= sizeof(hp->buf)) {
		free(full);
		return -ENAMETOOLONG;
	}
	strcpy(hp->buf, full);
	free(full);
	return resolve_in_root(t, hp, hp->buf, follow);
}

/*
 * A relative path from a directory on the host's /proc ("self/fd/3" from
 * /proc, "../self/mem" from /proc/<pid>) would lead the host to the
 * runtime's own entries: make it absolute, so that procfs.c sees the
 * /proc name it spells.  -errno, or 0.
 */
static int proc_relative(struct task *t, int gdirfd, struct hpath *hp)
{
	char base[PATH_MAX], full[PATH_MAX];
	struct file *f = NULL;
	int r;

	if (!t->p->root->slash || !hp->buf[0] || hp->buf[0] == '/')
		return 0;
	if (gdirfd != AT_FDCWD) {
		f = fd_lookup(t, gdirfd);
		if (!f)
			return -EBADF;
	}
	if (f ? !f->in_proc : !t->p->cwd_in_proc)
		return 0;
	r = fd_guest_path(t, f ? f->hostfd : t->p->cwdfd, base, sizeof(base));
	if (r < 0)
		return r;
	procfs_host_to_guest(base, sizeof(base));
	if ((size_t)snprintf(full, sizeof(full), "%s/%s", base, hp->buf) >=
	    sizeof(full))
		return -ENAMETOOLONG;
	strcpy(hp->buf, full);
	return 0;
}

/* Resolve the guest path in hp->buf (relative to @gdirfd) for a host *at call. */
static int path_resolve_in(struct task *t, int gdirfd, struct hpath *hp,
			   bool follow)
{
	struct proc *p;
	int r;

	hp->tmpfd = -1;
	hp->host = false;
	hp->own_link = false;
	r = proc_relative(t, gdirfd, hp);
	if (r < 0)
		return r;
	p = procfs_exe_proc(t, hp->buf);
	if (p) {
		/* The program itself, wherever the root is. */
		if (strlen(p->exe) >= sizeof(hp->buf))
			return -ENAMETOOLONG;
		strcpy(hp->buf, p->exe);
		hp->dirfd = AT_FDCWD;
		hp->name = hp->buf;
		hp->host = true;
		return 0;
	}
	if (t->p->root->slash && hp->buf[0] == '/') {
		r = procfs_rewrite(t, hp->buf, sizeof(hp->buf));
		if (r < 0)
			return r;
		hp->host = r > 0;
		hp->own_link = r == 2;
	}
	if (hp->buf[0] == '/') {
		hp->dirfd = AT_FDCWD;
		hp->name = hp->buf;
		return t->p->root->slash ? 0 : resolve_in_root(t, hp, hp->buf,
								  follow);
	}
	hp->name = hp->buf;
	if (gdirfd == AT_FDCWD) {
		hp->dirfd = t->p->cwdfd;
	} else {
		struct file *f = fd_lookup(t, gdirfd);

		if (!f)
			return -EBADF;
		hp->dirfd = f->hostfd;
	}
	if (!t->p->root->slash && hp->buf[0])
		return relative_in_root(t, hp->dirfd, hp, follow);
	return 0;
}

/*
 * Resolve the guest path in @hp as path_resolve_in() does; on failure
 * nothing of it stays open (a --root walk's directory fd), so that no
 * caller can leak one.
 */
static int path_resolve(struct task *t, int gdirfd, struct hpath *hp,
			bool follow)
{
	int r = path_resolve_in(t, gdirfd, hp, follow);

	if (r < 0)
		hpath_put(hp);
	return r;
}

/* Copy guest path @upath into @hp, unresolved: its length, or -errno. */
static int path_read(struct task *t, uint64_t upath, struct hpath *hp)
{
	hp->tmpfd = -1;
	hp->host = false;
	hp->own_link = false;
	return strncpy_from_guest(t, hp->buf, upath, sizeof(hp->buf));
}

/* Copy guest path @upath in and resolve it. */
static int path_get(struct task *t, int gdirfd, uint64_t upath,
		    struct hpath *hp, bool follow)
{
	int n = path_read(t, upath, hp);

	if (n < 0)
		return n;
	return path_resolve(t, gdirfd, hp, follow);
}

/* May the guest write to this path?  Only with --rw, or to a device. */
static int path_may_write(struct hpath *hp)
{
	struct stat st;

	if (opt.rw)
		return 0;
	if (fstatat(hp->dirfd, hp->name, &st, 0) == 0 && S_ISCHR(st.st_mode))
		return 0;
	return -EROFS;
}

/* /proc/<guest pid>/stat and friends: a file made by procfs.c. */
static long procfs_open_guest(struct task *t, const char *path, int flags)
{
	struct file *f;
	int fd;

	fd = procfs_open(t, path);
	if (fd <= 0)
		return fd;
	if ((flags & O_ACCMODE) != O_RDONLY) {
		close(fd);
		return -EACCES;
	}
	f = file_new(fd, O_RDONLY);
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	f->synth = true;
	return fd_install(t, 0, f, flags & O_CLOEXEC);
}

/*
 * Named pipes.  The runtime opens them non-blocking, so that an open never
 * blocks the runtime, and does itself what fs/pipe.c's fifo_open() does
 * for a blocking open: a reader waits until a writer has come (it may
 * have left again: then the reader's read is EOF), a writer until a
 * reader has.  The waiting opener already counts on the host, as in
 * wait_for_partner(): a reader holds its host fd; a writer, which the
 * host refuses without a reader (ENXIO), holds an O_PATH fd of the FIFO.
 * When a guest opens a FIFO, the openers waiting at its other end are
 * done at once (fifo_arrived()): a waiting writer's host fd is opened
 * there and then, while the reader is there, so a reader that leaves
 * right after its open still met the writer, as in the kernel.  A partner
 * outside the guest (a host process) is noticed by polling: a writer that
 * writes or leaves at once, else within FIFO_RECHECK_NS.
 */
#define FIFO_RECHECK_NS	10000000LL
/* How often an open that a lease (or a busy device) refused is made again. */
#define OPEN_RECHECK_NS	10000000LL

/*
 * Has a writer come to the FIFO that @fd reads (opened non-blocking, with
 * its EPOLLHUP suppressed until a writer has been seen)?  Data or a
 * writer that came and went show in poll(); one that is there and has
 * written nothing shows only in tee(), which from an empty pipe copies
 * nothing and fails with EAGAIN if a writer is there, returns 0 if not.
 */
static bool fifo_has_writer(int fd)
{
	static int probe[2] = { -1, -1 };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char drain[64];
	ssize_t r;

	do
		r = poll(&pfd, 1, 0);
	while (r < 0 && errno == EINTR);
	if (r > 0)
		return true;
	if (probe[1] < 0 && pipe2(probe, O_CLOEXEC | O_NONBLOCK) < 0)
		return false;
	do
		r = tee(fd, probe[1], 1, SPLICE_F_NONBLOCK);
	while (r < 0 && errno == EINTR);
	if (r > 0) {		/* data came since the poll: a writer too */
		while (read(probe[0], drain, sizeof(drain)) > 0)
			;
		return true;
	}
	return r < 0 && errno == EAGAIN;
}

/* A FIFO's host fd for the guest: a struct file, then a guest fd. */
static long fifo_install(struct task *t, int fd, int flags)
{
	struct file *f = file_new(fd, flags);

	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	f->hostnb = true;
	return fd_install(t, 0, f, flags & O_CLOEXEC);
}

/* The write end of the FIFO @opath names, or -1 (ENXIO: no reader). */
static int fifo_open_writer(int opath)
{
	char path[40];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", opath);
	return open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
}

/* Park @t in its open of a FIFO, holding @fd (see struct waitinfo). */
static long fifo_park(struct task *t, int fd, bool writer)
{
	struct stat st;
	long r;

	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISFIFO(st.st_mode)) {
		/* a writer's O_PATH open met another file: it was replaced */
		close(fd);
		return -ENXIO;
	}
	t->w.fifo_fd = fd;
	t->w.fifo_held = true;
	t->w.fifo_writer = writer;
	t->w.fifo_ready = false;
	t->w.fifo_dev = st.st_dev;
	t->w.fifo_ino = st.st_ino;
	return SYS_BLOCK;
}

/* Wait: a reader for data or a writer that left, both for a re-check. */
static long fifo_wait(struct task *t)
{
	if (!t->w.fifo_writer) {
		long r = block_on_fd(t, t->w.fifo_fd, POLLIN);

		if (r != SYS_BLOCK)
			return r;
	}
	return block_until(t, now_ns() + FIFO_RECHECK_NS);
}

/*
 * A guest opened the FIFO @fd with access mode @acc: the openers waiting
 * at its other end are done (and woken to return from their open), also
 * one already woken for its re-check that has not run yet.
 */
static void fifo_arrived(int fd, int acc)
{
	struct stat st;
	struct proc *p;
	struct task *u;
	int w;

	if (fstat(fd, &st) < 0)
		return;
	for (p = procs; p; p = p->next) {
		for (u = p->threads; u; u = u->next_in_proc) {
			if ((u->state != TASK_BLOCKED &&
			     u->state != TASK_SYSCALL) || !u->w.fifo_held ||
			    u->w.fifo_ready || u->w.fifo_dev != st.st_dev ||
			    u->w.fifo_ino != st.st_ino)
				continue;
			if (u->w.fifo_writer && acc != O_WRONLY) {
				w = fifo_open_writer(u->w.fifo_fd);
				if (w < 0)
					continue;	/* it re-checks */
				close(u->w.fifo_fd);
				u->w.fifo_fd = w;
			} else if (u->w.fifo_writer || acc == O_RDONLY) {
				continue;
			}
			u->w.fifo_ready = true;
			sched_wake(u);
		}
	}
}

/* The open of a FIFO, called again while @t waits in it. */
static long fifo_open_again(struct task *t, int flags)
{
	int fd = t->w.fifo_fd;

	if (t->w.fifo_writer && !t->w.fifo_ready) {
		fd = fifo_open_writer(t->w.fifo_fd);
		if (fd < 0)
			return errno == ENXIO ? fifo_wait(t) : -errno;
		close(t->w.fifo_fd);
		t->w.fifo_held = false;
		fifo_arrived(fd, O_WRONLY);
	} else if (!t->w.fifo_writer && !t->w.fifo_ready &&
		   !fifo_has_writer(fd)) {
		return fifo_wait(t);
	}
	t->w.fifo_held = false;
	return fifo_install(t, fd, flags);
}

/*
 * The rest of a FIFO's open once the host opened it (@fd, or ENXIO: -1
 * and @opath, an O_PATH fd of it): wait for the other end unless the
 * guest asked for O_NONBLOCK or O_RDWR (which never waits).
 */
static long fifo_open(struct task *t, int fd, int opath, int flags)
{
	bool wait = !(flags & O_NONBLOCK) && (flags & O_ACCMODE) != O_RDWR;
	long r;

	if (fd < 0) {
		r = fifo_park(t, opath, true);
		return r == SYS_BLOCK ? fifo_wait(t) : r;
	}
	if (opath >= 0)
		close(opath);
	fifo_arrived(fd, flags & O_ACCMODE);
	if (wait && (flags & O_ACCMODE) == O_RDONLY && !fifo_has_writer(fd)) {
		r = fifo_park(t, fd, false);
		return r == SYS_BLOCK ? fifo_wait(t) : r;
	}
	return fifo_install(t, fd, flags);
}

/*
 * openat() the guest's way (its flags as build_open_how() takes them), but
 * through no magic link (/proc/<pid>/fd/N, exe, cwd...) unless procfs.c
 * made the path: a symlink the guest planted cannot lead to one of the
 * runtime's own fds, whatever it spells.
 */
static int open_guest(struct hpath *hp, int flags, int mode)
{
	const int valid = O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC |
			  O_APPEND | O_NONBLOCK | O_DSYNC | O_SYNC | FASYNC |
			  O_DIRECT | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW |
			  O_NOATIME | O_CLOEXEC | O_PATH | O_TMPFILE;
	struct open_how how = { .resolve = RESOLVE_NO_MAGICLINKS };

	if (hp->host)
		return openat(hp->dirfd, hp->name, flags, mode);
	how.flags = flags & valid;
	if (how.flags & O_PATH)
		how.flags &= O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC;
	if ((how.flags & O_CREAT) || (how.flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode & 07777;
	return syscall(SYS_openat2, hp->dirfd, hp->name, &how, sizeof(how));
}

static long do_open(struct task *t, int gdirfd, uint64_t upath, int flags,
		    int mode)
{
	struct hpath hp;
	struct file *f;
	struct stat st;
	int r, fd, opath, hflags;
	bool nb, st_ok, in_proc;

	if (t->w.fifo_held)	/* called again, waiting in a FIFO's open */
		return fifo_open_again(t, flags);
	r = path_read(t, upath, &hp);
	if (r < 0)
		return r;
	r = procfs_open_guest(t, hp.buf, flags);
	if (r)
		return r;
	r = path_resolve(t, gdirfd, &hp, !(flags & O_NOFOLLOW) &&
			 (flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL));
	if (r < 0)
		goto out;
	if (((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC))) &&
	    (r = path_may_write(&hp)) < 0)
		goto out;
	/*
	 * Opened non-blocking, whatever the file (a look at it first could
	 * not tell: it may be a FIFO by the open), so that a FIFO's open never
	 * waits here: fifo_open() waits the guest's way.  Any other file is
	 * made blocking again after, as the runtime's host fds are (the
	 * guest's O_NONBLOCK is f->flags).  O_PATH opens nothing.
	 */
	nb = !(flags & O_PATH);
	hflags = nb ? flags | O_CLOEXEC | O_NONBLOCK :
		      (flags | O_CLOEXEC) & ~O_NONBLOCK;
	fd = open_guest(&hp, hflags, mode & ~t->p->umask & 07777);
	if (fd < 0 && errno == EWOULDBLOCK && nb && !(flags & O_NONBLOCK)) {
		/*
		 * A lease is being broken (the open started that), or a
		 * device is busy: the open is made again in a while, as
		 * a blocking one waits.
		 */
		r = block_until(t, now_ns() + OPEN_RECHECK_NS);
		goto out;
	}
	if (fd < 0 && errno == ENXIO && nb && !(flags & O_NONBLOCK) &&
	    (flags & O_ACCMODE) == O_WRONLY) {
		/*
		 * A FIFO's writer waits for a reader: it keeps the FIFO by
		 * O_PATH (fifo_park() says ENXIO if that is no FIFO).
		 */
		opath = open_guest(&hp, O_PATH | O_CLOEXEC |
				   (flags & O_NOFOLLOW), 0);
		r = opath < 0 ? -errno : fifo_open(t, -1, opath, flags);
		goto out;
	}
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	/*
	 * umlrun's own /proc/<pid> and /proc itself are on a procfs: the
	 * readlink()s that tell them are for files there (or of unknown kind)
	 * only.
	 */
	st_ok = fstat(fd, &st) == 0;
	in_proc = !st_ok || procfs_fd_on_proc(fd, &st);
	if (in_proc && procfs_names_runtime(fd)) {
		close(fd);
		r = -EACCES;
		goto out;
	}
	if (nb && st_ok && S_ISFIFO(st.st_mode)) {
		r = fifo_open(t, fd, -1, flags);
		goto out;
	}
	/* F_SETFL takes only the flags it may change from the open's. */
	if (nb && fcntl(fd, F_SETFL, hflags & ~O_NONBLOCK)) {
		r = -errno;
		close(fd);
		goto out;
	}
	f = file_new_stat(fd, flags, st_ok ? &st : NULL);
	if (!f) {
		close(fd);
		r = -ENOMEM;
		goto out;
	}
	f->procdir = t->p->root->slash && in_proc && procfs_is_root(fd);
	r = fd_install(t, 0, f, flags & O_CLOEXEC);
out:
	hpath_put(&hp);
	return r;
}

/*
 * An O_PATH host fd of a guest path, resolved as every path syscall
 * resolves it and opened as open() opens (through no magic link the
 * guest planted, never into umlrun's own /proc/<pid>), for the calls
 * that then name the file as /proc/self/fd/N (xattr.c).  Without
 * @follow a symlink is the fd's file itself.
 */
int path_open_opath(struct task *t, uint64_t upath, bool follow)
{
	struct hpath hp;
	int r, fd;

	r = path_get(t, AT_FDCWD, upath, &hp, follow);
	if (r < 0)
		return r;
	fd = open_guest(&hp, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW), 0);
	r = fd < 0 ? -errno : fd;
	hpath_put(&hp);
	if (r >= 0 && procfs_is_runtime(r)) {
		close(r);
		r = -EACCES;
	}
	return r;
}

long sys_open(struct task *t, const uint64_t *a)
{
	return do_open(t, AT_FDCWD, a[0], a[1], a[2]);
}

long sys_openat(struct task *t, const uint64_t *a)
{
	return do_open(t, a[0], a[1], a[2], a[3]);
}

long sys_creat(struct task *t, const uint64_t *a)
{
	return do_open(t, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC, a[1]);
}

static long do_stat(struct task *t, int gdirfd, uint64_t upath, uint64_t ubuf,
		    int flags)
{
	struct hpath hp;
	struct stat st;
	int r;

	r = path_get(t, gdirfd, upath, &hp, !(flags & AT_SYMLINK_NOFOLLOW));
	if (r < 0)
		return r;
	if (fstatat(hp.dirfd, hp.name, &st, flags) < 0) {
		r = -errno;
	} else {
		if (!hp.name[0] && gdirfd != AT_FDCWD)	/* AT_EMPTY_PATH */
			pidfd_stat(t, gdirfd, &st);
		if (copy_to_guest(t, ubuf, &st, sizeof(st)) < 0)
			r = -EFAULT;
	}
	hpath_put(&hp);
	return r;
}

long sys_stat(struct task *t, const uint64_t *a)
{
	return do_stat(t, AT_FDCWD, a[0], a[1], 0);
}

long sys_lstat(struct task *t, const uint64_t *a)
{
	return do_stat(t, AT_FDCWD, a[0], a[1], AT_SYMLINK_NOFOLLOW);
}

long sys_newfstatat(struct task *t, const uint64_t *a)
{
	return do_stat(t, a[0], a[1], a[2], a[3]);
}

long sys_statx(struct task *t, const uint64_t *a)
{
	struct hpath hp;
	struct statx stx;
	int r;

	r = path_get(t, a[0], a[1], &hp, !(a[2] & AT_SYMLINK_NOFOLLOW));
	if (r < 0)
		return r;
	if (statx(hp.dirfd, hp.name, a[2], a[3], &stx) < 0)
		r = -errno;
	else if (copy_to_guest(t, a[4], &stx, sizeof(stx)) < 0)
		r = -EFAULT;
	hpath_put(&hp);
	return r;
}

static long do_access(struct task *t, int gdirfd, uint64_t upath, int mode,
		      int flags)
{
	struct hpath hp;
	int r;

	r = path_get(t, gdirfd, upath, &hp, !(flags & AT_SYMLINK_NOFOLLOW));
	if (r < 0)
		return r;
	if (faccessat(hp.dirfd, hp.name, mode, flags) < 0)
		r = -errno;
	else if ((mode & W_OK) && path_may_write(&hp) < 0)
		r = -EROFS;
	hpath_put(&hp);
	return r;
}

long sys_access(struct task *t, const uint64_t *a)
{
	return do_access(t, AT_FDCWD, a[0], a[1], 0);
}

long sys_faccessat(struct task *t, const uint64_t *a)
{
	return do_access(t, a[0], a[1], a[2], 0);
}

long sys_faccessat2(struct task *t, const uint64_t *a)
{
	return do_access(t, a[0], a[1], a[2], a[3]);
}

/*
 * Read symlink @hp into @out: its length or -errno.  Unless it is the
 * runtime's own link of a guest file (procfs_rewrite() made it), a link
 * that is one of umlrun's own /proc entries (its fds, exe, cwd), reached
 * through any procfs mount or magic link path_resolve() cannot tell, is
 * refused: its target would show the runtime's files.  Only a real link
 * pays for the check: opened (O_PATH), checked by procfs_is_runtime(),
 * which knows every mount, and read again through that fd, the file
 * checked.
 */
static ssize_t link_read(struct task *t, const struct hpath *hp, char *out,
			 size_t size)
{
	ssize_t n = readlinkat(hp->dirfd, hp->name, out, size);
	int fd;

	if (n < 0)
		return -errno;
	if (hp->own_link)
		return n;
	/* An empty name: the link is the O_PATH fd itself. */
	fd = hp->name[0] ? openat(hp->dirfd, hp->name,
				  O_PATH | O_NOFOLLOW | O_CLOEXEC) :
			   fcntl(hp->dirfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	if (procfs_is_runtime(fd))
		n = -EACCES;
	else if ((n = readlinkat(fd, "", out, size)) < 0)
		n = -errno;
	else
		n = procfs_self_text(t, fd, out, n, size);
	close(fd);
	return n;
}

static long do_readlink(struct task *t, int gdirfd, uint64_t upath,
			uint64_t ubuf, size_t len)
{
	char out[PATH_MAX];
	struct hpath hp;
	struct proc *p;
	ssize_t n;
	int r;

	if ((int)len <= 0)		/* the kernel's bufsiz is an int */
		return -EINVAL;
	hp.tmpfd = -1;
	hp.host = false;
	hp.own_link = false;
	r = strncpy_from_guest(t, hp.buf, upath, sizeof(hp.buf));
	if (r < 0)
		return r;
	r = proc_relative(t, gdirfd, &hp);
	if (r < 0)
		return r;
	p = procfs_exe_proc(t, hp.buf);
	if (p) {
		r = path_host(t, p->exe, out, sizeof(out));
		if (r < 0)
			return r;
		n = strlen(out);
	} else if (!(n = procfs_link_text(t, hp.buf, out, sizeof(out)))) {
		r = path_resolve(t, gdirfd, &hp, false);
		if (r < 0)
			return r;
		n = link_read(t, &hp, out, sizeof(out));
		r = n < 0 ? (int)n : 0;
		hpath_put(&hp);
		if (r < 0)
			return r;
	}
	if ((size_t)n > len)
		n = len;
	return copy_to_guest(t, ubuf, out, n) < 0 ? -EFAULT : n;
}

long sys_readlink(struct task *t, const uint64_t *a)
{
	return do_readlink(t, AT_FDCWD, a[0], a[1], a[2]);
}

long sys_readlinkat(struct task *t, const uint64_t *a)
{
	return do_readlink(t, a[0], a[1], a[2], a[3]);
}

/* A one-path modifying operation. */
enum path_op { OP_MKDIR, OP_UNLINK, OP_RMDIR, OP_CHMOD, OP_CHOWN, OP_TRUNC,
	       OP_UTIME, OP_MKNOD };

static bool op_follows(enum path_op op, const uint64_t *v)
{
	switch (op) {
	case OP_CHMOD:
	case OP_TRUNC:
		return true;
	case OP_CHOWN:
		return !(v[2] & AT_SYMLINK_NOFOLLOW);
	case OP_UTIME:
		return !(v[1] & AT_SYMLINK_NOFOLLOW);
	default:
		return false;
	}
}

/* truncate(2): the file opened for writing, held to RLIMIT_FSIZE. */
static long truncate_at(struct task *t, const struct hpath *hp, int64_t len)
{
	int fd = openat(hp->dirfd, hp->name, O_WRONLY | O_CLOEXEC);
	long r;

	if (fd < 0)
		return -errno;
	r = rlimit_fsize_grow(t, fd, len);
	if (r == 0 && ftruncate(fd, len) < 0)
		r = -errno;
	close(fd);
	return r;
}

static long path_modify(struct task *t, int gdirfd, uint64_t upath,
			enum path_op op, const uint64_t *v)
{
	struct hpath hp;
	int r;

	r = path_get(t, gdirfd, upath, &hp, op_follows(op, v));
	if (r < 0)
		return r;
	if (!opt.rw) {
		hpath_put(&hp);
		return -EROFS;
	}
	switch (op) {
	case OP_MKDIR:
		r = mkdirat(hp.dirfd, hp.name, v[0] & ~t->p->umask & 07777);
		break;
	case OP_UNLINK:
		r = unlinkat(hp.dirfd, hp.name, v[0]);
		break;
	case OP_MKNOD:
		r = mknodat(hp.dirfd, hp.name,
			    (v[0] & S_IFMT) | (v[0] & ~t->p->umask & 07777), v[1]);
		break;
	case OP_RMDIR:
		r = unlinkat(hp.dirfd, hp.name, AT_REMOVEDIR);
		break;
	case OP_CHMOD:
		r = fchmodat(hp.dirfd, hp.name, v[0], 0);
		break;
	case OP_CHOWN:
		r = fchownat(hp.dirfd, hp.name, v[0], v[1], v[2]);
		break;
	case OP_TRUNC:
		r = truncate_at(t, &hp, v[0]);
		hpath_put(&hp);
		return r;
	case OP_UTIME:	/* v[0]: the runtime's timespec[2] or NULL */
		r = syscall(SYS_utimensat, hp.dirfd, hp.name,
			    (const struct timespec *)(uintptr_t)v[0], v[1]);
		break;
	}
	r = r < 0 ? -errno : 0;
	hpath_put(&hp);
	return r;
}

long sys_mkdir(struct task *t, const uint64_t *a)
{
	return path_modify(t, AT_FDCWD, a[0], OP_MKDIR, a + 1);
}

long sys_mkdirat(struct task *t, const uint64_t *a)
{
	return path_modify(t, a[0], a[1], OP_MKDIR, a + 2);
}

long sys_mknod(struct task *t, const uint64_t *a)
{
	return path_modify(t, AT_FDCWD, a[0], OP_MKNOD, a + 1);
}

long sys_mknodat(struct task *t, const uint64_t *a)
{
	return path_modify(t, a[0], a[1], OP_MKNOD, a + 2);
}

long sys_unlink(struct task *t, const uint64_t *a)
{
	static const uint64_t zero[1];

	return path_modify(t, AT_FDCWD, a[0], OP_UNLINK, zero);
}

long sys_unlinkat(struct task *t, const uint64_t *a)
{
	return path_modify(t, a[0], a[1], OP_UNLINK, a + 2);
}

long sys_rmdir(struct task *t, const uint64_t *a)
{
	return path_modify(t, AT_FDCWD, a[0], OP_RMDIR, a + 1);
}

long sys_chmod(struct task *t, const uint64_t *a)
{
	return path_modify(t, AT_FDCWD, a[0], OP_CHMOD, a + 1);
}

long sys_fchmodat(struct task *t, const uint64_t *a)
{
	return path_modify(t, a[0], a[1], OP_CHMOD, a + 2);
}

long sys_chown(struct task *t, const uint64_t *a)
{
	uint64_t v[3] = { a[1], a[2], 0 };

	return path_modify(t, AT_FDCWD, a[0], OP_CHOWN, v);
}

long sys_lchown(struct task *t, const uint64_t *a)
{
	uint64_t v[3] = { a[1], a[2], AT_SYMLINK_NOFOLLOW };

	return path_modify(t, AT_FDCWD, a[0], OP_CHOWN, v);
}

long sys_fchownat(struct task *t, const uint64_t *a)
{
	return path_modify(t, a[0], a[1], OP_CHOWN, a + 2);
}

long sys_truncate(struct task *t, const uint64_t *a)
{
	return path_modify(t, AT_FDCWD, a[0], OP_TRUNC, a + 1);
}

/*
 * The kernel's do_utimes() with the times read (NULL: now): no path and
 * a dirfd is the fd's own file (futimens), which takes no flags; else a
 * path, which may be relative to the dirfd.  The host checks the times.
 */
static long do_utimes(struct task *t, int gdirfd, uint64_t upath,
		      const struct timespec *ts, int flags)
{
	struct file *f;

	if (!upath && gdirfd != AT_FDCWD) {
		if (flags)
			return -EINVAL;
		f = fd_lookup(t, gdirfd);
		if (!f || (f->flags & O_PATH))	/* fdget() skips O_PATH */
			return -EBADF;
		if (!opt.rw)
			return -EROFS;
		return futimens(f->hostfd, ts) < 0 ? -errno : 0;
	}
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	return path_modify(t, gdirfd, upath, OP_UTIME,
			   (uint64_t[]){ (uintptr_t)ts, flags });
}

/* utimensat: the times first (EFAULT), both UTIME_OMIT is nothing to do. */
long sys_utimensat(struct task *t, const uint64_t *a)
{
	struct timespec ts[2];

	if (a[2]) {
		if (copy_from_guest(t, ts, a[2], sizeof(ts)) < 0)
			return -EFAULT;
		if (ts[0].tv_nsec == UTIME_OMIT && ts[1].tv_nsec == UTIME_OMIT)
			return 0;
	}
	return do_utimes(t, a[0], a[1], a[2] ? ts : NULL, a[3]);
}

/* futimesat and utimes: timevals, their microseconds checked first. */
static long do_futimesat(struct task *t, int gdirfd, uint64_t upath,
			 uint64_t utv)
{
	struct timeval tv[2];
	struct timespec ts[2];
	int i;

	if (!utv)
		return do_utimes(t, gdirfd, upath, NULL, 0);
	if (copy_from_guest(t, tv, utv, sizeof(tv)) < 0)
		return -EFAULT;
	for (i = 0; i < 2; i++) {
		if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
			return -EINVAL;
		ts[i].tv_sec = tv[i].tv_sec;
		ts[i].tv_nsec = tv[i].tv_usec * 1000;
	}
	return do_utimes(t, gdirfd, upath, ts, 0);
}

long sys_futimesat(struct task *t, const uint64_t *a)
{
	return do_futimesat(t, a[0], a[1], a[2]);
}

long sys_utimes(struct task *t, const uint64_t *a)
{
	return do_futimesat(t, AT_FDCWD, a[0], a[1]);
}

/* utime: a struct utimbuf, whole seconds. */
long sys_utime(struct task *t, const uint64_t *a)
{
	struct timespec ts[2] = { { 0, 0 }, { 0, 0 } };
	int64_t ub[2];

	if (!a[1])
		return do_utimes(t, AT_FDCWD, a[0], NULL, 0);
	if (copy_from_guest(t, ub, a[1], sizeof(ub)) < 0)
		return -EFAULT;
	ts[0].tv_sec = ub[0];
	ts[1].tv_sec = ub[1];
	return do_utimes(t, AT_FDCWD, a[0], ts, 0);
}

/* Two-path operations: rename, link, symlink. */
enum path2_op { OP_RENAME, OP_LINK, OP_SYMLINK };

static long path2_modify(struct task *t, int d1, uint64_t p1, int d2,
			 uint64_t p2, enum path2_op op, int flags)
{
	struct hpath a, b;
	int r;

	if (!opt.rw)
		return -EROFS;
	if (op == OP_SYMLINK) {
		a.tmpfd = -1;
		r = strncpy_from_guest(t, a.buf, p1, sizeof(a.buf));
	} else {
		r = path_get(t, d1, p1, &a, false);
	}
	if (r < 0)
		return r;
	r = path_get(t, d2, p2, &b, false);
	if (r < 0) {
		hpath_put(&a);
		return r;
	}
	if (op == OP_RENAME)
		r = renameat2(a.dirfd, a.name, b.dirfd, b.name, flags);
	else if (op == OP_LINK)
		r = linkat(a.dirfd, a.name, b.dirfd, b.name, flags);
	else
		r = symlinkat(a.buf, b.dirfd, b.name);
	r = r < 0 ? -errno : 0;
	hpath_put(&a);
	hpath_put(&b);
	return r;
}

long sys_rename(struct task *t, const uint64_t *a)
{
	return path2_modify(t, AT_FDCWD, a[0], AT_FDCWD, a[1], OP_RENAME, 0);
}

long sys_renameat(struct task *t, const uint64_t *a)
{
	return path2_modify(t, a[0], a[1], a[2], a[3], OP_RENAME, 0);
}

long sys_renameat2(struct task *t, const uint64_t *a)
{
	return path2_modify(t, a[0], a[1], a[2], a[3], OP_RENAME, a[4]);
}

long sys_link(struct task *t, const uint64_t *a)
{
	return path2_modify(t, AT_FDCWD, a[0], AT_FDCWD, a[1], OP_LINK, 0);
}

long sys_linkat(struct task *t, const uint64_t *a)
{
	return path2_modify(t, a[0], a[1], a[2], a[3], OP_LINK, a[4]);
}

long sys_symlink(struct task *t, const uint64_t *a)
{
	return path2_modify(t, AT_FDCWD, a[0], AT_FDCWD, a[1], OP_SYMLINK, 0);
}

long sys_symlinkat(struct task *t, const uint64_t *a)
{
	return path2_modify(t, AT_FDCWD, a[0], a[1], a[2], OP_SYMLINK, 0);
}

long sys_statfs(struct task *t, const uint64_t *a)
{
	struct hpath hp;
	struct statfs sf;
	int r, fd;

	r = path_get(t, AT_FDCWD, a[0], &hp, true);
	if (r < 0)
		return r;
	fd = openat(hp.dirfd, hp.name, O_PATH | O_CLOEXEC);
	if (fd < 0 || fstatfs(fd, &sf) < 0)
		r = -errno;
	else if (copy_to_guest(t, a[1], &sf, sizeof(sf)) < 0)
		r = -EFAULT;
	if (fd >= 0)
		close(fd);
	hpath_put(&hp);
	return r;
}

static long set_cwd(struct task *t, int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -errno;
	/* procfs_is_runtime() with the one fstat() this needs anyway. */
	if (fstat(fd, &st) < 0 ||
	    (procfs_fd_on_proc(fd, &st) && procfs_names_runtime(fd))) {
		close(fd);
		return -EACCES;
	}
	if (t->p->cwdfd >= 0)
		close(t->p->cwdfd);
	t->p->cwdfd = fd;
	t->p->cwd_in_proc = procfs_is_procfs(&st);
	return 0;
}

long sys_chdir(struct task *t, const uint64_t *a)
{
	struct hpath hp;
	int r;

	r = path_get(t, AT_FDCWD, a[0], &hp, true);
	if (r < 0)
		return r;
	r = set_cwd(t, hp.dirfd, hp.name);
	hpath_put(&hp);
	return r;
}

long sys_fchdir(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);

	if (!f)
		return -EBADF;
	return set_cwd(t, f->hostfd, ".");
}

long sys_getcwd(struct task *t, const uint64_t *a)
{
	char out[PATH_MAX];
	size_t len;
	int r;

	r = fd_guest_path(t, t->p->cwdfd, out, sizeof(out));
	if (r < 0)
		return r;
	len = strlen(out) + 1;
	if (len > a[1])
		return -ERANGE;
	return copy_to_guest(t, a[0], out, len) < 0 ? -EFAULT : (long)len;
}

long sys_umask(struct task *t, const uint64_t *a)
{
	int old = t->p->umask;

	t->p->umask = a[0] & 0777;
	return old;
}

/* For execve: open a guest path for execution. */
int exec_open(struct task *t, int dirfd, const char *path, int *fdp,
	      char **hostpath)
{
	char link[64], host[PATH_MAX];
	struct hpath hp;
	struct stat st;
	ssize_t n;
	int fd, r;

	if (strlen(path) >= sizeof(hp.buf))
		return -ENAMETOOLONG;
	strcpy(hp.buf, path);
	r = path_resolve(t, dirfd, &hp, true);
	if (r < 0) {
		hpath_put(&hp);
		return r;
	}
	fd = open_guest(&hp, O_RDONLY | O_CLOEXEC, 0);
	r = fd < 0 ? -errno : 0;
	hpath_put(&hp);
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    faccessat(fd, "", X_OK, AT_EMPTY_PATH | AT_EACCESS) < 0) {
		close(fd);
		return -EACCES;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, host, sizeof(host) - 1);
	host[n < 0 ? 0 : n] = 0;
	*hostpath = strdup(host);
	*fdp = fd;
	return 0;
}

/* ---- AF_UNIX path names (socket.c) ---- */

/* The (dev, inode) of every socket a guest bound: what it may connect to. */
static struct { dev_t dev; ino_t ino; } *guest_socks;
static size_t n_guest_socks, cap_guest_socks;

static bool guest_sock_known(const struct stat *st)
{
	size_t i;

	for (i = 0; i < n_guest_socks; i++)
		if (guest_socks[i].dev == st->st_dev &&
		    guest_socks[i].ino == st->st_ino)
			return true;
	return false;
}

static void guest_sock_add(const struct stat *st)
{
	if (guest_sock_known(st))
		return;
	if (n_guest_socks == cap_guest_socks) {
		size_t cap = cap_guest_socks ? cap_guest_socks * 2 : 16;
		void *n = realloc(guest_socks, cap * sizeof(*guest_socks));

		if (!n)
			return;	/* it just cannot be connected to */
		guest_socks = n;
		cap_guest_socks = cap;
	}
	guest_socks[n_guest_socks].dev = st->st_dev;
	guest_socks[n_guest_socks++].ino = st->st_ino;
}

/*
 * bind, connect or send (@op) host socket @sock to the guest's path name
 * @path, resolved as every guest path is (its cwd, --root).  The kernel
 * takes a socket's name relative to the caller's cwd, so the runtime
 * makes the call from the directory the name lies in and goes back.
 * bind creates a file (--rw only); connect and a datagram's send (of @m,
 * the host's sendmsg @flags; its name is set here) reach only a socket a
 * guest bound, unless --net=host.  0 (a send: the bytes sent) or -errno
 * (EINPROGRESS for a connect that goes on).
 */
long unix_path_op(struct task *t, const char *path, int sock, enum unix_op op,
		  struct msghdr *m, int flags)
{
	static int runtime_cwd = -1;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	bool bind_it = op == UNIX_BIND;
	struct hpath hp;
	struct stat st;
	long r;

	if (runtime_cwd < 0)
		runtime_cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (strlen(path) >= sizeof(hp.buf))
		return -ENAMETOOLONG;
	strcpy(hp.buf, path);
	r = path_resolve(t, AT_FDCWD, &hp, !bind_it);
	if (r < 0)
		goto out;
	if (bind_it && (r = path_may_write(&hp)) < 0)
		goto out;
	if (!bind_it && opt.net != NET_HOST &&
	    (fstatat(hp.dirfd, hp.name, &st, 0) < 0 || !S_ISSOCK(st.st_mode) ||
	     !guest_sock_known(&st))) {
		r = fstatat(hp.dirfd, hp.name, &st, 0) < 0 ? -errno : -ECONNREFUSED;
		goto out;
	}
	if (strlen(hp.name) >= sizeof(sun.sun_path)) {
		r = -ENAMETOOLONG;
		goto out;
	}
	strcpy(sun.sun_path, hp.name);
	if (hp.dirfd != AT_FDCWD && (runtime_cwd < 0 || fchdir(hp.dirfd) < 0)) {
		r = -errno;
		goto out;
	}
	if (op == UNIX_SEND) {
		void *name = m->msg_name;
		socklen_t namelen = m->msg_namelen;

		m->msg_name = &sun;
		m->msg_namelen = sizeof(sun);
		r = sendmsg(sock, m, flags);
		if (r < 0)
			r = -errno;
		m->msg_name = name;
		m->msg_namelen = namelen;
	} else {
		r = bind_it ? bind(sock, (struct sockaddr *)&sun, sizeof(sun))
			    : connect(sock, (struct sockaddr *)&sun, sizeof(sun));
		if (r < 0)
			r = -errno;
	}
	if (r == 0 && bind_it && fstatat(AT_FDCWD, sun.sun_path, &st, 0) == 0)
		guest_sock_add(&st);
	if (hp.dirfd != AT_FDCWD && fchdir(runtime_cwd) < 0)
		die("cannot return to the runtime's directory");
out:
	hpath_put(&hp);
	return r;
}

struct groot root_default;	/* --root's; main.c fills it */

struct groot *groot_get(struct groot *r)
{
	r->refs++;
	return r;
}

void groot_put(struct groot *r)
{
	if (!r || --r->refs > 0 || r == &root_default)
		return;
	close(r->fd);
	free(r->path);
	free(r);
}

/*
 * chroot: the directory, found as any path is (inside the process's root
 * already, so a chroot can only narrow it), becomes the root of the
 * process and of the children it makes; the cwd stays.  The kernel's
 * checks in order: the path, a directory, search permission, then
 * CAP_SYS_CHROOT.
 */
long sys_chroot(struct task *t, const uint64_t *a)
{
	char link[64], host[PATH_MAX];
	struct groot *r;
	struct hpath hp;
	ssize_t n;
	int fd, e;

	e = path_get(t, AT_FDCWD, a[0], &hp, true);
	if (e < 0)
		return e;
	fd = openat(hp.dirfd, hp.name, O_PATH | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	hpath_put(&hp);
	if (fd < 0)
		return -e;
	if (syscall(SYS_faccessat2, fd, "", X_OK, AT_EMPTY_PATH | AT_EACCESS) < 0 &&
	    errno == EACCES) {
		close(fd);
		return -EACCES;
	}
	if (!(t->cap_eff & (1ULL << CAP_SYS_CHROOT))) {
		close(fd);
		return -EPERM;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, host, sizeof(host) - 1);
	r = malloc(sizeof(*r));
	if (n < 0 || !r) {
		close(fd);
		free(r);
		return -ENOMEM;
	}
	host[n] = 0;
	*r = (struct groot){ .refs = 1, .fd = fd, .path = strdup(host),
			     .slash = strcmp(host, "/") == 0 };
	if (!r->path) {
		close(fd);
		free(r);
		return -ENOMEM;
	}
	groot_put(t->p->root);
	t->p->root = r;
	return 0;
}
