// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest fd tables and the syscalls on open fds.  A guest fd names a struct
 * file, which owns one host fd of the runtime; fork shares the struct file
 * (and so the host file offset), like the kernel shares a struct file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/random.h>
#include <limits.h>
#include <linux/close_range.h>
#include <linux/sockios.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

#include "umlrun.h"

#define FD_MAX		1024
#define IO_CHUNK	(1 << 20)

int tty_fg_pgrp;

/* file_new() of a host fd whose fstat() is @st (NULL: it failed). */
struct file *file_new_stat(int hostfd, int flags, const struct stat *st)
{
	struct file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->refs = 1;
	f->hostfd = hostfd;
	f->flags = flags & ~O_CLOEXEC;
	if (st) {
		f->pollable = S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode) ||
			      S_ISSOCK(st->st_mode);
		f->in_proc = procfs_is_procfs(st);
		f->type_known = true;
		f->type_ok = fdpass_type_ok(st);
	}
	return f;
}

struct file *file_new(int hostfd, int flags)
{
	struct stat st;

	return file_new_stat(hostfd, flags, fstat(hostfd, &st) == 0 ? &st : NULL);
}

struct file *file_get(struct file *f)
{
	f->refs++;
	return f;
}

void file_put(struct file *f)
{
	if (f && --f->refs == 0) {
		if (f->kind == FILE_SIGNALFD)
			sigfd_forget(f);
		if (f->kind == FILE_PIDFD)
			pidfd_forget(f);
		if (f->kind == FILE_SOCKET && f->sock_family == AF_NETLINK)
			netlink_release(f);
		locks_release(f);
		worker_fd_closing(f->hostfd);
		close(f->hostfd);
		free(f->dirbuf);
		io_activity = true;
		free(f);
	}
}

struct fdtable *fdt_new(void)
{
	struct fdtable *fdt = calloc(1, sizeof(*fdt));

	if (!fdt)
		return NULL;
	fdt->refs = 1;
	fdt->size = 64;
	fdt->ent = calloc(fdt->size, sizeof(*fdt->ent));
	if (!fdt->ent) {
		free(fdt);
		return NULL;
	}
	return fdt;
}

struct fdtable *fdt_copy(const struct fdtable *src)
{
	struct fdtable *fdt = calloc(1, sizeof(*fdt));
	int i;

	if (!fdt)
		return NULL;
	fdt->refs = 1;
	fdt->size = src->size;
	fdt->ent = calloc(fdt->size, sizeof(*fdt->ent));
	if (!fdt->ent) {
		free(fdt);
		return NULL;
	}
	for (i = 0; i < src->size; i++) {
		fdt->ent[i] = src->ent[i];
		if (fdt->ent[i].f)
			file_get(fdt->ent[i].f);
	}
	return fdt;
}

void fdt_put(struct fdtable *fdt)
{
	int i;

	if (!fdt || --fdt->refs)
		return;
	sigfd_dirty = true;	/* a holder of signalfds may be gone */
	locks_release(fdt);
	for (i = 0; i < fdt->size; i++) {
		file_put(fdt->ent[i].f);
		fdt->ent[i].f = NULL;
	}
	if (!fdpass_release(fdt))
		return;		/* fdpass_done() frees it */
	free(fdt->ent);
	free(fdt);
}

void fdt_close_on_exec(struct fdtable *fdt)
{
	int i;

	for (i = 0; i < fdt->size; i++) {
		if (fdt->ent[i].f && fdt->ent[i].cloexec) {
			fdpass_forget(fdt, i);
			locks_close(fdt, fdt->ent[i].f);
			file_put(fdt->ent[i].f);
			fdt->ent[i].f = NULL;
			fdt->ent[i].cloexec = false;
		}
	}
}

/*
 * The entry of an open guest fd, or NULL.  Like the kernel's fd arguments,
 * @fd is an unsigned int: the dispatcher has already dropped the upper 32
 * bits of every fd argument (syscall.c), and a negative int is a number
 * past the table.  Every use of a guest fd number goes through here.
 */
struct fdent *fd_ent(struct task *t, unsigned int fd)
{
	struct fdtable *fdt = t->p->fdt;

	if (fd >= (unsigned int)fdt->size || !fdt->ent[fd].f)
		return NULL;
	return &fdt->ent[fd];
}

/* The host fd behind guest fd @fd of @kind: EBADF, or EINVAL for another kind. */
int fd_host_of(struct task *t, unsigned int fd, enum file_kind kind)
{
	struct file *f = fd_lookup(t, fd);

	if (!f)
		return -EBADF;
	return f->kind == kind ? f->hostfd : -EINVAL;
}

struct file *fd_lookup(struct task *t, unsigned int fd)
{
	struct fdent *e = fd_ent(t, fd);

	return e ? e->f : NULL;
}

static int fdt_grow(struct fdtable *fdt, int need)
{
	int size = fdt->size;
	struct fdent *n;

	while (size <= need)
		size *= 2;
	if (size > FD_MAX)
		size = FD_MAX;
	if (need >= size)
		return -EMFILE;
	n = realloc(fdt->ent, size * sizeof(*n));
	if (!n)
		return -ENOMEM;
	memset(n + fdt->size, 0, (size - fdt->size) * sizeof(*n));
	fdt->ent = n;
	fdt->size = size;
	return 0;
}

