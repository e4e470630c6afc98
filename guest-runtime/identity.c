// SPDX-License-Identifier: GPL-2.0-only
/*
 * Process identity: pids, user and group ids, supplementary groups, process groups and sessions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "umlrun.h"

uid_t host_uid, host_euid;
gid_t host_gid, host_egid;

/*
 * umlrun's ids, which are the guest's and never change (cred.c): asked of
 * the host once, before main(), not at every exec, exit and stat.
 */
static void __attribute__((constructor)) host_ids_init(void)
{
	host_uid = getuid();
	host_euid = geteuid();
	host_gid = getgid();
	host_egid = getegid();
}

long sys_getpid(struct task *t, const uint64_t *a)
{
	(void)a;
	return t->p->pid;
}

long sys_gettid(struct task *t, const uint64_t *a)
{
	(void)a;
	return t->tid;
}

long sys_getppid(struct task *t, const uint64_t *a)
{
	(void)a;
	return t->p->parent ? t->p->parent->pid : 0;
}

long sys_getuid(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return host_uid;
}

long sys_geteuid(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return host_euid;
}

long sys_getgid(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return host_gid;
}

long sys_getegid(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return host_egid;
}

/*
 * One user: "changing" to the ids one already has succeeds.  An id is a
 * uid_t, 32 bits: the kernel never sees the upper half of the register.
 */
static long same_id(uint64_t want, unsigned int have)
{
	return (uint32_t)want == (uint32_t)-1 || (uint32_t)want == have ?
	       0 : -EPERM;
}

static long do_setuid(struct task *t, const uint64_t *a)
{
	(void)t;
	return same_id(a[0], host_uid);
}

static long do_setgid(struct task *t, const uint64_t *a)
{
	(void)t;
	return same_id(a[0], host_gid);
}

static long do_setresuid(struct task *t, const uint64_t *a)
{
	(void)t;
	return same_id(a[0], host_uid) ?: same_id(a[1], host_uid) ?:
	       same_id(a[2], host_uid);
}

static long do_setresgid(struct task *t, const uint64_t *a)
{
	(void)t;
	return same_id(a[0], host_gid) ?: same_id(a[1], host_gid) ?:
	       same_id(a[2], host_gid);
}

/*
 * setreuid and setregid: the kernel lets the real id become the real or
 * the effective one, and the effective id any of the three; with ids
 * that never change, what is allowed and can be done is what is there.
 */
static long do_setreuid(struct task *t, const uint64_t *a)
{
	(void)t;
	return same_id(a[0], host_uid) ?: same_id(a[1], host_euid);
}

static long do_setregid(struct task *t, const uint64_t *a)
{
	(void)t;
	return same_id(a[0], host_gid) ?: same_id(a[1], host_egid);
}

/* The ids may have changed: so may the host's answers. */
static long ids_changed(struct task *t, long r)
{
	if (r == 0)
		fast_proc_sync(t->p);
	return r;
}

long sys_setuid(struct task *t, const uint64_t *a)
{
	return ids_changed(t, do_setuid(t, a));
}

long sys_setgid(struct task *t, const uint64_t *a)
{
	return ids_changed(t, do_setgid(t, a));
}

long sys_setresuid(struct task *t, const uint64_t *a)
{
	return ids_changed(t, do_setresuid(t, a));
}

long sys_setresgid(struct task *t, const uint64_t *a)
{
	return ids_changed(t, do_setresgid(t, a));
}

long sys_setreuid(struct task *t, const uint64_t *a)
{
	return ids_changed(t, do_setreuid(t, a));
}

long sys_setregid(struct task *t, const uint64_t *a)
{
	return ids_changed(t, do_setregid(t, a));
}

/*
 * setfsuid and setfsgid return the old file-system id, never an error
 * (kernel/sys.c).  It follows the effective id, which never changes: a
 * new one is refused, or taken by one with CAP_SETUID where the runtime
 * cannot give it, so the old one stays and every call returns it.
 */
long sys_setfsuid(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return host_euid;
}

long sys_setfsgid(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return host_egid;
}

static long put3(struct task *t, const uint64_t *a, uint32_t v)
{
	int i;

	for (i = 0; i < 3; i++)
		if (copy_to_guest(t, a[i], &v, 4) < 0)
			return -EFAULT;
	return 0;
}

long sys_getresuid(struct task *t, const uint64_t *a)
{
	return put3(t, a, host_uid);
}

long sys_getresgid(struct task *t, const uint64_t *a)
{
	return put3(t, a, host_gid);
}

long sys_getgroups(struct task *t, const uint64_t *a)
{
	gid_t g[256];
	int n = getgroups(256, g);

	if (n < 0)
		return -errno;
	if (a[0] == 0)
		return n;
	if ((int)a[0] < n)
		return -EINVAL;
	return copy_to_guest(t, a[1], g, n * sizeof(gid_t)) < 0 ? -EFAULT : n;
}

long sys_setgroups(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return -EPERM;
}

/* A process group of session @sid called @pgid: some process is in it. */
static bool pgrp_in_session(int pgid, int sid)
{
	struct proc *q;

	for (q = procs; q; q = q->next)
		if (q->pgid == pgid && q->sid == sid)
			return true;
	return false;
}

/* kernel/sys.c's setpgid, check for check. */
long sys_setpgid(struct task *t, const uint64_t *a)
{
	struct proc *p = a[0] ? proc_by_pid(a[0]) : t->p;
	int pgid = a[1] ? (int)a[1] : (p ? p->pid : 0);

	if ((int)a[1] < 0)
		return -EINVAL;
	if (!p && task_by_tid(a[0]))
		return -EINVAL;		/* a thread, not a group leader */
	if (!p || (p != t->p && p->parent != t->p))
		return -ESRCH;
	if (p != t->p) {
		if (p->sid != t->p->sid)
			return -EPERM;
		if (p->execed)
			return -EACCES;
	}
	if (p->pid == p->sid)
		return -EPERM;
	if (pgid != p->pid && !pgrp_in_session(pgid, t->p->sid))
		return -EPERM;
	p->pgid = pgid;
	fast_proc_sync(p);
	return 0;
}

long sys_getpgid(struct task *t, const uint64_t *a)
{
	struct proc *p = a[0] ? proc_by_pid(a[0]) : t->p;

	return p ? p->pgid : -ESRCH;
}

long sys_getpgrp(struct task *t, const uint64_t *a)
{
	(void)a;
	return t->p->pgid;
}

long sys_setsid(struct task *t, const uint64_t *a)
{
	struct proc *q;

	(void)a;
	for (q = procs; q; q = q->next)
		if (q->pgid == t->p->pid)
			return -EPERM;
	t->p->sid = t->p->pgid = t->p->pid;
	fast_proc_sync(t->p);
	return t->p->pid;
}

long sys_getsid(struct task *t, const uint64_t *a)
{
	struct proc *p = a[0] ? proc_by_pid(a[0]) : t->p;

	return p ? p->sid : -ESRCH;
}
