// SPDX-License-Identifier: GPL-2.0-only
/*
 * Calls that look at or into another guest process: kcmp (kernel/kcmp.c)
 * and process_vm_readv, process_vm_writev (mm/process_vm_access.c), with
 * the kernel's checks in its order.  The objects kcmp compares are the
 * runtime's: a guest file, address space, descriptor table, signal
 * handlers; a process's working directory, I/O context and semaphore
 * adjustments are its own in the runtime (CLONE_FS, CLONE_IO and
 * CLONE_SYSVSEM do not share them between processes), and kcmp says so.
 * One user: the ptrace access check is the target's dumpable flag, or
 * CAP_SYS_PTRACE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "umlrun.h"

#define MAX_RW_COUNT		(0x7fffffffUL & ~(PAGE_SIZE - 1))

enum { KCMP_FILE, KCMP_VM, KCMP_FILES, KCMP_FS, KCMP_SIGHAND, KCMP_IO,
       KCMP_SYSVSEM, KCMP_EPOLL_TFD, KCMP_TYPES };

/*
 * ptrace_may_access() for one user: the caller's own process, a dumpable
 * one, or CAP_SYS_PTRACE (kcmp, process_vm_*, pidfd_getfd,
 * get_robust_list).
 */
bool proc_may_ptrace(const struct task *t, const struct proc *p)
{
	return p == t->p || p->dumpable ||
	       (t->cap_eff & (1ULL << CAP_SYS_PTRACE));
}

/* kcmp_ptr(): 0 equal, 1 below, 2 above (the kernel's order is its own). */
static long kcmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return (x < y) | ((x > y) << 1);
}

static struct file *file_of(const struct proc *p, unsigned long fd)
{
	if (!p->fdt || fd >= (unsigned long)p->fdt->size)
		return NULL;
	return p->fdt->ent[fd].f;
}

/*
 * A kernel without CONFIG_KCMP (the debug kernel's tinyconfig) has no
 * kcmp: nor has its guest, which sees the host's features.
 */
static bool host_kcmp(void)
{
	static int has = -1;

	return host_has(&has, SYS_kcmp, 0, 0, -1, 0, 0, 0);
}

long sys_kcmp(struct task *t, const uint64_t *a)
{
	struct task *t1 = task_by_tid((int)a[0]), *t2 = task_by_tid((int)a[1]);
	const struct proc *p1, *p2;
	struct file *f1, *f2;

	if (!host_kcmp())
		return -ENOSYS;

	if (!t1 || !t2)
		return -ESRCH;
	p1 = t1->p;
	p2 = t2->p;
	if (!proc_may_ptrace(t, p1) || !proc_may_ptrace(t, p2))
		return -EPERM;
	switch ((int)a[2]) {
	case KCMP_FILE:
		f1 = file_of(p1, a[3]);
		f2 = file_of(p2, a[4]);
		if (!f1 || !f2)
			return -EBADF;
		return kcmp_ptr(f1, f2);
	case KCMP_VM:
		return kcmp_ptr(p1->mm, p2->mm);
	case KCMP_FILES:
		return kcmp_ptr(p1->fdt, p2->fdt);
	case KCMP_FS:
	case KCMP_IO:
		return kcmp_ptr(p1, p2);
	case KCMP_SIGHAND:
		return kcmp_ptr(p1->sh, p2->sh);
	case KCMP_SYSVSEM:
		/* no adjustments yet is the kernel's NULL undo list */
		return kcmp_ptr(p1->sem_undo ? p1 : NULL, p2->sem_undo ? p2 : NULL);
	case KCMP_EPOLL_TFD:
		return -EOPNOTSUPP;	/* Documentation/runtime.rst, gaps */
	default:
		return -EINVAL;
	}
}

/* A guest iovec array: at most UIO_MAXIOV, no negative length. */
static long iov_read(struct task *t, uint64_t uiov, unsigned long cnt,
		     struct iovec **out)
{
	struct iovec *v;
	unsigned long i;

