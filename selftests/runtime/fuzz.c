// SPDX-License-Identifier: GPL-2.0-only
/*
 * A syscall fuzzer for umlrun: random calls of the syscalls the runtime
 * implements (guest-runtime/syscalls.def, included below, so the list never
 * drifts), plus unknown and out-of-range numbers, each argument drawn from
 * boundary values of its kind: fds (negative, INT_MAX, 2^32 + a real fd,
 * the numbers the runtime's own host fds may have, just below the fd
 * limit), signal numbers (0, 64, 65, 255, negative, huge), lengths (0, -1,
 * page edges, 2^31, 2^32), addresses (NULL, a buffer ending at a guard
 * page, the top of the guest range, the backend's stub pages, the vDSO,
 * the kernel half, non-canonical), flags (each bit, all bits), paths,
 * pids, clone flags with odd exit signals, wait options.
 *
 * The fuzzing itself runs in throw-away child processes, one per round of
 * ROUND_CALLS calls, so that nothing is off limits for it: exit, execve,
 * munmap of its own code, rt_sigreturn with a garbage frame, closing its
 * own stdout.  A fork-like call's new process or thread exits at once
 * with a random status (from assembly, touching no memory), which still
 * drives the runtime's exit, exit-signal and reaping paths.  A SIGALRM
 * every ALARM_US breaks blocking calls (handler, mask and timer set again
 * every REARM_CALLS calls).  The parent (guest pid 1, all its
 * signals blocked) only forks, polls and reaps; the one thing the children
 * may not do is SIGKILL or SIGSTOP it, so those two are turned into
 * signal 0 when they could reach it.  After each round it kills every
 * other process (kill(-1, SIGKILL)) and reaps them all: a round whose
 * child is STALL_MS in one call (it posts its progress in a shared page),
 * or runs past ROUND_MS, is killed, and processes that are not reaped within
 * REAP_SECS after SIGKILL are a runtime hang, reported as such.  A runtime
 * crash or sanitizer report shows outside (selftests/runtime/fuzz.sh).
 *
 * Seeded and reproducible: round R of seed S always makes the same calls
 * (nothing a call returns feeds the generator).
 *
 *   fuzz SEED COUNT             COUNT calls, prints "fuzz done" (cases.sh)
 *   fuzz [-s SEED] [-n COUNT] [-t SECONDS] [-r ROUND] [-v]
 *        -t: stop after SECONDS; -r: only round ROUND (to reproduce one,
 *        e.g. under umlrun --strace); -v: the seed, each round as it
 *        starts, the rounds that ended badly and the totals.
 * Any other command line exits 2 at once: an execve of itself with random
 * arguments must not start a second fuzzer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUND_CALLS	200
#define ROUND_MS	2000
#define STALL_MS	100
#define REARM_CALLS	16
#define REAP_SECS	30
#define ALARM_US	20000
#define SCRATCH_SIZE	0x10000

/* libuml's reserved pages in the guest (libuml/stub.h: STUB_BASE). */
#define STUB_BASE	0x7f0000000000ULL
#define USER_TOP	0x7ffffffff000ULL

struct sc {
	long nr;
	const char *name;
	const char *fmt;
};

static const struct sc table[] = {
#define SC(n, nm, f, fl) { n, #nm, f },
#include "../../guest-runtime/syscalls.def"
#undef SC
};
#define NTABLE	(sizeof(table) / sizeof(table[0]))

/*
 * The fuzzer's argument kinds, where the runtime's --strace letters (f fd,
 * s string, p pointer, d decimal, x hex, o octal) are not precise enough:
 * S signal, P pid, L length, A page address, C clone flags, W wait
 * options, F fcntl command, I ioctl request, Z sigset size.
 */
