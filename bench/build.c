// SPDX-License-Identifier: GPL-2.0
/*
 * A real build: `make -s -jJ` in folder DIR (a copy of this project's
 * libuml, set up by run-in-vm.sh), N times, each after an untimed
 * `make -s clean`.  One operation is one build, so the figure is the
 * build's wall time; make, gcc, cc1, as and ld are the host's dynamic
 * programs, which a guest runs through the runtime's ELF loader.
 *
 * Usage: build DIR [N [J]]	(default N 1, J 2)
 */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* make -s -C @dir [@arg]: its exit status, -1 if it could not run. */
static int make(const char *dir, const char *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		/* The host's tools, not busybox's applets (ar) of the VM. */
		setenv("PATH", "/usr/bin:/bin", 1);
		execl("/usr/bin/make", "make", "-s", "-C", dir, arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "";
	long n = bench_arg(argc, argv, 2, 1);
	long j = bench_arg(argc, argv, 3, 2);
	char jobs[32];
	double total = 0, t0;
	struct stat st;
	long i;
	int r;

	if (access("/usr/bin/make", X_OK) || access("/usr/bin/gcc", X_OK))
		bench_na("no /usr/bin/make or /usr/bin/gcc here");
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		bench_na("no sources to build in '%s'", dir);
	snprintf(jobs, sizeof(jobs), "-j%ld", j);
	for (i = 0; i < n; i++) {
		if (make(dir, "clean")) {
			fprintf(stderr, "make clean failed in %s\n", dir);
			return 1;
		}
		t0 = bench_now_ns();
		r = make(dir, jobs);
		if (r) {
			fprintf(stderr, "make %s in %s: exit %d\n", jobs, dir, r);
			return 1;
		}
		total += bench_now_ns() - t0;
	}
	bench_result(total / n);
	return 0;
}
