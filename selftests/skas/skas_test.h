/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the skas selftests.
 */
#ifndef SKAS_TEST_H
#define SKAS_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/skas.h>

#define SKAS_DEV	"/dev/skas"
#define SKAS_MODULE	"/lib/modules/skas.ko"

/* An address that is never mapped in user space: a kernel address. */
#define SKAS_BAD_PTR	((void *)0xffff800000000000UL)

static inline int skas_open_dev(void)
{
	return open(SKAS_DEV, O_RDWR | O_CLOEXEC);
}

/* SKAS_CREATE_ASPACE with a well-formed argument; -errno on failure. */
static inline int skas_create_aspace(int dev)
{
	struct skas_create_aspace args;
	int fd;

	memset(&args, 0, sizeof(args));
	args.size = sizeof(args);
	fd = ioctl(dev, SKAS_CREATE_ASPACE, &args);
	return fd < 0 ? -errno : fd;
}

#endif /* SKAS_TEST_H */
