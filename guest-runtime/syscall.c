// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest syscall table, the dispatcher, --strace and --stats.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "umlrun.h"

#define MAX_NR 512

const struct syscall_desc syscall_table[MAX_NR] = {
#define SC(nr, nm, f, fl) [nr] = { .name = #nm, .fn = sys_##nm, .fmt = f, .flags = fl },
#include "syscalls.def"
#undef SC
};
const size_t syscall_table_size = MAX_NR;

static struct {
	uint64_t calls, ns;
} stat_sys[MAX_NR];
static uint64_t stat_other_calls;
static uint64_t stat_exits[8];
static uint8_t enosys_seen[MAX_NR / 8];

const struct syscall_desc *syscall_desc(unsigned long nr)
{
	if (nr >= MAX_NR || !syscall_table[nr].fn)
		return NULL;
	return &syscall_table[nr];
}

void syscall_list(void)
{
	size_t nr;

	for (nr = 0; nr < MAX_NR; nr++) {
		const char *tier = fast_tier_name(nr);

		if (!syscall_table[nr].fn)
			continue;
		printf("%zu %s%s%s%s\n", nr, syscall_table[nr].name,
		       syscall_table[nr].flags & SC_RESTART ? " restart" : "",
		       tier ? " " : "", tier ? tier : "");
	}
}

void stats_exit(int reason)
{
	if (reason >= 0 && reason < 8)
		stat_exits[reason]++;
}

void stats_print(void)
{
	static const char *const rname[] = {
		"?", "syscall", "fault", "exited", "interrupted",
	};
	size_t nr;
	int i;

	fprintf(stderr, "umlrun: backend %s\n",
		uml_backend_name(uml_host_backend(host)));
	fast_stats_print();
	fdpass_stats_print();
	fprintf(stderr, "umlrun: %-20s %10s %12s\n", "syscall", "calls",
		"usec");
	for (nr = 0; nr < MAX_NR; nr++)
		if (stat_sys[nr].calls)
			fprintf(stderr, "umlrun: %-20s %10llu %12llu\n",
				syscall_table[nr].name ? syscall_table[nr].name
						       : "(unsupported)",
				(unsigned long long)stat_sys[nr].calls,
				(unsigned long long)stat_sys[nr].ns / 1000);
	if (stat_other_calls)
		fprintf(stderr, "umlrun: %-20s %10llu\n", "(out of range)",
			(unsigned long long)stat_other_calls);
	for (i = 1; i < 5; i++)
		fprintf(stderr, "umlrun: exit %-15s %10llu\n", rname[i],
			(unsigned long long)stat_exits[i]);
}

/*
 * The string arguments of a call as they were at its entry (strace prints
 * them so): an execve that succeeds has replaced the memory they were in
 * by the time the line is printed.  ok[i]: strings[i] holds argument i.
 */
struct strace_strings {
	char s[6][64];
	bool ok[6];
};

static void strace_snap(struct task *t, const struct syscall_desc *d,
			const uint64_t *a, struct strace_strings *ss)
{
	int i;

	memset(ss->ok, 0, sizeof(ss->ok));
	for (i = 0; d && d->fmt[i] && i < 6; i++)
		ss->ok[i] = d->fmt[i] == 's' &&
			    strncpy_from_guest(t, ss->s[i], a[i],
					       sizeof(ss->s[i])) >= 0;
}

static void strace_arg(char c, uint64_t v, const char *str)
{
	switch (c) {
	case 'd':
		fprintf(stderr, "%lld", (long long)v);
		break;
	case 'f':
		fprintf(stderr, "%d", (int)v);
		break;
	case 'o':
		fprintf(stderr, "0%llo", (unsigned long long)v);
		break;
	case 's':
		if (str)
			fprintf(stderr, "\"%s\"", str);
		else
			fprintf(stderr, "%#llx", (unsigned long long)v);
		break;
	default:
		fprintf(stderr, "%#llx", (unsigned long long)v);
	}
}

