// SPDX-License-Identifier: GPL-2.0-only
/*
 * AF_NETLINK route queries, as getifaddrs() and ip make them.
 *
 *   netlink          the kernel's checks of socket and bind, the port id
 *                    (the process's pid), and getifaddrs()'s list: the
 *                    same natively and under umlrun (busybox.sh compares)
 *   netlink change   an RTM_NEWADDR request: umlrun answers EPERM, as
 *                    the kernel does to a process without CAP_NET_ADMIN
 *                    (natively as root it would change the host: umlrun only)
 *   netlink names    the interface names getifaddrs() reports
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void res(const char *what, long r)
{
	printf("%s: %s\n", what, r < 0 ? strerror(errno) : "ok");
}

static void checks(void)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	socklen_t len = sizeof(nl), vlen;
	int fd, v[3];

	res("SOCK_STREAM", socket(AF_NETLINK, SOCK_STREAM, NETLINK_ROUTE));
	res("protocol 99", socket(AF_NETLINK, SOCK_RAW, 99));
	res("protocol -1", socket(AF_NETLINK, SOCK_RAW, -1));
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	res("NETLINK_ROUTE", fd);
	vlen = sizeof(int);
	getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v[0], &vlen);
	getsockopt(fd, SOL_SOCKET, SO_TYPE, &v[1], &vlen);
	getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v[2], &vlen);
	printf("SO_DOMAIN %d, SO_TYPE %d, SO_PROTOCOL %d\n", v[0], v[1], v[2]);
	res("bind, short", bind(fd, (struct sockaddr *)&nl, sizeof(nl) - 1));
	nl.nl_family = AF_INET;
	res("bind, AF_INET", bind(fd, (struct sockaddr *)&nl, sizeof(nl)));
	nl.nl_family = AF_NETLINK;
	res("listen", listen(fd, 1));
	res("bind", bind(fd, (struct sockaddr *)&nl, sizeof(nl)));
	res("getsockname", getsockname(fd, (struct sockaddr *)&nl, &len));
	printf("family %d, port id is the pid: %s, length %u\n", nl.nl_family,
	       nl.nl_pid == (unsigned int)getpid() ? "yes" : "no",
	       (unsigned int)len);
	nl.nl_pid = 12345;
	res("bind again, another port id", bind(fd, (struct sockaddr *)&nl, sizeof(nl)));
	close(fd);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* getifaddrs()'s list, one line each, sorted. */
static int list(bool names_only)
{
	char *lines[512], host[NI_MAXHOST];
	struct ifaddrs *ifa, *i;
	int n = 0, k;

	if (getifaddrs(&ifa)) {
		perror("getifaddrs");
		return 1;
	}
	for (i = ifa; i && n < 512; i = i->ifa_next) {
		int fam = i->ifa_addr ? i->ifa_addr->sa_family : -1;

		host[0] = 0;
		if (fam == AF_INET || fam == AF_INET6)
			getnameinfo(i->ifa_addr, fam == AF_INET ?
				    sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6),
				    host, sizeof(host), NULL, 0, NI_NUMERICHOST);
		if (names_only && asprintf(&lines[n], "%s", i->ifa_name) > 0)
			n++;
		else if (!names_only &&
			 asprintf(&lines[n], "%s family %d flags %#x %s", i->ifa_name,
				  fam, i->ifa_flags, host) > 0)
			n++;
	}
	freeifaddrs(ifa);
	qsort(lines, n, sizeof(lines[0]), cmp);
	for (k = 0; k < n; k++)
		if (!names_only || !k || strcmp(lines[k], lines[k - 1]))
			puts(lines[k]);
	printf("if_nametoindex(lo): %u\n", if_nametoindex("lo"));
	return 0;
}

/* Ask to add 10.9.9.9/32 to lo: the answer is the ack's error. */
static int change(void)
{
	struct {
		struct nlmsghdr h;
		struct ifaddrmsg a;
		struct rtattr ra;
		struct in_addr addr;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_NEWADDR,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE,
		       .nlmsg_seq = 42 },
		.a = { .ifa_family = AF_INET, .ifa_prefixlen = 32, .ifa_index = 1 },
		.ra = { .rta_len = RTA_LENGTH(4), .rta_type = IFA_LOCAL },
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK }, from;
	struct iovec iov;
	struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from),
			    .msg_iov = &iov, .msg_iovlen = 1 };
	char buf[8192];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	long n;
	int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);

	inet_pton(AF_INET, "10.9.9.9", &req.addr);
	if (fd < 0 || sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel,
			     sizeof(kernel)) != sizeof(req)) {
		perror("netlink send");
		return 1;
	}
	iov = (struct iovec){ buf, sizeof(buf) };
	n = recvmsg(fd, &m, 0);
	if (n < (long)NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
	    h->nlmsg_type != NLMSG_ERROR || h->nlmsg_seq != 42 || from.nl_pid) {
		printf("no NLMSG_ERROR answer (%ld bytes, type %d)\n", n,
		       n > 0 ? h->nlmsg_type : -1);
		return 1;
	}
	errno = -((struct nlmsgerr *)NLMSG_DATA(h))->error;
	printf("RTM_NEWADDR: %s\n", errno ? strerror(errno) : "done");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "change"))
		return change();
	if (argc > 1 && !strcmp(argv[1], "names"))
		return list(true);
	checks();
	return list(false);
}
