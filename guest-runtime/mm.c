// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest's memory map: the runtime keeps its own list of mappings (to
 * place new ones and answer brk), and applies every change to the guest
 * address space with uml_aspace_mem().  A file mapping holds a reference
 * to its struct file and its offset, so that mremap and madvise can map
 * the file again where its contents must come from.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umlrun.h"

#define STACK_GAP	(256ULL << 20)	/* mmap area starts below the stack */
#ifndef PROT_SEM
#define PROT_SEM	0x8		/* <linux/mman.h>: accepted, means nothing here */
#endif

struct mm *mm_new(const struct uml_aspace_info *info)
{
	struct mm *mm = calloc(1, sizeof(*mm));

	if (!mm)
		return NULL;
	mm->refs = 1;
	mm->top = PAGE_DOWN(info->guest_top);
	mm->stack_top = mm->top;
	if (info->vdso_base && info->vdso_base < mm->stack_top &&
	    info->vdso_base > mm->top / 2)
		mm->stack_top = PAGE_DOWN(info->vdso_base);
	if (info->vvar_base && info->vvar_base < mm->stack_top &&
	    info->vvar_base > mm->top / 2)
		mm->stack_top = PAGE_DOWN(info->vvar_base);
	mm->stack_top -= PAGE_SIZE;
	mm->mmap_base = mm->stack_top - STACK_GAP;
	if (info->vdso_base)
		mm_record(mm, info->vdso_base,
			  info->vdso_base + PAGE_ALIGN(info->vdso_len),
			  PROT_READ | PROT_EXEC, VMA_RESERVED, NULL, 0);
	if (info->vvar_base)
		mm_record(mm, info->vvar_base,
			  info->vvar_base + PAGE_ALIGN(info->vvar_len),
			  PROT_READ, VMA_RESERVED, NULL, 0);
	return mm;
}

/* A second vma holding the file of @v: its own reference. */
static struct vma vma_dup(const struct vma *v)
{
	if (v->file)
		file_get(v->file);
	return *v;
}

struct mm *mm_copy(const struct mm *src)
{
	struct mm *mm = malloc(sizeof(*mm));
	int i;

	if (!mm)
		return NULL;
	*mm = *src;
	mm->refs = 1;
	mm->v = malloc(src->cap * sizeof(*mm->v) + 1);
	if (!mm->v) {
		free(mm);
		return NULL;
	}
	for (i = 0; i < src->n; i++) {
		mm->v[i] = vma_dup(&src->v[i]);
		/* dup_mmap(): a child has no memory locks */
		mm->v[i].flags &= ~(VMA_LOCKED | VMA_LOCKONFAULT);
	}
	mm->lock_future = 0;
	return mm;
}

void mm_put(struct mm *mm)
{
	int i;

	if (mm && --mm->refs == 0) {
		for (i = 0; i < mm->n; i++)
			file_put(mm->v[i].file);
		free(mm->v);
		free(mm);
	}
}