/* Install @f (a reference the caller gives) at the lowest free fd >= minfd. */
int fd_install(struct task *t, int minfd, struct file *f, bool cloexec)
{
	struct fdtable *fdt = t->p->fdt;
	int fd;

	for (fd = minfd; fd < FD_MAX; fd++) {
		if (fd >= fdt->size && fdt_grow(fdt, fd) < 0)
			break;
		if (!fdt->ent[fd].f) {
			fdt->ent[fd].f = f;
			fdt->ent[fd].cloexec = cloexec;
			return fd;
		}
	}
	file_put(f);
	return -EMFILE;
}

static int fd_install_at(struct task *t, int fd, struct file *f, bool cloexec)
{
	struct fdtable *fdt = t->p->fdt;
	struct file *old;

	if (fd < 0 || fd >= FD_MAX) {
		file_put(f);
		return -EBADF;
	}
	if (fd >= fdt->size && fdt_grow(fdt, fd) < 0) {
		file_put(f);
		return -EMFILE;
	}
	old = fdt->ent[fd].f;
	if (old)
		fdpass_forget(fdt, fd);
	fdt->ent[fd].f = f;
	fdt->ent[fd].cloexec = cloexec;
	if (old)
		locks_close(fdt, old);
	file_put(old);
	return fd;
}

/*
 * Would I/O on @f in direction @events block right now?  Even a poll()
 * with no timeout fails with EINTR when one of the runtime's own signals
 * (the slice timer's SIGALRM) comes while it finds nothing ready: that is
 * "not ready", and must be asked again, not taken for "ready".  A host fd
 * the runtime made non-blocking (its pipes, FIFOs) is not polled: its
 * read or write says EAGAIN itself.  (A FIFO's read returns 0 only when
 * no writer is there, which is EOF, as in the kernel: a blocking open
 * waited for a writer, fs.c.)
 */
bool would_block(struct file *f, short events)
{
	struct pollfd pfd = { .fd = f->hostfd, .events = events };
	int r;

	if (!f->pollable || f->hostnb)
		return false;
	do
		r = poll(&pfd, 1, 0);
	while (r < 0 && errno == EINTR);
	return r == 0;
}

/*
 * A read or write of a regular file moves all it can, as the kernel's
 * do (up to MAX_RW_COUNT): past IO_CHUNK the runtime goes on chunk by
 * chunk, at @off (-1: the file's offset), until done, a short move (end
 * of file, a full disk) or an error; what moved is the answer, else the
 * error.  Other files keep one chunk a call, which the kernel may also
 * cut short.  -ENOENT: not a regular file, or not larger than a chunk.
 */
#define MAX_RW_COUNT	(INT_MAX & ~4095L)

static long whole_file_io(struct task *t, struct file *f, uint64_t ubuf,
			  size_t len, int64_t off, bool wr)
{
	size_t total = 0, n;
	struct stat st;
	char *buf;
	ssize_t r = 0;

	if (len <= IO_CHUNK || f->kind != FILE_PLAIN ||
	    fstat(f->hostfd, &st) < 0 || !S_ISREG(st.st_mode))
		return -ENOENT;
	if (len > MAX_RW_COUNT)
		len = MAX_RW_COUNT;
	buf = malloc(IO_CHUNK);
	if (!buf)
		return -ENOMEM;
	while (total < len) {
		n = len - total < IO_CHUNK ? len - total : IO_CHUNK;
		if (wr && copy_from_guest(t, buf, ubuf + total, n) < 0) {
			r = -EFAULT;
			break;
		}
		do {
			if (wr)
				r = off < 0 ? write(f->hostfd, buf, n)
					    : pwrite(f->hostfd, buf, n, off + total);
			else
				r = off < 0 ? read(f->hostfd, buf, n)
					    : pread(f->hostfd, buf, n, off + total);
		} while (r < 0 && errno == EINTR);
		if (r < 0) {
			r = -errno;
			break;
		}
		if (!wr && r && copy_to_guest(t, ubuf + total, buf, r) < 0) {
			r = -EFAULT;
			break;
		}
		total += r;
		if ((size_t)r < n)
			break;
	}
	free(buf);
	return total ? (long)total : r;
}

static long read_common(struct task *t, struct file *f, char *buf, size_t n)
{
	ssize_t r;

	if (would_block(f, POLLIN))
		return (f->flags & O_NONBLOCK) ? -EAGAIN
					       : block_on_fd(t, f->hostfd, POLLIN);
	do
		r = read(f->hostfd, buf, n);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == EAGAIN && !(f->flags & O_NONBLOCK))
		return f->kind == FILE_TIMERFD ? timerfd_block(t, f) :
		       f->kind == FILE_SOCKET ? sock_block(t, f, POLLIN) :
		       block_on_fd(t, f->hostfd, POLLIN);
	if (r > 0 && f->pollable)
		io_activity = true;	/* a writer may be waiting for room */
	return r < 0 ? -errno : r;
}

void send_sigpipe(struct task *t)
{
	struct ksiginfo si = { .signo = SIGPIPE, .pid = t->p->pid };

	sig_send_task(t, &si);
}

