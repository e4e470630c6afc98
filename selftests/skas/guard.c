// SPDX-License-Identifier: GPL-2.0
/*
 * What one guest can do to the module, to its own runtime and to the
 * host (issue 12, items 5, 6 and 8):
 *
 * - a ptraced stub cannot attach, and a guest that gets a tracer is
 *   killed with SKAS_END_PTRACED (a tracer's stop could rewrite an armed
 *   native syscall), and only that guest;
 * - a native operation whose vDSO syscall instruction was overwritten
 *   fails with -EIO and kills the guest (SKAS_END_NATIVE), and its
 *   runtime stays killable;
 * - the cgroup v2 freezer freezes a parked guest, which runs on after
 *   the thaw.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

#define CODE	0x100000UL
#define PC_LOOP	CODE		/* 1: mov $39,%eax; syscall; jmp 1b */

static const unsigned char loop39[] = {
	0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7,
};

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The state letter of /proc/PID/stat, or '?'. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Map the getpid loop and run the guest to its first trap. */
static int guest_at_loop(struct skas_guest *g)
{
	if (skas_map_anon(g->as, CODE, 4096, PROT_READ | PROT_EXEC) != 1)
		return 1;
	if (skas_rw(g->as, true, PC_LOOP, (void *)loop39, sizeof(loop39)) !=
	    sizeof(loop39))
		return 2;
	skas_regs_at(g, PC_LOOP);
	if (skas_run(g) != SKAS_EXIT_SYSCALL || g->run->exit.syscall.nr != 39)
		return 3;
	return 0;
}

/* Answer the trapped getpid and run to the next one: 0 if it came. */
static int guest_next_trap(struct skas_guest *g, long rax)
{
	g->run->regs.rax = rax;
	if (skas_run(g) != SKAS_EXIT_SYSCALL)
		return 1;
	if (g->run->exit.syscall.nr != 39 || g->run->regs.rip != PC_LOOP + 7)
		return 2;
	return 0;
}

TEST(capability)
{
	int dev = skas_open_dev();

	ASSERT_LE(0, dev);
	EXPECT_LT(0, ioctl(dev, SKAS_CHECK_EXTENSION, SKAS_CAP_END_CAUSE));
	close(dev);
}

/* A stub that asked to be traced (PTRACE_TRACEME) cannot attach. */
TEST(ptraced_stub_cannot_attach)
{
	struct skas_attach args;
	struct pollfd pfd;
	int dev, as, thread, status;
	pid_t pid;

	dev = skas_open_dev();
	ASSERT_LE(0, dev);
	as = skas_create_aspace(dev);
	ASSERT_LE(0, as);
	thread = skas_create_thread(as);
	ASSERT_LE(0, thread);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (skas_stub_prepare() || ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(100);
		memset(&args, 0, sizeof(args));
		args.size = sizeof(args);
		if (!ioctl(thread, SKAS_ATTACH, &args))
			_exit(0);	/* not reached: the stub is hollowed */
		_exit(errno);
	}
	pfd.fd = thread;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 2000))
		TH_LOG("a traced stub attached");
	close(thread);
	close(as);
	close(dev);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(EPERM, WEXITSTATUS(status));
}

/* Read-write-execute permissions of @addr in /proc/@pid/maps, or "". */
static void maps_perms(pid_t pid, unsigned long addr, char perms[5])
{
	unsigned long start, end;
	char path[64], line[256];
	FILE *f;

	perms[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %4s", &start, &end, perms) == 3 &&
		    start <= addr && addr < end)
			break;
		else
			perms[0] = 0;
	fclose(f);
}

/*
 * The tracer: seize the guest and ask for a stop; at the stop where the
 * guest's registers are those of the module's armed mprotect(CODE, ...),
 * make it PROT_READ | PROT_WRITE | PROT_EXEC, and detach.  Exits 0 if it
 * did, 1 if the guest died first, 2 to 5 on an error.
 */
