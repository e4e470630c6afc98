// SPDX-License-Identifier: GPL-2.0-only
/*
 * AF_NETLINK, NETLINK_ROUTE only: the queries getifaddrs(), getaddrinfo()'s
 * AI_ADDRCONFIG, if_nameindex() and ip make, never a change to the host.
 *
 * A guest's netlink socket is one end of a host AF_UNIX SOCK_SEQPACKET
 * pair: the guest reads (and waits, polls, epolls) on it as on any socket,
 * and the runtime writes the kernel's answers into the other end.  What
 * the guest sends never reaches the host as it is: each message is looked
 * at (netlink_rcv_skb()'s walk) and
 *  - a GET (RTM_GETLINK, RTM_GETADDR, dumps too) goes to a fresh host
 *    NETLINK_ROUTE socket of the runtime; its answers come back with the
 *    guest's port id in nlmsg_pid (the sequence number is the guest's own),
 *    under --net=none only those about lo (ifindex 1: a new network
 *    namespace's only interface);
 *  - any other request (RTM_NEW*, RTM_DEL*, RTM_SET*) is answered EPERM,
 *    as rtnetlink_rcv_msg() answers a process without CAP_NET_ADMIN: even
 *    a runtime run as root never changes the host's network for a guest;
 *  - control messages are acked if asked, as the kernel does.
 * Other netlink protocols are EPROTONOSUPPORT: as on a kernel that does not
 * have them, so callers fall back (uevents, audit, netfilter...).  Port ids
 * are the kernel's: a bind's, or on autobind the guest's pid, else -4097
 * and down; the answers' source is the kernel (nl_pid 0).  Multicast groups
 * are accepted and never deliver anything.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "umlrun.h"

#define NL_BUF		65536	/* a dump's batch is at most 32 KiB */
#define NL_MAX_PORTS	1024

/* The port ids bound now, across the whole guest (the kernel's are global). */
static int32_t ports[NL_MAX_PORTS];
static int nports;
static int32_t rover = -4097;

static bool port_used(int32_t id)
{
	int i;

	for (i = 0; i < nports; i++)
		if (ports[i] == id)
			return true;
	return false;
}

static int port_take(int32_t id)
{
	if (port_used(id))
		return -EADDRINUSE;
	if (nports == NL_MAX_PORTS)
		return -ENOMEM;
	ports[nports++] = id;
	return 0;
}

static void port_drop(int32_t id)
{
	int i;

	for (i = 0; i < nports; i++)
		if (ports[i] == id) {
			ports[i] = ports[--nports];
			return;
		}
}

/* netlink_autobind(): the pid first, then negative ids. */
static int autobind(struct task *t, struct file *f)
{
	int32_t id = t->p->pid;
	int r;

	if (f->nl_bound)
		return 0;
	while ((r = port_take(id)) == -EADDRINUSE) {
		id = rover--;
		if (rover > -4097)
			rover = -4097;
	}
	if (r < 0)
		return r;
	f->nl_portid = id;
	f->nl_bound = true;
	return 0;
}

long netlink_socket(struct task *t, int type, int protocol, int flags)
{
	struct file *f;
	int sv[2], sz = 1 << 20;
	long g;

	if (type != SOCK_RAW && type != SOCK_DGRAM)
		return -ESOCKTNOSUPPORT;
	if (protocol != NETLINK_ROUTE)
		return -EPROTONOSUPPORT;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	/* Room for a dump the guest has not read yet (capped by wmem_max). */
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	f = file_new(sv[0], O_RDWR | (flags & SOCK_NONBLOCK ? O_NONBLOCK : 0));
	if (!f) {
		close(sv[0]);
		close(sv[1]);
		return -ENOMEM;
	}
	f->kind = FILE_SOCKET;
	f->pollable = f->hostnb = true;
	f->sock_family = AF_NETLINK;
	f->sock_type = type;
	f->nl_peer = sv[1];
	g = fd_install(t, 0, f, flags & SOCK_CLOEXEC);
	if (g < 0)
		file_put(f);
	return g;
}

void netlink_release(struct file *f)
{
	if (f->nl_bound)
		port_drop(f->nl_portid);
	close(f->nl_peer);
}

/* netlink_bind(): groups are taken (and never deliver). */
long netlink_bind(struct task *t, struct file *f, uint64_t uaddr, uint64_t ulen)
{
	struct sockaddr_nl nl;
	int r;

	if ((int)ulen < (int)sizeof(nl))
		return -EINVAL;
	if (copy_from_guest(t, &nl, uaddr, sizeof(nl)) < 0)
		return -EFAULT;
	if (nl.nl_family != AF_NETLINK)
		return -EINVAL;
	if (f->nl_bound)
		return nl.nl_pid == (uint32_t)f->nl_portid ? 0 : -EINVAL;
	if (!nl.nl_pid)
		return autobind(t, f);
	r = port_take((int32_t)nl.nl_pid);
	if (r < 0)
		return r;
	f->nl_portid = nl.nl_pid;
	f->nl_bound = true;
	return 0;
}

