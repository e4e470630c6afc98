// SPDX-License-Identifier: GPL-2.0-only
/*
 * System information, TLS and thread setup, prctl
 * (scheduling and the guest's CPUs: policy.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "umlrun.h"

#define ARCH_SET_GS	0x1001
#define ARCH_SET_FS	0x1002
#define ARCH_GET_FS	0x1003
#define ARCH_GET_GS	0x1004

#define PER_LINUX32		0x0008
#define PER_MASK		0x00ff
#define UNAME26			0x0020000
#define READ_IMPLIES_EXEC	0x0400000

/*
 * The host's, as the kernel tells a task of the personality: PER_LINUX32
 * is told an i686, UNAME26 a release 2.6.(60 + the minor) followed by
 * what follows the version (override_release()).
 */
long sys_uname(struct task *t, const uint64_t *a)
{
	struct utsname u;
	unsigned int maj = 0, min = 0;

	if (uname(&u) < 0)
		return -errno;
	if ((t->personality & PER_MASK) == PER_LINUX32)
		snprintf(u.machine, sizeof(u.machine), "i686");
	if ((t->personality & UNAME26) &&
	    sscanf(u.release, "%u.%u", &maj, &min) == 2) {
		const char *rest = u.release;
		char rel[sizeof(u.release) + 16] = "";
		int dots = 0;

		/* After the version's digits and dots (at most 3 dots). */
		while (*rest && (isdigit((unsigned char)*rest) || *rest == '.')) {
			if (*rest == '.' && ++dots >= 3)
				break;
			rest++;
		}
		snprintf(rel, sizeof(rel), "2.6.%u%s", min + 60, rest);
		memcpy(u.release, rel, sizeof(u.release) - 1);	/* cut */
		u.release[sizeof(u.release) - 1] = '\0';
	}
	return copy_to_guest(t, a[0], &u, sizeof(u)) < 0 ? -EFAULT : 0;
}

/*
 * personality(2): any value is taken (the kernel has no checks left);
 * 0xffffffff only asks.  Per thread, inherited, kept over exec but for
 * READ_IMPLIES_EXEC.  What umlrun does with it: uname above,
 * STICKY_TIMEOUTS (poll.c); ADDR_NO_RANDOMIZE holds anyway (the
 * runtime's layout is not randomised).
 */
long sys_personality(struct task *t, const uint64_t *a)
{
	unsigned int old = t->personality;

	if ((unsigned int)a[0] != 0xffffffff)
		t->personality = a[0];
	return old;
}

void personality_exec(struct task *t)
{
	t->personality &= ~READ_IMPLIES_EXEC;
}

long sys_sysinfo(struct task *t, const uint64_t *a)
{
	struct sysinfo si;

	if (sysinfo(&si) < 0)
		return -errno;
	si.procs = nprocs;
	return copy_to_guest(t, a[0], &si, sizeof(si)) < 0 ? -EFAULT : 0;
}

long sys_getrandom(struct task *t, const uint64_t *a)
{
	char buf[256];
	size_t n = a[1] < sizeof(buf) ? a[1] : sizeof(buf);
	/* The host checks the flags (unsigned int, as the kernel's). */
	ssize_t r = getrandom(buf, n, (unsigned int)a[2]);

	if (r < 0)
		return -errno;
	return copy_to_guest(t, a[0], buf, r) < 0 ? -EFAULT : r;
}

