// SPDX-License-Identifier: GPL-2.0-only
/*
 * signalfd: guest signals read as struct signalfd_siginfo records.
 *
 * The signals are the guest's own (signal.c's queues), so the runtime
 * reads them itself; what the host gives is readiness.  Behind each
 * guest signalfd is a host eventfd of the runtime, non-blocking: it is
 * readable while a signal of the signalfd's mask is pending for a guest
 * process that holds the fd, so that poll, select and epoll (the host's,
 * on the host fds) and a blocked read wait on it like on any fd.
 * sigfd_refresh() makes it so after anything changed the pending sets
 * (signal.c sets sigfd_dirty) and before the runtime polls.
 *
 * A read takes the reader's signals, as the kernel's signalfd_dequeue()
 * takes current's: its thread's and its process's.  The kernel's poll
 * asks about the poller's signals; the runtime's readiness is about
 * every process that holds the fd: after a fork both do, and a process
 * may see a signalfd readable for the other's signal, whose read then
 * says EAGAIN (a blocking read then waits, polling every 10 ms).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "umlrun.h"

#define SFD_RECORDS	32	/* records per read, at most */

bool sigfd_dirty;
static struct file *sfds;	/* every signalfd */

_Static_assert(sizeof(struct signalfd_siginfo) == 128, "signalfd_siginfo");

static void set_ready(struct file *f, bool ready)
{
	uint64_t v = 1;

	if (ready == f->sfd_ready)
		return;
	if (ready ? write(f->hostfd, &v, 8) == 8 : read(f->hostfd, &v, 8) == 8)
		f->sfd_ready = ready;
	io_activity = true;
}

void sigfd_refresh(void)
{
	struct proc *p;
	struct file *f;
	struct task *t;
	uint64_t pend;
	int i;

	if (!sfds || !sigfd_dirty)
		return;
	sigfd_dirty = false;
	for (f = sfds; f; f = f->sfd_next)
		f->sfd_want = false;
	for (p = procs; p; p = p->next) {
		if (p->state != PROC_ALIVE || !p->fdt)
			continue;
		pend = p->shared_pending.set;
		for (t = p->threads; t; t = t->next_in_proc)
			pend |= t->pending.set;
		for (i = 0; pend && i < p->fdt->size; i++) {
			f = p->fdt->ent[i].f;
			if (f && f->kind == FILE_SIGNALFD && (f->sigmask & pend))
				f->sfd_want = true;
		}
	}
	for (f = sfds; f; f = f->sfd_next)
		set_ready(f, f->sfd_want);
}

/* file_put(): the last reference of @f goes. */
void sigfd_forget(struct file *f)
{
	struct file **pp;

	for (pp = &sfds; *pp; pp = &(*pp)->sfd_next) {
		if (*pp == f) {
			*pp = f->sfd_next;
			return;
		}
	}
}

/* The kernel's signalfd4(): sizemask, the mask, flags, then the fd. */
long sys_signalfd4(struct task *t, const uint64_t *a)
{
	int fd = a[0], flags = a[3], hfd;
	uint64_t mask;
	struct file *f;

	if (a[2] != 8)
		return -EINVAL;
	if (copy_from_guest(t, &mask, a[1], 8) < 0)
		return -EFAULT;
	if (flags & ~(SFD_CLOEXEC | SFD_NONBLOCK))
		return -EINVAL;
	mask &= ~UNBLOCKABLE;
	sigfd_dirty = true;
	if (fd != -1) {
		f = fd_lookup(t, fd);
		if (!f)
			return -EBADF;
		if (f->kind != FILE_SIGNALFD)
			return -EINVAL;
		f->sigmask = mask;
		return fd;
	}
	hfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (hfd < 0)
		return -errno;
	f = file_new(hfd, O_RDWR | ((flags & SFD_NONBLOCK) ? O_NONBLOCK : 0));
	if (!f) {
		close(hfd);
		return -ENOMEM;
	}
	f->pollable = f->hostnb = true;
	f->kind = FILE_SIGNALFD;
	f->sigmask = mask;
	f->sfd_next = sfds;
	sfds = f;
	return fd_install(t, 0, f, flags & SFD_CLOEXEC);
}

long sys_signalfd(struct task *t, const uint64_t *a)
{
	return sys_signalfd4(t, (uint64_t[]){ a[0], a[1], a[2], 0 });
}

/* As the kernel's signalfd_copyinfo(), by the siginfo's layout. */
static void fill_ssi(struct signalfd_siginfo *o, const struct ksiginfo *si)
{
	memset(o, 0, sizeof(*o));
	o->ssi_signo = si->signo;
	o->ssi_code = si->code;
	switch (si->signo) {
	case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP:
		if (si->code > 0) {
			o->ssi_addr = si->addr;
			o->ssi_trapno = si->trapno;
			return;
		}
		break;
	}
	if (si->code == -2 /* SI_TIMER */) {
		o->ssi_tid = si->timerid;
		o->ssi_overrun = si->overrun;
		o->ssi_ptr = si->value;
		o->ssi_int = (int32_t)si->value;
		return;
	}
	o->ssi_pid = si->pid;
	o->ssi_uid = si->uid;
	if (si->signo == SIGCHLD && si->code > 0) {
		o->ssi_status = si->status;
	} else if (si->code == -1 /* SI_QUEUE */ || si->code == -3 ||
		   si->code == -4) {
		o->ssi_ptr = si->value;
		o->ssi_int = (int32_t)si->value;
	}
}

/* Copy @len bytes to offset @pos of the guest's iovecs. */
static int copy_to_iov(struct task *t, const struct iovec *iov, int cnt,
		       uint64_t pos, const void *src, size_t len)
{
	const char *s = src;
	int i;

	for (i = 0; i < cnt && len; i++) {
		uint64_t l = iov[i].iov_len, c;

		if (pos >= l) {
			pos -= l;
			continue;
		}
		c = l - pos < len ? l - pos : len;
		if (copy_to_guest(t, (uint64_t)iov[i].iov_base + pos, s, c) < 0)
			return -EFAULT;
		s += c;
		len -= c;
		pos = 0;
	}
	return 0;
}

/*
 * read() and readv() (as the kernel's signalfd_read_iter()): the first
 * record waits unless O_NONBLOCK, the others are taken only if pending;
 * a record that meets a bad buffer is lost, as in the kernel.
 */
long sigfd_read(struct task *t, struct file *f, const struct iovec *iov,
		int cnt)
{
	struct signalfd_siginfo o;
	struct ksiginfo si;
	uint64_t n = 0, i;
	int k;

	for (k = 0; k < cnt; k++)
		n += iov[k].iov_len;
	n /= sizeof(o);
	if (!n)
		return -EINVAL;
	if (n > SFD_RECORDS)
		n = SFD_RECORDS;
	for (i = 0; i < n; i++) {
		if (!sig_take(t, f->sigmask, &si))
			break;
		fill_ssi(&o, &si);
		if (copy_to_iov(t, iov, cnt, i * sizeof(o), &o, sizeof(o)) < 0)
			return i ? (long)(i * sizeof(o)) : -EFAULT;
	}
	if (i)
		return i * sizeof(o);
	if (f->flags & O_NONBLOCK)
		return -EAGAIN;
	sigfd_refresh();
	if (f->sfd_ready)	/* another holder's signal: poll for ours */
		return block_until(t, now_ns() + 10000000);
	return block_on_fd(t, f->hostfd, POLLIN);
}
