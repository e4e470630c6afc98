// SPDX-License-Identifier: GPL-2.0
/*
 * A sequence fuzzer: random sequences of calls on a pool of live objects
 * (device fds, address spaces, threads with attached stubs, guest forks
 * and threads), created, used, killed and closed in random order, with
 * well-formed and hostile arguments.  Seeded (skas_stress_seed), bounded
 * in time (skas_fuzz_secs, default 20 s; make stress: 120 s).  It passes
 * if every call returns a sane result and, at the end, every task is
 * reaped and every module object is gone; the harness fails the VM run on
 * any kernel report.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/time.h>

#include "../kselftest_harness.h"
#include "guests.h"

#define NTH	12	/* live threads at most */
#define NAS	8	/* live address-space fds at most */

struct fthread {
	int fd;
	struct skas_run *run;
	pid_t pid;	/* host tid, 0 if unknown or reaped */
};

struct fstate {
	struct stress_rng r;
	int dev;
	int as[NAS];
	struct fthread th[NTH];
	long ops[16], bad;
	bool trace;	/* skas_fuzz_trace=1: each call in the kernel log */
};

static void on_alarm(int sig)
{
}

/* Random guest code faults: keep "traps: ..." lines out of the kernel log. */
static void exception_trace(const char *v)
{
	FILE *f = fopen("/proc/sys/debug/exception-trace", "w");

	if (f) {
		fputs(v, f);
		fclose(f);
	}
}

static int slot_of(int *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i] < 0)
			return i;
	return -1;
}

static int free_thread(struct fstate *s)
{
	for (int i = 0; i < NTH; i++)
		if (s->th[i].fd < 0)
			return i;
	return -1;
}

static int live_thread(struct fstate *s)
{
	int i, start = stress_below(&s->r, NTH);

	for (i = 0; i < NTH; i++)
		if (s->th[(start + i) % NTH].fd >= 0)
			return (start + i) % NTH;
	return -1;
}

static int live_as(struct fstate *s)
{
	int i, start = stress_below(&s->r, NAS);

	for (i = 0; i < NAS; i++)
		if (s->as[(start + i) % NAS] >= 0)
			return s->as[(start + i) % NAS];
	return -1;
}

static void close_thread(struct fstate *s, int i)
{
	munmap(s->th[i].run, SKAS_RUN_PAGE_SIZE);
	close(s->th[i].fd);
	s->th[i].fd = -1;
	s->th[i].run = NULL;
}

static uint64_t fuzz_addr(struct stress_rng *r)
{
	static const uint64_t v[] = {
		0, 0x1000, 0x100000, 0x200000, 0x10000000, 0x7ffffffff000ULL,
		0x800000000000ULL, 0xffff888000000000ULL, ~0ULL, 0x100001,
	};

	if (stress_below(r, 3))
		return 0x10000000 + stress_below(r, 64) * 4096;
	return v[stress_below(r, sizeof(v) / sizeof(v[0]))];
}

/*
 * Random bytes without far returns (lret 0xca/0xcb, iret 0xcf): QEMU 7.2's
 * TCG pops their stack with a supervisor access, so one with an unmapped
 * stack oopses the host kernel, with or without skas (FINDINGS.md 2).
 */
static void fuzz_bytes(struct stress_rng *r, unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		p[i] = stress_rand(r);
		if (p[i] == 0xca || p[i] == 0xcb || p[i] == 0xcf)
			p[i] = 0x90;
	}
}

/* Guest code: loops that trap, spin, fault, or random bytes. */
static void fuzz_code(struct stress_rng *r, unsigned char *code, size_t n)
{
	fuzz_bytes(r, code, n);

	switch (stress_below(r, 4)) {
	case 0:
		memcpy(code, getpid_loop, sizeof(getpid_loop));
		break;
	case 1:
		memcpy(code, spin, sizeof(spin));
		break;
	case 2:	/* int $0x80; ud2 */
		memcpy(code, "\xcd\x80\x0f\x0b", 4);
		break;
	default:
		break;
	}
}

