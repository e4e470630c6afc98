// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime fuzzer's findings (Documentation/stress.rst, "The runtime
 * fuzzer"), one deterministic call each, with the kernel's answer.  Most
 * were undefined behaviour in umlrun that only the ASan+UBSan build shows
 * (selftests/runtime/sanitized.sh runs this program under it); the
 * answers are checked on every build.  Runs natively too.
 * Prints "edges ok", or the call that went wrong and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int bad;

static void expect(const char *what, long r, int err)
{
	if (r == -1 && errno == err)
		return;
	printf("%s: %ld (%s), wanted %s\n", what, r,
	       r < 0 ? strerror(errno) : "no error", strerror(err));
	bad = 1;
}

int main(void)
{
	/* -INT_MIN overflowed umlrun's process-group match. */
	expect("kill(INT_MIN, 0)", syscall(SYS_kill, INT_MIN, 0), ESRCH);
	expect("kill(INT_MIN, SIGKILL)", syscall(SYS_kill, INT_MIN, SIGKILL),
	       ESRCH);
	if (!bad)
		puts("edges ok");
	return bad;
}