/* connect(): only to the kernel; AF_UNSPEC disconnects. */
long netlink_connect(struct task *t, struct file *f, uint64_t uaddr, uint64_t ulen)
{
	struct sockaddr_nl nl;

	if ((int)ulen < (int)sizeof(sa_family_t))
		return -EINVAL;
	memset(&nl, 0, sizeof(nl));
	if (copy_from_guest(t, &nl, uaddr, ulen < sizeof(nl) ? ulen : sizeof(nl)) < 0)
		return -EFAULT;
	if (nl.nl_family == AF_UNSPEC)
		return 0;
	if ((int)ulen < (int)sizeof(nl) || nl.nl_family != AF_NETLINK)
		return -EINVAL;
	if (nl.nl_groups)
		return -EPERM;
	if (nl.nl_pid)
		return -ECONNREFUSED;	/* no other guest's netlink sockets */
	return autobind(t, f);
}

/* getsockname (the socket's port id) and getpeername (the kernel). */
long netlink_name(struct task *t, struct file *f, uint64_t uaddr,
		  uint64_t ulenp, bool peer)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	int len;

	if (!peer)
		nl.nl_pid = f->nl_bound ? (uint32_t)f->nl_portid : 0;
	if (copy_from_guest(t, &len, ulenp, sizeof(len)) < 0)
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	if (copy_to_guest(t, uaddr, &nl, (size_t)len < sizeof(nl) ? (size_t)len : sizeof(nl)) < 0)
		return -EFAULT;
	len = sizeof(nl);
	return copy_to_guest(t, ulenp, &len, sizeof(len)) < 0 ? -EFAULT : 0;
}

/* The sender of every answer: the kernel. */
void netlink_from_kernel(struct sockaddr_storage *name, socklen_t *len)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	memcpy(name, &nl, sizeof(nl));
	*len = sizeof(nl);
}

/* An answer to the guest: one datagram into the pair's other end. */
static void answer(struct file *f, const void *buf, size_t len)
{
	if (len)
		send(f->nl_peer, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	io_activity = true;
}

/* netlink_ack(): @err and the request (all of it for an error). */
static void ack(struct file *f, const struct nlmsghdr *req, int err)
{
	size_t plen = err ? req->nlmsg_len : sizeof(*req);
	size_t len = NLMSG_LENGTH(sizeof(int) + plen);
	struct nlmsghdr *h = calloc(1, NLMSG_ALIGN(len));
	struct nlmsgerr *e;

	if (!h)
		return;
	h->nlmsg_len = len;
	h->nlmsg_type = NLMSG_ERROR;
	h->nlmsg_flags = err ? 0 : NLM_F_CAPPED;
	h->nlmsg_seq = req->nlmsg_seq;
	h->nlmsg_pid = f->nl_portid;
	e = NLMSG_DATA(h);
	e->error = err;
	memcpy(&e->msg, req, plen);
	answer(f, h, len);
	free(h);
}

/* Under --net=none: is @h about lo (ifindex 1), or no interface's data? */
static bool about_lo(const struct nlmsghdr *h)
{
	const char *d = NLMSG_DATA(h);
	size_t dlen = h->nlmsg_len - NLMSG_HDRLEN;
	int idx = 0;

	switch (h->nlmsg_type) {
	case NLMSG_NOOP:
	case NLMSG_ERROR:
	case NLMSG_DONE:
	case NLMSG_OVERRUN:
		return true;
	case RTM_NEWLINK:
	case RTM_DELLINK:
	case RTM_NEWADDR:
	case RTM_DELADDR:
	case RTM_NEWNEIGH:
	case RTM_DELNEIGH:
		/* ifinfomsg, ifaddrmsg and ndmsg: the index at offset 4 */
		if (dlen < 8)
			return false;
		memcpy(&idx, d + 4, sizeof(idx));
		return idx == 1;
	case RTM_NEWROUTE:
	case RTM_DELROUTE: {
		const struct rtattr *a = (const void *)(d + NLMSG_ALIGN(sizeof(struct rtmsg)));
		int left = (int)dlen - NLMSG_ALIGN(sizeof(struct rtmsg));

		for (; left > 0 && RTA_OK(a, left); a = RTA_NEXT(a, left))
			if (a->rta_type == RTA_OIF && RTA_PAYLOAD(a) >= sizeof(int)) {
				memcpy(&idx, RTA_DATA(a), sizeof(idx));
				return idx == 1;
			}
		return false;
	}
	}
	return false;
}

/*
 * The host's answers in @buf (@n bytes, one datagram) for the guest: its
 * port id in each, and under --net=none only what is about lo.
 */
static size_t rewrite(struct file *f, char *buf, size_t n)
{
	size_t in = 0, out = 0;

	while (n - in >= NLMSG_HDRLEN) {
		struct nlmsghdr *h = (struct nlmsghdr *)(buf + in);
		size_t len = h->nlmsg_len, step = NLMSG_ALIGN(len);

		if (len < NLMSG_HDRLEN || len > n - in)
			break;
		if (step > n - in)
			step = n - in;
		h->nlmsg_pid = f->nl_portid;
		if (opt.net != NET_NONE || about_lo(h)) {
			memmove(buf + out, h, step);
			out += step;
		}
		in += step;
	}
	return out;
}

/* A GET request @req: the host's answers, all of a dump's batches. */
static void forward(struct file *f, const struct nlmsghdr *req, char *buf)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	int hs = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_ROUTE), i;
	ssize_t n;

	if (hs < 0) {
		ack(f, req, -errno);
		return;
	}
	do
		n = sendto(hs, req, req->nlmsg_len, 0, (struct sockaddr *)&kernel,
			   sizeof(kernel));
	while (n < 0 && errno == EINTR);	/* the runtime's own signal */
	if (n < 0) {
		ack(f, req, -errno);
		close(hs);
		return;
	}
	/*
	 * The kernel answers a request, and a dump's first batch, inside
	 * sendmsg, and each next batch inside the recvmsg that makes room:
	 * everything is there without waiting.
	 */
	for (i = 0; i < 100000; i++) {
		do
			n = recv(hs, buf, NL_BUF, MSG_DONTWAIT);
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			break;
		answer(f, buf, rewrite(f, buf, n));
	}
	close(hs);
}

