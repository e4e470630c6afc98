// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory locks and residency: mlock, mlock2, munlock, mlockall,
 * munlockall (mm/mlock.c) and mincore (mm/mincore.c), with the kernel's
 * checks, limits (RLIMIT_MEMLOCK, CAP_IPC_LOCK) and errors.
 *
 * A lock is the runtime's record on the guest's mappings: it is counted
 * (VmLck of /proc/<pid>/status), kept by mremap, dropped by fork and
 * munmap, applied to new mappings after mlockall(MCL_FUTURE), and a lock
 * populates its pages (not MLOCK_ONFAULT's; 256 MiB a call at most, which
 * the runtime spends with the guest waiting) by touching them from the
 * runtime.  The host does not pin the pages: the backends have no mlock
 * in the guest's address space (Documentation/runtime.rst, gaps).
 * mincore answers from the host: the present bits of the guest's host
 * task's pagemap for its own memory, the page cache (the host's mincore
 * on a mapping of the runtime's) for a file's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "umlrun.h"

#define LOCK_BITS		(VMA_LOCKED | VMA_LOCKONFAULT)
#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT		0x01
#endif
#ifndef MCL_ONFAULT
#define MCL_ONFAULT		4
#endif

static bool ipc_lock(const struct task *t)
{
	return t->cap_eff & (1ULL << CAP_IPC_LOCK);
}

/* can_do_mlock() */
static bool can_lock(const struct task *t)
{
	return t->p->rlim[RLIMIT_MEMLOCK].cur != 0 || ipc_lock(t);
}

uint64_t mm_locked_bytes(const struct mm *mm)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < mm->n; i++)
		if (mm->v[i].flags & VMA_LOCKED)
			n += mm->v[i].end - mm->v[i].start;
	return n;
}

/* count_mm_mlocked_page_nr(): of [start, end), the bytes locked already. */
static uint64_t locked_in(const struct mm *mm, uint64_t start, uint64_t end)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < mm->n; i++) {
		const struct vma *v = &mm->v[i];
		uint64_t s = v->start > start ? v->start : start;
		uint64_t e = v->end < end ? v->end : end;

		if ((v->flags & VMA_LOCKED) && s < e)
			n += e - s;
	}
	return n;
}

/*
 * How far [start, end) is mapped without a hole, from @start on: the
 * kernel's apply_vma_lock_flags() changes the mappings up to a hole, then
 * says ENOMEM.
 */
static uint64_t mapped_until(const struct mm *mm, uint64_t start, uint64_t end)
{
	uint64_t at = start;
	int i;

	for (i = 0; i < mm->n && at < end; i++) {
		if (mm->v[i].end <= at)
			continue;
		if (mm->v[i].start > at)
			break;
		at = mm->v[i].end;
	}
	return at < end ? at : end;
}

/* Lock bits @lock on [start, end): 0, or -ENOMEM past a hole. */
static long apply_lock(struct mm *mm, uint64_t start, uint64_t end,
		       uint32_t lock)
{
	uint64_t m = mapped_until(mm, start, end);
	long r = 0;

	if (m > start)
		r = mm_set_lock(mm, start, m, lock);
	return r ? r : m < end ? -ENOMEM : 0;
}

/*
 * mm_populate(): fault in the pages of [start, end) that can be read,
 * writing a byte back into each writable private page so that it is the
 * mapping's own (as a write fault makes it).
 */
#define POPULATE_MAX	(256ULL << 20)	/* per call: the runtime waits meanwhile */

static void populate(struct task *t, uint64_t start, uint64_t end)
{
	struct mm *mm = t->p->mm;
	uint64_t a, budget = POPULATE_MAX;
	int i;

	for (i = 0; i < mm->n; i++) {
		const struct vma *v = &mm->v[i];
		uint64_t s = v->start > start ? v->start : start;
		uint64_t e = v->end < end ? v->end : end;

		if (s >= e || !(v->prot & PROT_READ) || (v->flags & VMA_RESERVED))
			continue;
		for (a = s; a < e && budget; a += PAGE_SIZE, budget -= PAGE_SIZE) {
			char c;

			if (uml_mem_read(t->p->as, &c, a, 1) != 1)
				break;	/* past a file's end */
			if ((v->prot & PROT_WRITE) && !(v->flags & UML_MAP_SHARED))
				uml_mem_write(t->p->as, a, &c, 1);
		}
	}
}

