// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calls real programs and LTP make that umlrun once lacked: each
 * part prints one line per check, the call's result or its errno's
 * name, so that cases.sh compares the output natively and under umlrun
 * (the kernel's answers are the expectation).  Usage: calls PART, PART
 * one of signalfd, clone3, clone3-guest (what differs in a guest), cpu,
 * memfd, close_range, mlock, cpuclock, pty, ifconf, xattr, iflags (these
 * two need a writable cwd).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <linux/fs.h>
#include <linux/random.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <net/if.h>
#include <sys/xattr.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* "name: value", or "name: ENAME" for a failed call. */
static void show(const char *name, long r)
{
	if (r == -1)
		printf("%s: %s\n", name, strerrorname_np(errno));
	else
		printf("%s: %ld\n", name, r);
}

static void val(const char *name, long v)
{
	printf("%s: %ld\n", name, v);
}

static void yes(const char *name, int cond)
{
	printf("%s: %s\n", name, cond ? "yes" : "NO");
}

/* ---- signalfd ---- */

static long sfd4(int fd, const void *mask, size_t size, int flags)
{
	return syscall(SYS_signalfd4, fd, mask, size, flags);
}

/* Read one record from @fd; its signo, or -1 with errno. */
static long sfd_read(int fd, struct signalfd_siginfo *si)
{
	ssize_t r = read(fd, si, sizeof(*si));

	if (r < 0)
		return -1;
	return r == sizeof(*si) ? (long)si->ssi_signo : -2;
}

static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void part_signalfd(void)
{
	struct signalfd_siginfo si[4];
	struct epoll_event ev = { .events = EPOLLIN };
	struct timeval tv = { 0, 0 };
	sigset_t m, m2, pend;
	int sfd, bfd, ep, st, p[2];
	union sigval v = { .sival_int = 42 };
	fd_set rs;
	pid_t pid;
	ssize_t n;

	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigaddset(&m, SIGRTMIN);
	sigaddset(&m, SIGKILL);		/* silently dropped, as by the kernel */
	sigprocmask(SIG_BLOCK, &m, NULL);
	sigaddset(&m, SIGUSR2);
	sigprocmask(SIG_BLOCK, &m, NULL);
	sigdelset(&m, SIGUSR2);

	sfd = signalfd(-1, &m, SFD_NONBLOCK | SFD_CLOEXEC);
	yes("signalfd: an fd", sfd >= 0);
	show("F_GETFD", fcntl(sfd, F_GETFD));
	yes("F_GETFL has O_NONBLOCK", fcntl(sfd, F_GETFL) & O_NONBLOCK);
	show("read, nothing pending", sfd_read(sfd, si));
	yes("poll, nothing pending: not readable", !readable(sfd));

	kill(getpid(), SIGUSR1);
	yes("poll after kill: readable", readable(sfd));
	FD_ZERO(&rs);
	FD_SET(sfd, &rs);
	show("select", select(sfd + 1, &rs, NULL, NULL, &tv));
	ep = epoll_create1(0);
	show("epoll_ctl", epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev));
	show("epoll_wait", epoll_wait(ep, &ev, 1, 0));
	sigqueue(getpid(), SIGRTMIN, v);
	v.sival_int = 43;
	sigqueue(getpid(), SIGRTMIN, v);
	n = read(sfd, si, sizeof(si));
	show("read of 4 records: bytes", n);
	val("first signo", si[0].ssi_signo);
	val("first code (SI_USER)", si[0].ssi_code);
	yes("first pid is ours", si[0].ssi_pid == (uint32_t)getpid());
	yes("first uid is ours", si[0].ssi_uid == getuid());
	val("second signo", si[1].ssi_signo - SIGRTMIN);
	val("second code (SI_QUEUE)", si[1].ssi_code);
	val("second int", si[1].ssi_int);
	val("third int", si[2].ssi_int);
	show("read, all taken", sfd_read(sfd, si));
	show("epoll_wait, all taken", epoll_wait(ep, &ev, 1, 0));
	yes("poll, all taken: not readable", !readable(sfd));
	{
		struct pollfd pw = { .fd = sfd, .events = POLLOUT };
		struct epoll_event ew = { .events = EPOLLOUT };
		int epw = epoll_create1(0);

		show("poll for POLLOUT", poll(&pw, 1, 0));
		FD_ZERO(&rs);
		FD_SET(sfd, &rs);
		show("select for writing", select(sfd + 1, NULL, &rs, NULL, &tv));
		epoll_ctl(epw, EPOLL_CTL_ADD, sfd, &ew);
		show("epoll for EPOLLOUT", epoll_wait(epw, &ew, 1, 0));
		close(epw);
	}
	show("read of 100 bytes", read(sfd, si, 100));
	show("write", write(sfd, si, sizeof(si[0])));
	pipe(p);
	kill(getpid(), SIGUSR1);
	show("sendfile from it", sendfile(p[1], sfd, NULL, sizeof(si[0])));
	show("splice from it", splice(sfd, NULL, p[1], NULL, sizeof(si[0]), 0));
	show("... the signal is still there", sfd_read(sfd, si));
	close(p[0]);
	close(p[1]);

	/* A new mask for the same fd: its own signals only. */
	sigemptyset(&m2);
	sigaddset(&m2, SIGUSR2);
	yes("signalfd on itself returns it", signalfd(sfd, &m2, 0) == sfd);
	yes("... flags stay", fcntl(sfd, F_GETFL) & O_NONBLOCK);
	kill(getpid(), SIGUSR1);
	show("read, SIGUSR1 no longer in the mask", sfd_read(sfd, si));
	sigpending(&pend);
	yes("SIGUSR1 stays pending", sigismember(&pend, SIGUSR1));
	raise(SIGUSR2);
	show("read after raise(SIGUSR2)", sfd_read(sfd, si));
	val("its code (SI_TKILL)", si[0].ssi_code);
	signalfd(sfd, &m, 0);
	show("read of the SIGUSR1 left", sfd_read(sfd, si));

	/* A blocking read waits for a signal from another process. */
	bfd = signalfd(-1, &m, 0);
	pid = fork();
	if (pid == 0) {
		usleep(50000);
		kill(getppid(), SIGUSR1);
		_exit(0);
	}
	show("blocking read", sfd_read(bfd, si));
	yes("its pid is the child's", si[0].ssi_pid == (uint32_t)pid);
	waitpid(pid, &st, 0);

	/* Inherited by fork, a signalfd reads the reader's signals. */
	signalfd(sfd, &m2, 0);
	kill(getpid(), SIGUSR2);
	pipe(p);
	pid = fork();
	if (pid == 0) {
		long a, b;

		a = sfd_read(sfd, si);
		kill(getpid(), SIGUSR2);
		b = sfd_read(sfd, si);
		_exit(a == -1 && errno == EAGAIN && b == SIGUSR2 ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	show("child: EAGAIN, then its own signal", WEXITSTATUS(st));
	show("parent: its signal is still there", sfd_read(sfd, si));

	/* readv: a record per iovec here (6.1 reads each with its own read). */
	{
		struct iovec iov[2] = { { &si[0], sizeof(si[0]) },
					{ &si[2], sizeof(si[0]) } };

		signalfd(sfd, &m, 0);
		v.sival_int = 7;
		sigqueue(getpid(), SIGRTMIN, v);
		v.sival_int = 8;
		sigqueue(getpid(), SIGRTMIN, v);
		show("readv of two records", readv(sfd, iov, 2));
		val("their values", si[0].ssi_int * 10 + si[2].ssi_int);
		show("readv, none left", readv(sfd, iov, 2));
	}

	/* Bad input, in the kernel's order. */
	show("flags 0x1234", sfd4(-1, &m, 8, 0x1234));
	show("sizemask 4", sfd4(-1, &m, 4, 0));
	show("sizemask 16", sfd4(-1, &m, 16, 0));
	show("bad mask pointer", sfd4(-1, (void *)8, 8, 0));
	show("bad mask pointer, bad flags", sfd4(-1, (void *)8, 8, 0x1234));
	show("fd 999", sfd4(999, &m, 8, 0));
	show("fd of a pipe", sfd4(p[0], &m, 8, 0));
	show("signalfd, sizemask 4", syscall(SYS_signalfd, -1, &m, 4));
	show("fd -2", sfd4(-2, &m, 8, 0));
	close(sfd);
	close(bfd);
	close(ep);
}

/* ---- clone3 ---- */

static long clone3_raw(void *args, size_t size)
{
	return syscall(SYS_clone3, args, size);
}

/*
 * clone3 whose child runs fn(arg) on its own stack and ends with exit
 * (not exit_group) and fn's value: raw, as glibc's clone3 wrapper is.
 */
static long clone3_fn(struct clone_args *ca, int (*fn)(void *), void *arg)
{
	register long rax asm("rax") = SYS_clone3;
	register void *rdi asm("rdi") = ca;
	register long rsi asm("rsi") = sizeof(*ca);
	register void *r12 asm("r12") = (void *)fn;
	register void *r13 asm("r13") = arg;

	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "xor %%ebp, %%ebp\n\t"
		     "mov %%r13, %%rdi\n\t"
		     "call *%%r12\n\t"
		     "mov %%eax, %%edi\n\t"
		     "mov $60, %%eax\n\t"
		     "syscall\n\t"
		     "hlt\n"
		     "1:"
		     : "+r"(rax)
		     : "r"(rdi), "r"(rsi), "r"(r12), "r"(r13)
		     : "rcx", "r11", "memory");
	if (rax < 0) {
		errno = -rax;
		return -1;
	}
	return rax;
}

static volatile int shared_word;
static uint64_t want_fs;

/* A thread's body: no libc (its TLS is the creator's). */
static int thread_fn(void *arg)
{
	uint64_t fs;

	asm volatile("mov %%fs:0, %0" : "=r"(fs));
	shared_word = fs == want_fs ? 1 : 2;
	(void)arg;
	return 0;
}

static int vm_child_fn(void *arg)
{
	shared_word = (int)(long)arg;
	return 5;
}

static char child_stack[65536] __attribute__((aligned(16)));

static void part_clone3(void)
{
	struct clone_args ca;
	char big[4200];
	uint32_t ptid = 0, ctid = 0, v;
	int32_t tids[2] = { 0, 0 };
	long pid;
	int st;

	memset(&ca, 0, sizeof(ca));
	memset(big, 0, sizeof(big));
	ca.exit_signal = SIGCHLD;
	show("size 0", clone3_raw(&ca, 0));
	show("size 63", clone3_raw(&ca, 63));
	show("size 4097", clone3_raw(big, 4097));
	show("bad pointer", clone3_raw((void *)8, sizeof(ca)));
	memcpy(big, &ca, sizeof(ca));
	big[100] = 1;
	show("non-zero byte past the struct", clone3_raw(big, 104));
	ca.flags = SIGCHLD;
	show("CSIGNAL bits in flags", clone3_raw(&ca, sizeof(ca)));
	ca.flags = 1ULL << 40;
	show("unknown flag", clone3_raw(&ca, sizeof(ca)));
	ca.flags = CLONE_DETACHED;
	show("CLONE_DETACHED", clone3_raw(&ca, sizeof(ca)));
	ca.flags = 0;
	ca.exit_signal = 65;
	show("exit_signal 65", clone3_raw(&ca, sizeof(ca)));
	ca.exit_signal = (1ULL << 32) | SIGCHLD;
	show("exit_signal with high bits", clone3_raw(&ca, sizeof(ca)));
	ca.exit_signal = SIGCHLD;
	ca.stack = (uintptr_t)child_stack;
	show("stack without a size", clone3_raw(&ca, sizeof(ca)));
	ca.stack = 0;
	ca.stack_size = 4096;
	show("a size without a stack", clone3_raw(&ca, sizeof(ca)));
	ca.stack_size = 0;
	ca.flags = CLONE_VM | CLONE_SIGHAND | CLONE_THREAD;
	show("CLONE_THREAD with an exit signal", clone3_raw(&ca, sizeof(ca)));
	ca.flags = CLONE_PARENT;
	show("CLONE_PARENT with an exit signal", clone3_raw(&ca, sizeof(ca)));
	ca.flags = CLONE_VM | CLONE_SIGHAND | CLONE_CLEAR_SIGHAND;
	show("CLONE_SIGHAND | CLONE_CLEAR_SIGHAND", clone3_raw(&ca, sizeof(ca)));
	ca.flags = CLONE_THREAD;
	ca.exit_signal = 0;
	show("CLONE_THREAD without CLONE_SIGHAND", clone3_raw(&ca, sizeof(ca)));
	ca.exit_signal = SIGCHLD;
	ca.flags = CLONE_INTO_CGROUP;
	ca.cgroup = 1ULL << 32;
	show("CLONE_INTO_CGROUP, cgroup past INT_MAX", clone3_raw(&ca, sizeof(ca)));
	ca.cgroup = 3;
	show("CLONE_INTO_CGROUP, size without cgroup", clone3_raw(&ca, 80));
	ca.flags = 0;
	ca.set_tid_size = 1;
	show("set_tid_size without set_tid", clone3_raw(&ca, sizeof(ca)));
	ca.set_tid = (uintptr_t)tids;
	ca.set_tid_size = 0;
	show("set_tid without a size", clone3_raw(&ca, sizeof(ca)));
	ca.set_tid_size = 33;
	show("set_tid_size 33", clone3_raw(&ca, sizeof(ca)));
	ca.set_tid_size = 2;
	show("set_tid_size 2: one pid namespace", clone3_raw(&ca, sizeof(ca)));
	ca.set_tid_size = 1;
	show("set_tid 0", clone3_raw(&ca, sizeof(ca)));
	tids[0] = getpid();
	show("set_tid of a pid in use", clone3_raw(&ca, sizeof(ca)));
	ca.set_tid = 8;
	show("set_tid bad pointer", clone3_raw(&ca, sizeof(ca)));
	ca.set_tid = ca.set_tid_size = 0;

	/* A fork, with both tids and an ignored cgroup, VER0 to VER2 sizes. */
	ca.flags = CLONE_PARENT_SETTID | CLONE_CHILD_SETTID;
	ca.parent_tid = (uintptr_t)&ptid;
	ca.child_tid = (uintptr_t)&ctid;
	ca.cgroup = 12345;
	pid = clone3_raw(&ca, sizeof(ca));
	if (pid == 0)
		_exit(ctid == (uint32_t)getpid() ? 7 : 1);
	yes("fork: a pid", pid > 0);
	yes("fork: parent_tid", ptid == (uint32_t)pid);
	yes("fork: waited", waitpid(pid, &st, 0) == pid);
	show("fork: child saw its child_tid, status", WEXITSTATUS(st));
	memcpy(big, &ca, sizeof(ca));
	big[100] = 0;
	ca.flags = 0;
	memcpy(big, &ca, sizeof(ca));
	pid = clone3_raw(big, 104);
	if (pid == 0)
		_exit(3);
	yes("a larger struct, zero past ours", pid > 0 && waitpid(pid, &st, 0) == pid &&
	    WEXITSTATUS(st) == 3);
	pid = clone3_raw(&ca, 64);
	if (pid == 0)
		_exit(4);
	yes("CLONE_ARGS_SIZE_VER0", pid > 0 && waitpid(pid, &st, 0) == pid &&
	    WEXITSTATUS(st) == 4);
	ca.exit_signal = 0;
	pid = clone3_raw(&ca, sizeof(ca));
	if (pid == 0)
		_exit(6);
	show("exit_signal 0: plain waitpid", waitpid(pid, &st, WNOHANG) == pid ? 1 :
	     waitpid(pid, &st, 0));
	yes("... __WALL finds it", waitpid(pid, &st, __WALL) == pid &&
	    WEXITSTATUS(st) == 6);

	/* CLONE_VM | CLONE_VFORK on a stack of its own. */
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_VM | CLONE_VFORK;
	ca.exit_signal = SIGCHLD;
	ca.stack = (uintptr_t)child_stack;
	ca.stack_size = sizeof(child_stack);
	shared_word = 0;
	pid = clone3_fn(&ca, vm_child_fn, (void *)41L);
	show("vfork on a stack: the parent sees the child's write", shared_word);
	yes("... and its status", waitpid(pid, &st, 0) == pid && WEXITSTATUS(st) == 5);

	/* A thread: TLS, parent_tid, child_tid cleared at its exit. */
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		   CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
		   CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	ca.stack = (uintptr_t)child_stack;
	ca.stack_size = sizeof(child_stack);
	asm volatile("mov %%fs:0, %0" : "=r"(want_fs));
	ca.tls = want_fs;
	ca.parent_tid = (uintptr_t)&ptid;
	ca.child_tid = (uintptr_t)&ctid;
	ctid = 1;
	shared_word = 0;
	pid = clone3_fn(&ca, thread_fn, NULL);
	yes("thread: a tid", pid > 0);
	yes("thread: parent_tid", ptid == (uint32_t)pid);
	/* One read: a wait for 0 once the thread cleared it would not end. */
	while (pid > 0 && (v = __atomic_load_n(&ctid, __ATOMIC_RELAXED)) != 0)
		syscall(SYS_futex, &ctid, FUTEX_WAIT, v, NULL, NULL, 0);
	show("thread: ran with its TLS (1)", shared_word);
}

/* ---- CPUs: what the guest is told agrees everywhere ---- */

static int cpus_in_list(const char *path)
{
	char buf[256], *s = buf, *end;
	int n = 0;
	long a, b;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	while (*s && *s != '\n') {
		a = strtol(s, &end, 10);
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		n += b - a + 1;
		s = *end == ',' ? end + 1 : end;
		if (end == s && *s != ',')
			break;
	}
	return n;
}

static int cpuinfo_cpus(void)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strncmp(line, "processor\t:", 11) == 0;
	fclose(f);
	return n;
}

