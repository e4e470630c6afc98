// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sockets, against the kernel's rules: AF_UNIX stream, datagram and
 * seqpacket pairs, SCM_RIGHTS (a pipe passed and used), SO_PEERCRED, a
 * path name bound in the cwd and an abstract name (getsockname gives back
 * what was bound), TCP on 127.0.0.1 with a forked echo server, shutdown,
 * UDP with addresses, sendmmsg/recvmmsg, non-blocking calls, and bad
 * input (families, types, flags, lengths, fds, pointers).  Needs a
 * writable cwd.  Prints "sock ok" (with "inet: not here" first where the
 * kernel has no AF_INET), or exits with the number of the check that
 * failed.  Runs natively too: the expectations are the kernel's.
 * "sock listen PATH" (natively: a host socket, for 10 s or one
 * connection) and "sock connect PATH" (prints "connected" or the error)
 * show whether a guest reaches a host's socket.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* Not -1 with errno @err: says what it was instead (natively: nothing). */
static int fails(long r, int err)
{
	if (r == -1 && errno == err)
		return 0;
	fprintf(stderr, "sock: got %ld (%s), wanted %s\n", r,
		r == -1 ? strerror(errno) : "no error", strerror(err));
	return 1;
}

static int reap(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st);
}

/* Pass fd @fd over @s. */
static int send_fd(int s, int fd)
{
	char c = 'f', ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(s, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int s)
{
	char c, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(s, &m, MSG_CMSG_CLOEXEC) != 1 || c != 'f')
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static int check_pairs(void)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	int sv[2], p[2], fd, v;
	char buf[16];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 10;
	if (write(sv[0], "abc", 3) != 3 || read(sv[1], buf, 16) != 3 ||
	    send(sv[1], "de", 2, 0) != 2 || recv(sv[0], buf, 16, 0) != 2 ||
	    memcmp(buf, "de", 2))
		return 11;
	if (getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &uc, &len) ||
	    uc.pid != getpid() || uc.uid != getuid())
		return 12;
	len = sizeof(v);
	if (getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &v, &len) || v != SOCK_STREAM ||
	    getsockopt(sv[0], SOL_SOCKET, SO_DOMAIN, &v, &len) || v != AF_UNIX)
		return 13;
	/* SCM_RIGHTS: a pipe's read end, used through the fd that arrives. */
	if (pipe(p) || send_fd(sv[0], p[0]))
		return 14;
	fd = recv_fd(sv[1]);
	if (fd < 0 || fd == p[0] || fcntl(fd, F_GETFD) != FD_CLOEXEC ||
	    write(p[1], "xyz", 3) != 3 || read(fd, buf, 16) != 3 || memcmp(buf, "xyz", 3))
		return 15;
	close(fd);
	close(p[0]);
	close(p[1]);
	if (fails(send_fd(sv[0], 999), EBADF))
		return 16;
	if (fails(recv(sv[0], buf, 16, MSG_DONTWAIT), EAGAIN))
		return 17;
	shutdown(sv[1], SHUT_WR);
	if (recv(sv[0], buf, 16, 0) != 0)
		return 18;
	close(sv[0]);
	close(sv[1]);
	/* Datagrams and seqpackets keep their boundaries. */
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) ||
	    send(sv[0], "one", 3, 0) != 3 || send(sv[0], "three", 5, 0) != 5 ||
	    recv(sv[1], buf, 16, 0) != 3 || recv(sv[1], buf, 16, 0) != 5)
		return 19;
	close(sv[0]);
	close(sv[1]);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) ||
	    send(sv[0], "ab", 2, 0) != 2 || recv(sv[1], buf, 1, 0) != 1 ||
	    fails(recv(sv[1], buf, 1, MSG_DONTWAIT), EAGAIN))
		return 20;
	close(sv[0]);
	close(sv[1]);
	return 0;
}

/* A server on @s (listening) that echoes one connection, in a child. */
static pid_t echo_server(int s)
{
	pid_t pid = fork();
	char buf[64];
	ssize_t n;
	int c;

	if (pid)
		return pid;
	c = accept(s, NULL, NULL);
	if (c < 0)
		_exit(1);
	while ((n = read(c, buf, sizeof(buf))) > 0)
		if (write(c, buf, n) != n)
			_exit(2);
	_exit(n < 0 ? 3 : 0);
}

