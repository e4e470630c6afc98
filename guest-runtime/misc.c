// SPDX-License-Identifier: GPL-2.0-only
/*
 * Identity, time, sleeping, poll/select, futex and other small syscalls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "umlrun.h"

#define ARCH_SET_GS	0x1001
#define ARCH_SET_FS	0x1002
#define ARCH_GET_FS	0x1003
#define ARCH_GET_GS	0x1004

long sys_getpid(struct task *t, const uint64_t *a)
{
	(void)a;
	return t->p->pid;
}

long sys_gettid(struct task *t, const uint64_t *a)
{
	(void)a;
	return t->tid;
}

long sys_getppid(struct task *t, const uint64_t *a)
{
	(void)a;
	return t->p->parent ? t->p->parent->pid : 0;
}

long sys_getuid(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return getuid();
}

long sys_geteuid(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return geteuid();
}

long sys_getgid(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return getgid();
}

long sys_getegid(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return getegid();
}

/* One user: "changing" to the ids one already has succeeds. */
static long same_id(uint64_t want, unsigned int have)
{
	return (uint32_t)want == (uint32_t)-1 || want == have ? 0 : -EPERM;
}

static long do_setuid(struct task *t, const uint64_t *a)
{
	(void)t;
	return same_id(a[0], getuid());
}

static long do_setgid(struct task *t, const uint64_t *a)
{
	(void)t;
	return same_id(a[0], getgid());
}

static long do_setresuid(struct task *t, const uint64_t *a)
{
	(void)t;
	return same_id(a[0], getuid()) ?: same_id(a[1], getuid()) ?:
	       same_id(a[2], getuid());
}

static long do_setresgid(struct task *t, const uint64_t *a)
{
	(void)t;
	return same_id(a[0], getgid()) ?: same_id(a[1], getgid()) ?:
	       same_id(a[2], getgid());
}

/* The ids may have changed: so may the host's answers. */
static long ids_changed(struct task *t, long r)
{
	if (r == 0)
		fast_proc_sync(t->p);
	return r;
}

long sys_setuid(struct task *t, const uint64_t *a)
{
	return ids_changed(t, do_setuid(t, a));
}

long sys_setgid(struct task *t, const uint64_t *a)
{
	return ids_changed(t, do_setgid(t, a));
}

long sys_setresuid(struct task *t, const uint64_t *a)
{
	return ids_changed(t, do_setresuid(t, a));
}

long sys_setresgid(struct task *t, const uint64_t *a)
{
	return ids_changed(t, do_setresgid(t, a));
}

static long put3(struct task *t, const uint64_t *a, uint32_t v)
{
	int i;

	for (i = 0; i < 3; i++)
		if (copy_to_guest(t, a[i], &v, 4) < 0)
			return -EFAULT;
	return 0;
}

long sys_getresuid(struct task *t, const uint64_t *a)
{
	return put3(t, a, getuid());
}

long sys_getresgid(struct task *t, const uint64_t *a)
{
	return put3(t, a, getgid());
}

long sys_getgroups(struct task *t, const uint64_t *a)
{
	gid_t g[256];
	int n = getgroups(256, g);

	if (n < 0)
		return -errno;
	if (a[0] == 0)
		return n;
	if ((int)a[0] < n)
		return -EINVAL;
	return copy_to_guest(t, a[1], g, n * sizeof(gid_t)) < 0 ? -EFAULT : n;
}

long sys_setgroups(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return -EPERM;
}

long sys_setpgid(struct task *t, const uint64_t *a)
{
	struct proc *p = a[0] ? proc_by_pid(a[0]) : t->p;
	int pgid = a[1] ? (int)a[1] : (p ? p->pid : 0);

	if ((int)a[1] < 0)
		return -EINVAL;
	if (!p || (p != t->p && p->parent != t->p))
		return -ESRCH;
	if (p->sid != t->p->sid || p->pid == p->sid)
		return -EPERM;
	p->pgid = pgid;
	fast_proc_sync(p);
	return 0;
}

long sys_getpgid(struct task *t, const uint64_t *a)
{
	struct proc *p = a[0] ? proc_by_pid(a[0]) : t->p;

	return p ? p->pgid : -ESRCH;
}

long sys_getpgrp(struct task *t, const uint64_t *a)
{
	(void)a;
	return t->p->pgid;
}

