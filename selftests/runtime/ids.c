// SPDX-License-Identifier: GPL-2.0-only
/*
 * A guest program for busybox.sh: are getpid, getppid, gettid, getpgrp and
 * the uid/gid calls right across fork, execve, thread creation,
 * reparenting, setpgid (by the process and by its parent), setsid and the
 * setuid family?  With umlrun's fast tiers these are answered by the host
 * (CONST, THREAD), so each value is checked against a source that always
 * goes to the runtime: fork's and clone's return values, /proc/self/stat,
 * getpgid(0), getsid(0), getresuid/getresgid.
 *
 * Each step prints one line of values; under umlrun the pids are
 * deterministic, so busybox.sh compares the whole output with and without
 * --no-fast.  The last line is "ids ok" or "ids FAILED".  `ids vdso` prints
 * whether the guest was given a vDSO (AT_SYSINFO_EHDR).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int fails;

static void out(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (write(1, buf, n) != n)
		_exit(2);
}

#define CHECK(what, got, want) do {					\
	long __g = (long)(got), __w = (long)(want);			\
	if (__g != __w) {						\
		out("FAIL %s: %s is %ld, want %ld\n", what, #got, __g, __w); \
		fails++;						\
	}								\
} while (0)

static long sys0(long nr)
{
	return syscall(nr);
}

/* pid, ppid, pgrp, session from /proc/self/stat (the runtime's view). */
static int proc_stat(int *pid, int *ppid, int *pgrp, int *sid)
{
	char buf[512], *p;
	int fd = open("/proc/self/stat", O_RDONLY), n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*pid = atoi(buf);
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %d %d %d", ppid, pgrp, sid) != 3)
		return -1;
	return 0;
}

/*
 * Check every identity call of the calling thread against the runtime's
 * own answers, and print them under @tag.
 */
static void report(const char *tag)
{
	int pid, ppid, pgrp, sid;
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	if (proc_stat(&pid, &ppid, &pgrp, &sid) < 0) {
		out("FAIL %s: cannot read /proc/self/stat\n", tag);
		fails++;
		return;
	}
	CHECK(tag, sys0(SYS_getpid), pid);
	CHECK(tag, sys0(SYS_getppid), ppid);
	CHECK(tag, sys0(SYS_getpgrp), pgrp);
	CHECK(tag, syscall(SYS_getpgid, 0), pgrp);
	CHECK(tag, syscall(SYS_getsid, 0), sid);
	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg)) {
		out("FAIL %s: getresuid/getresgid\n", tag);
		fails++;
	} else {
		CHECK(tag, sys0(SYS_getuid), ru);
		CHECK(tag, sys0(SYS_geteuid), eu);
		CHECK(tag, sys0(SYS_getgid), rg);
		CHECK(tag, sys0(SYS_getegid), eg);
	}
	out("%s: pid %ld ppid %ld tid %ld pgrp %ld sid %d uid %ld gid %ld\n",
	    tag, sys0(SYS_getpid), sys0(SYS_getppid), sys0(SYS_gettid),
	    sys0(SYS_getpgrp), sid, sys0(SYS_getuid), sys0(SYS_getgid));
}

/* Wait for child @pid; a nonzero exit counts as a failure. */
static void reap(pid_t pid, const char *what)
{
	int st;

	if (waitpid(pid, &st, 0) != pid) {
		out("FAIL %s: waitpid: %s\n", what, strerror(errno));
		fails++;
	} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		out("FAIL %s: child status %#x\n", what, st);
		fails++;
	}
}

/* ---- threads: raw clone, so that the runtime tells us the tid ---------- */

static volatile long thread_tid, thread_pid;

static int thread_fn(void *arg)
{
	(void)arg;
	thread_tid = sys0(SYS_gettid);
	thread_pid = sys0(SYS_getpid);
	return 0;
}