/*
 * The guest sent @len bytes at @data (to the kernel: @to is its address,
 * checked by the caller): netlink_rcv_skb()'s walk over the messages.
 */
static void handle(struct file *f, const char *data, size_t len, char *buf)
{
	while (len >= NLMSG_HDRLEN) {
		struct nlmsghdr *h = malloc(len);
		size_t step;

		if (!h)
			return;
		memcpy(h, data, len);
		if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > len) {
			free(h);
			return;
		}
		if (!(h->nlmsg_flags & NLM_F_REQUEST) || h->nlmsg_type < NLMSG_MIN_TYPE) {
			if (h->nlmsg_flags & NLM_F_ACK)
				ack(f, h, 0);
		} else if (h->nlmsg_type > RTM_MAX) {
			ack(f, h, -EOPNOTSUPP);
		} else if ((h->nlmsg_type & 3) != 2) {	/* not RTNL_KIND_GET */
			ack(f, h, -EPERM);
		} else {
			forward(f, h, buf);
		}
		step = NLMSG_ALIGN(h->nlmsg_len);
		free(h);
		if (step > len)
			step = len;
		data += step;
		len -= step;
	}
}

/*
 * sendmsg/sendto/write of @len bytes at @data, to @name (NULL: the
 * socket's destination, the kernel): netlink_sendmsg()'s checks.
 */
long netlink_send(struct task *t, struct file *f, const void *name,
		  socklen_t namelen, const char *data, size_t len)
{
	struct sockaddr_nl to;
	char *buf;
	int r;

	if (name) {
		if (namelen < sizeof(to))
			return -EINVAL;
		memcpy(&to, name, sizeof(to));
		if (to.nl_family != AF_NETLINK)
			return -EINVAL;
		if (to.nl_groups)
			return -EPERM;
		if (to.nl_pid)
			return -ECONNREFUSED;
	}
	r = autobind(t, f);
	if (r < 0)
		return r;
	buf = malloc(NL_BUF);
	if (!buf)
		return -ENOMEM;
	handle(f, data, len, buf);
	free(buf);
	return len;
}

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/*
 * setsockopt/getsockopt at SOL_NETLINK (SOL_SOCKET's are the host
 * socket's, but for what names the socket: SO_DOMAIN, SO_TYPE and
 * SO_PROTOCOL are the guest's): the options netlink_setsockopt() knows
 * are taken and change nothing here (no groups deliver, acks carry no
 * extended data); the other levels and options are ENOPROTOOPT, as there.
 */
