// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest's memory map: the runtime keeps its own list of mappings (to
 * place new ones and answer brk), and applies every change to the guest
 * address space with uml_aspace_mem().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
			  PROT_READ | PROT_EXEC, VMA_RESERVED);
	if (info->vvar_base)
		mm_record(mm, info->vvar_base,
			  info->vvar_base + PAGE_ALIGN(info->vvar_len),
			  PROT_READ, VMA_RESERVED);
	return mm;
}

struct mm *mm_copy(const struct mm *src)
{
	struct mm *mm = malloc(sizeof(*mm));

	if (!mm)
		return NULL;
	*mm = *src;
	mm->refs = 1;
	mm->v = malloc(src->cap * sizeof(*mm->v) + 1);
	if (!mm->v) {
		free(mm);
		return NULL;
	}
	memcpy(mm->v, src->v, src->n * sizeof(*mm->v));
	return mm;
}

void mm_put(struct mm *mm)
{
	if (mm && --mm->refs == 0) {
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
			struct vma tail = *v;

			tail.start = end;
			v->end = start;
			vma_insert_at(mm, i + 1, tail);
			return;
		}
		if (v->start < start) {
			v->end = start;
			i++;
		} else if (v->end > end) {
			v->start = end;
			i++;
		} else {
			memmove(v, v + 1, (mm->n - i - 1) * sizeof(*v));
			mm->n--;
		}
	}
}

int mm_record(struct mm *mm, uint64_t start, uint64_t end, uint32_t prot,
	      uint32_t flags)
{
	struct vma v = { start, end, prot, flags };
	int i;

	mm_forget(mm, start, end);
	for (i = 0; i < mm->n && mm->v[i].start < start; i++)
		;
	return vma_insert_at(mm, i, v);
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

int mm_map(struct task *t, uint64_t addr, uint64_t len, uint32_t prot,
	   uint32_t flags, int hostfd, uint64_t off)
{
	int r = uml_aspace_map(t->p->as, addr, len, prot, flags, hostfd, off);

	if (r < 0)
		return r;
	return mm_record(t->p->mm, addr, addr + len, prot,
			 flags & (UML_MAP_SHARED | UML_MAP_PRIVATE |
				  UML_MAP_ANONYMOUS));
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
	if (!access_ok(t->p->mm, src, len, PROT_READ))
		return -EFAULT;
	return uml_mem_read(t->p->as, dst, src, len) == (long)len ? 0 : -EFAULT;
}

int copy_to_guest(struct task *t, uint64_t dst, const void *src, size_t len)
{
	if (!len)
		return 0;
	if (!access_ok(t->p->mm, dst, len, PROT_WRITE))
		return -EFAULT;
	return uml_mem_write(t->p->as, dst, src, len) == (long)len ? 0 : -EFAULT;
}

/* Copy a NUL-terminated string; its length, -EFAULT or -ENAMETOOLONG. */
int strncpy_from_guest(struct task *t, char *dst, uint64_t src, size_t max)
{
	size_t done = 0;

	while (done < max) {
		size_t chunk = PAGE_SIZE - ((src + done) & (PAGE_SIZE - 1));
		char *nul;
		long n;

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
			   UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, -1, 0) < 0)
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
	int hostfd = -1, r;

	if (!a[1] || !len || (off & (PAGE_SIZE - 1)) || (addr & (PAGE_SIZE - 1) &&
							 (flags & MAP_FIXED)))
		return -EINVAL;
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
	} else {
		struct file *f = fd_lookup(t, (int)a[4]);

		if (!f)
			return -EBADF;
		hostfd = f->hostfd;
	}
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (addr < UML_GUEST_MIN || addr + len > mm->top ||
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
	r = mm_map(t, addr, len, prot & 7, uflags, hostfd, off);
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
static int vma_set_prot(struct mm *mm, uint64_t addr, uint64_t end,
			uint32_t prot)
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
		m = v;
		if (v.start < addr) {
			nv[n] = v;
			nv[n++].end = addr;
			m.start = addr;
		}
		if (v.end > end)
			m.end = end;
		m.prot = prot;
		nv[n++] = m;
		if (v.end > end) {
			nv[n] = v;
			nv[n++].start = end;
		}
	}
	free(mm->v);
	mm->v = nv;
	mm->n = n;
	mm->cap = cap;
	return 0;
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

