// SPDX-License-Identifier: GPL-2.0
/*
 * The program the stress suite runs as a guest under guest-runtime/umlrun
 * (static, so that umlrun can load it).
 *
 *   guest loop SECS	prints "up", waits for one byte on stdin (the
 *			test's "go", so that every guest starts together),
 *			then calls getpid in a loop for SECS seconds and
 *			prints "trips N".  Exits 1 if getpid ever changes.
 *   guest forkbomb	forks until fork fails, which must be EAGAIN (the
 *			runtime's --max-procs), prints "forked N", then
 *			kills and reaps every child and prints "reaped N".
 *   guest forkhold	forks until EAGAIN, prints "forked N", and waits
 *			there to be killed with its children.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int loop(double secs)
{
	long pid = syscall(SYS_getpid), trips = 0, i;
	double end;
	char go;

	printf("up\n");
	fflush(stdout);
	if (read(0, &go, 1) != 1)
		return 2;
	end = now() + secs;
	do {
		for (i = 0; i < 16; i++)
			if (syscall(SYS_getpid) != pid)
				return 1;
		trips += 16;
	} while (now() < end);
	printf("trips %ld\n", trips);
	return 0;
}

static int forkbomb(int hold)
{
	int n = 0, reaped = 0;
	pid_t pid;

	for (;;) {
		pid = fork();
		if (pid == 0) {
			for (;;)
				pause();
		}
		if (pid < 0)
			break;
		if (++n > 100000)
			return 1;	/* unbounded */
	}
	if (errno != EAGAIN)
		return 2;
	printf("forked %d\n", n);
	fflush(stdout);
	if (hold)
		for (;;)
			pause();
	signal(SIGTERM, SIG_IGN);	/* the children keep the default */
	kill(0, SIGTERM);
	while (wait(NULL) > 0)
		reaped++;
	printf("reaped %d\n", reaped);
	return reaped == n ? 0 : 3;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "loop"))
		return loop(atof(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "forkbomb"))
		return forkbomb(0);
	if (argc == 2 && !strcmp(argv[1], "forkhold"))
		return forkbomb(1);
	fprintf(stderr, "usage: guest loop SECS | forkbomb | forkhold\n");
	return 2;
}