static void part_cpu(void)
{
	cpu_set_t all, one, got;
	unsigned int cpu = 999, node = 999;
	int n, first;
	long r;

	r = sched_getaffinity(0, sizeof(all), &all);
	n = CPU_COUNT(&all);
	yes("sched_getaffinity: some CPUs", r == 0 && n > 0);
	yes("/proc/cpuinfo agrees", cpuinfo_cpus() == n);
	yes("/sys/devices/system/cpu/online agrees",
	    cpus_in_list("/sys/devices/system/cpu/online") == n);
	yes("/sys/devices/system/cpu/possible agrees",
	    cpus_in_list("/sys/devices/system/cpu/possible") == n);
	yes("/sys/devices/system/cpu/present agrees",
	    cpus_in_list("/sys/devices/system/cpu/present") == n);
	yes("sysconf(_SC_NPROCESSORS_ONLN) agrees", sysconf(_SC_NPROCESSORS_ONLN) == n);
	yes("sysconf(_SC_NPROCESSORS_CONF) agrees", sysconf(_SC_NPROCESSORS_CONF) == n);
	show("getcpu", syscall(SYS_getcpu, &cpu, &node, NULL));
	yes("getcpu: a CPU of the mask", cpu < CPU_SETSIZE && CPU_ISSET(cpu, &all));
	show("getcpu, no pointers", syscall(SYS_getcpu, NULL, NULL, NULL));
	show("getcpu, bad cpu pointer", syscall(SYS_getcpu, 8, NULL, NULL));
	show("getcpu, bad node pointer", syscall(SYS_getcpu, NULL, 8, NULL));

	/* The kernel's raw call returns the bytes it wrote. */
	r = syscall(SYS_sched_getaffinity, 0, sizeof(got), &got);
	yes("raw sched_getaffinity: whole longs", r > 0 && r % 8 == 0);
	show("getaffinity, size 0", syscall(SYS_sched_getaffinity, 0, 0, &got));
	show("getaffinity, size 4", syscall(SYS_sched_getaffinity, 0, 4, &got));
	show("getaffinity, size 12", syscall(SYS_sched_getaffinity, 0, 12, &got));
	show("getaffinity, bad pointer", syscall(SYS_sched_getaffinity, 0, 128, 8));
	show("getaffinity, no such pid", syscall(SYS_sched_getaffinity, 999999, 128, &got));
	show("getaffinity, no such pid, size 4",
	     syscall(SYS_sched_getaffinity, 999999, 4, &got));
	show("getaffinity of our own pid", sched_getaffinity(getpid(), sizeof(got), &got));

	/* setaffinity: only CPUs that are there; the mask sticks. */
	for (first = 0; !CPU_ISSET(first, &all); first++)
		;
	CPU_ZERO(&one);
	CPU_SET(CPU_SETSIZE - 1, &one);
	show("setaffinity, no CPU that is there", sched_setaffinity(0, sizeof(one), &one));
	CPU_ZERO(&one);
	show("setaffinity, empty", sched_setaffinity(0, sizeof(one), &one));
	show("setaffinity, size 0", syscall(SYS_sched_setaffinity, 0, 0, &all));
	show("setaffinity, bad pointer", syscall(SYS_sched_setaffinity, 0, 128, 8));
	show("setaffinity, no such pid", sched_setaffinity(999999, sizeof(all), &all));
	CPU_SET(first, &one);
	CPU_SET(CPU_SETSIZE - 1, &one);
	show("setaffinity, the first CPU and one not there",
	     sched_setaffinity(0, sizeof(one), &one));
	sched_getaffinity(0, sizeof(got), &got);
	yes("... reads back as the first CPU", CPU_COUNT(&got) == 1 && CPU_ISSET(first, &got));
	syscall(SYS_getcpu, &cpu, NULL, NULL);
	yes("... where getcpu says it runs", cpu == (unsigned int)first);
	show("setaffinity, size 4", syscall(SYS_sched_setaffinity, 0, 4, &one));
	if (fork() == 0) {
		sched_getaffinity(0, sizeof(got), &got);
		_exit(CPU_COUNT(&got) == 1 && CPU_ISSET(first, &got) ? 0 : 1);
	}
	wait(&n);
	show("a fork child inherits the mask", WEXITSTATUS(n));
	show("setaffinity back to all", sched_setaffinity(0, sizeof(all), &all));
	sched_getaffinity(0, sizeof(got), &got);
	yes("... all again", CPU_EQUAL(&got, &all));
}

