// SPDX-License-Identifier: GPL-2.0
/*
 * Processes in a UML guest: a chain of fork+exec of ourselves, each level
 * adding to its child's exit status; argv and the environment through
 * exec; vfork+exec; exec of a missing file; 32 children at once; a pipe
 * carrying 1 MB from a child; an exec'd shell command's output.
 *
 * Usage: forkexec            the cases
 *        forkexec chain N    (internal) one level of the chain
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report.h"

extern char **environ;

static int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/* One level: exec the next, then exit with its status + 1 (0 at the end). */
static int chain(const char *self, int n)
{
	char arg[16];
	pid_t pid;
	int st;

	if (n == 0)
		return 0;
	pid = fork();
	if (pid == 0) {
		snprintf(arg, sizeof(arg), "%d", n - 1);
		execl(self, self, "chain", arg, (char *)NULL);
		_exit(127);
	}
	st = wait_status(pid);
	if (!WIFEXITED(st))
		return 255;
	return WEXITSTATUS(st) + 1;
}

int main(int argc, char **argv)
{
	const char *self = "/proc/self/exe";
	pid_t pid;
	int st;

	if (argc == 3 && !strcmp(argv[1], "chain"))
		return chain(self, atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "args")) {
		const char *v = getenv("UML_TEST_VAR");

		return !strcmp(argv[2], "two words") && v && !strcmp(v, "value=1") ? 0 : 1;
	}

	result("fork+exec chain of 20 levels", chain(self, 20) == 20, "wrong depth");

	pid = fork();
	if (pid == 0) {
		char *env[] = { "UML_TEST_VAR=value=1", NULL };
		char *args[] = { "forkexec", "args", "two words", NULL };

		execve("/proc/self/exe", args, env);
		_exit(127);
	}
	st = wait_status(pid);
	result("argv and environment through exec", WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "status 0x%x", st);

	pid = vfork();
	if (pid == 0) {
		execl(self, self, "chain", "3", (char *)NULL);
		_exit(127);
	}
	st = wait_status(pid);
	result("vfork+exec", WIFEXITED(st) && WEXITSTATUS(st) == 3, "status 0x%x", st);

	pid = fork();
	if (pid == 0) {
		execl("/nonexistent", "nonexistent", (char *)NULL);
		_exit(errno == ENOENT ? 42 : 43);
	}
	st = wait_status(pid);
	result("exec of a missing file fails with ENOENT", WIFEXITED(st) && WEXITSTATUS(st) == 42,
	       "status 0x%x", st);

	/* 32 children at once, each exiting with its number. */
	pid_t kids[32];
	int sum = 0;

	for (int i = 0; i < 32; i++) {
		kids[i] = fork();
		if (kids[i] == 0)
			_exit(i);
	}
	for (int i = 0; i < 32; i++) {
		st = wait_status(kids[i]);
		sum += WIFEXITED(st) ? WEXITSTATUS(st) : 1000;
	}
	result("32 children at once", sum == 31 * 32 / 2, "sum %d", sum);

	/* 1 MB through a pipe from a child. */
	int fds[2];
	static unsigned char buf[65536];
	size_t total = 0;
	uint32_t hash = 0, want = 0;

	if (pipe(fds) == 0) {
		pid = fork();
		if (pid == 0) {
			close(fds[0]);
			for (int k = 0; k < 16; k++) {
				for (size_t i = 0; i < sizeof(buf); i++)
					buf[i] = (unsigned char)(i * 7 + k);
				if (write(fds[1], buf, sizeof(buf)) != sizeof(buf))
					_exit(1);
			}
			_exit(0);
		}
		close(fds[1]);
		for (;;) {
			ssize_t r = read(fds[0], buf, sizeof(buf));

			if (r <= 0)
				break;
			for (ssize_t i = 0; i < r; i++)
				hash = hash * 31 + buf[i];
			total += r;
		}
		close(fds[0]);
		wait_status(pid);
		for (int k = 0; k < 16; k++)
			for (size_t i = 0; i < sizeof(buf); i++)
				want = want * 31 + (unsigned char)(i * 7 + k);
	}
	result("1 MB through a pipe", total == 16 * sizeof(buf) && hash == want,
	       "%zu bytes", total);

	/* A shell's output through a pipe on stdout. */
	if (pipe(fds) == 0) {
		pid = fork();
		if (pid == 0) {
			dup2(fds[1], 1);
			close(fds[0]);
			close(fds[1]);
			execl("/bin/sh", "sh", "-c", "echo $((6 * 7))", (char *)NULL);
			_exit(127);
		}
		close(fds[1]);
		char out[16] = "";
		ssize_t r = read(fds[0], out, sizeof(out) - 1);

		close(fds[0]);
		st = wait_status(pid);
		result("sh -c through a pipe", r == 3 && !memcmp(out, "42\n", 3) &&
		       WIFEXITED(st) && WEXITSTATUS(st) == 0, "read %zd", r);
	}
	return report_done();
}
