// SPDX-License-Identifier: GPL-2.0-only
/*
 * Calls that LTP's syscalls suite found wrong in umlrun, one case per
 * argument: each prints what the call returned (and errno), and
 * busybox.sh compares the output with the native one.
 *
 *   ltpcalls pipesz    fcntl F_GETPIPE_SZ / F_SETPIPE_SZ
 *   ltpcalls locks     fcntl record locks (POSIX and OFD) and flock between
 *                      processes: conflicts, F_GETLK's answer, F_SETLKW
 *                      waiting, merging, release on close, bad arguments
 *   ltpcalls preadv    preadv, pwritev, preadv2, pwritev2
 *   ltpcalls args      argument checks of older calls: getrandom, readlinkat,
 *                      sigaltstack, msync, futex, setrlimit, getpriority,
 *                      setpgid, tgkill, sched_getaffinity
 *   ltpcalls sigwait   sigwaitinfo for a signal that is not blocked and has
 *                      a handler: the wait takes it, the handler does not run
 *   ltpcalls zombie    kill() of a zombie succeeds until it is reaped
 *   ltpcalls fadvise   posix_fadvise's checks
 *   ltpcalls execpgid  setpgid on a child: allowed until the child execs
 *   ltpcalls sockets   socket's family, type and protocol checks in the
 *                      kernel's order (not those that make a raw socket as
 *                      root natively); recv of urgent data and of the
 *                      error queue answer at once on a readable socket
 *   ltpcalls opath     an O_PATH fd (and its dup) is EBADF to ioctl
 *   ltpcalls emptyargv execve with an empty argv: the program gets "" as
 *                      its argv[0] (argc 1), as the kernel gives it
 *   ltpcalls bigio     read, write, pread and pwrite of 3 to 5 MB on a
 *                      regular file move it all (LTP's mmap21_02: a 4 MB
 *                      pread came back with 1 MB), up to the end of file
 *   ltpcalls tidkill   kill and rt_sigqueueinfo to a thread's tid reach
 *                      its process
 *   ltpcalls ignchld   with SIGCHLD ignored, a wait that blocks before its
 *                      last child ends returns ECHILD when it goes
 *   ltpcalls recvargs  recvfrom's address length checks as the kernel's
 *                      (an invalid one consumes the datagram); recvmsg's
 *                      and sendmsg's name length (before the datagram),
 *                      MSG_CMSG_COMPAT, a large control buffer;
 *                      recvmmsg's timeout: checked first, checked after
 *                      each datagram, the time left written back
 *   ltpcalls sockopt   getsockopt and setsockopt at levels no family has,
 *                      per family: each family's own errno
 *   ltpcalls mmapargs  mmap's checks in the kernel's order: the offset,
 *                      the fd, the length, the address, the type
 *   ltpcalls securebits  PR_SET_SECUREBITS and PR_GET_SECUREBITS: EPERM
 *                      without CAP_SETPCAP (and for unknown bits, locked
 *                      ones), keepcaps as its bit, which execve clears
 *   ltpcalls unixsend  sendto and sendmsg of AF_UNIX datagrams to path
 *                      names, resolved as bind's and connect's (needs a
 *                      writable cwd: --rw)
 *   ltpcalls rasync    readahead and sync_file_range: regular files, and
 *                      the kernel's errors for the others and bad input
 *   ltpcalls pidfd     pidfd_open, pidfd_send_signal and waitid(P_PIDFD):
 *                      the kernel's checks, readiness by poll, select and
 *                      epoll of a running, a zombie and a reaped child
 *                      (and, from 6.12, of a PIDFD_THREAD thread)
 *   ltpcalls reids     setreuid, setregid, setfsuid and setfsgid with the
 *                      ids the caller has (and, not as root, others): the
 *                      kernel's answers, the upper 32 bits ignored
 *   ltpcalls utimes    utimensat (a path, an fd: futimens), futimesat,
 *                      utimes and utime: the times set, the kernel's
 *                      checks in its order (needs a writable cwd: --rw)
 *   ltpcalls fsinfo    sysfs(2)'s three options and ustat: the host's
 *                      answers, the kernel's errors
 *   ltpcalls clonepidfd  clone's and clone3's CLONE_PIDFD: the pidfd, not
 *                      in the child's table; the kernel's errors, after
 *                      which no child and no fd is left
 *   ltpcalls xferloop SECS  sendfile, copy_file_range and splice of 4 MB
 *                      between files, round after round: each moves it all
 *                      (busybox.sh runs it under "fifo flood": the runtime's
 *                      own SIGALRM must never reach the guest as EINTR)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/utsname.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "show.h"

static int pipesz(void)
{
	int p[2], fd = open(".", O_RDONLY | O_DIRECTORY);

	if (pipe(p))
		return 1;
	show("get", fcntl(p[0], F_GETPIPE_SZ));
	show("set 4096 (write end)", fcntl(p[1], F_SETPIPE_SZ, 4096));
	show("get (read end)", fcntl(p[0], F_GETPIPE_SZ));
	show("set 5000 rounds up", fcntl(p[0], F_SETPIPE_SZ, 5000));
	show("set 0 is one page", fcntl(p[0], F_SETPIPE_SZ, 0));
	show("write 3 bytes", write(p[1], "abc", 3));
	show("set 1 MiB keeps the data", fcntl(p[0], F_SETPIPE_SZ, 1 << 20));
	show("read", read(p[0], (char[8]){ 0 }, 8));
	show("get on a directory", fcntl(fd, F_GETPIPE_SZ));
	show("set on a directory", fcntl(fd, F_SETPIPE_SZ, 4096));
	show("get on a bad fd", fcntl(999, F_GETPIPE_SZ));
	return 0;
}

static const char *lockfile = "ltpcalls.locks";

static long setlk(int fd, int cmd, short type, short whence, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = whence, .l_start = start,
			    .l_len = len };

	return fcntl(fd, cmd, &fl);
}

/* F_GETLK for [start, start + len): what conflicts, as "type start len pid". */
static void getlk(const char *what, int fd, int cmd, short type, off_t start,
		  off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start,
			    .l_len = len };
	char buf[128];

	if (fcntl(fd, cmd, &fl) < 0) {
		show(what, -1);
		return;
	}
	if (fl.l_type == F_UNLCK) {
		printf("%s: unlocked\n", what);
		return;
	}
	snprintf(buf, sizeof(buf), "%s", fl.l_pid == getppid() ? "parent" :
		 fl.l_pid == -1 ? "-1" : fl.l_pid == getpid() ? "self" : "other");
	printf("%s: %s %lld %lld %s\n", what, fl.l_type == F_RDLCK ? "rd" : "wr",
	       (long long)fl.l_start, (long long)fl.l_len, buf);
}