static const struct {
	long nr;
	const char *kinds;
} kinds[] = {
	{ SYS_read, "fpL" }, { SYS_write, "fpL" }, { SYS_pread64, "fpLd" },
	{ SYS_pwrite64, "fpLd" }, { SYS_mmap, "ALxxfd" },
	{ SYS_mprotect, "ALx" }, { SYS_munmap, "AL" }, { SYS_brk, "A" },
	{ SYS_mremap, "ALLxA" }, { SYS_msync, "ALx" }, { SYS_madvise, "ALd" },
	{ SYS_rt_sigaction, "SppZ" }, { SYS_rt_sigprocmask, "dppZ" },
	{ SYS_rt_sigpending, "pZ" }, { SYS_rt_sigsuspend, "pZ" },
	{ SYS_ioctl, "fIp" }, { SYS_fcntl, "fFd" }, { SYS_clone, "Cppxp" },
	{ SYS_wait4, "PpWp" }, { SYS_waitid, "dPpWp" }, { SYS_kill, "PS" },
	{ SYS_tkill, "PS" }, { SYS_tgkill, "PPS" }, { SYS_setpgid, "PP" },
	{ SYS_getpgid, "P" }, { SYS_getsid, "P" }, { SYS_getpriority, "dP" },
	{ SYS_setpriority, "dPd" }, { SYS_sched_setaffinity, "PLp" },
	{ SYS_sched_getaffinity, "PLp" }, { SYS_prlimit64, "Pdpp" },
	{ SYS_getdents64, "fpL" }, { SYS_getcwd, "pL" },
	{ SYS_readlink, "spL" }, { SYS_readlinkat, "fspL" },
	{ SYS_getrandom, "pLx" }, { SYS_sendfile, "ffpL" },
	{ SYS_getgroups, "Lp" }, { SYS_setgroups, "Lp" },
};

/* Calls that end the caller or wreck it: drawn 1 time in 8 only. */
static const long rare[] = {
	SYS_exit, SYS_exit_group, SYS_execve, SYS_rt_sigreturn,
	SYS_arch_prctl, SYS_munmap, SYS_mremap, SYS_brk, SYS_vfork,
};

static uint64_t state;

static uint64_t next(void)
{
	/* splitmix64 */
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
	return next() % n;
}

#define PICK(a)	((a)[below(sizeof(a) / sizeof((a)[0]))])

/* What a child knows about its world, for the generators. */
static struct {
	char *scratch;		/* SCRATCH_SIZE bytes, then a PROT_NONE page */
	uint64_t vdso;
	int fds[8];
	int nfds;
	long nofile;
	int self, master;
	char longpath[PATH_MAX + 16];
} w;

static uint64_t gen_int(void)
{
	static const uint64_t v[] = {
		0, 1, 2, 3, -1ULL, -2ULL, INT_MAX, (uint64_t)INT_MIN,
		UINT_MAX, 0x80000000ULL, 0x100000000ULL, 0x100000001ULL,
		LONG_MAX, (uint64_t)LONG_MIN, 4096, 255, 256, 65535,
	};

	switch (below(4)) {
	case 0: return below(64);
	case 1: return next() & 0xffffffff;
	case 2: return next();
	default: return PICK(v);
	}
}

static uint64_t gen_flags(void)
{
	switch (below(6)) {
	case 0: return 0;
	case 1: return -1ULL;
	case 2: return 0xffffffffULL;
	case 3: return 1ULL << below(64);
	case 4: return next() & 0xffffffff;
	default: return next();
	}
}

static uint64_t gen_len(void)
{
	static const uint64_t v[] = {
		0, 1, 7, 8, 16, 128, 4095, 4096, 4097, 8192, 65536, 65537,
		INT_MAX, 0x80000000ULL, UINT_MAX, 0x100000000ULL, -1ULL,
		-4096ULL, LONG_MAX, (uint64_t)LONG_MIN, SCRATCH_SIZE,
		SCRATCH_SIZE + 1,
	};

	return below(4) ? PICK(v) : below(0x20000);
}

static uint64_t gen_ptr(void)
{
	uint64_t s = (uint64_t)w.scratch;

	switch (below(20)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return s;			/* zeroes */
	case 3: return s + 256;			/* valid iovecs */
	case 4: return s + below(SCRATCH_SIZE);
	case 5: return s + SCRATCH_SIZE - 1 - below(16); /* into the guard */
	case 6: return s + SCRATCH_SIZE;	/* the guard page */
	case 7: return USER_TOP - 1 - below(16);
	case 8: return USER_TOP + below(2) * 0x1000;
	case 9: return 0x800000000000ULL;	/* first non-canonical */
	case 10: return 0xffff800000000000ULL;	/* kernel half */
	case 11: return 0xffffffffff600000ULL;	/* vsyscall page */
	case 12: return -1ULL - below(16);
	case 13: return STUB_BASE + below(0x22000);
	case 14: return w.vdso + below(0x2000);
	case 15: return (uint64_t)&gen_ptr;	/* our code: read-only */
	case 16: return (uint64_t)&state;	/* our data */
	case 17: return next() & 0x7fffffffffffULL;
	case 18: return (uint64_t)w.longpath;
	default: return next();
	}
}