/* ---- memfd_create ---- */

static void part_memfd(void)
{
	char name[300], buf[64], link[64];
	struct stat st;
	int fd, fd2, w;
	char *m;
	ssize_t n;

	fd = memfd_create("calls", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	yes("memfd_create: an fd", fd >= 0);
	show("F_GETFD", fcntl(fd, F_GETFD));
	show("F_GETFL & O_ACCMODE", fcntl(fd, F_GETFL) & O_ACCMODE);
	snprintf(buf, sizeof(buf), "/proc/self/fd/%d", fd);
	n = readlink(buf, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = 0;
	printf("its /proc/self/fd link: %s\n", link);
	show("ftruncate", ftruncate(fd, 4096));
	show("fstat size", fstat(fd, &st) ? -1 : st.st_size);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	yes("mmap MAP_SHARED", m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	if (fork() == 0) {
		strcpy(m, "from the child");
		_exit(0);
	}
	wait(&w);
	yes("the parent sees the child's write in the mapping",
	    strcmp(m, "from the child") == 0);
	yes("... and in the file", pread(fd, buf, 14, 0) == 14 &&
	    memcmp(buf, "from the child", 14) == 0);
	show("F_SEAL_WRITE while mapped shared", fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE));
	munmap(m, 4096);
	show("F_ADD_SEALS grow, shrink", fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK));
	show("F_GET_SEALS", fcntl(fd, F_GET_SEALS));
	show("ftruncate, sealed", ftruncate(fd, 0));
	show("write past the end, sealed", pwrite(fd, "x", 1, 4096));
	show("write inside", pwrite(fd, "x", 1, 0));
	show("F_ADD_SEALS seal", fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL));
	show("F_ADD_SEALS after F_SEAL_SEAL", fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE));
	fd2 = memfd_create("plain", 0);
	show("without MFD_CLOEXEC: F_GETFD", fcntl(fd2, F_GETFD));
	show("without MFD_ALLOW_SEALING: F_GET_SEALS", fcntl(fd2, F_GET_SEALS));
	show("... F_ADD_SEALS", fcntl(fd2, F_ADD_SEALS, F_SEAL_GROW));
	show("F_GET_SEALS on stdin", fcntl(0, F_GET_SEALS));
	show("F_ADD_SEALS on a closed fd", fcntl(999, F_ADD_SEALS, F_SEAL_GROW));
	memset(name, 'n', sizeof(name));
	name[249] = 0;
	w = memfd_create(name, 0);
	yes("a name of 249 bytes", w >= 0);
	close(w);
	name[249] = 'n';
	name[250] = 0;
	show("a name of 250 bytes", memfd_create(name, 0));
	show("unknown flag 0x100", memfd_create("x", 0x100));
	show("bad name pointer", syscall(SYS_memfd_create, 8, 0));
	show("bad name pointer, unknown flag", syscall(SYS_memfd_create, 8, 0x100));
	close(fd);
	close(fd2);
}

