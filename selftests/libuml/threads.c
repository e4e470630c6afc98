// SPDX-License-Identifier: GPL-2.0
/*
 * libuml with several runtime threads (uml.h, "Threading"): a guest
 * thread is driven by one runtime thread at a time and handed over with
 * uml_thread_release(); guest threads of one address space run in
 * parallel while their drivers change its memory; a runtime thread that
 * created an address space may exit and leave it to others.
 */
#include "libuml_test.h"

#include <pthread.h>

#ifdef __SANITIZE_THREAD__
/* make tsan: the first data race ends the test with a failure. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "halt_on_error=1";
}
#endif

#define NTHREADS	4
/* Where code_touch_loop loads and stores when it is not to fault. */
#define TOUCHED		(GUEST_DATA + 0x800)
#define ROUNDS		2000
/*
 * The parallel cases' time limit: 2,000 rounds of four threads took more
 * than the harness's 30 s in the debug kernel's VM (KASAN under TCG) on
 * a slower host; a hang still fails, later.
 */
#define PARALLEL_TIMEOUT	180

FIXTURE(threads) {
	struct uml_host *host;
	struct uml_aspace *as;
	struct uml_thread *t;
	struct uml_exit ex;
};
UML_VARIANTS(threads);

/* The getpid loop at GUEST_CODE, GUEST_DATA's first word its argument. */
static int load_loop(struct uml_aspace *as, struct uml_thread *t,
		     uint64_t word)
{
	struct uml_regs *r = uml_thread_regs(t);
	int ret = load_code(as, GUEST_CODE, code_getpid_loop,
			    sizeof(code_getpid_loop));

	if (!ret)
		ret = map_data(as, GUEST_DATA);
	if (!ret && uml_mem_write(as, GUEST_DATA, &word, 8) != 8)
		ret = -EFAULT;
	r->rip = GUEST_CODE;
	r->rsp = GUEST_DATA + PAGE;
	return ret;
}

/* One round of the loop: 0, or what went wrong (a -errno, or 1). */
static int loop_once(struct uml_thread *t, uint64_t word)
{
	struct uml_exit ex;
	int ret = uml_thread_run(t, &ex);

	if (ret)
		return ret;
	if (ex.reason == UML_EXIT_INTERRUPTED)
		return 0;
	if (ex.reason != UML_EXIT_SYSCALL || ex.syscall.nr != 39 ||
	    ex.syscall.args[0] != word)
		return 1;
	uml_thread_regs(t)->rax = 1;
	return 0;
}

FIXTURE_SETUP(threads)
{
	UML_OPEN_OR_SKIP(&self->host, variant->backend);
	ASSERT_EQ(0, uml_aspace_create(self->host, &self->as, &self->t));
	ASSERT_EQ(0, load_loop(self->as, self->t, 0x1234));
}

FIXTURE_TEARDOWN(threads)
{
	uml_host_close(self->host);
}

/* What another runtime thread sees, and leaves behind. */
struct other {
	struct uml_thread *t;
	struct uml_aspace *as;
	int run, release, map;	/* the three calls' results */
	long read;
};

static void *other_try(void *arg)
{
	struct other *o = arg;
	uint64_t w;

	o->run = loop_once(o->t, 0x1234);
	o->map = map_data(o->as, GUEST_DATA + PAGE);
	o->read = uml_mem_read(o->as, &w, GUEST_DATA, 8);
	o->release = uml_thread_release(o->t);
	return NULL;
}

static void other_run(struct other *o)
{
	pthread_t p;

	if (!pthread_create(&p, NULL, other_try, o))
		pthread_join(p, NULL);
}

TEST_F(threads, release_hands_a_thread_over)
{
	struct other o = { .t = self->t, .as = self->as };

	ASSERT_EQ(0, loop_once(self->t, 0x1234));
	/* Driven here: another runtime thread may only read memory. */
	other_run(&o);
	EXPECT_EQ(-EPERM, o.run);
	EXPECT_EQ(-EPERM, o.map);
	EXPECT_EQ(8, o.read);
	EXPECT_EQ(-EPERM, o.release);
	/* Released: the next one to drive it takes it, and may release it. */
	ASSERT_EQ(0, uml_thread_release(self->t));
	EXPECT_EQ(0, uml_thread_release(self->t));	/* nobody's: no-op */
	other_run(&o);
	EXPECT_EQ(0, o.run);
	EXPECT_EQ(0, o.map);
	EXPECT_EQ(8, o.read);
	EXPECT_EQ(0, o.release);
	/* Back here, where it goes on from where it stopped. */
	EXPECT_EQ(0, loop_once(self->t, 0x1234));
	EXPECT_EQ(0, map_data(self->as, GUEST_DATA + 2 * PAGE));
	EXPECT_EQ(-EINVAL, uml_thread_release(NULL));
}

