// SPDX-License-Identifier: GPL-2.0-only
/*
 * Futexes as the kernel has them: wake counts (FUTEX_WAKE of 0 wakes one),
 * requeue and cmp-requeue, wake-op with each operation and comparison,
 * bitsets, relative, monotonic and realtime timeouts, and the errors of
 * bad words, timeouts, bitsets, clocks and operations.  A waiter count is
 * taken with FUTEX_CMP_REQUEUE of a word onto itself (wake 0, move all),
 * which wakes nobody.  Prints one line per check, so that busybox.sh can
 * compare it with the native run; exits 1 if a check failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint32_t A, B;
static int failed;

static long futex(uint32_t *w, int op, uint32_t val, uintptr_t t,
		  uint32_t *w2, uint32_t val3)
{
	return syscall(SYS_futex, w, op, val, t, w2, val3);
}

static void check(const char *what, long r, long want)
{
	long got = r < 0 ? -errno : r;

	printf("%s: %ld%s\n", what, got, got == want ? "" : " (unexpected)");
	if (got != want)
		failed = 1;
}

/* Waiters on @w, counted without waking any. */
static long waiters(uint32_t *w)
{
	return futex(w, FUTEX_CMP_REQUEUE, 0, INT_MAX, w, *w);
}

static void wait_for(uint32_t *w, long n)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	for (i = 0; i < 20000 && waiters(w) != n; i++)
		nanosleep(&ms, NULL);
}

struct waiter {
	pthread_t th;
	uint32_t *w;
	uint32_t bitset;
	long r;
	int done;
};

