// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scheduler: one runtime thread drives every guest thread in turn.
 *
 * A runnable task runs until it blocks, dies or its time slice ends (a
 * periodic SIGALRM kicks the running guest out of uml_thread_run()).  When
 * nothing is runnable the runtime sleeps in poll() on the host fds and
 * deadlines the blocked tasks wait for.
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

#define SLICE_USEC	10000

struct task *current;
static struct task *rq_head, *rq_tail;
static volatile sig_atomic_t tick;
static volatile sig_atomic_t host_sig;
static volatile sig_atomic_t dump_req;
static bool host_tstp;		/* a ^Z was forwarded: stop along with init */
bool io_activity;

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
	return 0;
}

void sched_enqueue(struct task *t)
{
	if (t->on_rq || t->state == TASK_DEAD)
		return;
	t->on_rq = true;
	t->rq_next = NULL;
	if (rq_tail)
		rq_tail->rq_next = t;
	else
		rq_head = t;
	rq_tail = t;
}

void sched_dequeue(struct task *t)
{
	struct task **pp, *prev = NULL;

	if (!t->on_rq)
		return;
	for (pp = &rq_head; *pp; prev = *pp, pp = &(*pp)->rq_next) {
		if (*pp == t) {
			*pp = t->rq_next;
			if (rq_tail == t)
				rq_tail = prev;
			break;
		}
	}
	t->on_rq = false;
}

static struct task *rq_pop(void)
{
	struct task *t = rq_head;

	if (!t)
		return NULL;
	rq_head = t->rq_next;
	if (!rq_head)
		rq_tail = NULL;
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
	w->vfork = false;
	if (w->fifo_held)
		close(w->fifo_fd);
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
	return SYS_BLOCK;
}

void wake_children_waiters(struct proc *p)
{
	struct task *t;

	for (t = p->threads; t; t = t->next_in_proc)
		if (t->state == TASK_BLOCKED && t->w.child)
			sched_wake(t);
}

/* Collect the host fds and deadlines of blocked tasks; wake the ready ones. */
static void poll_events(bool may_sleep)
{
	static struct pollfd *pfd;
	static int pcap;
	int64_t now = now_ns(), next = itimers_fire(now), pt = posix_timers_fire(now);
	int n = 0, i, timeout;
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
			if (n + t->w.nfds > pcap) {
				pcap = (n + t->w.nfds) * 2 + 16;
				pfd = realloc(pfd, pcap * sizeof(*pfd));
				if (!pfd)
					die("out of memory");
			}
			if (t->w.nfds)
				memcpy(pfd + n, t->w.fds,
				       t->w.nfds * sizeof(*pfd));
			n += t->w.nfds;
		}
	}
	if (!may_sleep || rq_head)
		timeout = 0;
	else if (next)
		timeout = (next - now + 999999) / 1000000;
	else
		timeout = -1;
	if (poll(pfd, n, timeout) <= 0 && !next)
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

static void on_alarm(int sig)
{
	(void)sig;
	tick = 1;
	kick_current();
}

static void on_dump(int sig)
{
	(void)sig;
	dump_req = 1;
	kick_current();
}

static const char *const task_states[] = {
	[TASK_RUNNABLE] = "runnable", [TASK_SYSCALL] = "syscall",
	[TASK_BLOCKED] = "blocked", [TASK_DEAD] = "dead",
};

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

	dump_req = 0;
	fprintf(stderr, "umlrun: task dump (%d procs)\n", nprocs);
	for (p = procs; p; p = p->next) {
		fprintf(stderr, "umlrun:  pid %d ppid %d pgid %d %s%s comm %s\n",
			p->pid, p->parent ? p->parent->pid : 0, p->pgid,
			p->state == PROC_ALIVE ? "alive" : "zombie",
			p->stopped ? " stopped" : "", p->comm);
		for (t = p->threads; t; t = t->next_in_proc) {
			fprintf(stderr,
				"umlrun:   tid %d %s%s nr %lld mask %#llx pending %#llx",
				t->tid, task_states[t->state],
				t->on_rq ? " queued" : "",
				t->th && t->state != TASK_DEAD ?
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
}

static void on_host_signal(int sig)
{
	host_sig = sig;
	kick_current();
}

/* The slice timer runs only while some guest runs: an idle runtime sleeps. */
static void slice_timer(bool on)
{
	struct itimerval it = {
		.it_interval = { 0, on ? SLICE_USEC : 0 },
		.it_value = { 0, on ? SLICE_USEC : 0 },
	};

	setitimer(ITIMER_REAL, &it, NULL);
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
	slice_timer(true);
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
	struct ksiginfo si = { .signo = host_sig, .code = 0 /* SI_USER */ };
	struct proc *p;
	int pg = tty_fg_pgrp ? tty_fg_pgrp : init_proc->pgid;

	host_sig = 0;
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

/* Run @t until it blocks, dies or uses up its slice. */
static void run_task(struct task *t)
{
	struct uml_exit ex;
	int r;

	for (;;) {
		/* Its process may be reaped, and freed, already. */
		if (t->state == TASK_DEAD)
			return;
		if (t->p->stopped)
			return;		/* proc_continue() queues it again */
		if (t->state == TASK_SYSCALL)
			syscall_handle(t);
		if (t->state != TASK_RUNNABLE)
			return;
		if (!sig_deliver(t) || t->state != TASK_RUNNABLE)
			return;
		if (t->p->stopped)
			return;		/* proc_continue() queues it again */
		if (tick || host_sig || dump_req || t->yield) {
			t->yield = false;
			sched_enqueue(t);
			return;
		}
		current = t;
		r = uml_thread_run(t->th, &ex);
		current = NULL;
		if (r < 0) {
			t->th_gone = true;
			proc_exit_group(t->p, SIGKILL);
			return;
		}
		stats_exit(ex.reason);
		handle_exit(t, &ex);
	}
}

int sched_loop(void)
{
	struct task *t;

	setup_timer();
	for (;;) {
		tasks_free_dead();
		sigfd_refresh();
		if (init_proc->state == PROC_ZOMBIE)
			break;
		if (dump_req)
			dump_tasks();
		if (host_sig)
			forward_host_signal();
		if (host_tstp && init_proc->stopped) {
			host_tstp = false;
			stop_runtime();
		}
		if (tick || io_activity) {
			tick = 0;
			io_activity = false;
			poll_events(false);
		}
		t = rq_pop();
		if (!t) {
			slice_timer(false);
			poll_events(true);
			slice_timer(true);
			continue;
		}
		run_task(t);
	}
	return init_exit_status();
}