/*
 * A kick that comes while nobody drives the thread neither kills it nor
 * is lost: the next run says INTERRUPTED (on ptrace the first run after a
 * change of driver always does, so there it is the kill that is tested).
 */
TEST_F(threads, kick_while_released_interrupts_the_next_run)
{
	ASSERT_EQ(0, loop_once(self->t, 0x1234));
	ASSERT_EQ(0, uml_thread_release(self->t));
	ASSERT_EQ(0, uml_thread_kick(self->t));
	usleep(20000);
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	EXPECT_EQ(UML_EXIT_INTERRUPTED, self->ex.reason);
	EXPECT_EQ(0, loop_once(self->t, 0x1234));
}

/* Gone, or a zombie nobody of ours can reap? */
static int pid_dead_within(int pid, int ms)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (; ms > 0; ms -= 10) {
		f = fopen(path, "re");
		if (!f)
			return 1;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
			return 1;
		usleep(10000);
	}
	return 0;
}

/* Killed from outside while nobody drives it: its next driver hears. */
struct reaper {
	struct uml_thread *t;
	int ret, reason, status;
};

static void *run_to_death(void *arg)
{
	struct reaper *r = arg;
	struct uml_exit ex;
	int i;

	for (i = 0; i < 10; i++) {
		r->ret = uml_thread_run(r->t, &ex);
		r->reason = ex.reason;
		if (r->ret || ex.reason == UML_EXIT_EXITED)
			break;
	}
	r->status = ex.exited.status;
	return NULL;
}

TEST_F(threads, released_thread_killed_reports_its_death)
{
	struct reaper r = { .t = self->t };
	pthread_t p;
	int pid;

	ASSERT_EQ(0, loop_once(self->t, 0x1234));
	pid = uml_thread_host_tid(self->t);
	ASSERT_EQ(0, uml_thread_release(self->t));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_TRUE(pid_dead_within(pid, 5000));	/* a zombie */
	ASSERT_EQ(0, pthread_create(&p, NULL, run_to_death, &r));
	pthread_join(p, NULL);
	ASSERT_EQ(0, r.ret);
	EXPECT_EQ(UML_EXIT_EXITED, r.reason);
	EXPECT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	EXPECT_FALSE(pid_exists(pid));		/* reaped */
}

/*
 * ptrace: a released stub is untraced; continued from outside, its guest
 * code runs on the host, and its first syscall must kill it, not run.
 */
TEST_F(threads, released_stub_continued_from_outside_cannot_syscall)
{
	struct reaper r = { .t = self->t };
	pthread_t p;
	int pid;

	if (variant->backend != UML_BACKEND_PTRACE)
		SKIP(return, "skas: a released thread stays parked in skas.ko");
	ASSERT_EQ(0, loop_once(self->t, 0x1234));
	pid = uml_thread_host_tid(self->t);
	ASSERT_EQ(0, uml_thread_release(self->t));
	ASSERT_EQ(0, kill(pid, SIGCONT));	/* the getpid loop runs */
	EXPECT_TRUE(pid_dead_within(pid, 5000));
	ASSERT_EQ(0, pthread_create(&p, NULL, run_to_death, &r));
	pthread_join(p, NULL);
	ASSERT_EQ(0, r.ret);
	EXPECT_EQ(UML_EXIT_EXITED, r.reason);
	EXPECT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGSYS);
}

/* Each guest thread driven by its own runtime thread, all at once. */
struct driver {
	struct uml_thread *t;
	struct uml_aspace *as;
	pthread_barrier_t *start;
	int index;
	int failures, first_error, rounds;
};

/*
 * The guest loads from its page or, odd ones, stores to it while it is
 * unmapped: each fault must come with its own error code, though the
 * threads of a ptrace address space share the stub's signal stack.
 */
static int fault_once(struct driver *d, uint64_t page)
{
	struct uml_regs *r = uml_thread_regs(d->t);
	uint64_t write = d->index & 1;
	struct uml_exit ex;
	int ret;

	r->r12 = page;
	ret = uml_thread_run(d->t, &ex);
	while (!ret && ex.reason == UML_EXIT_INTERRUPTED)
		ret = uml_thread_run(d->t, &ex);
	r->r12 = TOUCHED;
	if (ret)
		return ret;
	if (ex.reason != UML_EXIT_FAULT || ex.fault.signo != SIGSEGV ||
	    ex.fault.addr != page || ex.fault.trapno != 14 ||
	    (ex.fault.error_code & 6) != (4 | write << 1))
		return 4;
	return 0;
}