/* Run @fn in a child (which opens the file itself) and wait for it. */
static void in_child(void (*fn)(int fd))
{
	pid_t pid = fork();

	if (pid == 0) {
		fn(open(lockfile, O_RDWR));
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

static void child_sees_write_lock(int fd)
{
	getlk("child: F_GETLK 0+100", fd, F_GETLK, F_RDLCK, 0, 100);
	getlk("child: F_GETLK 20+5, past it", fd, F_GETLK, F_WRLCK, 20, 5);
	show("child: F_SETLK rd 15+5", setlk(fd, F_SETLK, F_RDLCK, SEEK_SET, 15, 5));
	show("child: F_SETLK rd 0+5", setlk(fd, F_SETLK, F_RDLCK, SEEK_SET, 0, 5));
	getlk("child: F_OFD_GETLK 0+100", fd, F_OFD_GETLK, F_WRLCK, 0, 100);
}

static void child_sees_merged(int fd)
{
	getlk("child: F_GETLK 25+100 (two adjacent locks)", fd, F_GETLK,
	      F_RDLCK, 25, 100);
}

static void child_sees_nothing(int fd)
{
	getlk("child: F_GETLK whole file", fd, F_GETLK, F_WRLCK, 0, 0);
}

static void child_waits(int fd)
{
	show("child: F_SETLKW wr 10+10", setlk(fd, F_SETLKW, F_WRLCK, SEEK_SET, 10, 10));
	printf("child: got the lock\n");
}

static void child_flocks(int fd)
{
	show("child: flock ex|nb, own open", flock(fd, LOCK_EX | LOCK_NB));
	show("child: flock sh|nb, own open", flock(fd, LOCK_SH | LOCK_NB));
	show("child: F_SETLK wr whole file (flock does not count)",
	     setlk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 0));
}

static int locks(void)
{
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	int fd, fd2, rd, wr;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	fd = open(lockfile, O_RDWR | O_CREAT | O_TRUNC, 0600);
	rd = open(lockfile, O_RDONLY);
	wr = open(lockfile, O_WRONLY);
	if (fd < 0 || rd < 0 || wr < 0 || write(fd, "0123456789", 10) != 10)
		return 1;

	show("F_SETLK wr 10+10", setlk(fd, F_SETLK, F_WRLCK, SEEK_SET, 10, 10));
	in_child(child_sees_write_lock);
	getlk("F_GETLK 0+10 (own lock does not count)", fd, F_GETLK, F_WRLCK, 0, 20);

	/* A waiter gets the lock when the holder lets go. */
	pid = fork();
	if (pid == 0) {
		child_waits(open(lockfile, O_RDWR));
		_exit(0);
	}
	nanosleep(&nap, NULL);
	printf("parent: unlocks 10+10\n");
	if (setlk(fd, F_SETLK, F_UNLCK, SEEK_SET, 10, 10))
		printf("parent: unlock failed\n");
	waitpid(pid, NULL, 0);

	show("F_SETLK wr 30+10", setlk(fd, F_SETLK, F_WRLCK, SEEK_SET, 30, 10));
	show("F_SETLK wr 40+10", setlk(fd, F_SETLK, F_WRLCK, SEEK_SET, 40, 10));
	in_child(child_sees_merged);
	show("F_SETLK rd 35+5 splits it", setlk(fd, F_SETLK, F_RDLCK, SEEK_SET, 35, 5));
	in_child(child_sees_merged);
	/* Closing any fd of the file drops the process's locks on it. */
	fd2 = open(lockfile, O_RDONLY);
	close(fd2);
	in_child(child_sees_nothing);

	/*
	 * Two waiters for each other: the one that closes the circle gets
	 * EDEADLK (whichever it is), drops its lock, and the other goes on.
	 */
	{
		int sync[2], st, dead = 0;
		char c;

		show("F_SETLK wr 0+1", setlk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 1));
		if (pipe(sync))
			return 1;
		pid = fork();
		if (pid == 0) {
			int cfd = open(lockfile, O_RDWR);

			if (setlk(cfd, F_SETLK, F_WRLCK, SEEK_SET, 1, 1) ||
			    write(sync[1], "x", 1) != 1)
				_exit(3);
			if (setlk(cfd, F_SETLKW, F_WRLCK, SEEK_SET, 0, 1) == 0)
				_exit(0);
			_exit(errno == EDEADLK ? 1 : 2);	/* and unlocks */
		}
		if (read(sync[0], &c, 1) != 1)
			return 1;
		if (setlk(fd, F_SETLKW, F_WRLCK, SEEK_SET, 1, 1) < 0)
			dead += errno == EDEADLK ? 1 : 10;
		setlk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 2);
		waitpid(pid, &st, 0);
		dead += WEXITSTATUS(st) == 1 ? 1 : WEXITSTATUS(st) ? 10 : 0;
		printf("F_SETLKW waiting for each other: %d EDEADLK\n", dead);
	}

	show("F_SETLK rd on a write-only fd", setlk(wr, F_SETLK, F_RDLCK, SEEK_SET, 0, 1));
	show("F_SETLK wr on a read-only fd", setlk(rd, F_SETLK, F_WRLCK, SEEK_SET, 0, 1));
	show("F_SETLK type 5", setlk(fd, F_SETLK, 5, SEEK_SET, 0, 1));
	show("F_SETLK whence 7", setlk(fd, F_SETLK, F_RDLCK, 7, 0, 1));
	show("F_SETLK start -1", setlk(fd, F_SETLK, F_RDLCK, SEEK_SET, -1, 1));
	show("F_SETLK 5-10 (before 5)", setlk(fd, F_SETLK, F_RDLCK, SEEK_SET, 5, -10));
	show("F_SETLK 5-3 (2..4)", setlk(fd, F_SETLK, F_RDLCK, SEEK_SET, 5, -3));
	show("F_SETLK SEEK_END-4+2", setlk(fd, F_SETLK, F_WRLCK, SEEK_END, -4, 2));
	in_child(child_sees_nothing);
	show("F_SETLK unlock all", setlk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	getlk("F_GETLK with F_UNLCK", fd, F_GETLK, F_UNLCK, 0, 1);
	show("F_SETLK on a bad fd", setlk(999, F_SETLK, F_RDLCK, SEEK_SET, 0, 1));
	show("F_SETLK on a bad address", fcntl(fd, F_SETLK, (void *)8));
	{
		struct flock fl = { .l_type = F_RDLCK, .l_pid = 1 };

		show("F_OFD_SETLK with l_pid 1", fcntl(fd, F_OFD_SETLK, &fl));
	}
	show("F_OFD_SETLK wr 0+1", setlk(fd, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 1));
	in_child(child_sees_nothing);
	show("F_OFD_SETLK unlock", setlk(fd, F_OFD_SETLK, F_UNLCK, SEEK_SET, 0, 1));

	show("flock ex", flock(fd, LOCK_EX));
	in_child(child_flocks);
	pid = fork();
	if (pid == 0) {	/* the inherited fd is the same open file */
		show("child: flock ex|nb, inherited fd", flock(fd, LOCK_EX | LOCK_NB));
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	show("flock un", flock(fd, LOCK_UN));
	show("flock sh|ex", flock(fd, LOCK_SH | LOCK_EX));
	show("flock 0", flock(fd, 0));
	show("flock on a bad fd", flock(999, LOCK_SH));
	unlink(lockfile);
	return 0;
}

static int preadv_case(void)
{
	char a[4] = "", b[8] = "", big[3];
	struct iovec rd[2] = { { a, 3 }, { b, 5 } }, wr[2] = { { "AB", 2 }, { "cde", 3 } };
	struct iovec bad[1] = { { (void *)8, 4 } }, neg[1] = { { a, (size_t)-1 } };
	int fd = open("ltpcalls.preadv", O_RDWR | O_CREAT | O_TRUNC, 0600), p[2];
	int ro = open("ltpcalls.preadv", O_RDONLY), dir = open(".", O_RDONLY);

	if (fd < 0 || ro < 0 || pipe(p) || write(fd, "0123456789", 10) != 10)
		return 1;
	show("preadv at 1", preadv(fd, rd, 2, 1));
	printf("  read \"%s\" \"%s\"\n", a, b);
	show("pwritev at 4", pwritev(fd, wr, 2, 4));
	show("pread back", pread(fd, big, 3, 5));
	printf("  \"%.3s\"\n", big);
	show("file offset untouched", lseek(fd, 0, SEEK_CUR));
	show("lseek to 2", lseek(fd, 2, SEEK_SET));
	show("preadv2 at -1 (file offset)", preadv2(fd, rd, 1, -1, 0));
	show("file offset moved", lseek(fd, 0, SEEK_CUR));
	show("pwritev2 RWF_DSYNC at 0", pwritev2(fd, wr, 1, 0, RWF_DSYNC));
	show("preadv2 bad flag", preadv2(fd, rd, 1, 0, 0x40000000));
	show("preadv offset -1", preadv(fd, rd, 1, -1));
	show("preadv2 offset -2", preadv2(fd, rd, 1, -2, 0));
	/* (raw calls: the compiler would see these arrays are wrong) */
	show("preadv count 1025", syscall(SYS_preadv, fd, rd, 1025, 0, 0));
	show("preadv negative length", preadv(fd, neg, 1, 0));
	show("preadv bad buffer", preadv(fd, bad, 1, 0));
	show("preadv bad iovec", syscall(SYS_preadv, fd, 8, 1, 0, 0));
	show("preadv count 0", preadv(fd, rd, 0, 0));
	show("pwritev on a read-only fd", pwritev(ro, wr, 1, 0));
	show("preadv on a pipe", preadv(p[0], rd, 1, 0));
	show("preadv on a directory", preadv(dir, rd, 1, 0));
	show("preadv on a bad fd", preadv(999, rd, 1, 0));
	show("preadv at the end", preadv(fd, rd, 2, 100));
	unlink("ltpcalls.preadv");
	return 0;
}

/* A pid that was a child of ours and is no more. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static int args_case(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char buf[16], *m, *none, *gone;
	stack_t ss = { .ss_sp = buf, .ss_size = 1 };
	cpu_set_t set;
	pid_t dead = dead_pid();

	show("getrandom flags 0x100", getrandom(buf, 4, 0x100));
	show("getrandom GRND_INSECURE|GRND_RANDOM",
	     getrandom(buf, 4, GRND_INSECURE | GRND_RANDOM));
	show("getrandom GRND_NONBLOCK", getrandom(buf, 4, GRND_NONBLOCK));

	if (symlink("target", "ltpcalls.lnk") && errno != EEXIST)
		return 1;
	show("readlinkat size 0", syscall(SYS_readlinkat, AT_FDCWD, "ltpcalls.lnk", buf, 0));
	show("readlink size -1", syscall(SYS_readlink, "ltpcalls.lnk", buf, -1L));
	show("readlinkat size 3", readlinkat(AT_FDCWD, "ltpcalls.lnk", buf, 3));
	unlink("ltpcalls.lnk");

	ss.ss_flags = 7;
	show("sigaltstack flags 7", sigaltstack(&ss, NULL));
	ss.ss_flags = 0;
	show("sigaltstack size 1", sigaltstack(&ss, NULL));

	m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	none = m + pg;
	gone = m + 2 * pg;
	mprotect(none, pg, PROT_NONE);
	munmap(gone, pg);
	show("msync MS_SYNC", msync(m, pg, MS_SYNC));
	show("msync MS_ASYNC|MS_SYNC", msync(m, pg, MS_ASYNC | MS_SYNC));
	show("msync flags 0x80", msync(m, pg, 0x80));
	show("msync unaligned", msync(m + 1, pg, MS_SYNC));
	show("msync unmapped", msync(gone, pg, MS_SYNC));
	show("msync over a hole", msync(m, 3 * pg, MS_SYNC));

	show("futex wake unmapped", syscall(SYS_futex, gone, FUTEX_WAKE, 1, NULL, NULL, 0));
	show("futex wake PROT_NONE", syscall(SYS_futex, none, FUTEX_WAKE, 1, NULL, NULL, 0));
	show("futex wake private unmapped",
	     syscall(SYS_futex, gone, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
	show("futex wake unaligned", syscall(SYS_futex, m + 1, FUTEX_WAKE, 1, NULL, NULL, 0));
	show("futex wait unmapped", syscall(SYS_futex, gone, FUTEX_WAIT, 0, NULL, NULL, 0));

	show("setrlimit bad address", syscall(SYS_setrlimit, RLIMIT_NOFILE, 8));
	show("getrlimit bad address", syscall(SYS_getrlimit, RLIMIT_NOFILE, 8));
	show("setrlimit resource 99", setrlimit(99, &(struct rlimit){ 1, 1 }));

	show("getpriority which 99", getpriority(99, 0));
	show("getpriority dead pid", getpriority(PRIO_PROCESS, dead));
	show("getpriority dead pgrp", getpriority(PRIO_PGRP, dead));
	show("setpriority which 99", setpriority(99, 0, 0));
	show("setpriority dead pid", setpriority(PRIO_PROCESS, dead, 0));

	show("setpgid pgid -1", setpgid(0, -1));
	show("setpgid dead pid", setpgid(dead, 0));
	{	/* in a child: no session leader */
		pid_t pid = fork();
		int st;

		if (pid == 0)
			_exit(setpgid(0, 32768) == 0 ? 0 : errno);
		waitpid(pid, &st, 0);
		printf("setpgid to a group that does not exist: %s\n",
		       WEXITSTATUS(st) ? strerrorname_np(WEXITSTATUS(st)) : "0");
	}

	show("tgkill tgid -1", syscall(SYS_tgkill, -1, getpid(), SIGCONT));
	show("tgkill tid -1", syscall(SYS_tgkill, getpid(), -1, SIGCONT));
	show("tgkill signal -1", syscall(SYS_tgkill, getpid(), getpid(), -1));
	show("tgkill dead tid", syscall(SYS_tgkill, getpid(), dead, SIGCONT));
	show("tgkill dead tgid", syscall(SYS_tgkill, dead, getpid(), SIGCONT));
	show("tgkill signal 0", syscall(SYS_tgkill, getpid(), getpid(), 0));

	show("sched_getaffinity size 0", syscall(SYS_sched_getaffinity, 0, 0, &set));
	show("sched_getaffinity bad address", syscall(SYS_sched_getaffinity, 0, sizeof(set), 8));
	show("sched_getaffinity dead pid", sched_getaffinity(dead, sizeof(set), &set));
	return 0;
}

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