static struct vma *vma_at(struct mm *mm, uint64_t addr)
{
	int i;

	for (i = 0; i < mm->n; i++)
		if (mm->v[i].start <= addr && addr < mm->v[i].end)
			return &mm->v[i];
	return NULL;
}

/* Move an anonymous mapping by copying: the runtime has no host mremap. */
static long mremap_move(struct task *t, struct vma *v, uint64_t old,
			uint64_t old_len, uint64_t new_len)
{
	struct mm *mm = t->p->mm;
	uint64_t dst = mm_find_free(mm, new_len), n;
	uint32_t prot = v->prot, flags = v->flags;
	char *buf;
	int r;

	if (!dst || !(flags & UML_MAP_ANONYMOUS))
		return -ENOMEM;
	r = mm_map(t, dst, new_len, prot, flags, -1, 0);
	if (r < 0)
		return r;
	buf = malloc(1 << 20);
	if (!buf)
		return -ENOMEM;
	for (n = 0; n < old_len; n += 1 << 20) {
		size_t c = old_len - n < (1 << 20) ? old_len - n : 1 << 20;

		if (uml_mem_read(t->p->as, buf, old + n, c) != (long)c ||
		    uml_mem_write(t->p->as, dst + n, buf, c) != (long)c)
			break;
	}
	free(buf);
	uml_aspace_unmap(t->p->as, old, old_len);
	mm_forget(mm, old, old + old_len);
	return dst;
}

long sys_mremap(struct task *t, const uint64_t *a)
{
	uint64_t old = a[0], old_len = PAGE_ALIGN(a[1]), new_len = PAGE_ALIGN(a[2]);
	struct mm *mm = t->p->mm;
	struct vma *v = vma_at(mm, old);
	int r;

	if ((old & (PAGE_SIZE - 1)) || !new_len || (a[3] & ~MREMAP_MAYMOVE))
		return -EINVAL;
	if (!v || v->end < old + old_len || (v->flags & VMA_RESERVED))
		return -EFAULT;
	if (new_len <= old_len) {
		if (new_len < old_len) {
			r = uml_aspace_unmap(t->p->as, old + new_len,
					     old_len - new_len);
			if (r < 0)
				return r;
			mm_forget(mm, old + new_len, old + old_len);
		}
		return old;
	}
	if ((v->flags & UML_MAP_ANONYMOUS) && v->end == old + old_len &&
	    mm_is_free(mm, old + old_len, old + new_len)) {
		r = mm_map(t, old + old_len, new_len - old_len, v->prot,
			   v->flags, -1, 0);
		return r < 0 ? r : (long)old;
	}
	if (!(a[3] & MREMAP_MAYMOVE))
		return -ENOMEM;
	return mremap_move(t, v, old, old_len, new_len);
}

long sys_madvise(struct task *t, const uint64_t *a)
{
	uint64_t addr = a[0], len = PAGE_ALIGN(a[1]), end = addr + len, s, e;
	struct mm *mm = t->p->mm;
	int i;

	if (addr & (PAGE_SIZE - 1))
		return -EINVAL;
	if (a[2] != MADV_DONTNEED && a[2] != MADV_FREE)
		return 0;
	/* Anonymous private memory reads back as zeros: map it afresh. */
	for (i = 0; i < mm->n; i++) {
		struct vma v = mm->v[i];

		if (v.end <= addr || v.start >= end ||
		    v.flags != (UML_MAP_PRIVATE | UML_MAP_ANONYMOUS))
			continue;
		s = v.start > addr ? v.start : addr;
		e = v.end < end ? v.end : end;
		uml_aspace_map(t->p->as, s, e - s, v.prot, v.flags, -1, 0);
	}
	return 0;
}

long sys_msync(struct task *t, const uint64_t *a)
{
	(void)t;
	(void)a;
	return 0;
}
