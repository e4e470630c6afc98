// SPDX-License-Identifier: GPL-2.0
/*
 * getpid answered by a seccomp user-notify supervisor: the best round trip
 * mainline offers a user-space "kernel" without ptrace (it carries the
 * syscall's arguments, not the registers, so it could not host a real
 * guest).  The child loops on getpid under a filter that returns
 * SECCOMP_RET_USER_NOTIF for it; the parent answers each notification and
 * times N of them.  Where the kernel has it (6.6+), the listener is set to
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, seccomp's same-CPU handoff.
 *
 * Usage: seccomp_notify [N]	(default 20000)
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* Linux 6.6; Debian 12's headers are 6.1. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP	(1UL << 0)
#endif

static int install_filter(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		       SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

static void send_fd(int sock, int fd)
{
	char buf[CMSG_SPACE(sizeof(int))] = { 0 }, c = 0;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		_exit(3);
}

static int recv_fd(int sock)
{
	char buf[CMSG_SPACE(sizeof(int))] = { 0 }, c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* Answers one notification; returns 0, or -1 when the child is gone. */
static int answer(int fd)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	memset(&req, 0, sizeof(req));
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req))
		return -1;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.val = 1;
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long n = bench_arg(argc, argv, 1, 20000), w = n / 10 + 1, i;
	int sv[2], fd, status, sync;
	double t0, t;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		bench_die("socketpair");
	pid = fork();
	if (pid < 0)
		bench_die("fork");
	if (pid == 0) {
		fd = install_filter();
		if (fd < 0) {
			printf("n/a seccomp user-notify: %s\n", strerror(errno));
			_exit(0);
		}
		send_fd(sv[1], fd);
		close(fd);
		/* Answered by the parent, which stops answering after w + n. */
		for (i = 0; i < w + n; i++)
			syscall(SYS_getpid);
		_exit(0);
	}
	close(sv[1]);
	fd = recv_fd(sv[0]);
	if (fd < 0) {
		waitpid(pid, &status, 0);
		return 0;	/* the child printed why */
	}
	sync = !ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		      SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	printf("# SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: %s\n",
	       sync ? "on" : "not supported by this kernel");
	for (i = 0; i < w; i++)
		if (answer(fd))
			bench_die("notification %ld", i);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		if (answer(fd))
			bench_die("notification %ld", w + i);
	t = bench_now_ns() - t0;
	if (waitpid(pid, &status, 0) != pid || status)
		bench_die("child");
	bench_result(t / n);
	return 0;
}