static void one_op(struct fstate *s)
{
	struct skas_mem_op ops[8];
	struct skas_mem_batch b;
	struct skas_clone c;
	struct skas_policy p;
	struct itimerval it;
	unsigned char buf[64];
	struct skas_guest g;
	int op = stress_below(&s->r, 12), i, t, as, ret, n;

	s->ops[op]++;
	if (s->trace)
		stress_kmsg("seqfuzz: op %d\n", op);
	switch (op) {
	case 0:	/* a new guest: aspace, thread, stub, code */
		t = free_thread(s);
		i = slot_of(s->as, NAS);
		if (t < 0 || i < 0)
			break;
		ret = stress_guest_start(&g, getpid_loop, sizeof(getpid_loop));
		if (ret) {
			s->bad++;
			skas_guest_stop(&g);
			break;
		}
		fuzz_code(&s->r, buf, sizeof(buf));
		skas_rw(g.as, true, CODE, buf, sizeof(buf));
		close(g.dev);
		s->as[i] = g.as;
		s->th[t] = (struct fthread){ g.thread, g.run, g.pid };
		break;
	case 1:	/* run, bounded by a timer (a runtime signal) */
		t = live_thread(s);
		if (t < 0)
			break;
		if (stress_below(&s->r, 4) == 0) {
			s->th[t].run->regs.rip = fuzz_addr(&s->r);
			s->th[t].run->regs.rsp = fuzz_addr(&s->r);
			s->th[t].run->regs.eflags = stress_rand(&s->r);
			s->th[t].run->regs.cs = stress_rand(&s->r) & 0xffff;
		}
		if (s->trace)
			stress_kmsg("seqfuzz: run t%d pid %d rip %#llx rsp %#llx\n",
				    t, s->th[t].pid,
				    (unsigned long long)s->th[t].run->regs.rip,
				    (unsigned long long)s->th[t].run->regs.rsp);
		/*
		 * Periodic: a tick that lands between two runs is lost, and
		 * the next run of a spinning guest would wait for ever.
		 */
		memset(&it, 0, sizeof(it));
		it.it_value.tv_usec = 1000 + stress_below(&s->r, 20000);
		it.it_interval = it.it_value;
		setitimer(ITIMER_REAL, &it, NULL);
		n = 1 + stress_below(&s->r, 20);
		for (i = 0; i < n; i++) {
			ret = ioctl(s->th[t].fd, SKAS_RUN, 0) ? -errno : 0;
			if (ret || s->th[t].run->exit_reason != SKAS_EXIT_SYSCALL)
				break;
		}
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		if (ret && ret != -EINVAL && ret != -ESRCH && ret != -EINTR &&
		    ret != -EBUSY && ret != -ENOENT)
			s->bad++;
		break;
	case 2:	/* a mem batch, mostly sane */
		as = live_as(s);
		if (as < 0)
			break;
		n = 1 + stress_below(&s->r, 8);
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < n; i++) {
			ops[i].op = stress_below(&s->r, 5);
			ops[i].addr = fuzz_addr(&s->r);
			ops[i].len = stress_below(&s->r, 8) * 4096 +
				     (stress_below(&s->r, 8) ? 0 : 1);
			ops[i].prot = stress_below(&s->r, 8);
			ops[i].flags = stress_below(&s->r, 4) ?
				SKAS_MAP_PRIVATE | SKAS_MAP_ANONYMOUS :
				stress_rand(&s->r);
			ops[i].fd = -1;
			if (!stress_below(&s->r, 16))
				ops[i].reserved = 1;
		}
		memset(&b, 0, sizeof(b));
		b.size = stress_below(&s->r, 16) ? sizeof(b) : 8;
		b.count = stress_below(&s->r, 16) ? (unsigned)n : 5000;
		b.ops = stress_below(&s->r, 16) ? (unsigned long)ops :
			(unsigned long)SKAS_BAD_PTR;
		ioctl(as, SKAS_MEM, &b);
		break;
	case 3:	/* read or write guest memory */
		as = live_as(s);
		if (as < 0)
			break;
		fuzz_bytes(&s->r, buf, sizeof(buf));
		skas_rw(as, stress_below(&s->r, 2), fuzz_addr(&s->r), buf,
			stress_below(&s->r, sizeof(buf) + 1));
		break;
	case 4:	/* guest fork or guest thread */
		t = live_thread(s);
		i = free_thread(s);
		if (t < 0 || i < 0)
			break;
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.flags = stress_below(&s->r, 2) ? SKAS_CLONE_THREAD : 0;
		if (ioctl(s->th[t].fd, SKAS_CLONE, &c))
			break;
		s->th[i].fd = c.thread_fd;
		s->th[i].run = skas_map_run(c.thread_fd);
		s->th[i].pid = c.host_tid;
		if (!s->th[i].run)
			s->bad++;
		if (c.aspace_fd >= 0) {
			n = slot_of(s->as, NAS);
			if (n >= 0)
				s->as[n] = c.aspace_fd;
			else
				close(c.aspace_fd);
		}
		break;
	case 5:	/* kick */
		t = live_thread(s);
		if (t >= 0)
			ioctl(s->th[t].fd, SKAS_KICK, 0);
		break;
	case 6:	/* SIGKILL a guest task from outside */
		t = live_thread(s);
		if (t >= 0 && s->th[t].pid > 0 && !stress_below(&s->r, 3))
			kill(s->th[t].pid, SIGKILL);
		break;
	case 7:	/* close a thread */
		t = live_thread(s);
		if (t >= 0 && !stress_below(&s->r, 2))
			close_thread(s, t);
		break;
	case 8:	/* close an address-space fd (threads keep it alive) */
		i = stress_below(&s->r, NAS);
		if (s->as[i] >= 0 && !stress_below(&s->r, 2)) {
			close(s->as[i]);
			s->as[i] = -1;
		}
		break;
	case 9:	/* policy */
		as = live_as(s);
		if (as < 0)
			break;
		memset(&p, 0, sizeof(p));
		p.size = sizeof(p);
		p.nr = stress_below(&s->r, 8) ? 39 : stress_rand(&s->r) % 1024;
		p.action = stress_below(&s->r, 3);
		p.value = stress_rand(&s->r);
		if (p.action == SKAS_POLICY_TRAP)
			p.value = 0;
		ioctl(as, SKAS_SET_POLICY, &p);
		break;
	case 10:	/* reset */
		as = live_as(s);
		if (as >= 0 && !stress_below(&s->r, 4))
			ioctl(as, SKAS_RESET, 0);
		break;
	default:	/* new thread on an address space, never attached */
		as = live_as(s);
		i = free_thread(s);
		if (as < 0 || i < 0)
			break;
		ret = skas_create_thread(as);
		if (ret < 0)
			break;
		s->th[i].fd = ret;
		s->th[i].run = skas_map_run(ret);
		s->th[i].pid = 0;
		break;
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

TEST_F_TIMEOUT(stress, sequence_fuzzer, 3600)
{
	const char *e = getenv("skas_fuzz_secs");
	long secs = e ? atol(e) : stress_scale(20, 120), total = 0;
	struct sigaction sa;
	struct fstate s;
	double end;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: runs return EINTR */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	exception_trace("0");
	memset(&s, 0, sizeof(s));
	stress_rng_init(&s.r, 6);
	s.trace = getenv("skas_fuzz_trace") != NULL;
	s.dev = skas_open_dev();
	ASSERT_LE(0, s.dev);
	for (i = 0; i < NAS; i++)
		s.as[i] = -1;
	for (i = 0; i < NTH; i++)
		s.th[i].fd = -1;
	end = stress_now() + secs;
	while (stress_now() < end) {
		one_op(&s);
		total++;
	}
	for (i = 0; i < NTH; i++)
		if (s.th[i].fd >= 0)
			close_thread(&s, i);
	for (i = 0; i < NAS; i++)
		if (s.as[i] >= 0)
			close(s.as[i]);
	close(s.dev);
	signal(SIGALRM, SIG_DFL);
	exception_trace("1");
	EXPECT_EQ(0, s.bad);
	ksft_print_msg("%ld calls in %lds: new %ld run %ld mem %ld rw %ld clone %ld kick %ld kill %ld close-thread %ld close-as %ld policy %ld reset %ld thread %ld\n",
		       total, secs, s.ops[0], s.ops[1], s.ops[2], s.ops[3],
		       s.ops[4], s.ops[5], s.ops[6], s.ops[7], s.ops[8],
		       s.ops[9], s.ops[10], s.ops[11]);
	stress_report("fuzz_calls", total);
}

TEST_HARNESS_MAIN
