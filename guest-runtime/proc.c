// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest processes and threads: pids, the process tree, exit and reaping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "umlrun.h"


struct proc *procs;
int nprocs;
struct proc *init_proc;
static int last_pid;
static struct task *dead_tasks;

struct proc *proc_by_pid(int pid)
{
	struct proc *p;

	for (p = procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

/*
 * The process a kill-style pid names, as find_vpid() then pid_task():
 * a process's pid, or any of its threads' tids.
 */
struct proc *proc_by_id(int id)
{
	struct proc *p = proc_by_pid(id);
	struct task *t;

	if (p)
		return p;
	t = task_by_tid(id);
	return t ? t->p : NULL;
}

struct task *task_by_tid(int tid)
{
	struct proc *p;
	struct task *t;

	for (p = procs; p; p = p->next)
		for (t = p->threads; t; t = t->next_in_proc)
			if (t->tid == tid)
				return t;
	return NULL;
}

int pid_want;

int pid_alloc(void)
{
	int i;

	if (pid_want) {		/* clone3's set_tid, checked free */
		i = pid_want;
		pid_want = 0;
		return i;
	}
	for (i = 0; i < PID_MAX; i++) {
		last_pid = last_pid % (PID_MAX - 1) + 1;
		if (!proc_by_pid(last_pid) && !task_by_tid(last_pid))
			return last_pid;
	}
	return -EAGAIN;
}

struct task *task_new(struct proc *p, struct uml_thread *th, int tid)
{
	struct task *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->tid = tid;
	t->p = p;
	t->th = th;
	t->state = TASK_RUNNABLE;
	t->cpu = -1;
	t->cpumask = guest_cpus_all();
	t->next_in_proc = p->threads;
	p->threads = t;
	p->nthreads++;
	uml_thread_set_data(th, t);
	return t;
}

struct task *task_first_alive(struct proc *p)
{
	return p->threads;
}

static void task_unlink(struct task *t)
{
	struct task **pp;
	struct proc *q;

	/* A vfork child must not wake a parent thread that is gone. */
	for (q = procs; q; q = q->next)
		if (q->vfork_parent == t)
			q->vfork_parent = NULL;

	for (pp = &t->p->threads; *pp; pp = &(*pp)->next_in_proc) {
		if (*pp == t) {
			*pp = t->next_in_proc;
			break;
		}
	}
	t->p->nthreads--;
	pidfd_task_gone(t);
	sched_dequeue(t);
	wait_reset(&t->w);	/* an open FIFO it waited in, for one */
	t->state = TASK_DEAD;
	t->th = NULL;
	t->dead_next = dead_tasks;
	dead_tasks = t;
}

/*
 * Called from the scheduler's loop, where no handler holds a task; one a
 * worker holds (smp.c) waits until it lets it go.
 */
void tasks_free_dead(void)
{
	struct task **pp = &dead_tasks;

	while (*pp) {
		struct task *t = *pp;

		if (t->held) {
			pp = &t->dead_next;
			continue;
		}
		*pp = t->dead_next;
		sigqueue_drop(&t->pending, ~0ULL);
		free(t->w.fds);
		free(t);
	}
}

/* The thread exits; the last one takes its process with it. */
void task_exit(struct task *t, int code)
{
	struct proc *p = t->p;
	uint32_t zero = 0;

	if (p->nthreads == 1) {
		proc_exit_group(p, (code & 0xff) << 8);
		return;
	}
	if (t->clear_child_tid) {
		struct futex_key k;

		copy_to_guest(t, t->clear_child_tid, &zero, sizeof(zero));
		futex_key_of(t, t->clear_child_tid, true, &k);
		futex_wake(&k, 1, ~0u);
	}
	usage_thread_done(t);
	uml_thread_destroy(t->th);
	task_unlink(t);
}

/*
 * Who adopts the children of @p: its nearest living ancestor that is a
 * child subreaper (PR_SET_CHILD_SUBREAPER), else init, as the kernel's
 * find_new_reaper().
 */
static struct proc *new_reaper(struct proc *p)
{
	struct proc *r;

	for (r = p->parent; r && r != init_proc; r = r->parent)
		if (r->subreaper && r->state == PROC_ALIVE)
			return r;
	return init_proc;
}

/*
 * @c lost its parent @p: each signal its threads asked for with
 * PR_SET_PDEATHSIG goes to it, SIGKILL last (the only one that ends it
 * at once: @c may be freed after it).
 */
static void send_pdeath(struct proc *c, struct proc *p)
{
	struct ksiginfo si = { .code = 0 /* SI_USER */, .pid = p->pid,
			       .uid = host_uid };
	uint64_t sigs = 0;
	struct task *t;

	for (t = c->threads; t; t = t->next_in_proc)
		if (sig_valid(t->pdeath_signal))
			sigs |= SIGBIT(t->pdeath_signal);
	sigs &= ~SIGBIT(SIGKILL);
	while (sigs) {
		si.signo = __builtin_ctzll(sigs) + 1;
		sigs &= sigs - 1;
		sig_send_proc(c, &si);
	}
	for (t = c->threads; t; t = t->next_in_proc) {
		if (t->pdeath_signal == SIGKILL) {
			si.signo = SIGKILL;
			sig_send_proc(c, &si);
			return;
		}
	}
}

static void reparent_children(struct proc *p)
{
	struct proc *c, *next, *reaper = new_reaper(p);
	bool zombies = false;

	for (c = procs; c; c = c->next) {
		if (c->parent != p)
			continue;
		c->parent = reaper;
		c->lost_parent = c->state == PROC_ALIVE;
		/* As the kernel's reparent_leader(): no slaying init. */
		c->exit_signal = SIGCHLD;
		fast_proc_sync(c);
		if (c->state == PROC_ZOMBIE)
			zombies = true;
	}
	if (zombies && reaper->state == PROC_ALIVE)
		wake_children_waiters(reaper);
	/* A SIGKILL may reap the child it ends, and only that one. */
	for (c = procs; c; c = next) {
		next = c->next;
		if (c->lost_parent) {
			c->lost_parent = false;
			send_pdeath(c, p);
		}
	}
}

static void notify_parent(struct proc *p)
{
	struct proc *pp = p->parent;
	struct ksigaction *act;
	struct ksiginfo si;

	if (!pp || pp->state != PROC_ALIVE)
		return;
	act = &pp->sh->act[SIGCHLD];
	if (p->exit_signal == SIGCHLD &&
	    (act->handler == (uint64_t)SIG_IGN || (act->flags & SA_NOCLDWAIT))) {
		proc_reap(p);
		/* A wait that blocked for it sees it gone (ECHILD if last). */
		wake_children_waiters(pp);
		return;
	}
	/*
	 * clone() takes any exit signal in CSIGNAL (0..255); like the
	 * kernel's do_notify_parent(), send it only if it is a signal.
	 */
	if (sig_valid(p->exit_signal)) {
		memset(&si, 0, sizeof(si));
		si.signo = p->exit_signal;
		si.pid = p->pid;
		si.uid = host_uid;
		if (WIFSIGNALED(p->wstatus)) {
			si.code = CLD_KILLED;
			si.status = WTERMSIG(p->wstatus);
		} else {
			si.code = CLD_EXITED;
			si.status = WEXITSTATUS(p->wstatus);
		}
		sig_send_proc(pp, &si);
	}
	wake_children_waiters(pp);
}

/*
 * @p, a CLONE_VM child, no longer runs in address space @as (it exited or
 * exec'd): once no such child is left there, the owner's CONST answers
 * come back (fast_as_shared()).
 */
void proc_as_leave(struct proc *p, struct uml_aspace *as)
{
	struct proc *q, *owner = NULL;

	p->as_shared = false;
	for (q = procs; q; q = q->next) {
		if (q == p || q->as != as)
			continue;
		if (q->as_shared)
			return;
		owner = q;
	}
	if (owner)
		fast_proc_sync(owner);
}

/* The address space of @p goes: so do the CLONE_VM children in it. */
static void kill_sharers(struct proc *p)
{
	struct proc *q, *next;

	for (q = procs; q; q = next) {
		next = q->next;	/* an exit reaps at most its own process */
		if (q != p && q->as == p->as && q->as_shared)
			proc_exit_group(q, SIGKILL);
	}
}

/* The whole process dies with wait status @wstatus. */
void proc_exit_group(struct proc *p, int wstatus)
{
	struct uml_aspace *as = p->as;
	/* Its address space's host tasks were its own: their rusage is its. */
	bool own = !p->as_shared && !p->as_lent;
	struct rusage ru;
	struct task *t;

	if (p->state != PROC_ALIVE)
		return;
	world_stop_for(p);	/* its threads may run on other workers */
	for (t = p->threads; t; t = t->next_in_proc)
		if (t->tid == p->pid)
			p->exit_sched = t->sched;	/* policy.c: a zombie's */
	p->state = PROC_ZOMBIE;
	p->wstatus = wstatus;
	pidfd_exited(p);
	if (!own)
		usage_proc_done(p);	/* before its host tasks go */
	if (p->as_shared) {
		/* Its threads go; the address space stays its parent's. */
		for (t = p->threads; t; t = t->next_in_proc)
			uml_thread_destroy(t->th);
		while (p->threads)
			task_unlink(p->threads);
		p->as = NULL;
		proc_as_leave(p, as);
	} else {
		kill_sharers(p);
		while (p->threads)
			task_unlink(p->threads);
		fdpass_aspace_gone(p, as);
		/* Destroying the address space kills and frees its threads. */
		if (own && uml_aspace_destroy_usage(as, &ru) == 0)
			usage_proc_exited(p, &ru);
		else
			uml_aspace_destroy(as);
		p->as = NULL;
	}
	mm_put(p->mm);
	p->mm = NULL;
	sem_exit(p);
	shm_sweep();
	posix_timers_free(p);
	fdt_put(p->fdt);
	p->fdt = NULL;
	io_activity = true;
	if (p->cwdfd >= 0)
		close(p->cwdfd);
	p->cwdfd = -1;
	if (p->vfork_parent) {
		sched_wake(p->vfork_parent);
		p->vfork_parent = NULL;
	}
	reparent_children(p);
	if (p != init_proc)
		notify_parent(p);
}

void proc_reap(struct proc *p)
{
	struct proc **pp;

	for (pp = &procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	nprocs--;
	pidfd_reaped(p);
	sigqueue_drop(&p->shared_pending, ~0ULL);
	sighand_put(p->sh);
	groot_put(p->root);
	free(p->exe);
	free(p->cmdline);
	free(p);
}

/* umlrun's own exit status: the guest init's, 128+sig for a signal death. */
int init_exit_status(void)
{
	int st = init_proc->wstatus;
	struct proc *p;

	for (p = procs; p; p = p->next)
		if (p->state == PROC_ALIVE)
			proc_exit_group(p, SIGKILL);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

struct proc *proc_alloc(void)
{
	struct proc *p = calloc(1, sizeof(*p));
	int pid = pid_alloc();

	if (!p || pid < 0) {
		free(p);
		return NULL;
	}
	p->pid = pid;
	p->start_ns = now_ns();
	p->cwdfd = -1;
	p->exit_signal = SIGCHLD;
	p->root = groot_get(&root_default);
	p->next = procs;
	procs = p;
	nprocs++;
	return p;
}
