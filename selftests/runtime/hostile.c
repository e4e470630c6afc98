// SPDX-License-Identifier: GPL-2.0-only
/*
 * Arguments a hostile guest passes, against the kernel's rules.  Each of
 * these once corrupted or crashed umlrun:
 *  - clone() takes any exit signal in CSIGNAL (0..255); at the child's
 *    exit the kernel sends it only if it is a signal, and such a "clone
 *    child" is waited for only with __WCLONE or __WALL.  umlrun indexed its
 *    64-entry signal tables with 65..255.
 *  - fd arguments are unsigned ints: the kernel ignores their upper 32
 *    bits.  umlrun indexed its fd table with the whole 64-bit register.
 *  - mprotect() of a range past the top of the guest's part of the address
 *    space, or with a length that wraps, or unknown protection bits.
 *  - /proc/self spelt otherwise ("/proc//self", "/./proc/self/", relative
 *    from /proc...) named umlrun's own /proc entry: readlink showed the
 *    runtime's fds and open reopened them (its sealed stub memfd).
 *  - an AF_UNIX name longer than a sockaddr_un (up to a sockaddr_storage)
 *    to bind, connect or sendto: umlrun copied it into a path buffer of
 *    sun_path's size, past its end.
 *  - mincore() of a huge mapping: umlrun allocated and filled one byte a
 *    page for the whole range (gigabytes for a large PROT_NONE reserve).
 * "hostile [signals|fds|mprotect|proc|unixname|mincore]" runs one part, no argument all of
 * them; "hostile symlink" (not in "all": it needs a writable cwd) plants
 * symlinks to /proc/self/fd/N for fds it does not have, and opens them;
 * "hostile ia32" (not in "all": umlrun's rule, not the kernel's) checks
 * that a 32-bit int $0x80 syscall is never run or handled: ENOSYS, as on
 * a kernel without IA32_EMULATION.
 * Prints "hostile ok", or exits with the number of the check that failed.
 * Runs natively too: the expectations are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define HI(fd)	(0x100000000ULL | (unsigned int)(fd))

static int fails(long r, int err)
{
	return r != -1 || errno != err;
}

/* A fork with exit signal @sig; 0 if the child was collected rightly. */
static int clone_exit_signal(int sig)
{
	int st = 0;
	long pid;

	pid = syscall(SYS_clone, (unsigned long)sig, 0, 0, 0, 0);
	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(7);
	/* Not a SIGCHLD child: plain waits do not see it. */
	if (fails(syscall(SYS_wait4, -1, &st, 0, 0), ECHILD))
		return 2;
	if (syscall(SYS_wait4, pid, &st, __WALL, 0) != pid)
		return 3;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 7)
		return 4;
	return 0;
}

static int check_signals(void)
{
	static const int sigs[] = { 65, 128, 255, 0 };
	siginfo_t si;
	unsigned int i;
	int st;
	pid_t pid;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (clone_exit_signal(sigs[i]))
			return 10 + i;
	/* __WCLONE sees only clone children: none is left. */
	if (fails(syscall(SYS_wait4, -1, &st, __WCLONE | WNOHANG, 0), ECHILD))
		return 15;
	if (fails(syscall(SYS_wait4, -1, &st, 0x100, 0), EINVAL))
		return 16;
	if (fails(syscall(SYS_waitid, P_ALL, 0, &si, WEXITED | 0x100, 0), EINVAL))
		return 17;
	if (fails(syscall(SYS_waitid, P_PID, 0, &si, WEXITED, 0), EINVAL))
		return 18;
	if (fails(kill(getpid(), 65), EINVAL) || fails(kill(getpid(), -1), EINVAL))
		return 19;
	if (fails(syscall(SYS_tgkill, getpid(), gettid(), 65), EINVAL))
		return 20;
	/* A SIGCHLD child is still collected as before. */
	pid = fork();
	if (pid == 0)
		_exit(3);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 3)
		return 21;
	return 0;
}

