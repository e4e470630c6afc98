// SPDX-License-Identifier: GPL-2.0-only
/*
 * "segv": dereference an unmapped address and die of SIGSEGV.
 * "segv handle": catch the SIGSEGV, check the siginfo and the frame, map
 * the page from the handler and return to retry the access.
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

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	ucontext_t *u = uc;

	/* The frame must be the kernel's: siginfo and the faulting rip. */
	if (sig != SIGSEGV || si->si_addr != page + 10 || hits++ ||
	    si->si_code != SEGV_ACCERR ||
	    u->uc_mcontext.gregs[REG_TRAPNO] != 14)
		_exit(2);
	if (mprotect(page, 4096, PROT_READ | PROT_WRITE) != 0)
		_exit(3);
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 4;
	if (argc > 1 && strcmp(argv[1], "handle") == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_segv;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
	}
	*(volatile char *)(page + 10) = 42;	/* faults; the handler fixes it */
	if (*(volatile char *)(page + 10) != 42 || hits != 1)
		return 5;
	puts("recovered");
	return 0;
}
