/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the workload programs of `make bench`.  Each program is static,
 * runs the same natively and as a guest under umlrun, times itself with
 * CLOCK_MONOTONIC and prints one line the driver parses:
 *
 *	ns/op <float>		the result
 *	n/a <reason>		this path cannot run here (no fake number)
 *
 * and any number of "# ..." comment lines.  Benchmarks never assert a time:
 * the exit status only says whether the workload itself worked.
 */
#ifndef BENCH_H
#define BENCH_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline void bench_result(double ns_per_op)
{
	printf("ns/op %.1f\n", ns_per_op);
	fflush(stdout);
}

/* This path does not work here: say why and exit 0 (nothing failed). */
static inline void __attribute__((noreturn, format(printf, 1, 2)))
bench_na(const char *fmt, ...)
{
	va_list ap;

	fputs("n/a ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(0);
}

/* The workload itself broke: say what and exit 1. */
static inline void __attribute__((noreturn, format(printf, 1, 2)))
bench_die(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	fputs("error ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": %s\n", strerror(err));
	exit(1);
}

/* argv[i] as a positive count, or @def when absent. */
static inline long bench_arg(int argc, char **argv, int i, long def)
{
	long n;

	if (argc <= i)
		return def;
	n = strtol(argv[i], NULL, 0);
	if (n <= 0) {
		fprintf(stderr, "bad count '%s'\n", argv[i]);
		exit(2);
	}
	return n;
}

#endif /* BENCH_H */