/* ---- close_range ---- */

static int cr_child(void *arg)
{
	(void)arg;
	syscall(SYS_close_range, 26, 26, 0);
	syscall(SYS_close_range, 25, 25, CLOSE_RANGE_UNSHARE);
	return fcntl(25, F_GETFD) == -1 ? 0 : 1;
}

static void part_close_range(void)
{
	struct clone_args ca;
	int i, st = -1;
	long pid;

	for (i = 20; i < 28; i++)
		dup2(0, i);
	show("close_range 21 to 22", close_range(21, 22, 0));
	show("fd 21 then", fcntl(21, F_GETFD));
	show("fd 22 then", fcntl(22, F_GETFD));
	show("fd 23 then", fcntl(23, F_GETFD));
	show("CLOEXEC 27 to ~0", close_range(27, ~0U, CLOSE_RANGE_CLOEXEC));
	show("fd 27 then", fcntl(27, F_GETFD));
	show("fd 20 then", fcntl(20, F_GETFD));
	show("first > last", close_range(5, 4, 0));
	show("unknown flag", close_range(30, 31, 8));
	show("past the table", close_range(5000, 6000, 0));
	show("past the table, CLOEXEC", close_range(5000, ~0U, CLOSE_RANGE_CLOEXEC));
	show("UNSHARE", close_range(24, 24, CLOSE_RANGE_UNSHARE));
	show("fd 24 then", fcntl(24, F_GETFD));
	show("upper bits of the fds", syscall(SYS_close_range, (1UL << 32) | 23, 23, 0));
	show("fd 23 then", fcntl(23, F_GETFD));

	/* A CLONE_FILES sharer: UNSHARE closes in its own copy only. */
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_VM | CLONE_FILES | CLONE_VFORK;
	ca.exit_signal = SIGCHLD;
	ca.stack = (uintptr_t)child_stack;
	ca.stack_size = sizeof(child_stack);
	pid = clone3_fn(&ca, cr_child, NULL);
	yes("a CLONE_FILES child", pid > 0 && waitpid(pid, &st, 0) == pid);
	show("... its fd 25 was closed", WEXITSTATUS(st));
	show("... ours is open (UNSHARE)", fcntl(25, F_GETFD));
	show("... ours 26 is closed (shared)", fcntl(26, F_GETFD));
	show("close_range 20 to ~0", close_range(20, ~0U, 0));
	show("fd 20 then", fcntl(20, F_GETFD));
	show("fd 27 then", fcntl(27, F_GETFD));
}

