// SPDX-License-Identifier: GPL-2.0-only
/*
 * System V shared memory: shmget, shmat, shmdt and shmctl, checked in the
 * order ipc/shm.c checks them.  A segment is a memfd of the runtime's,
 * never in a guest's descriptor table; shmat maps it MAP_SHARED like any
 * file, so fork keeps the attachment, exec and exit drop it, and shared
 * futexes in it meet (futex_key_of()).  shm_nattch is the number of
 * attachments counted in the address spaces (a mapping split by mprotect
 * still counts once); a segment removed while attached (SHM_DEST) goes
 * with its last attachment.  The limits are the host's shmmax, shmall and
 * shmmni; each segment holds a host fd of the runtime's, so past the
 * runtime's RLIMIT_NOFILE shmget is ENOMEM before shmmni's ENOSPC.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/shm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ipc.h"

#define SHM_DEST	01000	/* removed, goes with its last attachment */
#define SHM_LOCKED	02000	/* SHM_LOCK'ed */

struct shmseg {
	struct ipc_obj perm;		/* first: an ipc_obj is a shmseg */
	struct file *file;		/* the memfd */
	size_t size;
	time_t atime, dtime, ctime;
	int cpid, lpid;
};

static unsigned long shmmax, shmall, shmmni, shm_tot;	/* shm_tot: pages */

static void shm_limits(void)
{
	if (shmmni)
		return;
	shmmax = host_sysctl("kernel/shmmax", 0, SHMMAX);
	shmall = host_sysctl("kernel/shmall", 0, SHMALL);
	shmmni = host_sysctl("kernel/shmmni", 0, SHMMNI);
}

static struct shmseg *seg_of(struct ipc_obj *o)
{
	return (struct shmseg *)o;
}

/* The segment @f is, or NULL. */
static struct shmseg *seg_of_file(const struct file *f)
{
	struct ipc_ids *ids = &ipc_ids[IPC_SHM];
	int i;

	if (!f)
		return NULL;
	for (i = 0; i < ids->size; i++)
		if (ids->slot[i] && seg_of(ids->slot[i])->file == f)
			return seg_of(ids->slot[i]);
	return NULL;
}

/* Attachments of @s: mappings of it not continuing the one before. */
static unsigned long seg_nattch(const struct shmseg *s)
{
	unsigned long n = 0;
	struct proc *p, *q;
	int i;

	for (p = procs; p; p = p->next) {
		const struct mm *mm = p->mm;

		if (p->state != PROC_ALIVE || !mm)
			continue;
		for (q = procs; q != p; q = q->next)
			if (q->state == PROC_ALIVE && q->mm == mm)
				break;
		if (q != p)
			continue;	/* counted already */
		for (i = 0; i < mm->n; i++) {
			const struct vma *v = &mm->v[i], *u = i ? v - 1 : NULL;

			if (v->file != s->file)
				continue;
			if (u && u->file == v->file && u->end == v->start &&
			    u->off + (u->end - u->start) == v->off)
				continue;
			n++;
		}
	}
	return n;
}

static void seg_free(struct shmseg *s)
{
	shm_tot -= PAGE_ALIGN(s->size) / PAGE_SIZE;
	ipc_remove(IPC_SHM, &s->perm);
	file_put(s->file);
	free(s);
}

/* Free the removed segments nothing has attached any more. */
void shm_sweep(void)
{
	struct ipc_ids *ids = &ipc_ids[IPC_SHM];
	int i;

	for (i = 0; i < ids->size; i++) {
		struct ipc_obj *o = ids->slot[i];

		if (o && (o->mode & SHM_DEST) && !seg_nattch(seg_of(o)))
			seg_free(seg_of(o));
	}
}

static long seg_create(struct task *t, int key, int flg, void *arg)
{
	size_t size = *(size_t *)arg;
	unsigned long pages = (size + PAGE_SIZE - 1) / PAGE_SIZE;
	struct shmseg *s;
	char name[32];
	int fd, r;

	if (size < SHMMIN || size > shmmax)
		return -EINVAL;
	if (pages * PAGE_SIZE < size)
		return -ENOSPC;
	if (shm_tot + pages < shm_tot || shm_tot + pages > shmall)
		return -ENOSPC;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	snprintf(name, sizeof(name), "SYSV%08x", (unsigned int)key);
	fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, size) < 0) {
		/* out of host fds or memory: shmget's ENOMEM */
		r = errno == EPERM || errno == EACCES ? -errno : -ENOMEM;
		if (fd >= 0)
			close(fd);
		free(s);
		return r;
	}
	s->file = file_new(fd, O_RDWR);
	if (!s->file) {
		close(fd);
		free(s);
		return -ENOMEM;
	}
	s->size = size;
	s->cpid = t->p->pid;
	s->ctime = time(NULL);
	r = ipc_new(IPC_SHM, &s->perm, key, flg, shmmni);
	if (r) {
		file_put(s->file);
		free(s);
		return r;
	}
	shm_tot += pages;
	return s->perm.id;
}