static int vma_insert_at(struct mm *mm, int i, struct vma v)
{
	if (mm->n == mm->cap) {
		int cap = mm->cap ? mm->cap * 2 : 32;
		struct vma *n = realloc(mm->v, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		mm->v = n;
		mm->cap = cap;
	}
	memmove(mm->v + i + 1, mm->v + i, (mm->n - i) * sizeof(*mm->v));
	mm->v[i] = v;
	mm->n++;
	return 0;
}

/* Drop [start, end) from the list, splitting mappings that straddle it. */
void mm_forget(struct mm *mm, uint64_t start, uint64_t end)
{
	int i = 0;

	while (i < mm->n) {
		struct vma *v = &mm->v[i];

		if (v->end <= start || v->start >= end || (v->flags & VMA_RESERVED)) {
			i++;
			continue;
		}
		if (v->start < start && v->end > end) {
			struct vma tail = vma_dup(v);

			tail.off += end - v->start;
			tail.start = end;
			v->end = start;
			if (vma_insert_at(mm, i + 1, tail) < 0)
				file_put(tail.file);
			return;
		}
		if (v->start < start) {
			v->end = start;
			i++;
		} else if (v->end > end) {
			v->off += end - v->start;
			v->start = end;
			i++;
		} else {
			file_put(v->file);
			memmove(v, v + 1, (mm->n - i - 1) * sizeof(*v));
			mm->n--;
		}
	}
}

int mm_record(struct mm *mm, uint64_t start, uint64_t end, uint32_t prot,
	      uint32_t flags, struct file *file, uint64_t off)
{
	struct vma v = { .start = start, .end = end, .prot = prot, .flags = flags,
			 .file = file, .off = off };
	int i, r;

	mm_forget(mm, start, end);
	for (i = 0; i < mm->n && mm->v[i].start < start; i++)
		;
	if (file)
		file_get(file);
	r = vma_insert_at(mm, i, v);
	if (r < 0)
		file_put(file);
	return r;
}

bool mm_is_free(const struct mm *mm, uint64_t start, uint64_t end)
{
	int i;

	if (start < UML_GUEST_MIN || end > mm->top || end <= start)
		return false;
	for (i = 0; i < mm->n; i++)
		if (mm->v[i].start < end && mm->v[i].end > start)
			return false;
	return true;
}

static bool overlaps_reserved(const struct mm *mm, uint64_t start, uint64_t end)
{
	int i;

	for (i = 0; i < mm->n; i++)
		if ((mm->v[i].flags & VMA_RESERVED) && mm->v[i].start < end &&
		    mm->v[i].end > start)
			return true;
	return false;
}

/* Highest free gap of @len below mmap_base; 0 if none. */
uint64_t mm_find_free(struct mm *mm, uint64_t len)
{
	uint64_t hi = mm->mmap_base;
	int i;

	for (i = mm->n - 1; i >= -1; i--) {
		uint64_t lo = i >= 0 ? mm->v[i].end : UML_GUEST_MIN;

		if (i >= 0 && mm->v[i].start >= hi)
			continue;
		if (lo < hi && hi - lo >= len)
			return hi - len;
		if (i >= 0 && mm->v[i].start < hi)
			hi = mm->v[i].start;
	}
	return 0;
}

/* Map @file (NULL: anonymous memory) and record it. */
static struct vma *vma_at(struct mm *mm, uint64_t addr)
{
	int i;

	for (i = 0; i < mm->n; i++)
		if (mm->v[i].start <= addr && addr < mm->v[i].end)
			return &mm->v[i];
	return NULL;
}

/*
 * Batched mappings.  Each host mapping is a hand-off to the guest's task,
 * which maps in its own mm (skas) or runs the stub's mmap (ptrace), so
 * exec, which maps every segment and the stack of a fresh address space,
 * queues them: between mm_batch_start() and mm_batch_end(), mm_map()
 * records a mapping at once and queues the host's part, and the queue
 * goes to the backend in one uml_aspace_mem() call when it is full, when
 * the runtime touches guest memory (copy_*_guest() flush first; so must
 * a direct uml_mem_*() call) and at the end.  The batch holds a reference
 * on each queued file.  If the host refuses an operation, umlrun's
 * records are ahead of the host's mappings: only exec batches, and an
 * exec that fails there is past its point of no return and kills the
 * process with its address space.
 */
void mm_batch_start(struct task *t, struct mm_batch *b)
{
	b->n = 0;
	t->mm_batch = b;
}

static void mm_batch_drop(struct mm_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++)
		if (b->file[i])
			file_put(b->file[i]);
	b->n = 0;
}

/* Apply the queue: 0, or the first failing operation's -errno. */
int mm_batch_flush(struct task *t)
{
	struct mm_batch *b = t->mm_batch;
	int r, err = 0;

	if (!b || !b->n)
		return 0;
	r = uml_aspace_mem(t->p->as, b->op, b->n, &err);
	if (r >= 0 && (unsigned int)r != b->n)
		r = err < 0 ? err : -EIO;
	mm_batch_drop(b);
	return r < 0 ? r : 0;
}

/* The batch ends: applied (@apply) or dropped.  0 or -errno. */
int mm_batch_end(struct task *t, bool apply)
{
	int r = 0;

	if (!t->mm_batch)
		return 0;
	if (apply)
		r = mm_batch_flush(t);
	mm_batch_drop(t->mm_batch);
	t->mm_batch = NULL;
	return r;
}