/* ---- extended attributes ---- */

static void show_list(const char *name, const char *list, long n)
{
	long i;

	printf("%s:", name);
	for (i = 0; i < n; i += strlen(list + i) + 1)
		printf(" %s", list + i);
	printf("\n");
}

static char bigvalue[65537];

/*
 * trusted.* and security.* need CAP_SYS_ADMIN, whatever the runtime's
 * own powers: a child drops it (as root it has it; a non-root user has
 * it neither natively nor as a guest).
 */
static void xattr_unprivileged(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	char buf[64], list[256];
	int st;
	long n;

	show("setxattr trusted.t", setxattr("xf", "trusted.t", "1", 1, 0));
	if (fork() == 0) {
		syscall(SYS_capget, &h, d);
		d[0].effective &= ~(1U << 21);	/* CAP_SYS_ADMIN */
		syscall(SYS_capset, &h, d);
		show("without CAP_SYS_ADMIN: getxattr trusted.t",
		     getxattr("xf", "trusted.t", buf, sizeof(buf)));
		show("... setxattr trusted.u", setxattr("xf", "trusted.u", "1", 1, 0));
		show("... removexattr trusted.t", removexattr("xf", "trusted.t"));
		show("... setxattr security.u", setxattr("xf", "security.u", "1", 1, 0));
		n = listxattr("xf", list, sizeof(list));
		show_list("... listxattr", list, n);
		_exit(0);
	}
	wait(&st);
	n = listxattr("xf", list, sizeof(list));
	show_list("with it: listxattr", list, n);
	removexattr("xf", "trusted.t");
}

