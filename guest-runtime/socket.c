// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sockets: AF_UNIX, AF_INET and AF_INET6, each a host socket of the
 * runtime behind a guest fd.
 *
 * The runtime creates them non-blocking; a call that would block parks
 * the guest task on the host fd (the guest's O_NONBLOCK and MSG_DONTWAIT
 * decide whether it waits, SO_RCVTIMEO and SO_SNDTIMEO how long), never
 * the runtime.  What crosses the boundary is translated:
 *  - AF_UNIX path names are guest paths (its cwd, --root; bind needs
 *    --rw), and a guest connects only to sockets a guest bound; abstract
 *    names live in a namespace of this runtime ("umlrun.<pid>." before
 *    the guest's name): both unless --net=host, which also lets guests
 *    reach the host's own sockets;
 *  - SCM_RIGHTS carries guest fds: the host fds behind them go, and the
 *    fds that arrive become guest fds; SCM_CREDENTIALS carries guest ids;
 *  - --net=none refuses AF_INET and AF_INET6 (EAFNOSUPPORT).
 * Raw and packet inet sockets are refused (EPERM), as for a process
 * without CAP_NET_RAW, once the host has judged the type and protocol:
 * a guest never gets the host's raw network.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "umlrun.h"

#define SOCK_TYPE_MASK	0xf
#define MAX_ADDR	((int)sizeof(struct sockaddr_storage))
#define MAX_CONTROL	4096
#define IO_MAX		(1 << 20)
#ifndef MSG_CMSG_COMPAT
#define MSG_CMSG_COMPAT	0x80000000U	/* the kernel's, not in libc's headers */
#endif

/* ---- addresses ---- */

static void abstract_prefix(char *buf, size_t len)
{
	snprintf(buf, len, "umlrun.%d.", (int)getpid());
}

/*
 * A guest's sockaddr in @h (the host's form): abstract AF_UNIX names get
 * this runtime's prefix.  Path names are not translated here: bind and
 * connect resolve them (unix_path_op()).  0 or -errno.
 */
static int addr_in(struct task *t, uint64_t uaddr, uint64_t ulen,
		   struct sockaddr_storage *h, socklen_t *hlen)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)h;
	char pfx[32], name[sizeof(sun->sun_path)];
	size_t n, p;

	if ((int)ulen < 0 || (int)ulen > MAX_ADDR)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	if (copy_from_guest(t, h, uaddr, ulen) < 0)
		return -EFAULT;
	*hlen = ulen;
	if (ulen <= sizeof(sa_family_t) || h->ss_family != AF_UNIX ||
	    sun->sun_path[0] || opt.net == NET_HOST)
		return 0;
	/* Abstract: "\0name" becomes "\0umlrun.<pid>.name". */
	n = ulen - offsetof(struct sockaddr_un, sun_path) - 1;
	abstract_prefix(pfx, sizeof(pfx));
	p = strlen(pfx);
	if (n + p + 1 > sizeof(sun->sun_path))
		return -EINVAL;
	memcpy(name, sun->sun_path + 1, n);
	memcpy(sun->sun_path + 1, pfx, p);
	memcpy(sun->sun_path + 1 + p, name, n);
	*hlen += p;
	return 0;
}

/* The host's sockaddr @h back in the guest's form, into (uaddr, *ulenp). */
static int addr_out(struct task *t, struct sockaddr_storage *h,
		    socklen_t hlen, uint64_t uaddr, uint64_t ulenp)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)h;
	char pfx[32];
	int ulen;
	size_t p;

	if (!uaddr)
		return 0;
	if (copy_from_guest(t, &ulen, ulenp, sizeof(ulen)) < 0)
		return -EFAULT;
	if (ulen < 0)
		return -EINVAL;
	abstract_prefix(pfx, sizeof(pfx));
	p = strlen(pfx);
	if (h->ss_family == AF_UNIX && hlen > sizeof(sa_family_t) + p &&
	    !sun->sun_path[0] && !memcmp(sun->sun_path + 1, pfx, p)) {
		memmove(sun->sun_path + 1, sun->sun_path + 1 + p,
			hlen - offsetof(struct sockaddr_un, sun_path) - 1 - p);
		hlen -= p;
	}
	if (copy_to_guest(t, uaddr, h, (socklen_t)ulen < hlen ? (size_t)ulen : hlen) < 0 ||
	    copy_to_guest(t, ulenp, &hlen, sizeof(int)) < 0)
		return -EFAULT;
	return 0;
}

/* ---- the socket files ---- */

static struct file *sock_lookup(struct task *t, uint64_t fd, long *err)
{
	struct file *f = fd_lookup(t, fd);

	*err = !f ? -EBADF : f->kind != FILE_SOCKET ? -ENOTSOCK : 0;
	return *err ? NULL : f;
}

static long sock_install(struct task *t, int hfd, int family, int type,
			 int flags)
{
	struct file *f = file_new(hfd, O_RDWR | (flags & SOCK_NONBLOCK ?
						 O_NONBLOCK : 0));

	if (!f) {
		close(hfd);
		return -ENOMEM;
	}
	f->kind = FILE_SOCKET;
	f->pollable = f->hostnb = true;
	f->sock_family = family;
	f->sock_type = type;
	return fd_install(t, 0, f, flags & SOCK_CLOEXEC);
}

/*
 * __sock_create()'s first checks (a family number past the kernel's
 * table, a type past SOCK_MAX), then the families a guest may have:
 * everything else about the type and protocol is the host's to say
 * (raw_refused() after it).
 */