/* Queue @op (and a reference on @file) in the batch, flushing when full. */
static int mm_batch_add(struct task *t, const struct uml_mem_op *op,
			struct file *file)
{
	struct mm_batch *b = t->mm_batch;
	int r;

	if (b->n == MM_BATCH_MAX) {
		r = mm_batch_flush(t);
		if (r < 0)
			return r;
	}
	b->op[b->n] = *op;
	b->file[b->n] = file ? file_get(file) : NULL;
	b->n++;
	return 0;
}

int mm_map(struct task *t, uint64_t addr, uint64_t len, uint32_t prot,
	   uint32_t flags, struct file *file, uint64_t off)
{
	static uint64_t shared_anon;	/* the last shared anonymous memory's */
	struct uml_mem_op op = {
		.op = UML_MEM_MAP, .prot = prot, .flags = flags,
		.fd = file ? file->hostfd : -1, .addr = addr, .len = len,
		.offset = off,
	};
	int r;

	if (!t->mm_batch) {
		r = uml_aspace_mem(t->p->as, &op, 1, NULL);
		if (r < 0)
			return r;
	}
	r = mm_record(t->p->mm, addr, addr + len, prot,
		      flags & (UML_MAP_SHARED | UML_MAP_PRIVATE |
			       UML_MAP_ANONYMOUS), file, off);
	if (r == 0 && t->mm_batch)
		r = mm_batch_add(t, &op, file);
	if (r == 0 && (flags & UML_MAP_SHARED) && !file)
		vma_at(t->p->mm, addr)->shared_id = ++shared_anon;
	if (r == 0 && t->p->mm->lock_future)	/* mlockall(MCL_FUTURE) */
		mm_lock_new(t, addr, addr + len);
	return r;
}

/*
 * The key of the futex at @addr (get_futex_key()): a shared one in a
 * MAP_SHARED mapping is the mapped object's and its offset there.
 */
void futex_key_of(struct task *t, uint64_t addr, bool shared,
		  struct futex_key *k)
{
	const struct vma *v = shared ? vma_at(t->p->mm, addr) : NULL;
	struct stat st;

	memset(k, 0, sizeof(*k));
	if (v && (v->flags & UML_MAP_SHARED) &&
	    (v->shared_id || (v->file && fstat(v->file->hostfd, &st) == 0))) {
		k->dev = v->shared_id ? 0 : st.st_dev;
		k->ino = v->shared_id ? v->shared_id : st.st_ino;
		k->off = v->off + (addr - v->start);
	} else {
		k->as = t->p->as;
		k->off = addr;
	}
}

/* ---- guest memory access ---- */

/*
 * Is [addr, addr + len) mapped with @prot all along?  libuml's accessors
 * ignore the guest's protections (like ptrace); a syscall must not: the
 * kernel's copy_to_user() fails on a read-only page.
 */
static bool access_ok(const struct mm *mm, uint64_t addr, size_t len,
		      uint32_t prot)
{
	uint64_t end = addr + len;
	int i;

	if (end < addr)
		return false;
	for (i = 0; i < mm->n && addr < end; i++) {
		const struct vma *v = &mm->v[i];

		if (v->end <= addr)
			continue;
		if (v->start > addr || (v->prot & prot) != prot)
			return false;
		addr = v->end;
	}
	return addr >= end;
}

int copy_from_guest(struct task *t, void *dst, uint64_t src, size_t len)
{
	if (!len)
		return 0;
	if (mm_batch_flush(t) < 0)
		return -EFAULT;
	if (!access_ok(t->p->mm, src, len, PROT_READ))
		return -EFAULT;
	return uml_mem_read(t->p->as, dst, src, len) == (long)len ? 0 : -EFAULT;
}

int copy_to_guest(struct task *t, uint64_t dst, const void *src, size_t len)
{
	if (!len)
		return 0;
	if (mm_batch_flush(t) < 0)
		return -EFAULT;
	if (!access_ok(t->p->mm, dst, len, PROT_WRITE))
		return -EFAULT;
	return uml_mem_write(t->p->as, dst, src, len) == (long)len ? 0 : -EFAULT;
}