/* Its own FPU state, set and read back while the others do theirs. */
static int fpu_once(struct driver *d, int i)
{
	struct uml_fpregs fp;
	uint64_t v = (uint64_t)d->index << 32 | i, w;
	int ret = uml_thread_get_fpregs(d->t, &fp);

	if (ret)
		return ret;
	memcpy(fp.fxsave + 160, &v, 8);		/* xmm0's low half */
	ret = uml_thread_set_fpregs(d->t, &fp);
	if (!ret)
		ret = uml_thread_get_fpregs(d->t, &fp);
	memcpy(&w, fp.fxsave + 160, 8);
	return ret ? ret : w == v ? 0 : 5;
}

static void *drive(void *arg)
{
	struct driver *d = arg;
	uint64_t page = GUEST_DATA + (d->index + 1) * PAGE, w;
	int i, ret;

	uml_thread_regs(d->t)->r12 = TOUCHED;
	uml_thread_regs(d->t)->r13 = d->index & 1;
	pthread_barrier_wait(d->start);
	for (i = 0; i < ROUNDS; i++) {
		ret = loop_once(d->t, 0x1234);
		if (!ret && i % 8 == 4)
			ret = fault_once(d, page);
		if (!ret && i % 8 == 6)
			ret = fpu_once(d, i);
		/* Its own page, mapped and unmapped while the others run. */
		if (!ret && i % 8 == 0) {
			w = i;
			ret = map_data(d->as, page);
			if (!ret && uml_mem_write(d->as, page, &w, 8) != 8)
				ret = 2;
			w = ~0ULL;
			if (!ret && (uml_mem_read(d->as, &w, page, 8) != 8 ||
				     w != (uint64_t)i))
				ret = 3;
			if (!ret)
				ret = uml_aspace_unmap(d->as, page, PAGE);
		}
		if (ret) {
			if (!d->failures++)
				d->first_error = ret;
			continue;
		}
		d->rounds++;
	}
	ret = uml_thread_release(d->t);
	if (ret && !d->failures++)
		d->first_error = ret;
	return NULL;
}

TEST_F_TIMEOUT(threads, guest_threads_run_in_parallel, PARALLEL_TIMEOUT)
{
	struct driver d[NTHREADS];
	pthread_t p[NTHREADS];
	pthread_barrier_t start;
	int i;

	UML_NEED_THREADS(variant->backend);

	ASSERT_EQ(0, load_code(self->as, GUEST_CODE + PAGE, code_touch_loop,
			       sizeof(code_touch_loop)));
	uml_thread_regs(self->t)->rip = GUEST_CODE + PAGE;
	uml_thread_regs(self->t)->r12 = TOUCHED;
	ASSERT_EQ(0, loop_once(self->t, 0x1234));
	pthread_barrier_init(&start, NULL, NTHREADS);
	for (i = 0; i < NTHREADS; i++) {
		memset(&d[i], 0, sizeof(d[i]));
		d[i].as = self->as;
		d[i].start = &start;
		d[i].index = i;
		if (!i) {
			d[i].t = self->t;
		} else {
			ASSERT_EQ(0, uml_thread_clone(self->t,
						      UML_CLONE_THREAD,
						      &d[i].t, NULL));
			uml_thread_regs(d[i].t)->rip = GUEST_CODE + PAGE;
		}
	}
	/* After the clones: cloning from the parent would take it back. */
	for (i = 0; i < NTHREADS; i++)
		ASSERT_EQ(0, uml_thread_release(d[i].t));
	for (i = 0; i < NTHREADS; i++)
		ASSERT_EQ(0, pthread_create(&p[i], NULL, drive, &d[i]));
	for (i = 0; i < NTHREADS; i++)
		pthread_join(p[i], NULL);
	for (i = 0; i < NTHREADS; i++) {
		EXPECT_EQ(0, d[i].failures) {
			TH_LOG("thread %d: %d failures, the first %d (%s)", i,
			       d[i].failures, d[i].first_error,
			       d[i].first_error < 0 ?
			       uml_strerror(d[i].first_error) :
			       "1: bad syscall, 2-3: memory, 4: fault, 5: FPU");
		}
		EXPECT_EQ(ROUNDS, d[i].rounds);
	}
	/* All handed back: this thread drives them again. */
	for (i = 0; i < NTHREADS; i++)
		EXPECT_EQ(0, loop_once(d[i].t, 0x1234));
	pthread_barrier_destroy(&start);
}

