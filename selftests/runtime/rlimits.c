// SPDX-License-Identifier: GPL-2.0-only
/*
 * Resource limits as the kernel keeps and enforces them; each case
 * prints what the calls returned (and errno), and busybox.sh compares
 * the output with the native one.
 *
 *   rlimits fsize   RLIMIT_FSIZE: writes (write, pwrite, writev, pwritev,
 *                   pwritev2, O_APPEND, copy_file_range, sendfile, splice)
 *                   cut at the limit, EFBIG and SIGXFSZ at it; truncate,
 *                   ftruncate, fallocate past it; pipes and /dev/null not
 *                   limited; SIGXFSZ's default action; the limit kept over
 *                   fork; setrlimit's and prlimit's checks (needs a
 *                   writable cwd: --rw)
 *   rlimits sigpending  RLIMIT_SIGPENDING: sigqueue, tgkill, rt_sigqueueinfo
 *                   past the target's limit EAGAIN; kill() overrides it;
 *                   a standard signal past it loses its information
 *   rlimits sigcount  the guest's count behind that limit: taking or
 *                   dropping a signal frees its place (umlrun only: the
 *                   host's count is every process's of the user)
 *   rlimits cputime  ITIMER_VIRTUAL and ITIMER_PROF: values read back,
 *                   bad arguments, the kernel's order; expiry in CPU time
 *                   (a sleeper's never comes), periods, the default
 *                   action, not kept over fork; RLIMIT_CPU's SIGXCPU at
 *                   the soft limit and SIGKILL at the hard one
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "show.h"

/* ---- RLIMIT_FSIZE ---- */

#define FSIZE	10000

static volatile int xfsz_count, xfsz_code, xfsz_self;

static void on_xfsz(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	xfsz_count++;
	xfsz_code = si->si_code;
	xfsz_self = si->si_pid == getpid();
}

static char big[3 * FSIZE];

static void fsize_writes(int fd)
{
	struct iovec iov[2] = { { big, 3000 }, { big, 3000 } };

	show("write 6000 at 0", write(fd, big, 6000));
	show("write 6000 at 6000, cut at the limit", write(fd, big, 6000));
	show("write 1 at the limit", write(fd, big, 1));
	printf("SIGXFSZ: %d, SI_USER %d, from itself %d\n", xfsz_count,
	       xfsz_code == SI_USER, xfsz_self);
	show("write 0 at the limit", write(fd, big, 0));
	show("write 1 at the limit, bad buffer", syscall(SYS_write, fd, 8L, 1L));
	show("pwrite 100 at 9990", pwrite(fd, big, 100, 9990));
	show("pwrite 1 at 10000", pwrite(fd, big, 1, FSIZE));
	show("pwrite 1 at 1<<40", pwrite(fd, big, 1, 1LL << 40));
	show("pwrite 0 at 20000", pwrite(fd, big, 0, 2 * FSIZE));
	show("pwrite 1 at -1", pwrite(fd, big, 1, -1));
	show("pwrite 25000 at 0, in chunks", pwrite(fd, big, sizeof(big), 0));
	lseek(fd, 8000, SEEK_SET);
	show("writev 6000 at 8000", writev(fd, iov, 2));
	show("pwritev 6000 at 9999", pwritev(fd, iov, 2, 9999));
	show("pwritev2 RWF_APPEND", pwritev2(fd, iov, 2, 0, RWF_APPEND));
	show("pwritev2 unknown flag", pwritev2(fd, iov, 2, 0, 1 << 30));
	show("pwritev 6000 at -5", pwritev(fd, iov, 2, -5));
	show("ftruncate to 20000", ftruncate(fd, 2 * FSIZE));
	show("ftruncate to 5000", ftruncate(fd, 5000));
	show("ftruncate to 10000", ftruncate(fd, FSIZE));
	show("ftruncate to -1", ftruncate(fd, -1));
	/*
	 * Not FALLOC_FL_KEEP_SIZE past the limit: whether the kernel holds
	 * it to RLIMIT_FSIZE depends on the file system and the version
	 * (6.1's tmpfs does, 6.18's here does not); umlrun does not.
	 */
	show("fallocate 9000+2000", fallocate(fd, 0, 9000, 2000));
	show("fallocate 9000+1000", fallocate(fd, 0, 9000, 1000));
	show("fallocate -1+10", fallocate(fd, 0, -1, 10));
	show("fallocate 0+0", fallocate(fd, 0, 0, 0));
	show("fallocate 1+INT64_MAX", fallocate(fd, 0, 1, 0x7fffffffffffffffLL));
	printf("SIGXFSZ: %d\n", xfsz_count);
}