/* What strncpy_from_guest() reads first: paths and names fit, mostly. */
#define STR_FIRST_CHUNK	256

/* Copy a NUL-terminated string; its length, -EFAULT or -ENAMETOOLONG. */
int strncpy_from_guest(struct task *t, char *dst, uint64_t src, size_t max)
{
	size_t done = 0;

	if (mm_batch_flush(t) < 0)
		return -EFAULT;
	while (done < max) {
		size_t chunk = PAGE_SIZE - ((src + done) & (PAGE_SIZE - 1));
		char *nul;
		long n;

		/* Most strings are short: a page's rest only after the first. */
		if (!done && chunk > STR_FIRST_CHUNK)
			chunk = STR_FIRST_CHUNK;
		if (chunk > max - done)
			chunk = max - done;
		if (!access_ok(t->p->mm, src + done, chunk, PROT_READ))
			return -EFAULT;
		n = uml_mem_read(t->p->as, dst + done, src + done, chunk);
		if (n <= 0)
			return -EFAULT;
		nul = memchr(dst + done, 0, n);
		if (nul)
			return nul - dst;
		done += n;
	}
	dst[max - 1] = 0;
	return -ENAMETOOLONG;
}

/* ---- syscalls ---- */

long sys_brk(struct task *t, const uint64_t *a)
{
	struct mm *mm = t->p->mm;
	uint64_t want = a[0], old_end = PAGE_ALIGN(mm->brk), new_end;

	if (want < mm->brk_start)
		return mm->brk;
	new_end = PAGE_ALIGN(want);
	if (new_end > old_end) {
		if (!mm_is_free(mm, old_end, new_end) ||
		    new_end > mm->mmap_base - (64ULL << 20))
			return mm->brk;
		if (mm_map(t, old_end, new_end - old_end,
			   PROT_READ | PROT_WRITE,
			   UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, NULL, 0) < 0)
			return mm->brk;
	} else if (new_end < old_end) {
		if (uml_aspace_unmap(t->p->as, new_end, old_end - new_end) < 0)
			return mm->brk;
		mm_forget(mm, new_end, old_end);
	}
	mm->brk = want;
	return want;
}

long sys_mmap(struct task *t, const uint64_t *a)
{
	uint64_t addr = a[0], len = PAGE_ALIGN(a[1]), off = a[5];
	uint32_t prot = a[2], flags = a[3], uflags;
	struct mm *mm = t->p->mm;
	struct file *file = NULL;
	int r;

	/*
	 * The kernel's order: the offset (x86's sys_mmap), the fd
	 * (ksys_mmap_pgoff()), then do_mmap()'s length, address and, last,
	 * the mapping's type.
	 */
	if (off & (PAGE_SIZE - 1))
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS)) {
		file = fd_lookup(t, (int)a[4]);
		if (!file)
			return -EBADF;
	}
	if (!a[1])
		return -EINVAL;
	if (!len)
		return -ENOMEM;
	if ((addr & (PAGE_SIZE - 1)) && (flags & MAP_FIXED))
		return -EINVAL;
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (addr < UML_GUEST_MIN || addr > mm->top ||
		    len > mm->top - addr ||
		    overlaps_reserved(mm, addr, addr + len))
			return -ENOMEM;
		if ((flags & MAP_FIXED_NOREPLACE) &&
		    !mm_is_free(mm, addr, addr + len))
			return -EEXIST;
	} else {
		addr = PAGE_DOWN(addr);
		if (!addr || !mm_is_free(mm, addr, addr + len))
			addr = mm_find_free(mm, len);
		if (!addr)
			return -ENOMEM;
	}
	switch (flags & MAP_TYPE) {
	case MAP_SHARED:
	case MAP_SHARED_VALIDATE:
		uflags = UML_MAP_SHARED;
		break;
	case MAP_PRIVATE:
		uflags = UML_MAP_PRIVATE;
		break;
	default:
		return -EINVAL;
	}
	if (flags & MAP_ANONYMOUS) {
		uflags |= UML_MAP_ANONYMOUS;
		off = 0;
	}
	if (flags & MAP_LOCKED) {
		r = mlock_mmap_check(t, len);
		if (r < 0)
			return r;
	}
	r = mm_map(t, addr, len, prot & 7, uflags, file, off);
	if (r == 0 && (flags & MAP_LOCKED))
		mm_lock_new_with(t, addr, addr + len, VMA_LOCKED);
	return r < 0 ? r : (long)addr;
}