/* @mem: the guest's memory is still there to decode strings from. */
static void strace_print(struct task *t, unsigned long nr, const uint64_t *a,
			 long ret, const struct strace_strings *ss)
{
	const struct syscall_desc *d = syscall_desc(nr);
	const char *f;
	int i = 0;

	fprintf(stderr, "[%d] ", t->tid);
	if (!d) {
		fprintf(stderr, "syscall_%lu(...) = %ld\n", nr, ret);
		return;
	}
	fprintf(stderr, "%s(", d->name);
	for (f = d->fmt; *f; f++, i++) {
		if (i)
			fputs(", ", stderr);
		strace_arg(*f, a[i], i < 6 && ss->ok[i] ? ss->s[i] : NULL);
	}
	if (ret == SYS_NORETURN)
		fputs(") = ?\n", stderr);
	else if (ret < 0 && ret > -4096)
		fprintf(stderr, ") = -1 %s\n", strerrorname_np(-ret) ?: "?");
	else
		fprintf(stderr, ") = %#lx\n", ret);
}

/*
 * Does the host kernel have call @nr, or the feature these arguments
 * ask of it?  Asked once, with arguments that can only fail: any answer
 * but ENOSYS says it does.  *@has caches it (-1: not asked yet).  The
 * guest sees the host's features, so where the host lacks one (a kernel
 * configured without it) the runtime answers ENOSYS too.
 */
bool host_has(int *has, long nr, long a, long b, long c, long d, long e,
	      long f)
{
	if (*has < 0)
		*has = !(syscall(nr, a, b, c, d, e, f) < 0 && errno == ENOSYS);
	return *has;
}

