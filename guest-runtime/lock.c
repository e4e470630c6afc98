// SPDX-License-Identifier: GPL-2.0-only
/*
 * File locks among the guest's processes: fcntl's POSIX record locks
 * (owned by an fd table, as the kernel's by current->files), OFD locks
 * (owned by the open file) and flock (owned by the open file, whole file,
 * a namespace of its own), after fs/locks.c.  The runtime holds every
 * guest file open itself, so host locks could not tell guest processes
 * apart: the runtime keeps the locks, per host inode.  Host processes'
 * locks are not seen, nor are the guest's by them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umlrun.h"

#define OFFSET_MAX	INT64_MAX

struct lock {
	struct lock *next;
	dev_t dev;
	ino_t ino;
	const void *owner;	/* struct fdtable * (POSIX) or struct file * */
	bool flock;		/* flock(2): conflicts only with flock locks */
	bool ofd;
	int pid;		/* F_GETLK's l_pid: the locker, -1 for OFD */
	short type;		/* F_RDLCK or F_WRLCK */
	int64_t start, end;	/* inclusive; end OFFSET_MAX: to the end of file */
};

/*
 * In the kernel's order, which F_GETLK's answer shows (the first
 * conflict): an owner's locks of an inode together, by start, owners in
 * the order they came.
 */
static struct lock *locks;

static bool conflicts(const struct lock *l, const void *owner, bool flock,
		      short type, int64_t start, int64_t end)
{
	return l->owner != owner && l->flock == flock && l->start <= end &&
	       start <= l->end && (l->type == F_WRLCK || type == F_WRLCK);
}

/* Wake the tasks waiting for a lock on (dev, ino): they look again. */
static void wake_waiters(dev_t dev, ino_t ino)
{
	struct futex_key k = { .dev = dev, .ino = ino, .off = UINT64_MAX };

	futex_wake(&k, INT_MAX, ~0u);
}

/* Block @t until a lock on @st's inode goes (wake_waiters()). */
static long lock_wait(struct task *t, const struct stat *st)
{
	t->w.futex = 1;
	t->w.futex_bitset = ~0u;
	t->w.fkey = (struct futex_key){ .dev = st->st_dev, .ino = st->st_ino,
					.off = UINT64_MAX };
	return block_until(t, 0);
}

static bool same_owner(const struct lock *a, const struct lock *b)
{
	return a->owner == b->owner && a->flock == b->flock && a->dev == b->dev &&
	       a->ino == b->ino;
}

static void insert(struct lock *n)
{
	struct lock **pp = &locks;

	while (*pp && !same_owner(*pp, n))
		pp = &(*pp)->next;
	while (*pp && same_owner(*pp, n) && (*pp)->start <= n->start)
		pp = &(*pp)->next;
	n->next = *pp;
	*pp = n;
}

/*
 * Take [start, end] away from @owner's locks on the inode, splitting one
 * that straddles it; -ENOMEM (nothing changed) if a split cannot be had.
 */
static int cut(dev_t dev, ino_t ino, const void *owner, bool flock,
	       int64_t start, int64_t end)
{
	struct lock **pp = &locks, *l, *tail;

	for (l = locks; l; l = l->next) {
		if (l->dev == dev && l->ino == ino && l->owner == owner &&
		    l->flock == flock && l->start < start && l->end > end)
			break;
	}
	if (l) {
		tail = malloc(sizeof(*tail));
		if (!tail)
			return -ENOMEM;
		*tail = *l;
		tail->start = end + 1;
		l->end = start - 1;
		insert(tail);
		return 0;
	}
	while ((l = *pp)) {
		if (l->dev != dev || l->ino != ino || l->owner != owner ||
		    l->flock != flock || l->end < start || l->start > end) {
			pp = &l->next;
			continue;
		}
		if (l->start >= start && l->end <= end) {
			*pp = l->next;
			free(l);
			continue;
		}
		if (l->start < start) {
			l->end = start - 1;
		} else {
			/* Its start moves: put it back in order. */
			*pp = l->next;
			l->start = end + 1;
			insert(l);
			continue;
		}
		pp = &l->next;
	}
	return 0;
}