static void __attribute__((noreturn)) tracer_main(pid_t pid, int ready)
{
	struct user_regs_struct regs;
	int status;

	alarm(20);
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) ||
	    ptrace(PTRACE_INTERRUPT, pid, 0, 0))
		_exit(2);
	if (write(ready, "r", 1) != 1)
		_exit(3);
	for (;;) {
		if (waitpid(pid, &status, __WALL) != pid)
			_exit(4);
		if (WIFEXITED(status) || WIFSIGNALED(status))
			_exit(1);
		if (!WIFSTOPPED(status))
			continue;
		if (!ptrace(PTRACE_GETREGS, pid, 0, &regs) &&
		    regs.rax == SYS_mprotect && regs.rdi == CODE) {
			regs.rdx = PROT_READ | PROT_WRITE | PROT_EXEC;
			ptrace(PTRACE_SETREGS, pid, 0, &regs);
			ptrace(PTRACE_DETACH, pid, 0, 0);
			_exit(0);
		}
		if (ptrace(PTRACE_CONT, pid, 0, 0))
			_exit(5);
	}
}

/*
 * A guest seized by a tracer (another process of the same user) that
 * stops it on its way to an armed native syscall: before, the tracer
 * could rewrite the arguments (here mprotect's prot; a native clone's
 * flags likewise) and the module ran the call.  Now the traced guest is
 * killed (SKAS_END_PTRACED), the operation fails, and skas goes on for
 * everybody: a new guest can be created and run.
 */
TEST(ptraced_guest_is_ended_and_skas_goes_on)
{
	struct skas_guest g, g2;
	int pipefd[2], status, ret;
	char perms[5], c;
	pid_t tracer;

	ASSERT_EQ(0, skas_guest_start(&g));
	ASSERT_EQ(0, guest_at_loop(&g));
	ASSERT_EQ(0, pipe(pipefd));
	tracer = fork();
	ASSERT_LE(0, tracer);
	if (tracer == 0)
		tracer_main(g.pid, pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	ret = skas_mem1(g.as, SKAS_MEM_PROTECT, CODE, 4096, PROT_READ, 0, -1,
			0);
	maps_perms(g.pid, CODE, perms);
	EXPECT_GT(0, ret) TH_LOG("PROTECT %d, the guest's code is %s", ret,
				 perms);
	EXPECT_NE(0, strcmp(perms, "rwxp"))
		TH_LOG("the tracer changed the armed mprotect");
	ASSERT_EQ(tracer, waitpid(tracer, &status, 0));
	/* 1: the guest died under the tracer, 0: it detached first. */
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) < 2)
		TH_LOG("tracer %#x", status);
	ASSERT_EQ(SKAS_EXIT_EXITED, skas_run(&g));
	EXPECT_TRUE(WIFSIGNALED(g.run->exit.exited.status) &&
		    WTERMSIG(g.run->exit.exited.status) == SIGKILL)
		TH_LOG("status %#x", g.run->exit.exited.status);
	EXPECT_EQ((__u32)SKAS_END_PTRACED, g.run->exit.exited.cause);
	skas_guest_stop(&g);
	close(pipefd[0]);
	close(pipefd[1]);

	/* Anybody can still create and run a guest. */
	ASSERT_EQ(0, skas_guest_start(&g2));
	ASSERT_EQ(0, guest_at_loop(&g2));
	EXPECT_EQ(0, guest_next_trap(&g2, 1));
	skas_guest_stop(&g2);
}

/* A parked guest that gets a tracer is killed when it is run. */
TEST(guest_seized_while_parked_is_ended)
{
	struct skas_guest g;
	int status;

	ASSERT_EQ(0, skas_guest_start(&g));
	ASSERT_EQ(0, guest_at_loop(&g));
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, g.pid, 0, 0));
	g.run->regs.rax = 1000;
	ASSERT_EQ(SKAS_EXIT_EXITED, skas_run(&g));
	EXPECT_EQ((__u32)SKAS_END_PTRACED, g.run->exit.exited.cause);
	/* The tracer (this process) reaps it. */
	ASSERT_EQ(g.pid, waitpid(g.pid, &status, __WALL));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	g.pid = 0;
	skas_guest_stop(&g);
}

/*
 * The address of the vDSO's first syscall instruction, as the module
 * finds it (in the first four pages): the stub is a fork of this
 * process, so its vDSO is where ours is.
 */
