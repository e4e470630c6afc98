// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runtime threads: umlrun runs one worker per guest CPU (--cpus=N).
 *
 * Each guest thread is placed on one worker, which drives it (libuml's
 * rule, uml.h "Threading") and runs the scheduler of sched.c over the
 * threads placed on it.  All runtime state is under one lock, the big
 * runtime lock, which a worker holds except while it is in
 * uml_thread_run() or asleep in ppoll(): guest code runs in parallel on
 * every worker, syscall handlers one at a time.  A handler never drops
 * the lock, so what it sees cannot change under it (the model of the
 * single-threaded runtime, unchanged).
 *
 * What a handler may do to another worker's threads:
 *  - change their runtime state (signals, wake-ups, job control) and kick
 *    a running one (task_kick()) so that its worker sees the change;
 *  - destroy them (exit_group, SIGKILL, exec) only with the world stopped:
 *    world_stop() kicks every running guest and wakes every sleeping
 *    worker, and returns once all the others wait in brl_lock(), touching
 *    nothing.  The world starts again when the stopper's worker is back in
 *    its loop (world_resume()).  A worker whose task died meanwhile sees
 *    it TASK_DEAD and lets it go.
 * A task a worker holds (from its run queue to the end of its run, struct
 * task's @held) is not freed under it: tasks_free_dead() skips it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "umlrun.h"

struct worker *workers;
int nworkers = 1;
__thread struct worker *self;

static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t resume_cv = PTHREAD_COND_INITIALIZER;
static struct worker *stopper;	/* who stopped the world, NULL if none */
static int parked;		/* workers waiting for the world to start */

/* Another worker stopped the world: wait, touching nothing, until it goes. */
static void __attribute__((noinline)) brl_park(void)
{
	while (stopper && stopper != self) {
		parked++;
		pthread_cond_signal(&stop_cv);
		pthread_cond_wait(&resume_cv, &big_lock);
		parked--;
	}
}

void brl_lock(void)
{
	pthread_mutex_lock(&big_lock);
	if (stopper && stopper != self)
		brl_park();
}

/* A stopper lets the world go on before it lets the lock go. */
void brl_unlock(void)
{
	world_resume();
	pthread_mutex_unlock(&big_lock);
}

/* Wake @w from its ppoll(), if it sleeps there. */
static void worker_wake(struct worker *w)
{
	uint64_t one = 1;

	if (w->polling && !w->woken) {
		w->woken = true;
		if (write(w->wake_fd, &one, sizeof(one)) < 0)
			w->woken = false;
	}
}

/*
 * Called by @w itself after its ppoll(), with what that said of wake_fd
 * (written by another worker, or by a signal handler: wake_self()).
 */
void worker_woken(struct worker *w, short revents)
{
	uint64_t v;

	if (w->woken || (revents & POLLIN)) {
		w->woken = false;
		if (read(w->wake_fd, &v, sizeof(v)) < 0)
			v = 0;
	}
}

/*
 * Host fd @hostfd is about to be closed.  A worker asleep in ppoll() with
 * it in its set holds the host's file (poll_wait() takes a reference)
 * until its ppoll() returns, so the close alone would not release it: a
 * listener would still take connections, a pipe's reader would not see
 * EOF.  Wake such a worker and wait until it is out of ppoll(), which
 * needs no lock; then the close is the last reference, and the host
 * releases the file before close() returns.
 */
void worker_fd_closing(int hostfd)
{
	int i, k;

	if (nworkers == 1)
		return;
	for (i = 0; i < nworkers; i++) {
		struct worker *w = &workers[i];

		if (w == self || !__atomic_load_n(&w->in_ppoll, __ATOMIC_ACQUIRE))
			continue;
		for (k = 0; k < w->npoll && w->pollset[k].fd != hostfd; k++)
			;
		if (k == w->npoll)
			continue;
		worker_wake(w);
		while (__atomic_load_n(&w->in_ppoll, __ATOMIC_ACQUIRE))
			sched_yield();
	}
}

/* The guest thread @w runs now, NULL if none. */
static struct task *worker_running(struct worker *w)
{
	return __atomic_load_n(&w->run_task, __ATOMIC_ACQUIRE);
}

/* @t runs on its worker: end that run, so that the worker sees a change. */
void task_kick(struct task *t)
{
	if (t->cpu >= 0 && t->th && worker_running(&workers[t->cpu]) == t)
		uml_thread_kick(t->th);
}

void world_stop(void)
{
	int i;

	if (nworkers == 1 || stopper == self)
		return;
	stopper = self;
	for (;;) {
		for (i = 0; i < nworkers; i++) {
			struct worker *w = &workers[i];
			struct task *t = worker_running(w);

			if (w == self)
				continue;
			if (t && t->th)
				uml_thread_kick(t->th);
			worker_wake(w);
		}
		if (parked == nworkers - 1)
			break;
		pthread_cond_wait(&stop_cv, &big_lock);
	}
}

void world_resume(void)
{
	if (stopper != self)
		return;
	stopper = NULL;
	pthread_cond_broadcast(&resume_cv);
}

/*
 * Stop the world if a thread of @p, or of a process in its address space,
 * is held by another worker: one that is about to be destroyed.  (A
 * process that only borrows its address space, a CLONE_VM child, takes
 * only its own threads along.)
 */
void world_stop_for(struct proc *p)
{
	struct proc *q;
	struct task *t;

	if (nworkers == 1 || stopper == self)
		return;
	for (q = procs; q; q = q->next) {
		if (q != p && (!p->as || p->as_shared || q->as != p->as))
			continue;
		for (t = q->threads; t; t = t->next_in_proc) {
			if (t->held && t->cpu != self->id) {
				world_stop();
				return;
			}
		}
	}
}

/* The guest threads of @w that are ready or running: its load. */
static int worker_load(const struct worker *w)
{
	struct proc *p;
	struct task *t;
	int n = 0;

	for (p = procs; p; p = p->next)
		for (t = p->threads; t; t = t->next_in_proc)
			if (t->cpu == w->id && t->state != TASK_BLOCKED &&
			    t->state != TASK_DEAD)
				n++;
	return n;
}

/* The least loaded worker @t's affinity allows, ours on a tie. */
static int task_best_cpu(const struct task *t)
{
	int i, best = self->id, load, best_load;

	best_load = (t->cpumask & (1ULL << best)) ? worker_load(self) : INT32_MAX;
	for (i = 0; i < nworkers && best_load; i++) {
		if (i == self->id || !(t->cpumask & (1ULL << i)))
			continue;
		load = worker_load(&workers[i]);
		if (load < best_load) {
			best = i;
			best_load = load;
		}
	}
	return best;
}

/*
 * A new thread @t goes to the least loaded worker its affinity allows,
 * its creator's (ours) on a tie: a parent that forks and waits leaves
 * the CPU to its child.  The creator drives it until it lets it go.
 */
void task_place(struct task *t)
{
	int best = task_best_cpu(t);

	t->cpu = self->id;
	if (best != self->id && uml_thread_release(t->th) == 0)
		t->cpu = best;
}

/* Give @t, ours and in no queue, to worker @cpu.  False if it stays. */
static bool task_give(struct task *t, int cpu)
{
	if (cpu == self->id || uml_thread_release(t->th) < 0)
		return false;
	t->cpu = cpu;
	sched_enqueue(t);
	return true;
}

/*
 * @t, just taken from our queue, may not run here (sched_setaffinity):
 * it goes to a worker it may run on.  False if it stays (it runs here).
 */
bool task_move_allowed(struct task *t)
{
	if (nworkers == 1 || (t->cpumask & (1ULL << self->id)))
		return false;
	return task_give(t, task_best_cpu(t));
}

/* Let @w know a task was queued on it. */
void worker_notify(struct worker *w)
{
	if (w != self)
		worker_wake(w);
}

/*
 * The end of a slice: a task waiting behind others here goes to a worker
 * with nothing to run, if its affinity allows.  At most one a slice, as a
 * move costs a few host calls on ptrace.  A task alone in the queue (the
 * one whose slice ended, queued again) stays: it waits behind nobody.
 */
void worker_balance(void)
{
	struct task *t = self->rq_head;
	int i;

	if (nworkers == 1 || !t || !t->rq_next)
		return;
	for (i = 0; i < nworkers; i++) {
		struct worker *w = &workers[i];

		if (w == self || w->rq_head || !w->polling ||
		    !(t->cpumask & (1ULL << i)))
			continue;
		sched_dequeue(t);
		if (!task_give(t, i))
			sched_enqueue(t);
		return;
	}
}

static void *worker_main(void *arg)
{
	self = arg;
	self->tid = gettid();
	sched_worker_init();
	brl_lock();
	runtime_exit(sched_worker_loop());
}

/* Before the first guest thread: the workers, worker 0 being us. */
void smp_init(int n)
{
	int i;

	if (n < 1 || n > GUEST_MAX_CPUS)
		die("bad --cpus=%d", n);
	workers = calloc(n, sizeof(*workers));
	if (!workers)
		die("out of memory");
	nworkers = n;
	for (i = 0; i < n; i++) {
		workers[i].id = i;
		workers[i].wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (workers[i].wake_fd < 0)
			die("eventfd: %s", strerror(errno));
	}
	self = &workers[0];
	self->tid = gettid();
}

/*
 * Start the other workers.  The caller, worker 0, holds the lock and has
 * set the signal handlers, which are the process's.
 */
void smp_start(void)
{
	pthread_attr_t attr;
	pthread_t thr;
	int i;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (i = 1; i < nworkers; i++)
		if (pthread_create(&thr, &attr, worker_main, &workers[i]))
			die("cannot start runtime thread %d", i);
	pthread_attr_destroy(&attr);
}