static int sigwait_case(void)
{
	struct timespec nap = { 0, 100 * 1000 * 1000 }, ts = { 5, 0 };
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigset_t set;
	siginfo_t si;
	pid_t pid, me = getpid();
	long r;

	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pid = fork();
	if (pid == 0) {
		nanosleep(&nap, NULL);
		kill(me, SIGUSR1);
		_exit(0);
	}
	memset(&si, 0, sizeof(si));
	r = sigtimedwait(&set, &si, &ts);
	show("sigtimedwait, SIGUSR1 not blocked", r);
	printf("  si_signo %d, from the child %d, handler ran %d\n", si.si_signo,
	       si.si_pid == pid, (int)handled);
	waitpid(pid, NULL, 0);
	/* Blocked now: the same, and the mask stays as it was. */
	sigprocmask(SIG_BLOCK, &set, NULL);
	pid = fork();
	if (pid == 0) {
		nanosleep(&nap, NULL);
		kill(me, SIGUSR1);
		_exit(0);
	}
	show("sigwaitinfo, SIGUSR1 blocked", sigwaitinfo(&set, &si));
	sigprocmask(SIG_BLOCK, NULL, &set);
	printf("  handler ran %d, still blocked %d\n", (int)handled,
	       sigismember(&set, SIGUSR1));
	waitpid(pid, NULL, 0);
	/* Ignored but blocked: queued all the same, and sigwaitinfo gets it. */
	signal(SIGUSR2, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pid = fork();
	if (pid == 0) {
		kill(me, SIGUSR2);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	sigpending(&set);
	printf("SIGUSR2 ignored, blocked, sent: pending %d\n", sigismember(&set, SIGUSR2));
	show("sigtimedwait for it", sigtimedwait(&set, &si, &ts));
	return 0;
}

static int zombie_case(void)
{
	siginfo_t si;
	pid_t pid = fork();

	if (pid == 0)
		_exit(3);
	/* A zombie now, not reaped (WNOWAIT). */
	show("waitid WNOWAIT", waitid(P_PID, pid, &si, WEXITED | WNOWAIT));
	show("kill zombie, signal 0", kill(pid, 0));
	show("kill zombie, SIGTERM", kill(pid, SIGTERM));
	show("kill zombie's group", kill(-getpgrp(), 0));
	show("waitpid", waitpid(pid, NULL, 0) == pid);
	show("kill reaped", kill(pid, 0));
	return 0;
}

static void fadv(const char *what, int fd, long off, long len, int advice)
{
	long r = syscall(SYS_fadvise64, fd, off, len, advice);

	show(what, r);
}

static int fadvise_case(void)
{
	int fd = open("ltpcalls.fadvise", O_RDWR | O_CREAT | O_TRUNC, 0600), p[2];

	if (fd < 0 || pipe(p))
		return 1;
	fadv("POSIX_FADV_WILLNEED", fd, 0, 0, POSIX_FADV_WILLNEED);
	fadv("POSIX_FADV_NOREUSE", fd, 0, 4096, POSIX_FADV_NOREUSE);
	fadv("advice 6", fd, 0, 0, 6);
	fadv("advice -1", fd, 0, 0, -1);
	fadv("negative length", fd, 0, -1, POSIX_FADV_NORMAL);
	fadv("on a pipe", p[0], 0, 0, POSIX_FADV_NORMAL);
	fadv("on a bad fd", 999, 0, 0, POSIX_FADV_NORMAL);
	unlink("ltpcalls.fadvise");
	return 0;
}

static int execpgid_case(const char *self)
{
	int p[2], st;
	char c;
	pid_t pid;

	/* A child that has not exec'd: its group can be set. */
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	show("setpgid on a child", setpgid(pid, pid));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* One that has (it says so on a pipe, then waits): EACCES. */
	if (pipe(p))
		return 1;
	pid = fork();
	if (pid == 0) {
		char fd[16];

		snprintf(fd, sizeof(fd), "%d", p[1]);
		execl(self, self, "execpgid-child", fd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		return 1;
	show("setpgid on a child that has exec'd", setpgid(pid, pid));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return 0;
}

static int xferloop_case(double secs)
{
	static char buf[1 << 16];
	int in = open("ltpcalls.xin", O_RDWR | O_CREAT | O_TRUNC, 0600);
	int out = open("ltpcalls.xout", O_RDWR | O_CREAT | O_TRUNC, 0600);
	const size_t size = 4 << 20;
	struct timespec t0, t1;
	long rounds = 0, bad = 0;
	size_t i;

	if (in < 0 || out < 0)
		return 1;
	for (i = 0; i < size; i += sizeof(buf))
		if (write(in, buf, sizeof(buf)) != sizeof(buf))
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		loff_t oi = 0, oo = 0;
		off_t o = 0;
		ssize_t n;

		n = sendfile(out, in, &o, size);
		bad += n != (ssize_t)size;
		n = copy_file_range(in, &oi, out, &oo, size, 0);
		bad += n != (ssize_t)size;
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	unlink("ltpcalls.xin");
	unlink("ltpcalls.xout");
	if (bad)
		printf("xferloop: %ld of %ld calls short or failed\n", bad, 2 * rounds);
	else
		printf("xferloop ok\n");
	return 0;
}

static int opath_case(void)
{
	int fd = open(".", O_PATH | O_DIRECTORY), d = dup(fd), v;

	show("ioctl(O_PATH fd, FIONREAD)", ioctl(fd, FIONREAD, &v));
	show("ioctl(O_PATH fd, FIOCLEX)", ioctl(fd, FIOCLEX));
	show("ioctl(its dup, FIONBIO)", ioctl(d, FIONBIO, &v));
	show("ioctl(its dup, TCGETS)", ioctl(d, TCGETS, &v));
	show("fcntl(O_PATH fd, F_GETFL) & O_PATH",
	     fcntl(fd, F_GETFL) & O_PATH ? 1 : 0);
	return 0;
}

static int emptyargv_case(const char *self)
{
	char *argv[] = { NULL }, *envp[] = { "EMPTYARGV=1", NULL };
	pid_t c = fork();
	int st;

	if (c == 0) {
		syscall(SYS_execve, self, argv, envp);
		_exit(127);
	}
	waitpid(c, &st, 0);
	show("child's status", WEXITSTATUS(st));
	return 0;
}

static int bigio_case(void)
{
	static char a[5 << 20], b[5 << 20];
	const char *name = "ltpcalls.big";
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	long i;

	for (i = 0; i < (long)sizeof(a); i++)
		a[i] = i * 7 + i / 4096;
	show("write 4 MB", write(fd, a, 4 << 20));
	show("pwrite 3 MB at 3 MB", pwrite(fd, a + (1 << 20), 3 << 20, 3 << 20));
	show("lseek 0", lseek(fd, 0, SEEK_SET));
	show("read 5 MB of 6", read(fd, b, 5 << 20));
	show("read the rest", read(fd, b, 5 << 20));
	show("pread 5 MB at 2 MB: 4 MB left", pread(fd, b, 5 << 20, 2 << 20));
	show("same as written", !memcmp(b, a, 1 << 20) &&
	     !memcmp(b + (1 << 20), a + (1 << 20), 3 << 20));
	show("pread 2 MB at -1", pread(fd, b, 2 << 20, -1));
	show("pread 2 MB to a bad address",
	     syscall(SYS_pread64, fd, 8L, 2L << 20, 0L));
	show("write 2 MB from a bad address",
	     syscall(SYS_write, fd, 8L, 2L << 20));
	close(fd);
	unlink(name);
	return 0;
}

static volatile pid_t tk_tid;
static volatile sig_atomic_t tk_got, tk_stop;

static void on_tk(int sig)
{
	(void)sig;
	tk_got++;
}

static void *tk_thread(void *arg)
{
	(void)arg;
	tk_tid = syscall(SYS_gettid);
	while (!tk_stop)
		usleep(1000);
	return NULL;
}

static int tidkill_case(void)
{
	siginfo_t si = { .si_signo = SIGUSR1, .si_code = SI_QUEUE,
			 .si_pid = getpid(), .si_uid = getuid() };
	pthread_t th;
	pid_t tid;

	signal(SIGUSR1, on_tk);
	signal(SIGUSR2, on_tk);
	if (pthread_create(&th, NULL, tk_thread, NULL))
		return 1;
	while (!tk_tid)
		usleep(1000);
	tid = tk_tid;
	show("kill(thread's tid, 0)", kill(tid, 0));
	show("kill(thread's tid, SIGUSR2)", kill(tid, SIGUSR2));
	show("rt_sigqueueinfo(thread's tid, SIGUSR1)",
	     syscall(SYS_rt_sigqueueinfo, tid, SIGUSR1, &si));
	for (int i = 0; tk_got < 2 && i < 2000; i++)
		usleep(1000);
	show("both handled", tk_got);
	tk_stop = 1;
	pthread_join(th, NULL);	/* (its tid may outlive the join a while) */
	return 0;
}

static int ignchld_case(void)
{
	pid_t c;

	signal(SIGCHLD, SIG_IGN);
	c = fork();
	if (c == 0) {
		usleep(100000);
		_exit(0);
	}
	show("wait, the child ends meanwhile", wait(NULL));
	return 0;
}

static int sockets_case(void)
{
	static const int c[][3] = {
		{ 0, SOCK_STREAM, 0 }, { AF_MAX, 75, 0 }, { -1, SOCK_STREAM, 0 },
		{ AF_INET, 75, 0 }, { AF_INET, -1, 0 }, { AF_PACKET, 75, 0 },
		{ AF_INET, SOCK_RAW, 0 }, { AF_INET6, SOCK_RAW, 0 },
		{ AF_INET, SOCK_STREAM, 17 }, { AF_INET, SOCK_DGRAM, 6 },
		{ AF_INET, SOCK_STREAM, 1 }, { AF_INET, SOCK_RDM, 0 },
		{ AF_UNIX, SOCK_RAW, 0 },
		{ AF_UNIX, SOCK_STREAM, 6 }, { AF_UNIX, SOCK_RDM, 0 },
		{ AF_UNIX, SOCK_RAW, 1 }, { AF_INET, SOCK_STREAM, 6 },
	};
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int i, fd, l, s, a, sv[2];
	char what[64], buf[8];

	for (i = 0; i < (int)(sizeof(c) / sizeof(c[0])); i++) {
		fd = socket(c[i][0], c[i][1], c[i][2]);
		snprintf(what, sizeof(what), "socket(%d, %d, %d)", c[i][0],
			 c[i][1], c[i][2]);
		show(what, fd < 0 ? fd : 0);
		if (fd >= 0)
			close(fd);
		snprintf(what, sizeof(what), "socketpair(%d, %d, %d)", c[i][0],
			 c[i][1], c[i][2]);
		fd = socketpair(c[i][0], c[i][1], c[i][2], sv);
		show(what, fd);
		if (fd == 0) {
			close(sv[0]);
			close(sv[1]);
		}
	}
	/* A TCP pair with data waiting, then the two that do not wait. */
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&sa, len) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&sa, &len)) {
		puts("tcp: not here");
		return 0;
	}
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(s, (struct sockaddr *)&sa, len) < 0)
		return 1;
	a = accept(l, NULL, NULL);
	if (a < 0 || write(a, "data", 4) != 4)
		return 1;
	usleep(20000);
	show("recv(MSG_OOB), no urgent data", recv(s, buf, sizeof(buf), MSG_OOB));
	show("recv(MSG_ERRQUEUE), nothing queued",
	     recv(s, buf, sizeof(buf), MSG_ERRQUEUE));
	show("recv, the data", recv(s, buf, sizeof(buf), 0));
	close(a);
	close(s);
	close(l);
	return 0;
}

