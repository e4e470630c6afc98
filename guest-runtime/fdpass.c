// SPDX-License-Identifier: GPL-2.0-only
/*
 * Native file I/O (skas.ko's fd marks, UML_POLICY_NATIVE_MARKED): the
 * host file behind a guest fd of a regular file goes into the guest's own
 * host fd table at the guest's number and is marked there, so that the
 * guest's read, write, pread64, pwrite64, readv, writev, preadv, pwritev,
 * lseek, fstat and newfstatat(fd, "", AT_EMPTY_PATH) (glibc's fstat) of
 * it run on the host, without a round trip.  Every
 * other call still traps, and the runtime answers it with its own host fd
 * of the same open file: offset, flags and attributes stay one.
 * Documentation/runtime.rst, "Native file I/O", says why it is sound.
 *
 * A guest fd table (struct fdtable) is mirrored into the host fd table of
 * one address space, fdt->pass_as, that of the process owning both; a
 * table shared with a process in another address space has no mirror.
 * Of an entry, host_in says the file is (or is about to be) installed at
 * its number, marks which calls may use it.  The invariant: a marked
 * number holds the entry's open file in the host table.  So
 *  - before an entry changes (fdpass_forget()), its marks are cleared at
 *    once (uml_aspace_mark_fds(): the guest's next call traps) and a close
 *    of the number is queued;
 *  - an install is queued at a trapped I/O call of an eligible entry
 *    (fdpass_syscall()); the install marks the fd itself when the
 *    process has one thread (nothing else can change its table while the
 *    install is out), else the runtime marks it once the install is done
 *    and the entry still the same (fdpass_done());
 *  - queued operations go to the host with the next run of a thread of
 *    the process (uml_thread_run_mem(): no hand-off of their own), one
 *    batch of a table at a time, so that they happen in the order queued.
 * The runtime lock (smp.c) covers all of it but the run itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "umlrun.h"

/* Most changes queued on one table (fdpass_syscall()). */
#define FDPASS_MAX_PEND	1024

bool fdpass_on;
/* The host's safe list has no newfstatat (an older skas.ko). */
static bool no_fstatat;
/* --stats */
static unsigned long long n_install, n_close, n_mark, n_drop;

static const unsigned int marked_nrs[] = {
	SYS_read, SYS_write, SYS_pread64, SYS_pwrite64, SYS_readv,
	SYS_writev, SYS_preadv, SYS_pwritev, SYS_lseek, SYS_fstat,
	SYS_newfstatat,
};

/* Is @nr one of the calls that run natively on a marked fd? */
bool fdpass_marked_nr(unsigned long nr)
{
	unsigned int i;

	if (nr == SYS_newfstatat && no_fstatat)
		return false;
	for (i = 0; i < ARRAY_SIZE(marked_nrs); i++)
		if (marked_nrs[i] == nr)
			return true;
	return false;
}

void fdpass_init(void)
{
	fdpass_on = !opt.no_fast && !opt.no_passthrough &&
		  (uml_host_policies(host) &
		   UML_POLICY_BIT(UML_POLICY_NATIVE_MARKED));
}

void fdpass_stats_print(void)
{
	if (!fdpass_on) {
		fprintf(stderr, "umlrun: native file I/O off (%s)\n",
			opt.no_fast ? "--no-fast" :
			opt.no_passthrough ? "--no-passthrough" :
			"the backend has no fd marks");
		return;
	}
	fprintf(stderr, "umlrun: native file I/O on: %llu installs, %llu closes, "
		"%llu marks, %llu mirrors dropped\n",
		n_install, n_close, n_mark, n_drop);
}

/*
 * @fdt mirrors into @as (NULL: nowhere) from now on, with nothing of it in
 * that host table yet: no entry installed or marked, nothing queued.
 */
static void mirror_set(struct fdtable *fdt, struct uml_aspace *as)
{
	int i;

	for (i = 0; i < fdt->size; i++) {
		fdt->ent[i].host_in = false;
		fdt->ent[i].marks = 0;
	}
	for (i = 0; i < fdt->npend; i++)
		file_put(fdt->pend[i].f);
	fdt->npend = 0;
	fdt->pass_as = as;
}

/*
 * A new address space of @p with no marks and a host fd table that holds
 * nothing of @p's (empty, or a stranger's): @p's table is mirrored there
 * from now on.  @set_policy: it does not have the policy from a fork.
 */