#define SOCK_MAX_	(SOCK_PACKET + 1)

static int family_ok(int family, int type)
{
	if (family < 0 || family >= AF_MAX)
		return -EAFNOSUPPORT;
	if (type < 0 || type >= SOCK_MAX_)
		return -EINVAL;
	switch (family) {
	case AF_UNIX:
		return 0;
	case AF_INET:
	case AF_INET6:
		return opt.net == NET_NONE ? -EAFNOSUPPORT : 0;
	}
	return -EAFNOSUPPORT;
}

/*
 * A raw or packet inet socket the host made (its kernel found the type
 * and protocol good, and umlrun may be root): a guest never gets one,
 * EPERM as for a process without CAP_NET_RAW.  AF_UNIX's SOCK_RAW is a
 * datagram socket (unix_create()).
 */
static bool raw_refused(int hfd, int family, int type)
{
	if (family == AF_UNIX || (type != SOCK_RAW && type != SOCK_PACKET))
		return false;
	close(hfd);
	return true;
}

long sys_socket(struct task *t, const uint64_t *a)
{
	int family = a[0], type = a[1] & SOCK_TYPE_MASK, flags = a[1] & ~SOCK_TYPE_MASK;
	int r, hfd;

	if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC))
		return -EINVAL;
	if (family == AF_NETLINK)
		return netlink_socket(t, type, (int)a[2], flags);
	r = family_ok(family, type);
	if (r < 0)
		return r;
	hfd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, (int)a[2]);
	if (hfd < 0)
		return -errno;
	if (raw_refused(hfd, family, type))
		return -EPERM;
	if (family == AF_UNIX && type == SOCK_RAW)
		type = SOCK_DGRAM;
	return sock_install(t, hfd, family, type, flags);
}

long sys_socketpair(struct task *t, const uint64_t *a)
{
	int family = a[0], type = a[1] & SOCK_TYPE_MASK, flags = a[1] & ~SOCK_TYPE_MASK;
	int h[2], g[2], r;

	if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC))
		return -EINVAL;
	r = family_ok(family, type);
	if (r < 0)
		return r;
	if (socketpair(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, (int)a[2], h) < 0)
		return -errno;
	if (family == AF_UNIX && type == SOCK_RAW)
		type = SOCK_DGRAM;	/* inet has no pairs: EOPNOTSUPP above */
	g[0] = sock_install(t, h[0], family, type, flags);
	if (g[0] < 0) {
		close(h[1]);
		return g[0];
	}
	g[1] = sock_install(t, h[1], family, type, flags);
	if (g[1] < 0) {
		sys_close(t, (uint64_t[]){ g[0] });
		return g[1];
	}
	fd_lookup(t, g[0])->peer_pid = fd_lookup(t, g[1])->peer_pid = t->p->pid;
	if (copy_to_guest(t, a[3], g, sizeof(g)) < 0) {
		sys_close(t, (uint64_t[]){ g[0] });
		sys_close(t, (uint64_t[]){ g[1] });
		return -EFAULT;
	}
	return 0;
}

/*
 * A blocking call on socket @f found nothing to do: may it wait, for how
 * long?  On the syscall's first call, t->sys_deadline becomes the end of
 * the socket's SO_RCVTIMEO (@rcv: receiving, accepting) or SO_SNDTIMEO
 * (sending, connecting), as the host socket holds it (0: no end).  0 to
 * wait on, -EAGAIN once that time is over, or at once when the time set
 * was negative (the kernel's timeo 0: sock_set_timeout()).
 */
static int sock_timeout(struct task *t, struct file *f, bool rcv)
{
	struct timeval tv;
	socklen_t len = sizeof(tv);

	if (t->sys_again)
		return t->sys_deadline && now_ns() >= t->sys_deadline ? -EAGAIN : 0;
	t->sys_deadline = 0;
	if (rcv ? f->rcv_nowait : f->snd_nowait)
		return -EAGAIN;
	if (getsockopt(f->hostfd, SOL_SOCKET, rcv ? SO_RCVTIMEO : SO_SNDTIMEO,
		       &tv, &len) == 0 && (tv.tv_sec || tv.tv_usec))
		t->sys_deadline = ns_after(timeval_ns(&tv));
	return 0;
}

/*
 * Wait for @events (POLLIN: receive, else send) on socket @f's host fd,
 * within its timeout: SYS_BLOCK, or -EAGAIN when the time is over.
 */
long sock_block(struct task *t, struct file *f, short events)
{
	int r = sock_timeout(t, f, events & POLLIN);

	if (r < 0)
		return r;
	if (t->sys_deadline)
		block_until(t, t->sys_deadline);
	return block_on_fd(t, f->hostfd, events);
}

/* Is @hostfd ready for @events now?  (A SIGALRM in poll() is "not yet".) */
static bool sock_ready(int hostfd, short events)
{
	struct pollfd pfd = { .fd = hostfd, .events = events };
	int r;

	do
		r = poll(&pfd, 1, 0);
	while (r < 0 && errno == EINTR);
	return r != 0;
}

/*
 * An AF_UNIX path name in @h for AF_UNIX socket @f: bind or connect
 * through the guest's view.  (Other families say what they say of it.)
 */
static bool unix_path(const struct file *f, const struct sockaddr_storage *h,
		      socklen_t hlen)
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)h;

	return f->sock_family == AF_UNIX && h->ss_family == AF_UNIX &&
	       hlen > sizeof(sa_family_t) && sun->sun_path[0];
}

