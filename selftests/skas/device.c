// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/skas: the device node, the API version, capabilities, and the
 * errors for unknown commands and bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

TEST(device_node_is_0660_root)
{
	struct stat st;

	ASSERT_EQ(0, stat(SKAS_DEV, &st)) TH_LOG("stat %s: %s", SKAS_DEV,
						  strerror(errno));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(10U, major(st.st_rdev));	/* MISC_MAJOR */
	EXPECT_EQ(249U, minor(st.st_rdev));	/* fixed: devname:skas autoload */
	EXPECT_EQ(0660U, st.st_mode & 07777);
	EXPECT_EQ(0U, st.st_uid);
	EXPECT_EQ(0U, st.st_gid);
}

/* MODULE_VERSION is the project's, as libuml's uml_version() is. */
TEST(module_version_is_the_project_version)
{
	char v[64] = "";
	FILE *f = fopen("/sys/module/skas/version", "r");

	ASSERT_NE(NULL, f) TH_LOG("/sys/module/skas/version: %s", strerror(errno));
	ASSERT_NE(NULL, fgets(v, sizeof(v), f));
	fclose(f);
	EXPECT_STREQ(SKAS_VERSION "\n", v);
}

TEST(device_opens)
{
	int fd = skas_open_dev();

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", SKAS_DEV, strerror(errno));
	EXPECT_EQ(0, close(fd));
}

TEST(api_version_is_frozen)
{
	int fd = skas_open_dev();

	ASSERT_LE(0, fd);
	EXPECT_EQ(SKAS_API_VERSION, ioctl(fd, SKAS_GET_API_VERSION, 0));
	EXPECT_EQ(1, SKAS_API_VERSION);
	close(fd);
}

TEST(check_extension_known_and_unknown)
{
	unsigned long known[] = {
		SKAS_CAP_ASPACE, SKAS_CAP_THREAD, SKAS_CAP_MEM, SKAS_CAP_CLONE,
		SKAS_CAP_RESET, SKAS_CAP_CLONE_THREAD, SKAS_CAP_POLICY,
		SKAS_CAP_INSTALL_FD, SKAS_CAP_POLICY_NATIVE,
		SKAS_CAP_SIGNAL_INTERRUPT, SKAS_CAP_SIGSYS, SKAS_CAP_END_CAUSE,
		SKAS_CAP_RUN_MEM, SKAS_CAP_FD_MARK, SKAS_CAP_SPIN,
		SKAS_CAP_YIELD,
	};
	unsigned long unknown[] = { 0, 19, 0x7fffffff, 0x80000000UL, ~0UL };
	unsigned int i;
	int fd = skas_open_dev();

	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		unsigned long cap = known[i];

		EXPECT_LT(0, ioctl(fd, SKAS_CHECK_EXTENSION, cap))
			TH_LOG("cap %lu", cap);
	}
	for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		unsigned long cap = unknown[i];

		EXPECT_EQ(0, ioctl(fd, SKAS_CHECK_EXTENSION, cap))
			TH_LOG("cap %#lx", cap);
	}
	close(fd);
}

TEST(unknown_ioctl_ENOTTY)
{
	unsigned long cmds[] = {
		_IO(SKASIO, 0xff), _IO('x', 0x01), _IOR(SKASIO, 0x00, int),
		_IOW(SKASIO, 0x02, int), 0, ~0U,
	};
	unsigned int i;
	int fd = skas_open_dev();
	int as;

	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		unsigned long cmd = cmds[i];

		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, cmd, 0)) TH_LOG("cmd %#lx", cmd);
		EXPECT_EQ(ENOTTY, errno) TH_LOG("cmd %#lx", cmd);
	}
	/* /dev/skas commands are not address-space commands. */
	as = skas_create_aspace(fd);
	ASSERT_LE(0, as);
	errno = 0;
	EXPECT_EQ(-1, ioctl(as, SKAS_GET_API_VERSION, 0));
	EXPECT_EQ(ENOTTY, errno);
	close(as);
	close(fd);
}

TEST(create_aspace_bad_pointer_EFAULT)
{
	void *bad[] = { NULL, (void *)1, SKAS_BAD_PTR, (void *)~0UL };
	unsigned int i;
	int fd = skas_open_dev();

	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		void *p = bad[i];

		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, SKAS_CREATE_ASPACE, p));
		EXPECT_EQ(EFAULT, errno) TH_LOG("pointer %p", p);
	}
	close(fd);
}

TEST(create_aspace_bad_args_EINVAL)
{
	struct skas_create_aspace args;
	unsigned int i;
	int fd = skas_open_dev();

	ASSERT_LE(0, fd);
	for (i = 0; i < 5; i++) {
		memset(&args, 0, sizeof(args));
		args.size = sizeof(args);
		switch (i) {
		case 0: args.size = 0; break;
		case 1: args.size = sizeof(args) + 8; break;
		case 2: args.flags = 1; break;
		case 3: args.flags = 0x80000000U; break;
		case 4: args.reserved[2] = 1; break;
		}
		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, SKAS_CREATE_ASPACE, &args))
			TH_LOG("case %u", i);
		EXPECT_EQ(EINVAL, errno) TH_LOG("case %u", i);
	}
	close(fd);
}

TEST(create_aspace_returns_cloexec_fd)
{
	int fd = skas_open_dev();
	int as;

	ASSERT_LE(0, fd);
	as = skas_create_aspace(fd);
	ASSERT_LE(0, as) TH_LOG("create: %s", strerror(-as));
	EXPECT_EQ(FD_CLOEXEC, fcntl(as, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(0, close(as));
	close(fd);
}

/* The device is root:root 0660: any other uid is refused. */
TEST(unprivileged_uid_EACCES)
{
	pid_t pid;
	int status;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		if (open(SKAS_DEV, O_RDWR) >= 0)
			_exit(3);
		if (errno != EACCES)
			_exit(4);
		if (open(SKAS_DEV, O_RDONLY) >= 0 || errno != EACCES)
			_exit(5);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("child step %d failed", WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
