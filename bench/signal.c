// SPDX-License-Identifier: GPL-2.0
/*
 * Signal delivery: a process sends itself SIGUSR1, whose handler runs and
 * returns.  One operation is kill(), the frame built (registers and the
 * whole FPU/vector state), the handler, rt_sigreturn (the state loaded
 * back).  Under umlrun that is two round trips and the runtime's frame,
 * whose FPU image it reads and loads through libuml.
 *
 * Usage: signal [N]	(default 100000)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>

#include "bench.h"

static volatile sig_atomic_t caught;

static void on_usr1(int sig)
{
	(void)sig;
	caught++;
}

int main(int argc, char **argv)
{
	long n = bench_arg(argc, argv, 1, 100000), i;
	struct sigaction sa;
	pid_t self = getpid();
	double t0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	if (sigaction(SIGUSR1, &sa, NULL))
		bench_die("sigaction");
	for (i = 0; i < n / 10; i++)	/* warm up */
		kill(self, SIGUSR1);
	caught = 0;
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		kill(self, SIGUSR1);
	bench_result((bench_now_ns() - t0) / n);
	if (caught != n) {
		errno = 0;
		bench_die("%ld signals handled of %ld", (long)caught, n);
	}
	return 0;
}
