// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * skas backend, thread side: SKAS_RUN and its events, kicks and clone.
 * FPU state is in skas_fpu.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/skas.h>

#include "internal.h"
#include "stub.h"

/*
 * Reap the host task of @t, dead (SKAS_EXIT_EXITED @e); a group leader's
 * rusage (its group's) goes to its address space's.
 */
void __uml_skas_reap_exit(struct uml_thread *t, const struct skas_exit_exited *e)
{
	__uml_skas_reap(t->as, t->pid);
	__uml_thread_gone(t);
	t->exit_status = e->status;
	t->end_cause = e->cause;	/* SKAS_END_* == UML_END_* */
}

static void report_exit(struct uml_thread *t, struct uml_exit *ex)
{
	t->dead = 1;
	t->exit_pending = 0;
	ex->reason = UML_EXIT_EXITED;
	ex->exited.status = t->exit_status;
	ex->exited.cause = t->end_cause;
}

/* The event of the run that just ended, in @ex. */
static int run_event(struct uml_thread *t, struct uml_exit *ex)
{
	struct skas_run *run = t->run;
	int i;

	switch (run->exit_reason) {
	case SKAS_EXIT_SYSCALL:
		ex->reason = UML_EXIT_SYSCALL;
		ex->syscall.nr = run->exit.syscall.nr;
		for (i = 0; i < 6; i++)
			ex->syscall.args[i] = run->exit.syscall.args[i];
		ex->syscall.abi = run->exit.syscall.abi;
		return 0;
	case SKAS_EXIT_FAULT:
		/* SKAS_CAP_SIGSYS: a seccomp trap, the stub's vsyscall filter */
		if (run->exit.fault.signo == SIGSYS) {
			if (!__uml_vsyscall_fault(__uml_skas_regs(t),
						  run->exit.fault.code,
						  run->exit.fault.addr, ex))
				ex->reason = UML_EXIT_INTERRUPTED;
			return 0;
		}
		ex->reason = UML_EXIT_FAULT;
		ex->fault.signo = run->exit.fault.signo;
		ex->fault.code = run->exit.fault.code;
		ex->fault.addr = run->exit.fault.addr;
		ex->fault.trapno = run->exit.fault.trapno;
		ex->fault.error_code = run->exit.fault.error_code;
		return 0;
	case SKAS_EXIT_EXITED:
		__uml_skas_reap_exit(t, &run->exit.exited);
		report_exit(t, ex);
		return 0;
	case SKAS_EXIT_INTERRUPTED:
		ex->reason = UML_EXIT_INTERRUPTED;
		return 0;
	}
	return -EPROTO;
}

/* SKAS_RUN once; the event in @ex. */
static int run_once(struct uml_thread *t, struct uml_exit *ex)
{
	if (ioctl(t->fd, SKAS_RUN, 0))
		return errno == ENOENT ? -ESRCH : -errno;
	return run_event(t, ex);
}

/* An event the run must report before anything runs: 1 if in @ex. */
static int run_pending(struct uml_thread *t, struct uml_exit *ex)
{
	memset(ex, 0, sizeof(*ex));
	if (t->exit_pending) {
		report_exit(t, ex);
		return 1;
	}
	if (t->interrupted) {
		t->interrupted = 0;
		ex->reason = UML_EXIT_INTERRUPTED;
		return 1;
	}
	return 0;
}

int __uml_skas_thread_run(struct uml_thread *t, struct uml_exit *ex)
{
	if (t->dead)
		return -ESRCH;
	if (run_pending(t, ex))
		return 0;
	return run_once(t, ex);
}

/*
 * SKAS_RUN_MEM: the batch, then the run, in one hand-off.  1 without the
 * capability, or for a batch SKAS_RUN_MEM cannot take: uml.c then does
 * each on its own.
 */
int __uml_skas_thread_run_mem(struct uml_thread *t,
			      const struct uml_mem_op *ops, unsigned int n,
			      struct uml_exit *ex)
{
	int ret, err;

	if (t->dead)
		return -ESRCH;
	if (!t->as->host->skas_run_mem || n > SKAS_MEM_MAX_OPS)
		return 1;
	if (run_pending(t, ex)) {
		/* Nothing may run before the event: the batch goes alone. */
		ret = uml_aspace_mem(t->as, ops, n, &err);
		return ret == (int)n ? 0 : (ret < 0 ? ret : err);
	}
	ret = __uml_skas_mem_ioctl(t->fd, SKAS_RUN_MEM, ops, n, &err);
	return ret < 0 ? ret : run_event(t, ex);
}

/* From any thread: only pid is read (gone: dead, or its death pending). */
int __uml_skas_thread_kick(struct uml_thread *t)
{
	if (!__uml_thread_pid(t))
		return -ESRCH;
	return ioctl(t->fd, SKAS_KICK, 0) ? -errno : 0;
}

/* ---- clone ------------------------------------------------------------ */

#ifdef SKAS_CAP_CLONE
/*
 * SKAS_CLONE: a native clone of the guest task in its own context; a fork
 * gets a new address space, a thread (SKAS_CLONE_THREAD) shares @parent's.
 */
static int skas_clone(struct uml_thread *parent, unsigned int flags,
		      struct uml_thread **childp, struct uml_aspace **child_asp)
{
	struct uml_aspace *as = parent->as, *cas = as;
	struct skas_clone c;
	struct uml_thread *ct;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
#ifdef SKAS_CLONE_THREAD
	if (flags & UML_CLONE_THREAD)
		c.flags = SKAS_CLONE_THREAD;
	/* A module without fd marks has nothing to ignore (and no flag). */
	if ((flags & UML_CLONE_UNMARKED) &&
	    (as->host->policies & UML_POLICY_BIT(UML_POLICY_NATIVE_MARKED)))
		c.flags |= SKAS_CLONE_UNMARKED;
#endif
	if (ioctl(parent->fd, SKAS_CLONE, &c))
		return errno == ENOENT ? -ESRCH : -errno;
	if (!(flags & UML_CLONE_THREAD)) {
		cas = __uml_skas_aspace_new(as->host, c.aspace_fd);
		if (!cas) {
			close(c.aspace_fd);
			close(c.thread_fd);	/* kills the child */
			waitpid(c.host_tid, NULL, __WALL);
			return -ENOMEM;
		}
		cas->info = as->info;
		cas->leader = c.host_tid;
	}
	ct = __uml_skas_thread_new(cas, c.thread_fd, c.host_tid);
	if (!ct) {
		/* The thread fd is closed: the module kills the child. */
		waitpid(c.host_tid, NULL, __WALL);
		if (cas != as)
			uml_aspace_destroy(cas);
		return -ENOMEM;
	}
	*__uml_skas_regs(ct) = *__uml_skas_regs(parent);
	*childp = ct;
	if (child_asp)
		*child_asp = cas == as ? NULL : cas;
	return 0;
}
#endif

int __uml_skas_thread_clone(struct uml_thread *parent, unsigned int flags,
			    struct uml_thread **childp,
			    struct uml_aspace **child_asp)
{
	const struct uml_host *host = parent->as->host;

	if (parent->dead || parent->exit_pending || !parent->pid)
		return -ESRCH;
	if ((flags & UML_CLONE_THREAD) ? !host->skas_clone_thread :
					 !host->skas_clone)
		return -EOPNOTSUPP;
#ifdef SKAS_CAP_CLONE
	return skas_clone(parent, flags, childp, child_asp);
#else
	(void)childp;
	(void)child_asp;
	return -EOPNOTSUPP;
#endif
}