static void fsize_others(int ro, int src)
{
	int fd, p[2];
	loff_t off;

	show("ftruncate of an O_RDONLY fd to 20000", ftruncate(ro, 2 * FSIZE));
	show("write to an O_RDONLY fd at 20000",
	     pwrite(ro, big, 1, 2 * FSIZE));
	show("truncate to 20000", truncate("fsize.out", 2 * FSIZE));
	show("truncate to 100", truncate("fsize.out", 100));
	show("truncate of a missing file", truncate("fsize.none", 2 * FSIZE));
	fd = open("fsize.out", O_WRONLY | O_APPEND);
	show("O_APPEND write 20000 at 100", write(fd, big, 2 * FSIZE));
	show("O_APPEND write 1 at 10000", write(fd, big, 1));
	show("O_APPEND pwrite 1 at 0", pwrite(fd, big, 1, 0));
	show("copy_file_range to an O_APPEND fd",
	     copy_file_range(src, NULL, fd, NULL, 10, 0));
	close(fd);
	fd = open("fsize.out", O_WRONLY);
	off = 9000;
	show("copy_file_range 5000 to 9000",
	     copy_file_range(src, NULL, fd, &off, 5000, 0));
	show("copy_file_range, flags 1", copy_file_range(src, NULL, fd, &off, 5, 1));
	lseek(fd, FSIZE, SEEK_SET);
	show("sendfile 10 at 10000", sendfile(fd, src, NULL, 10));
	lseek(fd, 9996, SEEK_SET);
	show("sendfile 10 at 9996", sendfile(fd, src, NULL, 10));
	if (pipe(p) == 0) {
		show("write 20000 to a pipe", write(p[1], big, 2 * FSIZE));
		off = 9500;
		show("splice 1000 to 9500", splice(p[0], NULL, fd, &off, 1000, 0));
		show("splice 1000 to 10000", splice(p[0], NULL, fd, &off, 1000, 0));
		close(p[0]);
		close(p[1]);
	}
	close(fd);
	fd = open("/dev/null", O_WRONLY);
	show("write 20000 to /dev/null", write(fd, big, 2 * FSIZE));
	close(fd);
	printf("SIGXFSZ: %d\n", xfsz_count);
}

static void fsize_limits(void)
{
	struct rlimit rl = { FSIZE, FSIZE }, got;

	show("setrlimit FSIZE 10000", setrlimit(RLIMIT_FSIZE, &rl));
	show("getrlimit FSIZE", getrlimit(RLIMIT_FSIZE, &got));
	printf("  %llu %llu\n", (unsigned long long)got.rlim_cur,
	       (unsigned long long)got.rlim_max);
	rl.rlim_cur = FSIZE + 1;
	show("setrlimit cur above max", setrlimit(RLIMIT_FSIZE, &rl));
	show("setrlimit resource 16", setrlimit(16, &got));
	show("setrlimit resource -1", setrlimit(-1, &got));
	show("setrlimit bad pointer", syscall(SYS_setrlimit, RLIMIT_FSIZE, 8L));
	show("getrlimit bad pointer", syscall(SYS_getrlimit, RLIMIT_FSIZE, 8L));
	show("prlimit64 of pid -1",
	     syscall(SYS_prlimit64, -1, RLIMIT_FSIZE, NULL, &got));
	show("prlimit64 resource 99",
	     syscall(SYS_prlimit64, 0, 99, NULL, &got));
	show("prlimit64, pid and resource with upper bits",
	     syscall(SYS_prlimit64, 1L << 32, (1L << 32) | RLIMIT_FSIZE, NULL,
		     &got));
}

