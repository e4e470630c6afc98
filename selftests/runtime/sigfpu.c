// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FPU and vector state across a signal, as the kernel keeps it: the
 * frame holds the whole XSAVE image (FP_XSTATE_MAGIC1 and 2), the handler
 * starts in the init state, rt_sigreturn loads the frame's state back
 * (what the handler changed in it included), a frame without the magic
 * restores x87 and SSE only and leaves the rest in the init state, a
 * frame the CPU refuses is a SIGSEGV, and so is a frame too big for the
 * alternate stack.  Also: execve() starts the new program in the init
 * state.  Prints "sigfpu ok" or what differs.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#define MAGIC1	0x46505853U
#define MAGIC2	0x46505845U

static int fails;
static int avx;
static unsigned int mode;
static uint64_t in_handler[2];
static uint32_t mxcsr_in_handler, magic1, magic2;

#define FAIL(...) do { printf(__VA_ARGS__); putchar('\n'); fails++; } while (0)

enum { KEEP, EDIT_XMM1, NO_MAGIC, BAD_MXCSR };

static void handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	unsigned char *fp = (unsigned char *)uc->uc_mcontext.fpregs;
	uint32_t size, m2 = 0, bad = 0xffffffff;

	(void)sig;
	(void)si;
	__asm__ volatile("movq %%xmm0, %0\n\t"
			 "pextrq $1, %%xmm0, %1\n\t"
			 "stmxcsr %2"
			 : "=r"(in_handler[0]), "=r"(in_handler[1]),
			   "=m"(mxcsr_in_handler));
	memcpy(&magic1, fp + 464, 4);
	memcpy(&size, fp + 480, 4);
	if (magic1 == MAGIC1 && size >= 576 && size <= 65536)
		memcpy(&m2, fp + size, 4);
	magic2 = m2;
	/* Clobber the live state: the frame must bring it back. */
	if (avx)
		__asm__ volatile("vpcmpeqd %%ymm0, %%ymm0, %%ymm0" ::: "xmm0");
	else
		__asm__ volatile("pcmpeqd %%xmm0, %%xmm0" ::: "xmm0");
	switch (mode) {
	case EDIT_XMM1:
		memset(fp + 160 + 16, 0x5a, 16);	/* the saved xmm1 */
		break;
	case NO_MAGIC:
		memset(fp + 464, 0, 4);
		break;
	case BAD_MXCSR:
		memcpy(fp + 24, &bad, 4);
		break;
	}
}

/* Is the XSAVE image (CPUID 0xd's size for XCR0) bigger than @n? */
static int frame_bigger_than(uint32_t n)
{
	uint32_t a = 1, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	if (!(c & (1U << 27)))
		return 0;
	a = 0xd;
	c = 0;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return b > n;
}

static int has_avx(void)
{
	uint32_t a = 1, b, c = 0, d, lo, hi;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	if (!(c & (1U << 27)) || !(c & (1U << 28)))	/* OSXSAVE, AVX */
		return 0;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 6) == 6;
}

/*
 * ymm0 = @in (32 bytes), xmm1 = 0x11.., MXCSR = 0x9fc0 (FTZ, DAZ, all
 * masked), kill(self, SIGUSR1) as a raw syscall, then ymm0 (or xmm0),
 * xmm1 and MXCSR into @out, @x1 and @mx: nothing touches them between.
 */
#define ROUND_TRIP(load, store)						\
	__asm__ volatile(load "\n\t"						\
			 "movdqu (%[ones]), %%xmm1\n\t"			\
			 "ldmxcsr %[mxcsr]\n\t"					\
			 "syscall\n\t"						\
			 store "\n\t"						\
			 "movdqu %%xmm1, (%[x1])\n\t"				\
			 "stmxcsr (%[mx])"					\
			 : "+a"((long){ SYS_kill })				\
			 : [in] "r"(in), [out] "r"(out), [x1] "r"(x1),		\
			   [ones] "r"(ones), [mx] "r"(mx),			\
			   [mxcsr] "m"(mxcsr), "D"(pid), "S"(SIGUSR1)		\
			 : "rcx", "r11", "memory", "xmm0", "xmm1")

