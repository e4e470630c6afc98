// SPDX-License-Identifier: GPL-2.0-only
/*
 * sendfile, copy_file_range, splice, tee and vmsplice: the host's own calls
 * on the host fds behind the guest's, so the data never passes through the
 * runtime (but vmsplice's, from or to guest memory).  The runtime's pipes and sockets are non-blocking on the host:
 * a call that would block parks the guest on the fd it waits for, unless
 * the guest's file is O_NONBLOCK (or SPLICE_F_NONBLOCK).
 *
 * The runtime's own SIGALRM (the time slice, no SA_RESTART) interrupts
 * these host calls: EINTR with nothing moved is asked again, and between
 * regular files a short count is carried on, so that the guest sees a
 * transfer that no signal of its own cut short.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "umlrun.h"

/*
 * Both guest fds' files, or -EBADF; -EINVAL for a signalfd, which has
 * no splice operations (its host eventfd is the runtime's business).
 */
static int two_files(struct task *t, uint64_t a, uint64_t b,
		     struct file **fa, struct file **fb)
{
	*fa = fd_lookup(t, a);
	*fb = fd_lookup(t, b);
	if (!*fa || !*fb)
		return -EBADF;
	if ((*fa)->kind == FILE_SIGNALFD || (*fb)->kind == FILE_SIGNALFD ||
	    (*fa)->kind == FILE_PIDFD || (*fb)->kind == FILE_PIDFD)
		return -EINVAL;
	return 0;
}

/* A guest loff_t pointer in, or NULL. */
static int off_in(struct task *t, uint64_t uoff, loff_t *off, loff_t **p)
{
	*p = NULL;
	if (!uoff)
		return 0;
	if (copy_from_guest(t, off, uoff, sizeof(*off)) < 0)
		return -EFAULT;
	*p = off;
	return 0;
}

static int off_out(struct task *t, uint64_t uoff, const loff_t *p)
{
	if (!p)
		return 0;
	return copy_to_guest(t, uoff, p, sizeof(*p)) < 0 ? -EFAULT : 0;
}

/*
 * RLIMIT_FSIZE cuts the *@n bytes that may go to @out at *@po (NULL: its
 * offset).  An O_APPEND @out, or a negative offset, the host refuses
 * first, as the kernel does.
 */
static long fsize_cut(struct task *t, struct file *out, const loff_t *po,
		      size_t *n)
{
	if ((po && *po < 0) || (out->flags & O_APPEND))
		return 0;
	return rlimit_fsize_write(t, out, po ? *po : -1, false, n);
}

/*
 * A sendfile or splice that moved all that RLIMIT_FSIZE let through, of
 * more asked: the kernel's write loop went on to the limit, and sent
 * SIGXFSZ there (with what moved as the answer).
 */
static void fsize_hit(struct task *t, size_t moved, size_t cut, size_t asked)
{
	if (cut < asked && moved == cut)
		rlimit_fsize_exceeded(t);
}

/* EAGAIN from the host: wait on what is not ready, or pass it on. */
static long wait_either(struct task *t, struct file *in, struct file *out,
			bool nonblock)
{
	if (nonblock || (in->flags & O_NONBLOCK) || (out->flags & O_NONBLOCK))
		return -EAGAIN;
	if (in->pollable)
		block_on_fd(t, in->hostfd, POLLIN);
	if (out->pollable)
		block_on_fd(t, out->hostfd, POLLOUT);
	if (!in->pollable && !out->pollable)
		return -EAGAIN;
	return SYS_BLOCK;
}

