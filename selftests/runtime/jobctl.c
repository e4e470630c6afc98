// SPDX-License-Identifier: GPL-2.0-only
/*
 * Job control: a child stops (raise(SIGSTOP)), the parent sees it with
 * WUNTRACED and waitid(WSTOPPED), continues it and sees WCONTINUED.  A
 * child stopped and continued while blocked in read() must not see EINTR:
 * the read goes on and gets the data.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int stop_and_continue(void)
{
	siginfo_t si;
	int fds[2], st;
	char c;
	pid_t pid;

	/* The child waits on the pipe so that it cannot exit before the
	 * parent has seen it continued. */
	if (pipe(fds))
		return 4;
	pid = fork();
	if (pid == 0) {
		raise(SIGSTOP);
		_exit(read(fds[0], &c, 1) == 1 ? 7 : 8);
	}
	if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st) ||
	    WSTOPSIG(st) != SIGSTOP)
		return 1;
	kill(pid, SIGCONT);
	if (waitpid(pid, &st, WCONTINUED) != pid || !WIFCONTINUED(st))
		return 2;
	if (write(fds[1], "x", 1) != 1)
		return 5;
	if (waitid(P_PID, pid, &si, WEXITED) != 0 || si.si_code != CLD_EXITED ||
	    si.si_status != 7)
		return 3;
	return 0;
}

static int stop_during_read(void)
{
	int fds[2], st;
	char c;
	pid_t pid;

	if (pipe(fds))
		return 10;
	pid = fork();
	if (pid == 0) {
		ssize_t r = read(fds[0], &c, 1);

		_exit(r == 1 && c == 'x' ? 0 : errno == EINTR ? 11 : 12);
	}
	usleep(100000);		/* let the child block in read */
	kill(pid, SIGTSTP);
	if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st) ||
	    WSTOPSIG(st) != SIGTSTP)
		return 13;
	kill(pid, SIGCONT);
	usleep(100000);
	if (write(fds[1], "x", 1) != 1)
		return 14;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 15;
	return WEXITSTATUS(st);
}

int main(void)
{
	int r = stop_and_continue();

	if (!r)
		r = stop_during_read();
	if (r) {
		printf("jobctl failed: %d\n", r);
		return 1;
	}
	puts("jobctl ok");
	return 0;
}