/* Write all of @buf unless the fd is non-blocking; t->sys_done keeps the
 * progress across blocks. */
static long write_common(struct task *t, struct file *f, const char *buf,
			 size_t n)
{
	if (f->kind == FILE_SOCKET && f->sock_family == AF_NETLINK)
		return netlink_send(t, f, NULL, 0, buf, n);
	while (t->sys_done < n) {
		size_t done = t->sys_done;
		ssize_t r;

		if (would_block(f, POLLOUT))
			goto block;
		r = write(f->hostfd, buf + done, n - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			goto block;
		if (r < 0) {
			if (errno == EPIPE)
				send_sigpipe(t);
			return done ? (long)done : -errno;
		}
		io_activity = true;
		t->sys_done += r;
		if (!f->pollable)
			break;
		continue;
block:
		if (f->flags & O_NONBLOCK)
			return done ? (long)done : -EAGAIN;
		if (f->kind != FILE_SOCKET)
			return block_on_fd(t, f->hostfd, POLLOUT);
		r = sock_block(t, f, POLLOUT);	/* SO_SNDTIMEO */
		return r == -EAGAIN && done ? (long)done : r;
	}
	return t->sys_done;
}

long sys_read(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);
	size_t n = a[2] < IO_CHUNK ? a[2] : IO_CHUNK;
	char *buf;
	long r;

	if (!f)
		return -EBADF;
	if (f->kind == FILE_PIDFD)
		return -EINVAL;	/* no read operation (FMODE_CAN_READ) */
	if (f->kind == FILE_SIGNALFD)
		return sigfd_read(t, f, &(struct iovec){ (void *)a[1], a[2] }, 1);
	if (!n)
		return 0;
	r = whole_file_io(t, f, a[1], a[2], -1, false);
	if (r != -ENOENT)
		return r;
	buf = malloc(n);
	if (!buf)
		return -ENOMEM;
	r = read_common(t, f, buf, n);
	if (r > 0 && copy_to_guest(t, a[1], buf, r) < 0)
		r = -EFAULT;
	free(buf);
	return r;
}

long sys_write(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);
	size_t len = a[2], n;
	char *buf;
	long r;

	if (!f)
		return -EBADF;
	if (f->kind == FILE_SIGNALFD || f->kind == FILE_PIDFD)
		return -EINVAL;	/* it has no write operation */
	if (!len)
		return 0;
	if (!t->sys_again) {
		r = rlimit_fsize_write(t, f, -1, f->flags & O_APPEND, &len);
		if (r < 0)
			return r;
		r = whole_file_io(t, f, a[1], len, -1, true);
		if (r != -ENOENT)
			return r;
	}
	n = len < IO_CHUNK ? len : IO_CHUNK;
	buf = malloc(n);
	if (!buf)
		return -ENOMEM;
	r = copy_from_guest(t, buf, a[1], n);
	if (r == 0)
		r = write_common(t, f, buf, n);
	free(buf);
	return r;
}

/*
 * Load a guest iovec array, the lengths cut so that they add up to at most
 * IO_CHUNK bytes (*@total), as the kernel's import_iovec() cuts them to
 * MAX_RW_COUNT.  Its rules: a count above UIO_MAXIOV (1024), or a length
 * with the sign bit set anywhere in the array, is EINVAL.  The cut never
 * adds a guest's length to the sum unchecked, so no sum can wrap.
 */
static long iov_load(struct task *t, uint64_t uiov, int cnt, struct iovec *iov,
		     size_t *total)
{
	int i;

	if (cnt < 0 || cnt > 1024)
		return -EINVAL;
	if (copy_from_guest(t, iov, uiov, cnt * sizeof(*iov)) < 0)
		return -EFAULT;
	*total = 0;
	for (i = 0; i < cnt; i++) {
		if ((ssize_t)iov[i].iov_len < 0)
			return -EINVAL;
		if (iov[i].iov_len > IO_CHUNK - *total)
			iov[i].iov_len = IO_CHUNK - *total;
		*total += iov[i].iov_len;
	}
	return 0;
}

/*
 * Copy the first @total bytes of guest @iov (as iov_load() cut it, or
 * less: RLIMIT_FSIZE may cut it again) into @buf.
 */
static int iov_gather(struct task *t, const struct iovec *iov, size_t total,
		      char *buf)
{
	size_t off;
	int i;

	for (i = 0, off = 0; off < total; i++) {
		size_t c = iov[i].iov_len < total - off ? iov[i].iov_len
							: total - off;

		if (copy_from_guest(t, buf + off, (uint64_t)iov[i].iov_base, c) < 0)
			return -EFAULT;
		off += c;
	}
	return 0;
}

/* Copy the first @n bytes of @buf out to guest @iov, in order. */
static int iov_scatter(struct task *t, const struct iovec *iov,
		       const char *buf, size_t n)
{
	size_t off;
	int i;

	for (i = 0, off = 0; off < n; i++) {
		size_t c = iov[i].iov_len < n - off ? iov[i].iov_len : n - off;

		if (copy_to_guest(t, (uint64_t)iov[i].iov_base, buf + off, c) < 0)
			return -EFAULT;
		off += c;
	}
	return 0;
}