static void part_xattr(void)
{
	void *volatile bad = (void *)8;
	char buf[128], list[256], longname[300];
	long r;
	int fd, pfd;

	unlink("xf");
	unlink("xl");
	fd = open("xf", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || symlink("xf", "xl")) {
		puts("xattr: no writable cwd");
		return;
	}
	r = setxattr("xf", "user.a", "1", 1, 0);
	if (r < 0 && errno == EOPNOTSUPP) {
		puts("xattr: user.* not supported here");
		return;
	}
	show("setxattr", r);
	show("XATTR_CREATE, there", setxattr("xf", "user.a", "2", 1, XATTR_CREATE));
	show("XATTR_REPLACE, missing", setxattr("xf", "user.b", "2", 1, XATTR_REPLACE));
	show("setxattr user.b", setxattr("xf", "user.b", "hello", 5, 0));
	show("setxattr, empty value", setxattr("xf", "user.e", "", 0, 0));
	show("getxattr, size 0", getxattr("xf", "user.b", NULL, 0));
	memset(buf, 0, sizeof(buf));
	show("getxattr", getxattr("xf", "user.b", buf, sizeof(buf)));
	printf("its value: %s\n", buf);
	show("getxattr, empty value", getxattr("xf", "user.e", buf, sizeof(buf)));
	show("getxattr, buffer too small", getxattr("xf", "user.b", buf, 2));
	show("getxattr, missing", getxattr("xf", "user.zz", buf, sizeof(buf)));
	show("getxattr, no such file", getxattr("nofile", "user.a", buf, sizeof(buf)));
	show("getxattr, bad value pointer", getxattr("xf", "user.b", bad, 64));
	show("getxattr, bad name pointer", getxattr("xf", bad, buf, 64));
	show("getxattr, bad path pointer", syscall(SYS_getxattr, 8, "user.a", buf, 64));
	show("getxattr, empty name", getxattr("xf", "", buf, 64));
	memset(longname, 'n', sizeof(longname));
	memcpy(longname, "user.", 5);
	longname[256] = 0;
	show("getxattr, 256-byte name", getxattr("xf", longname, buf, 64));
	longname[255] = 0;
	show("getxattr, 255-byte name", getxattr("xf", longname, buf, 64));
	show("getxattr, unknown namespace", getxattr("xf", "foo.bar", buf, 64));
	show("getxattr, a directory", getxattr(".", "user.a", buf, 64));
	r = listxattr("xf", list, sizeof(list));
	show("listxattr", r);
	show_list("its names", list, r);
	show("listxattr, size 0", listxattr("xf", NULL, 0));
	show("listxattr, buffer too small", listxattr("xf", list, 3));
	show("listxattr, bad pointer", listxattr("xf", bad, sizeof(list)));
	show("listxattr, no such file", listxattr("nofile", list, sizeof(list)));
	show("getxattr through the symlink", getxattr("xl", "user.a", buf, 64));
	show("lgetxattr of the symlink", lgetxattr("xl", "user.a", buf, 64));
	show("lsetxattr of the symlink", lsetxattr("xl", "user.a", "1", 1, 0));
	show("llistxattr of the symlink", llistxattr("xl", list, sizeof(list)));
	show("lremovexattr of the symlink", lremovexattr("xl", "user.a"));
	show("fgetxattr", fgetxattr(fd, "user.a", buf, 64));
	show("fsetxattr", fsetxattr(fd, "user.c", "x", 1, 0));
	show("flistxattr", flistxattr(fd, list, sizeof(list)));
	show("fremovexattr", fremovexattr(fd, "user.c"));
	show("fremovexattr, gone", fremovexattr(fd, "user.c"));
	show("fgetxattr, fd 999", fgetxattr(999, "user.a", buf, 64));
	show("fsetxattr, fd 999", fsetxattr(999, "user.a", "1", 1, 0));
	show("flistxattr, fd 999", flistxattr(999, list, sizeof(list)));
	show("fremovexattr, fd 999", fremovexattr(999, "user.a"));
	show("setxattr, flags 4", setxattr("xf", "user.a", "1", 1, 4));
	show("setxattr, size 65537", setxattr("xf", "user.a", bigvalue, sizeof(bigvalue), 0));
	show("setxattr, bad value pointer", setxattr("xf", "user.a", bad, 4, 0));
	show("setxattr, bad name pointer", setxattr("xf", bad, "1", 1, 0));
	show("setxattr, no such file", setxattr("nofile", "user.a", "1", 1, 0));
	show("removexattr", removexattr("xf", "user.a"));
	show("removexattr, gone", removexattr("xf", "user.a"));
	show("removexattr, empty name", removexattr("xf", ""));
	xattr_unprivileged();
	show("getxattr on /proc/self/status",
	     getxattr("/proc/self/status", "user.a", buf, 64));
	pfd = open("/proc/self/status", O_RDONLY);
	show("fgetxattr on /proc/self/status", fgetxattr(pfd, "user.a", buf, 64));
	show("flistxattr on /proc/self/status", flistxattr(pfd, list, sizeof(list)));
	show("fsetxattr on /proc/self/status", fsetxattr(pfd, "user.a", "1", 1, 0));
	close(pfd);
	close(fd);
	unlink("xl");
	unlink("xf");
}

