// SPDX-License-Identifier: GPL-2.0-only
/*
 * System V semaphore sets: semget, semop, semtimedop and semctl, checked
 * in the order ipc/sem.c checks them, with SEM_UNDO's adjustments applied
 * when the process exits (sem_exit()).  A semop's operations apply all
 * or none, one after the other (perform_atomic_semop_slow()); one that
 * must wait waits for any change to its set and tries again, and is
 * counted by GETNCNT or GETZCNT on the semaphore of the operation that
 * blocked it, as Linux counts since 4.x.  The adjustments belong to the
 * process (its threads share them, as with glibc's CLONE_SYSVSEM); a
 * forked child starts with none.  The limits are the host's
 * /proc/sys/kernel/sem.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipc.h"

struct sem {
	int val;
	int pid;
	time_t otime;
};

struct semset {
	struct ipc_obj perm;		/* first: an ipc_obj is a semset */
	int nsems;
	time_t ctime;
	struct sem sems[];
};

/* A process's adjustments for one set (struct sem_undo). */
struct sem_undo {
	struct sem_undo *next;
	int semid;
	int nsems;
	short adj[];
};

static long semmsl, semmns, semopm, semmni;
static long used_sems;

static void sem_limits(void)
{
	if (semmni)
		return;
	semmsl = host_sysctl("kernel/sem", 0, SEMMSL);
	semmns = host_sysctl("kernel/sem", 1, SEMMNS);
	semopm = host_sysctl("kernel/sem", 2, SEMOPM);
	semmni = host_sysctl("kernel/sem", 3, SEMMNI);
}

static struct semset *set_of(struct ipc_obj *o)
{
	return (struct semset *)o;
}

static long set_create(struct task *t, int key, int flg, void *arg)
{
	int nsems = *(int *)arg, r;
	struct semset *s;

	(void)t;
	if (!nsems)
		return -EINVAL;
	if (used_sems + nsems > semmns)
		return -ENOSPC;
	s = calloc(1, sizeof(*s) + nsems * sizeof(s->sems[0]));
	if (!s)
		return -ENOMEM;
	s->nsems = nsems;
	s->ctime = time(NULL);
	r = ipc_new(IPC_SEM, &s->perm, key, flg, semmni);
	if (r) {
		free(s);
		return r;
	}
	used_sems += nsems;
	return s->perm.id;
}

/* sem_more_checks(): an existing set must have the semaphores asked for. */
static int set_more(struct ipc_obj *o, void *arg)
{
	return *(int *)arg > set_of(o)->nsems ? -EINVAL : 0;
}

long sys_semget(struct task *t, const uint64_t *a)
{
	int nsems = (int)a[1];

	if (!ipc_host())
		return -ENOSYS;
	sem_limits();
	if (nsems < 0 || nsems > semmsl)
		return -EINVAL;
	return ipc_get(t, IPC_SEM, (int)a[0], (int)a[2], set_create, set_more,
		       &nsems);
}

/* The adjustments of @p for set @id; with @alloc made if missing. */
static struct sem_undo *undo_of(struct proc *p, const struct semset *s,
				bool alloc)
{
	struct sem_undo *u;

	for (u = p->sem_undo; u; u = u->next)
		if (u->semid == s->perm.id && u->nsems == s->nsems)
			return u;
	if (!alloc)
		return NULL;
	u = calloc(1, sizeof(*u) + s->nsems * sizeof(u->adj[0]));
	if (!u)
		return NULL;
	u->semid = s->perm.id;
	u->nsems = s->nsems;
	u->next = p->sem_undo;
	p->sem_undo = u;
	return u;
}

/* Every process's adjustments of semaphore @num (-1: all) of @s are 0. */
static void undo_clear(const struct semset *s, int num)
{
	struct sem_undo *u;
	struct proc *p;

	for (p = procs; p; p = p->next)
		for (u = p->sem_undo; u; u = u->next)
			if (u->semid == s->perm.id) {
				if (num < 0)
					memset(u->adj, 0, u->nsems * sizeof(u->adj[0]));
				else if (num < u->nsems)
					u->adj[num] = 0;
			}
}

/*
 * perform_atomic_semop_slow(): all of @sops or none.  0 done, 1 must
 * wait (*@blocking: the operation), or -EAGAIN (it has IPC_NOWAIT),
 * -ERANGE.
 */