	if (cnt > UIO_MAXIOV)
		return -EINVAL;
	v = calloc(cnt ? cnt : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (cnt && copy_from_guest(t, v, uiov, cnt * sizeof(*v)) < 0) {
		free(v);
		return -EFAULT;
	}
	for (i = 0; i < cnt; i++)
		if ((ssize_t)v[i].iov_len < 0) {
			free(v);
			return -EINVAL;
		}
	*out = v;
	return 0;
}

/* The caller's side: an iovec walked as the kernel's iov_iter. */
struct iter {
	struct task *t;
	struct iovec *v;
	unsigned long n, i;
	size_t off, left;	/* in v[i]; bytes left in all */
};

/*
 * Move @len bytes between @buf and the caller's memory; how many moved
 * (fewer on a fault).
 */
static size_t iter_copy(struct iter *it, char *buf, size_t len, bool to_caller)
{
	size_t done = 0;

	while (done < len && it->left) {
		struct iovec *v = &it->v[it->i];
		size_t c = v->iov_len - it->off;
		uint64_t addr = (uint64_t)v->iov_base + it->off;
		int r;

		if (!c) {
			it->i++;
			it->off = 0;
			continue;
		}
		if (c > len - done)
			c = len - done;
		r = to_caller ? copy_to_guest(it->t, addr, buf + done, c)
			      : copy_from_guest(it->t, buf + done, addr, c);
		if (r < 0)
			return done;
		done += c;
		it->off += c;
		it->left -= c;
	}
	return done;
}

/* CONFIG_CROSS_MEMORY_ATTACH: the guest has the calls if the host has. */
static bool host_pvm(void)
{
	static int has = -1;

	return host_has(&has, SYS_process_vm_readv, 0, 0, 0, 0, 0, 0);
}

/* process_vm_rw(): copy between the caller's @lvec and @pid's @rvec. */
static long process_vm_rw(struct task *t, const uint64_t *a, bool write)
{
	struct iovec *lv = NULL, *rv = NULL;
	struct iter it = { .t = t };
	struct task *target;
	size_t total = 0, moved = 0;
	unsigned long i;
	char page[PAGE_SIZE];
	long r;

	if (!host_pvm())
		return -ENOSYS;
	if (a[5])
		return -EINVAL;
	r = iov_read(t, a[1], a[2], &lv);
	if (r)
		return r;
	for (i = 0; i < a[2]; i++) {	/* import_iovec() cuts to MAX_RW_COUNT */
		if (lv[i].iov_len > MAX_RW_COUNT - total)
			lv[i].iov_len = MAX_RW_COUNT - total;
		total += lv[i].iov_len;
	}
	if (!total)
		goto out;
	r = iov_read(t, a[3], a[4], &rv);
	if (r)
		goto out;
	for (i = 0; i < a[4] && !rv[i].iov_len; i++)
		;
	if (i == a[4])
		goto out;	/* no remote page: 0 */
	target = task_by_tid((int)a[0]);
	if (!target || target->p->state != PROC_ALIVE || !target->p->mm) {
		r = -ESRCH;
		goto out;
	}
	target = target->p->threads;
	if (!proc_may_ptrace(t, target->p)) {
		r = -EPERM;
		goto out;
	}
	it.v = lv;
	it.n = a[2];
	it.left = total;
	/* page by page of the remote vectors, as the kernel pins them */
	for (i = 0; i < a[4] && it.left && !r; i++) {
		uint64_t addr = (uint64_t)rv[i].iov_base;
		size_t len = rv[i].iov_len;

		while (len && it.left) {
			size_t c = PAGE_SIZE - (addr & (PAGE_SIZE - 1)), n;

			if (c > len)
				c = len;
			if (c > it.left)
				c = it.left;
			if (!write && copy_from_guest(target, page, addr, c) < 0) {
				r = -EFAULT;
				break;
			}
			n = iter_copy(&it, page, c, !write);
			if (write && n && copy_to_guest(target, addr, page, n) < 0) {
				r = -EFAULT;
				break;
			}
			moved += n;
			if (n < c) {
				r = -EFAULT;
				break;
			}
			addr += c;
			len -= c;
		}
	}
	if (moved)
		r = moved;
out:
	free(lv);
	free(rv);
	return r;
}

long sys_process_vm_readv(struct task *t, const uint64_t *a)
{
	return process_vm_rw(t, a, false);
}

long sys_process_vm_writev(struct task *t, const uint64_t *a)
{
	return process_vm_rw(t, a, true);
}