static uint64_t gen_addr(void)
{
	uint64_t s = (uint64_t)w.scratch;

	switch (below(12)) {
	case 0: return 0;
	case 1: return s;
	case 2: return s + 0x1000 * below(SCRATCH_SIZE / 0x1000 + 1);
	case 3: return s + 1;			/* unaligned */
	case 4: return 0x10000;
	case 5: return USER_TOP - 0x1000;
	case 6: return USER_TOP;
	case 7: return STUB_BASE + 0x1000 * below(0x22);
	case 8: return w.vdso;
	case 9: return 0xffff800000000000ULL;
	case 10: return next() & 0x7ffffffff000ULL;
	default: return gen_ptr();
	}
}

static uint64_t gen_fd(void)
{
	static const uint64_t v[] = {
		-1ULL, -2ULL, -100ULL /* AT_FDCWD */, INT_MAX,
		(uint64_t)INT_MIN, UINT_MAX, 0x80000000ULL, 0x100000000ULL,
		LONG_MAX, (uint64_t)LONG_MIN, 1023, 1024, 65535, 65536,
		1 << 20, (1 << 20) - 1,
	};
	uint64_t fd = below(3) ? (uint64_t)w.fds[below(w.nfds)] : below(3);

	switch (below(8)) {
	case 0:
	case 1:
	case 2: return fd;
	case 3: return fd | 1ULL << (32 + below(32));	/* 2^k + a real fd */
	case 4: return 3 + below(1021);		/* the runtime's own fds? */
	case 5: return w.nofile - 1 - below(3) + below(2) * 3;
	default: return PICK(v);
	}
}

static uint64_t gen_sig(void)
{
	static const uint64_t v[] = {
		0, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, -1ULL,
		INT_MAX, (uint64_t)INT_MIN, 0x100000000ULL | SIGUSR1,
		0x100000000ULL | 65, 0xffffffffULL,
	};

	return below(2) ? 1 + below(64) : PICK(v);
}

static uint64_t gen_pid(void)
{
	static const uint64_t v[] = {
		0, -1ULL, 1, INT_MAX, (uint64_t)INT_MIN, 32768, 4194304,
		-1ULL << 31, 0x100000000ULL,
	};

	switch (below(5)) {
	case 0: return w.self;
	case 1: return -(uint64_t)w.self;
	case 2: return 0x100000000ULL | w.self;
	case 3: return 2 + below(300);
	default: return PICK(v);
	}
}

static uint64_t gen_clone(void)
{
	static const uint64_t sigs[] = { 0, SIGCHLD, 64, 65, 128, 255 };
	uint64_t f = 0;
	int i;

	switch (below(4)) {
	case 0: return below(2) ? -1ULL : 1ULL << below(64);
	case 1: f = 0; break;
	default:
		for (i = 8; i < 64; i++)
			if (!below(10))
				f |= 1ULL << i;
	}
	return f | (below(2) ? PICK(sigs) : below(256));
}

static uint64_t gen_wait(void)
{
	static const uint64_t v[] = {
		0, WNOHANG, WUNTRACED, WCONTINUED, WEXITED, WSTOPPED,
		__WALL, __WCLONE, __WNOTHREAD, WNOHANG | __WALL,
		WNOHANG | WEXITED, WNOHANG | __WCLONE, -1ULL,
	};

	return below(4) ? PICK(v) : gen_flags();
}

static uint64_t gen_fcntl(void)
{
	static const uint64_t v[] = {
		F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_GETLK,
		F_SETLK, F_SETLKW, F_SETOWN, F_GETOWN, F_SETSIG, F_GETSIG,
		F_DUPFD_CLOEXEC, F_SETPIPE_SZ, F_GETPIPE_SZ, F_ADD_SEALS,
		F_GET_SEALS, -1ULL, INT_MAX, 0x100000001ULL,
	};

	return below(8) ? PICK(v) : gen_int();
}