/*
 * The path name in @h into @path (of sun_path's size and one more): a
 * name longer than a sockaddr_un is EINVAL, as unix_validate_addr().
 */
static int unix_path_of(const struct sockaddr_storage *h, socklen_t hlen,
			char *path)
{
	size_t n = hlen - offsetof(struct sockaddr_un, sun_path);

	if (hlen > sizeof(struct sockaddr_un))
		return -EINVAL;
	memcpy(path, ((const struct sockaddr_un *)h)->sun_path, n);
	path[n] = 0;
	return 0;
}

long sys_bind(struct task *t, const uint64_t *a)
{
	struct sockaddr_storage h;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	socklen_t hlen;
	struct file *f;
	long r;

	f = sock_lookup(t, a[0], &r);
	if (!f)
		return r;
	if (f->sock_family == AF_NETLINK)
		return netlink_bind(t, f, a[1], a[2]);
	r = addr_in(t, a[1], a[2], &h, &hlen);
	if (r < 0)
		return r;
	if (unix_path(f, &h, hlen)) {
		r = unix_path_of(&h, hlen, path);
		return r < 0 ? r : unix_path_op(t, path, f->hostfd, UNIX_BIND,
						   NULL, 0);
	}
	return bind(f->hostfd, (struct sockaddr *)&h, hlen) < 0 ? -errno : 0;
}

long sys_listen(struct task *t, const uint64_t *a)
{
	struct file *f;
	long r;

	f = sock_lookup(t, a[0], &r);
	if (!f)
		return r;
	if (f->sock_family == AF_NETLINK)
		return -EOPNOTSUPP;
	return listen(f->hostfd, (int)a[1]) < 0 ? -errno : 0;
}

/*
 * A blocking connect: the host's goes on in the background (EINPROGRESS);
 * the guest waits until the socket is writable, then gets its result, or
 * EINPROGRESS when SO_SNDTIMEO ends the wait first (inet_stream_connect()
 * does so; the connect goes on).  An AF_UNIX listener whose backlog is
 * full is asked again every 10 ms; its SO_SNDTIMEO ends that with EAGAIN,
 * as unix_stream_connect() does.
 */
long sys_connect(struct task *t, const uint64_t *a)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	struct sockaddr_storage h;
	socklen_t hlen, elen = sizeof(int);
	struct file *f;
	int err = 0;
	long r;

	f = sock_lookup(t, a[0], &r);
	if (!f)
		return r;
	if (f->sock_family == AF_NETLINK)
		return netlink_connect(t, f, a[1], a[2]);
	if (t->sys_again && f->connecting) {
		if (!sock_ready(f->hostfd, POLLOUT)) {
			r = sock_block(t, f, POLLOUT);
			if (r != -EAGAIN)
				return r;
			f->connecting = false;
			return -EINPROGRESS;
		}
		f->connecting = false;
		if (getsockopt(f->hostfd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
			return -errno;
		return -err;
	}
	r = addr_in(t, a[1], a[2], &h, &hlen);
	if (r < 0)
		return r;
	if (unix_path(f, &h, hlen)) {
		r = unix_path_of(&h, hlen, path);
		if (r == 0)
			r = unix_path_op(t, path, f->hostfd, UNIX_CONNECT,
					 NULL, 0);
	} else {
		r = connect(f->hostfd, (struct sockaddr *)&h, hlen) < 0 ? -errno : 0;
	}
	if (r == -EINPROGRESS && !(f->flags & O_NONBLOCK)) {
		r = sock_block(t, f, POLLOUT);
		if (r == -EAGAIN)
			return -EINPROGRESS;
		f->connecting = r == SYS_BLOCK;
		return r;
	}
	if (r == -EAGAIN && f->sock_family == AF_UNIX && !(f->flags & O_NONBLOCK)) {
		int64_t again = now_ns() + 10000000;	/* backlog full */

		r = sock_timeout(t, f, false);
		if (r < 0)
			return r;
		return block_until(t, t->sys_deadline && t->sys_deadline < again ?
				   t->sys_deadline : again);
	}
	return r;
}

static long do_accept(struct task *t, uint64_t fd, uint64_t uaddr,
		      uint64_t ulenp, int flags)
{
	struct sockaddr_storage h;
	socklen_t hlen = sizeof(h);
	struct file *f;
	long r;
	int nfd;

	if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC))
		return -EINVAL;
	f = sock_lookup(t, fd, &r);
	if (!f)
		return r;
	if (f->sock_family == AF_NETLINK)
		return -EOPNOTSUPP;
	nfd = accept4(f->hostfd, (struct sockaddr *)&h, &hlen,
		      SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (nfd < 0) {
		if (errno == EAGAIN && !(f->flags & O_NONBLOCK))
			return sock_block(t, f, POLLIN);
		return -errno;
	}
	r = addr_out(t, &h, hlen, uaddr, ulenp);
	if (r < 0) {
		close(nfd);
		return r;
	}
	return sock_install(t, nfd, f->sock_family, f->sock_type, flags);
}

long sys_accept(struct task *t, const uint64_t *a)
{
	return do_accept(t, a[0], a[1], a[2], 0);
}

long sys_accept4(struct task *t, const uint64_t *a)
{
	return do_accept(t, a[0], a[1], a[2], a[3]);
}