static int semop_try(struct semset *s, struct sem_undo *u,
		     const struct sembuf *sops, unsigned int n, int pid,
		     const struct sembuf **blocking)
{
	unsigned int i, j;
	int ret;

	for (i = 0; i < n; i++) {
		struct sem *c = &s->sems[sops[i].sem_num];
		int op = sops[i].sem_op, v = c->val + op;

		if ((!op && c->val) || v < 0) {
			*blocking = &sops[i];
			ret = sops[i].sem_flg & IPC_NOWAIT ? -EAGAIN : 1;
			goto undo;
		}
		if (v > SEMVMX) {
			ret = -ERANGE;
			goto undo;
		}
		if (sops[i].sem_flg & SEM_UNDO) {
			int adj = u->adj[sops[i].sem_num] - op;

			if (adj < -SEMAEM - 1 || adj > SEMAEM) {
				ret = -ERANGE;
				goto undo;
			}
			u->adj[sops[i].sem_num] = adj;
		}
		c->val = v;
	}
	for (i = 0; i < n; i++) {
		s->sems[sops[i].sem_num].pid = pid;
		s->sems[sops[i].sem_num].otime = time(NULL);
	}
	return 0;
undo:
	for (j = i; j-- > 0;) {
		s->sems[sops[j].sem_num].val -= sops[j].sem_op;
		if (sops[j].sem_flg & SEM_UNDO)
			u->adj[sops[j].sem_num] += sops[j].sem_op;
	}
	return ret;
}

static long semtimedop(struct task *t, int id, uint64_t usops, unsigned int n,
		       uint64_t uts)
{
	struct sembuf fast[16], *sops = fast;
	const struct sembuf *blocking = NULL;
	struct timespec ts;
	struct sem_undo *u = NULL;
	struct ipc_obj *o;
	struct semset *s;
	bool undos = false, alter = false;
	unsigned int i, max = 0;
	long r;

	if (!ipc_host())
		return -ENOSYS;
	sem_limits();
	if (uts && !t->sys_again && copy_from_guest(t, &ts, uts, sizeof(ts)) < 0)
		return -EFAULT;
	if (n < 1 || id < 0)
		return -EINVAL;
	if (n > semopm)
		return -E2BIG;
	if (n > ARRAY_SIZE(fast)) {
		sops = malloc(n * sizeof(*sops));
		if (!sops)
			return -ENOMEM;
	}
	r = -EFAULT;
	if (copy_from_guest(t, sops, usops, n * sizeof(*sops)) < 0)
		goto out;
	if (uts && !t->sys_again) {
		r = -EINVAL;
		if (!timespec_ok(&ts))
			goto out;
		t->sys_deadline = ns_after(timespec_ns(&ts));
	} else if (!t->sys_again) {
		t->sys_deadline = 0;
	}
	for (i = 0; i < n; i++) {
		if (sops[i].sem_num >= max)
			max = sops[i].sem_num;
		if (sops[i].sem_flg & SEM_UNDO)
			undos = true;
		if (sops[i].sem_op)
			alter = true;
	}
	o = ipc_lookup(t, IPC_SEM, id, &r);
	if (!o)
		goto out;
	s = set_of(o);
	r = -EFBIG;
	if (max >= (unsigned int)s->nsems)
		goto out;
	r = -EACCES;
	if (ipc_perms(t, o, alter ? 0222 : 0444))
		goto out;
	if (undos) {
		r = -ENOMEM;
		u = undo_of(t->p, s, true);
		if (!u)
			goto out;
	}
	r = semop_try(s, u, sops, n, t->p->pid, &blocking);
	if (r == 0)
		ipc_wake(IPC_SEM, id);
	if (r != 1)
		goto out;
	if (t->sys_deadline && now_ns() >= t->sys_deadline) {
		r = -EAGAIN;
		goto out;
	}
	t->w.ipc_arg[0] = blocking->sem_num;
	t->w.ipc_arg[1] = blocking->sem_op;
	if (t->sys_deadline)
		block_until(t, t->sys_deadline);
	r = ipc_wait(t, IPC_SEM, id);
out:
	if (sops != fast)
		free(sops);
	return r;
}

long sys_semop(struct task *t, const uint64_t *a)
{
	return semtimedop(t, (int)a[0], a[1], (unsigned int)a[2], 0);
}

long sys_semtimedop(struct task *t, const uint64_t *a)
{
	return semtimedop(t, (int)a[0], a[1], (unsigned int)a[2], a[3]);
}

