// SPDX-License-Identifier: GPL-2.0-only
/*
 * Process groups, clone's flag rules and syscall numbers as the kernel
 * has them: setpgid into a group that does not exist in the session is
 * EPERM, into a child that has exec'd EACCES, on a thread that is not a
 * group leader EINVAL; CLONE_SIGHAND without CLONE_VM is EINVAL, and so
 * is CLONE_PARENT from the namespace's init (checked where this runs as
 * pid 1, as under umlrun); the upper 32 bits of a syscall number are
 * ignored.  Prints "pgrp ok", or exits with the number of the check that
 * failed.  Runs natively too: the expectations are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t thread_tid;

static int fails(long r, int err)
{
	return r != -1 || errno != err;
}

static void *thread(void *arg)
{
	(void)arg;
	thread_tid = gettid();
	pause();
	return NULL;
}

static pid_t child(int execs, int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (execs)
			execl("/proc/self/exe", "pgrp", "exec'd", (char *)NULL);
		if (write(fd, "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	return pid;
}

static int reap(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	return waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) ? 0 : 1;
}

int main(int argc, char **argv)
{
	pthread_t th;
	pid_t a, b;
	int p[2];
	char c;

	if (argc > 1 && argv[1][0] == 'e') {	/* the exec'd child: say so, wait */
		if (write(10, "x", 1) != 1)
			return 1;
		pause();
		return 0;
	}
	if (fails(setpgid(0, 999999), EPERM))
		return 2;
	if (pipe(p) || dup2(p[1], 10) != 10)
		return 3;
	a = child(0, 10);
	if (read(p[0], &c, 1) != 1)
		return 4;
	if (setpgid(a, a) || getpgid(a) != a)
		return 5;
	if (setpgid(a, getpgrp()) || getpgid(a) != getpgrp())
		return 6;
	if (fails(setpgid(a, 999999), EPERM))
		return 7;
	b = child(1, 10);
	if (read(p[0], &c, 1) != 1)
		return 8;
	if (fails(setpgid(b, b), EACCES))
		return 9;
	if (reap(a) || reap(b))
		return 10;
	if (pthread_create(&th, NULL, thread, NULL))
		return 11;
	while (!thread_tid)
		sched_yield();
	if (fails(setpgid(thread_tid, 0), EINVAL))
		return 12;
	if (fails(syscall(SYS_clone, CLONE_SIGHAND | SIGCHLD, 0, 0, 0, 0),
		  EINVAL))
		return 13;
	if (getpid() == 1 &&
	    fails(syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0), EINVAL))
		return 14;
	if (syscall(0x100000000L | SYS_getpid) != getpid() ||
	    syscall((long)0xffffffff00000000UL | SYS_getppid) != getppid())
		return 15;
	puts("pgrp ok");
	return 0;
}