long sys_arch_prctl(struct task *t, const uint64_t *a)
{
	struct uml_regs *r = uml_thread_regs(t->th);

	/* Like the kernel: a base must be a user address. */
	if ((a[0] == ARCH_SET_FS || a[0] == ARCH_SET_GS) &&
	    a[1] >= (1ULL << 47) - PAGE_SIZE)
		return -EPERM;
	switch (a[0]) {
	case ARCH_SET_FS:
		r->fs_base = a[1];
		return 0;
	case ARCH_SET_GS:
		r->gs_base = a[1];
		return 0;
	case ARCH_GET_FS:
		return copy_to_guest(t, a[1], &r->fs_base, 8) < 0 ? -EFAULT : 0;
	case ARCH_GET_GS:
		return copy_to_guest(t, a[1], &r->gs_base, 8) < 0 ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}

long sys_set_tid_address(struct task *t, const uint64_t *a)
{
	t->clear_child_tid = a[0];
	return t->tid;
}

/*
 * The robust futex list's head: kept per thread for get_robust_list (a
 * new thread has none, exec drops it); the runtime does not walk it when
 * a thread dies (Documentation/runtime.rst, gaps).
 */
long sys_set_robust_list(struct task *t, const uint64_t *a)
{
	if (a[1] != 24)		/* sizeof(struct robust_list_head) */
		return -EINVAL;
	t->robust_list = a[0];
	return 0;
}

long sys_get_robust_list(struct task *t, const uint64_t *a)
{
	struct task *d = (int)a[0] ? task_by_tid((int)a[0]) : t;
	uint64_t len = 24;

	if (!d)
		return -ESRCH;
	if (!proc_may_ptrace(t, d->p))
		return -EPERM;
	if (copy_to_guest(t, a[2], &len, sizeof(len)) < 0 ||
	    copy_to_guest(t, a[1], &d->robust_list, sizeof(d->robust_list)) < 0)
		return -EFAULT;
	return 0;
}

long sys_rseq(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return -ENOSYS;		/* libc then runs without rseq */
}

static long put_int(struct task *t, uint64_t uaddr, int v)
{
	return copy_to_guest(t, uaddr, &v, sizeof(v)) < 0 ? -EFAULT : 0;
}

/*
 * The prctl calls glibc, busybox, make, python and their kin use, with
 * the kernel's argument checks (kernel/sys.c); others are EINVAL, as for
 * an option the kernel does not know.
 */
long sys_prctl(struct task *t, const uint64_t *a)
{
	char name[16];
	long r;

	switch (a[0]) {
	case PR_SET_NAME:
		if (strncpy_from_guest(t, name, a[1], sizeof(name)) == -EFAULT)
			return -EFAULT;
		name[15] = 0;
		memcpy(t->p->comm, name, sizeof(name));
		return 0;
	case PR_GET_NAME:
		return copy_to_guest(t, a[1], t->p->comm, 16) < 0 ? -EFAULT : 0;
	case PR_SET_PDEATHSIG:
		if (a[1] > NSIG_GUEST)
			return -EINVAL;
		t->pdeath_signal = a[1];
		return 0;
	case PR_GET_PDEATHSIG:
		return put_int(t, a[1], t->pdeath_signal);
	case PR_SET_CHILD_SUBREAPER:
		t->p->subreaper = a[1] != 0;
		return 0;
	case PR_GET_CHILD_SUBREAPER:
		return put_int(t, a[1], t->p->subreaper);
	case PR_SET_NO_NEW_PRIVS:
		if (a[1] != 1 || a[2] || a[3] || a[4])
			return -EINVAL;
		t->no_new_privs = true;	/* and it cannot be unset */
		return 0;
	case PR_GET_NO_NEW_PRIVS:
		if (a[1] || a[2] || a[3] || a[4])
			return -EINVAL;
		return t->no_new_privs;
	case PR_SET_DUMPABLE:
		if (a[1] > 1)
			return -EINVAL;
		t->p->dumpable = a[1];
		return 0;
	case PR_GET_DUMPABLE:
		return t->p->dumpable;
	case PR_SET_TIMERSLACK:
		t->timer_slack_ns = (int64_t)a[1] <= 0 ? 50000 : a[1];
		return 0;
	case PR_GET_TIMERSLACK:
		return t->timer_slack_ns;
	case PR_GET_TID_ADDRESS:
		return copy_to_guest(t, a[1], &t->clear_child_tid, 8) < 0 ?
		       -EFAULT : 0;
	case PR_GET_SECCOMP:
		return 0;	/* the guest has no filter of its own */
	}
	r = cred_prctl(t, a);
	return r == -ENOSYS ? -EINVAL : r;
}

/*
 * ustat and sysfs(2): what the host's kernel knows of its file systems,
 * read-only, asked on the guest's behalf with the runtime's buffers.
 * The guest's files are the host's, and so are their st_dev.
 */
long sys_ustat(struct task *t, const uint64_t *a)
{
	char buf[32];	/* struct ustat: f_tfree, f_tinode, f_fname, f_fpack */

	if (syscall(SYS_ustat, (unsigned int)a[0], buf) < 0)
		return -errno;
	return copy_to_guest(t, a[1], buf, sizeof(buf)) < 0 ? -EFAULT : 0;
}

/*
 * A kernel built without CONFIG_SYSFS_SYSCALL (as the debug VM's) has no
 * sysfs(2) at all: every call is ENOSYS, whatever its arguments.  The
 * guest's kernel is the host's, so the guest's has none either.
 */
static bool host_has_sysfs(void)
{
	static int has = -1;

	return host_has(&has, SYS_sysfs, 3, 0, 0, 0, 0, 0);
}

/* fs/filesystems.c's sysfs(): option 1 a name's index, 2 an index's name, 3 the count. */
long sys_sysfs(struct task *t, const uint64_t *a)
{
	char name[PATH_MAX];
	long r;

	if (!host_has_sysfs())
		return -ENOSYS;
	switch ((int)a[0]) {
	case 1:
		r = strncpy_from_guest(t, name, a[1], sizeof(name));
		if (r < 0)
			return r;	/* getname(): EFAULT, ENAMETOOLONG */
		r = syscall(SYS_sysfs, 1, name);
		return r < 0 ? -errno : r;
	case 2:
		r = syscall(SYS_sysfs, 2, (unsigned int)a[1], name);
		if (r < 0)
			return -errno;
		name[sizeof(name) - 1] = 0;
		return copy_to_guest(t, a[2], name, strlen(name) + 1) < 0 ?
		       -EFAULT : 0;
	case 3:
		r = syscall(SYS_sysfs, 3);
		return r < 0 ? -errno : r;
	}
	return -EINVAL;
}