/* count_semcnt(): the tasks an operation on semaphore @num blocks. */
static int sem_count(int id, int num, bool zero)
{
	struct proc *p;
	struct task *t;
	int n = 0;

	for (p = procs; p; p = p->next)
		for (t = p->threads; t; t = t->next_in_proc)
			if (t->state == TASK_BLOCKED &&
			    t->w.ipc_kind == IPC_SEM + 1 && t->w.ipc_id == id &&
			    t->w.ipc_arg[0] == num &&
			    (zero ? t->w.ipc_arg[1] == 0 : t->w.ipc_arg[1] < 0))
				n++;
	return n;
}

/*
 * The set goes: so do every process's adjustments for it, before its id
 * could name another set (of another size) after the sequence wraps.
 */
static void set_free(struct semset *s)
{
	struct sem_undo **pu, *u;
	struct proc *p;

	for (p = procs; p; p = p->next)
		for (pu = &p->sem_undo; (u = *pu);)
			if (u->semid == s->perm.id) {
				*pu = u->next;
				free(u);
			} else {
				pu = &u->next;
			}
	used_sems -= s->nsems;
	ipc_remove(IPC_SEM, &s->perm);
	free(s);
}

/* exit_sem(): a process's adjustments are applied as it exits. */
void sem_exit(struct proc *p)
{
	struct sem_undo *u;
	int i;

	while ((u = p->sem_undo)) {
		struct ipc_obj *o = ipc_find(IPC_SEM, u->semid);

		p->sem_undo = u->next;
		if (o) {
			struct semset *s = set_of(o);

			for (i = 0; i < u->nsems && i < s->nsems; i++) {
				struct sem *c = &s->sems[i];

				if (!u->adj[i])
					continue;
				c->val += u->adj[i];
				if (c->val < 0)
					c->val = 0;
				if (c->val > SEMVMX)
					c->val = SEMVMX;
				c->pid = p->pid;
			}
			ipc_wake(IPC_SEM, u->semid);
		}
		free(u);
	}
}

static long semctl_info(struct task *t, int cmd, uint64_t ubuf)
{
	struct seminfo si;
	int max = ipc_max_idx(IPC_SEM);

	memset(&si, 0, sizeof(si));
	si.semmni = semmni;
	si.semmns = semmns;
	si.semmsl = semmsl;
	si.semopm = semopm;
	si.semvmx = SEMVMX;
	si.semmnu = SEMMNU;
	si.semmap = SEMMAP;
	si.semume = SEMUME;
	if (cmd == SEM_INFO) {
		si.semusz = ipc_ids[IPC_SEM].count;
		si.semaem = used_sems;
	} else {
		si.semusz = SEMUSZ;
		si.semaem = SEMAEM;
	}
	if (copy_to_guest(t, ubuf, &si, sizeof(si)) < 0)
		return -EFAULT;
	return max < 0 ? 0 : max;
}

static long semctl_stat(struct task *t, int id, int cmd, uint64_t ubuf)
{
	struct semid64_ds ds;
	struct ipc_obj *o;
	struct semset *s;
	int i;
	long err;

	memset(&ds, 0, sizeof(ds));
	o = ipc_stat_obj(t, IPC_SEM, id, cmd != IPC_STAT, cmd == SEM_STAT_ANY, &err);
	if (!o)
		return err;
	s = set_of(o);
	ipc_fill_perm(o, &ds.sem_perm);
	for (i = 0; i < s->nsems; i++)	/* get_semotime() */
		if (s->sems[i].otime > (time_t)ds.sem_otime)
			ds.sem_otime = s->sems[i].otime;
	ds.sem_ctime = s->ctime;
	ds.sem_nsems = s->nsems;
	if (copy_to_guest(t, ubuf, &ds, sizeof(ds)) < 0)
		return -EFAULT;
	return cmd == IPC_STAT ? 0 : o->id;
}

static long semctl_setval(struct task *t, int id, int num, int val)
{
	struct ipc_obj *o;
	struct semset *s;

	if (val > SEMVMX || val < 0)
		return -ERANGE;
	o = ipc_find(IPC_SEM, id);
	if (!o)
		return -EINVAL;
	s = set_of(o);
	if (num < 0 || num >= s->nsems)
		return -EINVAL;
	if (ipc_perms(t, o, 0222))
		return -EACCES;
	undo_clear(s, num);
	s->sems[num].val = val;
	s->sems[num].pid = t->p->pid;
	s->ctime = time(NULL);
	ipc_wake(IPC_SEM, id);
	return 0;
}