/* mm.c: a new mapping locked with @lock (MAP_LOCKED), and populated. */
void mm_lock_new_with(struct task *t, uint64_t start, uint64_t end,
		      uint32_t lock)
{
	if (mm_set_lock(t->p->mm, start, end, lock) == 0 &&
	    !(lock & VMA_LOCKONFAULT))
		populate(t, start, end);
}

/* mm.c: a new mapping after mlockall(MCL_FUTURE) is locked too. */
void mm_lock_new(struct task *t, uint64_t start, uint64_t end)
{
	mm_lock_new_with(t, start, end, t->p->mm->lock_future);
}

/* do_mmap()'s MAP_LOCKED checks: can_do_mlock(), mlock_future_ok(). */
long mlock_mmap_check(struct task *t, uint64_t len)
{
	if (!can_lock(t))
		return -EPERM;
	if (mm_locked_bytes(t->p->mm) + len > t->p->rlim[RLIMIT_MEMLOCK].cur &&
	    !ipc_lock(t))
		return -EAGAIN;
	return 0;
}

/* do_mlock() */
static long do_mlock(struct task *t, uint64_t start, uint64_t len, uint32_t lock)
{
	struct mm *mm = t->p->mm;
	uint64_t limit = t->p->rlim[RLIMIT_MEMLOCK].cur, locked, end;
	long r;

	if (!can_lock(t))
		return -EPERM;
	len = PAGE_ALIGN(len + (start & (PAGE_SIZE - 1)));
	start = PAGE_DOWN(start);
	end = start + len;
	locked = len + mm_locked_bytes(mm);
	if (locked > limit && !ipc_lock(t))
		locked -= locked_in(mm, start, end);
	if (locked > limit && !ipc_lock(t))
		return -ENOMEM;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	r = apply_lock(mm, start, end, lock);
	if (r == 0 && !(lock & VMA_LOCKONFAULT))
		populate(t, start, end);
	return r;
}

long sys_mlock(struct task *t, const uint64_t *a)
{
	return do_mlock(t, a[0], a[1], VMA_LOCKED);
}

long sys_mlock2(struct task *t, const uint64_t *a)
{
	if ((unsigned int)a[2] & ~MLOCK_ONFAULT)
		return -EINVAL;
	return do_mlock(t, a[0], a[1], VMA_LOCKED |
			((unsigned int)a[2] & MLOCK_ONFAULT ? VMA_LOCKONFAULT : 0));
}

long sys_munlock(struct task *t, const uint64_t *a)
{
	uint64_t start = a[0], len = PAGE_ALIGN(a[1] + (start & (PAGE_SIZE - 1)));

	start = PAGE_DOWN(start);
	if (start + len < start)
		return -EINVAL;
	if (!len)
		return 0;
	return apply_lock(t->p->mm, start, start + len, 0);
}

long sys_mlockall(struct task *t, const uint64_t *a)
{
	int flags = (int)a[0];
	struct mm *mm = t->p->mm;
	uint32_t lock = VMA_LOCKED | (flags & MCL_ONFAULT ? VMA_LOCKONFAULT : 0);
	uint64_t total = 0;
	int i;
	long r = 0;

	if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) ||
	    flags == MCL_ONFAULT)
		return -EINVAL;
	if (!can_lock(t))
		return -EPERM;
	for (i = 0; i < mm->n; i++)
		if (!(mm->v[i].flags & VMA_RESERVED))
			total += mm->v[i].end - mm->v[i].start;
	if ((flags & MCL_CURRENT) && total > t->p->rlim[RLIMIT_MEMLOCK].cur &&
	    !ipc_lock(t))
		return -ENOMEM;
	mm->lock_future = flags & MCL_FUTURE ? lock : 0;
	if (flags & MCL_CURRENT) {
		r = mm_set_lock(mm, UML_GUEST_MIN, mm->top, lock);
		if (r == 0 && !(lock & VMA_LOCKONFAULT))
			populate(t, UML_GUEST_MIN, mm->top);
	}
	return r;
}