static int check_fds(void)
{
	char c = 0;
	int p[2];

	if (pipe(p))
		return 30;
	/* The upper 32 bits are ignored: these name p[0] and p[1]. */
	if (syscall(SYS_fcntl, HI(p[0]), F_GETFD) != 0)
		return 31;
	if (syscall(SYS_fcntl, HI(p[0]), F_SETFD, FD_CLOEXEC) != 0 ||
	    fcntl(p[0], F_GETFD) != FD_CLOEXEC)
		return 32;
	if (syscall(SYS_ioctl, HI(p[1]), FIOCLEX) != 0 ||
	    fcntl(p[1], F_GETFD) != FD_CLOEXEC)
		return 33;
	if (syscall(SYS_ioctl, HI(p[1]), FIONCLEX) != 0 ||
	    fcntl(p[1], F_GETFD) != 0)
		return 34;
	if (syscall(SYS_write, HI(p[1]), "x", 1) != 1 ||
	    syscall(SYS_read, HI(p[0]), &c, 1) != 1 || c != 'x')
		return 35;
	/* Numbers past any table, as int and as unsigned int. */
	if (fails(syscall(SYS_fcntl, -1L, F_GETFD), EBADF) ||
	    fails(syscall(SYS_fcntl, 0xffffffffUL, F_SETFD, 0), EBADF) ||
	    fails(syscall(SYS_fcntl, 0x7fffffffUL, F_GETFD), EBADF) ||
	    fails(syscall(SYS_fcntl, HI(0x7fffffff), F_SETFD, 0), EBADF))
		return 36;
	if (fails(syscall(SYS_ioctl, 0x80000000UL, FIOCLEX), EBADF) ||
	    fails(syscall(SYS_ioctl, HI(100000), FIONCLEX), EBADF))
		return 37;
	if (fails(syscall(SYS_close, HI(0x40000000)), EBADF))
		return 38;
	/* dup2 to the same fd spelled with upper bits is the same fd. */
	if (syscall(SYS_dup2, p[0], HI(p[0])) != p[0])
		return 39;
	if (syscall(SYS_close, HI(p[0])) != 0 || fcntl(p[0], F_GETFD) != -1)
		return 40;
	close(p[1]);
	return 0;
}

static int check_mprotect(void)
{
	/*
	 * libuml's pages sit at 0x7f0000000000 in every guest (STUB_BASE):
	 * a native process has nothing there (its mmap area is randomised
	 * higher up, and this static program maps next to nothing).
	 */
	void *top = (void *)0x7f0000000000UL;
	char *m;

	if (fails(mprotect(top, 4096, PROT_READ | PROT_WRITE | PROT_EXEC), ENOMEM))
		return 50;
	if (fails(mprotect((char *)top - 4096, 8192, PROT_READ), ENOMEM))
		return 51;
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 52;
	if (fails(mprotect(m, (size_t)-1, PROT_READ), ENOMEM))
		return 53;
	if (fails(mprotect(m, 4096, 0x10), EINVAL))
		return 54;
	if (fails(mprotect(m, 4096, PROT_READ | PROT_GROWSDOWN | PROT_GROWSUP), EINVAL))
		return 55;
	if (fails(mprotect(m + 1, 4096, PROT_READ), EINVAL))
		return 56;
	if (mprotect(m, 0, PROT_READ) != 0 || mprotect(m, 4096, PROT_NONE) != 0)
		return 57;
	munmap(m, 4096);
	return 0;
}

static const char *const self_spellings[] = {
	"/proc/self", "/proc//self", "//proc/self", "/proc/./self",
	"/./proc/self/", "/proc/../proc/self", "/proc/self/fd/../../self",
};

/* Every spelling of /proc/self/fd/@fd links where the plain one does. */
static int same_link(int fd)
{
	char want[256], got[256], path[128];
	unsigned int i;
	ssize_t n, m;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, want, sizeof(want));
	if (n <= 0)
		return 1;
	for (i = 0; i < sizeof(self_spellings) / sizeof(self_spellings[0]); i++) {
		snprintf(path, sizeof(path), "%s/fd/%d", self_spellings[i], fd);
		m = readlink(path, got, sizeof(got));
		if (m != n || memcmp(got, want, n))
			return 1;
	}
	return 0;
}

/* No spelling of /proc/self/fd/@fd exists for an fd that is not open. */
static int no_link(int procfd, int fd)
{
	char path[128], buf[64];
	unsigned int i;

	for (i = 0; i < sizeof(self_spellings) / sizeof(self_spellings[0]); i++) {
		snprintf(path, sizeof(path), "%s/fd/%d", self_spellings[i], fd);
		if (fails(readlink(path, buf, sizeof(buf)), ENOENT) ||
		    fails(open(path, O_RDONLY), ENOENT))
			return 1;
	}
	snprintf(path, sizeof(path), "self/fd/%d", fd);
	if (fails(readlinkat(procfd, path, buf, sizeof(buf)), ENOENT) ||
	    fails(openat(procfd, path, O_RDONLY), ENOENT) ||
	    fails(readlink(path, buf, sizeof(buf)), ENOENT))	/* cwd: /proc */
		return 1;
	return 0;
}

