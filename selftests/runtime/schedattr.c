// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scheduling attributes: nice values, policies and their parameters, as
 * the kernel checks and keeps them (guest-runtime/policy.c).  Prints one
 * line per call, its result and errno; busybox.sh compares the output
 * natively and under umlrun.  Everything that changes an attribute runs in
 * a child, which ends with the test.  Bad input: unknown policies and
 * flags, negative and unknown pids, NULL and bad pointers, priorities out
 * of range, sched_attr sizes too small, too big and with unknown bytes
 * set; without CAP_SYS_NICE, what the kernel reserves to it.  (No
 * PRIO_USER: natively it would name every process of the user.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK	0x40000000
#endif
#define SCHED_DEADLINE		6
#define NOPID			0x3fffffff	/* above any pid_max */
#define BADPTR			8UL		/* in no mapping */

struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t prio;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
	unsigned char tail[8];	/* past VER1: must be zero */
};

static void show(const char *what, long r)
{
	printf("%s: %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "");
	errno = 0;
}

static long sc(long nr, long a, long b, long c, long d)
{
	return syscall(nr, a, b, c, d);
}

static void limits(void)
{
	static const int pol[] = { -1, 0, 1, 2, 3, 4, 5, 6, 8, 100 };
	char name[64];
	unsigned int i;

	for (i = 0; i < sizeof(pol) / sizeof(pol[0]); i++) {
		snprintf(name, sizeof(name), "priority_max(%d)", pol[i]);
		show(name, sc(SYS_sched_get_priority_max, pol[i], 0, 0, 0));
		snprintf(name, sizeof(name), "priority_min(%d)", pol[i]);
		show(name, sc(SYS_sched_get_priority_min, pol[i], 0, 0, 0));
	}
}

static void bad_input(void)
{
	struct sched_param sp = { 0 };
	struct attr at, *ro;
	struct timespec ts;

	show("getscheduler(0)", sc(SYS_sched_getscheduler, 0, 0, 0, 0));
	show("getscheduler(-1)", sc(SYS_sched_getscheduler, -1, 0, 0, 0));
	show("getscheduler(nopid)", sc(SYS_sched_getscheduler, NOPID, 0, 0, 0));
	show("getparam(NULL)", sc(SYS_sched_getparam, 0, 0, 0, 0));
	show("getparam(bad)", sc(SYS_sched_getparam, 0, BADPTR, 0, 0));
	show("getparam(-1)", sc(SYS_sched_getparam, -1, (long)&sp, 0, 0));
	show("getparam(nopid)", sc(SYS_sched_getparam, NOPID, (long)&sp, 0, 0));
	show("setscheduler(policy -1)",
	     sc(SYS_sched_setscheduler, 0, -1, (long)&sp, 0));
	show("setscheduler(policy 7)",
	     sc(SYS_sched_setscheduler, 0, 7, (long)&sp, 0));
	show("setscheduler(NULL)", sc(SYS_sched_setscheduler, 0, 0, 0, 0));
	show("setscheduler(bad)", sc(SYS_sched_setscheduler, 0, 1, BADPTR, 0));
	show("setscheduler(pid -1)",
	     sc(SYS_sched_setscheduler, -1, 0, (long)&sp, 0));
	show("setscheduler(nopid)",
	     sc(SYS_sched_setscheduler, NOPID, 0, (long)&sp, 0));
	show("setscheduler(DEADLINE)",
	     sc(SYS_sched_setscheduler, 0, SCHED_DEADLINE, (long)&sp, 0));
	sp.sched_priority = 1;
	show("setscheduler(OTHER, 1)",
	     sc(SYS_sched_setscheduler, 0, SCHED_OTHER, (long)&sp, 0));
	sp.sched_priority = 0;
	show("setscheduler(FIFO, 0)",
	     sc(SYS_sched_setscheduler, 0, SCHED_FIFO, (long)&sp, 0));
	sp.sched_priority = 100;
	show("setscheduler(FIFO, 100)",
	     sc(SYS_sched_setscheduler, 0, SCHED_FIFO, (long)&sp, 0));
	sp.sched_priority = -1;
	show("setscheduler(RR, -1)",
	     sc(SYS_sched_setscheduler, 0, SCHED_RR, (long)&sp, 0));
	show("setparam(NULL)", sc(SYS_sched_setparam, 0, 0, 0, 0));
	sp.sched_priority = 3;
	show("setparam(OTHER, 3)", sc(SYS_sched_setparam, 0, (long)&sp, 0, 0));
	show("rr_get_interval(-1)",
	     sc(SYS_sched_rr_get_interval, -1, (long)&ts, 0, 0));
	show("rr_get_interval(nopid)",
	     sc(SYS_sched_rr_get_interval, NOPID, (long)&ts, 0, 0));
	show("rr_get_interval(bad)",
	     sc(SYS_sched_rr_get_interval, 0, BADPTR, 0, 0));

	memset(&at, 0, sizeof(at));
	show("setattr(NULL)", sc(SYS_sched_setattr, 0, 0, 0, 0));
	show("setattr(bad)", sc(SYS_sched_setattr, 0, BADPTR, 0, 0));
	show("setattr(flags 1)", sc(SYS_sched_setattr, 0, (long)&at, 1, 0));
	show("setattr(pid -1)", sc(SYS_sched_setattr, -1, (long)&at, 0, 0));
	at.size = 47;
	show("setattr(size 47)", sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	printf("size now %u\n", at.size);
	at.size = 8192;
	show("setattr(size 8192)", sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro->size = 47;
	mprotect(ro, 4096, PROT_READ);
	show("setattr(size 47, read-only)",
	     sc(SYS_sched_setattr, 0, (long)ro, 0, 0));
	munmap(ro, 4096);
	at.size = sizeof(at);
	at.tail[5] = 1;
	show("setattr(tail set)", sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	printf("size now %u\n", at.size);
	at.tail[5] = 0;
	at.size = sizeof(at);
	at.policy = (uint32_t)-1;
	show("setattr(policy -1)", sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	at.policy = 4;
	show("setattr(policy 4)", sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	at.policy = 0;
	at.flags = 0x80;
	show("setattr(flag 0x80)", sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	at.flags = 0x20;
	show("setattr(util clamp)", sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	at.flags = 0;
	at.policy = SCHED_DEADLINE;
	at.runtime = 1000;
	at.deadline = 30000000;
	show("setattr(DEADLINE, runtime 1000)",
	     sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	at.runtime = 10000000;
	at.deadline = 0;
	show("setattr(DEADLINE, deadline 0)",
	     sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	at.deadline = 30000000;
	at.period = 20000000;
	show("setattr(DEADLINE, period < deadline)",
	     sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	at.period = 5000000000ULL;
	show("setattr(DEADLINE, period 5 s)",
	     sc(SYS_sched_setattr, 0, (long)&at, 0, 0));

	show("getattr(NULL)", sc(SYS_sched_getattr, 0, 0, sizeof(at), 0));
	show("getattr(size 47)", sc(SYS_sched_getattr, 0, (long)&at, 47, 0));
	show("getattr(size 8192)",
	     sc(SYS_sched_getattr, 0, (long)&at, 8192, 0));
	show("getattr(flags 1)",
	     sc(SYS_sched_getattr, 0, (long)&at, sizeof(at), 1));
	show("getattr(pid -1)",
	     sc(SYS_sched_getattr, -1, (long)&at, sizeof(at), 0));
	show("getattr(nopid)",
	     sc(SYS_sched_getattr, NOPID, (long)&at, sizeof(at), 0));
	show("getattr(bad)", sc(SYS_sched_getattr, 0, BADPTR, 48, 0));

	show("getpriority(which 3)", getpriority(3, 0));
	show("getpriority(nopid)", getpriority(PRIO_PROCESS, NOPID));
	show("setpriority(which -1)", setpriority(-1, 0, 0));
	show("setpriority(nopid)", setpriority(PRIO_PROCESS, NOPID, 0));
}

/*
 * What the caller has.  getattr gets room for 100 bytes: 6.12 writes the
 * 56 it knows, later kernels zero the rest.  The time slice only for the
 * real-time policies (the fair class's differs between kernels).
 */
static void attrs(const char *when)
{
	struct sched_param sp = { -1 };
	struct timespec ts = { -1, -1 };
	union {
		struct attr at;
		unsigned char room[128];
	} u;
	struct attr *atp = &u.at;
	long r, pol = sc(SYS_sched_getscheduler, 0, 0, 0, 0);

	memset(&u, 0xff, sizeof(u));
	printf("%s: policy %ld", when, pol);
	sched_getparam(0, &sp);
	printf(", priority %d", sp.sched_priority);
	errno = 0;
	printf(", nice %d", getpriority(PRIO_PROCESS, 0));
	r = sc(SYS_sched_getattr, 0, (long)atp, 100, 0);
	printf(", getattr %ld size %u policy %u flags %llu nice %d prio %u",
	       r, atp->size, atp->policy, (unsigned long long)atp->flags,
	       atp->nice, atp->prio);
	pol &= ~SCHED_RESET_ON_FORK;
	if (pol == SCHED_FIFO || pol == SCHED_RR) {
		r = sched_rr_get_interval(0, &ts);
		printf(", slice %s", r ? "error" : ts.tv_sec || ts.tv_nsec ?
		       "positive" : "zero");
	}
	putchar('\n');
}

/* Drop CAP_SYS_NICE from the effective set (capset, as root). */
static void drop_sys_nice(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	syscall(SYS_capget, &h, d);
	d[0].effective &= ~(1U << CAP_SYS_NICE);
	show("capset(no CAP_SYS_NICE)", syscall(SYS_capset, &h, d));
}

static void changes(void)
{
	struct sched_param sp = { 5 };
	struct attr at;
	pid_t c;

	show("setpgid(0, 0)", setpgid(0, 0));	/* a process group of one */
	attrs("start");
	show("setpriority(5)", setpriority(PRIO_PROCESS, 0, 5));
	show("setpriority(pgrp, 6)", setpriority(PRIO_PGRP, 0, 6));
	show("setpriority(30)", setpriority(PRIO_PROCESS, getpid(), 30));
	attrs("nice 19");
	show("setpriority(-3)", setpriority(PRIO_PROCESS, 0, -3));
	attrs("nice -3");
	show("setscheduler(FIFO|RESET_ON_FORK, 5)",
	     sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp));
	attrs("FIFO 5");
	c = fork();
	if (c == 0) {
		attrs("its child");
		_exit(0);
	}
	waitpid(c, NULL, 0);
	sp.sched_priority = 7;
	show("setparam(7)", sched_setparam(0, &sp));
	attrs("FIFO 7");
	sp.sched_priority = 3;
	show("setscheduler(RR, 3)", sched_setscheduler(0, SCHED_RR, &sp));
	attrs("RR 3");
	memset(&at, 0, sizeof(at));
	at.size = 48;
	at.policy = SCHED_BATCH;
	at.nice = 40;
	show("setattr(BATCH, nice 40)", sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	attrs("BATCH");
	at.size = 0;
	at.policy = SCHED_IDLE;
	at.nice = 2;
	at.flags = 0x18;	/* KEEP_POLICY | KEEP_PARAMS */
	show("setattr(keep all)", sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	attrs("kept");
	at.flags = 0;
	show("setattr(IDLE, nice 2)", sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	attrs("IDLE");
	at.policy = SCHED_OTHER;
	at.nice = 1;
	show("setattr(OTHER, nice 1)", sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	attrs("OTHER");

	drop_sys_nice();
	show("setpriority(0) unprivileged", setpriority(PRIO_PROCESS, 0, 0));
	show("setpriority(4) unprivileged", setpriority(PRIO_PROCESS, 0, 4));
	sp.sched_priority = 1;
	show("setscheduler(FIFO) unprivileged",
	     sched_setscheduler(0, SCHED_FIFO, &sp));
	at.policy = SCHED_OTHER;
	at.nice = 2;
	show("setattr(nice 2) unprivileged",
	     sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	at.policy = SCHED_DEADLINE;
	at.runtime = 10000000;
	at.deadline = 30000000;
	at.period = 100000000;
	show("setattr(DEADLINE) unprivileged",
	     sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	at.policy = SCHED_IDLE;
	show("setattr(IDLE) unprivileged",
	     sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	at.policy = SCHED_OTHER;
	at.nice = 4;
	show("setattr(leave IDLE) unprivileged",
	     sc(SYS_sched_setattr, 0, (long)&at, 0, 0));
	attrs("unprivileged");
}

int main(void)
{
	pid_t c;

	setvbuf(stdout, NULL, _IONBF, 0);
	limits();
	bad_input();
	c = fork();
	if (c == 0) {
		changes();
		_exit(0);
	}
	waitpid(c, NULL, 0);
	attrs("parent");
	return 0;
}