/* Guest only: what umlrun answers where the host's would differ. */
static void part_clone3_guest(void)
{
	struct clone_args ca;

	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	ca.flags = CLONE_INTO_CGROUP;
	ca.cgroup = 0;
	show("CLONE_INTO_CGROUP (no cgroups)", clone3_raw(&ca, sizeof(ca)));
}

/* Seconds of CPU-time clock @c, or -errno. */
static double cpu_secs(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts))
		return -errno;
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile unsigned long cpu_sink;

/*
 * Burns CPU until its own clock is 50 ms (five ticks, where accounting is
 * by tick) past main's at its start, held in *arg, which gets its clock.
 * A fixed count of loops was not enough on the debug kernel, whose ticks
 * charged main's start-up more than the loops.
 */
static void *cpu_thread(void *arg)
{
	double *t = arg, until = *t + 0.05;
	unsigned long i;

	do {
		for (i = 0; i < 5000000UL; i++)
			cpu_sink += i;
		*t = cpu_secs(CLOCK_THREAD_CPUTIME_ID);
	} while (*t >= 0 && *t < until);
	return NULL;
}

/*
 * CPU-time clocks: the process's and a thread's, by clock id and by the
 * ids pthread_getcpuclockid and clock_getcpuclockid make; a thread's
 * clock is its own; clock fds and others' thread clocks are EINVAL.
 */
static void part_cpuclock(void)
{
	double mine, other, proc;
	clockid_t tc, pc;
	struct timespec r;
	pthread_t th;

	other = cpu_secs(CLOCK_THREAD_CPUTIME_ID);
	pthread_create(&th, NULL, cpu_thread, &other);
	pthread_join(th, NULL);
	mine = cpu_secs(CLOCK_THREAD_CPUTIME_ID);
	proc = cpu_secs(CLOCK_PROCESS_CPUTIME_ID);
	show("the thread ran", other > 0.01);
	/* a tick (10 ms) a thread where the host has no schedstat */
	show("the process has its time", proc >= other - 0.03);
	show("main's own clock is below", mine < other);
	show("pthread_getcpuclockid", pthread_getcpuclockid(pthread_self(), &tc));
	/* between two readings of main's own clock, whatever main used */
	show("its clock is main's", cpu_secs(tc) >= mine - 0.03 &&
	     cpu_secs(tc) <= cpu_secs(CLOCK_THREAD_CPUTIME_ID) + 0.03);
	show("clock_getcpuclockid", clock_getcpuclockid(getpid(), &pc));
	show("it is the process's", cpu_secs(pc) >= proc - 0.03);
	show("clock() agrees", (double)clock() / CLOCKS_PER_SEC >= proc - 0.01);
	show("a clock fd", cpu_secs((clockid_t)(~999u << 3 | 3)));
	show("a thread clock of init", getpid() == 1 ? -EINVAL :
	     cpu_secs((clockid_t)(~1u << 3 | 4 | 2)));
	show("getres SCHED", clock_getres(CLOCK_PROCESS_CPUTIME_ID, &r) ? -errno : r.tv_nsec);
}

/*
 * A pseudo-terminal (openpty: TIOCSPTLCK, TIOCGPTN, TIOCGPTPEER), data
 * both ways, termio and termios checks, the entropy count's ioctl.
 */
static void part_pty(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), s, n = -1, p[2];
	void *volatile bad = (void *)8;
	struct termios tio;
	char buf[16] = "";

	show("posix_openpt", m < 0 ? m : 0);
	if (m < 0 || pipe(p))
		return;
	show("unlockpt", unlockpt(m));
	show("TIOCGPTN", ioctl(m, TIOCGPTN, &n));
	show("ptsname agrees", ptsname(m) && atoi(ptsname(m) + 9) == n);
	show("TIOCGPTPEER of a pipe", ioctl(p[0], TIOCGPTPEER, O_RDWR));
	s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	show("TIOCGPTPEER", s < 0 ? s : 0);
	show("its close-on-exec", fcntl(s, F_GETFD));
	show("tcgetattr", tcgetattr(s, &tio));
	cfmakeraw(&tio);
	show("tcsetattr raw", tcsetattr(s, TCSANOW, &tio));
	show("write", write(m, "ping", 4));
	show("read", read(s, buf, sizeof(buf)));
	show("TCGETA NULL", ioctl(s, TCGETA, NULL));
	show("TCGETS bad", ioctl(s, TCGETS, bad));
	show("TCGETS on a pipe", ioctl(p[0], TCGETS, &tio));
	show("TIOCGPTN on a pipe", ioctl(p[0], TIOCGPTN, &n));
	n = open("/dev/urandom", O_RDONLY);
	show("RNDGETENTCNT", ioctl(n, RNDGETENTCNT, buf) < 0 ? -1 : 0);
	close(n);
	close(s);
	close(m);
}

