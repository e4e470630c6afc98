// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calls real programs and LTP make that umlrun once lacked: each
 * part prints one line per check, the call's result or its errno's
 * name, so that cases.sh compares the output natively and under umlrun
 * (the kernel's answers are the expectation).  Usage: calls PART, PART
 * one of signalfd, clone3, clone3-guest, cpu.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* "name: value", or "name: ENAME" for a failed call. */
static void show(const char *name, long r)
{
	if (r == -1)
		printf("%s: %s\n", name, strerrorname_np(errno));
	else
		printf("%s: %ld\n", name, r);
}

static void val(const char *name, long v)
{
	printf("%s: %ld\n", name, v);
}

static void yes(const char *name, int cond)
{
	printf("%s: %s\n", name, cond ? "yes" : "NO");
}

/* ---- signalfd ---- */

static long sfd4(int fd, const void *mask, size_t size, int flags)
{
	return syscall(SYS_signalfd4, fd, mask, size, flags);
}

/* Read one record from @fd; its signo, or -1 with errno. */
static long sfd_read(int fd, struct signalfd_siginfo *si)
{
	ssize_t r = read(fd, si, sizeof(*si));

	if (r < 0)
		return -1;
	return r == sizeof(*si) ? (long)si->ssi_signo : -2;
}

static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void part_signalfd(void)
{
	struct signalfd_siginfo si[4];
	struct epoll_event ev = { .events = EPOLLIN };
	struct timeval tv = { 0, 0 };
	sigset_t m, m2, pend;
	int sfd, bfd, ep, st, p[2];
	union sigval v = { .sival_int = 42 };
	fd_set rs;
	pid_t pid;
	ssize_t n;

	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigaddset(&m, SIGRTMIN);
	sigaddset(&m, SIGKILL);		/* silently dropped, as by the kernel */
	sigprocmask(SIG_BLOCK, &m, NULL);
	sigaddset(&m, SIGUSR2);
	sigprocmask(SIG_BLOCK, &m, NULL);
	sigdelset(&m, SIGUSR2);

	sfd = signalfd(-1, &m, SFD_NONBLOCK | SFD_CLOEXEC);
	yes("signalfd: an fd", sfd >= 0);
	show("F_GETFD", fcntl(sfd, F_GETFD));
	yes("F_GETFL has O_NONBLOCK", fcntl(sfd, F_GETFL) & O_NONBLOCK);
	show("read, nothing pending", sfd_read(sfd, si));
	yes("poll, nothing pending: not readable", !readable(sfd));

	kill(getpid(), SIGUSR1);
	yes("poll after kill: readable", readable(sfd));
	FD_ZERO(&rs);
	FD_SET(sfd, &rs);
	show("select", select(sfd + 1, &rs, NULL, NULL, &tv));
	ep = epoll_create1(0);
	show("epoll_ctl", epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev));
	show("epoll_wait", epoll_wait(ep, &ev, 1, 0));
	sigqueue(getpid(), SIGRTMIN, v);
	v.sival_int = 43;
	sigqueue(getpid(), SIGRTMIN, v);
	n = read(sfd, si, sizeof(si));
	show("read of 4 records: bytes", n);
	val("first signo", si[0].ssi_signo);
	val("first code (SI_USER)", si[0].ssi_code);
	yes("first pid is ours", si[0].ssi_pid == (uint32_t)getpid());
	yes("first uid is ours", si[0].ssi_uid == getuid());
	val("second signo", si[1].ssi_signo - SIGRTMIN);
	val("second code (SI_QUEUE)", si[1].ssi_code);
	val("second int", si[1].ssi_int);
	val("third int", si[2].ssi_int);
	show("read, all taken", sfd_read(sfd, si));
	show("epoll_wait, all taken", epoll_wait(ep, &ev, 1, 0));
	yes("poll, all taken: not readable", !readable(sfd));
	show("read of 100 bytes", read(sfd, si, 100));
	show("write", write(sfd, si, sizeof(si[0])));

	/* A new mask for the same fd: its own signals only. */
	sigemptyset(&m2);
	sigaddset(&m2, SIGUSR2);
	yes("signalfd on itself returns it", signalfd(sfd, &m2, 0) == sfd);
	yes("... flags stay", fcntl(sfd, F_GETFL) & O_NONBLOCK);
	kill(getpid(), SIGUSR1);
	show("read, SIGUSR1 no longer in the mask", sfd_read(sfd, si));
	sigpending(&pend);
	yes("SIGUSR1 stays pending", sigismember(&pend, SIGUSR1));
	raise(SIGUSR2);
	show("read after raise(SIGUSR2)", sfd_read(sfd, si));
	val("its code (SI_TKILL)", si[0].ssi_code);
	signalfd(sfd, &m, 0);
	show("read of the SIGUSR1 left", sfd_read(sfd, si));

	/* A blocking read waits for a signal from another process. */
	bfd = signalfd(-1, &m, 0);
	pid = fork();
	if (pid == 0) {
		usleep(50000);
		kill(getppid(), SIGUSR1);
		_exit(0);
	}
	show("blocking read", sfd_read(bfd, si));
	yes("its pid is the child's", si[0].ssi_pid == (uint32_t)pid);
	waitpid(pid, &st, 0);

	/* Inherited by fork, a signalfd reads the reader's signals. */
	signalfd(sfd, &m2, 0);
	kill(getpid(), SIGUSR2);
	pipe(p);
	pid = fork();
	if (pid == 0) {
		long a, b;

		a = sfd_read(sfd, si);
		kill(getpid(), SIGUSR2);
		b = sfd_read(sfd, si);
		_exit(a == -1 && errno == EAGAIN && b == SIGUSR2 ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	show("child: EAGAIN, then its own signal", WEXITSTATUS(st));
	show("parent: its signal is still there", sfd_read(sfd, si));

	/* Bad input, in the kernel's order. */
	show("flags 0x1234", sfd4(-1, &m, 8, 0x1234));
	show("sizemask 4", sfd4(-1, &m, 4, 0));
	show("sizemask 16", sfd4(-1, &m, 16, 0));
	show("bad mask pointer", sfd4(-1, (void *)8, 8, 0));
	show("bad mask pointer, bad flags", sfd4(-1, (void *)8, 8, 0x1234));
	show("fd 999", sfd4(999, &m, 8, 0));
	show("fd of a pipe", sfd4(p[0], &m, 8, 0));
	show("signalfd, sizemask 4", syscall(SYS_signalfd, -1, &m, 4));
	show("fd -2", sfd4(-2, &m, 8, 0));
	close(sfd);
	close(bfd);
	close(ep);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2) {
		fprintf(stderr, "usage: calls PART\n");
		return 2;
	}
	if (strcmp(argv[1], "signalfd") == 0)
		part_signalfd();
	else
		return 2;
	return 0;
}
