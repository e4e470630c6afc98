// SPDX-License-Identifier: GPL-2.0-only
/*
 * ioprio_get/ioprio_set, kcmp, process_vm_readv/writev, pidfd_getfd,
 * unshare (no namespaces: what they give depends on privilege) and
 * membarrier,
 * natively and under umlrun: each line is what a call returned (and
 * errno), bad input included, and busybox.sh compares the output with
 * the native one.  Pids, pointers' order and the rseq commands (the guest
 * has no rseq) are not printed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "show.h"

#define IOPRIO(cls, lvl)	((cls) << 13 | (lvl))
#define KCMP_FILE	0
#define KCMP_VM		1
#define KCMP_SIGHAND	4
#define RSEQ_CMDS	(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ | \
			 MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ)

static long sc(long nr, long a, long b, long c, long d, long e, long f)
{
	return syscall(nr, a, b, c, d, e, f);
}

/* A pid nothing has: a child's, reaped. */
static pid_t gone_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

static void ioprio_case(void)
{
	show("ioprio_get self", sc(SYS_ioprio_get, 1, 0, 0, 0, 0, 0));
	show("ioprio_set BE 6", sc(SYS_ioprio_set, 1, 0, IOPRIO(2, 6), 0, 0, 0));
	show("ioprio_get self", sc(SYS_ioprio_get, 1, 0, 0, 0, 0, 0));
	show("ioprio_set IDLE", sc(SYS_ioprio_set, 1, 0, IOPRIO(3, 0), 0, 0, 0));
	show("ioprio_get self", sc(SYS_ioprio_get, 1, 0, 0, 0, 0, 0));
	show("ioprio_get gone pgrp", sc(SYS_ioprio_get, 2, gone_pid(), 0, 0, 0, 0));
	show("ioprio_set NONE level 1", sc(SYS_ioprio_set, 1, 0, IOPRIO(0, 1), 0, 0, 0));
	show("ioprio_set class 5", sc(SYS_ioprio_set, 1, 0, IOPRIO(5, 0), 0, 0, 0));
	show("ioprio_set which 0", sc(SYS_ioprio_set, 0, 0, IOPRIO(2, 0), 0, 0, 0));
	show("ioprio_get which 4", sc(SYS_ioprio_get, 4, 0, 0, 0, 0, 0));
	show("ioprio_get gone pid", sc(SYS_ioprio_get, 1, gone_pid(), 0, 0, 0, 0));
	show("ioprio_set gone pgrp", sc(SYS_ioprio_set, 2, gone_pid(), IOPRIO(2, 0), 0, 0, 0));
	show("ioprio_set BE 4", sc(SYS_ioprio_set, 1, 0, IOPRIO(2, 4), 0, 0, 0));
}

static void kcmp_case(void)
{
	pid_t me = getpid(), p;
	int fd = dup(1);
	int st;

	show("KCMP_FILE a dup", sc(SYS_kcmp, me, me, KCMP_FILE, 1, fd, 0));
	show("KCMP_FILE other files", sc(SYS_kcmp, me, me, KCMP_FILE, 0, 1, 0) != 0);
	show("KCMP_FILE bad fd", sc(SYS_kcmp, me, me, KCMP_FILE, 1, 999, 0));
	show("KCMP_VM self", sc(SYS_kcmp, me, me, KCMP_VM, 0, 0, 0));
	show("type 99", sc(SYS_kcmp, me, me, 99, 0, 0, 0));
	show("type -1", sc(SYS_kcmp, me, me, -1, 0, 0, 0));
	show("gone pid", sc(SYS_kcmp, me, gone_pid(), KCMP_VM, 0, 0, 0));
	p = fork();
	if (p == 0) {
		long vm = sc(SYS_kcmp, me, getpid(), KCMP_VM, 0, 0, 0);
		long f = sc(SYS_kcmp, me, getpid(), KCMP_FILE, 1, 1, 0);
		long sh = sc(SYS_kcmp, me, getpid(), KCMP_SIGHAND, 0, 0, 0);

		_exit((vm > 0 && vm < 3) | (f == 0) << 1 | (sh > 0 && sh < 3) << 2);
	}
	waitpid(p, &st, 0);
	printf("forked child: other mm %d, same file %d, other sighand %d\n",
	       WEXITSTATUS(st) & 1, WEXITSTATUS(st) >> 1 & 1,
	       WEXITSTATUS(st) >> 2 & 1);
	close(fd);
}

