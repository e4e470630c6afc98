/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the stress programs: scale and seed from the
 * environment, a seeded generator, the leak checks run after each part,
 * and the summary lines that selftests/stress/run.sh adds up.
 *
 * Environment (the kernel command line hands unknown name=value
 * parameters to init, so VM_APPEND="skas_stress=full" reaches the tests):
 *   skas_stress=full        the long form (make stress); default: short
 *   skas_stress_seed=N      the seed; default: from the clock, printed
 */
#ifndef SKAS_STRESS_H
#define SKAS_STRESS_H

#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>

#include "../skas/skas_test.h"

static inline bool stress_full(void)
{
	const char *s = getenv("skas_stress");

	return s && !strcmp(s, "full");
}

/* @short_v in make check, @full_v in make stress. */
static inline long stress_scale(long short_v, long full_v)
{
	return stress_full() ? full_v : short_v;
}

static uint64_t stress_seed_v;

/* Taken once per program, before the harness forks a child per test. */
static inline uint64_t stress_seed(void)
{
	uint64_t seed = stress_seed_v;
	const char *s;
	struct timespec ts;

	if (seed)
		return seed;
	s = getenv("skas_stress_seed");
	if (s && *s) {
		seed = strtoull(s, NULL, 0);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000003u + ts.tv_nsec;
	}
	if (!seed)
		seed = 1;
	stress_seed_v = seed;
	return seed;
}

static void __attribute__((constructor)) stress_seed_init(void)
{
	stress_seed();
}

/* xorshift64*: small, fast, and the same everywhere. */
struct stress_rng {
	uint64_t s;
};

static inline void stress_rng_init(struct stress_rng *r, uint64_t salt)
{
	r->s = stress_seed() ^ (salt * 0x9e3779b97f4a7c15ULL);
	if (!r->s)
		r->s = 1;
}

static inline uint64_t stress_rand(struct stress_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n). */
static inline uint64_t stress_below(struct stress_rng *r, uint64_t n)
{
	return n ? stress_rand(r) % n : 0;
}

static inline double stress_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A line in the kernel log (and so on the VM console). */
static inline void __attribute__((format(printf, 1, 2)))
stress_kmsg(const char *fmt, ...)
{
	static int fd = -2;
	va_list ap;

	if (fd == -2)
		fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	va_start(ap, fmt);
	vdprintf(fd, fmt, ap);
	va_end(ap);
}

/* One summary line: "# stress: KEY VALUE", summed by run.sh. */
#define stress_report(key, val) \
	printf("# stress: %s %ld\n", (key), (long)(val))

static inline int stress_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own fd */
}

/*
 * User tasks on the system (kernel threads left out: PF_KTHREAD), and how
 * many of them are zombies or children of @parent.
 */
struct stress_tasks {
	int user, zombies, children;
};

/*
 * /proc/@pid/stat into @buf; returns where the fields after the command
 * name start (the state), or NULL for no such process (or not a pid).
 */
static inline char *stress_proc_stat(const char *pid, char *buf, size_t size)
{
	char path[300], *p;
	ssize_t n;
	int fd;

	if (pid[0] < '0' || pid[0] > '9')
		return NULL;
	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p + 2 : NULL;
}

static inline void stress_scan_tasks_v(pid_t parent, struct stress_tasks *t,
				       bool verbose)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	memset(t, 0, sizeof(*t));
	if (!d)
		return;
	while ((e = readdir(d))) {
		char buf[512], *p, state;
		unsigned long flags;
		int ppid;

		p = stress_proc_stat(e->d_name, buf, sizeof(buf));
		if (!p || sscanf(p, "%c %d %*d %*d %*d %*d %lu",
				 &state, &ppid, &flags) != 3)
			continue;
		if (flags & 0x00200000)	/* PF_KTHREAD */
			continue;
		/*
		 * busybox timeout's watcher, of an earlier test of the list,
		 * orphaned to init, which reaps only its own child: not ours.
		 */
		if (ppid == 1 && strstr(buf, " (timeout) "))
			continue;
		t->user++;
		if (state == 'Z' || state == 'X') {
			t->zombies++;
			if (verbose)
				printf("# zombie: %s", buf);
		}
		if (ppid == parent)
			t->children++;
	}
	closedir(d);
}

static inline void stress_cat(const char *path)
{
	char buf[2048];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		printf("#   %s: %s\n", path, strerror(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	printf("#   %s:\n%s\n", path, buf);
}

static inline void stress_scan_tasks(pid_t parent, struct stress_tasks *t)
{
	stress_scan_tasks_v(parent, t, false);
}

/* What a leftover task is doing, for FINDINGS.md. */
static inline void stress_dump_children(pid_t parent)
{
	static const char *const files[] = { "stat", "wchan", "stack" };
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[300], buf[512], *p;
		int ppid = 0;
		unsigned int i;

		p = stress_proc_stat(e->d_name, buf, sizeof(buf));
		if (!p || sscanf(p, "%*c %d", &ppid) != 1 || ppid != parent)
			continue;
		printf("# leftover task %s\n", e->d_name);
		for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(path, sizeof(path), "/proc/%s/%s", e->d_name,
				 files[i]);
			stress_cat(path);
		}
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		stress_cat(path);
	}
	closedir(d);
	fflush(stdout);
}

