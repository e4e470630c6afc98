// SPDX-License-Identifier: GPL-2.0
/*
 * An idle guest for the host-tax workload: says "up" once it runs, then
 * sleeps until killed.  While it lives, its runtime holds a guest thread
 * (and, on the skas backend, the module has its probe registered).
 *
 * Usage: idle
 */
#define _GNU_SOURCE
#include <unistd.h>

#include "bench.h"

int main(void)
{
	printf("up\n");
	fflush(stdout);
	for (;;)
		pause();
}
