// SPDX-License-Identifier: GPL-2.0-only
/*
 * A fork bomb: fork until fork fails.  Under umlrun --max-procs=N the
 * guest's process limit must stop it with EAGAIN before N processes; then
 * the children are killed and reaped.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int n = 0, reaped = 0;
	pid_t pid;

	for (;;) {
		pid = fork();
		if (pid == 0) {
			pause();
			_exit(0);
		}
		if (pid < 0)
			break;
		if (++n > 10000)
			return 1;	/* unbounded */
	}
	if (errno != EAGAIN)
		return 2;
	signal(SIGTERM, SIG_IGN);	/* the children keep the default */
	kill(0, SIGTERM);
	while (wait(NULL) > 0)
		reaped++;
	if (reaped != n)
		return 3;
	puts("bounded");
	return 0;
}