static unsigned long vdso_syscall_insn(void)
{
	const unsigned char *vdso = (void *)getauxval(AT_SYSINFO_EHDR);
	unsigned long start, end, len = 0, off;
	char line[256];
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &start, &end) == 2 &&
		    start == (unsigned long)vdso)
			len = end - start;
	fclose(f);
	if (len > 4 * 4096)
		len = 4 * 4096;
	for (off = 0; vdso && off + 1 < len; off++)
		if (vdso[off] == 0x0f && vdso[off + 1] == 0x05)
			return (unsigned long)vdso + off;
	return 0;
}

/* Write @len bytes at @addr of @pid through /proc/PID/mem. */
static int poke_mem(pid_t pid, unsigned long addr, const void *buf,
		    size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pwrite(fd, buf, len, addr);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/*
 * The syscall instruction the module uses for native operations,
 * overwritten with "jmp ." through /proc/PID/mem (as a guest can do with
 * its own mem file).  Before, SKAS_MEM PROTECT sent the guest into that
 * loop and its runtime waited in D state for ever, unkillable, and
 * rmmod could not go.  Now the operation fails with -EIO, the guest is
 * killed (SKAS_END_NATIVE), the objects go.
 */
TEST(native_op_on_overwritten_syscall_fails)
{
	static const unsigned char jmp_self[] = { 0xeb, 0xfe };
	unsigned long insn = vdso_syscall_insn();
	struct skas_guest g;
	struct pollfd pfd;
	int pipefd[2], status, err = 0;
	pid_t rt;

	ASSERT_NE(0UL, insn);
	ASSERT_EQ(0, skas_guest_start(&g));
	ASSERT_EQ(0, guest_at_loop(&g));
	ASSERT_EQ(0, poke_mem(g.pid, insn, jmp_self, sizeof(jmp_self)));
	ASSERT_EQ(0, pipe(pipefd));
	/* A second runtime process (the descriptors are shared) does it. */
	rt = fork();
	ASSERT_LE(0, rt);
	if (rt == 0) {
		err = skas_mem1(g.as, SKAS_MEM_PROTECT, CODE, 4096, PROT_READ,
				0, -1, 0);
		_exit(write(pipefd[1], &err, sizeof(err)) == sizeof(err) ?
		      0 : 1);
	}
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 5000) != 1) {
		kill(rt, SIGKILL);
		msleep(2000);
		TH_LOG("SKAS_MEM still waiting after 5 s; after SIGKILL: %c",
		       proc_state(rt));
		ASSERT_EQ(rt, waitpid(rt, &status, WNOHANG));
	}
	ASSERT_EQ((ssize_t)sizeof(err), read(pipefd[0], &err, sizeof(err)));
	EXPECT_EQ(-EIO, err);
	ASSERT_EQ(rt, waitpid(rt, &status, 0));
	EXPECT_EQ(SKAS_EXIT_EXITED, skas_run(&g));
	EXPECT_EQ((__u32)SKAS_END_NATIVE, g.run->exit.exited.cause);
	skas_guest_stop(&g);
	close(pipefd[0]);
	close(pipefd[1]);
	EXPECT_EQ(0, skas_wait_param_zero("objects"));
}

/*
 * The same with SKAS_RUN_MEM: the batch fails with EIO, nothing runs, the
 * run page is as it was, and the guest's end (SKAS_END_NATIVE) is left
 * for the next SKAS_RUN to report.
 */
