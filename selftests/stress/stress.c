// SPDX-License-Identifier: GPL-2.0
/*
 * Stress on the raw ABI: many guests at once, SIGKILL of the runtime and
 * of guest tasks at random moments, many address spaces, a 1 GiB guest.
 * After each part: no leftover tasks, zombies, fds or module objects
 * (FIXTURE_TEARDOWN in guests.h).  Seeded; the seed is printed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "../kselftest_harness.h"
#include "guests.h"

/* ---- 64 guests in getpid loops at once ------------------------------- */

#define NGUESTS 64

struct looper {
	struct skas_guest g;
	pthread_t th;
	atomic_bool *stop;
	long trips;
	int err;
};

static void *loop_main(void *arg)
{
	struct looper *l = arg;
	int r;

	while (!atomic_load(l->stop)) {
		r = skas_run(&l->g);
		if (r != SKAS_EXIT_SYSCALL || l->g.run->exit.syscall.nr != 39) {
			l->err = r;
			break;
		}
		l->g.run->regs.rax = l->g.pid;
		l->trips++;
	}
	return NULL;
}

TEST_F_TIMEOUT(stress, guests_64_getpid_loops, 600)
{
	static struct looper l[NGUESTS];
	atomic_bool stop = false;
	long secs = stress_scale(4, 60), total = 0, min = -1, max = 0;
	int i, ret, status;

	for (i = 0; i < NGUESTS; i++) {
		ret = stress_guest_start(&l[i].g, getpid_loop,
					 sizeof(getpid_loop));
		ASSERT_EQ(0, ret) TH_LOG("guest %d: %d", i, ret);
		l[i].stop = &stop;
	}
	for (i = 0; i < NGUESTS; i++)
		ASSERT_EQ(0, pthread_create(&l[i].th, NULL, loop_main, &l[i]));
	sleep(secs);
	atomic_store(&stop, true);
	for (i = 0; i < NGUESTS; i++) {
		pthread_join(l[i].th, NULL);
		EXPECT_EQ(0, l[i].err) TH_LOG("guest %d", i);
		EXPECT_LT(0, l[i].trips) TH_LOG("guest %d starved", i);
		total += l[i].trips;
		if (min < 0 || l[i].trips < min)
			min = l[i].trips;
		if (l[i].trips > max)
			max = l[i].trips;
		/* Still alive: nothing killed it under load. */
		EXPECT_EQ(0, waitpid(l[i].g.pid, &status, WNOHANG));
	}
	for (i = 0; i < NGUESTS; i++)
		skas_guest_stop(&l[i].g);
	ksft_print_msg("%d guests, %lds: %ld round trips, per guest min %ld max %ld\n",
		       NGUESTS, secs, total, min, max);
	stress_report("guests_concurrent", NGUESTS);
	stress_report("guest_seconds", NGUESTS * secs);
	stress_report("round_trips", total);
}

/* ---- SIGKILL of the runtime at random moments -------------------------- */

enum { PH_SETUP, PH_RUN, PH_MEM, PH_CLONE, PH_RW, PH_NR };
static const char *const ph_name[PH_NR] = {
	"setup", "run", "mem", "clone", "rw",
};

