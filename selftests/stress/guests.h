/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest code and the fixture shared by the stress programs.
 */
#ifndef SKAS_STRESS_GUESTS_H
#define SKAS_STRESS_GUESTS_H

#include "stress.h"

#define CODE	0x100000UL
#define DATA	0x200000UL

/* 1: mov $39,%eax; syscall; jmp 1b */
static const unsigned char getpid_loop[] = {
	0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7,
};

/* jmp . */
static const unsigned char spin[] = { 0xeb, 0xfe };

/* A guest with @code at CODE, a stack page at DATA, ready to run. */
static inline int stress_guest_start(struct skas_guest *g,
				     const unsigned char *code, size_t len)
{
	int ret = skas_guest_start(g);

	if (ret)
		return ret;
	ret = skas_map_anon(g->as, CODE, 4096, PROT_READ | PROT_EXEC);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	ret = skas_map_anon(g->as, DATA, 4096, PROT_READ | PROT_WRITE);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	if (skas_rw(g->as, true, CODE, (void *)code, len) != (long)len)
		return -EIO;
	skas_regs_at(g, CODE);
	g->run->regs.rsp = DATA + 4096;
	return 0;
}

/* Every stress part starts from a baseline and must return to it. */
FIXTURE(stress) {
	struct stress_base base;
};

/* Per test: each runs in a child of its own. */
static struct stress_kmem stress_kmem_base, stress_kmem_now;

/*
 * The bytes in use in all slab caches (objects times size, after the
 * shrink) may end a part this much above its baseline: what the kernel
 * keeps from a part without a leak.  Not SUnreclaim, which also counts
 * partly used slabs: after thousands of processes it stayed 5.6 MB up on
 * the debug kernel with no object left (see Documentation/stress.rst).
 * And mm_struct and task_struct, which SLUB never merges with other
 * caches, must be back within a few objects (an idle CPU may still borrow
 * the last mm it ran): every address space holds an mm.
 */
#define STRESS_KMEM_TOL_KB	2048
#define STRESS_KMEM_TOL_OBJS	4

static const char *const stress_kmem_caches[] = { "mm_struct", "task_struct" };

/* How many objects of the exact caches are over the tolerance. */
static inline long stress_kmem_objs_over(void)
{
	long over = 0, d;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		d = stress_kmem_objs(&stress_kmem_now, stress_kmem_caches[i]) -
		    stress_kmem_objs(&stress_kmem_base, stress_kmem_caches[i]);
		if (d > STRESS_KMEM_TOL_OBJS)
			over += d;
	}
	return over;
}

/*
 * The growth of slab in use (kB) left after up to 10 s of RCU grace
 * periods and shrinks; *@objs gets the exact caches' objects over their tolerance.
 */
static inline long stress_kmem_check(long *objs)
{
	long grew = 0;
	unsigned int i;

	for (i = 0; i < 10; i++) {
		stress_kmem_take(&stress_kmem_now);
		grew = stress_kmem_inuse_growth(&stress_kmem_base,
						&stress_kmem_now);
		*objs = stress_kmem_objs_over();
		if (grew <= STRESS_KMEM_TOL_KB && !*objs)
			break;
		sleep(1);
	}
	printf("# kernel memory: slab in use %+ld kB, SUnreclaim %ld -> %ld kB",
	       grew, stress_kmem_base.sunreclaim_kb,
	       stress_kmem_now.sunreclaim_kb);
	for (i = 0; i < 2; i++)
		printf(", %s %ld -> %ld", stress_kmem_caches[i],
		       stress_kmem_objs(&stress_kmem_base, stress_kmem_caches[i]),
		       stress_kmem_objs(&stress_kmem_now, stress_kmem_caches[i]));
	printf("\n");
	if (grew > STRESS_KMEM_TOL_KB || *objs)
		stress_kmem_growth(&stress_kmem_base, &stress_kmem_now, 16);
	return grew;
}

