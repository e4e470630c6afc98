// SPDX-License-Identifier: GPL-2.0-only
/*
 * vfork and CLONE_VM children share their parent's memory until they exec
 * or exit, as on Linux: a vfork child's writes are seen by the parent
 * (posix_spawn reports the child's exec error that way: ENOENT for a
 * missing program), a clone(CLONE_VM) child runs beside its parent in the
 * same memory, and each keeps its own pid, parent and fds.  Prints
 * "vfork ok", or exits with the number of the check that failed.  Runs
 * natively too: the expectations are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static volatile int shared;
static int child_pid_seen, child_ppid_seen;
static char stack[64 << 10];

static int reaped(pid_t pid, int code)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == code;
}

static int vm_child(void *arg)
{
	(void)arg;
	shared = 42;
	child_pid_seen = getpid();
	close(0);	/* its own fd table: the parent keeps its fd 0 */
	return 7;
}

int main(int argc, char **argv)
{
	char *args[] = { argv[0], "exec-child", NULL };
	pid_t me = getpid(), pid;

	if (argc > 1)	/* run by the vfork child's execve */
		return strcmp(argv[1], "exec-child") ? 1 : 9;

	/* A vfork child writes the parent's memory, with its own ids. */
	pid = vfork();
	if (pid == 0) {
		shared = 1;
		child_pid_seen = getpid();
		child_ppid_seen = getppid();
		_exit(5);
	}
	if (pid < 0 || shared != 1 || child_pid_seen != pid ||
	    child_ppid_seen != me || getpid() != me || !reaped(pid, 5))
		return 2;
	/* A vfork child that execs: the parent goes on once it has. */
	pid = vfork();
	if (pid == 0) {
		execve("/proc/self/exe", args, environ);
		_exit(127);
	}
	if (pid < 0 || !reaped(pid, 9) || getpid() != me)
		return 3;
	/* posix_spawn sees the child's exec error through the shared memory. */
	args[0] = "/nonexistent/program";
	if (posix_spawn(&pid, args[0], NULL, NULL, args, environ) != ENOENT)
		return 4;
	args[0] = argv[0];
	if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) ||
	    !reaped(pid, 9))
		return 5;
	/* clone(CLONE_VM) without CLONE_VFORK: beside the parent. */
	shared = 0;
	pid = clone(vm_child, stack + sizeof(stack), CLONE_VM | SIGCHLD, NULL);
	if (pid < 0 || !reaped(pid, 7) || shared != 42 || child_pid_seen != pid ||
	    fcntl(0, F_GETFD) < 0)
		return 6;
	if (getpid() != me || getppid() == me)
		return 7;
	puts("vfork ok");
	return 0;
}
