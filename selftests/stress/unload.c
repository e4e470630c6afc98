// SPDX-License-Identifier: GPL-2.0
/*
 * Unloading under load: rmmod in a loop while guests run is refused
 * cleanly every time and succeeds once they end; insmod/rmmod cycles with
 * guest runs in between.  The module is loaded again at the end of every
 * test (/lib/modules/skas.ko in the VM), since later tests need it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "../kselftest_harness.h"
#include "guests.h"

/* Freed objects drop their module references after an RCU grace period. */
static int skas_unload_retry(int *tries)
{
	int ret = -EWOULDBLOCK;

	for (*tries = 0; *tries < 500 && ret == -EWOULDBLOCK; ++*tries) {
		ret = skas_unload();
		if (ret == -EWOULDBLOCK)
			usleep(10000);
	}
	return ret;
}

static bool skas_loaded(void)
{
	struct stat st;

	return stat("/sys/module/skas", &st) == 0;
}

#define NRUN 8

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
		if (r != SKAS_EXIT_SYSCALL) {
			l->err = r;
			break;
		}
		l->trips++;
	}
	return NULL;
}

/* Runs in the test's own teardown order: load it back whatever happened. */
static void ensure_loaded(struct __test_metadata *_metadata)
{
	int ret = skas_load();

	EXPECT_TRUE(ret == 0 || ret == -EEXIST) TH_LOG("reload: %d", ret);
	EXPECT_TRUE(skas_loaded());
}

TEST_F_TIMEOUT(stress, rmmod_refused_while_guests_run, 600)
{
	static struct looper l[NRUN];
	long secs = stress_scale(3, 30), refused = 0, trips = 0;
	atomic_bool stop = false;
	double end;
	int i, ret, tries;

	for (i = 0; i < NRUN; i++) {
		ASSERT_EQ(0, stress_guest_start(&l[i].g, getpid_loop,
						 sizeof(getpid_loop)));
		l[i].stop = &stop;
		ASSERT_EQ(0, pthread_create(&l[i].th, NULL, loop_main, &l[i]));
	}
	end = stress_now() + secs;
	while (stress_now() < end) {
		ret = skas_unload();
		if (ret != -EWOULDBLOCK) {
			/* Gone under running guests: the worst outcome. */
			EXPECT_EQ(-EWOULDBLOCK, ret);
			break;
		}
		refused++;
		usleep(1000);
	}
	atomic_store(&stop, true);
	for (i = 0; i < NRUN; i++) {
		pthread_join(l[i].th, NULL);
		EXPECT_EQ(0, l[i].err) TH_LOG("guest %d", i);
		EXPECT_LT(0, l[i].trips) TH_LOG("guest %d", i);
		trips += l[i].trips;
		skas_guest_stop(&l[i].g);
	}
	EXPECT_TRUE(skas_loaded());
	ret = skas_unload_retry(&tries);
	EXPECT_EQ(0, ret) TH_LOG("unload after the guests: %d", ret);
	EXPECT_FALSE(skas_loaded());
	ensure_loaded(_metadata);
	ksft_print_msg("%ld rmmod attempts refused during %lds of %d guests (%ld round trips); unloaded after %d tries\n",
		       refused, secs, NRUN, trips, tries);
	stress_report("rmmod_refused", refused);
	stress_report("round_trips", trips);
}

TEST_F_TIMEOUT(stress, insmod_rmmod_cycles_with_guest_runs, 900)
{
	long cycles = stress_scale(5, 100);
	struct stress_rng r;
	struct skas_guest g;
	int i, j, n, ret, tries;

	stress_rng_init(&r, 5);
	for (i = 0; i < cycles; i++) {
		ret = skas_load();
		ASSERT_TRUE(ret == 0 || ret == -EEXIST) TH_LOG("cycle %d", i);
		ret = stress_guest_start(&g, getpid_loop, sizeof(getpid_loop));
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: start %d", i, ret);
		n = 1 + stress_below(&r, 200);
		for (j = 0; j < n; j++)
			ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&g));
		/* Sometimes the stub dies first, sometimes with the fds. */
		if (stress_below(&r, 2)) {
			kill(g.pid, SIGKILL);
			ASSERT_EQ(SKAS_EXIT_EXITED, skas_run(&g));
		}
		skas_guest_stop(&g);
		ret = skas_unload_retry(&tries);
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: unload %d", i, ret);
	}
	ensure_loaded(_metadata);
	ksft_print_msg("%ld insmod/rmmod cycles with guest runs\n", cycles);
	stress_report("module_cycles", cycles);
}

TEST_HARNESS_MAIN