/* A datagram pair of AF_UNIX (the debug VM has no AF_INET), @n queued. */
static int dgram_pair(int sv[2], int n)
{
	char m[16];
	int i;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		return -1;
	for (i = 0; i < n; i++) {
		snprintf(m, sizeof(m), "dgram%d", i);
		if (send(sv[1], m, strlen(m), 0) < 0)
			return -1;
	}
	return 0;
}

#define CMSG_COMPAT	0x80000000	/* MSG_CMSG_COMPAT, not in libc's headers */

/* recvmsg of one datagram into @buf: its length and what came. */
static void recvmsg_show(const char *what, int fd, struct msghdr *m,
			 int flags)
{
	char *buf = m->msg_iov[0].iov_base;
	long r = recvmsg(fd, m, flags);

	show(what, r);
	if (r > 0)
		printf("  the datagram: %.*s\n", (int)r, buf);
}

static int recvmsg_args(void)
{
	static char cbuf[128 * 1024];
	struct sockaddr_storage from;
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t slen = sizeof(sin);
	char buf[64];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	int sv[2], u, v, fd;

	if (dgram_pair(sv, 2))
		return 1;
	m.msg_name = &from;
	m.msg_namelen = -1;
	recvmsg_show("recvmsg, name length -1", sv[0], &m, 0);
	recvmsg_show("recvmsg, name length -1, flags -1", sv[0], &m, -1);
	m.msg_iovlen = 2000;
	recvmsg_show("recvmsg, name length -1, 2000 iovecs", sv[0], &m, 0);
	m.msg_iovlen = 1;
	m.msg_name = NULL;
	recvmsg_show("recvmsg, no name, name length -1", sv[0], &m, 0);
	m.msg_name = &from;
	m.msg_namelen = sizeof(from);
	recvmsg_show("recvmsg, MSG_CMSG_COMPAT", sv[0], &m, CMSG_COMPAT);
	recvmsg_show("recvmsg of fd 400, MSG_CMSG_COMPAT", 400, &m, CMSG_COMPAT);
	show("sendmsg, MSG_CMSG_COMPAT", sendmsg(sv[1], &m, CMSG_COMPAT));
	m.msg_namelen = -1;
	show("sendmsg, name length -1", sendmsg(sv[1], &m, 0));
	m.msg_namelen = sizeof(from);
	m.msg_control = cbuf;
	m.msg_controllen = sizeof(cbuf);
	recvmsg_show("recvmsg, a 128 KiB control buffer", sv[0], &m, 0);
	printf("  control length %zu\n", m.msg_controllen);
	/* An fd that comes into the large buffer. */
	fd = open(".", O_RDONLY | O_DIRECTORY);
	m.msg_name = NULL;
	m.msg_namelen = 0;
	m.msg_controllen = CMSG_SPACE(sizeof(int));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	iov.iov_len = 4;
	show("sendmsg of an fd", sendmsg(sv[1], &m, 0));
	close(fd);
	iov.iov_len = sizeof(buf);
	memset(cbuf, 0, sizeof(cbuf));
	m.msg_controllen = sizeof(cbuf);
	recvmsg_show("recvmsg of the fd, a 128 KiB control buffer", sv[0], &m,
		     0);
	cm = CMSG_FIRSTHDR(&m);
	printf("  control length %zu, SCM_RIGHTS %d\n", m.msg_controllen,
	       cm && cm->cmsg_type == SCM_RIGHTS);
	if (cm && cm->cmsg_type == SCM_RIGHTS) {
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
		show("  the fd received is open", fcntl(fd, F_GETFD) >= 0);
		close(fd);
	}
	close(sv[0]);
	close(sv[1]);
	/* A name longer than any is clamped (__copy_msghdr()). */
	u = socket(AF_INET, SOCK_DGRAM, 0);
	v = socket(AF_INET, SOCK_DGRAM, 0);
	if (u < 0 || v < 0 || bind(u, (struct sockaddr *)&sin, slen) ||
	    getsockname(u, (struct sockaddr *)&sin, &slen)) {
		puts("udp: not here");
		return 0;
	}
	memset(&from, 0, sizeof(from));
	memcpy(&from, &sin, slen);
	m = (struct msghdr){ .msg_name = &from, .msg_namelen = 200,
			     .msg_iov = &iov, .msg_iovlen = 1 };
	iov.iov_len = 4;
	show("sendmsg over udp, name length 200", sendmsg(v, &m, 0));
	close(u);
	close(v);
	return 0;
}

static void mmsg_show(const char *what, int fd, unsigned int vlen, int flags,
		      void *ts)
{
	static char b[4][16];
	static struct iovec iov[4];
	static struct mmsghdr mm[4];
	unsigned int i;
	long r;

	memset(mm, 0, sizeof(mm));
	for (i = 0; i < 4; i++) {
		iov[i] = (struct iovec){ b[i], sizeof(b[i]) };
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	r = syscall(SYS_recvmmsg, fd, mm, vlen, flags, ts);
	show(what, r);
	for (i = 0; r > 0 && i < (unsigned int)r; i++)
		printf("  %.*s\n", (int)mm[i].msg_len, b[i]);
}

static int recvmmsg_args(void)
{
	struct timespec ts;
	struct mmsghdr mm = { 0 };
	int sv[2];

	if (dgram_pair(sv, 4))
		return 1;
	mmsg_show("recvmmsg, timeout at a bad address", sv[0], 1, 0, (void *)8);
	ts = (struct timespec){ -1, 0 };
	mmsg_show("recvmmsg, timeout of -1 s", sv[0], 1, 0, &ts);
	ts = (struct timespec){ 1, 1000000001 };
	mmsg_show("recvmmsg, timeout of 1 s and 1000000001 ns", sv[0], 1, 0, &ts);
	mmsg_show("recvmmsg of fd 400, timeout of 1 s and 1000000001 ns", 400, 1,
		  0, &ts);
	mmsg_show("recvmmsg of fd 400, no datagram wanted", 400, 0, 0, NULL);
	mmsg_show("recvmmsg, MSG_CMSG_COMPAT", sv[0], 1, CMSG_COMPAT, NULL);
	show("sendmmsg, MSG_CMSG_COMPAT",
	     syscall(SYS_sendmmsg, sv[1], &mm, 1, CMSG_COMPAT));
	ts = (struct timespec){ 0, 0 };
	mmsg_show("recvmmsg of 2, timeout 0: the first", sv[0], 2, 0, &ts);
	printf("  time left %ld s %ld ns\n", (long)ts.tv_sec, ts.tv_nsec);
	/*
	 * The time left in a class wide enough for a slow machine, and all
	 * of it where the clock is coarse (jiffies, in some VMs).
	 */
	ts = (struct timespec){ 60, 0 };
	mmsg_show("recvmmsg of 2, timeout 60 s", sv[0], 2, 0, &ts);
	printf("  time left 30 to 60 s: %d\n", ts.tv_sec >= 30 &&
	       (ts.tv_sec < 60 || (ts.tv_sec == 60 && !ts.tv_nsec)));
	mmsg_show("recvmmsg of 3, MSG_WAITFORONE", sv[0], 3, MSG_WAITFORONE,
		  NULL);
	close(sv[0]);
	close(sv[1]);
	return 0;
}

static int sockopt_case(void)
{
	static const int c[][3] = {
		{ AF_UNIX, SOCK_STREAM, 0 }, { AF_UNIX, SOCK_DGRAM, 0 },
		{ AF_INET, SOCK_STREAM, 0 }, { AF_INET, SOCK_DGRAM, 0 },
		{ AF_INET6, SOCK_STREAM, 0 }, { AF_INET6, SOCK_DGRAM, 0 },
		{ AF_INET, SOCK_STREAM, 262 },	/* IPPROTO_MPTCP */
		{ AF_INET6, SOCK_STREAM, 262 },
	};
	static const int level[] = { 500, 263 /* SOL_PACKET */, -1 };
	char what[80];
	int i, j, fd, v = 1;
	socklen_t len;

	for (i = 0; i < (int)(sizeof(c) / sizeof(c[0])); i++) {
		fd = socket(c[i][0], c[i][1], c[i][2]);
		if (fd < 0) {
			printf("socket(%d, %d, %d): not here\n", c[i][0],
			       c[i][1], c[i][2]);
			continue;
		}
		for (j = 0; j < (int)(sizeof(level) / sizeof(level[0])); j++) {
			snprintf(what, sizeof(what),
				 "socket(%d, %d, %d): getsockopt level %d",
				 c[i][0], c[i][1], c[i][2], level[j]);
			len = sizeof(v);
			show(what, getsockopt(fd, level[j], 1, &v, &len));
			snprintf(what, sizeof(what),
				 "socket(%d, %d, %d): setsockopt level %d",
				 c[i][0], c[i][1], c[i][2], level[j]);
			show(what, setsockopt(fd, level[j], 1, &v, sizeof(v)));
		}
		close(fd);
	}
	return 0;
}

static void mmap_show(const char *what, void *addr, size_t len, int flags,
		      int fd, off_t off)
{
	void *p = mmap(addr, len, PROT_READ | PROT_WRITE, flags, fd, off);

	if (p == MAP_FAILED) {
		printf("%s: -1 %s\n", what, strerrorname_np(errno));
		return;
	}
	printf("%s: mapped%s\n", what, addr && p != addr ? " elsewhere" : "");
	munmap(p, len);
}

static int mmapargs_case(void)
{
	const char *name = "ltpcalls.mmap";
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600), op;
	char *page;

	if (fd < 0 || ftruncate(fd, 4096))
		return 1;
	op = open(name, O_PATH);
	mmap_show("length 0, fd -1", NULL, 0, MAP_SHARED, -1, 0);
	mmap_show("length 0, fd 400", NULL, 0, MAP_SHARED, 400, 0);
	mmap_show("length 0, offset 1, fd -1", NULL, 0, MAP_SHARED, -1, 1);
	mmap_show("length 0", NULL, 0, MAP_SHARED, fd, 0);
	mmap_show("type 0, fd -1", NULL, 4096, 0, -1, 0);
	mmap_show("type 0", NULL, 4096, 0, fd, 0);
	mmap_show("an O_PATH fd", NULL, 4096, MAP_SHARED, op, 0);
	mmap_show("length -1", NULL, -1, MAP_PRIVATE, fd, 0);
	mmap_show("anonymous, length -1", NULL, -1,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mmap_show("fixed, its end past 2^64", (void *)0x30000000,
		  -0x20000000UL, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mmap_show("fixed, no replace, over a mapping, type 0", page, 4096,
		  MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	mmap_show("shared, the file", NULL, 4096, MAP_SHARED, fd, 0);
	munmap(page, 4096);
	close(op);
	close(fd);
	unlink(name);
	return 0;
}

static int securebits_case(const char *self)
{
	char *argv[] = { (char *)self, "securebits-exec", NULL };
	pid_t c;
	int st;

	show("PR_GET_SECUREBITS", prctl(PR_GET_SECUREBITS));
	show("PR_SET_SECUREBITS of bit 30", prctl(PR_SET_SECUREBITS, 1 << 30));
	fflush(stdout);
	c = fork();
	if (c == 0) {
		struct __user_cap_header_struct h = {
			_LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];

		if (syscall(SYS_capget, &h, d))
			_exit(1);
		d[0].effective &= ~(1U << CAP_SETPCAP);
		if (syscall(SYS_capset, &h, d))
			_exit(2);
		show("without CAP_SETPCAP, PR_SET_SECUREBITS 0",
		     prctl(PR_SET_SECUREBITS, 0));
		fflush(stdout);
		_exit(0);
	}
	waitpid(c, &st, 0);
	show("child's status", WEXITSTATUS(st));
	show("PR_SET_KEEPCAPS 1", prctl(PR_SET_KEEPCAPS, 1));
	show("PR_GET_SECUREBITS", prctl(PR_GET_SECUREBITS));
	/* Allowed with CAP_SETPCAP only (root, in the VMs). */
	show("PR_SET_SECUREBITS of keepcaps, locked",
	     prctl(PR_SET_SECUREBITS, 0x30));
	show("PR_GET_SECUREBITS", prctl(PR_GET_SECUREBITS));
	show("PR_SET_KEEPCAPS 0", prctl(PR_SET_KEEPCAPS, 0));
	show("PR_SET_SECUREBITS 0", prctl(PR_SET_SECUREBITS, 0));
	show("PR_GET_KEEPCAPS", prctl(PR_GET_KEEPCAPS));
	fflush(stdout);
	c = fork();
	if (c == 0) {
		show("the child's PR_GET_SECUREBITS", prctl(PR_GET_SECUREBITS));
		fflush(stdout);
		execv(self, argv);
		_exit(127);
	}
	waitpid(c, &st, 0);
	show("child's status", WEXITSTATUS(st));
	return 0;
}

static int unix_bound(const char *path, int type)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type, 0);

	strcpy(sun.sun_path, path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)))
		return -1;
	return fd;
}

