/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * skas: address spaces and guest threads for user-mode kernels.
 *
 * This header is the whole contract between the skas.ko module and user
 * space.  It is shaped like the KVM API: a chain of file descriptors, one
 * ioctl magic (SKASIO), a frozen API version, and features discovered with
 * SKAS_CHECK_EXTENSION, never by comparing kernel versions.
 *
 * Rules for every structure: only fixed-size __u8..__u64 fields, explicit
 * padding, natural alignment; a leading size field that must equal
 * sizeof(struct); flags the module does not know and nonzero reserved
 * fields are rejected with -EINVAL, so both stay usable later.  Unknown
 * ioctl commands fail with -ENOTTY.
 *
 * Commands on /dev/skas (a misc device, mode 0660, owner root:root; give
 * access to a group with a udev rule, as for /dev/kvm):
 *
 *   SKAS_GET_API_VERSION   returns SKAS_API_VERSION.  Frozen: it changes
 *                          only if the ABI breaks, which it must not.
 *   SKAS_CHECK_EXTENSION   arg: a SKAS_CAP_* number.  Returns 0 if the
 *                          capability is unknown or absent, a positive
 *                          value if present.
 *   SKAS_CREATE_ASPACE     arg: struct skas_create_aspace *.  Creates an
 *                          empty guest address space and returns a new file
 *                          descriptor for it (O_CLOEXEC).  The last close of
 *                          that descriptor destroys the address space.
 */
#ifndef _UAPI_LINUX_SKAS_H
#define _UAPI_LINUX_SKAS_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SKAS_API_VERSION	1

#define SKASIO			0xB9

/* Capabilities for SKAS_CHECK_EXTENSION. */
#define SKAS_CAP_ASPACE		1	/* SKAS_CREATE_ASPACE */

/* ioctls on /dev/skas */
#define SKAS_GET_API_VERSION	_IO(SKASIO, 0x00)
#define SKAS_CHECK_EXTENSION	_IO(SKASIO, 0x01)
#define SKAS_CREATE_ASPACE	_IOW(SKASIO, 0x02, struct skas_create_aspace)

/**
 * struct skas_create_aspace - argument of SKAS_CREATE_ASPACE
 * @size:     sizeof(struct skas_create_aspace)
 * @flags:    none defined yet; must be 0
 * @reserved: must be 0
 */
struct skas_create_aspace {
	__u32 size;
	__u32 flags;
	__u64 reserved[3];
};

#endif /* _UAPI_LINUX_SKAS_H */