/* SIOCGIFCONF, SIOCATMARK, and a set's checks before its EPERM. */
static void part_ifconf(void)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0), tcp = socket(AF_INET, SOCK_STREAM, 0);
	struct ifreq req[32];
	struct ifconf ifc = { .ifc_len = 0, .ifc_req = NULL };
	int i, lo = 0, v = -1, p[2];

	if (u < 0 || tcp < 0 || pipe(p))
		return;
	show("SIOCGIFCONF, no buffer", ioctl(u, SIOCGIFCONF, &ifc));
	show("its length is whole entries", ifc.ifc_len > 0 &&
	     ifc.ifc_len % (int)sizeof(req[0]) == 0);
	ifc.ifc_len = sizeof(req);
	ifc.ifc_req = req;
	show("SIOCGIFCONF", ioctl(u, SIOCGIFCONF, &ifc));
	for (i = 0; i < ifc.ifc_len / (int)sizeof(req[0]); i++)
		lo |= strcmp(req[i].ifr_name, "lo") == 0;
	show("lo listed", lo);
	ifc.ifc_len = sizeof(req[0]) - 1;
	show("a buffer short of one entry", ioctl(u, SIOCGIFCONF, &ifc));
	show("holds none", ifc.ifc_len);
	show("SIOCGIFCONF bad", ioctl(u, SIOCGIFCONF, (void *)8));
	show("SIOCSIFFLAGS bad", ioctl(u, SIOCSIFFLAGS, (void *)8));
	show("SIOCATMARK TCP", ioctl(tcp, SIOCATMARK, &v));
	show("at mark", v);
	show("SIOCATMARK NULL", ioctl(tcp, SIOCATMARK, NULL));
	show("SIOCATMARK UDP", ioctl(u, SIOCATMARK, &v));
	show("SIOCATMARK pipe", ioctl(p[0], SIOCATMARK, &v));
	close(u);
	close(tcp);
}

/* VmLck of /proc/self/status, in kB, or -1. */
static long vmlck(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* mlock and friends, MAP_LOCKED, mincore: checks, counts, residency. */
static void part_mlock(void)
{
	size_t pg = 4096;
	char *p = mmap(NULL, 8 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *q;
	unsigned char vec[8];

	munmap(p + 6 * pg, pg);			/* a hole at page 6 */
	show("VmLck before", vmlck());
	show("mlock 2 pages", mlock(p + 1, pg + 1));	/* pages 0 and 1 */
	show("VmLck", vmlck());
	show("mincore", mincore(p, 2 * pg, vec));
	printf("resident: %d %d\n", vec[0] & 1, vec[1] & 1);
	show("mlock over the hole", mlock(p, 8 * pg));
	show("mlock2 bad flags", syscall(SYS_mlock2, p, pg, 2));
	show("mlock2 ONFAULT", syscall(SYS_mlock2, p + 2 * pg, pg, 1));
	show("VmLck", vmlck());
	show("MADV_DONTNEED locked", madvise(p, pg, MADV_DONTNEED));
	show("MS_INVALIDATE locked", msync(p, pg, MS_INVALIDATE));
	show("munlock", munlock(p, 3 * pg));
	show("VmLck", vmlck());
	show("munlock over the hole", munlock(p, 8 * pg));
	show("mlockall 0", mlockall(0));
	show("mlockall MCL_ONFAULT alone", mlockall(MCL_ONFAULT));
	show("mlockall 99", mlockall(99));
	show("mlockall MCL_FUTURE", mlockall(MCL_FUTURE));
	q = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	show("VmLck after a new mapping", vmlck());
	show("munlockall", munlockall());
	show("VmLck", vmlck());
	munmap(q, 2 * pg);
	q = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	show("MAP_LOCKED VmLck", vmlck());
	munmap(q, 2 * pg);
	show("after munmap", vmlck());
	show("mincore unaligned", mincore(p + 1, pg, vec));
	show("mincore the hole", mincore(p + 6 * pg, pg, vec));
	show("mincore bad vec", mincore(p, pg, (unsigned char *)8));
	show("mincore len 0", mincore(p, 0, vec));
	munmap(p, 8 * pg);
}

/* FS_IOC_GETFLAGS and FS_IOC_SETFLAGS (chattr, lsattr) on a host file. */
static void part_iflags(void)
{
	void *volatile bad = (void *)8;
	int fd = open("if", O_RDWR | O_CREAT | O_TRUNC, 0600), v = 0, p[2];
	long r;

	if (fd < 0 || pipe(p)) {
		puts("iflags: no writable cwd");
		return;
	}
	r = ioctl(fd, FS_IOC_GETFLAGS, &v);
	show("FS_IOC_GETFLAGS", r);
	if (r == 0) {
		v |= FS_NOATIME_FL;
		show("FS_IOC_SETFLAGS noatime", ioctl(fd, FS_IOC_SETFLAGS, &v));
		v = 0;
		ioctl(fd, FS_IOC_GETFLAGS, &v);
		show("noatime set", !!(v & FS_NOATIME_FL));
		v &= ~FS_NOATIME_FL;
		show("FS_IOC_SETFLAGS back", ioctl(fd, FS_IOC_SETFLAGS, &v));
		show("bad pointer", ioctl(fd, FS_IOC_GETFLAGS, bad));
	}
	show("on a pipe", ioctl(p[0], FS_IOC_GETFLAGS, &v));
	close(fd);
	unlink("if");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2) {
		fprintf(stderr, "usage: calls PART\n");
		return 2;
	}
	if (strcmp(argv[1], "signalfd") == 0)
		part_signalfd();
	else if (strcmp(argv[1], "clone3") == 0)
		part_clone3();
	else if (strcmp(argv[1], "cpu") == 0)
		part_cpu();
	else if (strcmp(argv[1], "memfd") == 0)
		part_memfd();
	else if (strcmp(argv[1], "close_range") == 0)
		part_close_range();
	else if (strcmp(argv[1], "xattr") == 0)
		part_xattr();
	else if (strcmp(argv[1], "ifconf") == 0)
		part_ifconf();
	else if (strcmp(argv[1], "pty") == 0)
		part_pty();
	else if (strcmp(argv[1], "cpuclock") == 0)
		part_cpuclock();
	else if (strcmp(argv[1], "mlock") == 0)
		part_mlock();
	else if (strcmp(argv[1], "iflags") == 0)
		part_iflags();
	else if (strcmp(argv[1], "clone3-guest") == 0)
		part_clone3_guest();
	else
		return 2;
	return 0;
}