/* shm_more_checks(): an existing segment must be as large as asked. */
static int seg_more(struct ipc_obj *o, void *arg)
{
	return seg_of(o)->size < *(size_t *)arg ? -EINVAL : 0;
}

long sys_shmget(struct task *t, const uint64_t *a)
{
	size_t size = a[1];

	if (!ipc_host())
		return -ENOSYS;
	shm_limits();
	shm_sweep();
	return ipc_get(t, IPC_SHM, (int)a[0], (int)a[2], seg_create, seg_more,
		       &size);
}

/* What [@s, @e) holds: 0 nothing, 1 mappings, 2 the vDSO or vvar. */
static int range_state(const struct mm *mm, uint64_t s, uint64_t e)
{
	int i, r = 0;

	for (i = 0; i < mm->n; i++)
		if (mm->v[i].start < e && mm->v[i].end > s) {
			if (mm->v[i].flags & VMA_RESERVED)
				return 2;
			r = 1;
		}
	return r;
}

long sys_shmat(struct task *t, const uint64_t *a)
{
	int id = (int)a[0], flg = (int)a[2], acc;
	uint64_t addr = a[1], len;
	struct mm *mm = t->p->mm;
	uint32_t prot;
	struct ipc_obj *o;
	struct shmseg *s;
	int r;

	if (!ipc_host())
		return -ENOSYS;
	shm_limits();
	shm_sweep();
	if (id < 0)
		return -EINVAL;
	if (addr) {
		if (addr & (PAGE_SIZE - 1)) {
			if (!(flg & SHM_RND))
				return -EINVAL;
			addr = PAGE_DOWN(addr);
			if (!addr && (flg & SHM_REMAP))
				return -EINVAL;
		}
	} else if (flg & SHM_REMAP) {
		return -EINVAL;
	}
	if (flg & SHM_RDONLY) {
		prot = PROT_READ;
		acc = 0444;
	} else {
		prot = PROT_READ | PROT_WRITE;
		acc = 0666;
	}
	if (flg & SHM_EXEC) {
		prot |= PROT_EXEC;
		acc |= 0111;
	}
	o = ipc_find(IPC_SHM, id);
	if (!o)
		return -EINVAL;
	if (ipc_perms(t, o, acc))
		return -EACCES;
	s = seg_of(o);
	len = PAGE_ALIGN(s->size);
	if (addr) {
		if (addr + s->size < addr)
			return -EINVAL;
		r = range_state(mm, addr, addr + len);
		if (r && !(flg & SHM_REMAP))
			return -EINVAL;
		/* do_mmap()'s MAP_FIXED: within the space, never the vDSO */
		if (addr < UML_GUEST_MIN || addr > mm->top ||
		    len > mm->top - addr || r == 2)
			return -ENOMEM;
	} else {
		addr = mm_find_free(mm, len);
		if (!addr)
			return -ENOMEM;
	}
	r = mm_map(t, addr, len, prot, UML_MAP_SHARED, s->file, 0);
	if (r < 0)
		return r;
	s->atime = time(NULL);
	s->lpid = t->p->pid;
	return (long)addr;
}

long sys_shmdt(struct task *t, const uint64_t *a)
{
	uint64_t addr = a[0], size = 0;
	struct mm *mm = t->p->mm;
	struct shmseg *s = NULL;
	struct file *f = NULL;
	int i, r = -EINVAL;

	if (!ipc_host())
		return -ENOSYS;
	if (addr & (PAGE_SIZE - 1))
		return -EINVAL;
	/*
	 * ksys_shmdt(): from the mapping holding @addr on, the first of a
	 * segment at the offset it would have if attached at @addr, then
	 * every other piece of that segment so placed within its size.
	 */
	for (i = 0; i < mm->n && mm->v[i].end <= addr; i++)
		;
	if (i == mm->n || mm->v[i].start > addr)
		return -EINVAL;
	for (; i < mm->n; i++) {
		struct vma *v = &mm->v[i];
		struct shmseg *vs = seg_of_file(v->file);

		if (f && v->end - addr > size)
			break;
		if (!vs || v->start - addr != v->off || (f && v->file != f))
			continue;
		if (!f) {
			f = v->file;
			s = vs;
			size = PAGE_ALIGN(s->size);
			r = 0;
		}
		if (uml_aspace_unmap(t->p->as, v->start, v->end - v->start) == 0) {
			mm_forget(mm, v->start, v->end);
			i--;	/* the next mapping moved here */
		}
	}
	if (s) {
		s->dtime = time(NULL);
		s->lpid = t->p->pid;
		shm_sweep();
	}
	return r;
}