TEST(run_mem_on_overwritten_syscall_fails_and_keeps_the_exit)
{
	static const unsigned char jmp_self[] = { 0xeb, 0xfe };
	unsigned long insn = vdso_syscall_insn();
	struct skas_mem_op op = { .op = SKAS_MEM_PROTECT, .prot = PROT_READ,
				  .fd = -1, .addr = CODE, .len = 4096 };
	struct skas_mem_batch b = { .size = sizeof(b), .count = 1,
				    .ops = (unsigned long)&op };
	struct skas_guest g;
	__u32 reason;

	ASSERT_NE(0UL, insn);
	ASSERT_EQ(0, skas_guest_start(&g));
	ASSERT_EQ(0, guest_at_loop(&g));
	ASSERT_EQ(0, poke_mem(g.pid, insn, jmp_self, sizeof(jmp_self)));
	reason = g.run->exit_reason;
	errno = 0;
	EXPECT_EQ(-1, ioctl(g.thread, SKAS_RUN_MEM, &b));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(-EIO, b.error);
	EXPECT_EQ(reason, g.run->exit_reason);
	EXPECT_EQ(SKAS_EXIT_EXITED, skas_run(&g));
	EXPECT_EQ((__u32)SKAS_END_NATIVE, g.run->exit.exited.cause);
	EXPECT_EQ(-ESRCH, skas_run(&g));
	skas_guest_stop(&g);
	EXPECT_EQ(0, skas_wait_param_zero("objects"));
}

/* Write @val to @dir/@file; 0 or -errno. */
static int cg_write(const char *dir, const char *file, const char *val)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -errno;
}

/* The "frozen" value of @dir/cgroup.events, or -1. */
static int cg_frozen(const char *dir)
{
	char path[256], line[64];
	int frozen = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "frozen %d", &frozen) == 1)
			break;
	fclose(f);
	return frozen;
}

/* Wait up to @ms for cgroup.events to say frozen @want. */
static bool cg_wait_frozen(const char *dir, int want, int ms)
{
	for (; ms > 0; ms -= 20) {
		if (cg_frozen(dir) == want)
			return true;
		msleep(20);
	}
	return cg_frozen(dir) == want;
}

#define CG_ROOT	"/sys/fs/cgroup"

/* A cgroup v2 hierarchy at CG_ROOT, mounted if need be; false if none. */
static bool cg_mounted(void)
{
	if (!access(CG_ROOT "/cgroup.procs", F_OK))
		return true;
	mkdir(CG_ROOT, 0755);
	return !mount("none", CG_ROOT, "cgroup2", 0, NULL) &&
	       !access(CG_ROOT "/cgroup.procs", F_OK);
}

/*
 * The runtime of the freezer test, in its own cgroup with its guest:
 * park the guest at a trap, say so on @ready, wait for a byte on @go
 * (frozen meanwhile), then check that the guest runs on.
 */
static void __attribute__((noreturn)) freeze_runtime(int ready, int go)
{
	struct skas_guest g;
	int i, ret;
	char c;

	alarm(60);
	ret = skas_guest_start(&g);
	if (!ret)
		ret = guest_at_loop(&g) ? 20 : 0;
	if (write(ready, "r", 1) != 1 || ret)
		_exit(ret ? 10 : 11);
	if (read(go, &c, 1) != 1)
		_exit(12);
	for (i = 0; i < 3; i++)
		if (guest_next_trap(&g, i))
			_exit(13 + i);
	skas_guest_stop(&g);
	_exit(0);
}

/*
 * A runtime and its parked guest in a cgroup: writing 1 to cgroup.freeze
 * must get to "frozen 1" (before, the parked guest's killable sleep never
 * got to the freezer's trap, and the cgroup stayed freezing); after the
 * thaw the guest runs on.
 */
