// SPDX-License-Identifier: GPL-2.0-only
/*
 * System V IPC, what message queues (msg.c), semaphore sets (sem.c) and
 * shared memory (shm.c) have in common: the guest's own IPC namespace
 * (one per umlrun, never the host's), its ids, keys and permissions, as
 * ipc/util.c has them.
 *
 * An id is its slot's index plus the slot's sequence number times 32768
 * (ipc_buildid()), so a removed object's id does not come back at once; a
 * task that waits on an object is woken by any change to it and looks
 * again (ipc_wait(), ipc_wake()).  The limits are the host's
 * (/proc/sys/kernel), which is what the guest reads there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ipc.h"

#define IPCMNI_SHIFT	15
#define IPCMNI		(1 << IPCMNI_SHIFT)

struct ipc_ids ipc_ids[IPC_KINDS];

/*
 * Does the host have System V IPC (CONFIG_SYSVIPC)?  Its guest has it
 * only then: the guest sees the host's features.
 */
bool ipc_host(void)
{
	static int has = -1;

	return host_has(&has, SYS_msgctl, -1, IPC_STAT, 0, 0, 0, 0);
}

struct ipc_obj *ipc_at(int kind, int idx)
{
	struct ipc_ids *ids = &ipc_ids[kind];

	if (idx < 0 || idx >= ids->size)
		return NULL;
	return ids->slot[idx];
}

/* ipc_obtain_object_check(): the object of guest id @id, or NULL. */
struct ipc_obj *ipc_find(int kind, int id)
{
	struct ipc_obj *o;

	if (id < 0)
		return NULL;
	o = ipc_at(kind, id & (IPCMNI - 1));
	return o && o->id == id ? o : NULL;
}

/*
 * The object of @id for a call (called again) after a wait: -EIDRM if it
 * went while the task waited, -EINVAL if there never was one.
 */
struct ipc_obj *ipc_lookup(struct task *t, int kind, int id, long *err)
{
	struct ipc_obj *o = ipc_find(kind, id);

	if (!o)
		*err = t->sys_again ? -EIDRM : -EINVAL;
	return o;
}

static bool in_group(gid_t g)
{
	gid_t list[256];
	int i, n;

	if (g == host_egid)
		return true;
	n = getgroups(ARRAY_SIZE(list), list);
	for (i = 0; i < n; i++)
		if (list[i] == g)
			return true;
	return false;
}

bool ipc_capable(struct task *t, int cap)
{
	return t->cap_eff & (1ULL << cap);
}

/* ipcperms(): may @t have the access of @flag's mode bits?  0 or -EACCES */
int ipc_perms(struct task *t, const struct ipc_obj *o, int flag)
{
	int want = ((flag >> 6) | (flag >> 3) | flag) & 7;
	int granted = o->mode;
	uid_t euid = host_euid;

	if (euid == o->cuid || euid == o->uid)
		granted >>= 6;
	else if (in_group(o->cgid) || in_group(o->gid))
		granted >>= 3;
	if ((want & ~granted & 7) && !ipc_capable(t, CAP_IPC_OWNER))
		return -EACCES;
	return 0;
}

/* IPC_SET and IPC_RMID are the owner's.  0 or -EPERM */
static int ipc_owner(struct task *t, const struct ipc_obj *o)
{
	uid_t euid = host_euid;

	if (euid == o->cuid || euid == o->uid ||
	    ipc_capable(t, CAP_SYS_ADMIN))
		return 0;
	return -EPERM;
}

/*
 * The object of an IPC_STAT (@id an id) or of a MSG_STAT, SEM_STAT or
 * SHM_STAT (@id an index: ipc_obtain_object_idr()), readable to @t unless
 * @any (the *_STAT_ANY commands).  NULL with -EINVAL or -EACCES in *@err.
 */
struct ipc_obj *ipc_stat_obj(struct task *t, int kind, int id, bool by_index,
			     bool any, long *err)
{
	struct ipc_obj *o = by_index ? ipc_at(kind, id & (IPCMNI - 1))
				     : ipc_find(kind, id);

	if (!o) {
		*err = -EINVAL;
	} else if (!any && ipc_perms(t, o, 0444)) {
		*err = -EACCES;
		o = NULL;
	}
	return o;
}

/*
 * ipcctl_obtain_check(): the object IPC_SET or IPC_RMID acts on, the
 * owner's.  NULL with -EINVAL or -EPERM in *@err.
 */
struct ipc_obj *ipc_ctl_obj(struct task *t, int kind, int id, long *err)
{
	struct ipc_obj *o = ipc_find(kind, id);

	if (!o) {
		*err = -EINVAL;
	} else {
		*err = ipc_owner(t, o);
		if (*err)
			o = NULL;
	}
	return o;
}

/* ipc_update_perm(): IPC_SET's ids and mode.  0 or -EINVAL */
int ipc_set_perm(struct ipc_obj *o, const struct ipc64_perm *in)
{
	if (in->uid == (uid_t)-1 || in->gid == (gid_t)-1)
		return -EINVAL;
	o->uid = in->uid;
	o->gid = in->gid;
	o->mode = (o->mode & ~0777u) | (in->mode & 0777);
	return 0;
}