long sys_munlockall(struct task *t, const uint64_t *a)
{
	(void)a;
	t->p->mm->lock_future = 0;
	return mm_set_lock(t->p->mm, UML_GUEST_MIN, t->p->mm->top, 0);
}

/* The page cache's residency of a file mapping's pages (mincore_page()). */
static void file_resident(const struct vma *v, uint64_t s, uint64_t n,
			  unsigned char *out)
{
	uint64_t off = v->off + (s - v->start);
	void *m = mmap(NULL, n * PAGE_SIZE, PROT_READ, MAP_SHARED,
		       v->file->hostfd, off);

	if (m == MAP_FAILED || mincore(m, n * PAGE_SIZE, out) < 0)
		memset(out, 1, n);	/* can_do_mincore() says no: all 1 */
	if (m != MAP_FAILED)
		munmap(m, n * PAGE_SIZE);
	for (uint64_t i = 0; i < n; i++)
		out[i] &= 1;
}

/* The guest's own pages: present in its host task's page table. */
static void anon_resident(struct task *t, uint64_t s, uint64_t n,
			  unsigned char *out)
{
	char path[64];
	uint64_t *pm;
	uint64_t i;
	int fd;

	memset(out, 0, n);
	snprintf(path, sizeof(path), "/proc/%d/pagemap",
		 uml_thread_host_tid(t->th));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	pm = malloc(n * sizeof(*pm));
	if (fd >= 0 && pm &&
	    pread(fd, pm, n * sizeof(*pm), s / PAGE_SIZE * sizeof(*pm)) ==
	    (ssize_t)(n * sizeof(*pm))) {
		for (i = 0; i < n; i++)
			out[i] = pm[i] >> 63;
	} else {
		memset(out, 1, n);	/* no pagemap: say resident */
	}
	free(pm);
	if (fd >= 0)
		close(fd);
}

#define MINCORE_CHUNK	4096	/* pages a round, as the kernel's PAGE_SIZE */

long sys_mincore(struct task *t, const uint64_t *a)
{
	uint64_t start = a[0], len = a[1], pages, at, done = 0, uvec = a[2];
	struct mm *mm = t->p->mm;
	unsigned char vec[MINCORE_CHUNK];
	int i;

	if (start & (PAGE_SIZE - 1))
		return -EINVAL;
	if (start > mm->top || len > mm->top - start)
		return -ENOMEM;
	pages = len / PAGE_SIZE + ((len & (PAGE_SIZE - 1)) != 0);
	if (uvec > mm->top || pages > mm->top - uvec)
		return -EFAULT;
	/* a round at a time, each copied out before the next (do_mincore()) */
	for (at = start; done < pages;) {
		const struct vma *v = NULL;
		uint64_t n;

		for (i = 0; i < mm->n; i++)
			if (mm->v[i].start <= at && at < mm->v[i].end)
				v = &mm->v[i];
		if (!v)
			return -ENOMEM;
		n = (v->end - at) / PAGE_SIZE;
		if (n > pages - done)
			n = pages - done;
		if (n > MINCORE_CHUNK)
			n = MINCORE_CHUNK;
		if (v->flags & VMA_RESERVED)	/* vDSO: can_do_mincore() no */
			memset(vec, 1, n);
		else if (v->file)
			file_resident(v, at, n, vec);
		else
			anon_resident(t, at, n, vec);
		if (copy_to_guest(t, uvec + done, vec, n) < 0)
			return -EFAULT;
		done += n;
		at += n * PAGE_SIZE;
	}
	return 0;
}