static void *wait_thread(void *arg)
{
	struct waiter *x = arg;

	x->r = futex(x->w, FUTEX_WAIT_BITSET, *x->w, 0, NULL, x->bitset);
	__atomic_store_n(&x->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void start(struct waiter *x, uint32_t *w, uint32_t bitset)
{
	x->w = w;
	x->bitset = bitset;
	x->done = 0;
	pthread_create(&x->th, NULL, wait_thread, x);
}

static int joined(struct waiter *x, int n)
{
	int i, ok = 1;

	for (i = 0; i < n; i++) {
		pthread_join(x[i].th, NULL);
		ok &= x[i].r == 0;
	}
	return ok;
}

/* A waiter that keeps main's mask (SIGUSR2 blocked). */
static void *blocked_waiter(void *arg)
{
	struct waiter *x = arg;

	x->r = futex(x->w, FUTEX_WAIT, 0, 0, NULL, 0) < 0 ? -errno : 0;
	__atomic_store_n(&x->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* The waiter of ignored_signal_wake(): SIGUSR2 reaches it, not main. */
static void *unblocked_waiter(void *arg)
{
	struct waiter *x = arg;
	sigset_t usr2;

	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &usr2, NULL);
	x->r = futex(x->w, FUTEX_WAIT, 0, 0, NULL, 0) < 0 ? -errno : 0;
	__atomic_store_n(&x->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * The process on one CPU, so that a thread a signal woke is not run
 * again before the next call of main (under umlrun, on one worker): the
 * window of the cases below, every time.  *@old gets the CPUs it had.
 */
static void one_cpu(cpu_set_t *old)
{
	cpu_set_t one;
	int cpu = 0;

	sched_getaffinity(0, sizeof(*old), old);
	while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, old))
		cpu++;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

/* What the signal cases change, to put back. */
struct usr2_state {
	struct sigaction act;
	sigset_t mask;
	cpu_set_t cpus;
};

/* On one CPU, SIGUSR2 to @handler and blocked in main (its threads too). */
static void usr2_setup(struct usr2_state *s, void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };
	sigset_t usr2;

	A = 0;
	one_cpu(&s->cpus);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigaction(SIGUSR2, &sa, &s->act);
	pthread_sigmask(SIG_BLOCK, &usr2, &s->mask);
}

static void usr2_restore(const struct usr2_state *s)
{
	pthread_sigmask(SIG_SETMASK, &s->mask, NULL);
	sigaction(SIGUSR2, &s->act, NULL);
	sched_setaffinity(0, sizeof(s->cpus), &s->cpus);
}

/*
 * A signal wakes a futex waiter, which ignores it and would wait on; a
 * wake-up right after must still end the wait.  (umlrun once woke only
 * blocked tasks, and the waiter, woken by the signal but not yet run
 * again, missed it and waited for good: glibc's fork lock hung so.)  A
 * SIGUSR2 ignored and blocked in main is queued to the process, and goes
 * to the waiter; the wait then ends by the wake-up (0) or, on a kernel
 * that restarts it first, by the changed word (EAGAIN).
 */
static void ignored_signal_wake(void)
{
	struct timespec ms = { 0, 1000000 };
	struct waiter x = { .w = &A };
	struct usr2_state st;
	int i;

	usr2_setup(&st, SIG_IGN);
	pthread_create(&x.th, NULL, unblocked_waiter, &x);
	wait_for(&A, 1);
	kill(getpid(), SIGUSR2);
	A = 1;
	futex(&A, FUTEX_WAKE, 1, 0, NULL, 0);
	for (i = 0; i < 5000 && !__atomic_load_n(&x.done, __ATOMIC_SEQ_CST); i++)
		nanosleep(&ms, NULL);
	check("a waiter woken beside an ignored signal comes back",
	      __atomic_load_n(&x.done, __ATOMIC_SEQ_CST) &&
	      (x.r == 0 || x.r == -EAGAIN), 1);
	if (x.done)
		pthread_join(x.th, NULL);
	usr2_restore(&st);
}

static void on_usr2(int sig)
{
	(void)sig;
}

/*
 * Two waiters; a signal with a handler wakes the newer, and one wake-up
 * follows at once.  Exactly one of them must return 0: the wake-up may go
 * to either, and the one the signal woke returns 0 (woken, its handler
 * after) or EINTR (interrupted, and then the wake-up is the other's), but
 * it is never spent on a waiter that then reports EINTR.
 */
static void handled_signal_wake(void)
{
	struct timespec ms = { 0, 1000000 };
	struct waiter x[2] = { { .w = &A }, { .w = &A } };
	struct usr2_state st;
	int i, zero;

	usr2_setup(&st, on_usr2);
	/* The older waiter keeps SIGUSR2 blocked; the newer takes it. */
	pthread_create(&x[0].th, NULL, blocked_waiter, &x[0]);
	wait_for(&A, 1);
	pthread_create(&x[1].th, NULL, unblocked_waiter, &x[1]);
	wait_for(&A, 2);
	kill(getpid(), SIGUSR2);
	futex(&A, FUTEX_WAKE, 1, 0, NULL, 0);
	for (i = 0; i < 2000; i++)
		nanosleep(&ms, NULL);	/* a lost wake-up shows as none */
	zero = (__atomic_load_n(&x[0].done, __ATOMIC_SEQ_CST) && !x[0].r) +
	       (__atomic_load_n(&x[1].done, __ATOMIC_SEQ_CST) && !x[1].r);
	check("one wake-up beside a handled signal ends one wait", zero, 1);
	A = 1;
	futex(&A, FUTEX_WAKE, 2, 0, NULL, 0);
	pthread_join(x[0].th, NULL);
	pthread_join(x[1].th, NULL);
	usr2_restore(&st);
}

static void bad_input(void)
{
	struct timespec bad = { 0, 1000000000 }, ms10 = { 0, 10000000 }, ts;
	uint32_t *ro = mmap(NULL, 4096, PROT_READ,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t *odd = (uint32_t *)((char *)&A + 1);

	munmap(gone, 4096);
	check("wait, unaligned", futex(odd, FUTEX_WAIT, 0, 0, NULL, 0), -EINVAL);
	check("wake, unaligned", futex(odd, FUTEX_WAKE, 1, 0, NULL, 0), -EINVAL);
	check("wait, other value", futex(&A, FUTEX_WAIT, 1, 0, NULL, 0), -EAGAIN);
	check("wait, bad timeout", futex(&A, FUTEX_WAIT, 0, (uintptr_t)&bad,
					 NULL, 0), -EINVAL);
	check("wait, timeout unmapped", futex(&A, FUTEX_WAIT, 0,
					      (uintptr_t)gone, NULL, 0), -EFAULT);
	check("wait, word unmapped", futex(gone, FUTEX_WAIT, 0, 0, NULL, 0),
	      -EFAULT);
	check("private wake, word unmapped", futex(gone, FUTEX_WAKE_PRIVATE, 1, 0,
						   NULL, 0), 0);
	check("shared wake, word unmapped", futex(gone, FUTEX_WAKE, 1, 0, NULL, 0),
	      -EFAULT);
	check("wait bitset 0", futex(&A, FUTEX_WAIT_BITSET, 0, 0, NULL, 0),
	      -EINVAL);
	check("wake bitset 0", futex(&A, FUTEX_WAKE_BITSET, 1, 0, NULL, 0),
	      -EINVAL);
	check("wait, realtime clock", futex(&A, FUTEX_WAIT | FUTEX_CLOCK_REALTIME,
					    0, 0, NULL, 0), -ENOSYS);
	check("wake, realtime clock", futex(&A, FUTEX_WAKE | FUTEX_CLOCK_REALTIME,
					    1, 0, NULL, 0), -ENOSYS);
	check("unknown operation", futex(&A, 99, 0, 0, NULL, 0), -ENOSYS);
	check("requeue, negative count", futex(&A, FUTEX_REQUEUE, -1, 1, &B, 0),
	      -EINVAL);
	check("requeue, unaligned target", futex(&A, FUTEX_REQUEUE, 1, 1,
						 (uint32_t *)((char *)&B + 2), 0),
	      -EINVAL);
	check("cmp_requeue, other value", futex(&A, FUTEX_CMP_REQUEUE, 1, 1,
						&B, 5), -EAGAIN);
	B = 3;
	check("wake_op add, nobody waits", futex(&A, FUTEX_WAKE_OP, 1, 1, &B,
						 FUTEX_OP(FUTEX_OP_ADD, 5,
							  FUTEX_OP_CMP_EQ, 3)), 0);
	check("wake_op's word after add", B, 8);
	check("wake_op, unknown op", futex(&A, FUTEX_WAKE_OP, 1, 1, &B,
					   FUTEX_OP(7, 1, FUTEX_OP_CMP_EQ, 0)),
	      -ENOSYS);
	check("wake_op, unknown comparison", futex(&A, FUTEX_WAKE_OP, 1, 1, &B,
						   FUTEX_OP(FUTEX_OP_OR, 1, 9, 0)),
	      -ENOSYS);
	check("unknown comparison still applies the op", B, 9);
	check("wake_op, shift", futex(&A, FUTEX_WAKE_OP, 1, 1, &B,
				      FUTEX_OP((FUTEX_OP_ANDN | 8), 3,
					       FUTEX_OP_CMP_GT, 0)), 0);
	check("andn of 1 << 3", B, 1);
	check("wake_op, read-only word", futex(&A, FUTEX_WAKE_OP, 1, 1, ro,
					       FUTEX_OP(FUTEX_OP_SET, 1,
							FUTEX_OP_CMP_EQ, 0)),
	      -EFAULT);
	check("wait, relative timeout", futex(&A, FUTEX_WAIT, 0, (uintptr_t)&ms10,
					      NULL, 0), -ETIMEDOUT);
	ts = (struct timespec){ 1, 0 };
	check("wait_bitset, monotonic deadline past",
	      futex(&A, FUTEX_WAIT_BITSET, 0, (uintptr_t)&ts, NULL, ~0u),
	      -ETIMEDOUT);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 10000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	check("wait_bitset, realtime deadline",
	      futex(&A, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 0,
		    (uintptr_t)&ts, NULL, ~0u), -ETIMEDOUT);
	munmap(ro, 4096);
}

int main(void)
{
	struct waiter x[3];
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	bad_input();

	A = B = 0;
	for (i = 0; i < 3; i++)
		start(&x[i], &A, ~0u);
	wait_for(&A, 3);
	check("three waiters", waiters(&A), 3);
	check("requeue: wake 1, move 1", futex(&A, FUTEX_REQUEUE, 1, 1, &B, 0), 2);
	wait_for(&A, 1);
	check("left on the first word", waiters(&A), 1);
	check("moved to the second word", waiters(&B), 1);
	check("wake the moved one", futex(&B, FUTEX_WAKE, 10, 0, NULL, 0), 1);
	check("wake 0 wakes one", futex(&A, FUTEX_WAKE, 0, 0, NULL, 0), 1);
	check("all woken with 0", joined(x, 3), 1);

	start(&x[0], &A, 1);
	start(&x[1], &A, 2);
	wait_for(&A, 2);
	check("wake bitset 2", futex(&A, FUTEX_WAKE_BITSET, 10, 0, NULL, 2), 1);
	pthread_join(x[1].th, NULL);
	check("the bitset-2 waiter woke, the other did not",
	      x[1].done * 2 + __atomic_load_n(&x[0].done, __ATOMIC_SEQ_CST), 2);
	check("wake bitset 1", futex(&A, FUTEX_WAKE_BITSET, 10, 0, NULL, 1), 1);
	pthread_join(x[0].th, NULL);

	start(&x[0], &A, ~0u);
	start(&x[1], &B, ~0u);
	wait_for(&A, 1);
	wait_for(&B, 1);
	check("wake_op: both words", futex(&A, FUTEX_WAKE_OP, 1, 1, &B,
					   FUTEX_OP(FUTEX_OP_SET, 7,
						    FUTEX_OP_CMP_EQ, 0)), 2);
	check("wake_op set", B, 7);
	check("woken by wake_op", joined(x, 2), 1);

	B = 0;
	start(&x[0], &A, ~0u);
	start(&x[1], &A, ~0u);
	wait_for(&A, 2);
	check("cmp_requeue: wake 0, move all", futex(&A, FUTEX_CMP_REQUEUE, 0,
						     INT_MAX, &B, 0), 2);
	check("all moved", waiters(&B), 2);
	check("wake all moved", futex(&B, FUTEX_WAKE, INT_MAX, 0, NULL, 0), 2);
	check("woken after cmp_requeue", joined(x, 2), 1);
	ignored_signal_wake();
	handled_signal_wake();
	puts(failed ? "futex FAILED" : "futex ok");
	return failed;
}