long sys_sendfile(struct task *t, const uint64_t *a)
{
	struct file *out, *in;
	loff_t off, *p = NULL;
	size_t done = 0, count = a[3];
	ssize_t n;
	long r;

	r = two_files(t, a[0], a[1], &out, &in);
	if (r == 0)
		r = off_in(t, a[2], &off, &p);
	if (r == 0)
		r = fsize_cut(t, out, NULL, &count);
	if (r < 0)
		return r;
	for (;;) {
		n = sendfile(out->hostfd, in->hostfd, p, count - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
		if (done >= count || in->pollable || out->pollable)
			break;
	}
	fsize_hit(t, done, count, a[3]);
	if (!done && n < 0 && errno == EAGAIN)
		return wait_either(t, in, out, false);
	if (!done && n < 0)
		return -errno;
	if (done)
		io_activity = true;
	return off_out(t, a[2], p) ?: (long)done;
}

/* The (fd_in, off_in, fd_out, off_out) of copy_file_range and splice. */
struct xfer {
	struct file *in, *out;
	loff_t oi, oo, *pi, *po;
};

static int xfer_in(struct task *t, const uint64_t *a, struct xfer *x)
{
	return two_files(t, a[0], a[2], &x->in, &x->out) ?:
	       off_in(t, a[1], &x->oi, &x->pi) ?:
	       off_in(t, a[3], &x->oo, &x->po);
}

/* @n bytes moved: the offsets go back, then @n. */
static long xfer_out(struct task *t, const uint64_t *a, struct xfer *x,
		     ssize_t n)
{
	return off_out(t, a[1], x->pi) ?: off_out(t, a[3], x->po) ?: n;
}

long sys_copy_file_range(struct task *t, const uint64_t *a)
{
	struct xfer x;
	size_t done = 0, count = a[4];
	ssize_t n;
	long r;

	r = xfer_in(t, a, &x);
	if (r == 0 && !a[5])	/* flags are EINVAL first */
		r = fsize_cut(t, x.out, x.po, &count);
	if (r < 0)
		return r;
	for (;;) {
		n = copy_file_range(x.in->hostfd, x.pi, x.out->hostfd, x.po,
				    count - done, a[5]);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
		if (done >= count || x.in->pollable || x.out->pollable)
			break;
	}
	if (!done && n < 0)
		return -errno;
	return xfer_out(t, a, &x, done);
}

long sys_splice(struct task *t, const uint64_t *a)
{
	unsigned int flags = a[5];
	size_t count = a[4];
	struct xfer x;
	ssize_t n;
	long r;

	r = xfer_in(t, a, &x);
	if (r == 0)
		r = fsize_cut(t, x.out, x.po, &count);
	if (r < 0)
		return r;
	do
		n = splice(x.in->hostfd, x.pi, x.out->hostfd, x.po, count,
			   flags | SPLICE_F_NONBLOCK);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return wait_either(t, x.in, x.out, flags & SPLICE_F_NONBLOCK);
	if (n < 0)
		return -errno;
	fsize_hit(t, n, count, a[4]);
	if (n > 0)
		io_activity = true;
	return xfer_out(t, a, &x, n);
}

long sys_tee(struct task *t, const uint64_t *a)
{
	unsigned int flags = a[3];
	struct file *in, *out;
	ssize_t n;
	int r;

	r = two_files(t, a[0], a[1], &in, &out);
	if (r < 0)
		return r;
	do
		n = tee(in->hostfd, out->hostfd, a[2], flags | SPLICE_F_NONBLOCK);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return wait_either(t, in, out, flags & SPLICE_F_NONBLOCK);
	if (n < 0)
		return -errno;
	if (n > 0)
		io_activity = true;
	return n;
}

/*
 * vmsplice: guest memory into a pipe (a write end), or out of one (a read
 * end), with the host's vmsplice on a copy in the runtime; the kernel's
 * order of checks.  Into a pipe it waits only for some room and moves
 * what fits, whatever the file's O_NONBLOCK (as the kernel's does); out
 * of one it takes what is there.  A fault in the guest's memory after the
 * host call is a short count, or EFAULT with nothing moved.
 */
#define VMSPLICE_MAX	(1 << 20)	/* pipe-max-size's default */

/*
 * Into the pipe: a write, never the host's vmsplice, which would leave
 * the runtime's pages in the pipe.  A blocking host fd (a FIFO of the
 * host's) takes PIPE_BUF bytes at most once poll says there is room,
 * which then never waits.
 */
static ssize_t pipe_put(struct file *f, const char *buf, size_t n)
{
	ssize_t r;

	if (would_block(f, POLLOUT)) {
		errno = EAGAIN;
		return -1;
	}
	if (!f->hostnb && n > PIPE_BUF)
		n = PIPE_BUF;
	do
		r = write(f->hostfd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

long sys_vmsplice(struct task *t, const uint64_t *a)
{
	unsigned int flags = a[3];
	struct file *f = fd_lookup(t, a[0]);
	struct iovec v[1024], one;
	bool out;
	size_t total = 0, done = 0;
	unsigned long i, n = a[2];
	struct stat st;
	char *buf;
	ssize_t r;

	if (flags & ~(SPLICE_F_MOVE | SPLICE_F_NONBLOCK | SPLICE_F_MORE |
		      SPLICE_F_GIFT))
		return -EINVAL;
	if (!f || (f->flags & O_PATH))
		return -EBADF;
	out = (f->flags & O_ACCMODE) != O_RDONLY;	/* FMODE_WRITE: into it */
	if (n > 1024)
		return -EINVAL;
	if (n && copy_from_guest(t, v, a[1], n * sizeof(v[0])) < 0)
		return -EFAULT;
	for (i = 0; i < n; i++) {
		if ((ssize_t)v[i].iov_len < 0)
			return -EINVAL;
		if (v[i].iov_len > VMSPLICE_MAX - total)
			v[i].iov_len = VMSPLICE_MAX - total;
		total += v[i].iov_len;
	}
	if (!total)
		return 0;
	if (f->kind != FILE_PLAIN || fstat(f->hostfd, &st) < 0 ||
	    !S_ISFIFO(st.st_mode))
		return -EBADF;
	buf = malloc(total);
	if (!buf)
		return -ENOMEM;
	if (out) {
		for (i = 0; i < n; done += v[i++].iov_len)
			if (copy_from_guest(t, buf + done, (uint64_t)v[i].iov_base,
					    v[i].iov_len) < 0)
				break;
		total = done;
		if (!total) {
			free(buf);
			return -EFAULT;
		}
	}
	one = (struct iovec){ buf, total };
	if (out)
		r = pipe_put(f, buf, total);
	else
		do	/* a copy out of the pipe, which never waits */
			r = vmsplice(f->hostfd, &one, 1, SPLICE_F_NONBLOCK);
		while (r < 0 && errno == EINTR);
	if (r < 0) {
		r = -errno;
		free(buf);
		if (r == -EAGAIN && !(flags & SPLICE_F_NONBLOCK))
			return block_on_fd(t, f->hostfd, out ? POLLOUT : POLLIN);
		if (r == -EPIPE)	/* no reader: wait_for_space()'s SIGPIPE */
			send_sigpipe(t);
		return r;
	}
	if (!out) {
		for (i = 0, done = 0; i < n && done < (size_t)r; i++) {
			size_t c = v[i].iov_len < r - done ? v[i].iov_len : r - done;

			if (copy_to_guest(t, (uint64_t)v[i].iov_base, buf + done, c) < 0)
				break;
			done += c;
		}
		r = done ? (ssize_t)done : -EFAULT;
	}
	free(buf);
	if (r > 0)
		io_activity = true;
	return r;
}