long sys_readv(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);
	struct iovec iov[1024];
	size_t total;
	char *buf;
	long r;

	if (!f)
		return -EBADF;
	if (f->kind == FILE_PIDFD)
		return -EINVAL;
	r = iov_load(t, a[1], a[2], iov, &total);
	if (r == 0 && f->kind == FILE_SIGNALFD)
		return sigfd_read(t, f, iov, a[2]);
	if (r < 0 || !total)
		return r;
	buf = malloc(total);
	if (!buf)
		return -ENOMEM;
	r = read_common(t, f, buf, total);
	if (r > 0 && iov_scatter(t, iov, buf, r) < 0)
		r = -EFAULT;
	free(buf);
	return r;
}

long sys_writev(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);
	struct iovec iov[1024];
	size_t total;
	char *buf;
	long r;

	if (!f)
		return -EBADF;
	if (f->kind == FILE_SIGNALFD || f->kind == FILE_PIDFD)
		return -EINVAL;	/* it has no write operation */
	r = iov_load(t, a[1], a[2], iov, &total);
	if (r == 0 && !t->sys_again)
		r = rlimit_fsize_write(t, f, -1, f->flags & O_APPEND, &total);
	if (r < 0 || !total)
		return r;
	buf = malloc(total);
	if (!buf)
		return -ENOMEM;
	if (iov_gather(t, iov, total, buf) < 0) {
		free(buf);
		return -EFAULT;
	}
	r = write_common(t, f, buf, total);
	free(buf);
	return r;
}

/* Does a pwritev2 with @flags write at the end (kiocb_set_rw_flags())? */
#define RWF_APPEND_K	0x10
#define RWF_NOAPPEND_K	0x20
#define RWF_KNOWN	0xff	/* RWF_SUPPORTED: others are EOPNOTSUPP first */

static bool rwf_append(const struct file *f, int flags)
{
	if (flags & RWF_APPEND_K)
		return true;
	return (f->flags & O_APPEND) && !(flags & RWF_NOAPPEND_K);
}

/*
 * preadv, pwritev and their "2" forms: through one buffer, with the host's
 * preadv2/pwritev2, which checks the fd's mode, that it can seek, and the
 * flags as Linux does.  On x86-64 the offset is all in a[3] (the kernel's
 * pos_from_hilo() shifts a[4] out); -1 in the "2" forms is the file offset.
 */
static long prwv(struct task *t, const uint64_t *a, bool wr, bool v2)
{
	int64_t pos = a[3];
	int flags = v2 ? (int)a[5] : 0;
	struct file *f = fd_lookup(t, a[0]);
	struct iovec iov[1024], one;
	size_t total;
	char *buf;
	long r;

	if (pos < 0 && !(v2 && pos == -1))
		return -EINVAL;
	if (!f)
		return -EBADF;
	if (f->kind == FILE_PIDFD)
		return -EINVAL;
	r = iov_load(t, a[1], a[2], iov, &total);
	if (r == 0 && wr && !(flags & ~RWF_KNOWN))
		r = rlimit_fsize_write(t, f, pos, rwf_append(f, flags), &total);
	if (r < 0)
		return r;
	buf = malloc(total + 1);
	if (!buf)
		return -ENOMEM;
	if (wr && iov_gather(t, iov, total, buf) < 0) {
		free(buf);
		return -EFAULT;
	}
	one.iov_base = buf;
	one.iov_len = total;
	r = syscall(wr ? SYS_pwritev2 : SYS_preadv2, f->hostfd, &one, 1,
		    pos, 0, flags);
	if (r < 0)
		r = -errno;
	if (!wr && r > 0 && iov_scatter(t, iov, buf, r) < 0)
		r = -EFAULT;
	free(buf);
	return r;
}

long sys_preadv(struct task *t, const uint64_t *a)
{
	return prwv(t, a, false, false);
}

long sys_pwritev(struct task *t, const uint64_t *a)
{
	return prwv(t, a, true, false);
}

long sys_preadv2(struct task *t, const uint64_t *a)
{
	return prwv(t, a, false, true);
}

long sys_pwritev2(struct task *t, const uint64_t *a)
{
	return prwv(t, a, true, true);
}

long sys_pread64(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);
	size_t n = a[2] < IO_CHUNK ? a[2] : IO_CHUNK;
	char *buf;
	long r;

	if (!f)
		return -EBADF;
	if (f->kind == FILE_PIDFD)
		return -EINVAL;	/* no read or write operation */
	if ((int64_t)a[3] >= 0) {
		r = whole_file_io(t, f, a[1], a[2], a[3], false);
		if (r != -ENOENT)
			return r;
	}
	buf = malloc(n + 1);
	if (!buf)
		return -ENOMEM;
	r = pread(f->hostfd, buf, n, a[3]);
	if (r < 0)
		r = -errno;
	else if (copy_to_guest(t, a[1], buf, r) < 0)
		r = -EFAULT;
	free(buf);
	return r;
}

