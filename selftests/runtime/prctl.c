// SPDX-License-Identifier: GPL-2.0-only
/*
 * capget/capset and prctl, against the kernel's rules: the version probe,
 * dropping a capability and failing to get it back, bad pids and versions;
 * PR_SET_PDEATHSIG (not inherited, and sent when the parent dies) with
 * PR_SET_CHILD_SUBREAPER (the orphan is ours, not init's), no_new_privs,
 * dumpable, keepcaps, timer slack, the bounding and ambient sets, and the
 * argument checks of each.  LTP's library stops at its start when capget
 * is missing.  Prints "prctl ok", or exits with the number of the check
 * that failed.  Runs natively too: the expectations are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int fails(long r, int err)
{
	return r != -1 || errno != err;
}

static long capget(struct __user_cap_header_struct *h,
		   struct __user_cap_data_struct *d)
{
	return syscall(SYS_capget, h, d);
}

static long capset(struct __user_cap_header_struct *h,
		   struct __user_cap_data_struct *d)
{
	return syscall(SYS_capset, h, d);
}

static int check_caps(void)
{
	struct __user_cap_header_struct h = { 0, 0 };
	struct __user_cap_data_struct d[2], e[2];

	/* The version probe: the kernel's preferred version, no error. */
	if (capget(&h, NULL) != 0 || h.version != _LINUX_CAPABILITY_VERSION_3)
		return 10;
	h.version = 0x12345678;
	if (fails(capget(&h, d), EINVAL) || h.version != _LINUX_CAPABILITY_VERSION_3)
		return 11;
	h.pid = -1;
	if (fails(capget(&h, d), EINVAL))
		return 12;
	h.pid = 0x3fffffff;
	if (fails(capget(&h, d), ESRCH))
		return 13;
	h.pid = 0;
	if (capget(&h, d) || (d[0].effective & ~d[0].permitted))
		return 14;
	h.pid = getpid();
	if (capget(&h, e) || e[0].effective != d[0].effective)
		return 15;
	if (fails(capget(&h, (void *)8), EFAULT))
		return 16;
	/* No other process can be changed, nor can one raise a set. */
	h.pid = getpid() + 1;
	if (fails(capset(&h, d), EPERM))
		return 17;
	h.pid = 0;
	e[0] = d[0];
	e[1] = d[1];
	e[0].effective |= ~d[0].permitted;
	e[0].permitted |= ~d[0].permitted;
	if (~d[0].permitted && fails(capset(&h, e), EPERM))
		return 18;
	/* Drop CAP_CHOWN from the effective set, and raise it again. */
	if (d[0].permitted & (1 << CAP_CHOWN)) {
		e[0] = d[0];
		e[1] = d[1];
		e[0].effective &= ~(1U << CAP_CHOWN);
		if (capset(&h, e) || capget(&h, e) ||
		    (e[0].effective & (1 << CAP_CHOWN)))
			return 19;
		if (capset(&h, d) || capget(&h, e) ||
		    e[0].effective != d[0].effective)
			return 20;
	}
	if (prctl(PR_CAPBSET_READ, CAP_CHOWN, 0, 0, 0) < 0 ||
	    fails(prctl(PR_CAPBSET_READ, 1000, 0, 0, 0), EINVAL))
		return 21;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0) != 0 ||
	    fails(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 1000, 0, 0), EINVAL) ||
	    fails(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 1, 0), EINVAL) ||
	    fails(prctl(PR_CAP_AMBIENT, 99, CAP_CHOWN, 0, 0), EINVAL) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
		return 22;
	return 0;
}

static volatile sig_atomic_t got;

static void on_usr2(int sig)
{
	got = sig;
}

/* The grandchild: asks for SIGUSR2 when its parent dies, waits for it. */
static void grandchild(int ready, int result, pid_t reaper)
{
	struct sigaction sa = { .sa_handler = on_usr2 };
	sigset_t usr2, none;
	char c;

	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &usr2, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGUSR2) || write(ready, "r", 1) != 1)
		_exit(1);
	while (!got)
		sigsuspend(&none);
	c = getppid() == reaper ? 'y' : 'n';
	_exit(write(result, &c, 1) == 1 ? 0 : 1);
}

static int check_pdeath(void)
{
	int ready[2], result[2], sig = -1, st;
	pid_t me = getpid(), mid, gc = -1;
	char c;

	if (fails(prctl(PR_SET_PDEATHSIG, 65), EINVAL) ||
	    prctl(PR_SET_PDEATHSIG, SIGUSR1) ||
	    prctl(PR_GET_PDEATHSIG, &sig) || sig != SIGUSR1)
		return 30;
	mid = fork();
	if (mid == 0)
		_exit(prctl(PR_GET_PDEATHSIG, &sig) || sig != 0);
	if (waitpid(mid, &st, 0) != mid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 31;
	prctl(PR_SET_PDEATHSIG, 0);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) ||
	    prctl(PR_GET_CHILD_SUBREAPER, &sig) || sig != 1)
		return 32;
	if (pipe(ready) || pipe(result))
		return 33;
	mid = fork();
	if (mid == 0) {
		gc = fork();
		if (gc == 0)
			grandchild(ready[1], result[1], me);
		/* Exit once the grandchild has asked for its signal. */
		_exit(read(ready[0], &c, 1) == 1 ? 0 : 1);
	}
	if (waitpid(mid, &st, 0) != mid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 34;
	if (read(result[0], &c, 1) != 1 || c != 'y')
		return 35;
	/* The orphan is ours to wait for. */
	if (wait(&st) <= 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return 36;
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	return 0;
}

static int check_misc(void)
{
	unsigned long slack;
	char name[16];

	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 0 ||
	    fails(prctl(PR_GET_NO_NEW_PRIVS, 1, 0, 0, 0), EINVAL) ||
	    fails(prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0), EINVAL) ||
	    fails(prctl(PR_SET_NO_NEW_PRIVS, 1, 1, 0, 0), EINVAL) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return 40;
	if (prctl(PR_GET_DUMPABLE) != 1 || fails(prctl(PR_SET_DUMPABLE, 2), EINVAL) ||
	    prctl(PR_SET_DUMPABLE, 0) || prctl(PR_GET_DUMPABLE) != 0 ||
	    prctl(PR_SET_DUMPABLE, 1))
		return 41;
	if (fails(prctl(PR_SET_KEEPCAPS, 2), EINVAL) || prctl(PR_SET_KEEPCAPS, 1) ||
	    prctl(PR_GET_KEEPCAPS) != 1 || prctl(PR_SET_KEEPCAPS, 0))
		return 42;
	slack = prctl(PR_GET_TIMERSLACK);
	if (prctl(PR_SET_TIMERSLACK, 123456) || prctl(PR_GET_TIMERSLACK) != 123456 ||
	    prctl(PR_SET_TIMERSLACK, 0) || (unsigned long)prctl(PR_GET_TIMERSLACK) != slack)
		return 43;
	if (prctl(PR_SET_NAME, "pr-name") || prctl(PR_GET_NAME, name) ||
	    name[0] != 'p' || name[6] != 'e' || name[7])
		return 44;
	if (fails(prctl(0x7fffffff, 0, 0, 0, 0), EINVAL))
		return 45;
	return 0;
}

int main(void)
{
	int r = check_caps();

	if (!r)
		r = check_pdeath();
	if (!r)
		r = check_misc();
	if (r)
		return r;
	puts("prctl ok");
	return 0;
}