static int check_proc(void)
{
	char want[256], got[256];
	int p[2], procfd, cwd, fd, r = 0;
	ssize_t n;

	if (pipe(p))
		return 70;
	procfd = open("/proc", O_RDONLY | O_DIRECTORY);
	cwd = open(".", O_RDONLY | O_DIRECTORY);
	if (procfd < 0 || cwd < 0 || chdir("/proc"))
		return 71;
	for (fd = 0; fd <= p[1]; fd++)
		if (fcntl(fd, F_GETFD) >= 0 && same_link(fd))
			r = 72;
	/*
	 * The runtime's own fds are its lowest free numbers: every number up
	 * to 127, then a few up to the table's end (all 1021 with eight
	 * spellings each took over a minute on the debug kernel).
	 */
	for (fd = 3; !r && fd < 1024; fd = fd < 127 ? fd + 1 : fd * 2 + 1)
		if (fcntl(fd, F_GETFD) < 0 && no_link(procfd, fd))
			r = 73;
	n = readlink("/proc/self/exe", want, sizeof(want));
	if (!r && (n <= 0 || readlink("/proc//self/exe", got, sizeof(got)) != n ||
		   memcmp(got, want, n) || readlink("self/exe", got, sizeof(got)) != n ||
		   memcmp(got, want, n)))
		r = 74;
	if (fchdir(cwd))
		return 75;
	close(cwd);
	close(procfd);
	close(p[0]);
	close(p[1]);
	return r;
}

static int check_symlink(void)
{
	char target[64];
	int fd, r = 0;

	for (fd = 3; !r && fd < 64; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		snprintf(target, sizeof(target), "/proc/self/fd/%d", fd);
		unlink("hostile-link");
		if (symlink(target, "hostile-link"))
			return 80;
		if (open("hostile-link", O_RDONLY) >= 0)
			r = 81;
	}
	unlink("hostile-link");
	return r;
}

static int check_ia32(void)
{
	long r;

	/* ia32 number 20 is getpid: the 64-bit table's 20 is writev. */
	asm volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	if (r != -ENOSYS)
		return 90;
	/* ia32 exit(5): the process must go on. */
	asm volatile("int $0x80" : "=a"(r) : "a"(1L), "b"(5L) : "memory");
	return r == -ENOSYS ? 0 : 91;
}

/*
 * AF_UNIX names of 111 and 128 bytes, no NUL: unix_validate_addr() says
 * EINVAL to each call.  An inet socket given an AF_UNIX name: EAFNOSUPPORT
 * (__inet_bind()), it is not a path.
 */
static int check_unixname(void)
{
	struct sockaddr_storage ss;
	struct msghdr m = { .msg_name = &ss };
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0), in, len;

	memset(&ss, 'a', sizeof(ss));
	ss.ss_family = AF_UNIX;
	if (fd < 0)
		return 90;
	for (len = 111; len <= (int)sizeof(ss); len += 17) {
		m.msg_namelen = len;
		if (fails(bind(fd, (struct sockaddr *)&ss, len), EINVAL))
			return 91;
		if (fails(connect(fd, (struct sockaddr *)&ss, len), EINVAL))
			return 92;
		if (fails(sendto(fd, "x", 1, 0, (struct sockaddr *)&ss, len),
			  EINVAL))
			return 93;
		if (fails(sendmsg(fd, &m, 0), EINVAL))
			return 94;
	}
	close(fd);
	in = socket(AF_INET, SOCK_DGRAM, 0);
	if (in >= 0 && fails(bind(in, (struct sockaddr *)&ss,
				  sizeof(struct sockaddr_in)), EAFNOSUPPORT))
		return 95;
	if (in >= 0)
		close(in);
	return 0;
}

/* 64 GiB of PROT_NONE reserve: mincore walks it in rounds (all absent). */
static int check_mincore(void)
{
	size_t len = 64ULL << 30, i;
	unsigned char *vec;
	char *p;

	p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED)
		return 0;	/* no room for the test itself */
	vec = mmap(NULL, len >> 12, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vec == MAP_FAILED) {
		munmap(p, len);
		return 0;
	}
	if (mincore(p, len, vec))
		return 100;
	for (i = 0; i < len >> 12; i += 4096 * 64)
		if (vec[i] & 1)
			return 101;
	munmap(vec, len >> 12);
	munmap(p, len);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} parts[] = {
		{ "signals", check_signals },
		{ "fds", check_fds },
		{ "mprotect", check_mprotect },
		{ "proc", check_proc },
		{ "unixname", check_unixname },
		{ "mincore", check_mincore },
		{ "symlink", check_symlink },
		{ "ia32", check_ia32 },
	};
	unsigned int i;
	int r;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (argc > 1 ? strcmp(argv[1], parts[i].name) != 0
			     : parts[i].fn == check_symlink ||
			       parts[i].fn == check_ia32)
			continue;
		r = parts[i].fn();
		if (r)
			return r;
	}
	puts("hostile ok");
	return 0;
}
