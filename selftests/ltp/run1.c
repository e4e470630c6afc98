// SPDX-License-Identifier: GPL-2.0
/*
 * run1: run one LTP test with a timeout, in a process group of its own.
 *
 *   run1 [-t SECS] [-u UID:GID] [-o LOG] [--] PROGRAM ARGS...
 *
 * The program runs in a new session (so the whole group can be killed) with
 * stdin from /dev/null and stdout and stderr to LOG (default: inherited),
 * as UID:GID with no supplementary groups if -u is given.  When it ends, or
 * after SECS seconds (default 120), every process left in its group is
 * killed.  run1 prints one line, "exit N", "signal N" or "timeout", then the
 * elapsed milliseconds, and exits 0; 2 for its own errors.  The runner
 * (run.sh) turns that line into pass/conf/fail.  Static, so that the VM's
 * busybox root can run it.
 *
 *   run1 -i [--] PROGRAM ARGS...
 *
 * is the guest's init under umlrun instead: it runs PROGRAM as its child,
 * reaps every orphan, and exits as PROGRAM did (128+N for signal N) when
 * PROGRAM ends.  umlrun makes its PROGRAM guest pid 1, and the LTP library
 * takes a getppid() of 1 in its test process for "the main test process
 * exited" (tst_test.c's heartbeat): a test must not be the guest's init.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int guest_init(char **argv)
{
	pid_t pid = fork(), r;
	int status;

	if (pid < 0) {
		perror("run1: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "run1: %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	for (;;) {
		r = wait(&status);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			perror("run1: wait");
			return 2;
		}
		if (r == pid)
			break;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static void usage(void)
{
	fprintf(stderr, "usage: run1 [-t SECS] [-u UID:GID] [-o LOG] | -i [--] PROGRAM ARGS...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long secs = 120;
	const char *log = NULL;
	unsigned long uid = 0, gid = 0;
	int as_user = 0, init = 0, opt, status, timed_out = 0;
	long long start;
	sigset_t chld;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+it:u:o:")) != -1) {
		switch (opt) {
		case 'i':
			init = 1;
			break;
		case 't':
			secs = strtol(optarg, NULL, 10);
			if (secs <= 0)
				usage();
			break;
		case 'u':
			if (sscanf(optarg, "%lu:%lu", &uid, &gid) != 2)
				usage();
			as_user = 1;
			break;
		case 'o':
			log = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	if (init)
		return guest_init(argv + optind);

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	start = now_ms();
	pid = fork();
	if (pid < 0) {
		perror("run1: fork");
		return 2;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);

		sigprocmask(SIG_UNBLOCK, &chld, NULL);
		setsid();
		if (fd >= 0) {
			dup2(fd, 0);
			close(fd);
		}
		if (log) {
			fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
			if (fd < 0) {
				fprintf(stderr, "run1: %s: %s\n", log, strerror(errno));
				_exit(125);
			}
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		if (as_user && (setgroups(0, NULL) || setgid(gid) || setuid(uid))) {
			fprintf(stderr, "run1: cannot become %lu:%lu: %s\n", uid, gid,
				strerror(errno));
			_exit(125);
		}
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "run1: %s: %s\n", argv[optind], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}

	for (;;) {
		long long left = start + secs * 1000LL - now_ms();
		struct timespec ts;
		pid_t r;

		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			perror("run1: waitpid");
			return 2;
		}
		if (left <= 0) {
			timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		if (left > 1000)
			left = 1000;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = (left % 1000) * 1000000;
		sigtimedwait(&chld, NULL, &ts);
	}
	/* What the test left behind in its group goes with it. */
	kill(-pid, SIGKILL);

	if (timed_out)
		printf("timeout");
	else if (WIFEXITED(status))
		printf("exit %d", WEXITSTATUS(status));
	else
		printf("signal %d", WTERMSIG(status));
	printf(" %lld\n", now_ms() - start);
	return 0;
}