void fdpass_aspace_new(struct proc *p, bool set_policy)
{
	unsigned int i;
	int r;

	if (!fdpass_on)
		return;
	for (i = 0; set_policy && i < ARRAY_SIZE(marked_nrs); i++) {
		r = uml_aspace_set_policy(p->as, marked_nrs[i],
					  UML_POLICY_NATIVE_MARKED, 0);
		/* Not on the host's safe list: it keeps trapping. */
		if (r == -EPERM && marked_nrs[i] == SYS_newfstatat) {
			no_fstatat = true;
			continue;
		}
		if (r < 0)
			die("cannot set the policy of syscall %u", marked_nrs[i]);
	}
	if (p->fdt->refs == 1)
		mirror_set(p->fdt, p->as);
}

/*
 * May the guest do I/O on a host file of this type itself?  A regular
 * file, or /dev/null or /dev/zero, whose reads and writes never wait.
 */
bool fdpass_type_ok(const struct stat *st)
{
	return S_ISREG(st->st_mode) ||
	       (S_ISCHR(st->st_mode) && (st->st_rdev == makedev(1, 3) ||
					 st->st_rdev == makedev(1, 5)));
}

/*
 * Can the guest do I/O on @f's host file itself?  Of such a type (known
 * from the fstat() that made @f, mostly), and a file of no other kind.
 */
static bool eligible(struct file *f)
{
	struct stat st;

	if (!f->pass_known) {
		f->pass_known = true;
		f->pass_ok = f->kind == FILE_PLAIN && !f->in_proc &&
			     !f->synth && !f->procdir && !(f->flags & O_PATH) &&
			     (f->type_known ? f->type_ok :
			      fstat(f->hostfd, &st) == 0 && fdpass_type_ok(&st));
	}
	return f->pass_ok;
}

/* The marks @f may have in @p: RLIMIT_FSIZE is the runtime's to apply. */
static unsigned int marks_for(const struct proc *p, const struct file *f)
{
	unsigned int m = 0;

	if ((f->flags & O_ACCMODE) != O_WRONLY)
		m |= UML_FD_MARK_READ;
	if ((f->flags & O_ACCMODE) != O_RDONLY &&
	    p->rlim[RLIMIT_FSIZE].cur == RLIM_INFINITY)
		m |= UML_FD_MARK_WRITE;
	return m;
}

