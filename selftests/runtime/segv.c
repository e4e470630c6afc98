// SPDX-License-Identifier: GPL-2.0-only
/*
 * "segv": dereference an unmapped address and die of SIGSEGV.
 * "segv handle": catch the SIGSEGV, check the siginfo and the frame, map
 * the page from the handler and return to retry the access.
 * "segv altstack": the same on a sigaltstack (SA_ONSTACK).
 * "segv efault": syscalls given read-only or inaccessible buffers fail with
 * EFAULT, as copy_to_user()/copy_from_user() do, instead of faulting or
 * writing through the protection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
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

static int efault(void)
{
	static const char rodata[4096] __attribute__((aligned(4096))) = "ro";
	char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	if (none == MAP_FAILED)
		return 20;
	if (getrandom((void *)rodata, 8, 0) != -1 || errno != EFAULT)
		return 21;
	if (rodata[0] != 'r' || rodata[2] != 0)
		return 22;
	if (write(1, none, 1) != -1 || errno != EFAULT)
		return 23;
	if (getrandom(none, 8, 0) != -1 || errno != EFAULT)
		return 24;
	puts("efault ok");
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	if (argc > 1 && strcmp(argv[1], "efault") == 0)
		return efault();
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