/* A run in progress on one runtime thread, seen from another. */
struct spinner {
	struct uml_thread *t;
	int ret, kicked;
	struct uml_exit ex;
};

/* Until an interruption after the kick: the first run may be one too. */
static void *spin(void *arg)
{
	struct spinner *s = arg;
	int i;

	for (i = 0; i < 100; i++) {
		s->ret = uml_thread_run(s->t, &s->ex);
		if (s->ret || s->ex.reason != UML_EXIT_INTERRUPTED ||
		    __atomic_load_n(&s->kicked, __ATOMIC_ACQUIRE))
			break;
	}
	uml_thread_release(s->t);
	return NULL;
}

TEST_F(threads, kick_from_another_thread_ends_its_run)
{
	struct spinner s = { .t = self->t };
	uint64_t w = 0;
	pthread_t p;

	ASSERT_EQ(0, load_code(self->as, GUEST_CODE + PAGE, code_spin,
			       sizeof(code_spin)));
	uml_thread_regs(self->t)->rip = GUEST_CODE + PAGE;
	ASSERT_EQ(0, uml_thread_release(self->t));
	ASSERT_EQ(0, pthread_create(&p, NULL, spin, &s));
	/* Released while nobody has it: wait until the spinner does. */
	while (uml_thread_release(self->t) == 0)
		usleep(1000);
	usleep(50000);
	/* Not ours while it spins there; its memory is readable. */
	EXPECT_EQ(-EPERM, uml_thread_run(self->t, &self->ex));
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA, 8));
	EXPECT_EQ(0x1234, w);
	__atomic_store_n(&s.kicked, 1, __ATOMIC_RELEASE);
	EXPECT_EQ(0, uml_thread_kick(self->t));
	pthread_join(p, NULL);
	ASSERT_EQ(0, s.ret);
	EXPECT_EQ(UML_EXIT_INTERRUPTED, s.ex.reason);
}

/*
 * A fork's address space shares the parent's stub socket on ptrace: two
 * runtime threads mapping files into the two at once must each get their
 * own file.
 */
struct filemapper {
	struct uml_thread *t;
	int fd;
	char fill;
	int failures, first_error;
};

static void *map_files(void *arg)
{
	struct filemapper *f = arg;
	struct uml_aspace *as = uml_thread_aspace(f->t);
	uint64_t page = GUEST_DATA + 4 * PAGE;
	char buf[16];
	int i, ret;

	/* Memory calls need a thread the caller drives: drive it first. */
	ret = loop_once(f->t, 0x1234);
	if (ret) {
		f->failures++;
		f->first_error = ret;
		return NULL;
	}
	for (i = 0; i < 200; i++) {
		ret = uml_aspace_map(as, page, PAGE, PROT_READ,
				     UML_MAP_SHARED, f->fd, 0);
		memset(buf, 0, sizeof(buf));
		if (!ret && (uml_mem_read(as, buf, page, sizeof(buf)) !=
			     sizeof(buf) || buf[0] != f->fill ||
			     buf[15] != f->fill))
			ret = 1;
		if (!ret)
			ret = uml_aspace_unmap(as, page, PAGE);
		if (ret && !f->failures++)
			f->first_error = ret;
	}
	return NULL;
}

TEST_F(threads, forked_spaces_map_files_at_once)
{
	struct filemapper f[2] = { { .fill = 'a' }, { .fill = 'b' } };
	struct uml_aspace *cas;
	char page[PAGE];
	pthread_t p[2];
	int i;

	UML_NEED_FORK(variant->backend);

	ASSERT_EQ(0, uml_thread_clone(self->t, 0, &f[1].t, &cas));
	f[0].t = self->t;
	for (i = 0; i < 2; i++) {
		f[i].fd = memfd_create("threads", MFD_CLOEXEC);
		ASSERT_LE(0, f[i].fd);
		memset(page, f[i].fill, sizeof(page));
		ASSERT_EQ(PAGE, write(f[i].fd, page, sizeof(page)));
		ASSERT_EQ(0, uml_thread_release(f[i].t));
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&p[i], NULL, map_files, &f[i]));
	for (i = 0; i < 2; i++)
		pthread_join(p[i], NULL);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, f[i].failures) {
			TH_LOG("space %d: %d failures, the first %d", i,
			       f[i].failures, f[i].first_error);
		}
		close(f[i].fd);
	}
}