/* The runtime: random operations on a guest, forever, until killed. */
static void __attribute__((noreturn)) runtime_main(volatile int *phase,
						   uint64_t salt)
{
	static struct skas_mem_op ops[SKAS_MEM_MAX_OPS];
	struct skas_mem_batch b;
	struct stress_rng r;
	struct skas_guest g;
	struct skas_clone c;
	char buf[256];
	int i, n;

	stress_rng_init(&r, salt);
	*phase = PH_SETUP;
	if (stress_guest_start(&g, getpid_loop, sizeof(getpid_loop)))
		_exit(1);
	if (skas_run(&g) != SKAS_EXIT_SYSCALL)	/* stopped: clone works */
		_exit(3);
	for (;;) {
		switch (stress_below(&r, 4)) {
		case 0:
			*phase = PH_RUN;
			n = 1 + stress_below(&r, 20);
			for (i = 0; i < n; i++)
				if (skas_run(&g) != SKAS_EXIT_SYSCALL)
					_exit(2);
			break;
		case 1:
			*phase = PH_MEM;
			n = 1 + stress_below(&r, SKAS_MEM_MAX_OPS);
			memset(ops, 0, sizeof(ops));
			for (i = 0; i < n; i++) {
				ops[i].op = 1 + stress_below(&r, 3);
				ops[i].addr = 0x10000000UL +
					      stress_below(&r, 256) * 4096;
				ops[i].len = (1 + stress_below(&r, 16)) * 4096;
				ops[i].prot = PROT_READ |
					(stress_below(&r, 2) ? PROT_WRITE : 0);
				ops[i].flags = SKAS_MAP_PRIVATE |
					       SKAS_MAP_ANONYMOUS;
				ops[i].fd = -1;
			}
			memset(&b, 0, sizeof(b));
			b.size = sizeof(b);
			b.count = n;
			b.ops = (unsigned long)ops;
			ioctl(g.as, SKAS_MEM, &b);	/* errors are fine */
			break;
		case 2:
			*phase = PH_CLONE;
			memset(&c, 0, sizeof(c));
			c.size = sizeof(c);
			c.flags = stress_below(&r, 2) ? SKAS_CLONE_THREAD : 0;
			if (ioctl(g.thread, SKAS_CLONE, &c) == 0) {
				/* Drop it again at random: or keep it. */
				if (stress_below(&r, 2)) {
					close(c.thread_fd);
					if (c.aspace_fd >= 0)
						close(c.aspace_fd);
				}
			}
			break;
		default:
			*phase = PH_RW;
			skas_rw(g.as, stress_below(&r, 2), DATA, buf,
				stress_below(&r, sizeof(buf)));
			break;
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
}

TEST_F_TIMEOUT(stress, runtime_sigkill_at_random_moments, 900)
{
	long rounds = stress_scale(30, 100);
	long hits[PH_NR] = { 0 };
	volatile int *phase;
	struct stress_rng r;
	int i, status, left, ph;
	pid_t rt;

	phase = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, phase);
	stress_rng_init(&r, 1);
	for (i = 0; i < rounds; i++) {
		*phase = PH_SETUP;
		rt = fork();
		ASSERT_LE(0, rt);
		if (rt == 0)
			runtime_main(phase, 1000 + i);
		/*
		 * Anywhere in the loop once the guest is set up.  (A kill
		 * during setup leaves a guest behind: FINDINGS.md, and the
		 * reproducer runtime_sigkill_before_attach below.)
		 */
		while (*phase == PH_SETUP)
			usleep(1000);
		usleep(stress_below(&r, 30000));
		ASSERT_EQ(0, kill(rt, SIGKILL));
		ph = *phase;
		hits[ph]++;
		ASSERT_EQ(rt, waitpid(rt, &status, 0));
		/* Killed, not an early exit of its own (an ABI error). */
		ASSERT_TRUE(WIFSIGNALED(status))
			TH_LOG("round %d: runtime exited %d", i,
			       WEXITSTATUS(status));
		/* Its stubs and clones were orphaned to us: all must die. */
		left = stress_reap_all(10);
		ASSERT_EQ(0, left) TH_LOG("round %d: %d tasks left after a kill in %s",
					  i, left, ph_name[ph]);
	}
	munmap((void *)phase, 4096);
	ksft_print_msg("%ld kills: setup %ld, run %ld, mem %ld, clone %ld, rw %ld\n",
		       rounds, hits[PH_SETUP], hits[PH_RUN], hits[PH_MEM],
		       hits[PH_CLONE], hits[PH_RW]);
	for (i = 0; i < PH_NR; i++) {
		char key[32];

		snprintf(key, sizeof(key), "runtime_kills_in_%s", ph_name[i]);
		stress_report(key, hits[i]);
	}
	/* Not all in one phase: the kills really land at random moments. */
	EXPECT_LT(0, hits[PH_RUN]);
	EXPECT_LT(0, hits[PH_MEM] + hits[PH_CLONE] + hits[PH_RW]);
}

/*
 * Reproducer (selftests/stress/failing.list, FINDINGS.md 1): the runtime
 * dies after forking its stub, before the stub attaches.  The stub then
 * holds the only reference to the thread; it attaches, the module closes
 * its fds at the first stop, and the guest stays parked for ever: it
 * outlives its runtime, and the module cannot be unloaded.
 */
TEST_F_TIMEOUT(stress, runtime_sigkill_before_attach, 120)
{
	volatile int *forked;
	struct skas_guest g;
	int status, left;
	pid_t rt;

	forked = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, forked);
	*forked = 0;
	rt = fork();
	ASSERT_LE(0, rt);
	if (rt == 0) {
		stress_guest_attach_slow(&g, 200000, forked);
		_exit(1);
	}
	while (!*forked)
		usleep(1000);
	ASSERT_EQ(0, kill(rt, SIGKILL));
	ASSERT_EQ(rt, waitpid(rt, &status, 0));
	left = stress_reap_all(10);
	EXPECT_EQ(0, left) TH_LOG("the stub outlived its runtime");
	munmap((void *)forked, 4096);
}

/* ---- SIGKILL of guest tasks from outside ------------------------------- */

struct killer {
	pid_t pid;
	useconds_t delay;
};

static void *killer_main(void *arg)
{
	struct killer *k = arg;

	usleep(k->delay);
	kill(k->pid, SIGKILL);
	return NULL;
}