/* Set (or with F_UNLCK drop) @owner's lock on [start, end], merging. */
static int apply(dev_t dev, ino_t ino, const void *owner, bool flock, bool ofd,
		 int pid, short type, int64_t start, int64_t end)
{
	struct lock *n = NULL, **pp, *l;

	if (type != F_UNLCK) {
		n = calloc(1, sizeof(*n));
		if (!n)
			return -ENOMEM;
	}
	if (cut(dev, ino, owner, flock, start, end) < 0) {
		free(n);
		return -ENOMEM;
	}
	wake_waiters(dev, ino);
	if (!n)
		return 0;
	/* Adjacent locks of the owner and type become one. */
	for (pp = &locks; (l = *pp);) {
		if (l->dev == dev && l->ino == ino && l->owner == owner &&
		    l->flock == flock && l->type == type &&
		    (l->end == start - 1 || (end < OFFSET_MAX && l->start == end + 1))) {
			if (l->start < start)
				start = l->start;
			if (l->end > end)
				end = l->end;
			*pp = l->next;
			free(l);
			continue;
		}
		pp = &l->next;
	}
	*n = (struct lock){ .dev = dev, .ino = ino, .owner = owner, .flock = flock,
			    .ofd = ofd, .pid = pid, .type = type, .start = start,
			    .end = end };
	insert(n);
	return 0;
}

static void drop_owner(const void *owner, bool all, dev_t dev, ino_t ino)
{
	struct lock **pp = &locks, *l;

	while ((l = *pp)) {
		if (l->owner == owner && (all || (l->dev == dev && l->ino == ino))) {
			*pp = l->next;
			wake_waiters(l->dev, l->ino);
			free(l);
			continue;
		}
		pp = &l->next;
	}
}

/* A process closed an fd of @f: its POSIX locks on that file go. */
void locks_close(struct fdtable *fdt, struct file *f)
{
	struct stat st;

	if (!locks || fstat(f->hostfd, &st) < 0)
		return;
	drop_owner(fdt, false, st.st_dev, st.st_ino);
}

/* The fd table is gone (or the file's last reference): all their locks. */
void locks_release(const void *owner)
{
	if (locks)
		drop_owner(owner, true, 0, 0);
}

/* The kernel's flock_to_posix_lock(): the range [*start, *end]. */
static int lock_range(struct file *f, const struct flock *fl, int64_t *start,
		      int64_t *end)
{
	int64_t base;
	struct stat st;

	switch (fl->l_whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = lseek(f->hostfd, 0, SEEK_CUR);
		if (base < 0)
			return -errno;
		break;
	case SEEK_END:
		if (fstat(f->hostfd, &st) < 0)
			return -errno;
		base = st.st_size;
		break;
	default:
		return -EINVAL;
	}
	if (fl->l_start > 0 && base > OFFSET_MAX - fl->l_start)
		return -EOVERFLOW;
	*start = base + fl->l_start;
	if (*start < 0)
		return -EINVAL;
	if (fl->l_len > 0) {
		if (fl->l_len - 1 > OFFSET_MAX - *start)
			return -EOVERFLOW;
		*end = *start + fl->l_len - 1;
	} else if (fl->l_len < 0) {
		*end = *start - 1;
		*start += fl->l_len;
		if (*start < 0)
			return -EINVAL;
	} else {
		*end = OFFSET_MAX;
	}
	return 0;
}

/*
 * Would @owner waiting for @blocker's lock close a circle of POSIX lock
 * waiters (the kernel's posix_locks_deadlock(), as deep as its 10)?
 */
static bool deadlock(const void *owner, const void *blocker)
{
	struct proc *p;
	struct task *t;
	int depth;

	for (depth = 0; depth < 10; depth++) {
		const void *next = NULL;

		for (p = procs; p && !next; p = p->next)
			for (t = p->threads; t && !next; t = t->next_in_proc)
				if ((t->state == TASK_BLOCKED ||
				     t->state == TASK_SYSCALL) && t->w.futex &&
				    t->w.fkey.off == UINT64_MAX &&
				    t->w.lock_owner == blocker)
					next = t->w.lock_blocker;
		if (!next)
			return false;
		if (next == owner)
			return true;
		blocker = next;
	}
	return false;
}