/*
 * Reap every child (the test is a child subreaper, so orphaned stubs come
 * back to it) until none is left or @secs pass; returns how many are left.
 */
static inline int stress_reap_all(double secs)
{
	double end = stress_now() + secs;
	struct stress_tasks t;

	for (;;) {
		pid_t p = waitpid(-1, NULL, WNOHANG);

		if (p > 0)
			continue;
		if (p < 0 && errno == ECHILD)
			return 0;
		if (stress_now() > end)
			break;
		usleep(5000);
	}
	stress_scan_tasks(getpid(), &t);
	stress_dump_children(getpid());
	return t.children ? t.children : 1;
}

/* The baseline a part must return to. */
struct stress_base {
	int fds;
	struct stress_tasks tasks;
};

static inline void stress_base_take(struct stress_base *b)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	b->fds = stress_count_fds();
	stress_scan_tasks(getpid(), &b->tasks);
}

/*
 * Kernel memory.  /proc/slabinfo (root only) counts SLUB's objects in
 * per-CPU slabs as in use, so every cache is first shrunk (its per-CPU
 * slabs flushed, empty slabs freed: /sys/kernel/slab/NAME/shrink); then
 * the unreclaimable slab total (/proc/meminfo SUnreclaim) and each cache's
 * objects are compared with the part's baseline.
 */
#define STRESS_SLAB_MAX	512

struct stress_slab {
	char name[40];
	long objs, size;
};

struct stress_kmem {
	long sunreclaim_kb;
	int n;
	struct stress_slab c[STRESS_SLAB_MAX];
};

static inline void stress_slab_shrink(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[300];
		ssize_t n;
		int fd;

		/* Aliases of merged caches are symbolic links. */
		if (e->d_name[0] == '.' || e->d_type == DT_LNK)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 e->d_name);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = write(fd, "1", 1);	/* best effort */
		(void)n;
		close(fd);
	}
	closedir(d);
}

static inline long stress_meminfo_kb(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	size_t kl = strlen(key);
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static inline void stress_kmem_take(struct stress_kmem *k)
{
	FILE *f;
	char line[512];

	stress_slab_shrink();
	k->sunreclaim_kb = stress_meminfo_kb("SUnreclaim");
	k->n = 0;
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return;
	while (k->n < STRESS_SLAB_MAX && fgets(line, sizeof(line), f)) {
		struct stress_slab *c = &k->c[k->n];

		if (sscanf(line, "%39s %ld %*d %ld", c->name, &c->objs,
			   &c->size) == 3 && line[0] != '#')
			k->n++;
	}
	fclose(f);
}

/* Objects of cache @name in @k, or 0 if it is not there. */
static inline long stress_kmem_objs(const struct stress_kmem *k,
				    const char *name)
{
	int i;

	for (i = 0; i < k->n; i++)
		if (!strcmp(k->c[i].name, name))
			return k->c[i].objs;
	return 0;
}

/*
 * Caches whose objects outlive a part by design: freed vmalloc areas (a
 * task's kernel stack) wait for a lazy purge, and kmemleak tracks them.
 */
static inline bool stress_kmem_lazy(const char *name)
{
	return !strcmp(name, "vmap_area") || !strncmp(name, "kmemleak_", 9);
}

/* kB more in use in @b than in @a, over every cache but the lazy ones. */
static inline long stress_kmem_inuse_growth(const struct stress_kmem *a,
					    const struct stress_kmem *b)
{
	long sum = 0;
	int i;

	for (i = 0; i < b->n; i++)
		if (!stress_kmem_lazy(b->c[i].name))
			sum += (stress_kmem_objs(b, b->c[i].name) -
				stress_kmem_objs(a, b->c[i].name)) *
			       b->c[i].size;
	return sum / 1024;
}

/* Prints the caches that grew by more than @min_kb; returns the sum. */
static inline long stress_kmem_growth(const struct stress_kmem *a,
				      const struct stress_kmem *b, long min_kb)
{
	long sum = 0, kb;
	int i, j;

	for (i = 0; i < b->n; i++)
		for (j = 0; j < a->n; j++) {
			if (strcmp(a->c[j].name, b->c[i].name))
				continue;
			kb = (b->c[i].objs - a->c[j].objs) * b->c[i].size / 1024;
			if (kb > min_kb) {
				printf("# slab %s: %ld -> %ld objects (+%ld kB)\n",
				       b->c[i].name, a->c[j].objs,
				       b->c[i].objs, kb);
				sum += kb;
			}
			break;
		}
	return sum;
}

#endif /* SKAS_STRESS_H */
