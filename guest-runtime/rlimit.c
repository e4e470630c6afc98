// SPDX-License-Identifier: GPL-2.0-only
/*
 * Resource limits: each guest process has its own (kernel/sys.c's
 * do_prlimit() checks, kept in struct proc, inherited by fork, kept by
 * exec), and the runtime enforces those whose work it does itself:
 * RLIMIT_FSIZE on the writes, truncates and allocations of regular files
 * (mm/filemap.c's generic_write_check_limits(), fs/attr.c's
 * inode_newsize_ok()).  The first process starts with the runtime's own
 * limits as the host gave them, RLIMIT_NOFILE and RLIMIT_NPROC with the
 * runtime's fixed ones.  The runtime itself ignores SIGXFSZ (main.c): a
 * host limit below the guest's fails the host write with EFBIG instead
 * of killing the runtime.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umlrun.h"

#define CAP_SYS_RESOURCE	24
#define GUEST_NR_OPEN		1024	/* fd.c's FD_MAX: its sysctl_nr_open */

static struct grlimit host_rlim[GUEST_NLIMITS];

/* The host's limits at start-up, before the runtime raises its own. */
void rlimit_host_init(void)
{
	struct rlimit rl;
	int i;

	for (i = 0; i < GUEST_NLIMITS; i++) {
		if (getrlimit(i, &rl) < 0)
			rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
		host_rlim[i].cur = rl.rlim_cur;
		host_rlim[i].max = rl.rlim_max;
	}
	host_rlim[RLIMIT_NOFILE].cur = host_rlim[RLIMIT_NOFILE].max = GUEST_NR_OPEN;
	host_rlim[RLIMIT_NPROC].cur = host_rlim[RLIMIT_NPROC].max = opt.max_procs;
}

void rlimit_init(struct proc *p)
{
	memcpy(p->rlim, host_rlim, sizeof(p->rlim));
}

/* do_prlimit(): the new limit's checks, then the swap. */
static long rlimit_set(struct task *t, unsigned int res, const struct grlimit *n)
{
	struct grlimit *cur = &t->p->rlim[res];

	if (n->cur > n->max)
		return -EINVAL;
	if (res == RLIMIT_NOFILE && n->max > GUEST_NR_OPEN)
		return -EPERM;
	if (n->max > cur->max && !(t->cap_eff & (1ULL << CAP_SYS_RESOURCE)))
		return -EPERM;
	*cur = *n;
	if (res == RLIMIT_FSIZE)
		fdpass_limits(t->p);	/* native writes only without it */
	return 0;
}

/* The pid is a pid_t, the resource an unsigned int: upper bits go. */
long sys_prlimit64(struct task *t, const uint64_t *a)
{
	unsigned int res = a[1];
	struct grlimit old, nrl;
	int pid = a[0];
	long r;

	/* The kernel's order: the new limits are read first. */
	if (a[2] && copy_from_guest(t, &nrl, a[2], sizeof(nrl)) < 0)
		return -EFAULT;
	if (pid && pid != t->p->pid)
		return proc_by_pid(pid) ? -EPERM : -ESRCH;
	if (res >= GUEST_NLIMITS)
		return -EINVAL;
	old = t->p->rlim[res];
	if (a[2] && (r = rlimit_set(t, res, &nrl)) < 0)
		return r;
	if (a[3] && copy_to_guest(t, a[3], &old, sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

long sys_getrlimit(struct task *t, const uint64_t *a)
{
	uint64_t b[4] = { 0, a[0], 0, a[1] };

	return sys_prlimit64(t, b);
}

long sys_setrlimit(struct task *t, const uint64_t *a)
{
	uint64_t b[4] = { 0, a[0], a[1], 0 };

	return sys_prlimit64(t, b);
}

/* Past RLIMIT_FSIZE: SIGXFSZ to the writer (send_sig()), and EFBIG. */
long rlimit_fsize_exceeded(struct task *t)
{
	struct ksiginfo si = { .signo = SIGXFSZ, .pid = t->p->pid,
			       .uid = host_uid };

	sig_send_task(t, &si);
	return -EFBIG;
}

/*
 * RLIMIT_FSIZE for a write to @hostfd, or RLIM_INFINITY when none
 * applies: no limit, not open for writing (the host call fails as the
 * kernel's does, before any limit), not a regular file.
 */
static uint64_t fsize_limit(struct task *t, int hostfd, struct stat *st)
{
	uint64_t lim = t->p->rlim[RLIMIT_FSIZE].cur;
	int fl;

	if (lim == RLIM_INFINITY)
		return RLIM_INFINITY;
	fl = fcntl(hostfd, F_GETFL);
	if (fl < 0 || (fl & O_PATH) || (fl & O_ACCMODE) == O_RDONLY)
		return RLIM_INFINITY;
	if (fstat(hostfd, st) < 0 || !S_ISREG(st->st_mode))
		return RLIM_INFINITY;
	return lim;
}

/*
 * A write of *@n bytes to @f at @pos (-1: the file offset), at the end
 * if @append: cut to end at the limit, or -EFBIG if it starts there or
 * past it.  An empty write is never cut (generic_write_checks()).
 */
long rlimit_fsize_write(struct task *t, struct file *f, int64_t pos,
			bool append, size_t *n)
{
	struct stat st;
	uint64_t lim;

	if (!*n || f->kind != FILE_PLAIN || (f->flags & O_ACCMODE) == O_RDONLY)
		return 0;
	lim = fsize_limit(t, f->hostfd, &st);
	if (lim == RLIM_INFINITY)
		return 0;
	if (append)
		pos = st.st_size;
	else if (pos < 0 && (pos = lseek(f->hostfd, 0, SEEK_CUR)) < 0)
		return 0;	/* the host's write says why */
	if ((uint64_t)pos >= lim)
		return rlimit_fsize_exceeded(t);
	if (*n > lim - pos)
		*n = lim - pos;
	return 0;
}

/*
 * A truncate or an allocation that makes @hostfd's file @size bytes long:
 * -EFBIG past the limit, if it grows the file (inode_newsize_ok()).
 */
long rlimit_fsize_grow(struct task *t, int hostfd, int64_t size)
{
	struct stat st;
	uint64_t lim = fsize_limit(t, hostfd, &st);

	if (lim == RLIM_INFINITY || size < 0 || size <= st.st_size)
		return 0;
	return (uint64_t)size > lim ? rlimit_fsize_exceeded(t) : 0;
}