static long sock_name(struct task *t, const uint64_t *a, bool peer)
{
	struct sockaddr_storage h;
	socklen_t hlen = sizeof(h);
	struct file *f;
	long r;

	f = sock_lookup(t, a[0], &r);
	if (!f)
		return r;
	if (f->sock_family == AF_NETLINK)
		return netlink_name(t, f, a[1], a[2], peer);
	if ((peer ? getpeername : getsockname)(f->hostfd, (struct sockaddr *)&h,
					       &hlen) < 0)
		return -errno;
	if (!a[1] || !a[2])
		return -EFAULT;
	return addr_out(t, &h, hlen, a[1], a[2]);
}

long sys_getsockname(struct task *t, const uint64_t *a)
{
	return sock_name(t, a, false);
}

long sys_getpeername(struct task *t, const uint64_t *a)
{
	return sock_name(t, a, true);
}

long sys_shutdown(struct task *t, const uint64_t *a)
{
	struct file *f;
	long r;

	f = sock_lookup(t, a[0], &r);
	if (!f)
		return r;
	if (f->sock_family == AF_NETLINK)
		return -EOPNOTSUPP;
	return shutdown(f->hostfd, (int)a[1]) < 0 ? -errno : 0;
}

/* ---- options ---- */

/*
 * The options a program sets on its own socket: passed to the host, with
 * the kernel's checks.  Those that reach beyond the socket (a device, a
 * mark, a filter program's privileges...) are refused with ENOPROTOOPT.
 */
static bool sockopt_level_ok(int level)
{
	return level == SOL_SOCKET || level == IPPROTO_TCP ||
	       level == IPPROTO_UDP || level == IPPROTO_IP ||
	       level == IPPROTO_IPV6;
}

static bool sockopt_ok(int level, int name)
{
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_BINDTODEVICE:
		case SO_MARK:
		case SO_ATTACH_BPF:
		case SO_ATTACH_REUSEPORT_EBPF:
		case SO_PEERCRED:
		case SO_PEERSEC:
		case SO_PASSSEC:
			return false;
		}
		return true;
	}
	return sockopt_level_ok(level);
}

/*
 * What the kernel answers for an option sockopt_ok() refuses: ENOPROTOOPT
 * for a name refused at a level the runtime passes on; at any other
 * level, what the family says of a level not its own.  AF_UNIX has no
 * handler (do_sock_getsockopt(): EOPNOTSUPP); IPv4's do_ip_getsockopt()
 * says EOPNOTSUPP, do_ip_setsockopt() ENOPROTOOPT, and so does MPTCP
 * (mptcp_getsockopt(), mptcp_supported_sockopt()) in either family;
 * IPv6's ipv6_getsockopt() and ipv6_setsockopt() say ENOPROTOOPT.
 */
static long sockopt_refused(struct file *f, int level, bool set)
{
	int proto = 0;
	socklen_t len = sizeof(proto);

	if (sockopt_level_ok(level))
		return -ENOPROTOOPT;
	if (f->sock_family == AF_UNIX)
		return -EOPNOTSUPP;
	if (f->sock_family == AF_INET6 &&
	    (getsockopt(f->hostfd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) < 0 ||
	     proto != IPPROTO_MPTCP))
		return -ENOPROTOOPT;
	return set ? -ENOPROTOOPT : -EOPNOTSUPP;
}

long sys_setsockopt(struct task *t, const uint64_t *a)
{
	char buf[256];
	int len = a[4];
	struct file *f;
	long r;

	f = sock_lookup(t, a[0], &r);
	if (!f)
		return r;
	if (len < 0)
		return -EINVAL;
	if (f->sock_family == AF_NETLINK && a[1] != SOL_SOCKET)
		return netlink_sockopt(t, a, true);
	if (!sockopt_ok(a[1], a[2]))
		return sockopt_refused(f, a[1], true);
	if (len > (int)sizeof(buf))
		len = sizeof(buf);
	if (copy_from_guest(t, buf, a[3], len) < 0)
		return -EFAULT;
	if (setsockopt(f->hostfd, a[1], a[2], buf, len) < 0)
		return -errno;
	if (a[1] == SOL_SOCKET) {
		/* The host took it: a timeval, whichever of the two names. */
		struct timeval tv;
		bool neg;

		memcpy(&tv, buf, sizeof(tv));
		neg = tv.tv_sec < 0;

		if (a[2] == SO_RCVTIMEO_OLD || a[2] == SO_RCVTIMEO_NEW)
			f->rcv_nowait = neg;
		else if (a[2] == SO_SNDTIMEO_OLD || a[2] == SO_SNDTIMEO_NEW)
			f->snd_nowait = neg;
	}
	return 0;
}

/* SO_PEERCRED: the host would name the runtime; the guest gets its ids. */
static long peercred(struct task *t, struct file *f, uint64_t uval, uint64_t ulenp)
{
	struct ucred uc = { .pid = 0, .uid = host_uid, .gid = host_gid };
	socklen_t hlen = sizeof(uc);
	int len;

	if (getsockopt(f->hostfd, SOL_SOCKET, SO_PEERCRED, &uc, &hlen) < 0)
		return -errno;
	if (copy_from_guest(t, &len, ulenp, sizeof(len)) < 0)
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	uc.pid = uc.pid == getpid() ? f->peer_pid : 0;
	if (len > (int)sizeof(uc))
		len = sizeof(uc);
	if (copy_to_guest(t, uval, &uc, len) < 0 ||
	    copy_to_guest(t, ulenp, &len, sizeof(len)) < 0)
		return -EFAULT;
	return 0;
}