long sys_pwrite64(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);
	size_t len = a[2], n;
	char *buf;
	long r;

	if (!f)
		return -EBADF;
	if (f->kind == FILE_PIDFD)
		return -EINVAL;	/* no read or write operation */
	if ((int64_t)a[3] >= 0) {
		r = rlimit_fsize_write(t, f, a[3], f->flags & O_APPEND, &len);
		if (r < 0)
			return r;
		r = whole_file_io(t, f, a[1], len, a[3], true);
		if (r != -ENOENT)
			return r;
	}
	n = len < IO_CHUNK ? len : IO_CHUNK;
	buf = malloc(n + 1);
	if (!buf)
		return -ENOMEM;
	r = copy_from_guest(t, buf, a[1], n);
	if (r == 0) {
		r = pwrite(f->hostfd, buf, n, a[3]);
		if (r < 0)
			r = -errno;
	}
	free(buf);
	return r;
}

long sys_close(struct task *t, const uint64_t *a)
{
	struct fdent *e = fd_ent(t, a[0]);

	if (!e)
		return -EBADF;
	fdpass_forget(t->p->fdt, a[0]);
	locks_close(t->p->fdt, e->f);
	file_put(e->f);
	e->f = NULL;
	e->cloexec = false;
	return 0;
}

/*
 * close_range: the kernel's checks, then every open fd from @first to
 * @last, closed or marked close-on-exec.  CLOSE_RANGE_UNSHARE gives the
 * process a table of its own first when it shares one (CLONE_FILES);
 * the threads of a process keep sharing theirs.
 */
long sys_close_range(struct task *t, const uint64_t *a)
{
	unsigned int first = a[0], last = a[1], flags = a[2], i;
	struct fdtable *fdt = t->p->fdt;

	if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC))
		return -EINVAL;
	if (first > last)
		return -EINVAL;
	if ((flags & CLOSE_RANGE_UNSHARE) && fdt->refs > 1) {
		struct fdtable *own = fdt_copy(fdt);

		if (!own)
			return -ENOMEM;
		fdpass_drop(fdt);	/* two tables in one host table */
		fdt_put(fdt);
		t->p->fdt = fdt = own;
	}
	for (i = first; i < (unsigned int)fdt->size && i <= last; i++) {
		struct fdent *e = fd_ent(t, i);

		if (!e)
			continue;
		if (flags & CLOSE_RANGE_CLOEXEC) {
			e->cloexec = true;
			continue;
		}
		fdpass_forget(fdt, i);
		file_put(e->f);
		e->f = NULL;
		e->cloexec = false;
	}
	return 0;
}

/*
 * memfd_create: a host memfd of the runtime (so mappings of it are
 * shared between guest processes by the host, and seals are the host's),
 * with the guest's name and flags: the host checks them as it checks its
 * own.  The kernel checks the flags before the name.
 */
long sys_memfd_create(struct task *t, const uint64_t *a)
{
	unsigned int flags = a[1];
	char name[250];		/* MFD_NAME_MAX_LEN + 1 */
	struct file *f;
	int r, hfd;

	r = strncpy_from_guest(t, name, a[0], sizeof(name));
	if (r < 0) {
		hfd = memfd_create("", flags | MFD_CLOEXEC);
		if (hfd < 0)
			return -errno;
		close(hfd);
		return r == -EFAULT ? -EFAULT : -EINVAL;
	}
	hfd = memfd_create(name, flags | MFD_CLOEXEC);
	if (hfd < 0)
		return -errno;
	f = file_new(hfd, O_RDWR | O_LARGEFILE);
	if (!f) {
		close(hfd);
		return -ENOMEM;
	}
	return fd_install(t, 0, f, flags & MFD_CLOEXEC);
}

long sys_dup(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);

	if (!f)
		return -EBADF;
	return fd_install(t, 0, file_get(f), false);
}

long sys_dup2(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);

	if (!f)
		return -EBADF;
	if (a[0] == a[1])
		return a[1];
	return fd_install_at(t, a[1], file_get(f), false);
}

long sys_dup3(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);

	if ((a[2] & ~O_CLOEXEC) || a[0] == a[1])
		return -EINVAL;
	if (!f)
		return -EBADF;
	return fd_install_at(t, a[1], file_get(f), a[2] & O_CLOEXEC);
}