static void unix_sendto(const char *what, int fd, const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	strcpy(sun.sun_path, path);
	show(what, sendto(fd, path, strlen(path), 0, (struct sockaddr *)&sun,
			  sizeof(sun)));
}

static void unix_recv(int fd)
{
	char buf[64];
	long r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

	show("  received", r);
	if (r > 0)
		printf("  %.*s\n", (int)r, buf);
}

static int unixsend_case(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct iovec iov = { "by sendmsg", 10 };
	struct msghdr m = { .msg_name = &sun, .msg_namelen = sizeof(sun),
			    .msg_iov = &iov, .msg_iovlen = 1 };
	int a, b, s, l, sv[2], fd;

	unlink("ltpcalls.sock");
	unlink("ltpcalls.d/s");
	unlink("ltpcalls.file");
	rmdir("ltpcalls.d");
	if (mkdir("ltpcalls.d", 0700))
		return 1;
	fd = open("ltpcalls.file", O_CREAT | O_WRONLY, 0600);
	a = unix_bound("ltpcalls.sock", SOCK_DGRAM);
	b = unix_bound("ltpcalls.d/s", SOCK_DGRAM);
	l = unix_bound("ltpcalls.d/l", SOCK_STREAM);
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || a < 0 || b < 0 || l < 0 || s < 0 || listen(l, 1))
		return 2;
	unix_sendto("sendto ltpcalls.sock", s, "ltpcalls.sock");
	unix_recv(a);
	unix_sendto("sendto ltpcalls.d/s", s, "ltpcalls.d/s");
	unix_recv(b);
	unix_sendto("sendto ./ltpcalls.d/../ltpcalls.d/s", s,
		    "./ltpcalls.d/../ltpcalls.d/s");
	unix_recv(b);
	strcpy(sun.sun_path, "ltpcalls.sock");
	show("sendmsg to ltpcalls.sock", sendmsg(s, &m, 0));
	unix_recv(a);
	/* Names relative to a cwd of the guest's own (the runtime's is not). */
	if (chdir("ltpcalls.d"))
		return 4;
	unix_sendto("in ltpcalls.d: sendto s", s, "s");
	unix_recv(b);
	strcpy(sun.sun_path, "../ltpcalls.sock");
	show("in ltpcalls.d: sendmsg to ../ltpcalls.sock", sendmsg(s, &m, 0));
	unix_recv(a);
	if (chdir(".."))
		return 5;
	unix_sendto("sendto a name that is not there", s, "ltpcalls.none");
	unix_sendto("sendto a regular file", s, "ltpcalls.file");
	unix_sendto("sendto a stream socket's name", s, "ltpcalls.d/l");
	close(s);
	/* A stream refuses a name, whatever it names (unix_stream_sendmsg()). */
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	unix_sendto("stream, not connected: sendto ltpcalls.sock", s,
		    "ltpcalls.sock");
	close(s);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 3;
	unix_sendto("stream, connected: sendto ltpcalls.sock", sv[0],
		    "ltpcalls.sock");
	close(sv[0]);
	close(sv[1]);
	close(a);
	close(b);
	close(l);
	close(fd);
	unlink("ltpcalls.sock");
	unlink("ltpcalls.d/s");
	unlink("ltpcalls.d/l");
	unlink("ltpcalls.file");
	rmdir("ltpcalls.d");
	return 0;
}

static void ra_show(const char *what, int fd, long off, long count)
{
	show(what, syscall(SYS_readahead, fd, off, count));
}

static void sfr_show(const char *what, int fd, long off, long n,
		     unsigned int flags)
{
	show(what, syscall(SYS_sync_file_range, fd, off, n, flags));
}

static int rasync_case(void)
{
	const char *name = "ltpcalls.ra";
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600), wr, op, dir;
	int p[2], sv[2];
	char buf[8192] = { 1 };

	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) || pipe(p) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	wr = open(name, O_WRONLY);
	op = open(name, O_PATH);
	dir = open(".", O_RDONLY | O_DIRECTORY);
	ra_show("readahead of a file", fd, 0, 8192);
	ra_show("readahead past its end", fd, 1 << 20, 4096);
	ra_show("readahead at -1", fd, -1, 4096);
	ra_show("readahead of a length past 2^63", fd, 0, -1);
	ra_show("readahead of a write-only fd", wr, 0, 4096);
	ra_show("readahead of an O_PATH fd", op, 0, 4096);
	ra_show("readahead of fd 400", 400, 0, 4096);
	ra_show("readahead of a pipe", p[0], 0, 4096);
	ra_show("readahead of a socket", sv[0], 0, 4096);
	ra_show("readahead of a directory", dir, 0, 4096);
	sfr_show("sync_file_range, write", fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	sfr_show("sync_file_range, all three", fd, 0, 4096,
		 SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
		 SYNC_FILE_RANGE_WAIT_AFTER);
	sfr_show("sync_file_range, no flags", fd, 0, 4096, 0);
	sfr_show("sync_file_range, flag 8", fd, 0, 4096, 8);
	sfr_show("sync_file_range at -1", fd, -1, 4096, SYNC_FILE_RANGE_WRITE);
	sfr_show("sync_file_range of -1 bytes", fd, 0, -1,
		 SYNC_FILE_RANGE_WRITE);
	sfr_show("sync_file_range, its end past 2^63", fd, 1L << 62, 3L << 61,
		 SYNC_FILE_RANGE_WRITE);
	sfr_show("sync_file_range of a write-only fd", wr, 0, 0,
		 SYNC_FILE_RANGE_WRITE);
	sfr_show("sync_file_range of an O_PATH fd", op, 0, 0,
		 SYNC_FILE_RANGE_WRITE);
	sfr_show("sync_file_range of fd 400", 400, 0, 0, SYNC_FILE_RANGE_WRITE);
	sfr_show("sync_file_range of a pipe", p[1], 0, 0, SYNC_FILE_RANGE_WRITE);
	sfr_show("sync_file_range of a pipe, flag 8", p[1], 0, 0, 8);
	sfr_show("sync_file_range of a socket", sv[0], 0, 0,
		 SYNC_FILE_RANGE_WRITE);
	sfr_show("sync_file_range of a directory", dir, 0, 0,
		 SYNC_FILE_RANGE_WRITE);
	close(fd);
	close(wr);
	close(op);
	close(dir);
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
	unlink(name);
	return 0;
}