long sys_getsockopt(struct task *t, const uint64_t *a)
{
	char buf[256];
	socklen_t hlen;
	struct file *f;
	int len;
	long r;

	f = sock_lookup(t, a[0], &r);
	if (!f)
		return r;
	if (a[1] == SOL_SOCKET && a[2] == SO_PEERCRED)
		return peercred(t, f, a[3], a[4]);
	if (f->sock_family == AF_NETLINK &&
	    (a[1] != SOL_SOCKET || a[2] == SO_DOMAIN || a[2] == SO_TYPE ||
	     a[2] == SO_PROTOCOL))
		return netlink_sockopt(t, a, false);
	if (!sockopt_ok(a[1], a[2]))
		return sockopt_refused(f, a[1], false);
	if (copy_from_guest(t, &len, a[4], sizeof(len)) < 0)
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	hlen = len < (int)sizeof(buf) ? len : (int)sizeof(buf);
	if (getsockopt(f->hostfd, a[1], a[2], buf, &hlen) < 0)
		return -errno;
	if (copy_to_guest(t, a[3], buf, hlen) < 0 ||
	    copy_to_guest(t, a[4], &hlen, sizeof(int)) < 0)
		return -EFAULT;
	return 0;
}

/* ---- control messages ---- */

/*
 * A guest's control data in @c (length *@clen) for the host: SCM_RIGHTS'
 * guest fds become the host fds behind them, SCM_CREDENTIALS' guest pid
 * the runtime's (the kernel checks it against the sender).
 */
static int control_in(struct task *t, char *c, size_t clen)
{
	struct msghdr m = { .msg_control = c, .msg_controllen = clen };
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_RIGHTS) {
			int *fd = (int *)CMSG_DATA(cm);
			size_t i, n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (i = 0; i < n; i++) {
				struct file *f = fd_lookup(t, (unsigned int)fd[i]);

				if (!f)
					return -EBADF;
				fd[i] = f->hostfd;
			}
		} else if (cm->cmsg_type == SCM_CREDENTIALS &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred *uc = (struct ucred *)CMSG_DATA(cm);

			if (uc->pid != t->p->pid)
				return -EPERM;
			uc->pid = getpid();
		}
	}
	return 0;
}

/*
 * A host fd that arrived in SCM_RIGHTS, as a guest fd (-1 if none is
 * free: the kernel would have truncated the message instead).  Its host
 * O_NONBLOCK may be the runtime's own (its pipes and sockets are): the
 * guest sees a blocking file, and the runtime waits for it as for its own.
 */
static int install_received(struct task *t, int hfd, int flags)
{
	int fl = fcntl(hfd, F_GETFL), v;
	socklen_t vl = sizeof(v);
	struct file *f;
	long g;

	f = file_new(hfd, (fl < 0 ? O_RDWR : fl) & ~O_NONBLOCK);
	if (!f) {
		close(hfd);
		return -1;
	}
	f->hostnb = fl >= 0 && (fl & O_NONBLOCK);
	if (getsockopt(hfd, SOL_SOCKET, SO_DOMAIN, &v, &vl) == 0) {
		f->kind = FILE_SOCKET;
		f->pollable = true;
		f->sock_family = v;
		vl = sizeof(v);
		if (getsockopt(hfd, SOL_SOCKET, SO_TYPE, &v, &vl) == 0)
			f->sock_type = v;
	}
	g = fd_install(t, 0, f, flags & MSG_CMSG_CLOEXEC);
	return g < 0 ? -1 : (int)g;
}

/*
 * Control data from the host for the guest: the fds that arrived become
 * guest fds (MSG_CMSG_CLOEXEC), credentials name no host pid.
 */
static void control_out(struct task *t, char *c, size_t clen, int flags)
{
	struct msghdr m = { .msg_control = c, .msg_controllen = clen };
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_RIGHTS) {
			int *fd = (int *)CMSG_DATA(cm);
			size_t i, n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (i = 0; i < n; i++)
				fd[i] = install_received(t, fd[i], flags);
		} else if (cm->cmsg_type == SCM_CREDENTIALS &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred *uc = (struct ucred *)CMSG_DATA(cm);

			if (uc->pid == getpid())
				uc->pid = 0;
		}
	}
}

/* ---- sending and receiving ---- */

struct gmsg {
	struct msghdr m;
	struct sockaddr_storage name;
	struct iovec iov;
	char *buf;
	uint64_t umsg;		/* recvmsg: the guest's msghdr */
	uint64_t ubuf;		/* recvfrom: the guest's buffer */
	char control[MAX_CONTROL];
};