static long do_pipe(struct task *t, uint64_t ufds, int flags)
{
	struct file *r, *w;
	int hfd[2], gfd[2];

	if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	if (pipe2(hfd, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	r = file_new(hfd[0], O_RDONLY | (flags & O_NONBLOCK));
	w = file_new(hfd[1], O_WRONLY | (flags & O_NONBLOCK));
	if (!r || !w) {
		close(hfd[0]);
		close(hfd[1]);
		return -ENOMEM;
	}
	r->hostnb = w->hostnb = true;
	gfd[0] = fd_install(t, 0, r, flags & O_CLOEXEC);
	if (gfd[0] < 0) {
		file_put(w);
		return gfd[0];
	}
	gfd[1] = fd_install(t, 0, w, flags & O_CLOEXEC);
	if (gfd[1] < 0) {
		sys_close(t, (uint64_t[]){ gfd[0] });
		return gfd[1];
	}
	if (copy_to_guest(t, ufds, gfd, sizeof(gfd)) < 0) {
		sys_close(t, (uint64_t[]){ gfd[0] });
		sys_close(t, (uint64_t[]){ gfd[1] });
		return -EFAULT;
	}
	return 0;
}

long sys_pipe(struct task *t, const uint64_t *a)
{
	return do_pipe(t, a[0], 0);
}

long sys_pipe2(struct task *t, const uint64_t *a)
{
	return do_pipe(t, a[0], a[1]);
}

long sys_fcntl(struct task *t, const uint64_t *a)
{
	struct fdent *e = fd_ent(t, a[0]);
	const int setfl = O_APPEND | O_NONBLOCK | O_ASYNC | O_DIRECT | O_NOATIME;
	struct file *f;
	int r;

	if (!e)
		return -EBADF;
	f = e->f;
	switch (a[1]) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if (a[2] >= FD_MAX)
			return -EINVAL;
		return fd_install(t, a[2], file_get(f), a[1] == F_DUPFD_CLOEXEC);
	case F_GETFD:
		return e->cloexec ? FD_CLOEXEC : 0;
	case F_SETFD:
		e->cloexec = a[2] & FD_CLOEXEC;
		return 0;
	case F_GETFL:
		return f->flags;
	case F_SETFL:
		f->flags = (f->flags & ~setfl) | (a[2] & setfl);
		if (!f->hostnb && f->hostfd > 2) {
			int hfl = fcntl(f->hostfd, F_GETFL);

			if (hfl >= 0)
				fcntl(f->hostfd, F_SETFL, (hfl & ~O_APPEND) |
				      (a[2] & O_APPEND));
		}
		return 0;
	case F_ADD_SEALS:
	case F_GET_SEALS: {
		/* memfds are the host's: so are their seals */
		int r;

		if (f->synth)
			return -EINVAL;
		r = fcntl(f->hostfd, a[1], (int)a[2]);
		return r < 0 ? -errno : r;
	}
	case F_GETPIPE_SZ:
	case F_SETPIPE_SZ:
		/* Guest pipes are host pipes: the host checks and sizes. */
		r = fcntl(f->hostfd, (int)a[1], (unsigned long)a[2]);
		return r < 0 ? -errno : r;
	case F_GETLK:
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_GETLK:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		return lock_fcntl(t, f, a[1], a[2]);	/* lock.c */
	default:
		return -EINVAL;
	}
}

/*
 * FS_IOC_GETFLAGS and FS_IOC_SETFLAGS (chattr's immutable, append-only...):
 * the host's, on a host file or directory, an int as the kernel takes it.
 * A change is a change to the host file, so only with --rw (EROFS, as a
 * read-only mount says); the host checks ownership and capabilities.
 */
static long inode_flags(struct task *t, struct file *f, unsigned int cmd,
			uint64_t uarg)
{
	int v;

	if (f->kind != FILE_PLAIN || f->synth || f->in_proc || f->pollable)
		return -ENOTTY;
	if (cmd == FS_IOC_SETFLAGS) {
		if (copy_from_guest(t, &v, uarg, sizeof(v)) < 0)
			return -EFAULT;
		if (!opt.rw)
			return -EROFS;
		return ioctl(f->hostfd, FS_IOC_SETFLAGS, &v) < 0 ? -errno : 0;
	}
	if (ioctl(f->hostfd, FS_IOC_GETFLAGS, &v) < 0)
		return -errno;
	return copy_to_guest(t, uarg, &v, sizeof(v)) < 0 ? -EFAULT : 0;
}

/*
 * The host's pseudo-terminal multiplexer and random device: a pty's
 * number and lock (openpty, posix_openpt, unlockpt, ptsname), the peer
 * terminal as a new guest fd (TIOCGPTPEER, with the flags its argument
 * gives), the entropy count.  Other files: ENOTTY, or the host's answer.
 */
static long chardev_ioctl(struct task *t, struct file *f, unsigned int cmd,
			  uint64_t uarg)
{
	struct file *peer;
	struct stat st;
	int v, fd;

	/*
	 * Only where these numbers mean what the guest asks: the pty
	 * multiplexer (5, 2), the random devices (1, 8) and (1, 9); another
	 * driver may read the same number as something else.
	 */
	if (f->kind != FILE_PLAIN || f->synth || fstat(f->hostfd, &st) < 0 ||
	    !S_ISCHR(st.st_mode))
		return -ENOTTY;
	if (cmd == RNDGETENTCNT ? major(st.st_rdev) != 1 ||
				  (minor(st.st_rdev) != 8 && minor(st.st_rdev) != 9)
				: st.st_rdev != makedev(5, 2))
		return -ENOTTY;
	switch (cmd) {
	case TIOCSPTLCK:
		if (copy_from_guest(t, &v, uarg, sizeof(v)) < 0)
			return -EFAULT;
		return ioctl(f->hostfd, cmd, &v) < 0 ? -errno : 0;
	case TIOCGPTPEER:	/* ptm_open_peer(): the flags are open's, unchecked */
		fd = ioctl(f->hostfd, TIOCGPTPEER, ((int)uarg & ~O_CLOEXEC) | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		peer = file_new(fd, (int)uarg & ~O_CLOEXEC);
		if (!peer) {
			close(fd);
			return -ENOMEM;
		}
		return fd_install(t, 0, peer, uarg & O_CLOEXEC);
	default:	/* TIOCGPTN, RNDGETENTCNT: an int out */
		if (ioctl(f->hostfd, cmd, &v) < 0)
			return -errno;
		return copy_to_guest(t, uarg, &v, sizeof(v)) < 0 ? -EFAULT : 0;
	}
}

long sys_ioctl(struct task *t, const uint64_t *a)
{
	struct fdent *e = fd_ent(t, a[0]);
	unsigned int cmd = a[1];	/* the kernel's cmd is an unsigned int */
	struct file *f;
	char buf[64];
	size_t len;
	int v;

	if (!e || (e->f->flags & O_PATH))	/* fdget() skips O_PATH files */
		return -EBADF;
	f = e->f;
	if (f->kind == FILE_PIDFD && cmd != FIONBIO && cmd != FIOCLEX &&
	    cmd != FIONCLEX)
		return pidfd_ioctl(f, a[2]);
	switch (cmd) {
	case TCGETS:
	case TCGETA:
	case TIOCGWINSZ:
		/* struct termios (36 bytes), the old struct termio (18) */
		len = cmd == TCGETS ? 36 : cmd == TCGETA ? 18 : sizeof(struct winsize);
		if (ioctl(f->hostfd, cmd, buf) < 0)
			return -errno;
		return copy_to_guest(t, a[2], buf, len) < 0 ? -EFAULT : 0;
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
	case TCSETA:
	case TCSETAW:
	case TCSETAF:
	case TIOCSWINSZ:
		len = cmd == TIOCSWINSZ ? sizeof(struct winsize) :
		      cmd == TCSETA || cmd == TCSETAW || cmd == TCSETAF ? 18 : 36;
		if (copy_from_guest(t, buf, a[2], len) < 0)
			return -EFAULT;
		return ioctl(f->hostfd, cmd, buf) < 0 ? -errno : 0;
	case TIOCGPGRP:
		if (ioctl(f->hostfd, TIOCGPGRP, &v) < 0)
			return -errno;
		v = tty_fg_pgrp ? tty_fg_pgrp : init_proc->pgid;
		return copy_to_guest(t, a[2], &v, 4) < 0 ? -EFAULT : 0;
	case TIOCSPGRP:
		if (ioctl(f->hostfd, TIOCGPGRP, &v) < 0)
			return -errno;
		if (copy_from_guest(t, &v, a[2], 4) < 0)
			return -EFAULT;
		tty_fg_pgrp = v;
		return 0;
	case FIONREAD:
		if (ioctl(f->hostfd, FIONREAD, &v) < 0)
			return -errno;
		return copy_to_guest(t, a[2], &v, 4) < 0 ? -EFAULT : 0;
	case FIONBIO:
		if (copy_from_guest(t, &v, a[2], 4) < 0)
			return -EFAULT;
		f->flags = v ? f->flags | O_NONBLOCK : f->flags & ~O_NONBLOCK;
		return 0;
	case TCSBRK:
	case TCFLSH:
	case TCXONC:
		/* Integer arguments: tcdrain, tcflush, tcflow. */
		return ioctl(f->hostfd, cmd, (int)a[2]) < 0 ? -errno : 0;
	case FIOCLEX:
	case FIONCLEX:
		e->cloexec = cmd == FIOCLEX;
		return 0;
	case FS_IOC_GETFLAGS:
	case FS_IOC_SETFLAGS:
		return inode_flags(t, f, cmd, a[2]);
	case TIOCGPTN:
	case TIOCSPTLCK:
	case TIOCGPTPEER:
	case RNDGETENTCNT:
		return chardev_ioctl(t, f, cmd, a[2]);
	case SIOCATMARK:	/* an int out, of a socket */
		if (f->kind != FILE_SOCKET)
			return -ENOTTY;
		if (ioctl(f->hostfd, SIOCATMARK, &v) < 0)
			return -errno;
		return copy_to_guest(t, a[2], &v, sizeof(v)) < 0 ? -EFAULT : 0;
	case SIOCSIFFLAGS:
	case SIOCSIFMTU:
	case SIOCSIFADDR:
	case SIOCSIFNETMASK:
	case SIOCSIFBRDADDR:
	case SIOCSIFNAME:
	case SIOCSIFHWADDR:
	case SIOCSIFTXQLEN:
	case SIOCGIFCONF:
	case SIOCGIFINDEX:
	case SIOCGIFNAME:
	case SIOCGIFFLAGS:
	case SIOCGIFMTU:
	case SIOCGIFADDR:
	case SIOCGIFNETMASK:
	case SIOCGIFBRDADDR:
	case SIOCGIFHWADDR:
	case SIOCGIFTXQLEN:
		return netlink_ifreq(t, f, cmd, a[2]);
	default:
		return -ENOTTY;
	}
}

long sys_lseek(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);
	off_t r;

	if (!f)
		return -EBADF;
	if (f->procdir && a[1] == 0 && a[2] == SEEK_SET) {
		free(f->dirbuf);	/* rewinddir: list afresh */
		f->dirbuf = NULL;
	}
	r = lseek(f->hostfd, a[1], a[2]);
	return r < 0 ? -errno : r;
}

long sys_getdents64(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);
	size_t n = a[2] < 65536 ? a[2] : 65536;
	char buf[65536];
	long r;

	if (!f)
		return -EBADF;
	if (f->procdir)
		return procfs_getdents(t, f, a[1], n);
	r = syscall(SYS_getdents64, f->hostfd, buf, n);
	if (r < 0)
		return -errno;
	return copy_to_guest(t, a[1], buf, r) < 0 ? -EFAULT : r;
}

