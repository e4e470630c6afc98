// SPDX-License-Identifier: GPL-2.0-only
/*
 * A signal interrupts a read blocked on an empty pipe: with SA_RESTART the
 * read is restarted after the handler and gets the data a child writes
 * later; without it the read fails with EINTR.  SIGALRM comes from
 * setitimer(ITIMER_REAL), then from alarm().
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t hits;

static void on_alrm(int sig)
{
	(void)sig;
	hits++;
}

/* Read from a pipe that a child fills after @delay_ms; return read()'s result. */
static int blocked_read(int restart, char *buf, int *err)
{
	struct sigaction sa;
	struct itimerval it = { .it_value = { 0, 150000 } };
	int fds[2], r;
	pid_t pid;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alrm;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigaction(SIGALRM, &sa, NULL);
	if (pipe(fds))
		return -2;
	pid = fork();
	if (pid == 0) {
		usleep(600000);
		write(fds[1], "data", 4);
		_exit(0);
	}
	close(fds[1]);
	setitimer(ITIMER_REAL, &it, NULL);
	r = read(fds[0], buf, 16);
	*err = errno;
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return r;
}

int main(void)
{
	char buf[16] = { 0 };
	int r, err;

	r = blocked_read(1, buf, &err);
	if (r != 4 || memcmp(buf, "data", 4) || hits != 1) {
		printf("restart: r=%d hits=%d\n", r, (int)hits);
		return 1;
	}
	r = blocked_read(0, buf, &err);
	if (r != -1 || err != EINTR || hits != 2) {
		printf("no restart: r=%d err=%d hits=%d\n", r, err, (int)hits);
		return 2;
	}
	alarm(1);
	pause();
	if (hits != 3 || alarm(0) != 0)
		return 3;
	puts("restart ok");
	return 0;
}