/* Gather a guest msghdr at @umsg into @g (the data into one buffer). */
static long msg_in(struct task *t, uint64_t umsg, struct gmsg *g, bool recv)
{
	struct msghdr gm;
	struct iovec iov[1024];		/* UIO_MAXIOV */
	size_t total = 0, i;

	if (copy_from_guest(t, &gm, umsg, sizeof(gm)) < 0)
		return -EFAULT;
	/* __copy_msghdr(): the name's length is an int, clamped. */
	if (gm.msg_name && (int)gm.msg_namelen < 0)
		return -EINVAL;
	if (gm.msg_namelen > MAX_ADDR)
		gm.msg_namelen = MAX_ADDR;
	if (gm.msg_iovlen > ARRAY_SIZE(iov))
		return -EMSGSIZE;
	if (copy_from_guest(t, iov, (uint64_t)gm.msg_iov,
			    gm.msg_iovlen * sizeof(iov[0])) < 0)
		return -EFAULT;
	for (i = 0; i < gm.msg_iovlen; i++) {
		if ((ssize_t)iov[i].iov_len < 0)
			return -EINVAL;
		total += iov[i].iov_len < IO_MAX ? iov[i].iov_len : IO_MAX;
		if (total > IO_MAX)
			total = IO_MAX;
	}
	memset(&g->m, 0, sizeof(g->m));
	g->umsg = umsg;
	g->buf = malloc(total + 1);
	if (!g->buf)
		return -ENOMEM;
	g->iov.iov_base = g->buf;
	g->iov.iov_len = total;
	g->m.msg_iov = &g->iov;
	g->m.msg_iovlen = 1;
	/*
	 * Control data to send must fit the runtime's buffer (the kernel's
	 * limit is optmem_max); a larger buffer to receive into is fine, as
	 * there: MAX_CONTROL holds more than SCM_MAX_FD fds.
	 */
	if (gm.msg_controllen > MAX_CONTROL && !recv)
		return -ENOBUFS;
	if (gm.msg_control && gm.msg_controllen) {
		g->m.msg_control = g->control;
		g->m.msg_controllen = gm.msg_controllen < MAX_CONTROL ?
				      gm.msg_controllen : MAX_CONTROL;
		if (!recv && copy_from_guest(t, g->control, (uint64_t)gm.msg_control,
					     gm.msg_controllen) < 0)
			return -EFAULT;
	}
	if (gm.msg_name && !recv) {
		socklen_t hlen;
		long r = addr_in(t, (uint64_t)gm.msg_name, gm.msg_namelen,
				 &g->name, &hlen);

		if (r < 0)
			return r;
		g->m.msg_name = &g->name;
		g->m.msg_namelen = hlen;
	} else if (gm.msg_name) {
		g->m.msg_name = &g->name;
		g->m.msg_namelen = sizeof(g->name);
	}
	if (!recv) {
		size_t off = 0, n;

		for (i = 0; i < gm.msg_iovlen && off < total; i++) {
			n = iov[i].iov_len < total - off ? iov[i].iov_len : total - off;
			if (copy_from_guest(t, g->buf + off, (uint64_t)iov[i].iov_base, n) < 0)
				return -EFAULT;
			off += n;
		}
	}
	return 0;
}

/*
 * @n received bytes at @buf to the guest's buffer, @off bytes into it:
 * recvfrom's, or scattered over recvmsg's iovecs (read anew: between the
 * parts of a MSG_WAITALL another guest thread may have changed them).
 */
static int data_out(struct task *t, const struct gmsg *g, size_t off,
		    const char *buf, size_t n)
{
	struct msghdr gm;
	struct iovec iov[1024];
	size_t c, i;

	if (!g->umsg)
		return copy_to_guest(t, g->ubuf + off, buf, n);
	if (copy_from_guest(t, &gm, g->umsg, sizeof(gm)) < 0 ||
	    gm.msg_iovlen > ARRAY_SIZE(iov) ||
	    copy_from_guest(t, iov, (uint64_t)gm.msg_iov,
			    gm.msg_iovlen * sizeof(iov[0])) < 0)
		return -EFAULT;
	for (i = 0; i < gm.msg_iovlen && n; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		c = iov[i].iov_len - off < n ? iov[i].iov_len - off : n;
		if (copy_to_guest(t, (uint64_t)iov[i].iov_base + off, buf, c) < 0)
			return -EFAULT;
		buf += c;
		n -= c;
		off = 0;
	}
	return 0;
}

/* The rest of @g (the data went already) back to the guest's msghdr. */
static long msg_out(struct task *t, uint64_t umsg, struct gmsg *g, size_t n,
		    int flags)
{
	struct msghdr gm;

	if (copy_from_guest(t, &gm, umsg, sizeof(gm)) < 0)
		return -EFAULT;
	if (gm.msg_control) {
		control_out(t, g->control, g->m.msg_controllen, flags);
		if (copy_to_guest(t, (uint64_t)gm.msg_control, g->control,
				  g->m.msg_controllen) < 0)
			return -EFAULT;
		gm.msg_controllen = g->m.msg_controllen;
	}
	if (gm.msg_name) {
		socklen_t hlen = g->m.msg_namelen;
		uint64_t ulenp = umsg + offsetof(struct msghdr, msg_namelen);

		if (addr_out(t, &g->name, hlen, (uint64_t)gm.msg_name, ulenp) < 0)
			return -EFAULT;
	}
	gm.msg_flags = g->m.msg_flags;
	if (copy_to_guest(t, umsg + offsetof(struct msghdr, msg_controllen),
			  &gm.msg_controllen, sizeof(gm.msg_controllen)) < 0 ||
	    copy_to_guest(t, umsg + offsetof(struct msghdr, msg_flags),
			  &gm.msg_flags, sizeof(gm.msg_flags)) < 0)
		return -EFAULT;
	return n;
}

static bool would_wait(struct file *f, int flags)
{
	return !(f->flags & O_NONBLOCK) && !(flags & MSG_DONTWAIT);
}

/*
 * The host's sendmsg of @g: to an AF_UNIX datagram socket's path name
 * through the guest's view, as connect's (a stream ignores the name or
 * refuses it, unix_stream_sendmsg()).  The bytes sent, or -1 and errno.
 */
static ssize_t host_sendmsg(struct task *t, struct file *f, struct gmsg *g,
			    int flags)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	long r;

	if (!g->m.msg_name || f->sock_type != SOCK_DGRAM ||
	    !unix_path(f, &g->name, g->m.msg_namelen))
		return sendmsg(f->hostfd, &g->m, flags);
	r = unix_path_of(&g->name, g->m.msg_namelen, path);
	if (r == 0)
		r = unix_path_op(t, path, f->hostfd, UNIX_SEND, &g->m, flags);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}