static long shmctl_stat(struct task *t, int id, int cmd, uint64_t ubuf)
{
	struct shmid64_ds ds;
	struct ipc_obj *o;
	struct shmseg *s;
	long err;

	memset(&ds, 0, sizeof(ds));
	o = ipc_stat_obj(t, IPC_SHM, id, cmd != IPC_STAT, cmd == SHM_STAT_ANY, &err);
	if (!o)
		return err;
	s = seg_of(o);
	ipc_fill_perm(o, &ds.shm_perm);
	ds.shm_segsz = s->size;
	ds.shm_atime = s->atime;
	ds.shm_dtime = s->dtime;
	ds.shm_ctime = s->ctime;
	ds.shm_cpid = s->cpid;
	ds.shm_lpid = s->lpid;
	ds.shm_nattch = seg_nattch(s);
	if (copy_to_guest(t, ubuf, &ds, sizeof(ds)) < 0)
		return -EFAULT;
	return cmd == IPC_STAT ? 0 : o->id;
}

static long shmctl_info(struct task *t, int cmd, uint64_t ubuf)
{
	int max = ipc_max_idx(IPC_SHM);

	if (max < 0)
		max = 0;
	if (cmd == IPC_INFO) {
		struct shminfo64 si;

		memset(&si, 0, sizeof(si));
		si.shmmni = si.shmseg = shmmni;
		si.shmmax = shmmax;
		si.shmall = shmall;
		si.shmmin = SHMMIN;
		return copy_to_guest(t, ubuf, &si, sizeof(si)) < 0 ? -EFAULT : max;
	} else {
		struct shm_info si;

		memset(&si, 0, sizeof(si));
		si.used_ids = ipc_ids[IPC_SHM].count;
		si.shm_tot = shm_tot;
		si.shm_rss = shm_tot;	/* memfd pages are not counted apart */
		return copy_to_guest(t, ubuf, &si, sizeof(si)) < 0 ? -EFAULT : max;
	}
}

long sys_shmctl(struct task *t, const uint64_t *a)
{
	int id = (int)a[0], cmd = (int)a[1];
	struct shmid64_ds ds;
	struct ipc_obj *o;
	uid_t euid;
	int r;
	long err;

	if (!ipc_host())
		return -ENOSYS;
	shm_limits();
	shm_sweep();
	if (cmd < 0 || id < 0)
		return -EINVAL;
	switch (cmd) {
	case IPC_INFO:
	case SHM_INFO:
		return shmctl_info(t, cmd, a[2]);
	case IPC_STAT:
	case SHM_STAT:
	case SHM_STAT_ANY:
		return shmctl_stat(t, id, cmd, a[2]);
	case IPC_SET:
		if (copy_from_guest(t, &ds, a[2], sizeof(ds)) < 0)
			return -EFAULT;
		/* fall through */
	case IPC_RMID:
		o = ipc_ctl_obj(t, IPC_SHM, id, &err);
		if (!o)
			return err;
		if (cmd == IPC_SET) {
			r = ipc_set_perm(o, &ds.shm_perm);
			if (!r)
				seg_of(o)->ctime = time(NULL);
			return r;
		}
		/* do_shm_rmid(): no more to be found by its key */
		o->mode |= SHM_DEST;
		o->key = IPC_PRIVATE;
		shm_sweep();
		return 0;
	case SHM_LOCK:
	case SHM_UNLOCK:
		o = ipc_find(IPC_SHM, id);
		if (!o)
			return -EINVAL;
		euid = host_euid;
		if (cmd == SHM_LOCK && !ipc_capable(t, CAP_IPC_LOCK) &&
		    euid != o->uid && euid != o->cuid)
			return -EPERM;
		if (cmd == SHM_LOCK)
			o->mode |= SHM_LOCKED;
		else
			o->mode &= ~SHM_LOCKED;
		return 0;
	default:
		return -EINVAL;
	}
}

/* /proc/sysvipc/shm (sysvipc_shm_proc_show()) */
void shm_proc_show(FILE *f)
{
	struct ipc_ids *ids = &ipc_ids[IPC_SHM];
	int i;

	shm_sweep();
	fprintf(f, "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n");
	for (i = 0; i < ids->size; i++) {
		const struct shmseg *s = (const struct shmseg *)ids->slot[i];

		if (!s)
			continue;
		fprintf(f, "%10d %10d  %4o %21zu %5u %5u  %5lu %5u %5u %5u %5u %10llu %10llu %10llu %21zu %21zu\n",
			s->perm.key, s->perm.id, s->perm.mode, s->size,
			s->cpid, s->lpid, seg_nattch(s), s->perm.uid,
			s->perm.gid, s->perm.cuid, s->perm.cgid,
			(unsigned long long)s->atime,
			(unsigned long long)s->dtime,
			(unsigned long long)s->ctime,
			(size_t)PAGE_ALIGN(s->size), (size_t)0);
	}
}