static int recvargs_case(void)
{
	struct sockaddr_storage from;
	socklen_t flen;
	char buf[64];
	int sv[2];
	long r;

	if (dgram_pair(sv, 3))
		return 1;
	flen = -1;
	show("recvfrom, address length -1",
	     recvfrom(sv[0], buf, sizeof(buf), 0, (struct sockaddr *)&from,
		      &flen));
	memset(buf, 0, sizeof(buf));
	r = recvfrom(sv[0], buf, sizeof(buf), 0, (struct sockaddr *)&from,
		     NULL);
	show("recvfrom, address length at NULL", r);
	flen = 1;
	r = recvfrom(sv[0], buf, sizeof(buf), 0, (struct sockaddr *)&from,
		     &flen);
	show("recvfrom, address length 1", r);
	printf("the datagram: %.*s, address length %d\n", r > 0 ? (int)r : 0,
	       buf, (int)flen);
	close(sv[0]);
	close(sv[1]);
	return recvmsg_args() || recvmmsg_args();
}

/* ---- pidfds ---- */

#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef PIDFD_NONBLOCK
#define PIDFD_NONBLOCK O_NONBLOCK
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#define PIDFD_SIGNAL_THREAD (1U << 0)
#define PIDFD_SIGNAL_THREAD_GROUP (1U << 1)
#define PIDFD_SIGNAL_PROCESS_GROUP (1U << 2)
#endif

static long pfd_open(pid_t pid, unsigned int flags)
{
	return syscall(SYS_pidfd_open, pid, flags);
}

static long pfd_send(int fd, int sig, siginfo_t *info, unsigned int flags)
{
	return syscall(SYS_pidfd_send_signal, fd, sig, info, flags);
}

/* pidfs (6.9) and what came with it, all in 6.12: on older kernels skip. */
static bool pidfs_kernel(void)
{
	struct utsname u;
	int maj = 0, min = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &maj, &min) != 2)
		return false;
	return maj > 6 || (maj == 6 && min >= 12);
}

/* What poll, select and epoll each say of @fd, without waiting. */
static void pfd_ready(const char *what, int fd, bool hup)
{
	struct pollfd pf = { fd, POLLIN | POLLOUT, 0 };
	struct timeval tv = { 0, 0 };
	struct epoll_event ev = { EPOLLIN | EPOLLOUT, { 0 } };
	fd_set r, w;
	int ep = epoll_create1(EPOLL_CLOEXEC), n;
	short mask = POLLIN | POLLOUT | POLLERR | POLLNVAL | (hup ? POLLHUP : 0);

	n = poll(&pf, 1, 0);
	printf("%s: poll %d revents %#x", what, n, pf.revents & mask);
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(fd, &r);
	FD_SET(fd, &w);
	n = select(fd + 1, &r, &w, NULL, &tv);
	printf(", select %d%s%s", n, FD_ISSET(fd, &r) ? " r" : "",
	       FD_ISSET(fd, &w) ? " w" : "");
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	ev.events = 0;
	n = epoll_wait(ep, &ev, 1, 0);
	printf(", epoll %d events %#x\n", n, ev.events & mask);
	close(ep);
}

/*
 * A thread pidfd once the thread has ended: POLLIN comes at its exit, and
 * POLLHUP (with ESRCH for signals) once the kernel has released it, a
 * moment later on a loaded host; wait for that, then show the state.
 */
static void pfd_thread_gone(int fd)
{
	struct pollfd pf = { fd, POLLIN, 0 };
	int i;

	show("poll until the thread is gone", poll(&pf, 1, 5000));
	for (i = 0; i < 5000 && !(pf.revents & POLLHUP); i++) {
		usleep(1000);
		poll(&pf, 1, 0);
	}
	pfd_ready("an ended thread", fd, true);
	show("pidfd_send_signal, an ended thread", pfd_send(fd, 0, NULL, 0));
	close(fd);
}

static volatile sig_atomic_t pfd_sig, pfd_val;

static void on_pfd(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	pfd_sig = sig;
	pfd_val = si->si_value.sival_int;
}

static void *pfd_thread(void *arg)
{
	int *p = arg;
	char c;

	tk_tid = gettid();
	if (read(p[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

static int pidfd_case(void)
{
	struct sigaction sa = { .sa_sigaction = on_pfd, .sa_flags = SA_SIGINFO };
	int p[2], q[2], fd, fd2, nb, self, procfd, file, st;
	bool pidfs = pidfs_kernel();
	struct pollfd pf = { -1, POLLIN, 0 };
	struct stat s1, s2;
	siginfo_t si;
	pthread_t th;
	pid_t pid;
	char b[8];

	show("pidfd_open, flags 1", pfd_open(getpid(), 1));
	show("pidfd_open, O_CLOEXEC", pfd_open(getpid(), O_CLOEXEC));
	show("pidfd_open of pid 0", pfd_open(0, 0));
	show("pidfd_open of pid -1", pfd_open(-1, 0));
	show("pidfd_open of a reaped pid", pfd_open(dead_pid(), 0));
	self = pfd_open(getpid(), 0);
	show("pidfd_open of itself", self >= 0 ? 0 : -1);
	printf("F_GETFD %d, F_GETFL %#x\n", fcntl(self, F_GETFD),
	       fcntl(self, F_GETFL));
	nb = pfd_open(getpid(), O_NONBLOCK);
	printf("PIDFD_NONBLOCK: F_GETFL %#x\n", fcntl(nb, F_GETFL));
	show("read of a pidfd", read(self, b, sizeof(b)));
	show("read of 0 bytes", read(self, b, 0));
	show("write of a pidfd", write(self, "x", 1));
	show("readv of a pidfd", readv(self, &(struct iovec){ b, 8 }, 1));
	show("lseek of a pidfd", lseek(self, 0, SEEK_SET));
	show("ioctl 0x1234 on a pidfd", ioctl(self, 0x1234, 0));
	pfd_ready("its own pidfd", self, pidfs);
	if (pidfs) {
		show("pread of a pidfd", pread(self, b, sizeof(b), 0));
		fd2 = pfd_open(getpid(), 0);
		fstat(self, &s1);
		fstat(fd2, &s2);
		printf("fstat: mode %#o, nlink %ld, one inode %d\n",
		       s1.st_mode, (long)s1.st_nlink, s1.st_ino == s2.st_ino);
		close(fd2);
	}

	/* pidfd_send_signal's checks, in the kernel's order */
	file = open("/proc/self/cmdline", O_RDONLY);
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGUSR1;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = 777;
	show("pidfd_send_signal, flags 99999", pfd_send(self, SIGUSR1, &si, 99999));
	show("pidfd_send_signal, two scopes", pfd_send(self, 0, NULL, 3));
	show("pidfd_send_signal, fd 400", pfd_send(400, 0, NULL, 0));
	show("pidfd_send_signal, a file", pfd_send(file, 0, NULL, 0));
	show("pidfd_send_signal, info at NULL+1", pfd_send(self, SIGUSR1, (void *)1, 0));
	show("pidfd_send_signal, another signal in info", pfd_send(self, SIGUSR2, &si, 0));
	show("pidfd_send_signal, signal 65", pfd_send(self, 65, NULL, 0));
	show("pidfd_send_signal, signal -1", pfd_send(self, -1, NULL, 0));
	show("pidfd_send_signal, signal 0", pfd_send(self, 0, NULL, 0));
	sigaction(SIGUSR1, &sa, NULL);
	show("pidfd_send_signal, SI_QUEUE to itself", pfd_send(self, SIGUSR1, &si, 0));
	printf("handler: signal %d value %d\n", (int)pfd_sig, (int)pfd_val);
	si.si_code = SI_USER;
	pfd_sig = pfd_val = 0;
	show("pidfd_send_signal, SI_USER to itself", pfd_send(self, SIGUSR1, &si, 0));
	printf("handler: signal %d value %d\n", (int)pfd_sig, (int)pfd_val);
	procfd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pfd_sig = 0;
	show("pidfd_send_signal, /proc/self", pfd_send(procfd, SIGUSR1, NULL, 0));
	printf("handler: signal %d\n", (int)pfd_sig);
	show("waitid(P_PIDFD) of a file", waitid(P_PIDFD, file, &si, WEXITED));
	show("waitid(P_PIDFD) of -1", waitid(P_PIDFD, -1, &si, WEXITED));
	show("waitid(P_PIDFD) of itself", waitid(P_PIDFD, self, &si, WEXITED | WNOHANG));

	/* a child: not ready while it runs, readable once a zombie */
	if (pipe(p) || pipe(q))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], b, 1) < 0)
			_exit(1);
		_exit(7);
	}
	close(p[0]);
	fd = pfd_open(pid, 0);
	nb = pfd_open(pid, PIDFD_NONBLOCK);
	pfd_ready("a running child", fd, pidfs);
	show("waitid(P_PIDFD) of a non-blocking pidfd", waitid(P_PIDFD, nb, &si, WEXITED));
	show("waitid(P_PIDFD, WNOHANG)", waitid(P_PIDFD, fd, &si, WEXITED | WNOHANG));
	si.si_code = SI_QUEUE;
	si.si_signo = SIGCONT;
	show("pidfd_send_signal, SI_QUEUE to a child", pfd_send(fd, SIGCONT, &si, 0));
	si.si_code = SI_USER;
	show("pidfd_send_signal, SI_USER to a child", pfd_send(fd, SIGCONT, &si, 0));
	si.si_code = SI_TKILL;
	show("pidfd_send_signal, SI_TKILL to a child", pfd_send(fd, SIGCONT, &si, 0));
	show("pidfd_send_signal, signal 0 to a child", pfd_send(fd, 0, NULL, 0));
	if (pidfs)	/* its pid is no process group's */
		show("pidfd_send_signal, its process group",
		     pfd_send(fd, 0, NULL, PIDFD_SIGNAL_PROCESS_GROUP));
	close(p[1]);
	pf.fd = fd;
	show("poll until it exits", poll(&pf, 1, 5000));
	pfd_ready("a zombie child", fd, pidfs);
	show("pidfd_send_signal to a zombie", pfd_send(fd, SIGUSR1, NULL, 0));
	memset(&si, 0, sizeof(si));
	show("waitid(P_PIDFD, WNOWAIT)", waitid(P_PIDFD, fd, &si, WEXITED | WNOWAIT));
	printf("siginfo: pid ok %d, code %d, status %d\n", si.si_pid == pid,
	       si.si_code, si.si_status);
	show("waitid(P_PIDFD)", waitid(P_PIDFD, nb, &si, WEXITED));
	pfd_ready("a reaped child", fd, pidfs);
	show("pidfd_send_signal to a reaped child", pfd_send(fd, 0, NULL, 0));
	show("waitid(P_PIDFD) of a reaped child", waitid(P_PIDFD, fd, &si, WEXITED));
	show("pidfd_open of a zombie's pid after reaping", pfd_open(pid, 0));
	close(fd);
	close(nb);

	/* SIGTERM through a pidfd */
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		pause();
		_exit(0);
	}
	setpgid(pid, pid);
	fd = pfd_open(pid, 0);
	if (pidfs) {
		show("pidfd_send_signal, a group leader's group",
		     pfd_send(fd, 0, NULL, PIDFD_SIGNAL_PROCESS_GROUP));
		show("pidfd_send_signal, SIGCONT to its group",
		     pfd_send(fd, SIGCONT, NULL, PIDFD_SIGNAL_PROCESS_GROUP));
	}
	if (pfd_send(fd, SIGTERM, NULL, 0) < 0) {
		show("pidfd_send_signal, SIGTERM", -1);
		kill(pid, SIGKILL);
	} else {
		show("pidfd_send_signal, SIGTERM", 0);
	}
	waitpid(pid, &st, 0);
	printf("the child: signalled %d, signal %d\n", WIFSIGNALED(st), WTERMSIG(st));
	close(fd);

	/* a thread */
	tk_tid = 0;
	if (pthread_create(&th, NULL, pfd_thread, q))
		return 1;
	while (!tk_tid)
		sched_yield();
	/* EINVAL up to 6.12 at least, ENOENT in later kernels */
	fd = pfd_open(tk_tid, 0);
	printf("pidfd_open of a thread's tid: %s\n",
	       fd >= 0 ? "a pidfd" : errno == EINVAL || errno == ENOENT ?
	       "EINVAL or ENOENT" : strerrorname_np(errno));
	if (pidfs) {
		fd = pfd_open(tk_tid, PIDFD_THREAD);
		printf("PIDFD_THREAD: F_GETFL %#x\n", fcntl(fd, F_GETFL));
		pfd_ready("a running thread", fd, true);
		show("pidfd_send_signal, its process",
		     pfd_send(fd, 0, NULL, PIDFD_SIGNAL_THREAD_GROUP));
		show("pidfd_send_signal, the thread", pfd_send(fd, 0, NULL, 0));
		show("waitid(P_PIDFD) of a thread", waitid(P_PIDFD, fd, &si, WEXITED | WNOHANG));
		fd2 = pfd_open(getpid(), PIDFD_THREAD);
		show("pidfd_send_signal, its leader", pfd_send(fd2, 0, NULL, 0));
		show("pidfd_send_signal, its leader's process",
		     pfd_send(fd2, 0, NULL, PIDFD_SIGNAL_THREAD_GROUP));
		close(fd2);
	}
	close(q[1]);
	pthread_join(th, NULL);
	if (pidfs) {
		/* pthread_join() returns at CLONE_CHILD_CLEARTID: before the end */
		pfd_thread_gone(fd);
	}
	close(q[0]);
	close(self);
	close(file);
	close(procfd);
	return 0;
}

