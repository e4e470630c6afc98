// SPDX-License-Identifier: GPL-2.0-only
/*
 * execve's arguments, natively and under umlrun: the limits of fs/exec.c
 * (a string of at most MAX_ARG_STRLEN bytes with its NUL; the strings,
 * the file name and a pointer each within a quarter of RLIMIT_STACK, at
 * least ARG_MAX), tens of thousands of arguments, and arrays and strings
 * that cross pages or run into unmapped ones.  Each line is what one
 * execve gave: 0 when the program started with the arguments it was
 * given, else errno's name; busybox.sh compares the output with the
 * native one.
 *
 * Usage: execargs		(the cases)
 *        execargs child WANT	(exec'd by them: exit 0 if argv[2] is WANT)
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "show.h"

#define PAGE		4096
#define MAX_ARG_STRLEN	(32 * PAGE)

static const char *self;

/* Run execve(self, argv, envp) in a child with RLIMIT_STACK @stack. */
static void try(const char *what, char **argv, char **envp, rlim_t stack)
{
	int status = 0, err;
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit rl = { stack, RLIM_INFINITY };

		if (stack && setrlimit(RLIMIT_STACK, &rl) < 0)
			_exit(100);
		execve(self, argv, envp);
		_exit(errno < 100 ? errno : 99);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		printf("%s: the child did not exit (%#x)\n", what, status);
		return;
	}
	err = WEXITSTATUS(status);
	if (err == 0)
		show(what, 0);
	else if (err >= 99)
		printf("%s: child status %d\n", what, err);
	else {
		errno = err;
		show(what, -1);
	}
}

static char *filled(size_t len, char c)
{
	char *s = malloc(len + 1);

	if (!s)
		exit(2);
	memset(s, c, len);
	s[len] = 0;
	return s;
}

/* One string of @len bytes (and its NUL) as argv[2]. */
static void one_string(const char *what, size_t len)
{
	char *s = filled(len, 'a');
	char *argv[] = { (char *)self, "child", s, NULL };
	char *envp[] = { NULL };

	try(what, argv, envp, 0);
	free(s);
}

/*
 * Strings, file name and pointers of exactly @total bytes, with
 * RLIMIT_STACK @stack: argv is self, "child", WANT, then fillers.
 */
static void total(const char *what, size_t total, rlim_t stack)
{
	size_t fixed = 3 * (strlen(self) + 1) + sizeof("child") + 3 * 8;
	size_t rest = total - fixed, nfill = (rest - 9) / 1032, i, last;
	char **argv = calloc(nfill + 5, sizeof(*argv));
	char *envp[] = { NULL };
	char *fill = filled(1023, 'f');

	if (!argv)
		exit(2);
	argv[0] = (char *)self;
	argv[1] = "child";
	argv[2] = (char *)self;
	/* Fillers of 1024 bytes and a pointer each, then the remainder. */
	for (i = 0; i < nfill; i++) {
		argv[3 + i] = fill;
		rest -= 1032;
	}
	last = rest - 9;	/* its NUL and its pointer */
	argv[3 + i] = filled(last, 'g');
	try(what, argv, envp, stack);
	free(argv[3 + i]);
	free(argv);
	free(fill);
}

/* Many small arguments and environment strings. */
static void many(void)
{
	int n = 20000, i;
	char **argv = calloc(n + 4, sizeof(*argv));
	char **envp = calloc(n + 1, sizeof(*envp));

	if (!argv || !envp)
		exit(2);
	argv[0] = (char *)self;
	argv[1] = "child";
	argv[2] = "x";
	for (i = 0; i < n; i++)
		argv[3 + i] = "x";
	try("20000 arguments", argv, NULL, 0);
	for (i = 0; i < n; i++)
		envp[i] = "E=1";
	try("20000 environment strings", argv, envp, 0);
	free(argv);
	free(envp);
}

/* Two pages, the second unmapped: what lies at the boundary. */
static void pages(void)
{
	char *m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *envp[] = { NULL };
	char **v;
	char *s;

	if (m == MAP_FAILED)
		exit(2);
	/* A string that starts 3 bytes before the second page. */
	s = m + PAGE - 3;
	memcpy(s, "abcdef", 7);
	{
		char *argv[] = { (char *)self, "child", "abcdef", NULL };

		argv[2] = s;
		try("a string across pages", argv, envp, 0);
	}
	/* An argv whose second pointer straddles the pages. */
	v = (char **)(m + PAGE - 12);
	{
		char *want[] = { (char *)self, "child", "abcdef", NULL };

		memcpy(v, want, sizeof(want));
		try("an argv pointer across pages", v, envp, 0);
	}
	munmap(m + PAGE, PAGE);
	/* A string with no NUL before the unmapped page. */
	memset(m + PAGE - 16, 'z', 16);
	{
		char *argv[] = { (char *)self, "child", m + PAGE - 16, NULL };

		try("a string into an unmapped page", argv, envp, 0);
	}
	/* An argv with no NULL before the unmapped page. */
	v = (char **)(m + PAGE - 16);
	v[0] = (char *)self;
	v[1] = "child";
	try("an argv into an unmapped page", v, envp, 0);
	try("an envp into an unmapped page", (char *[]){ (char *)self, "child",
		"x", NULL }, v, 0);
	munmap(m, PAGE);
}

static void bad_pointers(void)
{
	char *envp[] = { NULL };
	char *argv[] = { (char *)self, "child", (char *)8, NULL };

	try("argv at address 8", (char **)8, envp, 0);
	try("envp at address 8", (char *[]){ (char *)self, NULL }, (char **)8,
	    0);
	try("a string at address 8", argv, envp, 0);
	argv[2] = (char *)-4096L;
	try("a string at the top of memory", argv, envp, 0);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "child"))
		return argc >= 3 && (strlen(argv[2]) == 0 ||
				     !strcmp(argv[2], argv[0]) ||
				     !strcmp(argv[2], "abcdef") ||
				     !strcmp(argv[2], "x") ||
				     strspn(argv[2], "a") == strlen(argv[2])) ? 0 : 3;
	self = argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	one_string("a string of MAX_ARG_STRLEN - 1", MAX_ARG_STRLEN - 1);
	one_string("a string of MAX_ARG_STRLEN", MAX_ARG_STRLEN);
	/* RLIMIT_STACK 1 MB: a quarter is 256 KB. */
	total("256 KB in all, 1 MB stack", 256 << 10, 1 << 20);
	total("256 KB + 1 in all, 1 MB stack", (256 << 10) + 1, 1 << 20);
	/*
	 * RLIMIT_STACK 64 KB: the quarter's floor is ARG_MAX (128 KB), but
	 * the new stack, which the strings and 8 bytes fill from its top,
	 * grows past one page only within the limit.  Not near its edge: a
	 * program left with little of its stack cannot start, and where the
	 * edge lies varies with the kernel.
	 */
	total("32 KB in all, 64 KB stack", 32 << 10, 64 << 10);
	total("128 KB in all, 64 KB stack", 128 << 10, 64 << 10);
	/* RLIMIT_STACK 256 KB: a quarter is below ARG_MAX. */
	total("128 KB in all, 256 KB stack", 128 << 10, 256 << 10);
	total("128 KB + 1 in all, 256 KB stack", (128 << 10) + 1, 256 << 10);
	/* The default 8 MB: 2 MB. */
	total("1.5 MB in all, 8 MB stack", 3 << 19, 8 << 20);
	total("2 MB + 1 in all, 8 MB stack", (2 << 20) + 1, 8 << 20);
	many();
	pages();
	bad_pointers();
	return 0;
}