static int talk(int c)
{
	char buf[16];

	if (write(c, "ping", 4) != 4 || read(c, buf, 16) != 4 || memcmp(buf, "ping", 4))
		return -1;
	shutdown(c, SHUT_WR);
	return read(c, buf, 16) == 0 ? 0 : -1;
}

static int check_unix_names(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX }, b;
	socklen_t len, alen;
	int s, c;
	pid_t pid;

	unlink("sock.path");
	strcpy(a.sun_path, "sock.path");
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (void *)&a, sizeof(a)) || listen(s, 4))
		return 30;
	if (fails(bind(socket(AF_UNIX, SOCK_STREAM, 0), (void *)&a, sizeof(a)),
		  EADDRINUSE))
		return 31;
	len = sizeof(b);
	if (getsockname(s, (void *)&b, &len) || strcmp(b.sun_path, "sock.path"))
		return 32;
	pid = echo_server(s);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (void *)&a, sizeof(a)) || talk(c) || !reap(pid))
		return 33;
	close(c);
	close(s);
	unlink("sock.path");
	strcpy(a.sun_path, "sock.nothing");
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fails(connect(c, (void *)&a, sizeof(a)), ENOENT))
		return 34;
	close(c);
	/* An abstract name: what getsockname and accept show is the guest's. */
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	memcpy(a.sun_path, "\0sock-abstract", 14);
	alen = offsetof(struct sockaddr_un, sun_path) + 14;
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (void *)&a, alen) || listen(s, 4))
		return 35;
	len = sizeof(b);
	if (getsockname(s, (void *)&b, &len) || len != alen || memcmp(&a, &b, alen))
		return 36;
	pid = echo_server(s);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (void *)&a, alen))
		return 37;
	len = sizeof(b);
	if (getpeername(c, (void *)&b, &len) || len != alen || memcmp(&a, &b, alen))
		return 38;
	if (talk(c) || !reap(pid))
		return 39;
	close(c);
	close(s);
	return 0;
}

/*
 * A listener closed by its last holder refuses the next connect at once,
 * also when a runtime thread that slept with it in its poll set (a child
 * blocked in accept) holds the host's file (smp.c worker_fd_closing()):
 * a few rounds, each with a child that accepts once and exits.
 */
static int check_closed_listener(void)
{
	int i, s, c;

	for (i = 0; i < 8; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(a);
		pid_t pid;

		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 || bind(s, (void *)&a, sizeof(a)) || listen(s, 4) ||
		    getsockname(s, (void *)&a, &len))
			return -1;
		pid = fork();
		if (pid == 0)
			_exit(accept(s, NULL, NULL) < 0);
		usleep(1000);	/* the child blocks in accept */
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (pid < 0 || connect(c, (void *)&a, sizeof(a)) || !reap(pid))
			return -1;
		close(c);
		close(s);
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (fails(connect(c, (void *)&a, sizeof(a)), ECONNREFUSED))
			return -1;
		close(c);
	}
	return 0;
}