long sys_setsid(struct task *t, const uint64_t *a)
{
	struct proc *q;

	(void)a;
	for (q = procs; q; q = q->next)
		if (q->pgid == t->p->pid)
			return -EPERM;
	t->p->sid = t->p->pgid = t->p->pid;
	fast_proc_sync(t->p);
	return t->p->pid;
}

long sys_getsid(struct task *t, const uint64_t *a)
{
	struct proc *p = a[0] ? proc_by_pid(a[0]) : t->p;

	return p ? p->sid : -ESRCH;
}

long sys_uname(struct task *t, const uint64_t *a)
{
	struct utsname u;

	if (uname(&u) < 0)
		return -errno;
	return copy_to_guest(t, a[0], &u, sizeof(u)) < 0 ? -EFAULT : 0;
}

long sys_sysinfo(struct task *t, const uint64_t *a)
{
	struct sysinfo si;

	if (sysinfo(&si) < 0)
		return -errno;
	si.procs = nprocs;
	return copy_to_guest(t, a[0], &si, sizeof(si)) < 0 ? -EFAULT : 0;
}

static void guest_rlimit(int res, struct rlimit *rl)
{
	if (getrlimit(res, rl) < 0)
		rl->rlim_cur = rl->rlim_max = RLIM_INFINITY;
	if (res == RLIMIT_NOFILE)
		rl->rlim_cur = rl->rlim_max = 1024;
	if (res == RLIMIT_NPROC)
		rl->rlim_cur = rl->rlim_max = opt.max_procs;
}

long sys_prlimit64(struct task *t, const uint64_t *a)
{
	struct rlimit rl;

	if (a[0] && (int)a[0] != t->p->pid)
		return proc_by_pid(a[0]) ? -EPERM : -ESRCH;
	if (a[1] >= RLIM_NLIMITS)
		return -EINVAL;
	guest_rlimit(a[1], &rl);
	if (a[3] && copy_to_guest(t, a[3], &rl, sizeof(rl)) < 0)
		return -EFAULT;
	return 0;	/* new limits are accepted and not enforced */
}

long sys_getrlimit(struct task *t, const uint64_t *a)
{
	uint64_t b[4] = { 0, a[0], 0, a[1] };

	return sys_prlimit64(t, b);
}

long sys_setrlimit(struct task *t, const uint64_t *a)
{
	(void)t;
	return a[0] < RLIM_NLIMITS ? 0 : -EINVAL;
}

/* One priority for everyone: nice values are accepted and not applied. */
long sys_getpriority(struct task *t, const uint64_t *a)
{
	(void)t;
	return a[0] <= 2 ? 20 : -EINVAL;	/* the kernel returns 20 - nice */
}

long sys_setpriority(struct task *t, const uint64_t *a)
{
	(void)t;
	return a[0] <= 2 ? 0 : -EINVAL;
}

long sys_getrandom(struct task *t, const uint64_t *a)
{
	char buf[256];
	size_t n = a[1] < sizeof(buf) ? a[1] : sizeof(buf);
	ssize_t r = getrandom(buf, n, a[2] & (GRND_NONBLOCK | GRND_RANDOM));

	if (r < 0)
		return -errno;
	return copy_to_guest(t, a[0], buf, r) < 0 ? -EFAULT : r;
}

long sys_sched_yield(struct task *t, const uint64_t *a)
{
	(void)a;
	t->yield = true;
	return 0;
}

long sys_sched_getaffinity(struct task *t, const uint64_t *a)
{
	uint64_t mask = 1;

	if (a[1] < sizeof(mask))
		return -EINVAL;
	return copy_to_guest(t, a[2], &mask, sizeof(mask)) < 0 ? -EFAULT
							       : (long)sizeof(mask);
}