long netlink_sockopt(struct task *t, const uint64_t *a, bool set)
{
	int name = (int)a[2], len, val = 0;
	struct file *f;

	if ((int)a[1] == SOL_SOCKET && !set) {
		f = fd_lookup(t, a[0]);
		val = name == SO_DOMAIN ? AF_NETLINK :
		      name == SO_TYPE ? f->sock_type : NETLINK_ROUTE;
		goto get;
	}
	if ((int)a[1] != SOL_NETLINK)
		return -ENOPROTOOPT;
	switch (name) {
	case NETLINK_ADD_MEMBERSHIP:
	case NETLINK_DROP_MEMBERSHIP:
	case NETLINK_PKTINFO:
	case NETLINK_BROADCAST_ERROR:
	case NETLINK_NO_ENOBUFS:
	case NETLINK_CAP_ACK:
	case NETLINK_EXT_ACK:
	case NETLINK_GET_STRICT_CHK:
		break;
	case NETLINK_LISTEN_ALL_NSID:
		if (set)
			return -EPERM;	/* CAP_NET_BROADCAST */
		break;
	case NETLINK_LIST_MEMBERSHIPS:
		if (!set)
			break;
		return -ENOPROTOOPT;
	default:
		return -ENOPROTOOPT;
	}
	if (set)
		return (int)a[4] >= (int)sizeof(int) &&
		       copy_from_guest(t, &val, a[3], sizeof(val)) < 0 ? -EFAULT : 0;
get:
	if (copy_from_guest(t, &len, a[4], sizeof(len)) < 0)
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	if ((int)a[1] == SOL_SOCKET) {
		/* sock_getsockopt(): as much of the int as fits */
		len = len < (int)sizeof(int) ? len : (int)sizeof(int);
	} else if (name == NETLINK_LIST_MEMBERSHIPS) {
		len = 0;	/* no groups */
		return copy_to_guest(t, a[4], &len, sizeof(len)) < 0 ? -EFAULT : 0;
	} else if (len < (int)sizeof(int)) {
		return -EINVAL;
	} else {
		len = sizeof(int);
	}
	if (copy_to_guest(t, a[3], &val, len) < 0 ||
	    copy_to_guest(t, a[4], &len, sizeof(len)) < 0)
		return -EFAULT;
	return 0;
}

/*
 * The interface queries of a socket's ioctl (SIOCGIFINDEX, SIOCGIFNAME,
 * and what ifconfig reads of one interface): the host's answer, under
 * --net=none for lo only (ENODEV for the others, as if not there).  No
 * SIOCS*: setting is CAP_NET_ADMIN's.
 */
/*
 * SIOCGIFCONF (dev_ifconf()): the host's IPv4 interface list, lo alone
 * with --net=none; a NULL buffer asks for the length it needs.
 */
static long ifconf(struct task *t, struct file *f, uint64_t arg)
{
	struct ifconf ifc, h;
	struct ifreq req[64];
	int i, n = 0, len;

	if (copy_from_guest(t, &ifc, arg, sizeof(ifc)) < 0)
		return -EFAULT;
	h.ifc_len = sizeof(req);
	h.ifc_req = req;
	if (ioctl(f->hostfd, SIOCGIFCONF, &h) < 0)
		return -errno;
	for (i = 0; i < h.ifc_len / (int)sizeof(req[0]); i++)
		if (opt.net != NET_NONE || strcmp(req[i].ifr_name, "lo") == 0)
			req[n++] = req[i];
	len = n * sizeof(req[0]);
	if (ifc.ifc_req) {
		if (ifc.ifc_len < 0)
			ifc.ifc_len = 0;
		if (len > ifc.ifc_len)	/* whole entries that fit */
			len = ifc.ifc_len / sizeof(req[0]) * sizeof(req[0]);
		if (copy_to_guest(t, (uint64_t)ifc.ifc_req, req, len) < 0)
			return -EFAULT;
	}
	ifc.ifc_len = len;
	return copy_to_guest(t, arg, &ifc, sizeof(ifc)) < 0 ? -EFAULT : 0;
}

long netlink_ifreq(struct task *t, struct file *f, unsigned int cmd, uint64_t arg)
{
	struct ifreq ifr;

	if (f->kind != FILE_SOCKET)
		return -ENOTTY;
	if (cmd == SIOCGIFCONF)
		return ifconf(t, f, arg);
	if (copy_from_guest(t, &ifr, arg, sizeof(ifr)) < 0)
		return -EFAULT;
	if (cmd == SIOCSIFFLAGS || cmd == SIOCSIFMTU || cmd == SIOCSIFADDR ||
	    cmd == SIOCSIFNETMASK || cmd == SIOCSIFBRDADDR ||
	    cmd == SIOCSIFNAME || cmd == SIOCSIFHWADDR || cmd == SIOCSIFTXQLEN)
		return -EPERM;	/* a change to the host's network, as RTM_NEW* */
	ifr.ifr_name[IFNAMSIZ - 1] = 0;
	if (opt.net == NET_NONE &&
	    (cmd == SIOCGIFNAME ? ifr.ifr_ifindex != 1 : strcmp(ifr.ifr_name, "lo")))
		return -ENODEV;
	if (ioctl(f->hostfd, cmd, &ifr) < 0)
		return -errno;
	return copy_to_guest(t, arg, &ifr, sizeof(ifr)) < 0 ? -EFAULT : 0;
}
