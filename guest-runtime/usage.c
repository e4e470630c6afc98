// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU and memory usage: getrusage, times, and the rusage of wait4.
 *
 * A guest thread is a host task, so its figures are the host's: user and
 * system time and page faults from /proc/<host tid>/task/<host tid>/stat
 * (the thread's own: /proc/<tid>/stat is its whole thread group's, and on
 * skas a guest process's threads are one host group), the peak resident
 * size of its address space from /proc/<host tid>/status.  A
 * thread that ends adds its times to its process's; a child reaped by
 * wait adds its own and its children's to its parent's children's, as the
 * kernel's wait_task_zombie() does.  A process that ends takes the host's
 * rusage of its address space's tasks, which the backend has from
 * reaping them (uml_aspace_destroy_usage()), unless a CLONE_VM child ran
 * there too; then /proc is read for it, before its host tasks go.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <unistd.h>

#include "umlrun.h"

static uint64_t thread_sched_ns(struct task *t);

/* The host's times and faults of one guest thread (zeros if it is gone). */
static void thread_times(struct task *t, struct usage *u)
{
	char path[64], buf[1024], *p;
	unsigned long long v[12];
	pid_t tid;
	FILE *f;

	memset(u, 0, sizeof(*u));
	if (!t->th)
		return;
	tid = uml_thread_host_tid(t->th);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tid, tid);
	f = fopen(path, "re");
	if (!f)
		return;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	/* After "(comm)": state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime. */
	if (!p || sscanf(p + 2, "%*c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			 &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
			 &v[8], &v[9], &v[10], &v[11]) != 12)
		return;
	u->minflt = v[6];
	u->majflt = v[8];
	u->utime = v[10] * (1000000 / sysconf(_SC_CLK_TCK));
	u->stime = v[11] * (1000000 / sysconf(_SC_CLK_TCK));
	u->sched_ns = thread_sched_ns(t);
}

/* The peak RSS (kB) of the address space @t runs in: one per process. */
static unsigned long long peak_rss(struct task *t)
{
	unsigned long long kb = 0;
	char path[64], buf[256];
	FILE *f;

	if (!t || !t->th)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", uml_thread_host_tid(t->th));
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f) && sscanf(buf, "VmHWM: %llu", &kb) != 1)
		;
	fclose(f);
	return kb;
}

static void usage_add(struct usage *to, const struct usage *u)
{
	to->utime += u->utime;
	to->stime += u->stime;
	to->minflt += u->minflt;
	to->majflt += u->majflt;
	to->sched_ns += u->sched_ns;
	if (u->maxrss > to->maxrss)
		to->maxrss = u->maxrss;
}

/*
 * The whole of @p into @u: its ended threads' figures, its live ones'
 * times, and the peak RSS of its address space, read once.
 */
static void proc_usage(struct proc *p, struct usage *u)
{
	struct usage tu;
	struct task *t;

	*u = p->usage_done;
	for (t = p->threads; t; t = t->next_in_proc) {
		thread_times(t, &tu);
		usage_add(u, &tu);
	}
	tu = (struct usage){ .maxrss = peak_rss(p->threads) };
	usage_add(u, &tu);
}

/* @p's user and system time in ns, its ended threads' with it. */
void usage_cpu_ns(struct proc *p, uint64_t *user, uint64_t *sys)
{
	const uint64_t ns = 1000;	/* per µs */
	struct usage u = p->usage_done, tu;
	struct task *t;

	for (t = p->threads; t; t = t->next_in_proc) {
		thread_times(t, &tu);
		usage_add(&u, &tu);
	}
	*user = u.utime * ns;
	*sys = u.stime * ns;
}

/* A thread of @p ends: its times stay with its process. */
void usage_thread_done(struct task *t)
{
	struct usage u;

	thread_times(t, &u);
	usage_add(&t->p->usage_done, &u);
}

/* @p ends: all of its figures stay, read before its host tasks go. */
void usage_proc_done(struct proc *p)
{
	proc_usage(p, &p->usage_done);
}

/*
 * @p ended, and @ru is the host's usage of every task of its address
 * space: its ended threads' included, so it replaces what they left;
 * what it used in an address space it left before stays.
 */
void usage_proc_exited(struct proc *p, const struct rusage *ru)
{
	p->usage_done = (struct usage){
		.utime = ru->ru_utime.tv_sec * 1000000ULL + ru->ru_utime.tv_usec,
		.stime = ru->ru_stime.tv_sec * 1000000ULL + ru->ru_stime.tv_usec,
		.minflt = ru->ru_minflt,
		.majflt = ru->ru_majflt,
		.maxrss = ru->ru_maxrss,
	};
	/* the host's rusage has no run time: its user and system time */
	p->usage_done.sched_ns = (p->usage_done.utime + p->usage_done.stime) * 1000;
	usage_add(&p->usage_done, &p->usage_left);
}