long sys_sched_setaffinity(struct task *t, const uint64_t *a)
{
	(void)t; (void)a;
	return 0;
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

long sys_set_robust_list(struct task *t, const uint64_t *a)
{
	(void)t;
	return a[1] == 24 ? 0 : -EINVAL;
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
	case PR_SET_KEEPCAPS:
		if (a[1] > 1)
			return -EINVAL;
		t->keepcaps = a[1];
		return 0;
	case PR_GET_KEEPCAPS:
		return t->keepcaps;
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

/* ---- time ---- */

long sys_clock_gettime(struct task *t, const uint64_t *a)
{
	struct timespec ts;

	if (clock_gettime(a[0], &ts) < 0)
		return -errno;
	return copy_to_guest(t, a[1], &ts, sizeof(ts)) < 0 ? -EFAULT : 0;
}

long sys_clock_getres(struct task *t, const uint64_t *a)
{
	struct timespec ts;

	if (clock_getres(a[0], &ts) < 0)
		return -errno;
	if (a[1] && copy_to_guest(t, a[1], &ts, sizeof(ts)) < 0)
		return -EFAULT;
	return 0;
}

long sys_gettimeofday(struct task *t, const uint64_t *a)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	if (a[0] && copy_to_guest(t, a[0], &tv, sizeof(tv)) < 0)
		return -EFAULT;
	if (a[1]) {
		uint32_t tz[2] = { 0, 0 };

		if (copy_to_guest(t, a[1], tz, sizeof(tz)) < 0)
			return -EFAULT;
	}
	return 0;
}

long sys_time(struct task *t, const uint64_t *a)
{
	int64_t now = time(NULL);

	if (a[0] && copy_to_guest(t, a[0], &now, 8) < 0)
		return -EFAULT;
	return now;
}

/* Saturated (ns_sat() in sched.c). */
static int64_t ts_ns(const struct timespec *ts)
{
	return timespec_ns(ts);
}

static int64_t tv_ns(const struct timeval *tv)
{
	return ns_sat((__int128)tv->tv_sec * 1000000000 +
		      (__int128)tv->tv_usec * 1000);
}

/* now + @ns (CLOCK_MONOTONIC), saturated. */
static int64_t ns_after(int64_t ns)
{
	return ns_sat((__int128)now_ns() + ns);
}

/* Sleep until t->sys_deadline (CLOCK_MONOTONIC ns). */
static long sleep_until(struct task *t, uint64_t urem)
{
	int64_t left = t->sys_deadline - now_ns();

	if (left <= 0)
		return 0;
	if (t->sys_again && sig_pending_for(t) && urem) {
		struct timespec rem = { left / 1000000000, left % 1000000000 };

		copy_to_guest(t, urem, &rem, sizeof(rem));
	}
	return block_until(t, t->sys_deadline);
}

long sys_nanosleep(struct task *t, const uint64_t *a)
{
	struct timespec ts;

	if (!t->sys_again) {
		if (copy_from_guest(t, &ts, a[0], sizeof(ts)) < 0)
			return -EFAULT;
		if (ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000 || ts.tv_sec < 0)
			return -EINVAL;
		t->sys_deadline = ns_after(ts_ns(&ts));
	}
	return sleep_until(t, a[1]);
}

long sys_clock_nanosleep(struct task *t, const uint64_t *a)
{
	struct timespec ts, now;

	if (!t->sys_again) {
		if (copy_from_guest(t, &ts, a[2], sizeof(ts)) < 0)
			return -EFAULT;
		if (ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000 || ts.tv_sec < 0)
			return -EINVAL;
		if (clock_gettime(a[0], &now) < 0)
			return -EINVAL;
		t->sys_deadline = ns_after(ts_ns(&ts));
		if (a[1] & TIMER_ABSTIME)
			t->sys_deadline = ns_sat((__int128)t->sys_deadline -
						 ts_ns(&now));
	}
	return sleep_until(t, (a[1] & TIMER_ABSTIME) ? 0 : a[3]);
}

/* ---- ITIMER_REAL and alarm: one timer per process, fired by sched.c ---- */

/* Send SIGALRM for every expired timer; return the next expiry (0: none). */
int64_t itimers_fire(int64_t now)
{
	struct ksiginfo si = { .signo = SIGALRM, .code = 0x80 /* SI_KERNEL */ };
	int64_t next = 0;
	struct proc *p;

	for (p = procs; p; p = p->next) {
		if (p->state != PROC_ALIVE || !p->itimer_next)
			continue;
		if (p->itimer_next <= now) {
			p->itimer_next = p->itimer_interval ?
				ns_sat((__int128)now + p->itimer_interval) : 0;
			sig_send_proc(p, &si);
			if (p->state != PROC_ALIVE || !p->itimer_next)
				continue;
		}
		if (!next || p->itimer_next < next)
			next = p->itimer_next;
	}
	return next;
}

static void itimer_get(struct proc *p, struct itimerval *it)
{
	int64_t left = p->itimer_next ? p->itimer_next - now_ns() : 0;

	if (p->itimer_next && left < 1000)
		left = 1000;
	it->it_value.tv_sec = left / 1000000000;
	it->it_value.tv_usec = left % 1000000000 / 1000;
	it->it_interval.tv_sec = p->itimer_interval / 1000000000;
	it->it_interval.tv_usec = p->itimer_interval % 1000000000 / 1000;
}

long sys_getitimer(struct task *t, const uint64_t *a)
{
	struct itimerval it;

	if (a[0] != ITIMER_REAL)
		return -EINVAL;
	itimer_get(t->p, &it);
	return copy_to_guest(t, a[1], &it, sizeof(it)) < 0 ? -EFAULT : 0;
}

long sys_setitimer(struct task *t, const uint64_t *a)
{
	struct itimerval it, old;

	if (a[0] != ITIMER_REAL)
		return -EINVAL;
	if (a[1] && copy_from_guest(t, &it, a[1], sizeof(it)) < 0)
		return -EFAULT;
	itimer_get(t->p, &old);
	if (a[2] && copy_to_guest(t, a[2], &old, sizeof(old)) < 0)
		return -EFAULT;
	if (!a[1])
		return 0;
	if (it.it_value.tv_usec < 0 || it.it_value.tv_usec >= 1000000 ||
	    it.it_interval.tv_usec < 0 || it.it_interval.tv_usec >= 1000000)
		return -EINVAL;
	t->p->itimer_next = tv_ns(&it.it_value) ?
			    ns_after(tv_ns(&it.it_value)) : 0;
	t->p->itimer_interval = tv_ns(&it.it_interval);
	return 0;
}

long sys_alarm(struct task *t, const uint64_t *a)
{
	struct itimerval old;
	long left;

	itimer_get(t->p, &old);
	left = old.it_value.tv_sec + (old.it_value.tv_usec >= 500000);
	if (!left && (old.it_value.tv_usec || old.it_value.tv_sec))
		left = 1;
	t->p->itimer_next = a[0] ? now_ns() + (int64_t)(unsigned int)a[0] *
				   1000000000LL : 0;
	t->p->itimer_interval = 0;
	return left;
}

/* ---- poll and select ---- */

/* Map guest pollfds to host ones; poll once; block if nothing is ready. */
static long do_poll(struct task *t, struct pollfd *g, int n, int64_t deadline)
{
	struct pollfd *h = calloc(n + 1, sizeof(*h));
	int i, ready;

	if (!h)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct file *f = g[i].fd >= 0 ? fd_lookup(t, g[i].fd) : NULL;

		h[i].fd = f ? f->hostfd : -1;
		h[i].events = g[i].events;
	}
	ready = poll(h, n, 0);
	for (i = 0; i < n; i++) {
		g[i].revents = h[i].revents;
		if (g[i].fd >= 0 && !fd_lookup(t, g[i].fd))
			g[i].revents = POLLNVAL;
	}
	for (i = 0, ready = 0; i < n; i++)
		ready += g[i].revents != 0;
	if (ready || (deadline && deadline <= now_ns())) {
		free(h);
		return ready;
	}
	for (i = 0; i < n; i++)
		if (h[i].fd >= 0)
			block_on_fd(t, h[i].fd, h[i].events | POLLHUP | POLLERR);
	free(h);
	return deadline ? block_until(t, deadline) : SYS_BLOCK;
}