/* Lowered again, and (not as root) never raised back. */
static void fsize_lower(void)
{
	struct rlimit rl = { FSIZE / 2, FSIZE / 2 }, got;

	show("prlimit64 set 5000, old", syscall(SYS_prlimit64, 0, RLIMIT_FSIZE,
						&rl, &got));
	printf("  old %llu %llu\n", (unsigned long long)got.rlim_cur,
	       (unsigned long long)got.rlim_max);
	rl.rlim_cur = rl.rlim_max = FSIZE;
	if (geteuid())	/* root may have CAP_SYS_RESOURCE, or not */
		show("raising the hard limit back",
		     setrlimit(RLIMIT_FSIZE, &rl));
	rl.rlim_cur = FSIZE / 4;	/* stdout may be a file: keep room */
	rl.rlim_max = FSIZE / 2;
	show("prlimit64 cur 2500, max 5000", syscall(SYS_prlimit64, 0, RLIMIT_FSIZE,
					       &rl, NULL));
	show("getrlimit FSIZE", getrlimit(RLIMIT_FSIZE, &got));
	printf("  %llu %llu\n", (unsigned long long)got.rlim_cur,
	       (unsigned long long)got.rlim_max);
}

static int fsize_case(void)
{
	struct sigaction sa = { .sa_sigaction = on_xfsz, .sa_flags = SA_SIGINFO };
	int fd, ro, src, st;
	pid_t pid;

	memset(big, 'x', sizeof(big));
	src = open("fsize.src", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (src < 0 || write(src, big, sizeof(big)) != sizeof(big))
		return 1;
	lseek(src, 0, SEEK_SET);
	sigaction(SIGXFSZ, &sa, NULL);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fsize_limits();
		fd = open("fsize.out", O_RDWR | O_CREAT | O_TRUNC, 0600);
		ro = open("fsize.out", O_RDONLY);
		fsize_writes(fd);
		fsize_others(ro, src);
		fsize_lower();
		fflush(stdout);
		/* A child of this one keeps the limit, and dies of it. */
		pid = fork();
		if (pid == 0) {
			signal(SIGXFSZ, SIG_DFL);
			lseek(fd, 0, SEEK_END);
			if (write(fd, big, 1) < 0)
				printf("no SIGXFSZ: %s\n", strerrorname_np(errno));
			_exit(0);
		}
		waitpid(pid, &st, 0);
		printf("child's write with SIGXFSZ default: %s %d\n",
		       WIFSIGNALED(st) ? "killed by" : "exit",
		       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	unlink("fsize.out");
	unlink("fsize.src");
	fd = open("fsize.out", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	show("the parent's limit is its own: write 20000", write(fd, big, 2 * FSIZE));
	close(fd);
	unlink("fsize.out");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* ---- RLIMIT_SIGPENDING ---- */

/* The soft limit: root here may lack CAP_SYS_RESOURCE, or not. */
static void sigpending_set(rlim_t n)
{
	struct rlimit rl;

	getrlimit(RLIMIT_SIGPENDING, &rl);
	rl.rlim_cur = n;
	if (setrlimit(RLIMIT_SIGPENDING, &rl) < 0)
		printf("setrlimit SIGPENDING %lu: %s\n", (unsigned long)n,
		       strerrorname_np(errno));
}

/* Take @sig, blocked, and say what came with it. */
static void take(int sig)
{
	struct timespec ts = { 0, 0 };
	sigset_t set;
	siginfo_t si;
	int r;

	sigemptyset(&set);
	sigaddset(&set, sig);
	r = sigtimedwait(&set, &si, &ts);
	if (r < 0) {
		printf("  took nothing: %s\n", strerrorname_np(errno));
		return;
	}
	printf("  took %s: code %d, from %s, value %d\n",
	       r == SIGUSR1 ? "SIGUSR1" : r == SIGRTMIN ? "SIGRTMIN" : "another",
	       si.si_code, si.si_pid == getpid() ? "itself" :
	       si.si_pid ? "another" : "pid 0",
	       si.si_code == SI_QUEUE ? si.si_value.sival_int : -1);
}

static long queue_self(int sig, int val)
{
	return sigqueue(getpid(), sig, (union sigval){ .sival_int = val });
}

static void sigpending_self(void)
{
	siginfo_t si = { .si_signo = SIGRTMIN, .si_code = SI_QUEUE };
	pid_t me = getpid();

	sigpending_set(0);
	show("limit 0: sigqueue SIGRTMIN", queue_self(SIGRTMIN, 1));
	show("tgkill SIGRTMIN", syscall(SYS_tgkill, me, syscall(SYS_gettid),
					SIGRTMIN));
	si.si_pid = me;
	si.si_uid = getuid();
	show("rt_sigqueueinfo SIGRTMIN",
	     syscall(SYS_rt_sigqueueinfo, me, SIGRTMIN, &si));
	show("rt_sigqueueinfo, bad siginfo",
	     syscall(SYS_rt_sigqueueinfo, me, SIGRTMIN, 8L));
	take(SIGRTMIN);
	show("kill SIGRTMIN (SI_USER overrides the limit)", kill(me, SIGRTMIN));
	take(SIGRTMIN);
	show("tgkill SIGUSR1", syscall(SYS_tgkill, me, syscall(SYS_gettid),
				       SIGUSR1));
	show("sigqueue SIGUSR1 again", queue_self(SIGUSR1, 7));
	take(SIGUSR1);
	take(SIGUSR1);
}

/*
 * The count behind the limit: the guest's queued signals, each freed
 * when taken or dropped.  Natively the user's count is the host's, other
 * processes' pending signals among them: this one runs under umlrun
 * only, and says "sigcount ok".
 */
static int sigcount_case(void)
{
	sigset_t set;
	int fails = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigpending_set(2);
	fails += queue_self(SIGRTMIN, 1) != 0;
	fails += queue_self(SIGUSR1, 2) != 0;
	fails += queue_self(SIGRTMIN, 3) != -1 || errno != EAGAIN;
	fails += queue_self(SIGUSR1, 4) != 0;	/* merges */
	fails += sigtimedwait(&set, NULL, &(struct timespec){ 0, 0 }) < 0;
	fails += queue_self(SIGRTMIN, 5) != 0;	/* one was freed */
	signal(SIGRTMIN, SIG_IGN);		/* drops the queued ones */
	signal(SIGRTMIN, SIG_DFL);
	fails += queue_self(SIGRTMIN, 6) != 0;
	fails += queue_self(SIGRTMIN, 7) != 0;
	fails += queue_self(SIGRTMIN, 8) != -1 || errno != EAGAIN;
	printf(fails ? "sigcount: %d failed\n" : "sigcount ok\n", fails);
	return fails != 0;
}

/* The limit is the target's: a child at 0 refuses its parent's. */
static void sigpending_child(void)
{
	int ready[2], done[2], st;
	pid_t pid;
	char c;

	if (pipe(ready) < 0 || pipe(done) < 0)
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		sigpending_set(0);
		if (write(ready[1], "x", 1) != 1 || read(done[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1)
		return;
	show("sigqueue to a child whose limit is 0",
	     sigqueue(pid, SIGRTMIN, (union sigval){ .sival_int = 1 }));
	show("kill SIGRTMIN to it", kill(pid, SIGRTMIN));
	if (write(done[1], "x", 1) != 1)
		return;
	waitpid(pid, &st, 0);
	printf("child: exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static int sigpending_case(void)
{
	sigset_t set;
	int st;
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigaddset(&set, SIGRTMIN + 1);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		sigpending_self();
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	sigpending_child();
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* ---- ITIMER_VIRTUAL, ITIMER_PROF, RLIMIT_CPU ---- */

static volatile int cpu_sigs, cpu_code;

static void on_cpu_sig(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	cpu_sigs++;
	cpu_code = si->si_code;
}

static volatile unsigned long spin_x;

/*
 * Burn user time until *@n reaches @want, for 20 s at most: a loop
 * between two looks at the clock, which is a syscall under umlrun
 * --no-fast (no vDSO) and would leave little user time per second.
 */
static void spin_until(volatile int *n, int want)
{
	struct timespec t0, t;
	unsigned long i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < 1000000 && *n < want; i++)
			spin_x += i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (*n < want && t.tv_sec - t0.tv_sec < 20);
}

static long itimer(int which, long vs, long vus, long is, long ius,
		   struct itimerval *old)
{
	struct itimerval it = { { is, ius }, { vs, vus } };

	return syscall(SYS_setitimer, which, &it, old);
}

/* The value read back: at most what was set (and a tick), not far below. */
static void show_itimer(const char *what, int which, long set_us)
{
	struct itimerval it;
	long us;

	if (syscall(SYS_getitimer, which, &it) < 0) {
		show(what, -1);
		return;
	}
	us = it.it_value.tv_sec * 1000000L + it.it_value.tv_usec;
	printf("%s: value %s, interval %ld.%06ld\n", what,
	       !set_us ? (us ? "armed" : "0") :
	       us > set_us - 100000 && us <= set_us + 20000 ? "as set" : "off",
	       (long)it.it_interval.tv_sec, (long)it.it_interval.tv_usec);
}

static void itimer_args(void)
{
	struct itimerval old;

	show_itimer("ITIMER_VIRTUAL at first", ITIMER_VIRTUAL, 0);
	show_itimer("ITIMER_PROF at first", ITIMER_PROF, 0);
	show("set VIRTUAL 5 s, every 1.5 s",
	     itimer(ITIMER_VIRTUAL, 5, 0, 1, 500000, NULL));
	show_itimer("VIRTUAL", ITIMER_VIRTUAL, 5000000);
	show("set VIRTUAL 3 s, old", itimer(ITIMER_VIRTUAL, 3, 0, 0, 0, &old));
	printf("  old: %s, interval %ld.%06ld\n",
	       old.it_value.tv_sec == 5 || old.it_value.tv_sec == 4 ?
	       "as set" : "off", (long)old.it_interval.tv_sec,
	       (long)old.it_interval.tv_usec);
	show("set PROF 2 s, which with upper bits",
	     syscall(SYS_setitimer, (1L << 32) | ITIMER_PROF,
		     &(struct itimerval){ { 0, 0 }, { 2, 0 } }, NULL));
	show_itimer("PROF", ITIMER_PROF, 2000000);
	show("which 3", itimer(3, 1, 0, 0, 0, NULL));
	show("which -1", itimer(-1, 1, 0, 0, 0, NULL));
	show("tv_usec 1000000", itimer(ITIMER_PROF, 1, 1000000, 0, 0, NULL));
	show("tv_usec -1", itimer(ITIMER_PROF, 1, -1, 0, 0, NULL));
	show("interval tv_sec -1", itimer(ITIMER_PROF, 1, 0, -1, 0, NULL));
	show("new value bad pointer",
	     syscall(SYS_setitimer, ITIMER_PROF, 8L, NULL));
	show("old value bad pointer (the timer is set)",
	     itimer(ITIMER_PROF, 7, 0, 0, 0, (void *)8));
	show_itimer("PROF", ITIMER_PROF, 7000000);
	show("bad which before a bad old pointer",
	     itimer(9, 7, 0, 0, 0, (void *)8));
	show("no new value (disarms)", syscall(SYS_setitimer, ITIMER_PROF,
					       NULL, &old));
	printf("  old: %s\n", old.it_value.tv_sec == 6 ||
	       old.it_value.tv_sec == 7 ? "as set" : "off");
	show_itimer("PROF", ITIMER_PROF, 0);
	show("getitimer bad pointer", syscall(SYS_getitimer, ITIMER_VIRTUAL, 8L));
	show("getitimer which 5", syscall(SYS_getitimer, 5, &old));
	show("huge VIRTUAL", itimer(ITIMER_VIRTUAL, 0x7fffffffffffffffL, 0, 0,
				    0, NULL));
	show_itimer("VIRTUAL", ITIMER_VIRTUAL, 0);
}

/* A child that spins under @which until @n signals, or dies of them. */
static void itimer_fires(int which, int sig, const char *name, bool dfl)
{
	struct sigaction sa = { .sa_sigaction = on_cpu_sig,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!dfl)
			sigaction(sig, &sa, NULL);
		itimer(which, 0, 20000, 0, 20000, NULL);
		spin_until(&cpu_sigs, 3);
		printf("%s: %s, SI_KERNEL %d\n", name,
		       cpu_sigs >= 3 ? "3 signals" : "too few",
		       cpu_code == SI_KERNEL);
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	if (dfl)
		printf("%s's default action: killed by %d\n", name,
		       WIFSIGNALED(st) ? WTERMSIG(st) : -1);
}

/* Sleeping takes no CPU time: its virtual timer does not come. */
static void itimer_sleeper(void)
{
	struct sigaction sa = { .sa_sigaction = on_cpu_sig,
				.sa_flags = SA_SIGINFO };

	cpu_sigs = 0;
	sigaction(SIGVTALRM, &sa, NULL);
	itimer(ITIMER_VIRTUAL, 0, 10000, 0, 0, NULL);
	usleep(300000);
	printf("a sleeper's 10 ms VIRTUAL timer: %s\n",
	       cpu_sigs ? "fired" : "not fired");
	itimer(ITIMER_VIRTUAL, 0, 0, 0, 0, NULL);
}

static int xcpu_pipe = -1;

static void on_xcpu(int sig)
{
	struct rlimit rl;
	char c = '0';

	(void)sig;
	if (getrlimit(RLIMIT_CPU, &rl) == 0 && rl.rlim_cur < 10)
		c = '0' + rl.rlim_cur;
	if (write(xcpu_pipe, &c, 1) < 0)
		_exit(3);
}

/* RLIMIT_CPU 1 s soft, 2 s hard: one SIGXCPU (soft now 2), then SIGKILL. */
static void cpu_limit(void)
{
	struct rlimit rl = { 1, 2 };
	char buf[16];
	int p[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe(p) < 0)
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		xcpu_pipe = p[1];
		signal(SIGXCPU, on_xcpu);
		if (setrlimit(RLIMIT_CPU, &rl) < 0)
			_exit(2);
		spin_until(&cpu_sigs, 1);	/* never: it dies */
		_exit(1);
	}
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	waitpid(pid, &st, 0);
	printf("RLIMIT_CPU 1/2: SIGXCPU with the soft limit then at \"%s\"; %s %d\n",
	       buf, WIFSIGNALED(st) ? "killed by" : "exit",
	       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	close(p[0]);
}

static int cputime_case(void)
{
	int st;
	pid_t pid;

	itimer_args();
	itimer(ITIMER_PROF, 100, 0, 0, 0, NULL);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		show_itimer("a fork child's PROF", ITIMER_PROF, 0);
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	itimer(ITIMER_PROF, 0, 0, 0, 0, NULL);
	itimer_sleeper();
	itimer_fires(ITIMER_VIRTUAL, SIGVTALRM, "SIGVTALRM", false);
	itimer_fires(ITIMER_PROF, SIGPROF, "SIGPROF", false);
	itimer_fires(ITIMER_PROF, SIGPROF, "SIGPROF", true);
	cpu_limit();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "fsize"))
		return fsize_case();
	if (argc == 2 && !strcmp(argv[1], "sigpending"))
		return sigpending_case();
	if (argc == 2 && !strcmp(argv[1], "sigcount"))
		return sigcount_case();
	if (argc == 2 && !strcmp(argv[1], "cputime"))
		return cputime_case();
	fprintf(stderr, "usage: rlimits fsize|sigpending|sigcount|cputime\n");
	return 2;
}