/*
 * @t, the one thread of its process, leaves the address space it shared
 * (a vfork child's exec): what the process used there stays its own,
 * which the host's usage of its next address space will not hold.
 */
void usage_as_left(struct task *t)
{
	struct usage u;

	thread_times(t, &u);
	usage_add(&t->p->usage_done, &u);
	t->p->usage_left = t->p->usage_done;
}

/* @c is reaped by a wait: its parent's children get its figures. */
void usage_reaped(struct proc *parent, struct proc *c)
{
	usage_add(&parent->usage_children, &c->usage_done);
	usage_add(&parent->usage_children, &c->usage_children);
}

static void to_rusage(const struct usage *u, struct rusage *ru)
{
	memset(ru, 0, sizeof(*ru));
	ru->ru_utime.tv_sec = u->utime / 1000000;
	ru->ru_utime.tv_usec = u->utime % 1000000;
	ru->ru_stime.tv_sec = u->stime / 1000000;
	ru->ru_stime.tv_usec = u->stime % 1000000;
	ru->ru_maxrss = u->maxrss;
	ru->ru_minflt = u->minflt;
	ru->ru_majflt = u->majflt;
}

/* A zombie's rusage, for wait4: its own and its reaped children's. */
void usage_rusage_of(const struct proc *c, struct rusage *ru)
{
	struct usage u = c->usage_done;

	usage_add(&u, &c->usage_children);
	to_rusage(&u, ru);
}

long sys_getrusage(struct task *t, const uint64_t *a)
{
	struct rusage ru;
	struct usage u;

	switch ((int)a[0]) {
	case RUSAGE_SELF:
		proc_usage(t->p, &u);
		break;
	case RUSAGE_THREAD:
		thread_times(t, &u);
		u.maxrss = peak_rss(t);
		break;
	case RUSAGE_CHILDREN:
		u = t->p->usage_children;
		break;
	default:
		return -EINVAL;
	}
	to_rusage(&u, &ru);
	return copy_to_guest(t, a[1], &ru, sizeof(ru)) < 0 ? -EFAULT : 0;
}

/* µs in clock ticks, as times(2) counts. */
static clock_t ticks(unsigned long long us)
{
	return us / (1000000 / sysconf(_SC_CLK_TCK));
}

long sys_times(struct task *t, const uint64_t *a)
{
	struct tms tm = { 0 };
	clock_t now = times(NULL);
	struct usage u;

	proc_usage(t->p, &u);
	tm.tms_utime = ticks(u.utime);
	tm.tms_stime = ticks(u.stime);
	tm.tms_cutime = ticks(t->p->usage_children.utime);
	tm.tms_cstime = ticks(t->p->usage_children.stime);
	if (a[0] && copy_to_guest(t, a[0], &tm, sizeof(tm)) < 0)
		return -EFAULT;
	return now;
}

/* A thread's run time in ns (sum_exec_runtime: its schedstat), 0 if gone. */
static uint64_t thread_sched_ns(struct task *t)
{
	unsigned long long ns = 0;
	char path[64];
	pid_t tid;
	FILE *f;

	if (!t->th || t->state == TASK_DEAD)
		return 0;
	tid = uml_thread_host_tid(t->th);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", tid, tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

/*
 * A CPU-time clock (kernel/time/posix-cpu-timers.c): of thread @th, or
 * with @th NULL of process @p (its live threads and its ended ones'), in
 * ns.  @which: 0 CPUCLOCK_PROF (user and system), 1 CPUCLOCK_VIRT (user),
 * 2 CPUCLOCK_SCHED (run time: the host's precise figure for live threads,
 * user and system time for ended ones).
 */
uint64_t usage_cpu_clock(struct proc *p, struct task *th, int which)
{
	struct usage u = { 0 };
	uint64_t ns = 0;
	struct task *t;

	for (t = th ? th : p->threads; t; t = th ? NULL : t->next_in_proc) {
		struct usage tu;

		if (which == 2 && (tu.sched_ns = thread_sched_ns(t))) {
			ns += tu.sched_ns;
		} else {
			thread_times(t, &tu);
			usage_add(&u, &tu);
		}
	}
	/*
	 * Without the host's schedstat (CONFIG_SCHED_INFO: the debug kernel
	 * has none) a live thread's run time is its user and system time.
	 */
	if (!th && which == 2)
		return ns + (u.utime + u.stime) * 1000 +
		       (p->usage_done.sched_ns ? p->usage_done.sched_ns :
			(p->usage_done.utime + p->usage_done.stime) * 1000);
	if (!th)
		usage_add(&u, &p->usage_done);
	if (which == 1)
		return ns + u.utime * 1000;
	return ns + (u.utime + u.stime) * 1000;
}
