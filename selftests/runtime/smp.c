// SPDX-License-Identifier: GPL-2.0-only
/*
 * Races an SMP kernel must get right, for umlrun with several workers
 * (--cpus): threads of one process mapping and unmapping at once,
 * exit_group and execve while other threads run or block, signals to a
 * thread group whose threads all block, fork from a multi-threaded
 * process, wait racing exit, and threads of one process really running
 * at once.  Each part runs in a child with a watchdog; "smp ok" at the
 * end, else what went wrong and exit status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *self_exe;

#define FAIL(...) do { fprintf(stderr, "smp: " __VA_ARGS__); \
		       fputc('\n', stderr); _exit(1); } while (0)

static void *spinner(void *arg)
{
	volatile unsigned long x = 0;

	(void)arg;
	for (;;)
		x++;
	return NULL;
}

static void *blocker(void *arg)
{
	int *fds = arg;
	char c;

	/* Nobody writes: it blocks until the process goes. */
	if (read(fds[0], &c, 1) >= 0)
		FAIL("read of an idle pipe returned");
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		sleep(100);
	return NULL;
}

static void start(void *(*fn)(void *), void *arg)
{
	pthread_t th;

	if (pthread_create(&th, NULL, fn, arg))
		FAIL("pthread_create");
	pthread_detach(th);
}

/* Run @fn in a child with a watchdog; its exit status must be @want. */
static void in_child(const char *name, void (*fn)(void), int want)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		FAIL("%s: fork: %s", name, strerror(errno));
	if (pid == 0) {
		/*
		 * All parts: 61 s in the debug kernel's VM.  Later than
		 * busybox.sh's 240 s, whose timeout makes umlrun print its
		 * tasks and workers first: a hang's diagnosis.
		 */
		alarm(600);
		fn();
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		FAIL("%s: waitpid: %s", name, strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != want)
		FAIL("%s: wait status %#x, wanted exit %d", name, st, want);
}

/* ---- two threads mapping, touching and unmapping at once ---------------- */

static void *mapper(void *arg)
{
	unsigned long id = (unsigned long)arg, i, k;

	for (i = 0; i < 2000; i++) {
		size_t len = (1 + (i + id) % 16) * 4096;
		unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			FAIL("mmap: %s", strerror(errno));
		for (k = 0; k < len; k += 4096)
			if (p[k])
				FAIL("a new mapping is not zero");
		for (k = 0; k < len; k += 4096)
			p[k] = (unsigned char)(id + k / 4096 + 1);
		for (k = 0; k < len; k += 4096)
			if (p[k] != (unsigned char)(id + k / 4096 + 1))
				FAIL("a page changed under its thread");
		if (i % 3 == 0 && mprotect(p, len, PROT_READ))
			FAIL("mprotect: %s", strerror(errno));
		if (munmap(p, len))
			FAIL("munmap: %s", strerror(errno));
	}
	return NULL;
}

/* @fn in two threads at once, with arguments 1 and 2; both joined. */
static void in_two_threads(void *(*fn)(void *))
{
	pthread_t a, b;

	if (pthread_create(&a, NULL, fn, (void *)1UL) ||
	    pthread_create(&b, NULL, fn, (void *)2UL))
		FAIL("pthread_create");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
}

static void mm_race(void)
{
	in_two_threads(mapper);
}

/* ---- exit_group while other threads run and block ------------------------ */

static void exit_busy(void)
{
	static int fds[2];

	if (pipe(fds))
		FAIL("pipe");
	start(spinner, NULL);
	start(blocker, fds);
	start(sleeper, NULL);
	usleep(20000);
	exit(7);
}

/* ---- execve from one thread while others run ----------------------------- */

static void *execer(void *arg)
{
	(void)arg;
	usleep(10000);
	execl(self_exe, self_exe, "--exec-child", (char *)NULL);
	FAIL("execl %s: %s", self_exe, strerror(errno));
	return NULL;
}

static void exec_busy(void)
{
	static int fds[2];

	if (pipe(fds))
		FAIL("pipe");
	start(spinner, NULL);
	start(blocker, fds);
	start(execer, NULL);	/* not the leader: exec makes it the leader */
	for (;;)
		pause();
}

/* ---- signals to a thread group whose threads all block ------------------- */

static int ack[2];
static atomic_int got;

static void on_usr1(int sig)
{
	char c = 1;

	(void)sig;
	atomic_fetch_add(&got, 1);
	if (write(ack[1], &c, 1) != 1)
		_exit(3);
}

static void *waiter(void *arg)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;

	(void)arg;
	pthread_mutex_lock(&m);
	for (;;)
		pthread_cond_wait(&c, &m);	/* a futex wait */
	return NULL;
}

