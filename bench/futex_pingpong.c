// SPDX-License-Identifier: GPL-2.0
/*
 * Two threads waking each other through one futex word: one operation is
 * a round, A -> B -> A (two FUTEX_WAKEs, two FUTEX_WAITs that sleep).
 *
 * Usage: futex_pingpong threads [N]	two pthreads (natively, or as a
 *					guest under umlrun)
 *        futex_pingpong libuml-trap [N]
 *        futex_pingpong libuml-native [N]
 *
 * The libuml modes are their own minimal runtime on libuml's skas backend:
 * one address space, two guest threads, each driven by its own runtime
 * pthread (umlrun drives all guest threads from one).  With libuml-trap
 * every futex call is a UML_EXIT_SYSCALL that the runtime emulates (the
 * guest word read with uml_mem_read(), sleepers on a condition variable);
 * with libuml-native futex is UML_POLICY_NATIVE and the host runs it in
 * the guest threads' own tasks: no round trip at all.  B, cloned here, is
 * handed to its runtime pthread with uml_thread_release() (uml.h,
 * "Threading").
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "uml.h"

#define NR_FUTEX	202
#define NR_EXIT		60

static long futex(volatile uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

/* ---- two host threads --------------------------------------------------- */

static volatile uint32_t word;
static long rounds;

/* Wait for @mine, then hand the word to the other thread, @n times. */
static void pingpong(uint32_t mine, uint32_t other, long n)
{
	uint32_t v;

	while (n--) {
		while ((v = word) != mine)
			futex(&word, FUTEX_WAIT_PRIVATE, v);
		word = other;
		futex(&word, FUTEX_WAKE_PRIVATE, 1);
	}
}

static void *partner(void *arg)
{
	(void)arg;
	pingpong(1, 0, rounds);
	return NULL;
}

static void run_threads(long n)
{
	pthread_t th;
	double t0;

	rounds = n / 10 + 1 + n;	/* the warm-up, then the timed rounds */
	word = 0;
	if (pthread_create(&th, NULL, partner, NULL))
		bench_die("pthread_create");
	pingpong(0, 1, n / 10 + 1);
	t0 = bench_now_ns();
	pingpong(0, 1, n);
	bench_result((bench_now_ns() - t0) / n);
	pthread_join(th, NULL);
}

/* ---- a libuml guest with two threads ------------------------------------ */

/*
 * The guest: %rbx = the futex word, %r13d = the value that makes it this
 * thread's turn, %r14d = the value it hands over, %r12 = rounds before it
 * reports with a trapped exit (nr 60), after which it goes on.
 * Position independent: copied into the guest as it is.
 */
__asm__(".pushsection .rodata.pp_guest, \"a\"\n"
	".globl pp_guest\n"
	".globl pp_guest_end\n"
	"pp_guest:\n"
	"1:	movl (%rbx), %eax\n"
	"	cmpl %r13d, %eax\n"
	"	je 2f\n"
	"	movq %rbx, %rdi\n"
	"	movl $128, %esi\n"		/* FUTEX_WAIT_PRIVATE */
	"	movl %eax, %edx\n"
	"	xorl %r10d, %r10d\n"
	"	movl $202, %eax\n"
	"	syscall\n"
	"	jmp 1b\n"
	"2:	movl %r14d, (%rbx)\n"
	"	movq %rbx, %rdi\n"
	"	movl $129, %esi\n"		/* FUTEX_WAKE_PRIVATE */
	"	movl $1, %edx\n"
	"	movl $202, %eax\n"
	"	syscall\n"
	"	decq %r12\n"
	"	jnz 1b\n"
	"	movl $60, %eax\n"
	"	syscall\n"
	"	jmp 1b\n"
	"pp_guest_end:\n"
	".popsection\n");
extern const char pp_guest[], pp_guest_end[];

#define GUEST_CODE	0x400000ULL
#define GUEST_WORD	0x500000ULL

struct gthread {
	struct uml_aspace *as;
	struct uml_thread *t;
	pthread_t runner;
	long rounds;		/* per report */
	int reports;		/* exits (nr 60) before the runner stops */
	const char *err;	/* what broke, or NULL */
};

/* The TRAP emulation of the one futex word: a wake bumps the sequence. */
static pthread_mutex_t fx_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fx_cond = PTHREAD_COND_INITIALIZER;
static unsigned long fx_seq;

static long emulate_futex(struct uml_aspace *as, const uint64_t *a)
{
	unsigned long seq;
	uint32_t cur;
	long r = 0;

	pthread_mutex_lock(&fx_lock);
	switch (a[1] & ~FUTEX_PRIVATE_FLAG) {
	case FUTEX_WAIT:
		if (uml_mem_read(as, &cur, a[0], 4) != 4) {
			r = -EFAULT;
		} else if (cur != (uint32_t)a[2]) {
			r = -EAGAIN;
		} else {
			seq = fx_seq;
			while (seq == fx_seq)
				pthread_cond_wait(&fx_cond, &fx_lock);
		}
		break;
	case FUTEX_WAKE:
		fx_seq++;
		pthread_cond_broadcast(&fx_cond);
		r = 1;
		break;
	default:
		r = -ENOSYS;
	}
	pthread_mutex_unlock(&fx_lock);
	return r;
}