/*
 * sendmsg with the guest's flags: a blocking stream socket sends it all
 * (t->sys_done keeps the progress across waits), as the kernel does.
 */
static long do_sendmsg(struct task *t, struct file *f, struct gmsg *g,
		       int flags)
{
	size_t total = g->iov.iov_len;
	ssize_t n;

	if (flags & ~(MSG_CONFIRM | MSG_DONTROUTE | MSG_DONTWAIT | MSG_EOR |
		      MSG_MORE | MSG_NOSIGNAL | MSG_OOB | MSG_FASTOPEN |
		      MSG_ZEROCOPY | MSG_BATCH))
		return -EOPNOTSUPP;
	if (f->sock_family == AF_NETLINK)
		return netlink_send(t, f, g->m.msg_name, g->m.msg_namelen,
				    g->buf, total);
	if (g->m.msg_controllen) {
		long r = control_in(t, g->control, g->m.msg_controllen);

		if (r < 0)
			return r;
	}
	for (;;) {
		g->iov.iov_base = g->buf + t->sys_done;
		g->iov.iov_len = total - t->sys_done;
		n = host_sendmsg(t, f, g, flags | MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EAGAIN && would_wait(f, flags)) {
			long r = sock_block(t, f, POLLOUT);

			return r == -EAGAIN && t->sys_done ? (long)t->sys_done : r;
		}
		if (n < 0) {
			if (errno == EPIPE && !(flags & MSG_NOSIGNAL)) {
				struct ksiginfo si = { .signo = SIGPIPE,
						       .pid = t->p->pid };

				sig_send_task(t, &si);
			}
			return t->sys_done ? (long)t->sys_done : -errno;
		}
		io_activity = true;
		t->sys_done += n;
		g->m.msg_control = NULL;	/* sent with the first part */
		g->m.msg_controllen = 0;
		if (t->sys_done >= total || f->sock_type != SOCK_STREAM ||
		    !would_wait(f, flags))
			return t->sys_done;
	}
}

/*
 * recvmsg with the guest's flags, the data straight to the guest
 * (data_out()).  MSG_WAITALL on a blocking stream waits for the whole
 * length (t->sys_done counts what went to the guest already, across
 * waits), as the kernel does, until EOF, an error, the timeout or a
 * signal (syscall_interrupted() returns t->sys_done), or a part that
 * brought control data (the kernel too ends a unix stream's read there).
 */