/*
 * kmemleak (debug kernel), after each part in the long form: objects must
 * be 5 s old, and two scans see them unchanged.  Returns the number of
 * reports (printed), or -1 without kmemleak.  The short form leaves this
 * to init's scan at the end of the VM run.
 */
static inline int stress_kmemleak_scan(void)
{
	static const char path[] = "/sys/kernel/debug/kmemleak";
	char buf[4096];
	int fd, i, found = 0;
	ssize_t n;
	FILE *f;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	sleep(6);
	for (i = 0; i < 2; i++)
		if (write(fd, "scan", 4) < 0)
			found = -1;
	f = fopen(path, "r");
	while (f && fgets(buf, sizeof(buf), f)) {
		if (strstr(buf, "unreferenced object"))
			found++;
		printf("# %s", buf);
	}
	if (f)
		fclose(f);
	n = write(fd, "clear", 5);
	(void)n;
	close(fd);
	return found;
}

FIXTURE_SETUP(stress)
{
	ksft_print_msg("seed %llu (skas_stress_seed=%llu reproduces), %s form\n",
		       (unsigned long long)stress_seed(),
		       (unsigned long long)stress_seed(),
		       stress_full() ? "full" : "short");
	/* Also in the kernel log: the console keeps it through a panic. */
	stress_kmsg("%s: seed %llu\n", _metadata->name,
		    (unsigned long long)stress_seed());
	stress_base_take(&self->base);	/* after the kmsg fd is open */
	stress_kmem_take(&stress_kmem_base);
}

FIXTURE_TEARDOWN(stress)
{
	struct stress_tasks t;
	long kmem, kobjs;
	long objs, probes;
	int leaks;

	EXPECT_EQ(0, stress_reap_all(10)) TH_LOG("children left over");
	/* Others' tasks may take a moment to be reaped by their parents. */
	for (int i = 0; i < 100; i++) {
		stress_scan_tasks(getpid(), &t);
		if (t.user <= self->base.tasks.user &&
		    t.zombies <= self->base.tasks.zombies)
			break;
		usleep(50000);
	}
	if (t.user > self->base.tasks.user ||
	    t.zombies > self->base.tasks.zombies)
		stress_scan_tasks_v(getpid(), &t, true);
	EXPECT_EQ(0, t.children);
	/*
	 * Not more than before: fewer is fine, tasks of earlier tests of the
	 * list may still have been on their way out at the baseline.
	 */
	EXPECT_GE(self->base.tasks.user, t.user) TH_LOG("user tasks");
	EXPECT_GE(self->base.tasks.zombies, t.zombies) TH_LOG("zombies");
	EXPECT_EQ(self->base.fds, stress_count_fds()) TH_LOG("fds");
	objs = skas_wait_param_zero("objects");
	EXPECT_EQ(0, objs) TH_LOG("module objects left");
	probes = skas_wait_param_zero("probes_registered");
	EXPECT_EQ(0, probes) TH_LOG("probes left");
	stress_report("leftover_tasks", t.user > self->base.tasks.user ?
					t.user - self->base.tasks.user : 0);
	stress_report("leftover_fds", stress_count_fds() - self->base.fds);
	stress_report("leftover_probes", probes);
	stress_report("leftover_objects", objs);
	kmem = stress_kmem_check(&kobjs);
	EXPECT_GE(STRESS_KMEM_TOL_KB, kmem) TH_LOG("kernel memory grew");
	EXPECT_EQ(0, kobjs) TH_LOG("mm_struct or task_struct objects left");
	stress_report("leftover_kmem_kb", kmem > STRESS_KMEM_TOL_KB ? kmem : 0);
	stress_report("leftover_kmem_objects", kobjs);
	if (stress_full()) {
		leaks = stress_kmemleak_scan();
		EXPECT_GE(0, leaks) TH_LOG("kmemleak reports");
		stress_report("kmemleak_reports", leaks > 0 ? leaks : 0);
	}
}

#endif /* SKAS_STRESS_GUESTS_H */
