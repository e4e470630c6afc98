// SPDX-License-Identifier: GPL-2.0-only
/*
 * Socket timeouts and MSG_WAITALL, as the kernel has them: SO_RCVTIMEO
 * and SO_SNDTIMEO bound a blocking recv, read, accept, send, write and
 * connect (EAGAIN, or the bytes already moved; EINPROGRESS for a TCP
 * connect), their bad values fail as sock_set_timeout() fails them, and
 * a negative one makes the calls not wait at all; MSG_WAITALL on a stream
 * waits until the whole length came, or EOF, or the timeout.  The output
 * is compared with the native run's (busybox.sh), so it prints no times,
 * only whether each wait lasted about its timeout.  And recvfrom with
 * MSG_TRUNC writes only its buffer, though it returns more.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEO_MS	100

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static long long t0;

/* Print what a call returned, and how long it waited against @ms. */
static void show(const char *what, long r, int ms)
{
	long long d = now_ms() - t0;
	const char *took = d < ms - 10 ? "early" : d > ms + 900 ? "late" : "on time";

	if (r < 0)
		printf("%s: %s, %s\n", what, strerror(errno), took);
	else
		printf("%s: %ld, %s\n", what, r, took);
}

static void set(int fd, int name, long sec, long usec, socklen_t len)
{
	struct timeval tv = { sec, usec };
	int r = setsockopt(fd, SOL_SOCKET, name, &tv, len);

	printf("setsockopt(%d, {%ld, %ld}, %u): %s\n", name, sec, usec,
	       (unsigned int)len, r ? strerror(errno) : "ok");
}

static void bad_values(void)
{
	struct timeval tv;
	socklen_t len = sizeof(tv);
	int sv[2];

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	set(sv[0], SO_RCVTIMEO, 0, -1, sizeof(tv));
	set(sv[0], SO_RCVTIMEO, 0, 1000000, sizeof(tv));
	set(sv[0], SO_SNDTIMEO, 1, -5, sizeof(tv));
	set(sv[0], SO_RCVTIMEO, 1, 0, sizeof(tv) - 1);
	set(sv[0], SO_SNDTIMEO, 1, 0, 0);
	set(sv[0], SO_RCVTIMEO_NEW, 0, 1000000, sizeof(tv));
	set(sv[0], SO_RCVTIMEO_NEW, 2, 0, sizeof(tv));
	getsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, &len);
	printf("SO_RCVTIMEO reads back {%ld, %ld}\n", (long)tv.tv_sec,
	       (long)tv.tv_usec);
	/* A negative time: the calls do not wait (the kernel's timeo 0). */
	set(sv[0], SO_RCVTIMEO, -1, 0, sizeof(tv));
	t0 = now_ms();
	show("recv, negative SO_RCVTIMEO", recv(sv[0], &tv, 1, 0), 0);
	set(sv[0], SO_RCVTIMEO, 0, 0, sizeof(tv));
	close(sv[0]);
	close(sv[1]);
}

static void timeo(int fd, int name)
{
	struct timeval tv = { 0, TIMEO_MS * 1000 };

	setsockopt(fd, SOL_SOCKET, name, &tv, sizeof(tv));
	t0 = now_ms();
}

static char big[1 << 20];

static void stream_timeouts(void)
{
	int sv[2];
	long r;

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	timeo(sv[0], SO_RCVTIMEO);
	show("recv", recv(sv[0], big, 10, 0), TIMEO_MS);
	t0 = now_ms();
	show("read", read(sv[0], big, 10), TIMEO_MS);
	t0 = now_ms();
	show("recvfrom MSG_WAITALL", recvfrom(sv[0], big, 10, MSG_WAITALL,
					      NULL, NULL), TIMEO_MS);
	write(sv[1], "12345", 5);
	t0 = now_ms();
	show("recv MSG_WAITALL, 5 of 10 there", recv(sv[0], big, 10,
						   MSG_WAITALL), TIMEO_MS);
	timeo(sv[1], SO_SNDTIMEO);
	r = send(sv[1], big, sizeof(big), 0);
	show("send of 1 MiB", r > 0 && r < (long)sizeof(big) ? 1 : r, TIMEO_MS);
	t0 = now_ms();
	show("send, buffer full", send(sv[1], big, 1, 0), TIMEO_MS);
	t0 = now_ms();
	show("write, buffer full", write(sv[1], big, 1), TIMEO_MS);
	close(sv[0]);
	close(sv[1]);
}

