// SPDX-License-Identifier: GPL-2.0
/*
 * FPU and SSE state in a UML guest, which the UML kernel must save and
 * restore itself (signal frames, switches between threads of one mm):
 *
 *  - xmm0-15 loaded with a pattern, a kill() of ourselves from the same
 *    asm block (its handler loads other values into every xmm register),
 *    then read back: the pattern must survive the signal and sigreturn;
 *  - the same with ymm0-15 where the CPU and the kernel have AVX;
 *  - two threads of one process each keep their own pattern in xmm0-15
 *    across sched_yield() calls that switch to the other (same mm), and
 *    across a signal to the thread followed by such a yield, in one asm
 *    block;
 *  - MXCSR and the x87 control word, set differently in two threads,
 *    each kept across switches;
 *  - a floating-point sum computed while SIGALRMs, whose handler does its
 *    own floating-point work, interrupt it: the result is exact.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include "report.h"

#define XMM_CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

/* 16 registers of 32 bytes (ymm); xmm uses the first 16 bytes of each. */
struct regs {
	uint8_t r[16][32];
} __attribute__((aligned(32)));

static void pattern(struct regs *p, unsigned int seed)
{
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 32; j++)
			p->r[i][j] = (uint8_t)(seed * 131 + i * 17 + j * 7 + 1);
}

static int same_xmm(const struct regs *a, const struct regs *b)
{
	for (int i = 0; i < 16; i++)
		if (memcmp(a->r[i], b->r[i], 16))
			return 0;
	return 1;
}

#define LOAD_XMM(i) "movdqu " #i "*32(%[in]), %%xmm" #i "\n\t"
#define STORE_XMM(i) "movdqu %%xmm" #i ", " #i "*32(%[out])\n\t"
#define LOAD_YMM(i) "vmovdqu " #i "*32(%[in]), %%ymm" #i "\n\t"
#define STORE_YMM(i) "vmovdqu %%ymm" #i ", " #i "*32(%[out])\n\t"
#define ALL16(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) \
	m(8) m(9) m(10) m(11) m(12) m(13) m(14) m(15)

/* Load xmm0-15 from *in, make syscall nr(a1, a2), store xmm0-15 to *out. */
static long xmm_around_syscall(const struct regs *in, struct regs *out, long nr, long a1, long a2)
{
	long ret = nr;

	asm volatile(ALL16(LOAD_XMM)
		     "syscall\n\t"
		     ALL16(STORE_XMM)
		     : "+a"(ret)
		     : [in] "r"(in), [out] "r"(out), "D"(a1), "S"(a2)
		     : "rcx", "r11", "memory", XMM_CLOBBERS);
	return ret;
}

__attribute__((target("avx")))
static long ymm_around_syscall(const struct regs *in, struct regs *out, long nr, long a1, long a2)
{
	long ret = nr;

	asm volatile(ALL16(LOAD_YMM)
		     "syscall\n\t"
		     ALL16(STORE_YMM)
		     "vzeroupper\n\t"
		     : "+a"(ret)
		     : [in] "r"(in), [out] "r"(out), "D"(a1), "S"(a2)
		     : "rcx", "r11", "memory", XMM_CLOBBERS);
	return ret;
}

static int have_avx(void)
{
	unsigned int a, b, c, d, lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	if (!(c & bit_AVX) || !(c & bit_OSXSAVE))
		return 0;
	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	(void)hi;
	return (lo & 6) == 6;
}

static struct regs junk;
static volatile int handled;

/* Puts other values into every xmm (and ymm) register. */
static void clobber(int sig)
{
	(void)sig;
	asm volatile(ALL16(LOAD_XMM) : : [in] "r"(&junk) : "memory", XMM_CLOBBERS);
	/* Some double arithmetic of its own, too. */
	volatile double x = 1.5;

	for (int i = 0; i < 100; i++)
		x = x * 1.000001 + 0.25;
	handled++;
}

__attribute__((target("avx")))
static void clobber_ymm(int sig)
{
	asm volatile(ALL16(LOAD_YMM) "vzeroupper\n\t" : : [in] "r"(&junk)
		     : "memory", XMM_CLOBBERS);
	clobber(sig);
}

/*
 * Load xmm0-15 from *in, signal this thread (tgkill: the handler clobbers
 * every xmm register), yield to whatever else runs, store xmm0-15 to *out:
 * the values live in the registers across both, as nothing in between
 * saves them but the kernel.
 */
static void xmm_around_signal_and_yield(const struct regs *in, struct regs *out,
					long pid, long tid, long sig)
{
	long nr = SYS_tgkill;

	asm volatile(ALL16(LOAD_XMM)
		     "syscall\n\t"
		     "mov %[yield], %%eax\n\t"
		     "syscall\n\t"
		     ALL16(STORE_XMM)
		     : "+a"(nr)
		     : [in] "r"(in), [out] "r"(out), "D"(pid), "S"(tid), "d"(sig),
		       [yield] "i"(SYS_sched_yield)
		     : "rcx", "r11", "memory", XMM_CLOBBERS);
}

/* ---- two threads, one mm ---- */

static volatile int bad_both[2];