TEST(cgroup_freezer_freezes_a_parked_guest)
{
	int ready[2], go[2], status, frozen;
	char dir[128], path[160], pid[32], c;
	pid_t rt;

	if (!cg_mounted())
		SKIP(return, "no cgroup v2 (CONFIG_CGROUPS) in this kernel");
	snprintf(dir, sizeof(dir), CG_ROOT "/skas-guard-%d", getpid());
	ASSERT_EQ(0, mkdir(dir, 0755)) TH_LOG("%s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/cgroup.freeze", dir);
	if (access(path, F_OK) || cg_frozen(dir) < 0) {
		rmdir(dir);
		SKIP(return, "no cgroup v2 freezer (cgroup.freeze)");
	}
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	rt = fork();
	ASSERT_LE(0, rt);
	if (rt == 0) {
		snprintf(pid, sizeof(pid), "%d", getpid());
		if (cg_write(dir, "cgroup.procs", pid))
			_exit(9);
		freeze_runtime(ready[1], go[0]);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(0, cg_frozen(dir));
	ASSERT_EQ(0, cg_write(dir, "cgroup.freeze", "1"));
	frozen = cg_wait_frozen(dir, 1, 5000);
	/* Thaw in any case, so that the runtime can end. */
	ASSERT_EQ(0, cg_write(dir, "cgroup.freeze", "0"));
	EXPECT_TRUE(frozen) TH_LOG("not frozen after 5 s: the parked guest");
	EXPECT_TRUE(cg_wait_frozen(dir, 0, 5000));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(rt, waitpid(rt, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("runtime status %#x", status);
	EXPECT_EQ(0, rmdir(dir)) TH_LOG("rmdir %s: %s", dir, strerror(errno));
}

/* SKAS_RUN in a pthread, so that the main thread can kick and thaw. */
struct bg_run {
	struct skas_guest *g;
	int ret, done;
	pthread_t th;
};

static void *bg_fn(void *p)
{
	struct bg_run *b = p;

	b->ret = skas_run(b->g);
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A new cgroup holding only @pid, frozen; false (and no cgroup) if not. */
static bool cg_freeze_alone(const char *dir, pid_t pid)
{
	char buf[32];

	if (mkdir(dir, 0755))
		return false;
	snprintf(buf, sizeof(buf), "%d", pid);
	if (cg_write(dir, "cgroup.procs", buf) ||
	    cg_write(dir, "cgroup.freeze", "1") ||
	    !cg_wait_frozen(dir, 1, 5000)) {
		cg_write(dir, "cgroup.freeze", "0");
		return false;
	}
	return true;
}

/*
 * Only the guest in the cgroup, frozen while parked; its runtime, outside,
 * runs it meanwhile.  The run waits (the guest is frozen); a kick ends it
 * with INTERRUPTED at the parked registers, frozen or not; after the thaw
 * the guest runs on to its next trap, and a run started while it was
 * frozen comes back with that trap.
 */
TEST(frozen_guest_can_be_run_kicked_and_thawed)
{
	struct skas_guest g;
	struct bg_run b;
	char dir[128];
	bool frozen;

	if (!cg_mounted())
		SKIP(return, "no cgroup v2 (CONFIG_CGROUPS) in this kernel");
	ASSERT_EQ(0, skas_guest_start(&g));
	ASSERT_EQ(0, guest_at_loop(&g));
	snprintf(dir, sizeof(dir), CG_ROOT "/skas-guard-alone-%d", getpid());
	frozen = cg_freeze_alone(dir, g.pid);
	ASSERT_TRUE(frozen) TH_LOG("the parked guest alone did not freeze");

	/* Run while frozen, then kick. */
	g.run->regs.rax = 1;
	b.g = &g;
	b.done = 0;
	ASSERT_EQ(0, pthread_create(&b.th, NULL, bg_fn, &b));
	msleep(300);
	EXPECT_FALSE(__atomic_load_n(&b.done, __ATOMIC_ACQUIRE))
		TH_LOG("a frozen guest ran: %d", b.ret);
	ASSERT_EQ(0, ioctl(g.thread, SKAS_KICK, 0));
	pthread_join(b.th, NULL);
	EXPECT_EQ(SKAS_EXIT_INTERRUPTED, b.ret);
	EXPECT_EQ(PC_LOOP + 7, g.run->regs.rip);

	/* Run while frozen again, and thaw: the run gets the next trap. */
	b.done = 0;
	ASSERT_EQ(0, pthread_create(&b.th, NULL, bg_fn, &b));
	msleep(300);
	EXPECT_FALSE(__atomic_load_n(&b.done, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, cg_write(dir, "cgroup.freeze", "0"));
	pthread_join(b.th, NULL);
	EXPECT_EQ(SKAS_EXIT_SYSCALL, b.ret);
	EXPECT_EQ(39U, g.run->exit.syscall.nr);
	EXPECT_EQ(PC_LOOP + 7, g.run->regs.rip);
	EXPECT_EQ(0, guest_next_trap(&g, 2));
	skas_guest_stop(&g);
	EXPECT_EQ(0, rmdir(dir)) TH_LOG("rmdir %s: %s", dir, strerror(errno));
}

TEST_HARNESS_MAIN