static long do_recvmsg(struct task *t, struct file *f, struct gmsg *g,
		       int flags)
{
	size_t total = g->iov.iov_len, clen = g->m.msg_controllen, c;
	socklen_t nlen = g->m.msg_namelen;
	bool all = (flags & MSG_WAITALL) && f->sock_type == SOCK_STREAM &&
		   !(flags & (MSG_PEEK | MSG_OOB | MSG_ERRQUEUE)) &&
		   would_wait(f, flags);
	ssize_t n;
	long r;

	if (flags & ~(MSG_CMSG_CLOEXEC | MSG_DONTWAIT | MSG_ERRQUEUE | MSG_OOB |
		      MSG_PEEK | MSG_TRUNC | MSG_WAITALL))
		return -EOPNOTSUPP;
	for (;;) {
		g->iov.iov_len = total - t->sys_done;
		g->m.msg_controllen = clen;
		g->m.msg_namelen = nlen;
		n = recvmsg(f->hostfd, &g->m, (flags & ~MSG_WAITALL) |
			    MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		/*
		 * Urgent data and the error queue never wait (tcp_recv_urg(),
		 * sock_recv_errqueue()): their EAGAIN is the answer, and the
		 * socket may well be readable.
		 */
		if (n < 0 && errno == EAGAIN && would_wait(f, flags) &&
		    !(flags & (MSG_OOB | MSG_ERRQUEUE))) {
			r = sock_block(t, f, POLLIN);
			return r == -EAGAIN && t->sys_done ? (long)t->sys_done : r;
		}
		if (n < 0)
			return t->sys_done ? (long)t->sys_done : -errno;
		if (n > 0)
			io_activity = true;
		if (f->sock_family == AF_NETLINK && g->m.msg_name)
			netlink_from_kernel(&g->name, &g->m.msg_namelen);
		/* MSG_TRUNC: a datagram's length, maybe more than was read. */
		c = (size_t)n < g->iov.iov_len ? (size_t)n : g->iov.iov_len;
		if (data_out(t, g, t->sys_done, g->buf, c) < 0)
			return -EFAULT;
		if (!all)
			return n;
		t->sys_done += n;
		if (!n || t->sys_done >= total || g->m.msg_controllen)
			return t->sys_done;
	}
}

/* sendmsg or (@recv) recvmsg of the guest's msghdr at a[1]. */
static long sock_msg(struct task *t, const uint64_t *a, bool recv)
{
	struct gmsg *g;
	struct file *f;
	long r;

	/* A 32-bit flag of the compat calls, refused first (__sys_recvmsg()). */
	if ((unsigned int)a[2] & MSG_CMSG_COMPAT)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	f = sock_lookup(t, a[0], &r);
	if (f)
		r = msg_in(t, a[1], g, recv);
	if (f && r == 0)
		r = recv ? do_recvmsg(t, f, g, a[2]) : do_sendmsg(t, f, g, a[2]);
	if (f && recv && r >= 0)
		r = msg_out(t, a[1], g, r, a[2]);
	free(g->buf);
	free(g);
	return r;
}

long sys_sendmsg(struct task *t, const uint64_t *a)
{
	return sock_msg(t, a, false);
}

long sys_recvmsg(struct task *t, const uint64_t *a)
{
	return sock_msg(t, a, true);
}

/* sendto and recvfrom: a message of one buffer of (at most) @len bytes. */
static struct gmsg *gmsg_flat(uint64_t len)
{
	struct gmsg *g = calloc(1, sizeof(*g));

	if (len > IO_MAX)
		len = IO_MAX;
	if (g)
		g->buf = malloc(len + 1);
	if (!g || !g->buf) {
		free(g);
		return NULL;
	}
	g->iov = (struct iovec){ g->buf, len };
	g->m.msg_iov = &g->iov;
	g->m.msg_iovlen = 1;
	return g;
}

long sys_sendto(struct task *t, const uint64_t *a)
{
	struct gmsg *g = gmsg_flat(a[2]);
	struct file *f;
	socklen_t hlen;
	long r;

	if (!g)
		return -ENOMEM;
	f = sock_lookup(t, a[0], &r);
	if (f)
		r = copy_from_guest(t, g->buf, a[1], g->iov.iov_len);
	if (f && r == 0 && a[4]) {
		r = addr_in(t, a[4], a[5], &g->name, &hlen);
		g->m.msg_name = &g->name;
		g->m.msg_namelen = hlen;
	}
	if (f && r == 0)
		r = do_sendmsg(t, f, g, a[3]);
	free(g->buf);
	free(g);
	return r;
}

long sys_recvfrom(struct task *t, const uint64_t *a)
{
	struct gmsg *g = gmsg_flat(a[2]);
	struct file *f;
	long r;

	if (!g)
		return -ENOMEM;
	f = sock_lookup(t, a[0], &r);
	if (f) {
		g->ubuf = a[1];
		g->m.msg_name = a[4] ? &g->name : NULL;
		g->m.msg_namelen = a[4] ? sizeof(g->name) : 0;
		r = do_recvmsg(t, f, g, a[3] & ~MSG_CMSG_CLOEXEC);
	}
	/*
	 * The datagram is gone already when its address cannot go back, as
	 * in __sys_recvfrom(): an address length below 0 is EINVAL then.
	 */
	if (f && r >= 0 && a[4]) {
		long e = addr_out(t, &g->name, g->m.msg_namelen, a[4], a[5]);

		if (e < 0)
			r = e;
	}
	free(g->buf);
	free(g);
	return r;
}

/*
 * recvmmsg's timeout at guest @uts, checked as do_recvmmsg() does before
 * the fd: its end in t->sys_end, on the syscall's first call only (a
 * wait for the first datagram keeps it).  0, -EFAULT or -EINVAL.
 */
static int mmsg_timeout(struct task *t, uint64_t uts)
{
	struct timespec ts;
	int r;

	if (!uts || t->sys_again)
		return 0;
	r = timespec_from_guest(t, uts, &ts);
	if (r)
		return r;
	t->sys_end = ns_after(timespec_ns(&ts));
	return 0;
}

/*
 * sendmmsg/recvmmsg: one message after another, as far as they go.  Only
 * the first may wait.  recvmmsg's timeout is checked after each datagram,
 * as in the kernel (it does not end a wait), and the time left goes back
 * once one came; MSG_WAITFORONE is the runtime's way already.
 */
static long mmsg(struct task *t, const uint64_t *a, bool recv)
{
	unsigned int vlen = a[2] < 1024 ? a[2] : 1024, i;	/* UIO_MAXIOV */
	const size_t sz = sizeof(struct mmsghdr);
	uint64_t flags = (unsigned int)a[3];
	int64_t left = 0;
	struct file *f;
	long r = 0;

	if (flags & MSG_CMSG_COMPAT)
		return -EINVAL;
	if (recv) {
		r = mmsg_timeout(t, a[4]);
		if (r)
			return r;
		flags &= ~(uint64_t)MSG_WAITFORONE;
	}
	f = sock_lookup(t, a[0], &r);
	if (!f)
		return r;
	for (i = 0; i < vlen; i++) {
		uint64_t b[3] = { a[0], a[1] + i * sz, flags };
		unsigned int n;

		/* Only the first may wait (and keep its progress across). */
		if (i) {
			b[2] |= MSG_DONTWAIT;
			t->sys_done = 0;
		}
		r = recv ? sys_recvmsg(t, b) : sys_sendmsg(t, b);
		if (r == SYS_BLOCK && i) {
			wait_reset(&t->w);
			r = -EAGAIN;
		}
		if (r < 0)
			break;
		n = r;
		if (copy_to_guest(t, a[1] + i * sz + offsetof(struct mmsghdr, msg_len),
				  &n, sizeof(n)) < 0) {
			r = -EFAULT;
			break;
		}
		if (recv && a[4]) {
			left = t->sys_end - now_ns();
			if (left <= 0) {
				left = 0;
				i++;
				break;
			}
		}
	}
	t->sys_done = 0;
	if (i && recv && a[4]) {
		struct timespec ts = { left / 1000000000, left % 1000000000 };

		if (copy_to_guest(t, a[4], &ts, sizeof(ts)) < 0)
			return -EFAULT;
	}
	return i ? (long)i : r;
}

long sys_sendmmsg(struct task *t, const uint64_t *a)
{
	return mmsg(t, a, false);
}

long sys_recvmmsg(struct task *t, const uint64_t *a)
{
	return mmsg(t, a, true);
}