/* fcntl's F_GETLK, F_SETLK, F_SETLKW and their OFD forms. */
long lock_fcntl(struct task *t, struct file *f, int cmd, uint64_t ufl)
{
	bool ofd = cmd == F_OFD_GETLK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;
	bool wait = cmd == F_SETLKW || cmd == F_OFD_SETLKW;
	const void *owner = ofd ? (const void *)f : (const void *)t->p->fdt;
	int64_t start = 0, end = 0;
	struct flock fl;
	struct lock *l;
	struct stat st;
	int acc = f->flags & O_ACCMODE;
	long r;

	if (copy_from_guest(t, &fl, ufl, sizeof(fl)) < 0)
		return -EFAULT;
	if (fl.l_type != F_RDLCK && fl.l_type != F_WRLCK && fl.l_type != F_UNLCK)
		return -EINVAL;
	if (ofd && fl.l_pid != 0)
		return -EINVAL;
	r = lock_range(f, &fl, &start, &end);
	if (r < 0)
		return r;
	if (fstat(f->hostfd, &st) < 0)
		return -errno;
	if (cmd == F_GETLK || cmd == F_OFD_GETLK) {
		if (fl.l_type == F_UNLCK)
			return -EINVAL;
		for (l = locks; l; l = l->next)
			if (l->dev == st.st_dev && l->ino == st.st_ino &&
			    conflicts(l, owner, false, fl.l_type, start, end))
				break;
		if (!l) {
			fl.l_type = F_UNLCK;
		} else {
			fl.l_type = l->type;
			fl.l_whence = SEEK_SET;
			fl.l_start = l->start;
			fl.l_len = l->end == OFFSET_MAX ? 0 : l->end - l->start + 1;
			fl.l_pid = l->pid;
		}
		return copy_to_guest(t, ufl, &fl, sizeof(fl)) < 0 ? -EFAULT : 0;
	}
	if ((fl.l_type == F_RDLCK && acc == O_WRONLY) ||
	    (fl.l_type == F_WRLCK && acc == O_RDONLY))
		return -EBADF;
	if (fl.l_type != F_UNLCK) {
		for (l = locks; l; l = l->next)
			if (l->dev == st.st_dev && l->ino == st.st_ino &&
			    conflicts(l, owner, false, fl.l_type, start, end))
				break;
		if (l && !wait)
			return -EAGAIN;
		if (l && !ofd && !l->ofd && deadlock(owner, l->owner))
			return -EDEADLK;
		if (l) {
			t->w.lock_owner = owner;
			t->w.lock_blocker = l->owner;
			return lock_wait(t, &st);
		}
	}
	return apply(st.st_dev, st.st_ino, owner, false, ofd, ofd ? -1 : t->p->pid,
		     fl.l_type, start, end);
}

long sys_flock(struct task *t, const uint64_t *a)
{
	struct file *f = fd_lookup(t, a[0]);
	int op = a[1] & ~LOCK_NB;
	short type;
	struct lock *l;
	struct stat st;

	if (!f)
		return -EBADF;
	if (op == LOCK_SH)
		type = F_RDLCK;
	else if (op == LOCK_EX)
		type = F_WRLCK;
	else if (op == LOCK_UN)
		type = F_UNLCK;
	else
		return -EINVAL;
	if (fstat(f->hostfd, &st) < 0)
		return -errno;
	if (type != F_UNLCK) {
		for (l = locks; l; l = l->next)
			if (l->dev == st.st_dev && l->ino == st.st_ino &&
			    conflicts(l, f, true, type, 0, OFFSET_MAX))
				break;
		if (l && (a[1] & LOCK_NB))
			return -EWOULDBLOCK;
		if (l) {
			return lock_wait(t, &st);
		}
	}
	return apply(st.st_dev, st.st_ino, f, true, true, -1, type, 0, OFFSET_MAX);
}
