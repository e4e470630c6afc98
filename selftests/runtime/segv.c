// SPDX-License-Identifier: GPL-2.0-only
/*
 * "segv": dereference an unmapped address and die of SIGSEGV.
 * "segv handle": catch the SIGSEGV, check the siginfo and the frame, map
 * the page from the handler and return to retry the access.
 * "segv altstack": the same on a sigaltstack (SA_ONSTACK).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

static char *page;
static volatile int hits;
static char altstack[65536];
static int use_altstack;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	ucontext_t *u = uc;

	/* The frame must be the kernel's: siginfo and the faulting rip. */
	if (sig != SIGSEGV || si->si_addr != page + 10 || hits++ ||
	    si->si_code != SEGV_ACCERR ||
	    u->uc_mcontext.gregs[REG_TRAPNO] != 14)
		_exit(2);
	if (use_altstack && ((char *)&u < altstack ||
			     (char *)&u >= altstack + sizeof(altstack)))
		_exit(6);
	if (mprotect(page, 4096, PROT_READ | PROT_WRITE) != 0)
		_exit(3);
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 4;
	use_altstack = argc > 1 && strcmp(argv[1], "altstack") == 0;
	if (use_altstack) {
		stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };

		if (sigaltstack(&ss, NULL) != 0)
			return 7;
	}
	if (argc > 1) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_segv;
		sa.sa_flags = SA_SIGINFO | (use_altstack ? SA_ONSTACK : 0);
		sigaction(SIGSEGV, &sa, NULL);
	}
	*(volatile char *)(page + 10) = 42;	/* faults; the handler fixes it */
	if (*(volatile char *)(page + 10) != 42 || hits != 1)
		return 5;
	puts("recovered");
	return 0;
}
