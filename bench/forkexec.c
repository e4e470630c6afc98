// SPDX-License-Identifier: GPL-2.0
/*
 * fork + execve + wait loop: the process-creation path a build hammers
 * (the 2004 UML kernel-build figure, 105% slower, was dominated by it).
 * The child execs bench/true, a static program of two instructions.
 *
 * Usage: forkexec [N] [PROGRAM]	(default 2000, true beside this program)
 */
#define _GNU_SOURCE
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static void one(const char *prog)
{
	char *argv[] = { (char *)prog, NULL };
	char *envp[] = { NULL };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		bench_die("fork");
	if (pid == 0) {
		execve(prog, argv, envp);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		bench_die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = ENOEXEC;
		bench_die("child %s: status 0x%x", prog, status);
	}
}

int main(int argc, char **argv)
{
	long n = bench_arg(argc, argv, 1, 2000), i;
	char prog[PATH_MAX];
	const char *slash;
	double t0;

	if (argc > 2) {
		snprintf(prog, sizeof(prog), "%s", argv[2]);
	} else {
		slash = strrchr(argv[0], '/');
		snprintf(prog, sizeof(prog), "%.*strue",
			 slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
	}
	for (i = 0; i < n / 10 + 1; i++)
		one(prog);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		one(prog);
	bench_result((bench_now_ns() - t0) / n);
	return 0;
}