static void thread_step(const char *tag)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	pid_t ptid = 0, v;
	volatile pid_t ctid = 1;
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		    CLONE_THREAD | CLONE_SYSVSEM | CLONE_PARENT_SETTID |
		    CLONE_CHILD_CLEARTID;
	long r;

	thread_tid = thread_pid = -1;
	r = clone(thread_fn, stack + sizeof(stack), flags, NULL, &ptid, NULL,
		  (pid_t *)&ctid);
	if (r < 0) {
		out("FAIL %s: clone: %s\n", tag, strerror(errno));
		fails++;
		return;
	}
	/* One read: a wait for 0 once the thread cleared it would not end. */
	while ((v = ctid) != 0)
		syscall(SYS_futex, &ctid, FUTEX_WAIT, v, NULL, NULL, 0);
	CHECK(tag, thread_tid, r);
	CHECK(tag, ptid, r);
	CHECK(tag, thread_pid, sys0(SYS_getpid));
	CHECK(tag, sys0(SYS_gettid), sys0(SYS_getpid));
	if (r == sys0(SYS_getpid)) {
		out("FAIL %s: the thread's tid is the pid\n", tag);
		fails++;
	}
	out("%s: thread tid %ld of pid %ld\n", tag, thread_tid, thread_pid);
}

/* ---- the steps ---------------------------------------------------------- */

static void fork_step(void)
{
	long parent = sys0(SYS_getpid);
	int p[2];
	long child_pid = 0;
	pid_t pid;

	if (pipe(p))
		exit(2);
	pid = fork();
	if (pid == 0) {
		long me = sys0(SYS_getpid);

		fails = 0;	/* the child reports only its own */
		CHECK("fork child", sys0(SYS_getppid), parent);
		report("fork child");
		thread_step("fork child");
		if (write(p[1], &me, sizeof(me)) != sizeof(me))
			fails++;
		_exit(fails ? 1 : 0);
	}
	close(p[1]);
	if (read(p[0], &child_pid, sizeof(child_pid)) != sizeof(child_pid))
		child_pid = -1;
	close(p[0]);
	CHECK("fork parent", child_pid, pid);
	reap(pid, "fork child");
}

static void exec_step(const char *self)
{
	char ppid[32];
	pid_t pid;

	snprintf(ppid, sizeof(ppid), "%ld", sys0(SYS_getpid));
	pid = fork();
	if (pid == 0) {
		/* In a new process group, to see it survive the exec. */
		setpgid(0, 0);
		execl(self, self, "exec", ppid, (char *)NULL);
		_exit(3);
	}
	reap(pid, "exec child");
}

static int exec_mode(const char *ppid)
{
	CHECK("after exec", sys0(SYS_getppid), atol(ppid));
	CHECK("after exec", sys0(SYS_getpgrp), sys0(SYS_getpid));
	CHECK("after exec", sys0(SYS_gettid), sys0(SYS_getpid));
	report("after exec");
	thread_step("after exec");
	return fails ? 1 : 0;
}

/* B forks C and exits: C's getppid becomes the reaper's pid. */
static void reparent_step(long reaper)
{
	int p[2], i;
	long c_pid = 0;
	pid_t b;

	if (pipe(p))
		exit(2);
	b = fork();
	if (b == 0) {
		long bpid = sys0(SYS_getpid);
		pid_t c = fork();

		if (c == 0) {
			fails = 0;
			close(p[0]);
			for (i = 0; i < 10000 && sys0(SYS_getppid) == bpid; i++)
				usleep(1000);
			CHECK("orphan", sys0(SYS_getppid), reaper);
			report("orphan");
			c_pid = sys0(SYS_getpid);
			if (write(p[1], &c_pid, sizeof(c_pid)) != sizeof(c_pid))
				fails++;
			_exit(fails ? 1 : 0);
		}
		_exit(c > 0 ? 0 : 1);
	}
	close(p[1]);
	reap(b, "orphan's parent");
	/* The orphan's report comes before its pid; EOF if it died first. */
	if (read(p[0], &c_pid, sizeof(c_pid)) != sizeof(c_pid)) {
		out("FAIL orphan: no report\n");
		fails++;
	}
	close(p[0]);
	/* We are pid 1 under umlrun: the orphan is ours to reap. */
	if (reaper == sys0(SYS_getpid) && c_pid > 0)
		reap(c_pid, "orphan");
}