/* Runtime threads making and destroying address spaces of one host. */
static void *churn(void *arg)
{
	struct uml_host *host = arg;
	struct uml_aspace *as, *cas;
	struct uml_thread *t, *c;
	long i, bad = 0;

	for (i = 0; i < 20; i++) {
		if (uml_aspace_create(host, &as, &t)) {
			bad++;
			continue;
		}
		if (load_loop(as, t, i) || loop_once(t, i))
			bad++;
		if (uml_can_fork(uml_host_backend(host))) {
			if (uml_thread_clone(t, 0, &c, &cas) || loop_once(c, i))
				bad++;
			else
				uml_aspace_destroy(cas);
		}
		uml_aspace_destroy(as);
	}
	return (void *)bad;
}

TEST_F_TIMEOUT(threads, address_spaces_made_and_destroyed_at_once, PARALLEL_TIMEOUT)
{
	pthread_t p[NTHREADS];
	void *bad;
	int i;

	for (i = 0; i < NTHREADS; i++)
		ASSERT_EQ(0, pthread_create(&p[i], NULL, churn, self->host));
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(p[i], &bad);
		EXPECT_EQ(0, (long)bad);
	}
	EXPECT_EQ(1, count_children());		/* the fixture's own */
	EXPECT_EQ(0, loop_once(self->t, 0x1234));
}

/* A runtime thread makes an address space, hands it over and exits. */
struct maker {
	struct uml_host *host;
	struct uml_aspace *as;
	struct uml_thread *t;
	int ret, release;
};

static void *make(void *arg)
{
	struct maker *m = arg;

	m->ret = uml_aspace_create(m->host, &m->as, &m->t);
	if (!m->ret)
		m->ret = load_loop(m->as, m->t, 0x5678);
	if (!m->ret)
		m->ret = loop_once(m->t, 0x5678);
	if (!m->ret && m->release)
		m->ret = uml_thread_release(m->t);
	return NULL;
}

static int make_in_thread(struct maker *m)
{
	pthread_t p;

	if (pthread_create(&p, NULL, make, m))
		return -EAGAIN;
	pthread_join(p, NULL);
	return m->ret;
}

TEST_F(threads, creator_may_exit_after_release)
{
	struct maker m = { .host = self->host, .release = 1 };
	int pid;

	ASSERT_EQ(0, make_in_thread(&m));
	pid = uml_thread_host_tid(m.t);
	usleep(50000);
	/* Still there, stopped, and ours to run (ptrace: no PDEATHSIG). */
	EXPECT_TRUE(pid_exists(pid));
	EXPECT_EQ(0, loop_once(m.t, 0x5678));
	EXPECT_EQ(0, map_data(m.as, GUEST_DATA + PAGE));
	EXPECT_EQ(0, uml_aspace_reset(m.as));
	uml_aspace_destroy(m.as);
	EXPECT_FALSE(pid_exists(pid));
}

/* Its guest threads stay bound to it; destroying them still works. */
TEST_F(threads, creator_exit_without_release)
{
	struct maker m = { .host = self->host };
	int pid;

	ASSERT_EQ(0, make_in_thread(&m));
	pid = uml_thread_host_tid(m.t);
	EXPECT_EQ(-EPERM, loop_once(m.t, 0x5678));
	EXPECT_EQ(-EPERM, uml_thread_release(m.t));
	EXPECT_EQ(-EPERM, map_data(m.as, GUEST_DATA + PAGE));
	uml_aspace_destroy(m.as);
	EXPECT_FALSE(pid_exists(pid));
	EXPECT_EQ(1, count_children());
}

/*
 * A released thread has no driver, on ptrace no tracer either: when the
 * runtime dies, it must die too (its orphaned process group's SIGHUP).
 */
TEST_F(threads, released_thread_dies_with_the_runtime)
{
	struct uml_host *host;
	struct uml_aspace *as;
	struct uml_thread *t;
	int fds[2], pid = 0, status;
	pid_t runtime;

	ASSERT_EQ(0, pipe(fds));
	runtime = fork();
	ASSERT_LE(0, runtime);
	if (!runtime) {
		if (uml_host_open(&host, variant->backend) ||
		    uml_aspace_create(host, &as, &t) ||
		    load_loop(as, t, 1) || loop_once(t, 1) ||
		    uml_thread_release(t))
			_exit(1);
		pid = uml_thread_host_tid(t);
		if (write(fds[1], &pid, sizeof(pid)) != sizeof(pid))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	ASSERT_EQ(sizeof(pid), read(fds[0], &pid, sizeof(pid)));
	close(fds[0]);
	ASSERT_EQ(runtime, waitpid(runtime, &status, 0));
	ASSERT_EQ(0, status);
	EXPECT_TRUE(pid_dead_within(pid, 5000));
}

TEST_HARNESS_MAIN
