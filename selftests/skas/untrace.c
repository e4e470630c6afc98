// SPDX-License-Identifier: GPL-2.0
/*
 * The host-tax opt-in (module parameter untrace_hosts): with it on and
 * skas's probe the only syscall probe, the module clears the syscall
 * tracepoint work of the host's other tasks; guests keep trapping, a guest
 * whose stub came from an untraced task included; a syscall tracer that
 * appears gets every task's syscalls again and the module untraces once
 * it is gone; turning the parameter off restores; bad values are refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

#define CODE	0x100000UL
#define DATA	0x200000UL
#define PARAM	"/sys/module/skas/parameters/untrace_hosts"
#define TRACING	"/sys/kernel/tracing"
/* A number no kernel has: its sys_enter event is ours alone. */
#define MARKER_NR	30583

static const unsigned char sc_ud2[] = { 0x0f, 0x05, 0x0f, 0x0b };

/* Write @val to the file at @path: 0 or -errno. */
static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* Wait up to 5 s for hosts_untraced to be zero (@zero) or not. */
static long wait_untraced(bool zero)
{
	long n = skas_param("hosts_untraced");

	for (int i = 0; i < 500 && n >= 0 && (n == 0) != zero; i++) {
		usleep(10000);
		n = skas_param("hosts_untraced");
	}
	return n;
}

/* Run getpid in a fresh guest: 0 if it trapped as a syscall. */
static int guest_traps(void)
{
	struct skas_guest g;
	int ret = -1;

	if (skas_guest_start(&g))
		goto out;
	if (skas_map_anon(g.as, CODE, 4096, PROT_READ | PROT_EXEC) != 1 ||
	    skas_rw(g.as, true, CODE, (void *)sc_ud2, 4) != 4)
		goto out;
	skas_set_call(g.run, CODE, DATA, SYS_getpid, 0, 0, 0, 0);
	if (skas_run(&g) == SKAS_EXIT_SYSCALL &&
	    g.run->exit.syscall.nr == SYS_getpid)
		ret = 0;
out:
	skas_guest_stop(&g);
	return ret;
}

FIXTURE(untrace) {
	struct skas_guest idle;	/* keeps the probes registered */
};

FIXTURE_SETUP(untrace)
{
	ASSERT_EQ(0, skas_param("hosts_untraced"));
	ASSERT_EQ(0, skas_guest_start(&self->idle));
	ASSERT_EQ(0, write_file(PARAM, "1"));
	ASSERT_LT(0, wait_untraced(false));
}

FIXTURE_TEARDOWN(untrace)
{
	EXPECT_EQ(0, write_file(PARAM, "0"));
	skas_guest_stop(&self->idle);
	EXPECT_EQ(0, wait_untraced(true));
}

/* A stub forked from an untraced task traps once it is a guest. */
TEST_F(untrace, guests_trap)
{
	ASSERT_EQ(0, guest_traps());
	ASSERT_EQ(0, guest_traps());
	/* A guest of its own per fork: the children were untraced too. */
	for (int i = 0; i < 3; i++) {
		pid_t pid = fork();
		int status;

		ASSERT_LE(0, pid);
		if (!pid)
			_exit(guest_traps() ? 1 : 0);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_EQ(0, status);
	}
	EXPECT_LT(0, skas_param("hosts_untraced"));
}

/*
 * ftrace's raw_syscalls:sys_enter is a second probe: every task is traced
 * again (a host task's syscall is in the trace), and untraced once the
 * event is off.
 */
TEST_F(untrace, tracer_restores)
{
	char buf[4096], want[64];
	bool found = false;
	int fd, status;
	pid_t pid;
	ssize_t n;

	if (access(TRACING "/events", F_OK))
		ASSERT_EQ(0, mount("tracefs", TRACING, "tracefs", 0, NULL));
	ASSERT_EQ(0, write_file(TRACING "/trace", ""));
	ASSERT_EQ(0, write_file(TRACING "/events/raw_syscalls/sys_enter/filter",
				"id == 30583"));
	ASSERT_EQ(0, write_file(TRACING "/events/raw_syscalls/sys_enter/enable",
				"1"));
	EXPECT_EQ(0, wait_untraced(true));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		syscall(MARKER_NR, 0, 0, 0);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	EXPECT_EQ(0, write_file(TRACING "/events/raw_syscalls/sys_enter/enable",
				"0"));
	EXPECT_EQ(0, write_file(TRACING "/events/raw_syscalls/sys_enter/filter",
				"0"));
	fd = open(TRACING "/trace", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(want, sizeof(want), "-%d ", pid);
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		if (strstr(buf, want) && strstr(buf, "NR 30583"))
			found = true;
	}
	close(fd);
	EXPECT_TRUE(found);
	/* The tracer is gone: untraced again. */
	EXPECT_LT(0, wait_untraced(false));
	EXPECT_EQ(0, guest_traps());
}

/* Off: every task traced again at once. */
TEST_F(untrace, off_restores)
{
	ASSERT_EQ(0, write_file(PARAM, "0"));
	ASSERT_EQ(0, wait_untraced(true));
	ASSERT_EQ(0, write_file(PARAM, "1"));
	ASSERT_LT(0, wait_untraced(false));
}

/* Bad values change nothing. */
TEST(bad_values)
{
	static const char *const bad[] = { "maybe", "2", "-1", "x" };
	unsigned int i;
	char buf[8];

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, write_file(PARAM, bad[i])) TH_LOG("%s", bad[i]);
	ASSERT_EQ(0, skas_param_read("untrace_hosts", buf, sizeof(buf)));
	EXPECT_EQ('N', buf[0]);
	EXPECT_EQ(0, skas_param("hosts_untraced"));
}

TEST_HARNESS_MAIN
