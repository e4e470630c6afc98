// SPDX-License-Identifier: GPL-2.0-only
/*
 * ppoll and pselect6 apply their signal mask for the wait only, as the
 * kernel does: a signal the mask unblocks ends the wait (EINTR), its
 * handler runs under that mask and returns to the old one; a call that
 * returns by itself (an fd ready) puts the old mask back at once, so the
 * signal stays pending.  GNU make -j waits for SIGCHLD this way, and hung
 * under umlrun while the mask was ignored.  Bad sizes and timeouts are
 * EINVAL.  Prints "pmask ok", or exits with the number of the check that
 * failed.  Runs natively too: the expectations are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled, usr1_blocked_in_handler;

static void on_usr1(int sig)
{
	sigset_t cur;

	(void)sig;
	sigprocmask(SIG_SETMASK, NULL, &cur);
	usr1_blocked_in_handler = sigismember(&cur, SIGUSR1);
	handled++;
}

/* SIGUSR1 is blocked again and, if @pending, still pending. */
static int mask_back(int pending)
{
	sigset_t cur, pend;

	sigprocmask(SIG_SETMASK, NULL, &cur);
	sigpending(&pend);
	return sigismember(&cur, SIGUSR1) && sigismember(&pend, SIGUSR1) == pending;
}

int main(void)
{
	struct timespec ts = { 1, 0 }, bad = { 0, 1000000000L };
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct pollfd pfd;
	sigset_t usr1, none;
	fd_set rd;
	int p[2];

	sigemptyset(&none);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (pipe(p) || sigaction(SIGUSR1, &sa, NULL) ||
	    sigprocmask(SIG_BLOCK, &usr1, NULL))
		return 1;

	/* A pending signal the mask unblocks ends the wait at once. */
	raise(SIGUSR1);
	if (ppoll(NULL, 0, &ts, &none) != -1 || errno != EINTR)
		return 2;
	if (handled != 1 || !usr1_blocked_in_handler || !mask_back(0))
		return 3;
	raise(SIGUSR1);
	if (pselect(0, NULL, NULL, NULL, &ts, &none) != -1 || errno != EINTR)
		return 4;
	if (handled != 2 || !mask_back(0))
		return 5;

	/* A ready fd: the call returns it, the signal stays pending. */
	if (write(p[1], "x", 1) != 1)
		return 6;
	raise(SIGUSR1);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	if (ppoll(&pfd, 1, &ts, &none) != 1 || handled != 2 || !mask_back(1))
		return 7;
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	if (pselect(p[0] + 1, &rd, NULL, NULL, &ts, &none) != 1 ||
	    handled != 2 || !mask_back(1))
		return 8;
	/* Without a mask the pending signal stays blocked: a timeout. */
	ts.tv_sec = 0;
	ts.tv_nsec = 20000000;
	if (ppoll(NULL, 0, &ts, NULL) != 0 || handled != 2 || !mask_back(1))
		return 9;

	/* Bad input, with the signal still pending and blocked. */
	if (syscall(SYS_ppoll, NULL, 0, &ts, &none, 7) != -1 || errno != EINVAL)
		return 10;
	if (syscall(SYS_ppoll, NULL, 0, &bad, NULL, 8) != -1 || errno != EINVAL)
		return 11;
	if (pselect(0, NULL, NULL, NULL, &bad, &none) != -1 || errno != EINVAL)
		return 12;
	/* poll's nfds is an unsigned int: this is poll(NULL, 0, 0). */
	if (syscall(SYS_poll, NULL, 0x100000000UL, 0) != 0)
		return 13;
	if (handled != 2 || !mask_back(1))
		return 14;
	/* Now let it through. */
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
	if (handled != 3)
		return 15;
	puts("pmask ok");
	return 0;
}