static void listen_timeouts(void)
{
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	socklen_t len = sizeof(in), ulen;
	int l, c1, c2;

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&in, sizeof(in)) ||
	    listen(l, 0) || getsockname(l, (struct sockaddr *)&in, &len)) {
		perror("inet listener");
		return;
	}
	timeo(l, SO_RCVTIMEO);
	show("accept", accept(l, NULL, NULL), TIMEO_MS);
	/* The backlog of 0 is full after one: the next SYN goes unanswered. */
	c1 = socket(AF_INET, SOCK_STREAM, 0);
	c2 = socket(AF_INET, SOCK_STREAM, 0);
	connect(c1, (struct sockaddr *)&in, sizeof(in));
	timeo(c2, SO_SNDTIMEO);
	show("TCP connect, backlog full", connect(c2, (struct sockaddr *)&in,
						  sizeof(in)), TIMEO_MS);
	close(c1);
	close(c2);
	close(l);

	/* A unix listener whose backlog of 0 is full after one connect. */
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(un.sun_path + 1, "socktime");
	ulen = offsetof(struct sockaddr_un, sun_path) + 1 + strlen("socktime");
	if (bind(l, (struct sockaddr *)&un, ulen) || listen(l, 0)) {
		perror("unix listener");
		return;
	}
	c1 = socket(AF_UNIX, SOCK_STREAM, 0);
	c2 = socket(AF_UNIX, SOCK_STREAM, 0);
	connect(c1, (struct sockaddr *)&un, ulen);
	timeo(c2, SO_SNDTIMEO);
	show("unix connect, backlog full", connect(c2, (struct sockaddr *)&un,
						   ulen), TIMEO_MS);
	close(c1);
	close(c2);
	close(l);
}

/* MSG_WAITALL collects a message sent in parts, or what came before EOF. */
static void waitall(void)
{
	char buf[300], *p = buf;
	struct iovec iov[2] = { { buf, 100 }, { buf + 100, 200 } };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
	int sv[2], i, ok;
	pid_t pid;
	long r;

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pid = fork();
	if (pid == 0) {
		struct timespec ts = { 0, 20000000 };
		char part[100];

		for (i = 0; i < 6; i++) {
			memset(part, 'a' + i, sizeof(part));
			nanosleep(&ts, NULL);
			write(sv[1], part, sizeof(part));
		}
		nanosleep(&ts, NULL);
		write(sv[1], "tail", 4);
		_exit(0);
	}
	close(sv[1]);
	memset(buf, 0, sizeof(buf));
	r = recv(sv[0], buf, sizeof(buf), MSG_WAITALL);
	for (i = 0, ok = r == 300; ok && i < 300; i++)
		ok = buf[i] == 'a' + i / 100;
	printf("recv MSG_WAITALL of 3 parts: %ld, %s\n", r, ok ? "right" : "wrong");
	memset(buf, 0, sizeof(buf));
	r = recvmsg(sv[0], &m, MSG_WAITALL);
	for (i = 0, ok = r == 300; ok && i < 300; i++)
		ok = p[i] == 'd' + i / 100;
	printf("recvmsg MSG_WAITALL into 2 iovecs: %ld, %s\n", r, ok ? "right" : "wrong");
	r = recv(sv[0], buf, sizeof(buf), MSG_WAITALL);
	printf("recv MSG_WAITALL until EOF: %ld, %.4s\n", r, buf);
	waitpid(pid, NULL, 0);
	close(sv[0]);
}

/* MSG_TRUNC: a datagram's whole length, but only the buffer is written. */
static void trunc_dgram(void)
{
	char msg[100], buf[100];
	int sv[2], i, past = 0;
	long r;

	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	memset(msg, 'm', sizeof(msg));
	memset(buf, 'x', sizeof(buf));
	send(sv[1], msg, sizeof(msg), 0);
	r = recvfrom(sv[0], buf, 10, MSG_TRUNC, NULL, NULL);
	for (i = 10; i < (int)sizeof(buf); i++)
		past += buf[i] != 'x';
	printf("recvfrom MSG_TRUNC into 10 bytes: %ld, %d bytes past them written\n",
	       r, past);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	signal(SIGPIPE, SIG_IGN);
	alarm(30);	/* a wait without end ends the test, not the suite */
	bad_values();
	stream_timeouts();
	listen_timeouts();
	waitall();
	trunc_dgram();
	return 0;
}