static uint64_t gen_ioctl(void)
{
	static const uint64_t v[] = {
		0x5451 /* FIOCLEX */, 0x5450 /* FIONCLEX */,
		0x541b /* FIONREAD */, 0x5421 /* FIONBIO */,
		0x5452 /* FIOASYNC */, 0x5401 /* TCGETS */,
		0x5402 /* TCSETS */, 0x5413 /* TIOCGWINSZ */,
		0x5414 /* TIOCSWINSZ */, 0x540f /* TIOCGPGRP */,
		0x5410 /* TIOCSPGRP */, 0x540e /* TIOCSCTTY */,
		0x5422 /* TIOCNOTTY */, 0x5429 /* TIOCGSID */,
		0x100005451ULL, 0, -1ULL,
	};

	return below(8) ? PICK(v) : gen_flags();
}

static uint64_t gen_str(void)
{
	static const char *const v[] = {
		"", "/", ".", "..", "////", "/proc/self/exe", "/proc/self/mem",
		"/proc/self/fd/0", "/proc/self/fd/99999", "/proc/1/status",
		"/proc/self/status", "/proc/self/maps", "/proc/self/cwd/..",
		"/proc", "/dev/null", "/dev/tty", "/nonexistent/file", "/tmp",
		"fuzz", "/proc/self/fd", "/proc/1/fd/1",
	};
	char *end = w.scratch + SCRATCH_SIZE;

	switch (below(6)) {
	case 0: return (uint64_t)w.longpath;
	case 1: /* no NUL before the guard page */
		memset(end - 64, 'a', 64);
		return (uint64_t)(end - 1 - below(64));
	case 2: return gen_ptr();
	default: return (uint64_t)PICK(v);
	}
}

static uint64_t gen(char k)
{
	switch (k) {
	case 'f': return gen_fd();
	case 's': return gen_str();
	case 'p': return gen_ptr();
	case 'A': return gen_addr();
	case 'L': return gen_len();
	case 'x': return gen_flags();
	case 'o': return below(2) ? 0644 + below(2) * 07133 : gen_flags();
	case 'S': return gen_sig();
	case 'P': return gen_pid();
	case 'C': return gen_clone();
	case 'W': return gen_wait();
	case 'F': return gen_fcntl();
	case 'I': return gen_ioctl();
	case 'Z': return below(4) ? 8 : gen_len();
	default: return gen_int();	/* 'd' and anything new */
	}
}

static long raw6(long nr, const uint64_t *a)
{
	register uint64_t r10 __asm__("r10") = a[3];
	register uint64_t r8 __asm__("r8") = a[4];
	register uint64_t r9 __asm__("r9") = a[5];
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a[0]), "S"(a[1]), "d"(a[2]),
			   "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/*
 * A fork-like call: in the new task (rax 0) exit(code) at once, before
 * touching a stack it may share with its parent.
 */
static long raw_fork(long nr, const uint64_t *a, int code)
{
	register uint64_t r10 __asm__("r10") = a[3];
	register uint64_t r8 __asm__("r8") = a[4];
	register uint64_t r9 __asm__("r9") = a[5];
	long ret;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "mov %k[code], %%edi\n\t"
			 "mov %[exit], %%eax\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "a"(nr), "D"(a[0]), "S"(a[1]), "d"(a[2]),
			   "r"(r10), "r"(r8), "r"(r9), [code] "r"(code),
			   [exit] "i"(SYS_exit)
			 : "rcx", "r11", "memory");
	return ret;
}

static int is_rare(long nr)
{
	size_t i;

	for (i = 0; i < sizeof(rare) / sizeof(rare[0]); i++)
		if (rare[i] == nr)
			return 1;
	return 0;
}

static const char *kinds_of(long nr, const char *fmt)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].nr == nr)
			return kinds[i].kinds;
	return fmt;
}

/* A syscall number: mostly the runtime's, else unknown or out of range. */
static long pick_nr(const char **fmt)
{
	static const uint64_t odd[] = {
		-1ULL, 0x40000000ULL | SYS_getpid /* x32 */, 512, 1000,
		0x100000000ULL | SYS_getpid, INT_MAX, LONG_MAX,
		SYS_socket, 434 /* pidfd_open */, 547,
	};
	const struct sc *s;

	*fmt = "xxxxxx";
	if (!below(16))
		return below(2) ? (long)PICK(odd) : (long)below(600);
	do
		s = &table[below(NTABLE)];
	while (is_rare(s->nr) && below(8));
	*fmt = kinds_of(s->nr, s->fmt);
	return s->nr;
}

