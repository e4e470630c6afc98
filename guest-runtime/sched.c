// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scheduler: each worker (smp.c) drives the guest threads placed on it
 * in turn.
 *
 * A runnable task runs until it blocks, dies or its time slice ends (the
 * worker's SIGALRM kicks its running guest out of uml_thread_run()).  That
 * timer is one-shot, armed for the end of the slice or the earliest
 * deadline of a blocked task or timer if that comes first, so that a guest
 * waiting for a time wakes then, not at the next slice.  When it has
 * nothing to run, a worker sleeps in ppoll() on the host fds of every
 * blocked task until the earliest deadline, or until another worker queues
 * a task on it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "umlrun.h"

__thread struct task *current;
/* Set by handlers on any worker, read by all: atomic, relaxed. */
static volatile sig_atomic_t host_sig;
static volatile sig_atomic_t dump_req;
#define flag_get(f)	__atomic_load_n(&(f), __ATOMIC_RELAXED)
#define flag_set(f, v)	__atomic_store_n(&(f), (v), __ATOMIC_RELAXED)
static bool host_tstp;		/* a ^Z was forwarded: stop along with init */
bool io_activity;
static bool deadline_new;	/* one may come before the armed SIGALRM */
static int64_t next_deadline;	/* earliest of poll_events(), 0 = none */

int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t ns_sat(__int128 ns)
{
	return ns > INT64_MAX ? INT64_MAX : ns < INT64_MIN ? INT64_MIN
							   : (int64_t)ns;
}

int64_t timespec_ns(const struct timespec *ts)
{
	return ns_sat((__int128)ts->tv_sec * 1000000000 + ts->tv_nsec);
}

int64_t timeval_ns(const struct timeval *tv)
{
	return ns_sat((__int128)tv->tv_sec * 1000000000 +
		      (__int128)tv->tv_usec * 1000);
}

/* now + @ns (CLOCK_MONOTONIC), saturated. */
int64_t ns_after(int64_t ns)
{
	return ns_sat((__int128)now_ns() + ns);
}

/* A timespec the kernel takes as a time or interval (timespec64_valid()). */
bool timespec_ok(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000L;
}

/* A valid timespec from guest @uts: 0, -EFAULT or -EINVAL. */
int timespec_from_guest(struct task *t, uint64_t uts, struct timespec *ts)
{
	if (copy_from_guest(t, ts, uts, sizeof(*ts)) < 0)
		return -EFAULT;
	return timespec_ok(ts) ? 0 : -EINVAL;
}

/*
 * The relative timeout at guest @uts (NULL: none) of a waiting call
 * (ppoll, pselect6, epoll_pwait2, rt_sigtimedwait) as t->sys_deadline,
 * 0 for none; on its first call only, so a wait woken early keeps it.
 * A zero timeout is a deadline already past by the time it is checked.
 */
int guest_timeout(struct task *t, uint64_t uts)
{
	struct timespec ts;
	int r;

	if (t->sys_again)
		return 0;
	t->sys_deadline = 0;
	if (!uts)
		return 0;
	r = timespec_from_guest(t, uts, &ts);
	if (r)
		return r;
	t->sys_deadline = ns_sat((__int128)now_ns() + timespec_ns(&ts) + 1);
	t->sys_tmo_read = true;
	return 0;
}

/* Queue @t on its worker, placing a new task first. */
void sched_enqueue(struct task *t)
{
	struct worker *w;

	if (t->on_rq || t->state == TASK_DEAD)
		return;
	if (t->cpu < 0)
		task_place(t);
	w = &workers[t->cpu];
	t->on_rq = true;
	t->rq_next = NULL;
	if (w->rq_tail)
		w->rq_tail->rq_next = t;
	else
		w->rq_head = t;
	w->rq_tail = t;
	worker_notify(w);
}

void sched_dequeue(struct task *t)
{
	struct worker *w;
	struct task **pp, *prev = NULL;

	if (!t->on_rq)
		return;
	w = &workers[t->cpu];
	for (pp = &w->rq_head; *pp; prev = *pp, pp = &(*pp)->rq_next) {
		if (*pp == t) {
			*pp = t->rq_next;
			if (w->rq_tail == t)
				w->rq_tail = prev;
			break;
		}
	}
	t->on_rq = false;
}

static struct task *rq_pop(void)
{
	struct task *t = self->rq_head;

	if (!t)
		return NULL;
	self->rq_head = t->rq_next;
	if (!self->rq_head)
		self->rq_tail = NULL;
	t->on_rq = false;
	return t;
}

void wait_reset(struct waitinfo *w)
{
	w->nfds = 0;
	w->deadline = 0;
	w->child = false;
	w->signal = false;
	w->futex = 0;
	w->futex_woken = false;
	w->vfork = false;
	w->ipc_kind = 0;
	if (w->fifo_held) {
		worker_fd_closing(w->fifo_fd);	/* a reader: writers see it go */
		close(w->fifo_fd);
	}
	w->fifo_held = false;
	w->fifo_ready = false;
}

/* Make a blocked task handle its syscall again. */
void sched_wake(struct task *t)
{
	if (t->state != TASK_BLOCKED)
		return;
	t->state = TASK_SYSCALL;
	sched_enqueue(t);
}

static int wait_add_fd(struct waitinfo *w, int fd, short events)
{
	if (w->nfds == w->cap) {
		int cap = w->cap ? w->cap * 2 : 4;
		struct pollfd *n = realloc(w->fds, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		w->fds = n;
		w->cap = cap;
	}
	w->fds[w->nfds].fd = fd;
	w->fds[w->nfds].events = events;
	w->fds[w->nfds].revents = 0;
	w->nfds++;
	return 0;
}

long block_on_fd(struct task *t, int hostfd, short events)
{
	int r = wait_add_fd(&t->w, hostfd, events);

	return r < 0 ? r : SYS_BLOCK;
}

long block_until(struct task *t, int64_t deadline)
{
	t->w.deadline = deadline;
	if (deadline)
		sched_deadline_new();
	return SYS_BLOCK;
}

/* A deadline or timer was set: the SIGALRM may have to come earlier. */
void sched_deadline_new(void)
{
	deadline_new = true;
}

void wake_children_waiters(struct proc *p)
{
	struct task *t;

	for (t = p->threads; t; t = t->next_in_proc)
		if (t->state == TASK_BLOCKED && t->w.child)
			sched_wake(t);
}

/* Room for @need entries in this worker's poll set @pfd (poll_events()). */
static void pfd_room(struct pollfd **pfd, int *pcap, int need)
{
	if (need <= *pcap)
		return;
	*pcap = need * 2 + 16;
	*pfd = realloc(*pfd, *pcap * sizeof(**pfd));
	if (!*pfd)
		die("out of memory");
}

/*
 * Collect the host fds and deadlines of blocked tasks; wake the ready ones.
 * With @may_sleep, an idle worker's wait: until one is ready, the earliest
 * deadline or a wake-up of this worker (its wake_fd, last in the set).
 * It sleeps without the lock; when there are other workers, what it
 * collected may be stale by then, so it looks again without sleeping.
 */
static void poll_events(bool may_sleep)
{
	static __thread struct pollfd *pfd;
	static __thread int pcap;
	int64_t now = now_ns(), next = itimers_fire(now), pt = posix_timers_fire(now);
	struct timespec ts, *timeout = NULL;
	int n = 0, i, r;
	struct proc *p;
	struct task *t;

	if (pt && (!next || pt < next))
		next = pt;
	sigfd_refresh();	/* the timers may have sent signals */
	for (p = procs; p; p = p->next) {
		for (t = p->threads; t; t = t->next_in_proc) {
			if (t->state != TASK_BLOCKED)
				continue;
			if (t->w.deadline && t->w.deadline <= now) {
				sched_wake(t);
				continue;
			}
			if (t->w.deadline && (!next || t->w.deadline < next))
				next = t->w.deadline;
			pfd_room(&pfd, &pcap, n + t->w.nfds);
			if (t->w.nfds)
				memcpy(pfd + n, t->w.fds,
				       t->w.nfds * sizeof(*pfd));
			n += t->w.nfds;
		}
	}
	next_deadline = next;
	if (!may_sleep || self->rq_head) {
		may_sleep = false;
		ts = (struct timespec){ 0, 0 };
		timeout = &ts;
	} else if (next) {
		int64_t d = next > now ? next - now : 0;

		ts = (struct timespec){ d / 1000000000, d % 1000000000 };
		timeout = &ts;
	}
	pfd_room(&pfd, &pcap, n + 1);
	pfd[n] = (struct pollfd){ .fd = self->wake_fd, .events = POLLIN };
	if (may_sleep && nworkers > 1) {
		self->polling = true;
		self->pollset = pfd;
		self->npoll = n;
		__atomic_store_n(&self->in_ppoll, 1, __ATOMIC_RELAXED);
		brl_unlock();
		ppoll(pfd, n + 1, timeout, NULL);
		__atomic_store_n(&self->in_ppoll, 0, __ATOMIC_RELEASE);
		brl_lock();
		self->polling = false;
		worker_woken(self, pfd[n].revents);
		poll_events(false);
		return;
	}
	r = ppoll(pfd, n + may_sleep, timeout, NULL);
	if (may_sleep)
		worker_woken(self, pfd[n].revents);
	if (r <= 0 && !next)
		return;
	now = now_ns();
	i = 0;
	for (p = procs; p; p = p->next) {
		for (t = p->threads; t; t = t->next_in_proc) {
			bool ready = false;
			int k;

			if (t->state != TASK_BLOCKED)
				continue;
			for (k = 0; k < t->w.nfds && i + k < n; k++)
				if (pfd[i + k].revents)
					ready = true;
			i += t->w.nfds;
			if (ready || (t->w.deadline && t->w.deadline <= now))
				sched_wake(t);
		}
	}
}

/* From a signal handler: end the running guest's uml_thread_run(). */
static void kick_current(void)
{
	struct task *t = current;

	if (t && t->th)
		uml_thread_kick(t->th);
}

/*
 * From a signal handler: the worker's next ppoll() must not sleep, as it
 * may have checked host_sig and dump_req already.
 */
static void wake_self(void)
{
	uint64_t one = 1;

	/* (A full counter fails: it wakes the poll all the same.) */
	if (self && write(self->wake_fd, &one, sizeof(one)) < 0)
		one = 0;
}

/* The worker's slice timer: it comes to the worker's thread alone. */
static void on_alarm(int sig)
{
	int e = errno;	/* the interrupted code's (kicks may set it) */

	(void)sig;
	if (self)
		self->tick = 1;
	kick_current();
	errno = e;
}

/*
 * SIGUSR1 comes to any one thread: every worker is woken, so that one
 * dumps even if this one is stuck (which the dump then shows).
 */
static void on_dump(int sig)
{
	uint64_t one = 1;
	int e = errno, i;

	(void)sig;
	flag_set(dump_req, 1);
	kick_current();
	for (i = 0; workers && i < nworkers; i++)	/* this one too */
		if (write(workers[i].wake_fd, &one, sizeof(one)) < 0)
			one = 1;	/* a full counter wakes it all the same */
	errno = e;
}

static const char *const task_states[] = {
	[TASK_RUNNABLE] = "runnable", [TASK_SYSCALL] = "syscall",
	[TASK_BLOCKED] = "blocked", [TASK_DEAD] = "dead",
};

/*
 * The workers, for dump_tasks(): what each runs or sleeps in, and its run
 * queue.  The one that dumps holds the lock; the others are in a guest's
 * run, in ppoll() or waiting for the lock (a worker that never comes back
 * from a run shows here as running the same task in every dump).
 */
static void dump_workers(void)
{
	struct task *t;
	int i;

	for (i = 0; i < nworkers; i++) {
		struct worker *w = &workers[i];

		t = __atomic_load_n(&w->run_task, __ATOMIC_ACQUIRE);
		fprintf(stderr, "umlrun:  worker %d tid %d%s", i, w->tid,
			w == self ? " (dumping)" : "");
		if (t)
			fprintf(stderr, " running tid %d", t->tid);
		if (__atomic_load_n(&w->in_ppoll, __ATOMIC_ACQUIRE))
			fprintf(stderr, " in ppoll%s", w->woken ? ", woken" : "");
		fprintf(stderr, " queue");
		for (t = w->rq_head; t; t = t->rq_next)
			fprintf(stderr, " %d", t->tid);
		fputc('\n', stderr);
	}
}

/*
 * SIGUSR1: print every guest task and what it waits for to stderr, so that
 * a hung guest (a test's timeout sends it) can be diagnosed after the fact.
 */
static void dump_tasks(void)
{
	int64_t now = now_ns();
	struct proc *p;
	struct task *t;
	int k;

	flag_set(dump_req, 0);
	fprintf(stderr, "umlrun: task dump (%d procs)\n", nprocs);
	for (p = procs; p; p = p->next) {
		fprintf(stderr, "umlrun:  pid %d ppid %d pgid %d %s%s comm %s\n",
			p->pid, p->parent ? p->parent->pid : 0, p->pgid,
			p->state == PROC_ALIVE ? "alive" : "zombie",
			p->stopped ? " stopped" : "", p->comm);
		for (t = p->threads; t; t = t->next_in_proc) {
			fprintf(stderr,
				"umlrun:   tid %d cpu %d %s%s nr %lld mask %#llx pending %#llx",
				t->tid, t->cpu, task_states[t->state],
				t->on_rq ? " queued" : "",
				t->th && t->state != TASK_DEAD &&
				(!t->held || t->cpu == self->id) ?
				(long long)uml_thread_regs(t->th)->orig_rax : -1LL,
				(unsigned long long)t->sigmask,
				(unsigned long long)(t->pending.set |
						     p->shared_pending.set));
			if (t->state == TASK_BLOCKED) {
				for (k = 0; k < t->w.nfds; k++)
					fprintf(stderr, " fd %d/%#x",
						t->w.fds[k].fd,
						(unsigned int)t->w.fds[k].events);
				if (t->w.deadline)
					fprintf(stderr, " in %lld ms",
						(long long)(t->w.deadline - now) / 1000000);
				fprintf(stderr, "%s%s%s",
					t->w.child ? " child" : "",
					t->w.signal ? " signal" : "",
					t->w.vfork ? " vfork" : "");
				if (t->w.futex)
					fprintf(stderr, " futex %#llx",
						(unsigned long long)t->w.futex);
				if (t->w.fifo_held)
					fprintf(stderr, " fifo %s%s",
						t->w.fifo_writer ? "writer" : "reader",
						t->w.fifo_ready ? " ready" : "");
			}
			fputc('\n', stderr);
		}
	}
	dump_workers();
}

static void on_host_signal(int sig)
{
	int e = errno;

	flag_set(host_sig, sig);
	kick_current();
	wake_self();
	errno = e;
}

/* One SIGALRM for this worker at CLOCK_MONOTONIC @at, none if 0. */
static void timer_arm(int64_t at)
{
	struct itimerspec it = { { 0, 0 }, { 0, 0 } };

	if (at) {
		int64_t d = at - now_ns();

		if (d < 1000)
			d = 1000;	/* 0 would disarm it */
		it.it_value.tv_sec = d / 1000000000;
		it.it_value.tv_nsec = d % 1000000000;
	}
	self->timer_at = at;
	timer_settime(self->timer, 0, &it, NULL);
}

/* The worker's slice timer: a SIGALRM to its own thread. */
void sched_worker_init(void)
{
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGALRM;
	sev._sigev_un._tid = self->tid;	/* glibc 2.36 has no sigev_notify_thread_id */
	if (timer_create(CLOCK_MONOTONIC, &sev, &self->timer) < 0)
		die("timer_create: %s", strerror(errno));
}

/*
 * The slice timer runs only while some guest runs: an idle runtime sleeps.
 * On: a new slice, its SIGALRM at its end, or at the earliest deadline
 * poll_events() saw if that is sooner.  tick must be clear already: a
 * SIGALRM lost after this would leave a spinning guest running forever.
 */
static void slice_timer(bool on)
{
	int64_t at = 0;

	if (on) {
		at = now_ns() + SLICE_NS;
		if (next_deadline && next_deadline < at)
			at = next_deadline;
	}
	timer_arm(at);
}

/*
 * A deadline or timer was set while a guest may run: wake who is due, and
 * bring the SIGALRM forward if one is now due before it, never later (a
 * guest that sets timers all the time still ends its slice).
 */
static void deadline_check(void)
{
	deadline_new = false;
	poll_events(false);
	if (next_deadline && self->timer_at && next_deadline < self->timer_at)
		timer_arm(next_deadline);
}

/*
 * A new slice: the CPU-time timers (cputimer.c: the runtime's tick),
 * wake who is due, then the next SIGALRM.
 */
static void slice_next(void)
{
	self->tick = 0;
	self->balance = true;
	io_activity = false;
	deadline_new = false;
	cpu_timers_check();
	poll_events(false);
	slice_timer(true);
}

static void setup_timer(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: ends a run */
	sa.sa_handler = on_host_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGTSTP, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_dump;
	sigaction(SIGUSR1, &sa, NULL);
}

/*
 * The guest init stopped on a terminal stop (^Z): nobody in the guest can
 * continue it, so umlrun stops too, and continues it when continued.
 */
static void stop_runtime(void)
{
	struct ksiginfo si = { .signo = SIGCONT };
	struct proc *p;
	int pg = init_proc->pgid;

	world_stop();	/* guests on other CPUs stop too */
	slice_timer(false);
	raise(SIGSTOP);
	slice_timer(true);
	for (p = procs; p; p = p->next)
		if (p->state == PROC_ALIVE && p->pgid == pg)
			sig_send_proc(p, &si);
}

/* Forward a signal sent to umlrun to the guest's foreground group. */
extern int tty_fg_pgrp;

static void forward_host_signal(void)
{
	struct ksiginfo si = {
		.signo = __atomic_exchange_n(&host_sig, 0, __ATOMIC_RELAXED),
		.code = 0 /* SI_USER */
	};
	struct proc *p;
	int pg = tty_fg_pgrp ? tty_fg_pgrp : init_proc->pgid;

	for (p = procs; p; p = p->next)
		if (p->state == PROC_ALIVE && p->pgid == pg)
			sig_send_proc(p, &si);
	if (si.signo == SIGTSTP)
		host_tstp = true;
}

/* Why the host module killed a guest task (enum uml_end_cause). */
static const char *end_cause_name(uint32_t cause)
{
	switch (cause) {
	case UML_END_PTRACED:
		return "it was ptraced";
	case UML_END_SKIP:
		return "the host kernel ran a syscall it should have skipped";
	case UML_END_NATIVE:
		return "its vDSO syscall instruction was changed";
	default:
		return "unknown reason";
	}
}

static void handle_exit(struct task *t, const struct uml_exit *ex)
{
	struct ksiginfo si;

	switch (ex->reason) {
	case UML_EXIT_SYSCALL:
		t->sys_again = false;
		t->sys_done = 0;
		wait_reset(&t->w);
		if (ex->syscall.abi != UML_ABI_64) {
			uml_thread_regs(t->th)->rax = -ENOSYS;
			break;
		}
		t->state = TASK_SYSCALL;
		syscall_handle(t);
		break;
	case UML_EXIT_FAULT:
		memset(&si, 0, sizeof(si));
		si.signo = ex->fault.signo;
		si.code = ex->fault.code;
		si.addr = ex->fault.addr;
		si.trapno = ex->fault.trapno;
		si.err = ex->fault.error_code;
		sig_force(t, &si);
		break;
	case UML_EXIT_EXITED:
		t->th_gone = true;
		if (ex->exited.cause)
			fprintf(stderr, "umlrun: skas.ko killed guest pid %d: %s\n",
				t->p->pid, end_cause_name(ex->exited.cause));
		if (WIFSIGNALED(ex->exited.status))
			proc_exit_group(t->p, WTERMSIG(ex->exited.status));
		else
			proc_exit_group(t->p, SIGKILL);
		break;
	case UML_EXIT_INTERRUPTED:
		break;
	}
}

/*
 * Run @t until it blocks, dies or uses up its slice.  True if it is still
 * runnable: the caller queues it again, behind the tasks whose wait the
 * slice's end may have ended.  The guest runs without the lock; its task
 * may die meanwhile (another worker stopped the world to end it).
 */
static bool run_task(struct task *t)
{
	struct fdpass_batch b;
	struct uml_exit ex;
	int r;

	for (;;) {
		/* Its process may be reaped, and freed, already. */
		if (t->state == TASK_DEAD)
			return false;
		if (t->p->stopped)
			return false;	/* proc_continue() queues it again */
		if (t->state == TASK_SYSCALL)
			syscall_handle(t);
		if (t->state != TASK_RUNNABLE)
			return false;
		if (!sig_deliver(t) || t->state != TASK_RUNNABLE)
			return false;
		if (t->p->stopped)
			return false;	/* proc_continue() queues it again */
		if (deadline_new)
			deadline_check();
		/*
		 * From here a SIGALRM (or a host signal) kicks @t: one that
		 * came before sets a flag read below.  Between the two it
		 * would find no task to kick and be lost, and @t, if it made
		 * no syscall, would run on past its slice with the timer spent.
		 */
		current = t;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (self->tick || flag_get(host_sig) || flag_get(dump_req) ||
		    t->yield) {
			current = NULL;
			t->yield = false;
			return true;
		}
		__atomic_store_n(&self->run_task, t, __ATOMIC_RELEASE);
		/* Changes of its host fd table go with the resume (fdpass.c). */
		fdpass_take(t, &b);
		brl_unlock();
		r = b.n ? uml_thread_run_mem(t->th, b.ops, b.n, &ex)
			: uml_thread_run(t->th, &ex);
		/* Before the lock: a SIGALRM must not kick it once it is gone. */
		current = NULL;
		__atomic_store_n(&self->run_task, NULL, __ATOMIC_RELEASE);
		brl_lock();
		if (fdpass_done(t, &b, r))
			continue;	/* the batch failed: run without it */
		if (t->state == TASK_DEAD)
			return false;
		if (r < 0) {
			t->th_gone = true;
			proc_exit_group(t->p, SIGKILL);
			return false;
		}
		stats_exit(ex.reason);
		handle_exit(t, &ex);
	}
}

/* Run @t, held: it is not freed under us even if it dies. */
static bool run_held(struct task *t)
{
	bool again;

	t->held = true;
	again = run_task(t);
	t->held = false;
	return again;
}

/* The loop of every worker, with the lock held; init's exit status. */
int sched_worker_loop(void)
{
	struct task *t;

	slice_timer(true);
	for (;;) {
		world_resume();
		tasks_free_dead();
		sigfd_refresh();
		if (init_proc->state == PROC_ZOMBIE)
			break;
		if (flag_get(dump_req))
			dump_tasks();
		if (flag_get(host_sig))
			forward_host_signal();
		if (host_tstp && init_proc->stopped) {
			host_tstp = false;
			stop_runtime();
		}
		if (self->tick) {
			slice_next();
		} else if (io_activity) {
			io_activity = false;
			poll_events(false);
		}
		if (deadline_new)
			deadline_check();
		if (self->balance) {
			self->balance = false;
			worker_balance();
		}
		t = rq_pop();
		if (!t) {
			slice_timer(false);
			cpu_timers_check();	/* what ran since the last tick */
			poll_events(true);
			slice_timer(true);
			continue;
		}
		if (task_move_allowed(t) || !run_held(t))
			continue;
		if (self->tick)
			slice_next();	/* who is due runs before @t again */
		sched_enqueue(t);
	}
	/* The end: nothing may run while the rest of the guest is killed. */
	world_stop();
	return init_exit_status();
}

/* Worker 0, the main thread: the others start from here. */
int sched_loop(void)
{
	brl_lock();
	setup_timer();
	sched_worker_init();
	smp_start();
	return sched_worker_loop();
}
