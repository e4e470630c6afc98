/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every uml/tests program prints: one line per case, "NAME: ok" or
 * "NAME: FAIL (why)", nothing that differs between two runs (no pid, no
 * time, no address), so that uml/check.sh can compare the output of one
 * UML mode with another's.  The exit status is 1 if a case failed.
 */
#ifndef UML_TESTS_REPORT_H
#define UML_TESTS_REPORT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int report_failed;

static inline void result(const char *name, int good, const char *fmt, ...)
{
	va_list ap;

	if (good) {
		printf("%s: ok\n", name);
	} else {
		report_failed = 1;
		printf("%s: FAIL (", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf(")\n");
	}
	fflush(stdout);
}

static inline int report_done(void)
{
	return report_failed ? 1 : 0;
}

#endif
