// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime fuzzer's findings (Documentation/stress.rst, "The runtime
 * fuzzer"), one deterministic call each, with the kernel's answer.  Most
 * were undefined behaviour in umlrun that only the ASan+UBSan build shows
 * (selftests/runtime/sanitized.sh runs this program under it); the
 * answers are checked on every build.  Runs natively too.
 * Prints "edges ok", or the call that went wrong and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int bad;

static void expect(const char *what, long r, int err)
{
	if (r == -1 && errno == err)
		return;
	printf("%s: %ld (%s), wanted %s\n", what, r,
	       r < 0 ? strerror(errno) : "no error", strerror(err));
	bad = 1;
}

/*
 * A child with exit signal SIGKILL outlives its parent: reparented, its
 * exit signal must become SIGCHLD (the kernel's reparent_leader(): "we
 * don't want people slaying init"), or its exit kills the reaper, here
 * guest pid 1 (natively, this process as a subreaper).
 */
static void orphan_exit_signal(void)
{
	int st = 0;
	long g;
	pid_t c;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	c = fork();
	if (c == 0) {
		g = syscall(SYS_clone, SIGKILL, 0, 0, 0, 0);
		if (g == 0) {
			usleep(100000);
			_exit(5);
		}
		_exit(g < 0);
	}
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		printf("orphan: fork or clone(SIGKILL) failed (%#x)\n", st);
		bad = 1;
		return;
	}
	/* Its exit signal is SIGCHLD now: a plain wait sees it. */
	if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 5) {
		printf("orphan: wait: %s, status %#x\n", strerror(errno), st);
		bad = 1;
	}
}

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

/*
 * CLONE_PARENT makes a sibling, whose exit signal is the caller's own
 * (copy_process()), not the one in the flags: else a child can stop or
 * kill its parent's parent, guest pid 1 included, with SIGSTOP or SIGKILL.
 */
static void clone_parent_exit_signal(void)
{
	int st = 0;
	long g;
	pid_t c;

	signal(SIGUSR1, on_usr1);
	c = fork();
	if (c == 0) {
		g = syscall(SYS_clone, CLONE_PARENT | SIGUSR1, 0, 0, 0, 0);
		if (g == 0)
			_exit(6);
		_exit(g < 0);
	}
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		printf("clone_parent: fork or clone failed (%#x)\n", st);
		bad = 1;
		return;
	}
	if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 6) {
		printf("clone_parent: wait: %s, status %#x\n", strerror(errno),
		       st);
		bad = 1;
	}
	if (usr1) {
		printf("clone_parent: the sibling's exit sent SIGUSR1\n");
		bad = 1;
	}
}

/*
 * With SIGCHLD ignored an exiting child is reaped at once; the runtime
 * freed its process while still running the exit, then read it (a
 * use-after-free only ASan shows).  A plain wait finds no child.
 */
static void autoreap_exit(void)
{
	struct timespec nap = { 0, 50000000 };
	int i, st;
	pid_t c;

	signal(SIGCHLD, SIG_IGN);
	for (i = 0; i < 3; i++) {
		c = fork();
		if (c == 0)
			syscall(SYS_exit, 0);
		nanosleep(&nap, NULL);
	}
	if (wait(&st) != -1 || errno != ECHILD) {
		printf("autoreap: wait did not fail with ECHILD\n");
		bad = 1;
	}
	signal(SIGCHLD, SIG_DFL);
}

int main(void)
{
	/* -INT_MIN overflowed umlrun's process-group match. */
	expect("kill(INT_MIN, 0)", syscall(SYS_kill, INT_MIN, 0), ESRCH);
	expect("kill(INT_MIN, SIGKILL)", syscall(SYS_kill, INT_MIN, SIGKILL),
	       ESRCH);
	orphan_exit_signal();
	clone_parent_exit_signal();
	autoreap_exit();
	if (!bad)
		puts("edges ok");
	return bad;
}