static int queue(struct fdtable *fdt, unsigned int fd, struct file *f)
{
	struct fdpass_op *n;

	if (fdt->npend == fdt->pend_cap) {
		int cap = fdt->pend_cap ? 2 * fdt->pend_cap : 8;

		n = realloc(fdt->pend, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		fdt->pend = n;
		fdt->pend_cap = cap;
	}
	fdt->pend[fdt->npend].fd = fd;
	fdt->pend[fdt->npend].f = f ? file_get(f) : NULL;
	fdt->npend++;
	if (f)
		n_install++;
	else
		n_close++;
	return 0;
}

static void set_marks(struct fdtable *fdt, unsigned int fd, unsigned int m)
{
	if (uml_aspace_mark_fds(fdt->pass_as, fd, 1, m) < 0)
		die("cannot mark guest fd %u", fd);
	fdt->ent[fd].marks = m;
	if (m)
		n_mark++;
}

/*
 * The mirror goes: no mark is left, nothing more is queued.  What the host
 * table still holds is unreachable (unmarked) and goes with the stub.
 */
void fdpass_drop(struct fdtable *fdt)
{
	if (!fdt->pass_as)
		return;
	if (uml_aspace_mark_fds(fdt->pass_as, 0, UML_FD_MARK_MAX, 0) < 0)
		die("cannot clear the fd marks");
	n_drop++;
	mirror_set(fdt, NULL);
}

/*
 * The address space @as goes (its owner @p exits): a table of @p's that
 * mirrors into it, which a CLONE_FILES child that exec'd may hold on to,
 * is mirrored nowhere from now on.
 */
void fdpass_aspace_gone(struct proc *p, struct uml_aspace *as)
{
	if (p->fdt && p->fdt->pass_as == as)
		mirror_set(p->fdt, NULL);
}

/*
 * The last reference to @fdt is gone (fdt_put()): its queue goes.  Return:
 * true if it may be freed, false if a batch of it is still out (then
 * fdpass_done() frees it).
 */
bool fdpass_release(struct fdtable *fdt)
{
	mirror_set(fdt, NULL);
	free(fdt->pend);
	fdt->pend = NULL;
	fdt->pend_cap = 0;
	return !fdt->pass_hold;
}

/*
 * A CLONE_VM child @p left its parent's address space by a fork of its
 * thread (exec.c): the new host table is a copy of the parent's, holding
 * @parent_fdt's mirror, with its marks.  They go: nothing of them is the
 * child's.
 */
void fdpass_unshared(struct proc *p, struct fdtable *parent_fdt)
{
	int i;

	if (!fdpass_on)
		return;
	if (uml_aspace_mark_fds(p->as, 0, UML_FD_MARK_MAX, 0) < 0)
		die("cannot clear the fd marks");
	fdpass_aspace_new(p, false);
	/* A table still shared with the parent is the parent's mirror. */
	if (p->fdt->pass_as != p->as || !parent_fdt || !parent_fdt->pass_as)
		return;
	for (i = 0; i < parent_fdt->size; i++)
		if (parent_fdt->ent[i].host_in && queue(p->fdt, i, NULL) < 0)
			break;
	for (i = 0; i < parent_fdt->npend; i++)
		if (queue(p->fdt, parent_fdt->pend[i].fd, NULL) < 0)
			break;
}

/* Entry @fd of @fdt is about to change or go. */
void fdpass_forget(struct fdtable *fdt, unsigned int fd)
{
	struct fdent *e = &fdt->ent[fd];

	if (!fdt->pass_as || !e->host_in)
		return;
	if (e->marks)
		set_marks(fdt, fd, 0);
	e->host_in = false;
	if (queue(fdt, fd, NULL) < 0)
		fdpass_drop(fdt);	/* the number stays, unmarked */
}

/* Does @t run in its table's mirror? */
static struct fdtable *mirror_of(const struct task *t)
{
	struct fdtable *fdt = t->p->fdt;

	if (!fdt || !fdt->pass_as || t->p->as_shared || fdt->pass_as != t->p->as)
		return NULL;
	return fdt;
}

/*
 * @t made trapped syscall @nr, which returned @ret: if it opened guest fd
 * @ret, or was I/O on guest fd @fd, the next call on it may run natively:
 * install the fd, or mark it.  An open installs at once (the install
 * rides the open's own resume), so that glibc's fstat after it is native
 * too.
 */
void fdpass_syscall(struct task *t, unsigned long nr, unsigned int fd,
		    long ret)
{
	struct fdtable *fdt;
	struct fdent *e;
	unsigned int m;

	switch (nr) {
	case SYS_open: case SYS_openat: case SYS_creat:
		if (ret < 0)
			return;
		fd = ret;
		break;
	case SYS_read: case SYS_write: case SYS_pread64: case SYS_pwrite64:
	case SYS_readv: case SYS_writev: case SYS_preadv: case SYS_pwritev:
	case SYS_lseek: case SYS_fstat: case SYS_newfstatat:
		break;
	default:
		return;
	}
	fdt = mirror_of(t);
	if (!fdt || fd >= (unsigned int)fdt->size || !fdt->ent[fd].f)
		return;
	e = &fdt->ent[fd];
	if (!eligible(e->f))
		return;
	/*
	 * A queue that cannot drain (a batch of another thread is out for
	 * long) takes no more installs: closes follow installs, so it stays
	 * bounded, and the calls keep trapping meanwhile.
	 */
	if (!e->host_in) {
		if (fdt->npend < FDPASS_MAX_PEND && queue(fdt, fd, e->f) == 0)
			e->host_in = true;
		return;
	}
	/* Installed by a batch done since (fdpass_done() marks those). */
	m = marks_for(t->p, e->f);
	if (e->marks != m && !fdt->npend && !fdt->inflight)
		set_marks(fdt, fd, m);
}

/* RLIMIT_FSIZE of @p changed: its write marks follow. */
void fdpass_limits(struct proc *p)
{
	struct fdtable *fdt = p->fdt;
	int i;

	/* A CLONE_VM child's limits are not those of the table's owner. */
	if (!fdt || !fdt->pass_as || fdt->pass_as != p->as || p->as_shared)
		return;
	for (i = 0; i < fdt->size; i++)
		if (fdt->ent[i].marks)
			set_marks(fdt, i, marks_for(p, fdt->ent[i].f));
}

/*
 * A fork child @c of @parent: the host copied the parent's host table and
 * marks into the child's address space, so the child's copy of the guest
 * table (fdt_copy() keeps host_in and marks) mirrors it, with the
 * parent's queue still to do.  Not while a batch of the parent's is out
 * (its effect on the copy is unknown), nor for a shared table.
 */
void fdpass_fork(struct proc *c, struct proc *parent)
{
	struct fdtable *pf = parent->fdt, *cf = c->fdt;
	int i;

	if (!fdpass_on || c->as_shared)
		return;
	if (cf == pf) {	/* CLONE_FILES: two host tables, one guest table */
		fdpass_drop(pf);
		if (uml_aspace_mark_fds(c->as, 0, UML_FD_MARK_MAX, 0) < 0)
			die("cannot clear the fd marks");
		return;
	}
	cf->pass_as = c->as;
	if (pf->pass_as != parent->as || parent->as_shared || pf->inflight) {
		fdpass_drop(cf);
		return;
	}
	for (i = 0; i < pf->npend; i++)
		if (queue(cf, pf->pend[i].fd, pf->pend[i].f) < 0) {
			fdpass_drop(cf);
			return;
		}
}

/*
 * Before @t runs: the batch of its table to apply first, in @b (file
 * references held), or 0.
 */
/* Is there an operation on op @i's number after it, up to @n? */
static bool later_op(const struct fdtable *fdt, unsigned int i,
		     unsigned int n)
{
	unsigned int j;

	for (j = i + 1; j < n; j++)
		if (fdt->pend[j].fd == fdt->pend[i].fd)
			return true;
	return false;
}

/* fdpass_take() (umlrun.h) with changes queued on @t's table. */
unsigned int fdpass_take_queued(struct task *t, struct fdpass_batch *b)
{
	struct fdtable *fdt = mirror_of(t);
	unsigned int i, n;
	bool early;

	if (!fdt || !fdt->npend || fdt->inflight)
		return 0;
	/* One thread, a table of its own: nobody changes it meanwhile. */
	early = t->p->nthreads == 1 && fdt->refs == 1;
	n = fdt->npend < FDPASS_BATCH ? fdt->npend : FDPASS_BATCH;
	for (i = 0; i < n; i++) {
		struct fdpass_op *o = &fdt->pend[i];
		struct uml_mem_op *op = &b->ops[i];
		unsigned int m;

		memset(op, 0, sizeof(*op));
		op->addr = o->fd;
		op->fd = -1;
		op->op = UML_MEM_CLOSE_FD;
		b->op[i] = *o;
		b->early[i] = false;
		if (!o->f)
			continue;
		op->op = UML_MEM_INSTALL_FD;
		op->fd = o->f->hostfd;
		/* The last op on its number, and the entry's file. */
		if (!early || fdt->ent[o->fd].f != o->f ||
		    !fdt->ent[o->fd].host_in || later_op(fdt, i, n))
			continue;
		m = marks_for(t->p, o->f);
		op->flags = (m & UML_FD_MARK_READ ? UML_INSTALL_MARK_READ : 0) |
			    (m & UML_FD_MARK_WRITE ? UML_INSTALL_MARK_WRITE : 0);
		fdt->ent[o->fd].marks = m;
		if (m)
			n_mark++;
		b->early[i] = true;
	}
	fdt->npend -= n;
	memmove(fdt->pend, fdt->pend + n, fdt->npend * sizeof(*fdt->pend));
	fdt->inflight = true;
	fdt->pass_hold++;
	b->fdt = fdt;
	b->n = n;
	return n;
}

/*
 * fdpass_done() (umlrun.h) of a batch of @b->n changes: true if it failed
 * and nothing ran (the mirror is gone).
 */
bool fdpass_done_batch(struct task *t, struct fdpass_batch *b, int r)
{
	struct fdtable *fdt = b->fdt;
	unsigned int i;
	bool failed;

	fdt->inflight = false;
	fdt->pass_hold--;
	if (!fdt->refs) {	/* the table went meanwhile (fdt_put()) */
		for (i = 0; i < b->n; i++)
			file_put(b->op[i].f);
		if (!fdt->pass_hold) {
			free(fdt->ent);
			free(fdt);
		}
		b->n = 0;
		return false;
	}
	/* Even if @t died meanwhile: the table may live on in others. */
	failed = r < 0;
	if (failed)
		fdpass_drop(fdt);
	for (i = 0; i < b->n; i++) {
		struct file *f = b->op[i].f;
		unsigned int fd = b->op[i].fd;

		/* Still the file installed, and no change queued since. */
		if (f && !b->early[i] && fdt->pass_as &&
		    fd < (unsigned int)fdt->size &&
		    fdt->ent[fd].f == f && fdt->ent[fd].host_in &&
		    !fdt->npend && t->state != TASK_DEAD && t->p->fdt == fdt)
			set_marks(fdt, fd, marks_for(t->p, f));
		file_put(f);
	}
	b->n = 0;
	return failed;
}