static void *keep_xmm_signalled(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct regs in, out;

	pattern(&in, 200 + me);
	for (int i = 0; i < 50; i++) {
		xmm_around_signal_and_yield(&in, &out, getpid(), syscall(SYS_gettid), SIGUSR1);
		if (!same_xmm(&in, &out))
			bad_both[me]++;
	}
	return NULL;
}

#define YIELDS 300
static volatile int bad_xmm[2], bad_ctl[2];

static void *keep_xmm(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct regs in, out;

	pattern(&in, 100 + me);
	for (int i = 0; i < YIELDS; i++) {
		xmm_around_syscall(&in, &out, SYS_sched_yield, 0, 0);
		if (!same_xmm(&in, &out))
			bad_xmm[me]++;
	}
	return NULL;
}

static void *keep_control(void *arg)
{
	int me = (int)(intptr_t)arg;
	/* Round toward zero (0x6000) or up (0x4000), exceptions masked. */
	unsigned int mxcsr = me ? 0x1f80 | 0x6000 : 0x1f80 | 0x4000, got;
	/* x87: round down (0x400) or up (0x800), masked, double precision. */
	unsigned short cw = me ? 0x027f | 0x400 : 0x027f | 0x800, gotcw;

	asm volatile("ldmxcsr %0" : : "m"(mxcsr));
	asm volatile("fldcw %0" : : "m"(cw));
	for (int i = 0; i < YIELDS; i++) {
		syscall(SYS_sched_yield);
		asm volatile("stmxcsr %0" : "=m"(got));
		asm volatile("fnstcw %0" : "=m"(gotcw));
		if ((got & ~0x3fu) != (mxcsr & ~0x3fu) || gotcw != cw)
			bad_ctl[me]++;
	}
	return NULL;
}

static double series(int n)
{
	double s = 0;

	for (int i = 1; i <= n; i++)
		s += 1.0 / ((double)i * i);
	return s;
}

int main(void)
{
	struct regs in, out;
	struct sigaction sa;
	pthread_t t[2];

	pattern(&junk, 0xee);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = clobber;
	sigaction(SIGUSR1, &sa, NULL);

	/* xmm across a signal: 20 rounds, each a new pattern. */
	int bad = 0;

	for (int i = 0; i < 20; i++) {
		pattern(&in, i);
		memset(&out, 0, sizeof(out));
		xmm_around_syscall(&in, &out, SYS_kill, getpid(), SIGUSR1);
		bad += !same_xmm(&in, &out);
	}
	result("xmm0-15 kept across a signal", bad == 0 && handled == 20,
	       "%d of 20 rounds lost values, %d handled", bad, handled);

	if (have_avx()) {
		sa.sa_handler = clobber_ymm;
		sigaction(SIGUSR1, &sa, NULL);
		bad = 0;
		for (int i = 0; i < 20; i++) {
			pattern(&in, 50 + i);
			memset(&out, 0, sizeof(out));
			ymm_around_syscall(&in, &out, SYS_kill, getpid(), SIGUSR1);
			bad += memcmp(&in, &out, sizeof(in)) != 0;
		}
		result("ymm0-15 kept across a signal", bad == 0, "%d of 20 rounds lost values", bad);
	} else {
		/* The same line either way: one machine, one answer. */
		printf("ymm0-15 kept across a signal: no AVX here\n");
	}

	/* Two threads of one process switching on sched_yield. */
	pthread_create(&t[0], NULL, keep_xmm, (void *)0);
	pthread_create(&t[1], NULL, keep_xmm, (void *)1);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	result("xmm0-15 kept across sched_yield to a sibling thread",
	       !bad_xmm[0] && !bad_xmm[1], "%d and %d yields lost values", bad_xmm[0], bad_xmm[1]);

	/* Both at once: a signal, then a yield, in each of two threads. */
	sa.sa_handler = clobber;
	sigaction(SIGUSR1, &sa, NULL);
	handled = 0;
	pthread_create(&t[0], NULL, keep_xmm_signalled, (void *)0);
	pthread_create(&t[1], NULL, keep_xmm_signalled, (void *)1);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	result("xmm0-15 kept across a signal and a yield, two threads",
	       !bad_both[0] && !bad_both[1] && handled == 100,
	       "%d and %d rounds lost values, %d handled", bad_both[0], bad_both[1], handled);

	pthread_create(&t[0], NULL, keep_control, (void *)0);
	pthread_create(&t[1], NULL, keep_control, (void *)1);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	result("MXCSR and x87 control word kept per thread", !bad_ctl[0] && !bad_ctl[1],
	       "%d and %d yields lost them", bad_ctl[0], bad_ctl[1]);

	/* A sum interrupted by SIGALRMs whose handler does FP work. */
	double want = series(2000000), got;

	sa.sa_handler = clobber;
	sigaction(SIGALRM, &sa, NULL);
	handled = 0;
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };

	setitimer(ITIMER_REAL, &it, NULL);
	int rounds = 0;

	do {
		got = series(2000000);
		rounds++;
	} while (got == want && handled < 5 && rounds < 200);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	result("floating-point sum exact across timer signals", got == want && handled >= 5,
	       "got %.17g want %.17g after %d signals", got, want, handled);
	return report_done();
}