/* The master may not be stopped or killed: see the header. */
static void spare_master(long nr, uint64_t *a)
{
	int sig, pid;

	switch (nr) {
	case SYS_kill:
		sig = a[1];
		pid = a[0];
		if ((sig == SIGKILL || sig == SIGSTOP) &&
		    (pid <= 0 || pid == w.master))
			a[1] = 0;
		break;
	case SYS_tkill:
		sig = a[1];
		if ((sig == SIGKILL || sig == SIGSTOP) && (int)a[0] == w.master)
			a[1] = 0;
		break;
	case SYS_tgkill:
		sig = a[2];
		if ((sig == SIGKILL || sig == SIGSTOP) &&
		    ((int)a[0] == w.master || (int)a[1] == w.master))
			a[2] = 0;
		break;
	}
}

static void on_alarm(int sig)
{
	(void)sig;
}

static uint64_t round_seed(uint64_t seed, long round)
{
	state = seed ^ (0x5851f42d4c957f2dULL * (uint64_t)(round + 1));
	next();
	return next();
}

/* Written by the child before each call, watched by the master. */
static volatile long *progress;

static void __attribute__((noreturn)) child(uint64_t seed, long round,
					    long calls, int out)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { { 0, ALARM_US }, { 0, ALARM_US } };
	struct iovec *iov;
	struct rlimit rl;
	sigset_t none;
	long i, nr;
	int p[2], j;

	/* Nothing of the fuzzing reaches the master's stdout. */
	dup2(out, 1);
	dup2(out, 2);
	close(out);
	if (pipe2(p, O_NONBLOCK) == 0)
		dup2(p[0], 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);

	w.self = getpid();
	w.master = 1;
	w.vdso = getauxval(AT_SYSINFO_EHDR);
	if (!w.vdso)
		w.vdso = 0x7ffff7fc1000ULL;
	w.nofile = getrlimit(RLIMIT_NOFILE, &rl) ? 1024 : (long)rl.rlim_cur;
	w.scratch = mmap(NULL, SCRATCH_SIZE + 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w.scratch == MAP_FAILED)
		_exit(3);
	mprotect(w.scratch + SCRATCH_SIZE, 4096, PROT_NONE);
	iov = (struct iovec *)(w.scratch + 256);
	for (j = 0; j < 8; j++) {
		iov[j].iov_base = w.scratch + 1024 + j * 64;
		iov[j].iov_len = 64;
	}
	memset(w.longpath, 'a', sizeof(w.longpath) - 1);
	for (j = 0; j < (int)sizeof(w.longpath) - 1; j += 200)
		w.longpath[j] = '/';
	w.fds[w.nfds++] = 0;
	w.fds[w.nfds++] = 1;
	w.fds[w.nfds++] = p[0];
	w.fds[w.nfds++] = p[1];
	w.fds[w.nfds++] = open("/", O_RDONLY | O_DIRECTORY);
	w.fds[w.nfds++] = open("/proc/self/status", O_RDONLY);
	w.fds[w.nfds++] = open("/proc/self/exe", O_RDONLY);
	w.fds[w.nfds++] = dup(1);

	round_seed(seed, round);
	for (j = 2048; j < SCRATCH_SIZE; j += 8)
		*(uint64_t *)(w.scratch + j) = gen_ptr();

	for (i = 0; i < calls; i++) {
		const char *fmt;
		uint64_t a[6];

		*progress = i;
		/* The calls may have stopped the timer or taken SIGALRM. */
		if (i % REARM_CALLS == REARM_CALLS - 1) {
			sigaction(SIGALRM, &sa, NULL);
			sigprocmask(SIG_SETMASK, &none, NULL);
			setitimer(ITIMER_REAL, &it, NULL);
		}
		nr = pick_nr(&fmt);
		for (j = 0; j < 6; j++)
			a[j] = *fmt ? gen(*fmt++) : gen_int();
		spare_master(nr, a);
		if (nr == SYS_clone || nr == SYS_clone3 || nr == SYS_fork ||
		    nr == SYS_vfork)
			raw_fork(nr, a, below(256));
		else
			raw6(nr, a);
	}
	_exit(0);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

static void drain(int fd)
{
	char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/* Kill every other process and reap them all; 0, or -1 on a hang. */
static int sweep(int out, long *reaped)
{
	long deadline = now_ms() + REAP_SECS * 1000;
	int st;
	pid_t r;

	kill(-1, SIGKILL);
	for (;;) {
		r = waitpid(-1, &st, WNOHANG | __WALL);
		if (r > 0) {
			(*reaped)++;
			continue;
		}
		if (r < 0 && errno == ECHILD)
			return 0;
		if (r < 0 && errno != EINTR) {
			printf("not ok: waitpid: %s\n", strerror(errno));
			return -1;
		}
		if (now_ms() > deadline)
			return -1;
		kill(-1, SIGKILL);
		drain(out);
		nap();
	}
}

static int parse(const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 0);
	return errno || !*s || *end || *v < 0;
}

