/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libuml selftests.  Every fixture runs against both
 * backends (FIXTURE_VARIANT); the skas variant SKIPs while /dev/skas is
 * absent or libuml's module backend is not built in.
 */
#ifndef LIBUML_TEST_H
#define LIBUML_TEST_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include <linux/skas.h>

#include "uml.h"
#include "guest_code.h"

#define GUEST_CODE	0x400000ULL
#define GUEST_DATA	0x500000ULL
#define PAGE		0x1000ULL

#define UML_VARIANTS(f)							\
	FIXTURE_VARIANT(f) { enum uml_backend backend; };		\
	FIXTURE_VARIANT_ADD(f, ptrace) { .backend = UML_BACKEND_PTRACE }; \
	FIXTURE_VARIANT_ADD(f, skas) { .backend = UML_BACKEND_SKAS }

/* Open the variant's backend or SKIP (from a FIXTURE_SETUP). */
#define UML_OPEN_OR_SKIP(hostp, backend) do {				\
	int __r = uml_host_open(hostp, backend);			\
	if (__r)							\
		SKIP(return, "%s backend unavailable: %s",		\
		     uml_backend_name(backend), uml_strerror(__r));	\
} while (0)

/* Does the loaded skas.ko report capability @cap?  0 when it cannot tell. */
static inline int skas_has_cap(int cap)
{
	int fd = open("/dev/skas", O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return 0;
	ret = ioctl(fd, SKAS_CHECK_EXTENSION, (unsigned long)cap) > 0;
	close(fd);
	return ret;
}

/*
 * What the skas backend can do depends on the module: guest fork needs
 * SKAS_CAP_CLONE, a second thread in one address space the capability
 * requested in libuml/NOTES-module.md.  Both are checked with
 * SKAS_CHECK_EXTENSION, so the tests run as soon as the module has them.
 */
static inline int uml_can_fork(enum uml_backend b)
{
	if (b != UML_BACKEND_SKAS)
		return 1;
#ifdef SKAS_CAP_CLONE
	return skas_has_cap(SKAS_CAP_CLONE);
#else
	return 0;
#endif
}

static inline int uml_can_thread(enum uml_backend b)
{
	if (b != UML_BACKEND_SKAS)
		return 1;
#ifdef SKAS_CAP_CLONE_THREAD
	return skas_has_cap(SKAS_CAP_CLONE_THREAD);
#else
	return 0;
#endif
}

/*
 * The host process model (uml.h): on ptrace every guest thread is a host
 * process and the runtime's child; on skas the threads of one address
 * space are host threads of one group, whose leader is the child.
 */
static inline int uml_threads_are_processes(enum uml_backend b)
{
	return b != UML_BACKEND_SKAS;
}

#define UML_NEED_FORK(b) do {						\
	if (!uml_can_fork(b))						\
		SKIP(return, "skas.ko lacks guest fork (SKAS_CAP_CLONE)"); \
} while (0)

#define UML_NEED_THREADS(b) do {					\
	if (!uml_can_thread(b))						\
		SKIP(return, "skas.ko lacks guest threads in one address " \
		     "space (SKAS_CAP_CLONE_THREAD)");			\
} while (0)

static inline int uml_can_interrupt_on_signal(enum uml_backend b)
{
	if (b != UML_BACKEND_SKAS)
		return 1;
#ifdef SKAS_CAP_SIGNAL_INTERRUPT
	return skas_has_cap(SKAS_CAP_SIGNAL_INTERRUPT);
#else
	return 0;
#endif
}

/* Outside signals reported as UML_EXIT_INTERRUPTED (uml_thread_run()). */
#define UML_NEED_SIGNALS(b) do {					\
	if (!uml_can_interrupt_on_signal(b))				\
		SKIP(return, "skas.ko does not report outside signals as " \
		     "INTERRUPTED (SKAS_CAP_SIGNAL_INTERRUPT)");	\
} while (0)

/* Map a fresh RX page at @addr holding @code (writes ignore PROT_WRITE). */
static inline int load_code(struct uml_aspace *as, uint64_t addr,
			    const void *code, size_t len)
{
	int r = uml_aspace_map(as, addr, PAGE, PROT_READ | PROT_EXEC,
			       UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, -1, 0);

	if (r)
		return r;
	return uml_mem_write(as, addr, code, len) == (long)len ? 0 : -EFAULT;
}

static inline int map_data(struct uml_aspace *as, uint64_t addr)
{
	return uml_aspace_map(as, addr, PAGE, PROT_READ | PROT_WRITE,
			      UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, -1, 0);
}

/* Does /proc know this pid (zombies included)? */
static inline int pid_exists(int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", pid);
	return access(path, F_OK) == 0;
}

/*
 * Is @pid gone within @ms milliseconds?  One thread among others of a skas
 * address space exits by itself after uml_thread_destroy() returns.
 */
static inline int pid_gone_within(int pid, int ms)
{
	while (pid_exists(pid) && ms-- > 0)
		usleep(1000);
	return !pid_exists(pid);
}

/* How many processes have us as their parent (zombies included)? */
static inline int count_children(void)
{
	char path[300], buf[512], *p;
	struct dirent *d;
	int n = 0, ppid;
	DIR *dir = opendir("/proc");
	FILE *f;

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			p = strrchr(buf, ')');
			if (p && sscanf(p + 2, "%*c %d", &ppid) == 1 &&
			    ppid == getpid())
				n++;
		}
		fclose(f);
	}
	closedir(dir);
	return n;
}

/* The number of open fds of a host task. */
static inline int count_fds(int pid)
{
	char path[64];
	struct dirent *d;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

#endif