static void group_signals(void)
{
	struct sigaction sa;
	static int fds[2];
	pid_t pid;
	int i, st;
	char c;

	if (pipe(ack) || pipe(fds))
		FAIL("pipe");
	pid = fork();
	if (pid == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGUSR1, &sa, NULL);
		start(blocker, fds);
		start(waiter, NULL);
		start(sleeper, NULL);
		c = 0;
		if (write(ack[1], &c, 1) != 1)	/* ready */
			_exit(3);
		for (;;)
			pause();
	}
	if (read(ack[0], &c, 1) != 1)
		FAIL("the signalled process did not start");
	for (i = 0; i < 100; i++) {
		if (kill(pid, SIGUSR1))
			FAIL("kill: %s", strerror(errno));
		/* Each is handled by one of its threads before the next. */
		if (read(ack[0], &c, 1) != 1)
			FAIL("no handler ran for signal %d", i);
	}
	kill(pid, SIGTERM);
	if (waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st) ||
	    WTERMSIG(st) != SIGTERM)
		FAIL("SIGTERM to a blocked group: wait status %#x", st);
}

/* ---- fork from a multi-threaded process ---------------------------------- */

static atomic_ulong shared_count;

static void *counter(void *arg)
{
	(void)arg;
	for (;;)
		atomic_fetch_add(&shared_count, 1);
	return NULL;
}

static void fork_busy(void)
{
	int i, st;

	start(counter, NULL);
	start(counter, NULL);
	for (i = 0; i < 50; i++) {
		unsigned long seen = atomic_load(&shared_count);
		pid_t pid = fork();

		if (pid < 0)
			FAIL("fork: %s", strerror(errno));
		if (pid == 0) {
			/* Only the forking thread is here: nobody counts. */
			unsigned long a = atomic_load(&shared_count), b;

			usleep(2000);
			b = atomic_load(&shared_count);
			if (a < seen || a != b)
				_exit(2);
			_exit(i & 0x7f);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != (i & 0x7f))
			FAIL("fork child %d of a threaded process: status %#x",
			     i, st);
	}
}

/* ---- wait racing exit, from two threads at once -------------------------- */

static void *reaper(void *arg)
{
	unsigned long id = (unsigned long)arg;
	int i, st;

	for (i = 0; i < 150; i++) {
		int code = (int)((id * 64 + i) & 0xff);
		pid_t pid = fork();

		if (pid < 0)
			FAIL("fork: %s", strerror(errno));
		if (pid == 0)
			_exit(code);
		if (i & 1)
			sched_yield();	/* it may exit before or after we wait */
		if (waitpid(pid, &st, 0) != pid)
			FAIL("waitpid: %s", strerror(errno));
		if (!WIFEXITED(st) || WEXITSTATUS(st) != code)
			FAIL("child exit %d read as status %#x", code, st);
	}
	return NULL;
}

static void wait_exit(void)
{
	in_two_threads(reaper);
	if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD)
		FAIL("a child is left after every wait");
}

/* ---- two busy threads of one process are on two CPUs --------------------- */

static atomic_int turn, cpu_of[2] = { -1, -1 };

static int raw_getcpu(void)
{
	unsigned int cpu;

	/* The syscall, not the vDSO's: what the kernel (umlrun) says. */
	if (syscall(SYS_getcpu, &cpu, NULL, NULL))
		FAIL("getcpu: %s", strerror(errno));
	return (int)cpu;
}

static void *pong(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 100; i++) {
		while (atomic_load(&turn) != 1)
			;
		if (i == 99)	/* both busy for a while: where it runs */
			atomic_store(&cpu_of[1], raw_getcpu());
		atomic_store(&turn, 0);
	}
	return NULL;
}

/*
 * A hand-over without a syscall, 100 times: it needs the other thread to
 * run while this one spins (on one CPU, the slice's end preempts).  With
 * two CPUs free, a second busy thread goes to the other one.
 */
static void parallel(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	pthread_t th;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) != ncpu)
		FAIL("affinity has %d CPUs, sysconf %ld", CPU_COUNT(&set), ncpu);
	pthread_create(&th, NULL, pong, NULL);
	for (i = 0; i < 100; i++) {
		if (i == 99)
			atomic_store(&cpu_of[0], raw_getcpu());
		atomic_store(&turn, 1);
		while (atomic_load(&turn) != 0)
			;
	}
	pthread_join(th, NULL);
	if (cpu_of[0] < 0 || cpu_of[0] >= ncpu || cpu_of[1] < 0 ||
	    cpu_of[1] >= ncpu)
		FAIL("getcpu said %d and %d of %ld CPUs", cpu_of[0], cpu_of[1],
		     ncpu);
	if (ncpu > 1 && cpu_of[0] == cpu_of[1])
		FAIL("two busy threads on CPU %d of %ld", cpu_of[0], ncpu);
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	self_exe = argv[0];
	if (argc > 1 && strcmp(argv[1], "--exec-child") == 0)
		return 42;
	in_child("mmap/munmap from two threads", mm_race, 0);
	in_child("exit_group with threads running and blocked", exit_busy, 7);
	in_child("execve from a thread while others run", exec_busy, 42);
	in_child("signals to a group whose threads block", group_signals, 0);
	in_child("fork from a threaded process", fork_busy, 0);
	in_child("wait racing exit from two threads", wait_exit, 0);
	in_child("two busy threads, two CPUs", parallel, 0);
	printf("smp ok (%ld CPUs)\n", ncpu);
	return 0;
}