int main(int argc, char **argv)
{
	long long seed = 1, count = 0, secs = 0, only = -1, v;
	long round, done = 0, reaped = 0, killed = 0, t0, tend;
	int verbose = 0, i, p[2], st;
	uint64_t all = -1ULL;
	pid_t pid, r;

	if (argc == 3 && argv[1][0] != '-') {
		if (parse(argv[1], &seed) || parse(argv[2], &count))
			return 2;
	} else {
		if (argc < 2)
			return 2;
		for (i = 1; i < argc; i++) {
			if (!strcmp(argv[i], "-v")) {
				verbose = 1;
				continue;
			}
			if (i + 1 >= argc || parse(argv[i + 1], &v))
				return 2;
			if (!strcmp(argv[i], "-s"))
				seed = v;
			else if (!strcmp(argv[i], "-n"))
				count = v;
			else if (!strcmp(argv[i], "-t"))
				secs = v;
			else if (!strcmp(argv[i], "-r"))
				only = v;
			else
				return 2;
			i++;
		}
	}
	if (!count && !secs && only < 0)
		count = 20000;
	if (getpid() != 1) {
		printf("not ok: fuzz must be the runtime's first guest (pid 1)\n");
		return 1;
	}
	/* Raw: glibc's sigprocmask() leaves its own signals 32 and 33 out. */
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, 8);
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC)) {
		printf("not ok: pipe2: %s\n", strerror(errno));
		return 1;
	}
	progress = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (progress == MAP_FAILED) {
		printf("not ok: mmap: %s\n", strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (verbose)
		printf("fuzz: seed %lld, %lld calls, %lld s\n", seed, count, secs);
	t0 = now_ms();
	tend = t0 + secs * 1000;
	for (round = only < 0 ? 0 : only; ; round++) {
		long n = ROUND_CALLS, deadline, last = -1, moved = 0;

		if (only >= 0 ? round > only :
		    (count && done >= count) || (secs && now_ms() >= tend))
			break;
		if (count && count - done < n)
			n = count - done;
		if (verbose)
			printf("fuzz: seed %lld round %ld\n", seed, round);
		pid = fork();
		if (pid < 0) {
			printf("not ok: fork: %s (seed %lld round %ld)\n",
			       strerror(errno), seed, round);
			return 1;
		}
		if (pid == 0)
			child(seed, round, n, p[1]);
		*progress = -1;
		deadline = now_ms() + ROUND_MS;
		for (;;) {
			r = waitpid(-1, &st, WNOHANG | __WALL);
			if (r == pid)
				break;
			if (r > 0) {
				reaped++;
				continue;
			}
			if (r < 0 && errno != EINTR) {
				printf("not ok: waitpid: %s (seed %lld round %ld)\n",
				       strerror(errno), seed, round);
				return 1;
			}
			if (*progress != last) {
				last = *progress;
				moved = now_ms();
			}
			if (now_ms() > deadline ||
			    (moved && now_ms() > moved + STALL_MS)) {
				killed++;
				if (verbose)
					printf("fuzz: seed %lld round %ld: stuck in call %ld, killed\n",
					       seed, round, last);
				break;
			}
			drain(p[0]);
			nap();
		}
		if (r == pid && verbose && WIFSIGNALED(st) &&
		    WTERMSIG(st) != SIGKILL)
			printf("fuzz: seed %lld round %ld: child died of signal %d\n",
			       seed, round, WTERMSIG(st));
		if (sweep(p[0], &reaped)) {
			printf("not ok: seed %lld round %ld: processes left unreaped %d s after SIGKILL: the runtime hangs\n",
			       seed, round, REAP_SECS);
			return 1;
		}
		drain(p[0]);
		done += n;
	}
	if (verbose)
		printf("fuzz: seed %lld: %ld rounds, %ld calls, %ld killed at the deadline, %ld other processes reaped, %ld ms\n",
		       seed, round - (only < 0 ? 0L : (long)only), done, killed, reaped,
		       now_ms() - t0);
	puts("fuzz done");
	return 0;
}
