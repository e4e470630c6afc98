// SPDX-License-Identifier: GPL-2.0-only
/*
 * "vsyscall": call the legacy vsyscall page's three entries (gettimeofday,
 * time, getcpu) with a SIGSEGV handler.  Under umlrun each call must be a
 * SIGSEGV at the entry, as a host booted with vsyscall=none gives (the
 * default of Debian's kernels): siginfo and frame as the kernel's, rip at
 * the entry and the return address on the stack.  The handler does the
 * ret itself and the call returns -1; nothing is written to the buffers.
 * A host that emulates vsyscalls (vsyscall=xonly) would instead return
 * its own time here, which is what the runtime must never let through.
 * "vsyscall die": the same call without a handler kills with SIGSEGV.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

/* long vcall(void *a, void *b, uint64_t entry): a tail call to @entry. */
long vcall(void *a, void *b, uint64_t entry);
asm(".text\n"
    ".globl vcall\n"
    ".type vcall, @function\n"
    "vcall:\n"
    "\tjmp *%rdx\n"
    ".size vcall, . - vcall\n");

static const uint64_t entries[] = {
	0xffffffffff600000ULL, 0xffffffffff600400ULL, 0xffffffffff600800ULL,
};
static volatile uint64_t expect;
static volatile int hits;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	greg_t *g = ((ucontext_t *)uc)->uc_mcontext.gregs;
	uint64_t *sp = (uint64_t *)g[REG_RSP];

	if (sig != SIGSEGV || si->si_code != SEGV_MAPERR ||
	    (uint64_t)si->si_addr != expect || (uint64_t)g[REG_RIP] != expect ||
	    g[REG_TRAPNO] != 14 || g[REG_ERR] != 0x15)
		_exit(2);
	hits++;
	/* Return from the vsyscall: ret, with -1 in rax. */
	g[REG_RIP] = sp[0];
	g[REG_RSP] += 8;
	g[REG_RAX] = -1;
}

int main(int argc, char **argv)
{
	unsigned char a[16], b[16], zero[16] = { 0 };
	struct sigaction sa;
	long ret;
	int i;

	if (argc < 2 || strcmp(argv[1], "die") != 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_segv;
		sa.sa_flags = SA_SIGINFO;
		if (sigaction(SIGSEGV, &sa, NULL) != 0)
			return 13;
	}
	for (i = 0; i < 3; i++) {
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		expect = entries[i];
		ret = vcall(a, b, entries[i]);
		if (hits != i + 1) {
			printf("vsyscall %#llx returned %ld without a fault\n",
			       (unsigned long long)entries[i], ret);
			return 14;
		}
		if (ret != -1 || memcmp(a, zero, sizeof(a)) ||
		    memcmp(b, zero, sizeof(b)))
			return 15;
	}
	puts("vsyscall segv ok");
	return 0;
}
