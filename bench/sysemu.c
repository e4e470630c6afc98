// SPDX-License-Identifier: GPL-2.0
/*
 * getpid answered by a raw PTRACE_SYSEMU tracer, the mainline mechanism
 * under UML's SKAS0 mode and libuml's ptrace backend, with nothing around
 * it: PTRACE_SYSEMU, waitpid, PTRACE_GETREGS, PTRACE_SETREGS per round
 * trip.  The tracer times N round trips.
 *
 * Usage: sysemu [N]	(default 20000)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#ifndef PTRACE_SYSEMU
#define PTRACE_SYSEMU 31
#endif

/* One stop: the child is at a syscall entry; answer it with @val. */
static void round_trip(pid_t pid, unsigned long long val)
{
	struct user_regs_struct r;
	int status;

	if (ptrace(PTRACE_SYSEMU, pid, 0, 0))
		bench_die("PTRACE_SYSEMU");
	if (waitpid(pid, &status, 0) != pid)
		bench_die("waitpid");
	if (!WIFSTOPPED(status)) {
		errno = ECHILD;
		bench_die("child ended (status 0x%x)", status);
	}
	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		bench_die("PTRACE_GETREGS");
	r.rax = r.orig_rax == SYS_getpid ? val : (unsigned long long)-ENOSYS;
	if (ptrace(PTRACE_SETREGS, pid, 0, &r))
		bench_die("PTRACE_SETREGS");
}

int main(int argc, char **argv)
{
	long n = bench_arg(argc, argv, 1, 20000), w = n / 10 + 1, i;
	int status;
	double t0, t;
	pid_t pid = fork();

	if (pid < 0)
		bench_die("fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(3);
		syscall(SYS_kill, syscall(SYS_getpid), SIGSTOP);
		/* Emulated getpid answers 1 until the tracer lets go. */
		while (syscall(SYS_getpid) == 1)
			;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		bench_die("child did not stop");
	ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_EXITKILL);
	for (i = 0; i < w; i++)
		round_trip(pid, 1);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		round_trip(pid, 1);
	t = bench_now_ns() - t0;
	/* Stopped at one more getpid entry: answer 2, which ends its loop. */
	round_trip(pid, 2);
	if (ptrace(PTRACE_DETACH, pid, 0, 0))
		bench_die("PTRACE_DETACH");
	if (waitpid(pid, &status, 0) != pid || status)
		bench_die("child (status 0x%x)", status);
	bench_result(t / n);
	return 0;
}
