// SPDX-License-Identifier: GPL-2.0
/*
 * Shell workload: runs `SHELL SCRIPT` (default: busybox sh bench/shell.sh,
 * which starts 200 short processes joined by pipes) with its output sent to
 * /dev/null, and prints the time of one whole run.  A stand-in for the
 * kernel-build figure of 2004 (UML 105% slower than the host): fork, exec,
 * pipes, wait and small reads and writes, not one syscall in a loop.
 *
 * Usage: shell [RUNS] [SCRIPT] [SHELL]	(default 1, shell.sh beside this
 *	  program, /bin/busybox)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static void one(char *sh, char *script)
{
	char *argv[] = { sh, "sh", script, NULL };
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		bench_die("fork");
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		execv(sh, argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		bench_die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = ENOEXEC;
		bench_die("%s sh %s: status 0x%x", sh, script, status);
	}
}

int main(int argc, char **argv)
{
	long n = bench_arg(argc, argv, 1, 1), i;
	char script[PATH_MAX], *sh = argc > 3 ? argv[3] : "/bin/busybox";
	const char *slash;
	double t0;

	if (argc > 2) {
		snprintf(script, sizeof(script), "%s", argv[2]);
	} else {
		slash = strrchr(argv[0], '/');
		snprintf(script, sizeof(script), "%.*sshell.sh",
			 slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
	}
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		one(sh, script);
	bench_result((bench_now_ns() - t0) / n);
	return 0;
}