/* GETALL, SETALL, GETVAL, GETPID, GETNCNT, GETZCNT (semctl_main()). */
static long semctl_main(struct task *t, int id, int num, int cmd, uint64_t uarr)
{
	struct ipc_obj *o = ipc_find(IPC_SEM, id);
	unsigned short *v;
	struct semset *s;
	long r = 0;
	int i;

	if (!o)
		return -EINVAL;
	s = set_of(o);
	if (ipc_perms(t, o, cmd == SETALL ? 0222 : 0444))
		return -EACCES;
	if (cmd == GETALL || cmd == SETALL) {
		v = malloc(s->nsems * sizeof(*v));
		if (!v)
			return -ENOMEM;
		if (cmd == GETALL) {
			for (i = 0; i < s->nsems; i++)
				v[i] = s->sems[i].val;
			if (copy_to_guest(t, uarr, v, s->nsems * sizeof(*v)) < 0)
				r = -EFAULT;
		} else if (copy_from_guest(t, v, uarr, s->nsems * sizeof(*v)) < 0) {
			r = -EFAULT;
		} else {
			for (i = 0; i < s->nsems; i++)
				if (v[i] > SEMVMX)
					r = -ERANGE;
			if (!r) {
				undo_clear(s, -1);
				for (i = 0; i < s->nsems; i++) {
					s->sems[i].val = v[i];
					s->sems[i].pid = t->p->pid;
				}
				s->ctime = time(NULL);
				ipc_wake(IPC_SEM, id);
			}
		}
		free(v);
		return r;
	}
	if (num < 0 || num >= s->nsems)
		return -EINVAL;
	switch (cmd) {
	case GETVAL:
		return s->sems[num].val;
	case GETPID:
		return s->sems[num].pid;
	case GETNCNT:
		return sem_count(id, num, false);
	default:
		return sem_count(id, num, true);
	}
}

long sys_semctl(struct task *t, const uint64_t *a)
{
	int id = (int)a[0], num = (int)a[1], cmd = (int)a[2];
	struct semid64_ds ds;
	struct ipc_obj *o;
	int r;
	long err;

	if (!ipc_host())
		return -ENOSYS;
	sem_limits();
	if (id < 0)
		return -EINVAL;
	switch (cmd) {
	case IPC_INFO:
	case SEM_INFO:
		return semctl_info(t, cmd, a[3]);
	case IPC_STAT:
	case SEM_STAT:
	case SEM_STAT_ANY:
		return semctl_stat(t, id, cmd, a[3]);
	case GETALL:
	case GETVAL:
	case GETPID:
	case GETNCNT:
	case GETZCNT:
	case SETALL:
		return semctl_main(t, id, num, cmd, a[3]);
	case SETVAL:
		return semctl_setval(t, id, num, (int)a[3]);
	case IPC_SET:
		if (copy_from_guest(t, &ds, a[3], sizeof(ds)) < 0)
			return -EFAULT;
		/* fall through */
	case IPC_RMID:
		o = ipc_ctl_obj(t, IPC_SEM, id, &err);
		if (!o)
			return err;
		if (cmd == IPC_RMID) {
			set_free(set_of(o));
			return 0;
		}
		r = ipc_set_perm(o, &ds.sem_perm);
		if (r)
			return r;
		set_of(o)->ctime = time(NULL);
		return 0;
	default:
		return -EINVAL;
	}
}

/* /proc/sysvipc/sem (sysvipc_sem_proc_show()) */
void sem_proc_show(FILE *f)
{
	struct ipc_ids *ids = &ipc_ids[IPC_SEM];
	int i, k;

	fprintf(f, "       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime\n");
	for (i = 0; i < ids->size; i++) {
		const struct semset *s = (const struct semset *)ids->slot[i];
		time_t otime = 0;

		if (!s)
			continue;
		for (k = 0; k < s->nsems; k++)
			if (s->sems[k].otime > otime)
				otime = s->sems[k].otime;
		fprintf(f, "%10d %10d  %4o %10u %5u %5u %5u %5u %10llu %10llu\n",
			s->perm.key, s->perm.id, s->perm.mode, s->nsems,
			s->perm.uid, s->perm.gid, s->perm.cuid, s->perm.cgid,
			(unsigned long long)otime, (unsigned long long)s->ctime);
	}
}