static int check_inet(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) }, b;
	struct mmsghdr mm[3];
	struct iovec iov[3];
	char buf[3][8];
	socklen_t len = sizeof(a);
	int s, c, u, v = 1, i;
	pid_t pid;

	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 && errno == EAFNOSUPPORT) {
		puts("inet: not here");
		return 0;
	}
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, sizeof(v)) ||
	    bind(s, (void *)&a, sizeof(a)) || listen(s, 4) ||
	    getsockname(s, (void *)&a, &len) || !a.sin_port)
		return 50;
	if (fails(accept4(s, NULL, NULL, SOCK_NONBLOCK | 0x40), EINVAL))
		return 51;
	fcntl(s, F_SETFL, O_NONBLOCK);
	if (fails(accept(s, NULL, NULL), EAGAIN))
		return 52;
	fcntl(s, F_SETFL, 0);
	pid = echo_server(s);
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v)) ||
	    connect(c, (void *)&a, sizeof(a)))
		return 53;
	len = sizeof(b);
	if (getpeername(c, (void *)&b, &len) || b.sin_port != a.sin_port)
		return 54;
	if (talk(c) || !reap(pid))
		return 55;
	close(c);
	close(s);
	/* Nobody listens there now. */
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (fails(connect(c, (void *)&a, sizeof(a)), ECONNREFUSED))
		return 56;
	close(c);
	if (check_closed_listener())
		return 63;
	/* UDP, with addresses, and three datagrams in one call each way. */
	u = socket(AF_INET, SOCK_DGRAM, 0);
	a.sin_port = 0;
	len = sizeof(a);
	if (u < 0 || bind(u, (void *)&a, sizeof(a)) || getsockname(u, (void *)&a, &len))
		return 57;
	c = socket(AF_INET, SOCK_DGRAM, 0);
	if (sendto(c, "dgram", 5, 0, (void *)&a, sizeof(a)) != 5)
		return 58;
	len = sizeof(b);
	if (recvfrom(u, buf[0], 8, 0, (void *)&b, &len) != 5 || len != sizeof(b) ||
	    b.sin_addr.s_addr != htonl(INADDR_LOOPBACK))
		return 59;
	if (connect(c, (void *)&a, sizeof(a)))
		return 60;
	memset(mm, 0, sizeof(mm));
	for (i = 0; i < 3; i++) {
		iov[i] = (struct iovec){ buf[i], (size_t)i + 1 };
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	if (sendmmsg(c, mm, 3, 0) != 3)
		return 61;
	for (i = 0; i < 3; i++)
		iov[i].iov_len = 8;
	if (recvmmsg(u, mm, 3, MSG_DONTWAIT, NULL) != 3 || mm[0].msg_len != 1 ||
	    mm[2].msg_len != 3)
		return 62;
	close(c);
	close(u);
	return 0;
}

static int check_bad(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct msghdr m = { 0 };
	int s, p[2];

	if (fails(socket(12345, SOCK_STREAM, 0), EAFNOSUPPORT) ||
	    fails(socket(AF_UNIX, 99, 0), EINVAL) ||
	    fails(socket(AF_UNIX, SOCK_STREAM | 0x1000000, 0), EINVAL) ||
	    fails(syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, 8), EFAULT))
		return 70;
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (pipe(p) || fails(bind(p[0], (void *)&a, sizeof(a)), ENOTSOCK) ||
	    fails(bind(999, (void *)&a, sizeof(a)), EBADF) ||
	    fails(syscall(SYS_connect, s, &a, -1), EINVAL) ||
	    fails(syscall(SYS_connect, s, &a, 1000), EINVAL) ||
	    fails(syscall(SYS_connect, s, 8, sizeof(a)), EFAULT))
		return 71;
	if (fails(setsockopt(s, SOL_SOCKET, SO_RCVBUF, &s, -1), EINVAL) ||
	    fails(listen(p[1], 1), ENOTSOCK) || fails(shutdown(s, 99), EINVAL))
		return 72;
	m.msg_iovlen = 2000;
	if (fails(sendmsg(s, &m, 0), EMSGSIZE))
		return 73;
	close(s);
	close(p[0]);
	close(p[1]);
	return 0;
}

static int listen_or_connect(char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", argv[2]);
	if (argv[1][0] == 'l') {
		unlink(a.sun_path);
		if (bind(s, (void *)&a, sizeof(a)) || listen(s, 1))
			return 1;
		alarm(10);
		close(accept(s, NULL, NULL));
		unlink(a.sun_path);
		return 0;
	}
	if (connect(s, (void *)&a, sizeof(a)))
		printf("connect: %s\n", strerror(errno));
	else
		puts("connected");
	return 0;
}

int main(int argc, char **argv)
{
	int r;

	if (argc == 3)
		return listen_or_connect(argv);
	r = check_pairs();

	if (!r)
		r = check_unix_names();
	if (!r)
		r = check_inet();
	if (!r)
		r = check_bad();
	if (r)
		return r;
	puts("sock ok");
	return 0;
}