static void pvm_case(void)
{
	char src[64] = "remote bytes", dst[64] = "", big[256], *hole;
	struct iovec l = { dst, sizeof(dst) }, r = { src, 13 }, rv[2];
	pid_t me = getpid();
	long n;

	n = sc(SYS_process_vm_readv, me, (long)&l, 1, (long)&r, 1, 0);
	printf("readv self: %ld %s\n", n, dst);
	show("flags 1", sc(SYS_process_vm_readv, me, (long)&l, 1, (long)&r, 1, 1));
	show("liovcnt 1025", sc(SYS_process_vm_readv, me, (long)&l, 1025, (long)&r, 1, 0));
	show("riovcnt 1025", sc(SYS_process_vm_readv, me, (long)&l, 1, (long)&r, 1025, 0));
	show("bad lvec", sc(SYS_process_vm_readv, me, 8, 1, (long)&r, 1, 0));
	show("bad rvec", sc(SYS_process_vm_readv, me, (long)&l, 1, 8, 1, 0));
	show("liovcnt 0", sc(SYS_process_vm_readv, me, (long)&l, 0, 8, 1, 0));
	show("gone pid", sc(SYS_process_vm_readv, gone_pid(), (long)&l, 1, (long)&r, 1, 0));
	r.iov_base = (void *)8;
	show("bad remote address", sc(SYS_process_vm_readv, me, (long)&l, 1, (long)&r, 1, 0));
	r.iov_base = src;
	l.iov_base = (void *)8;
	show("bad local address", sc(SYS_process_vm_readv, me, (long)&l, 1, (long)&r, 1, 0));
	/* a remote range running into a hole: the bytes before it */
	hole = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(hole + 4096, 4096);
	memset(hole, 'h', 4096);
	rv[0] = (struct iovec){ hole + 4000, 200 };
	l = (struct iovec){ big, sizeof(big) };
	show("partial read", sc(SYS_process_vm_readv, me, (long)&l, 1, (long)rv, 1, 0));
	/* writev, into a read-only page: EFAULT */
	strcpy(src, "written");
	r = (struct iovec){ hole, 8 };
	l = (struct iovec){ src, 8 };
	n = sc(SYS_process_vm_writev, me, (long)&l, 1, (long)&r, 1, 0);
	printf("writev self: %ld %s\n", n, hole);
	mprotect(hole, 4096, PROT_READ);
	show("writev read-only", sc(SYS_process_vm_writev, me, (long)&l, 1, (long)&r, 1, 0));
	munmap(hole, 4096);
}

static void getfd_case(void)
{
	int pfd, fd, st, sync[2];
	pid_t c;

	if (pipe(sync))
		return;
	c = fork();
	if (c == 0) {
		char b;

		read(sync[0], &b, 1);	/* until the parent is done */
		_exit(0);
	}
	pfd = syscall(SYS_pidfd_open, c, 0);
	show("pidfd_open", pfd >= 0);
	fd = syscall(SYS_pidfd_getfd, pfd, sync[1], 0);
	show("pidfd_getfd", fd >= 0);
	show("close-on-exec", fcntl(fd, F_GETFD));
	show("the same file", syscall(SYS_kcmp, getpid(), c, KCMP_FILE, fd, sync[1]));
	show("flags 1", syscall(SYS_pidfd_getfd, pfd, sync[1], 1));
	show("no such fd", syscall(SYS_pidfd_getfd, pfd, 999, 0));
	show("fd -1", syscall(SYS_pidfd_getfd, pfd, -1, 0));
	show("not a pidfd", syscall(SYS_pidfd_getfd, sync[0], 0, 0));
	show("bad pidfd", syscall(SYS_pidfd_getfd, 999, 0, 0));
	write(sync[1], "x", 1);
	waitpid(c, &st, 0);
	show("reaped child", syscall(SYS_pidfd_getfd, pfd, 0, 0));
	close(fd);
	close(pfd);
}

static void *park(void *arg)
{
	pause();
	return arg;
}

static void unshare_case(void)
{
	pthread_t th;

	show("unshare 0", syscall(SYS_unshare, 0));
	show("unknown flag", syscall(SYS_unshare, 0x2000));	/* CLONE_VFORK */
	show("-1", syscall(SYS_unshare, -1L));
	show("CLONE_FILES", syscall(SYS_unshare, CLONE_FILES));
	show("CLONE_FS", syscall(SYS_unshare, CLONE_FS));
	show("CLONE_SYSVSEM", syscall(SYS_unshare, CLONE_SYSVSEM));
	show("CLONE_THREAD, one thread", syscall(SYS_unshare, CLONE_THREAD));
	show("CLONE_VM, one thread", syscall(SYS_unshare, CLONE_VM));
	pthread_create(&th, NULL, park, NULL);
	show("CLONE_THREAD, two threads", syscall(SYS_unshare, CLONE_THREAD));
	show("CLONE_SIGHAND, two threads", syscall(SYS_unshare, CLONE_SIGHAND));
	show("CLONE_FILES, two threads", syscall(SYS_unshare, CLONE_FILES));
}

static void membarrier_case(void)
{
	long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	show("query", q < 0 ? q : q & ~RSEQ_CMDS & ~(1L << 9));
	show("flags 1", syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 1, 0));
	show("cmd 3", syscall(SYS_membarrier, 3, 0, 0));
	show("cmd 1 << 20", syscall(SYS_membarrier, 1 << 20, 0, 0));
	show("global", syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0));
	show("private unregistered", syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0));
	show("register private", syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0));
	show("private", syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0));
	show("sync core unregistered", syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0));
	show("register global", syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0));
	show("global expedited", syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0));
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 2 && strcmp(argv[1], "ioprio") == 0)
		ioprio_case();
	else if (argc == 2 && strcmp(argv[1], "kcmp") == 0)
		kcmp_case();
	else if (argc == 2 && strcmp(argv[1], "pvm") == 0)
		pvm_case();
	else if (argc == 2 && strcmp(argv[1], "unshare") == 0)
		unshare_case();
	else if (argc == 2 && strcmp(argv[1], "getfd") == 0)
		getfd_case();
	else if (argc == 2 && strcmp(argv[1], "membarrier") == 0)
		membarrier_case();
	else
		return 2;
	return 0;
}