static void round_trip(const uint64_t in[4], uint64_t out[4], uint64_t x1[2],
		       uint32_t *mx)
{
	static const uint64_t ones[2] = { 0x1111111111111111ULL,
					  0x1111111111111111ULL };
	uint32_t mxcsr = 0x9fc0, saved;
	long pid = getpid();

	__asm__ volatile("stmxcsr %0" : "=m"(saved));
	if (avx)
		ROUND_TRIP("vmovdqu (%[in]), %%ymm0", "vmovdqu %%ymm0, (%[out])");
	else
		ROUND_TRIP("movdqu (%[in]), %%xmm0", "movdqu %%xmm0, (%[out])");
	__asm__ volatile("ldmxcsr %0" : : "m"(saved));
}

int main(int argc, char **argv)
{
	const uint64_t in[4] = { 0x0102030405060708ULL, 0x1112131415161718ULL,
				 0x2122232425262728ULL, 0x3132333435363738ULL };
	uint64_t out[4], x1[2];
	struct sigaction sa;
	uint32_t mx;
	int n = 2, st;
	pid_t pid;

	/* The program execve() started: exit 0 if MXCSR is the default. */
	if (argc > 1 && !strcmp(argv[1], "mxcsr")) {
		__asm__ volatile("stmxcsr %0" : "=m"(mx));
		return mx != 0x1f80;
	}
	avx = has_avx();
	if (avx)
		n = 4;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);

	mode = KEEP;
	round_trip(in, out, x1, &mx);
	if (in_handler[0] || in_handler[1])
		FAIL("handler: xmm0 %#lx %#lx, not the init state",
		     (unsigned long)in_handler[0], (unsigned long)in_handler[1]);
	if (mxcsr_in_handler != 0x1f80)
		FAIL("handler: MXCSR %#x, not 0x1f80", mxcsr_in_handler);
	if (magic1 != MAGIC1 || magic2 != MAGIC2)
		FAIL("frame: magic %#x %#x, not an XSAVE frame", magic1,
		     magic2);
	if (memcmp(in, out, n * 8))
		FAIL("after: %s not restored", avx ? "ymm0" : "xmm0");
	if (x1[0] != 0x1111111111111111ULL)
		FAIL("after: xmm1 %#lx", (unsigned long)x1[0]);
	if (mx != 0x9fc0)
		FAIL("after: MXCSR %#x, not 0x9fc0", mx);

	/* The handler's change to the frame is what the thread gets. */
	mode = EDIT_XMM1;
	round_trip(in, out, x1, &mx);
	if (x1[0] != 0x5a5a5a5a5a5a5a5aULL || x1[1] != 0x5a5a5a5a5a5a5a5aULL)
		FAIL("edited frame: xmm1 %#lx", (unsigned long)x1[0]);
	if (memcmp(in, out, 16))
		FAIL("edited frame: xmm0 not restored");

	/* No magic: FXSAVE only, the upper halves in the init state. */
	mode = NO_MAGIC;
	round_trip(in, out, x1, &mx);
	if (memcmp(in, out, 16))
		FAIL("no magic: xmm0 not restored");
	if (avx && (out[2] || out[3]))
		FAIL("no magic: ymm0's upper half %#lx, not 0",
		     (unsigned long)out[2]);

	/* A frame the CPU refuses: SIGSEGV, as the kernel's sigreturn. */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		mode = BAD_MXCSR;
		round_trip(in, out, x1, &mx);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st) ||
	    WTERMSIG(st) != SIGSEGV)
		FAIL("bad MXCSR in the frame: status %#x, not SIGSEGV", st);

	/*
	 * A MINSIGSTKSZ alternate stack: the frame and an XSAVE image of
	 * more than 1.5 KiB do not fit, and the kernel will not write past
	 * it.  (Without XSAVE images, or on a CPU with a small one, it
	 * fits; then the handler runs, as on the kernel.)
	 */
	pid = fork();
	if (pid == 0) {
		static char small[2048];
		stack_t ss = { .ss_sp = small, .ss_size = sizeof(small) };

		mode = KEEP;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
		if (sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL))
			_exit(2);
		kill(getpid(), SIGUSR1);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid ||
	    (frame_bigger_than(1536) ?
	     !WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV :
	     !WIFEXITED(st) || WEXITSTATUS(st)))
		FAIL("a frame too big for the alternate stack: status %#x", st);

	/* execve(): the new program's MXCSR is the default again. */
	pid = fork();
	if (pid == 0) {
		mx = 0x9fc0;
		__asm__ volatile("ldmxcsr %0" : : "m"(mx));
		execl(argv[0], argv[0], "mxcsr", (char *)NULL);
		_exit(2);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		FAIL("execve: MXCSR not reset (status %#x)", st);

	if (!fails)
		printf("sigfpu ok\n");
	return fails != 0;
}