TEST_F_TIMEOUT(stress, guest_sigkill_from_outside, 900)
{
	long rounds = stress_scale(30, 100), modes[3] = { 0 };
	struct stress_rng r;
	struct skas_guest g;
	struct killer k;
	pthread_t th;
	int i, ret, status, mode;

	stress_rng_init(&r, 2);
	for (i = 0; i < rounds; i++) {
		/* 0: getpid loop, 1: spinning in user mode, 2: parked */
		mode = stress_below(&r, 3);
		modes[mode]++;
		ret = stress_guest_start(&g, mode == 1 ? spin : getpid_loop,
					 mode == 1 ? sizeof(spin) :
						     sizeof(getpid_loop));
		ASSERT_EQ(0, ret) TH_LOG("round %d: start %d", i, ret);
		k.pid = g.pid;
		k.delay = stress_below(&r, 20000);
		ASSERT_EQ(0, pthread_create(&th, NULL, killer_main, &k));
		if (mode == 2)
			pthread_join(th, NULL);
		for (;;) {
			ret = skas_run(&g);
			if (ret != SKAS_EXIT_SYSCALL)
				break;
			g.run->regs.rax = 1;
		}
		if (mode != 2)
			pthread_join(th, NULL);
		ASSERT_EQ(SKAS_EXIT_EXITED, ret) TH_LOG("round %d mode %d",
							i, mode);
		status = g.run->exit.exited.status;
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			TH_LOG("round %d: status %#x", i, status);
		EXPECT_EQ(-ESRCH, skas_run(&g));
		skas_guest_stop(&g);
	}
	ksft_print_msg("%ld guest kills: in a getpid loop %ld, spinning %ld, parked %ld\n",
		       rounds, modes[0], modes[1], modes[2]);
	stress_report("guest_kills", rounds);
}

/* ---- 1,000 address spaces ---------------------------------------------- */

TEST_F_TIMEOUT(stress, aspaces_1000_created_and_destroyed, 600)
{
	long total = stress_scale(1000, 10000);
	int held[100], nheld = 0, dev, as, t, i, threads = 0;
	struct stress_rng r;

	stress_rng_init(&r, 3);
	dev = skas_open_dev();
	ASSERT_LE(0, dev);
	for (i = 0; i < total; i++) {
		as = skas_create_aspace(dev);
		ASSERT_LE(0, as) TH_LOG("aspace %d: %d", i, as);
		if (stress_below(&r, 4) == 0) {
			t = skas_create_thread(as);
			ASSERT_LE(0, t);
			threads++;
			/* Closing the aspace first: the thread holds it. */
			close(as);
			as = t;
		}
		if (nheld < 100) {
			held[nheld++] = as;
		} else {
			int j = stress_below(&r, 100);

			close(held[j]);
			held[j] = as;
		}
		if (stress_below(&r, 500) == 0)
			while (nheld)
				close(held[--nheld]);
	}
	while (nheld)
		close(held[--nheld]);
	close(dev);
	ksft_print_msg("%ld address spaces (%d with a thread), up to 100 live\n",
		       total, threads);
	stress_report("aspaces_created", total);
}

/* ---- a guest mapping 1 GiB ----------------------------------------------- */

#define BIG	0x40000000UL
#define GIB	(1UL << 30)

/*
 * 1: movb $1,(%rdi); add %rdx,%rdi; cmp %rsi,%rdi; jb 1b
 *    mov $39,%eax; syscall; ud2
 */
static const unsigned char toucher[] = {
	0xc6, 0x07, 0x01, 0x48, 0x01, 0xd7, 0x48, 0x39, 0xf7, 0x72, 0xf5,
	0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x0f, 0x0b,
};

TEST_F_TIMEOUT(stress, guest_maps_1GiB, 600)
{
	unsigned long stride = stress_scale(64 << 10, 4096), off;
	struct stress_rng r;
	struct skas_guest g;
	unsigned char v;
	int i;

	stress_rng_init(&r, 4);
	ASSERT_EQ(0, stress_guest_start(&g, toucher, sizeof(toucher)));
	ASSERT_EQ(1, skas_map_anon(g.as, BIG, GIB, PROT_READ | PROT_WRITE));
	g.run->regs.rdi = BIG;
	g.run->regs.rsi = BIG + GIB;
	g.run->regs.rdx = stride;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&g));
	ASSERT_EQ(39U, g.run->exit.syscall.nr);
	EXPECT_EQ(BIG + GIB, g.run->regs.rdi);
	/* The guest's writes are there, and nothing between them. */
	for (i = 0; i < 64; i++) {
		off = stress_below(&r, GIB / stride) * stride;
		v = 0;
		ASSERT_EQ(1, skas_rw(g.as, false, BIG + off, &v, 1));
		EXPECT_EQ(1, v) TH_LOG("offset %#lx", off);
		if (stride > 1) {
			ASSERT_EQ(1, skas_rw(g.as, false, BIG + off + 1, &v, 1));
			EXPECT_EQ(0, v);
		}
	}
	/* The runtime writes the last byte; then it all goes. */
	v = 7;
	ASSERT_EQ(1, skas_rw(g.as, true, BIG + GIB - 1, &v, 1));
	ASSERT_EQ(1, skas_mem1(g.as, SKAS_MEM_UNMAP, BIG, GIB, 0, 0, -1, 0));
	EXPECT_EQ(-EFAULT, skas_rw(g.as, false, BIG, &v, 1));
	skas_guest_stop(&g);
	stress_report("guest_mib_touched", (GIB / stride) * 4096 >> 20);
}

TEST_HARNESS_MAIN