static long poll_common(struct task *t, uint64_t ufds, unsigned int nfds)
{
	int n = nfds;
	struct pollfd *g;
	long r;

	if (nfds > 1024)	/* RLIMIT_NOFILE, as the guest sees it */
		return -EINVAL;
	g = calloc(n + 1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	r = copy_from_guest(t, g, ufds, n * sizeof(*g));
	if (r == 0)
		r = do_poll(t, g, n, t->sys_deadline);
	if (r >= 0 && copy_to_guest(t, ufds, g, n * sizeof(*g)) < 0)
		r = -EFAULT;
	free(g);
	return r;
}

long sys_poll(struct task *t, const uint64_t *a)
{
	if (!t->sys_again)
		t->sys_deadline = (int)a[2] < 0 ? 0 : now_ns() + (int64_t)(int)a[2] * 1000000 + 1;
	return poll_common(t, a[0], a[1]);
}

long sys_ppoll(struct task *t, const uint64_t *a)
{
	long r = guest_timeout(t, a[2]);

	if (r == 0)
		r = sig_wait_mask(t, a[3], a[4]);
	if (r == 0)
		r = poll_common(t, a[0], a[1]);
	return sig_wait_mask_end(t, r);
}

/* select on the deadline already in t->sys_deadline (0: none). */
static long select_common(struct task *t, int nfds, const uint64_t *u)
{
	fd_set sets[3];
	struct pollfd g[FD_SETSIZE];
	int i, k, n = 0;
	long r;

	if (nfds < 0)
		return -EINVAL;
	if (nfds > FD_SETSIZE)
		nfds = FD_SETSIZE;	/* the kernel clamps to its table, too */
	for (k = 0; k < 3; k++) {
		FD_ZERO(&sets[k]);
		if (u[k] && copy_from_guest(t, &sets[k], u[k], (nfds + 7) / 8) < 0)
			return -EFAULT;
	}
	for (i = 0; i < nfds; i++) {
		short ev = (FD_ISSET(i, &sets[0]) ? POLLIN : 0) |
			   (FD_ISSET(i, &sets[1]) ? POLLOUT : 0) |
			   (FD_ISSET(i, &sets[2]) ? POLLPRI : 0);

		if (!ev)
			continue;
		if (!fd_lookup(t, i))
			return -EBADF;
		g[n].fd = i;
		g[n++].events = ev;
	}
	r = do_poll(t, g, n, t->sys_deadline);
	if (r < 0)
		return r;
	for (k = 0; k < 3; k++)
		FD_ZERO(&sets[k]);
	for (i = 0, r = 0; i < n; i++) {
		short re = g[i].revents;

		if ((g[i].events & POLLIN) && (re & (POLLIN | POLLHUP | POLLERR)))
			FD_SET(g[i].fd, &sets[0]), r++;
		if ((g[i].events & POLLOUT) && (re & (POLLOUT | POLLERR)))
			FD_SET(g[i].fd, &sets[1]), r++;
		if ((g[i].events & POLLPRI) && (re & POLLPRI))
			FD_SET(g[i].fd, &sets[2]), r++;
	}
	for (k = 0; k < 3; k++)
		if (u[k] && copy_to_guest(t, u[k], &sets[k], (nfds + 7) / 8) < 0)
			return -EFAULT;
	return r;
}

long sys_select(struct task *t, const uint64_t *a)
{
	struct timeval tv;

	if (!t->sys_again) {
		t->sys_deadline = 0;
		if (a[4]) {
			if (copy_from_guest(t, &tv, a[4], sizeof(tv)) < 0)
				return -EFAULT;
			if (tv.tv_sec < 0 || tv.tv_usec < 0)
				return -EINVAL;
			t->sys_deadline = ns_sat((__int128)now_ns() +
						 tv_ns(&tv) + 1);
		}
	}
	return select_common(t, a[0], a + 1);
}

long sys_pselect6(struct task *t, const uint64_t *a)
{
	uint64_t sig[2] = { 0, 0 };	/* { const sigset_t *ss; size_t len } */
	long r = guest_timeout(t, a[4]);

	if (r == 0 && !t->sys_again && a[5] &&
	    copy_from_guest(t, sig, a[5], sizeof(sig)) < 0)
		r = -EFAULT;
	if (r == 0)
		r = sig_wait_mask(t, sig[0], sig[1]);
	if (r == 0)
		r = select_common(t, a[0], a + 1);
	return sig_wait_mask_end(t, r);
}

/* ---- futex ---- */

long sys_futex(struct task *t, const uint64_t *a)
{
	int op = a[1] & FUTEX_CMD_MASK, woken;
	struct timespec ts;
	uint32_t val;

	switch (op) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
		if (t->sys_again) {
			if (!t->w.futex)
				return 0;
			if (t->sys_deadline && t->sys_deadline <= now_ns())
				return -ETIMEDOUT;
			return block_until(t, t->sys_deadline);
		}
		t->sys_deadline = 0;
		if (copy_from_guest(t, &val, a[0], 4) < 0)
			return -EFAULT;
		if (val != (uint32_t)a[2])
			return -EAGAIN;
		t->w.futex = a[0];
		if (a[3]) {
			if (copy_from_guest(t, &ts, a[3], sizeof(ts)) < 0)
				return -EFAULT;
			t->sys_deadline = op == FUTEX_WAIT ?
					  ns_after(ts_ns(&ts)) : ts_ns(&ts);
		}
		return block_until(t, t->sys_deadline);
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		wake_futex(t->p->as, a[0], (int)a[2], &woken);
		return woken;
	default:
		return -ENOSYS;
	}
}