void ipc_fill_perm(const struct ipc_obj *o, struct ipc64_perm *p)
{
	memset(p, 0, sizeof(*p));
	p->key = o->key;
	p->uid = o->uid;
	p->gid = o->gid;
	p->cuid = o->cuid;
	p->cgid = o->cgid;
	p->mode = o->mode;
	p->seq = o->seq;
}

int ipc_max_idx(int kind)
{
	struct ipc_ids *ids = &ipc_ids[kind];
	int i;

	for (i = ids->size - 1; i >= 0; i--)
		if (ids->slot[i])
			return i;
	return -1;
}

/* ipc_addid(): give @o a slot and an id; -ENOSPC past @max objects. */
static int ipc_add(int kind, struct ipc_obj *o, int max)
{
	struct ipc_ids *ids = &ipc_ids[kind];
	int i;

	if (ids->count >= max || ids->count >= IPCMNI)
		return -ENOSPC;
	/* the lowest free slot, as idr_alloc() gives: O(1) for a run of gets */
	for (i = ids->free_hint; i < ids->size && ids->slot[i]; i++)
		;
	if (i == ids->size) {
		int size = ids->size ? ids->size * 2 : 16;
		struct ipc_obj **n = realloc(ids->slot, size * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + ids->size, 0, (size - ids->size) * sizeof(*n));
		ids->slot = n;
		ids->size = size;
	}
	o->seq = ids->seq;
	if (++ids->seq > (INT32_MAX >> IPCMNI_SHIFT))
		ids->seq = 0;
	o->id = (o->seq << IPCMNI_SHIFT) + i;
	ids->slot[i] = o;
	ids->count++;
	ids->free_hint = i + 1;
	return 0;
}

/* The slot of @o is free again (the caller frees @o). */
void ipc_remove(int kind, struct ipc_obj *o)
{
	struct ipc_ids *ids = &ipc_ids[kind];
	int idx = o->id & (IPCMNI - 1);

	if (idx < ids->size && ids->slot[idx] == o) {
		ids->slot[idx] = NULL;
		ids->count--;
		if (idx < ids->free_hint)
			ids->free_hint = idx;
	}
	ipc_wake(kind, o->id);
}

/* A new object of @key and @flg's mode, owned by the caller. */
int ipc_new(int kind, struct ipc_obj *o, int key, int flg, int max)
{
	o->key = key;
	o->uid = o->cuid = host_euid;
	o->gid = o->cgid = host_egid;
	o->mode = flg & 0777;
	return ipc_add(kind, o, max);
}

/*
 * ipcget(): the id @key names, through @create for a new one; the checks
 * in Linux's order: EEXIST, then EACCES, then @more (shmget's size).
 */
long ipc_get(struct task *t, int kind, int key, int flg,
	     long (*create)(struct task *t, int key, int flg, void *arg),
	     int (*more)(struct ipc_obj *o, void *arg), void *arg)
{
	struct ipc_ids *ids = &ipc_ids[kind];
	struct ipc_obj *o = NULL;
	int i, r;

	if (key == IPC_PRIVATE)
		return create(t, key, flg, arg);
	for (i = 0; i < ids->size && !o; i++)
		if (ids->slot[i] && ids->slot[i]->key == key)
			o = ids->slot[i];
	if (!o)
		return flg & IPC_CREAT ? create(t, key, flg, arg) : -ENOENT;
	if ((flg & IPC_CREAT) && (flg & IPC_EXCL))
		return -EEXIST;
	if (ipc_perms(t, o, flg))
		return -EACCES;
	if (more) {
		r = more(o, arg);
		if (r)
			return r;
	}
	return o->id;
}

/* @t waits for a change to object @id of @kind (SYS_BLOCK). */
long ipc_wait(struct task *t, int kind, int id)
{
	t->w.ipc_kind = kind + 1;
	t->w.ipc_id = id;
	return SYS_BLOCK;
}

/* Object @id of @kind changed (or went): its waiters look again. */
void ipc_wake(int kind, int id)
{
	struct proc *p;
	struct task *t;

	for (p = procs; p; p = p->next)
		for (t = p->threads; t; t = t->next_in_proc)
			if (t->state == TASK_BLOCKED &&
			    t->w.ipc_kind == kind + 1 && t->w.ipc_id == id) {
				t->w.ipc_kind = 0;
				sched_wake(t);
			}
}

/* /proc/sysvipc/@name: the guest's objects, not the host's.  fd or -errno */
int ipc_proc_open(const char *name, int (*memfd)(const char *, size_t))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (!ipc_host() ||
	    (strcmp(name, "msg") && strcmp(name, "sem") && strcmp(name, "shm")))
		return 0;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	if (name[1] == 'h')
		shm_proc_show(f);
	else if (name[1] == 'e')
		sem_proc_show(f);
	else
		msg_proc_show(f);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	r = memfd(buf, len);
	free(buf);
	return r;
}
