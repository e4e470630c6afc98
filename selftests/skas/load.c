// SPDX-License-Identifier: GPL-2.0
/*
 * Loading and unloading skas.ko: repeated cycles are clean, and the module
 * cannot go while an object lives.  The module is loaded again at the end
 * of every test, since the other tests need it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

static int skas_loaded(void)
{
	struct stat st;

	return stat("/sys/module/skas", &st) == 0;
}

/* Make sure the module is loaded; tolerate it being loaded already. */
static int skas_ensure_loaded(void)
{
	int ret = skas_load();

	return ret == -EEXIST ? 0 : ret;
}

FIXTURE(module) {
	int dummy;
};

FIXTURE_SETUP(module)
{
	ASSERT_EQ(0, skas_ensure_loaded());
}

FIXTURE_TEARDOWN(module)
{
	EXPECT_EQ(0, skas_ensure_loaded());
	EXPECT_TRUE(skas_loaded());
}

TEST_F_TIMEOUT(module, load_unload_20_cycles, 120)
{
	int i, fd, as;

	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, skas_unload()) TH_LOG("cycle %d unload", i);
		ASSERT_FALSE(skas_loaded());
		ASSERT_EQ(-ENOENT, skas_unload());
		ASSERT_EQ(0, skas_load()) TH_LOG("cycle %d load", i);
		ASSERT_EQ(-EEXIST, skas_load());
		/* Use it each time, so a cycle is more than insmod/rmmod. */
		fd = skas_open_dev();
		ASSERT_LE(0, fd) TH_LOG("cycle %d open: %s", i,
					strerror(errno));
		ASSERT_EQ(SKAS_API_VERSION, ioctl(fd, SKAS_GET_API_VERSION, 0));
		as = skas_create_aspace(fd);
		ASSERT_LE(0, as);
		close(as);
		close(fd);
	}
}

TEST_F(module, unload_refused_while_device_open)
{
	int fd = skas_open_dev();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EWOULDBLOCK, skas_unload());
	EXPECT_TRUE(skas_loaded());
	close(fd);
}

TEST_F(module, unload_refused_while_aspace_lives)
{
	int fd = skas_open_dev();
	int as;

	ASSERT_LE(0, fd);
	as = skas_create_aspace(fd);
	ASSERT_LE(0, as);
	close(fd);
	EXPECT_EQ(-EWOULDBLOCK, skas_unload());
	EXPECT_TRUE(skas_loaded());
	close(as);
	EXPECT_EQ(0, skas_unload());
	EXPECT_FALSE(skas_loaded());
}

/* With a live guest thread: refused; once it is closed: unloads. */
TEST_F(module, unload_refused_while_guest_lives)
{
	struct skas_guest g;
	int i, ret;

	ASSERT_EQ(0, skas_guest_start(&g));
	EXPECT_EQ(-EWOULDBLOCK, skas_unload());
	skas_guest_stop(&g);
	/* All files are closed: the module goes (exit waits for the rest). */
	for (i = 0, ret = -EWOULDBLOCK; i < 100 && ret == -EWOULDBLOCK; i++) {
		ret = skas_unload();
		if (ret == -EWOULDBLOCK)
			usleep(10000);
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(1, i) TH_LOG("unload needed %d tries", i);
	EXPECT_FALSE(skas_loaded());
}

static void *run_fn(void *arg)
{
	struct skas_guest *g = arg;

	skas_run(g);
	return NULL;
}

/*
 * A guest thread blocked in a NATIVE futex wait: refused; once it is
 * killed and its files closed: unloads.
 */
TEST_F(module, unload_refused_while_guest_waits_natively)
{
	static const unsigned char sc_ud2[] = { 0x0f, 0x05, 0x0f, 0x0b };
	const unsigned long code = 0x100000, data = 0x200000;
	struct skas_policy p;
	struct skas_guest g;
	pthread_t th;
	int i, ret;

	ASSERT_EQ(0, skas_guest_start(&g));
	ASSERT_EQ(1, skas_map_anon(g.as, code, 4096, PROT_READ | PROT_EXEC));
	ASSERT_EQ(1, skas_map_anon(g.as, data, 4096, PROT_READ | PROT_WRITE));
	ASSERT_EQ(4, skas_rw(g.as, true, code, (void *)sc_ud2, 4));
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.nr = SYS_futex;
	p.action = SKAS_POLICY_NATIVE;
	ASSERT_EQ(0, ioctl(g.as, SKAS_SET_POLICY, &p));
	skas_regs_at(&g, code);
	g.run->regs.rax = SYS_futex;
	g.run->regs.rdi = data;
	g.run->regs.rsi = FUTEX_WAIT_PRIVATE;
	ASSERT_EQ(0, pthread_create(&th, NULL, run_fn, &g));
	usleep(200000);
	EXPECT_EQ(-EWOULDBLOCK, skas_unload());
	EXPECT_TRUE(skas_loaded());
	ASSERT_EQ(0, kill(g.pid, SIGKILL));
	pthread_join(th, NULL);
	EXPECT_EQ((unsigned)SKAS_EXIT_EXITED, g.run->exit_reason);
	skas_guest_stop(&g);
	for (i = 0, ret = -EWOULDBLOCK; i < 100 && ret == -EWOULDBLOCK; i++) {
		ret = skas_unload();
		if (ret == -EWOULDBLOCK)
			usleep(10000);
	}
	EXPECT_EQ(0, ret);
	EXPECT_FALSE(skas_loaded());
}

/*
 * Outside signals left queued on a parked guest (stop signals and
 * real-time ones included) do not keep the module: once the guest's files
 * are closed it unloads.
 */
TEST_F(module, unload_after_outside_signals)
{
	union sigval v = { .sival_int = 0 };
	struct skas_guest g;
	int i, ret;

	ASSERT_EQ(0, skas_guest_start(&g));
	ASSERT_EQ(0, kill(g.pid, SIGSTOP));
	ASSERT_EQ(0, kill(g.pid, SIGTERM));
	ASSERT_EQ(0, kill(g.pid, SIGSEGV));
	for (i = 0; i < 50; i++)
		ASSERT_EQ(0, sigqueue(g.pid, SIGRTMIN, v));
	EXPECT_EQ(0, waitpid(g.pid, NULL, WNOHANG));
	EXPECT_EQ(-EWOULDBLOCK, skas_unload());
	skas_guest_stop(&g);
	for (i = 0, ret = -EWOULDBLOCK; i < 100 && ret == -EWOULDBLOCK; i++) {
		ret = skas_unload();
		if (ret == -EWOULDBLOCK)
			usleep(10000);
	}
	EXPECT_EQ(0, ret);
	EXPECT_FALSE(skas_loaded());
}

TEST_HARNESS_MAIN