long sys_munmap(struct task *t, const uint64_t *a)
{
	uint64_t addr = a[0], len = PAGE_ALIGN(a[1]);
	int r;

	if ((addr & (PAGE_SIZE - 1)) || !len || addr + len < addr)
		return -EINVAL;
	if (addr + len > t->p->mm->top ||
	    overlaps_reserved(t->p->mm, addr, addr + len))
		return -EINVAL;
	r = uml_aspace_unmap(t->p->as, addr, len);
	if (r < 0)
		return r;
	mm_forget(t->p->mm, addr, addr + len);
	return 0;
}

/* Rebuild the list with [addr, end) split out and given @prot. */
/*
 * Rebuild the list with [addr, end) split out, @fn changing each piece of
 * it (the vDSO and vvar never change).
 */
static int vma_split_apply(struct mm *mm, uint64_t addr, uint64_t end,
			   void (*fn)(struct vma *v, uint32_t arg), uint32_t arg)
{
	int i, n = 0, cap = mm->n * 3 + 1;
	struct vma *nv = malloc(cap * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	for (i = 0; i < mm->n; i++) {
		struct vma v = mm->v[i], m;

		if (v.end <= addr || v.start >= end || (v.flags & VMA_RESERVED)) {
			nv[n++] = v;
			continue;
		}
		/* @v's reference goes to its first piece, the others get theirs. */
		m = v;
		if (v.start < addr) {
			nv[n] = v;
			nv[n++].end = addr;
			m = vma_dup(&v);
			m.off += addr - v.start;
			m.start = addr;
		}
		if (v.end > end)
			m.end = end;
		fn(&m, arg);
		nv[n++] = m;
		if (v.end > end) {
			nv[n] = vma_dup(&v);
			nv[n].off += end - v.start;
			nv[n++].start = end;
		}
	}
	free(mm->v);
	mm->v = nv;
	mm->n = n;
	mm->cap = cap;
	return 0;
}

static void set_prot(struct vma *v, uint32_t prot)
{
	v->prot = prot;
}

static int vma_set_prot(struct mm *mm, uint64_t addr, uint64_t end,
			uint32_t prot)
{
	return vma_split_apply(mm, addr, end, set_prot, prot);
}

static void set_lock(struct vma *v, uint32_t lock)
{
	v->flags = (v->flags & ~(VMA_LOCKED | VMA_LOCKONFAULT)) | lock;
}

/* mlock.c: [addr, end)'s lock bits become @lock (VMA_LOCKED...). */
int mm_set_lock(struct mm *mm, uint64_t addr, uint64_t end, uint32_t lock)
{
	return vma_split_apply(mm, addr, end, set_lock, lock);
}

/*
 * The kernel's checks, in its order (do_mprotect_pkey()); the range must
 * also lie in the guest's part of the address space: above guest_top are
 * the backend's pages, which to the guest are not there at all (ENOMEM,
 * as for any unmapped range), and the vDSO may not change (EACCES).
 */
long sys_mprotect(struct task *t, const uint64_t *a)
{
	uint64_t addr = a[0], len, end;
	struct mm *mm = t->p->mm;
	uint64_t prot = a[2];
	int r;

	if ((prot & (PROT_GROWSDOWN | PROT_GROWSUP)) ==
	    (PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	prot &= ~(uint64_t)(PROT_GROWSDOWN | PROT_GROWSUP);
	if (addr & (PAGE_SIZE - 1))
		return -EINVAL;
	if (!a[1])
		return 0;
	len = PAGE_ALIGN(a[1]);
	end = addr + len;
	if (end <= addr)
		return -ENOMEM;
	if (prot & ~(uint64_t)(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM))
		return -EINVAL;
	if (addr < UML_GUEST_MIN || end > mm->top)
		return -ENOMEM;
	if (overlaps_reserved(mm, addr, end))
		return -EACCES;
	r = uml_aspace_protect(t->p->as, addr, len, prot & 7);
	if (r < 0)
		return r;
	return vma_set_prot(mm, addr, end, prot & 7);
}

/*
 * Move [old, old + old_len) of the mapping there to a new mapping of
 * new_len at @dst (free, or to be replaced): the same file at the same
 * offset, so a shared mapping's pages are the file's and a grown part
 * shows the file's next pages; the old contents are copied over where
 * the mapping holds them itself (anonymous, or a private mapping's own
 * changes).  The runtime has no host mremap.
 */
static long mremap_move(struct task *t, uint64_t old, uint64_t old_len,
			uint64_t dst, uint64_t new_len)
{
	struct vma v = vma_dup(vma_at(t->p->mm, old));
	uint64_t off = v.file ? v.off + (old - v.start) : 0, n;
	char *buf = NULL;
	long r;

	r = mm_map(t, dst, new_len, v.prot, VMA_MAP_FLAGS(v.flags), v.file, off);
	if (r < 0)
		goto out;
	if (v.flags & (VMA_LOCKED | VMA_LOCKONFAULT))	/* mremap keeps a lock */
		mm_set_lock(t->p->mm, dst, dst + new_len,
			    v.flags & (VMA_LOCKED | VMA_LOCKONFAULT));
	if (!v.file || !(v.flags & UML_MAP_SHARED)) {
		buf = malloc(1 << 20);
		if (!buf) {
			uml_aspace_unmap(t->p->as, dst, new_len);
			mm_forget(t->p->mm, dst, dst + new_len);
			r = -ENOMEM;
			goto out;
		}
		/*
		 * Its other threads on other CPUs would store into the old
		 * pages after their copy: they wait until the move is done.
		 * (A private mapping past the file's end stops the copy.)
		 */
		if (t->p->nthreads > 1 || t->p->mm->refs > 1)
			world_stop();
		for (n = 0; n < old_len; n += 1 << 20) {
			size_t c = old_len - n < (1 << 20) ? old_len - n : 1 << 20;

			if (uml_mem_read(t->p->as, buf, old + n, c) != (long)c ||
			    uml_mem_write(t->p->as, dst + n, buf, c) != (long)c)
				break;
		}
	}
	uml_aspace_unmap(t->p->as, old, old_len);
	mm_forget(t->p->mm, old, old + old_len);
	r = dst;
out:
	free(buf);
	file_put(v.file);
	return r;
}

/* Is [start, end) one mapping's, from @start on?  -EFAULT if not. */
static struct vma *mremap_vma(struct mm *mm, uint64_t start, uint64_t len)
{
	struct vma *v = vma_at(mm, start);

	if (!v || (v->flags & VMA_RESERVED) || len > v->end - start)
		return NULL;
	return v;
}

/*
 * The kernel's checks and cases (mm/mremap.c), in its order.  Not offered:
 * MREMAP_DONTUNMAP (EINVAL: which mappings kernels allow it for differs),
 * and an old_len of 0 that would duplicate a shared mapping (ENOMEM).
 */
long sys_mremap(struct task *t, const uint64_t *a)
{
	uint64_t old = a[0], old_len = PAGE_ALIGN(a[1]), new_len = PAGE_ALIGN(a[2]);
	uint64_t flags = a[3], dst = a[4];
	struct mm *mm = t->p->mm;
	struct vma *v;
	int r;

	if (flags & ~(uint64_t)(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP))
		return -EINVAL;
	if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
		return -EINVAL;
	if ((flags & MREMAP_DONTUNMAP) &&
	    (!(flags & MREMAP_MAYMOVE) || old_len != new_len))
		return -EINVAL;
	if ((old & (PAGE_SIZE - 1)) || !new_len || (flags & MREMAP_DONTUNMAP))
		return -EINVAL;
	if (old + old_len < old || old + old_len > mm->top ||
	    overlaps_reserved(mm, old, old + old_len))
		return -EFAULT;
	if (flags & MREMAP_FIXED) {
		if ((dst & (PAGE_SIZE - 1)) || dst + new_len < dst ||
		    dst + new_len > mm->top)
			return -EINVAL;
		if (old + old_len > dst && dst + new_len > old)
			return -EINVAL;		/* they overlap */
		if (dst < UML_GUEST_MIN || overlaps_reserved(mm, dst, dst + new_len))
			return -ENOMEM;
		r = uml_aspace_unmap(t->p->as, dst, new_len);
		if (r < 0)
			return r;
		mm_forget(mm, dst, dst + new_len);
		if (old_len > new_len) {
			r = uml_aspace_unmap(t->p->as, old + new_len,
					     old_len - new_len);
			if (r < 0)
				return r;
			mm_forget(mm, old + new_len, old + old_len);
			old_len = new_len;
		}
		if (!mremap_vma(mm, old, old_len))
			return -EFAULT;
		if (!old_len)
			return -ENOMEM;
		return mremap_move(t, old, old_len, dst, new_len);
	}
	if (old_len >= new_len) {
		if (old_len > new_len) {
			r = uml_aspace_unmap(t->p->as, old + new_len,
					     old_len - new_len);
			if (r < 0)
				return r;
			mm_forget(mm, old + new_len, old + old_len);
		}
		return old;
	}
	v = mremap_vma(mm, old, old_len);
	if (!v)
		return -EFAULT;
	if (!old_len)
		return (v->flags & UML_MAP_SHARED) ? -ENOMEM : -EINVAL;
	/* Grow in place: the same memory or file, on from where it ends. */
	if (v->end == old + old_len && mm_is_free(mm, old + old_len, old + new_len)) {
		uint32_t lock = v->flags & (VMA_LOCKED | VMA_LOCKONFAULT);

		r = mm_map(t, old + old_len, new_len - old_len, v->prot,
			   VMA_MAP_FLAGS(v->flags), v->file,
			   v->file ? v->off + (v->end - v->start) : 0);
		if (r == 0 && lock)	/* the grown part stays locked */
			mm_set_lock(mm, old + old_len, old + new_len, lock);
		return r < 0 ? r : (long)old;
	}
	if (!(flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	dst = mm_find_free(mm, new_len);
	if (!dst)
		return -ENOMEM;
	return mremap_move(t, old, old_len, dst, new_len);
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE		25
#endif
#ifndef MADV_SOFT_OFFLINE
#define MADV_SOFT_OFFLINE	101
#endif

/* madvise_behavior_valid() of Debian's kernels (KSM, THP, memory failure). */
static bool madv_valid(int adv)
{
	return (adv >= MADV_NORMAL && adv <= MADV_DONTNEED) ||
	       (adv >= MADV_FREE && adv <= MADV_COLLAPSE) ||
	       adv == MADV_HWPOISON || adv == MADV_SOFT_OFFLINE;
}

/* Zero [s, e) in place: shared memory stays shared. */
static int zero_range(struct task *t, uint64_t s, uint64_t e)
{
	static const char zeros[PAGE_SIZE];

	for (; s < e; s += PAGE_SIZE)
		if (uml_mem_write(t->p->as, s, zeros, PAGE_SIZE) != PAGE_SIZE)
			return -EFAULT;
	return 0;
}

/* Advice @adv for [s, e) of mapping @v: madvise_vma_behavior()'s rules. */
static int madv_vma(struct task *t, const struct vma *v, uint64_t s,
		    uint64_t e, int adv)
{
	bool anon = v->flags & UML_MAP_ANONYMOUS, shared = v->flags & UML_MAP_SHARED;
	uint64_t off = v->file ? v->off + (s - v->start) : 0;
	int r;

	if (v->flags & VMA_RESERVED)
		return adv == MADV_DONTNEED || adv == MADV_DONTNEED_LOCKED ||
		       adv == MADV_FREE || adv == MADV_REMOVE ? -EINVAL : 0;
	/* madvise_dontneed_free_valid_vma(), madvise_remove(): not locked */
	if ((v->flags & VMA_LOCKED) &&
	    (adv == MADV_DONTNEED || adv == MADV_FREE || adv == MADV_REMOVE))
		return -EINVAL;
	switch (adv) {
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:
		/*
		 * Private memory drops its own pages: anonymous memory reads
		 * zeros, a file mapping the file again; shared memory keeps
		 * the data, which is the file's or the shared object's.
		 */
		if (shared || (!anon && !v->file))
			return 0;
		return uml_aspace_map(t->p->as, s, e - s, v->prot, VMA_MAP_FLAGS(v->flags),
				      anon ? -1 : v->file->hostfd, off);
	case MADV_FREE:
		/* Anonymous private memory only; dropped at once here. */
		if (!anon || shared)
			return -EINVAL;
		return uml_aspace_map(t->p->as, s, e - s, v->prot, VMA_MAP_FLAGS(v->flags), -1, 0);
	case MADV_REMOVE:
		/* Punch a hole: writable shared mappings of a file or shmem. */
		if ((anon && !shared) || (!anon && !v->file))
			return -EINVAL;
		if (!shared || (!anon && (v->file->flags & O_ACCMODE) == O_RDONLY))
			return -EACCES;
		if (anon)
			return zero_range(t, s, e);
		do
			r = fallocate(v->file->hostfd, FALLOC_FL_PUNCH_HOLE |
				      FALLOC_FL_KEEP_SIZE, off, e - s);
		while (r < 0 && errno == EINTR);	/* the runtime's signal */
		return r < 0 ? -errno : 0;
	case MADV_WIPEONFORK:
		/* Accepted where the kernel takes it, not honoured. */
		return anon && !shared ? 0 : -EINVAL;
	}
	return 0;	/* a hint: nothing to do */
}

/*
 * The kernel's checks in its order (do_madvise()), then each mapping in
 * the range in turn; a hole in it is ENOMEM once the rest is done.  The
 * memory-failure injections are never a guest's (EPERM, as without
 * CAP_SYS_ADMIN).
 */
long sys_madvise(struct task *t, const uint64_t *a)
{
	uint64_t start = a[0], len = PAGE_ALIGN(a[1]), end = start + len, s, e;
	struct mm *mm = t->p->mm;
	int adv = (int)a[2], i, r, hole = 0;

	if (!madv_valid(adv) || (start & (PAGE_SIZE - 1)))
		return -EINVAL;
	if (a[1] && !len)
		return -EINVAL;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	if (adv == MADV_HWPOISON || adv == MADV_SOFT_OFFLINE)
		return -EPERM;
	s = start;
	for (i = 0; i < mm->n && s < end; i++) {
		struct vma v = mm->v[i];

		if (v.end <= s)
			continue;
		if (v.start >= end)
			break;
		if (v.start > s) {
			hole = -ENOMEM;
			s = v.start;
		}
		e = v.end < end ? v.end : end;
		r = madv_vma(t, &v, s, e, adv);
		if (r < 0)
			return r;
		s = e;
	}
	return s < end ? -ENOMEM : hole;
}

/*
 * The kernel's checks (mm/msync.c); a hole in the range is ENOMEM.  The
 * guest's shared file pages are the host's page cache: MS_SYNC is the
 * host's fsync of the file.
 */
long sys_msync(struct task *t, const uint64_t *a)
{
	uint64_t start = a[0], len = PAGE_ALIGN(a[1]), end = start + len, s;
	struct mm *mm = t->p->mm;
	int flags = (int)a[2], i, hole = 0;

	if ((a[2] & ~(uint64_t)(MS_ASYNC | MS_INVALIDATE | MS_SYNC)) ||
	    (start & (PAGE_SIZE - 1)) ||
	    ((flags & MS_ASYNC) && (flags & MS_SYNC)) || end < start)
		return -EINVAL;
	s = start;
	for (i = 0; i < mm->n && s < end; i++) {
		const struct vma *v = &mm->v[i];

		if (v->end <= s)
			continue;
		if (v->start >= end)
			break;
		if (v->start > s)
			hole = -ENOMEM;
		if ((flags & MS_INVALIDATE) && (v->flags & VMA_LOCKED))
			return -EBUSY;
		if ((flags & MS_SYNC) && v->file && (v->flags & UML_MAP_SHARED) &&
		    fsync(v->file->hostfd) < 0)
			return -errno;
		s = v->end;
	}
	return s < end ? -ENOMEM : hole;
}