/* ---- setreuid, setregid, setfsuid, setfsgid ---- */

static void reid_show(const char *what, long nr, unsigned long a, unsigned long b)
{
	show(what, syscall(nr, a, b));
}

static int reids_case(void)
{
	unsigned long hi = 1UL << 32, none = (unsigned int)-1;
	uid_t ruid = getuid(), euid = geteuid(), other = ruid == 65534 ? 65533 : 65534;
	gid_t rgid = getgid(), egid = getegid(), ogid = rgid == 65534 ? 65533 : 65534;
	uid_t r, e, s;
	gid_t gr, ge, gs;

	reid_show("setreuid(-1, -1)", SYS_setreuid, none, none);
	reid_show("setreuid(-1, euid)", SYS_setreuid, none, euid);
	reid_show("setreuid(ruid, -1)", SYS_setreuid, ruid, none);
	reid_show("setreuid(-1, ruid)", SYS_setreuid, none, ruid);
	reid_show("setreuid(ruid, euid)", SYS_setreuid, ruid, euid);
	reid_show("setreuid, upper bits set", SYS_setreuid, hi | ruid, hi | euid);
	reid_show("setreuid, -1 with upper bits", SYS_setreuid, ~0UL, ~0UL);
	reid_show("setregid(-1, -1)", SYS_setregid, none, none);
	reid_show("setregid(-1, egid)", SYS_setregid, none, egid);
	reid_show("setregid(rgid, -1)", SYS_setregid, rgid, none);
	reid_show("setregid(-1, rgid)", SYS_setregid, none, rgid);
	reid_show("setregid(rgid, egid)", SYS_setregid, rgid, egid);
	reid_show("setregid, upper bits set", SYS_setregid, hi | rgid, hi | egid);
	show("setuid, upper bits set", syscall(SYS_setuid, hi | ruid));
	show("setgid, upper bits set", syscall(SYS_setgid, hi | rgid));
	/* setfsuid and setfsgid return the old id, never an error */
	show("setfsuid(-1)", syscall(SYS_setfsuid, none) == (long)euid);
	show("setfsuid(euid)", syscall(SYS_setfsuid, euid) == (long)euid);
	show("setfsuid, upper bits set", syscall(SYS_setfsuid, hi | euid) == (long)euid);
	show("setfsgid(-1)", syscall(SYS_setfsgid, none) == (long)egid);
	show("setfsgid(egid)", syscall(SYS_setfsgid, egid) == (long)egid);
	show("setfsgid, upper bits set", syscall(SYS_setfsgid, hi | egid) == (long)egid);
	/* Another id: not ours to take (root would take it natively). */
	if (euid != 0) {
		reid_show("setreuid(other, -1)", SYS_setreuid, other, none);
		reid_show("setreuid(-1, other)", SYS_setreuid, none, other);
		reid_show("setregid(other, -1)", SYS_setregid, ogid, none);
		reid_show("setregid(-1, other)", SYS_setregid, none, ogid);
		show("setfsuid(other) returns the old one",
		     syscall(SYS_setfsuid, other) == (long)euid);
		show("then setfsuid(-1)", syscall(SYS_setfsuid, none) == (long)euid);
		show("setfsgid(other) returns the old one",
		     syscall(SYS_setfsgid, ogid) == (long)egid);
		show("then setfsgid(-1)", syscall(SYS_setfsgid, none) == (long)egid);
	}
	if (getresuid(&r, &e, &s) || getresgid(&gr, &ge, &gs))
		return 1;
	printf("the ids stay: %d %d\n", r == ruid && e == euid && s == euid,
	       gr == rgid && ge == egid && gs == egid);
	return 0;
}

/* ---- utimensat, futimens, futimesat, utimes, utime ---- */