/* The parent moves its child into a new group; the child moves back and
 * then makes its own session. */
static void pgrp_step(void)
{
	long parent_pgrp = sys0(SYS_getpgrp);
	int go[2];
	char c;
	pid_t pid;

	if (pipe(go))
		exit(2);
	pid = fork();
	if (pid == 0) {
		fails = 0;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			fails++;
		CHECK("setpgid by parent", sys0(SYS_getpgrp), sys0(SYS_getpid));
		report("setpgid by parent");
		CHECK("setpgid back", setpgid(0, parent_pgrp), 0);
		CHECK("setpgid back", sys0(SYS_getpgrp), parent_pgrp);
		report("setpgid back");
		CHECK("setsid", setsid(), sys0(SYS_getpid));
		CHECK("setsid", sys0(SYS_getpgrp), sys0(SYS_getpid));
		CHECK("setsid", syscall(SYS_getsid, 0), sys0(SYS_getpid));
		report("setsid");
		_exit(fails ? 1 : 0);
	}
	close(go[0]);
	CHECK("setpgid by parent", setpgid(pid, pid), 0);
	if (write(go[1], "g", 1) != 1)
		fails++;
	close(go[1]);
	reap(pid, "setpgid child");
}

static void setid_step(void)
{
	uid_t u = sys0(SYS_getuid);
	gid_t g = sys0(SYS_getgid);

	CHECK("setuid", setuid(u), 0);
	CHECK("setgid", setgid(g), 0);
	CHECK("setresuid", setresuid(-1, -1, -1), 0);
	CHECK("setresgid", setresgid(-1, -1, -1), 0);
	CHECK("setuid", sys0(SYS_getuid), u);
	CHECK("setgid", sys0(SYS_getgid), g);
	report("after setuid");
}

/*
 * rseq, CONST with umlrun's fast tiers: the same answer as the handler's
 * for any arguments (no pointer, a bad length, a plausible area).
 */
static void rseq_step(const char *step)
{
	static unsigned char area[32] __attribute__((aligned(32)));
	long r[3];
	int e[3];

	errno = 0;
	r[0] = syscall(SYS_rseq, NULL, 0, 0, 0);
	e[0] = errno;
	errno = 0;
	r[1] = syscall(SYS_rseq, area, 7, 0, 0x53053053);
	e[1] = errno;
	errno = 0;
	r[2] = syscall(SYS_rseq, area, sizeof(area), 0, 0x53053053);
	e[2] = errno;
	out("%s rseq: %ld/%d %ld/%d %ld/%d\n", step, r[0], e[0], r[1], e[1],
	    r[2], e[2]);
}

int main(int argc, char **argv)
{
	long me;

	if (argc > 1 && strcmp(argv[1], "vdso") == 0) {
		out("vdso %s\n", getauxval(AT_SYSINFO_EHDR) ? "yes" : "no");
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "exec") == 0)
		return exec_mode(argv[2]);

	setvbuf(stdout, NULL, _IONBF, 0);
	me = sys0(SYS_getpid);
	report("start");
	rseq_step("start");
	thread_step("start");
	fork_step();
	exec_step(argv[0]);
	/* Under umlrun we are pid 1, the reaper of orphans. */
	if (me == 1)
		reparent_step(1);
	pgrp_step();
	setid_step();
	report("end");
	rseq_step("end");
	out(fails ? "ids FAILED\n" : "ids ok\n");
	return fails ? 1 : 0;
}