/* Drive one guest thread until it has reported @reports times. */
static void *runner(void *arg)
{
	struct gthread *g = arg;
	struct uml_regs *r = uml_thread_regs(g->t);
	struct uml_exit ex;

	while (g->reports > 0) {
		if (uml_thread_run(g->t, &ex)) {
			g->err = "uml_thread_run failed";
			break;
		}
		if (ex.reason == UML_EXIT_INTERRUPTED)
			continue;
		if (ex.reason != UML_EXIT_SYSCALL) {
			g->err = "the guest faulted or died";
			break;
		}
		if (ex.syscall.nr == NR_FUTEX) {
			r->rax = emulate_futex(g->as, ex.syscall.args);
		} else if (ex.syscall.nr == NR_EXIT) {
			g->reports--;
			r->r12 = g->rounds;
			r->rax = 0;
		} else {
			g->err = "unexpected syscall";
			break;
		}
	}
	return NULL;
}

static void guest_setup(struct uml_thread *t,
			uint32_t mine, uint32_t other, long first)
{
	struct uml_regs *r = uml_thread_regs(t);

	r->rip = GUEST_CODE;
	r->rsp = GUEST_WORD + 0x1000;
	r->rbx = GUEST_WORD;
	r->r13 = mine;
	r->r14 = other;
	r->r12 = first;
}

static void run_libuml(long n, int native)
{
	size_t len = pp_guest_end - pp_guest;
	struct gthread a = { .reports = 1 }, b = { .reports = 1 };
	struct uml_host *h;
	double t0, t1;
	int ret;

	/* A runtime bug must cost one cell, not the boot's time budget. */
	alarm(120);
	ret = uml_host_open(&h, UML_BACKEND_SKAS);
	if (ret)
		bench_na("libuml skas backend: %s", uml_strerror(ret));
	if (native && !(uml_host_policies(h) & UML_POLICY_BIT(UML_POLICY_NATIVE)))
		bench_na("skas.ko has no NATIVE tier (SKAS_CAP_POLICY_NATIVE)");
	ret = uml_aspace_create(h, &a.as, &a.t);
	if (!ret)
		ret = uml_aspace_map(a.as, GUEST_CODE, 0x1000,
				     PROT_READ | PROT_EXEC,
				     UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, -1, 0);
	if (!ret)
		ret = uml_aspace_map(a.as, GUEST_WORD, 0x1000,
				     PROT_READ | PROT_WRITE,
				     UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, -1, 0);
	if (!ret && uml_mem_write(a.as, GUEST_CODE, pp_guest, len) != (long)len)
		ret = -EFAULT;
	if (!ret && native)
		ret = uml_aspace_set_policy(a.as, NR_FUTEX, UML_POLICY_NATIVE, 0);
	if (ret)
		bench_na("setting up the guest: %s", uml_strerror(ret));
	ret = uml_thread_clone(a.t, UML_CLONE_THREAD, &b.t, NULL);
	if (ret)
		bench_na("a second guest thread: %s", uml_strerror(ret));
	b.as = a.as;
	/*
	 * A reports after the warm-up and again after n timed rounds; B
	 * makes one round more than A in all (its first report never comes
	 * before A's second), so it sleeps in its last wait at the end.
	 */
	a.rounds = n;
	b.rounds = n / 10 + 1 + n + 1;
	guest_setup(a.t, 0, 1, n / 10 + 1);
	guest_setup(b.t, 1, 0, b.rounds);
	ret = uml_thread_release(b.t);
	if (ret)
		bench_die("uml_thread_release: %s", uml_strerror(ret));
	if (pthread_create(&b.runner, NULL, runner, &b))
		bench_die("pthread_create");
	/* A's runner is this thread: the warm-up, then the timed rounds. */
	runner(&a);
	t0 = bench_now_ns();
	a.reports = 1;
	if (!a.err)
		runner(&a);
	t1 = bench_now_ns();
	if (a.err || b.err)
		bench_die("%s", a.err ? a.err : b.err);
	bench_result((t1 - t0) / n);
	/*
	 * B sleeps in its last wait: end here.  The module kills the guest
	 * tasks when this process's fds go.
	 */
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "threads";
	long n = bench_arg(argc, argv, 2, 100000);

	if (strcmp(mode, "threads") == 0)
		run_threads(n);
	else if (strcmp(mode, "libuml-trap") == 0)
		run_libuml(n, 0);
	else if (strcmp(mode, "libuml-native") == 0)
		run_libuml(n, 1);
	else {
		fprintf(stderr, "usage: futex_pingpong threads|libuml-trap|"
			"libuml-native [N]\n");
		return 2;
	}
	return 0;
}