static void times_show(const char *what, long r, const char *path)
{
	struct stat st;

	if (r < 0) {
		printf("%s: -1 %s\n", what, strerrorname_np(errno));
		return;
	}
	if (stat(path, &st))
		return;
	printf("%s: 0, atime %ld.%09ld mtime %ld.%09ld\n", what,
	       (long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	       (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

static int utimes_case(void)
{
	struct timespec ts[2] = { { 1000, 500 }, { 2000, 600 } };
	struct timespec omit[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
	struct timespec bad[2] = { { 1, 1000000000 }, { 1, 0 } };
	struct timeval tv[2] = { { 5000, 7 }, { 6000, 8 } };
	struct utimbuf ub = { 7000, 8000 };
	const char *name = "ltpcalls.times";
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600), dir, r;

	dir = open(".", O_RDONLY | O_DIRECTORY);
	if (fd < 0 || dir < 0)
		return 1;
	times_show("utimensat", utimensat(AT_FDCWD, name, ts, 0), name);
	ts[0].tv_sec = 3000;
	ts[1].tv_sec = 4000;
	times_show("futimens", futimens(fd, ts), name);
	times_show("utimensat(fd, NULL)",
		   syscall(SYS_utimensat, fd, NULL, ts, 0), name);
	times_show("utimensat, both UTIME_OMIT on fd 400",
		   syscall(SYS_utimensat, 400, name, omit, 0), name);
	times_show("utimensat, one UTIME_OMIT",
		   utimensat(AT_FDCWD, name,
			     (struct timespec[]){ { 0, UTIME_OMIT }, { 4500, 9 } }, 0),
		   name);
	times_show("utimensat of a missing file, bad times",
		   syscall(SYS_utimensat, AT_FDCWD, "missing", 1, 0), name);
	times_show("utimensat(fd, NULL), AT_SYMLINK_NOFOLLOW",
		   syscall(SYS_utimensat, fd, NULL, ts, AT_SYMLINK_NOFOLLOW), name);
	times_show("utimensat(AT_FDCWD, NULL)",
		   syscall(SYS_utimensat, AT_FDCWD, NULL, ts, 0), name);
	times_show("utimensat(fd 400, NULL)",
		   syscall(SYS_utimensat, 400, NULL, ts, 0), name);
	times_show("utimensat, tv_nsec 10^9", utimensat(AT_FDCWD, name, bad, 0), name);
	times_show("utimensat, flag 0x4000",
		   syscall(SYS_utimensat, AT_FDCWD, name, ts, 0x4000), name);
	times_show("futimesat", syscall(SYS_futimesat, AT_FDCWD, name, tv), name);
	tv[0].tv_sec++;
	times_show("futimesat from a dirfd", syscall(SYS_futimesat, dir, name, tv), name);
	tv[0].tv_sec++;
	times_show("futimesat(fd, NULL)", syscall(SYS_futimesat, fd, NULL, tv), name);
	times_show("futimesat from a file", syscall(SYS_futimesat, fd, name, tv), name);
	times_show("futimesat from fd 100", syscall(SYS_futimesat, 100, name, tv), name);
	times_show("futimesat of a missing file",
		   syscall(SYS_futimesat, AT_FDCWD, "missing", tv), name);
	times_show("futimesat, bad times", syscall(SYS_futimesat, AT_FDCWD, name, 1), name);
	tv[1].tv_usec = 1000000;
	times_show("futimesat, tv_usec 10^6", syscall(SYS_futimesat, AT_FDCWD, name, tv), name);
	tv[1].tv_usec = -1;
	times_show("futimesat, tv_usec -1", syscall(SYS_futimesat, AT_FDCWD, name, tv), name);
	tv[1].tv_usec = 999999;
	times_show("utimes", syscall(SYS_utimes, name, tv), name);
	times_show("utime", syscall(SYS_utime, name, &ub), name);
	times_show("utime, bad times", syscall(SYS_utime, name, 1), name);
	r = syscall(SYS_futimesat, AT_FDCWD, name, NULL);
	printf("futimesat to now: %d\n", r);
	r = syscall(SYS_utimes, name, NULL);
	printf("utimes to now: %d\n", r);
	r = syscall(SYS_utime, name, NULL);
	printf("utime to now: %d\n", r);
	close(fd);
	close(dir);
	unlink(name);
	return 0;
}

/* ---- ustat and sysfs(2) ---- */

static int fsinfo_case(void)
{
	char buf[256], name0[256];
	struct stat st;
	long n, r;

	n = syscall(SYS_sysfs, 3);
	show("sysfs(3) is positive", n > 0 ? 1 : n);
	r = syscall(SYS_sysfs, 2, 0, name0);
	show("sysfs(2, 0)", r);
	show("sysfs(1) of its name", syscall(SYS_sysfs, 1, name0));
	memset(buf, 'x', sizeof(buf));
	r = syscall(SYS_sysfs, 2, n - 1, buf);
	show("sysfs(2, last)", r);
	r = syscall(SYS_sysfs, 1, buf);
	show("sysfs(1) of the last one's name", r == n - 1);
	show("sysfs(2, 0) with upper bits", syscall(SYS_sysfs, 2, 1UL << 32, buf));
	printf("the same name: %d\n", !strcmp(buf, name0));
	show("sysfs(2, past the last)", syscall(SYS_sysfs, 2, n, buf));
	show("sysfs(2, 0, NULL)", syscall(SYS_sysfs, 2, 0, NULL));
	show("sysfs(1, \"ext0\")", syscall(SYS_sysfs, 1, "ext0"));
	show("sysfs(1, \"\")", syscall(SYS_sysfs, 1, ""));
	show("sysfs(1, NULL)", syscall(SYS_sysfs, 1, NULL));
	show("sysfs(4)", syscall(SYS_sysfs, 4, 0, 0));
	show("sysfs(0)", syscall(SYS_sysfs, 0, 0, 0));
	show("sysfs(-1)", syscall(SYS_sysfs, -1, 0, 0));
	show("sysfs(3) with upper bits", syscall(SYS_sysfs, (1L << 32) | 3) == n);
	if (stat("/", &st))
		return 1;
	show("ustat of /'s device", syscall(SYS_ustat, (unsigned int)st.st_dev, buf));
	show("ustat, upper bits set",
	     syscall(SYS_ustat, (1UL << 32) | (unsigned int)st.st_dev, buf));
	show("ustat of device -1", syscall(SYS_ustat, -1, buf));
	show("ustat, a bad buffer", syscall(SYS_ustat, (unsigned int)st.st_dev, -1L));
	return 0;
}

/* ---- clone's and clone3's CLONE_PIDFD ---- */

struct c3args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls;
};

static long c3(uint64_t flags, void *pidfd, void *ptid)
{
	struct c3args ca = { .flags = flags, .pidfd = (uintptr_t)pidfd,
			     .parent_tid = (uintptr_t)ptid, .exit_signal = SIGCHLD };

	return syscall(SYS_clone3, &ca, sizeof(ca));
}

static void clonepidfd_reap_thread(int tfd)
{
	pfd_thread_gone(tfd);
}

/* The child of a CLONE_PIDFD clone: is fd @fd open in its own table? */
static void clonepidfd_child(int fd)
{
	_exit(fcntl(fd, F_GETFD) < 0 && errno == EBADF ? 40 : 41);
}

static void clonepidfd_reap(const char *what, int pidfd)
{
	struct pollfd pf = { pidfd, POLLIN, 0 };
	siginfo_t si;

	show(what, poll(&pf, 1, 5000));
	memset(&si, 0, sizeof(si));
	show("waitid(P_PIDFD)", waitid(P_PIDFD, pidfd, &si, WEXITED));
	printf("its status: %d (40: the child has no such fd)\n", si.si_status);
	close(pidfd);
}

static int clonepidfd_thread(void *arg)
{
	char c;

	return read(*(int *)arg, &c, 1) < 0;
}

/* A thread's pidfd (6.9, so from 6.12 here): PIDFD_THREAD, its end. */
static void clonepidfd_threadcase(void)
{
	static char stack[65536] __attribute__((aligned(16)));
	int q[2], tfd = -1;
	long r;

	if (!pidfs_kernel() || pipe(q))
		return;
	r = clone(clonepidfd_thread, stack + sizeof(stack),
		  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		  CLONE_THREAD | CLONE_SYSVSEM | CLONE_PIDFD, q, &tfd);
	show("clone(CLONE_THREAD | CLONE_PIDFD)", r > 0 ? 0 : r);
	if (r <= 0)
		return;
	printf("its pidfd: F_GETFL %#x\n", fcntl(tfd, F_GETFL));
	pfd_ready("a running thread", tfd, true);
	if (write(q[1], "x", 1) != 1)
		return;
	clonepidfd_reap_thread(tfd);
	close(q[0]);
	close(q[1]);
}

static int clonepidfd_case(void)
{
	int pidfd = -1, expect, ptid = 0;
	long r;

	expect = dup(0);
	close(expect);
	r = c3(CLONE_PIDFD, &pidfd, NULL);
	if (r == 0)
		clonepidfd_child(expect);
	show("clone3(CLONE_PIDFD)", r > 0 ? 0 : r);
	printf("the pidfd: the lowest free fd %d, close-on-exec %d, F_GETFL %#x\n",
	       pidfd == expect, fcntl(pidfd, F_GETFD), fcntl(pidfd, F_GETFL));
	if (r > 0)
		clonepidfd_reap("poll until the child exits", pidfd);
	r = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &pidfd, 0, 0);
	if (r == 0)
		clonepidfd_child(expect);
	show("clone(CLONE_PIDFD)", r > 0 ? 0 : r);
	printf("the pidfd: the lowest free fd %d\n", pidfd == expect);
	if (r > 0)
		clonepidfd_reap("poll until the child exits", pidfd);
	r = c3(CLONE_PIDFD | CLONE_PARENT_SETTID, &pidfd, &ptid);
	if (r == 0)
		_exit(0);
	show("clone3(CLONE_PIDFD | CLONE_PARENT_SETTID)", r > 0 ? 0 : r);
	printf("parent_tid is the pid %d\n", r > 0 && ptid == r);
	if (r > 0)
		clonepidfd_reap("poll until the child exits", pidfd);
	show("clone3, the pidfd at parent_tid's place",
	     c3(CLONE_PIDFD | CLONE_PARENT_SETTID, &pidfd, &pidfd));
	show("clone, CLONE_PIDFD with CLONE_PARENT_SETTID",
	     syscall(SYS_clone, CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD, 0,
		     &pidfd, 0, 0));
	show("clone, CLONE_PIDFD with CLONE_DETACHED",
	     syscall(SYS_clone, CLONE_PIDFD | CLONE_DETACHED | SIGCHLD, 0,
		     &pidfd, 0, 0));
	show("clone3(CLONE_PIDFD), a bad pidfd address", c3(CLONE_PIDFD, (void *)1, NULL));
	show("then no child is there", waitpid(-1, NULL, WNOHANG));
	r = dup(0);
	printf("and no fd was left: %d\n", r == expect);
	close(r);
	clonepidfd_threadcase();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "pipesz"))
		return pipesz();
	if (argc == 2 && !strcmp(argv[1], "locks"))
		return locks();
	if (argc == 2 && !strcmp(argv[1], "preadv"))
		return preadv_case();
	if (argc == 2 && !strcmp(argv[1], "args"))
		return args_case();
	if (argc == 2 && !strcmp(argv[1], "sigwait"))
		return sigwait_case();
	if (argc == 2 && !strcmp(argv[1], "zombie"))
		return zombie_case();
	if (argc == 2 && !strcmp(argv[1], "fadvise"))
		return fadvise_case();
	if (argc == 3 && !strcmp(argv[1], "xferloop"))
		return xferloop_case(atof(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "execpgid"))
		return execpgid_case(argv[0]);
	if (argc == 2 && !strcmp(argv[1], "sockets"))
		return sockets_case();
	if (argc == 2 && !strcmp(argv[1], "opath"))
		return opath_case();
	if (argc == 2 && !strcmp(argv[1], "bigio"))
		return bigio_case();
	if (argc == 2 && !strcmp(argv[1], "tidkill"))
		return tidkill_case();
	if (argc == 2 && !strcmp(argv[1], "ignchld"))
		return ignchld_case();
	if (argc == 2 && !strcmp(argv[1], "emptyargv"))
		return emptyargv_case(argv[0]);
	if (argc == 2 && !strcmp(argv[1], "recvargs"))
		return recvargs_case();
	if (argc == 2 && !strcmp(argv[1], "sockopt"))
		return sockopt_case();
	if (argc == 2 && !strcmp(argv[1], "mmapargs"))
		return mmapargs_case();
	if (argc == 2 && !strcmp(argv[1], "unixsend"))
		return unixsend_case();
	if (argc == 2 && !strcmp(argv[1], "rasync"))
		return rasync_case();
	if (argc == 2 && !strcmp(argv[1], "securebits"))
		return securebits_case(argv[0]);
	if (argc == 2 && !strcmp(argv[1], "pidfd"))
		return pidfd_case();
	if (argc == 2 && !strcmp(argv[1], "reids"))
		return reids_case();
	if (argc == 2 && !strcmp(argv[1], "utimes"))
		return utimes_case();
	if (argc == 2 && !strcmp(argv[1], "fsinfo"))
		return fsinfo_case();
	if (argc == 2 && !strcmp(argv[1], "clonepidfd"))
		return clonepidfd_case();
	if (argc == 2 && !strcmp(argv[1], "securebits-exec")) {
		show("after execve, PR_GET_SECUREBITS", prctl(PR_GET_SECUREBITS));
		return 0;
	}
	if (getenv("EMPTYARGV")) {
		printf("argc %d, argv[0] '%s'\n", argc, argc ? argv[0] : "(none)");
		return argc;
	}
	if (argc == 3 && !strcmp(argv[1], "execpgid-child")) {
		if (write(atoi(argv[2]), "x", 1) != 1)
			return 1;
		pause();
		return 0;
	}
	fprintf(stderr, "usage: ltpcalls pipesz|locks|preadv|args|sigwait|zombie|fadvise|execpgid|sockets|opath|emptyargv|bigio|tidkill|ignchld|recvargs|sockopt|mmapargs|securebits|unixsend|rasync|pidfd|reids|utimes|fsinfo|clonepidfd\n");
	return 2;
}