long sys_fstat(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);
	struct stat st;

	if (!f)
		return -EBADF;
	if (fstat(f->hostfd, &st) < 0)
		return -errno;
	pidfd_stat(t, a[0], &st);
	return copy_to_guest(t, a[1], &st, sizeof(st)) < 0 ? -EFAULT : 0;
}

long sys_fstatfs(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);
	char buf[120];

	if (!f)
		return -EBADF;
	if (fstatfs(f->hostfd, (void *)buf) < 0)
		return -errno;
	return copy_to_guest(t, a[1], buf, sizeof(buf)) < 0 ? -EFAULT : 0;
}

/* fd syscalls that need write permission on the guest's files. */
static long fd_write_op(struct task *t, int fd, struct file **fp)
{
	*fp = fd_lookup(t, fd);
	if (!*fp)
		return -EBADF;
	return 0;
}

long sys_fsync(struct task *t, const uint64_t *a)
{
	struct file *f;

	return fd_write_op(t, a[0], &f) ?: (fsync(f->hostfd) < 0 ? -errno : 0);
}

long sys_fdatasync(struct task *t, const uint64_t *a)
{
	return sys_fsync(t, a);
}

long sys_ftruncate(struct task *t, const uint64_t *a)
{
	struct file *f;

	return fd_write_op(t, a[0], &f) ?:
	       rlimit_fsize_grow(t, f->hostfd, a[1]) ?:
	       (ftruncate(f->hostfd, a[1]) < 0 ? -errno : 0);
}