/* The @i-th number of the host's /proc/sys/@name ("kernel/msgmax"), or @def. */
unsigned long host_sysctl(const char *name, int i, unsigned long def)
{
	char path[64];
	unsigned long v[4];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	f = fopen(path, "re");
	if (!f)
		return def;
	n = fscanf(f, "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]);
	fclose(f);
	return i < n ? v[i] : def;
}

static void report_enosys(unsigned long nr)
{
	if (nr < MAX_NR) {
		if (enosys_seen[nr / 8] & (1 << (nr % 8)))
			return;
		enosys_seen[nr / 8] |= 1 << (nr % 8);
	}
	if (opt.strace || opt.stats)
		warnx_("unsupported syscall %lu: -ENOSYS", nr);
}

/*
 * An interrupted sleep's time left, to t->sys_rem: -EINTR, or -EFAULT if
 * it cannot be written (nanosleep_copyout()).
 */
static long sleep_time_left(struct task *t)
{
	int64_t left = t->sys_deadline - now_ns();
	struct timespec ts;

	if (left < 0)
		left = 0;
	ts.tv_sec = left / 1000000000;
	ts.tv_nsec = left % 1000000000;
	return copy_to_guest(t, t->sys_rem, &ts, sizeof(ts)) < 0 ? -EFAULT
								   : -EINTR;
}

/*
 * A blocked syscall met a signal: restart it after a SA_RESTART handler,
 * else fail it with -EINTR (or return what it already did; a sleep
 * writes its time left).
 */
static void syscall_interrupted(struct task *t, const struct syscall_desc *d,
				struct uml_regs *r)
{
	if (d && (d->flags & (SC_TMO_TV | SC_TMO_TS))) {
		uint64_t a[6] = { r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9 };

		poll_time_left(t, d->flags, a, 0);
	}
	if (t->sys_done) {
		r->rax = t->sys_done;
	} else if (d && (d->flags & SC_RESTART) && sig_pending_restart(t)) {
		r->rax = r->orig_rax;
		r->rip -= 2;
	} else {
		r->rax = -EINTR;
		if (t->sys_rem)
			r->rax = sleep_time_left(t);
	}
	wait_reset(&t->w);
	t->state = TASK_RUNNABLE;
}

/*
 * A blocked syscall and a pending signal: true if the syscall ends here
 * (interrupted: handler or death ahead) or waits for its process to be
 * continued (a stop); false if it goes on waiting.
 */
static bool signal_stops_syscall(struct task *t, const struct syscall_desc *d,
				 struct uml_regs *r)
{
	/*
	 * A FIFO's other end came: the open succeeds, signal or not, as
	 * the kernel's wait_for_partner() does.  A futex wake-up ended the
	 * wait: it returns 0, as the kernel's dequeued waiter does.
	 */
	if (t->w.vfork || t->w.fifo_ready || t->w.futex_woken ||
	    !sig_pending_for(t))
		return false;
	if (sig_wants_interrupt(t)) {
		syscall_interrupted(t, d, r);
		return true;
	}
	sig_take_stops(t);
	return t->p->stopped;	/* called again once continued */
}

static void syscall_account(unsigned long nr, const struct timespec *t0)
{
	struct timespec t1;

	if (!opt.stats)
		return;
	if (nr >= MAX_NR) {
		stat_other_calls++;
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	stat_sys[nr].calls++;
	stat_sys[nr].ns += (t1.tv_sec - t0->tv_sec) * 1000000000LL +
			   (t1.tv_nsec - t0->tv_nsec);
}

/*
 * The kernel takes fd arguments as (unsigned) int and ignores their upper
 * 32 bits: so does the runtime, here, once for every syscall, so that no
 * handler ever sees a 64-bit fd number.
 */
static void fd_args(const char *fmt, uint64_t *a)
{
	int i;

	for (i = 0; fmt[i] && i < 6; i++)
		if (fmt[i] == 'f')
			a[i] = (uint32_t)a[i];
}

/*
 * Handle the pending syscall of @t (state TASK_SYSCALL).  On return the task
 * is TASK_RUNNABLE with rax set, TASK_BLOCKED, or TASK_DEAD.
 */
void syscall_handle(struct task *t)
{
	struct uml_regs *r = uml_thread_regs(t->th);
	/* The kernel reads the number from eax (do_syscall_64()). */
	unsigned long nr = (unsigned int)r->orig_rax;
	const struct syscall_desc *d = syscall_desc(nr);
	uint64_t a[6] = { r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9 };
	/* 390 bytes: set by strace_snap(), only with --strace. */
	struct strace_strings ss;
	struct timespec t0;
	long ret;

	if (t->sys_again && !sig_wait_unmask(t) && signal_stops_syscall(t, d, r))
		return;
	if (t->sys_again) {
		/* Called again after a wake-up: it says anew what it waits for. */
		t->w.nfds = 0;
		t->w.deadline = 0;
		t->w.child = false;
		t->w.signal = false;
		t->w.ipc_kind = 0;
		/* A lock's wait (lock.c) may block again: then signals count. */
		t->w.futex_woken = false;
	}
	if (!t->sys_again) {
		t->sys_tmo_read = false;
		t->sys_rem = 0;
	}
	if (opt.stats)
		clock_gettime(CLOCK_MONOTONIC, &t0);
	if (opt.strace)
		strace_snap(t, d, a, &ss);
	if (d) {
		fd_args(d->fmt, a);
		ret = d->fn(t, a);
	} else {
		report_enosys(nr);
		ret = -ENOSYS;
	}
	if (opt.stats && !t->sys_again)
		syscall_account(nr, &t0);
	if (t->state == TASK_DEAD) {
		if (opt.strace)
			strace_print(t, nr, a, SYS_NORETURN, &ss);
		return;
	}
	if (ret == SYS_BLOCK) {
		t->sys_again = true;
		if (signal_stops_syscall(t, d, r))
			return;
		t->state = TASK_BLOCKED;
		return;
	}
	if (d && (d->flags & (SC_TMO_TV | SC_TMO_TS)))
		ret = poll_time_left(t, d->flags, a, ret);
	if (sigfd_dirty)
		sigfd_refresh();
	if (opt.strace)
		strace_print(t, nr, a, ret, &ss);
	if (ret != SYS_NORETURN)
		r->rax = ret;
	t->sys_again = false;
	wait_reset(&t->w);
	t->state = TASK_RUNNABLE;
	if (fdpass_enabled())
		fdpass_syscall(t, nr, a[0], ret);
}