long sys_fchmod(struct task *t, const uint64_t *a)
{
	struct file *f;

	if (!opt.rw)
		return -EROFS;
	return fd_write_op(t, a[0], &f) ?:
	       (fchmod(f->hostfd, a[1]) < 0 ? -errno : 0);
}

long sys_fchown(struct task *t, const uint64_t *a)
{
	struct file *f;

	if (!opt.rw)
		return -EROFS;
	return fd_write_op(t, a[0], &f) ?:
	       (fchown(f->hostfd, a[1], a[2]) < 0 ? -errno : 0);
}

/* Advice about the host file: the host checks it (EINVAL, ESPIPE) and takes it. */
long sys_fadvise64(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);

	if (!f)
		return -EBADF;
	return syscall(SYS_fadvise64, f->hostfd, a[1], a[2], (int)a[3]) < 0 ? -errno : 0;
}

/*
 * readahead and sync_file_range: the guest's fd as fdget() finds it (no
 * O_PATH file; readahead needs one opened for reading, FMODE_READ), then
 * the host's call on the host fd, which makes the kernel's checks of the
 * file's type (readahead: EINVAL unless regular or a block device;
 * sync_file_range: ESPIPE for a pipe or socket), the flags and the range.
 */
long sys_readahead(struct task *t, const uint64_t *a)
{
	struct fdent *e = fd_ent(t, a[0]);

	if (!e || (e->f->flags & O_PATH) ||
	    (e->f->flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	return syscall(SYS_readahead, e->f->hostfd, a[1], a[2]) < 0 ? -errno : 0;
}

long sys_sync_file_range(struct task *t, const uint64_t *a)
{
	struct fdent *e = fd_ent(t, a[0]);

	if (!e || (e->f->flags & O_PATH))
		return -EBADF;
	return syscall(SYS_sync_file_range, e->f->hostfd, a[1], a[2],
		       (unsigned int)a[3]) < 0 ? -errno : 0;
}

/*
 * The host's fallocate with the runtime's signals blocked: tmpfs's gives
 * up with EINTR at any pending signal and undoes what it allocated, and
 * the slice timer's SIGALRM comes every slice, so an allocation longer
 * than a slice would fail, or never end if asked again.  The tick waits.
 */
static int host_fallocate(int fd, int mode, int64_t off, int64_t len)
{
	sigset_t all, old;
	int r, e;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = fallocate(fd, mode, off, len);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return r;
}

/*
 * fallocate: the host checks the mode, the range and the fd; what would
 * grow the file (a plain allocation or FALLOC_FL_ZERO_RANGE, without
 * FALLOC_FL_KEEP_SIZE) is first held to RLIMIT_FSIZE.
 */
long sys_fallocate(struct task *t, const uint64_t *a)
{
	int mode = a[1];
	int64_t off = a[2], len = a[3], end;
	struct file *f;
	long r;

	r = fd_write_op(t, a[0], &f);
	if (r == 0 && !(mode & ~FALLOC_FL_ZERO_RANGE) && off >= 0 && len > 0 &&
	    !__builtin_add_overflow(off, len, &end))
		r = rlimit_fsize_grow(t, f->hostfd, end);
	if (r)
		return r;
	return host_fallocate(f->hostfd, mode, off, len) < 0 ? -errno : 0;
}
