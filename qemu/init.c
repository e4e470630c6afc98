// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the test VM, after WireGuard's qemu harness: one verb per step.
 *
 * The kernel command line picks the mode (skas_mode=..., handed to init as
 * an environment variable):
 *
 *   check  load skas.ko, run selftests/vm.list, unload, scan for leaks,
 *          dump the kernel log, power off.
 *   demo   load skas.ko, then run /demo-cmd if the initramfs has one (its
 *          exit status is reported), else an interactive busybox shell
 *          as a guest under umlrun, then the VM's own shell; power off
 *          when it ends.
 *   bench  load skas.ko, run bench/run-in-vm.sh (make bench) with its
 *          output on the results port, unload, dump the kernel log.
 *
 * In every mode, init first loads the 9p modules the initramfs has (Debian's
 * kernels have 9p as modules, the debug kernel builds it in) and mounts the
 * host's / read-only at /host and the run's scratch folder (a host folder,
 * build/vm/KVER/scratch) read-write at /scratch, both over virtio-9p; then
 * the host's /usr on /usr, so that the host's Debian programs and libraries
 * are at their usual paths (see Documentation/testing.rst, "The host's
 * Debian inside the VM").
 *
 * Results go to the second serial port (/dev/ttyS1), which the host reads:
 * TAP-ish lines, "# counts: pass=P fail=F skip=S" lines that the host adds
 * up, the kernel log between markers, and "SKAS-DONE" as the last line when
 * init reached its end.  Only the host decides the verdict.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MODULE_PATH	"/lib/modules/skas.ko"
#define HOST_MODULES	"/lib/modules/host"
#define TREE		"/skas"
#define UMLRUN		TREE "/guest-runtime/umlrun"
#define BENCH		TREE "/bench/run-in-vm.sh"

static FILE *results;

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(results, fmt, ap);
	va_end(ap);
	fflush(results);
}

/* One line of TAP for a step of init itself, counted by the host. */
static void report(int ok, const char *what, int err)
{
	if (ok)
		say("ok - init: %s\n# counts: pass=1 fail=0 skip=0\n", what);
	else
		say("not ok - init: %s (%s)\n# counts: pass=0 fail=1 skip=0\n",
		    what, strerror(err));
}

static void poweroff(void)
{
	sync();
	/* The VM runs with -no-reboot: a reboot ends QEMU, ACPI or not. */
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

static void die(const char *what)
{
	fprintf(stderr, "init: %s: %s\n", what, strerror(errno));
	poweroff();
}

static void step_mount(void)
{
	static const struct { const char *src, *dst, *type; } fs[] = {
		{ "proc", "/proc", "proc" },
		{ "sysfs", "/sys", "sysfs" },
		{ "devtmpfs", "/dev", "devtmpfs" },
		{ "tmpfs", "/tmp", "tmpfs" },
		{ "tmpfs", "/run", "tmpfs" },
		{ "devpts", "/dev/pts", "devpts" },
		{ "debugfs", "/sys/kernel/debug", "debugfs" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
		mkdir(fs[i].dst, 0755);
		if (mount(fs[i].src, fs[i].dst, fs[i].type, 0, NULL) &&
		    errno != EBUSY && strcmp(fs[i].type, "debugfs"))
			die(fs[i].dst);
	}
}

/*
 * The loopback interface up, as on any Linux system: TCP on 127.0.0.1
 * (python3's socket.create_connection: ENETUNREACH while lo is down).
 * The VM has no other interface (-nic none); the debug kernel has no
 * AF_INET, but the ioctl works on any socket.
 */
static void step_loopback(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		die("lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		die("lo up");
	close(fd);
}

static void step_console(void)
{
	int fd = open("/dev/console", O_RDWR);

	if (fd < 0)
		die("/dev/console");
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
	results = fopen("/dev/ttyS1", "w");
	if (!results)
		die("/dev/ttyS1");
	setenv("PATH", "/bin:/sbin:/usr/bin:/usr/sbin:" TREE "/guest-runtime", 1);
	setenv("HOME", "/root", 1);
	setenv("TERM", "linux", 0);
}

/* Returns 0 or the errno of open() or finit_module(). */
static int insmod(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? errno : 0;
	close(fd);
	return ret;
}

static int step_insmod(void)
{
	return insmod(MODULE_PATH);
}

/*
 * The 9p modules, in the order fetch-kernels.sh wrote (dependencies
 * first), then /host, /scratch and /usr.  Returns 0, or an errno with
 * @what naming the step that failed.
 */
static int step_host(char *what, size_t len)
{
	char name[128], path[256];
	FILE *order = fopen(HOST_MODULES "/order", "r");
	int err;

	while (order && fgets(name, sizeof(name), order)) {
		name[strcspn(name, "\n")] = '\0';
		snprintf(path, sizeof(path), HOST_MODULES "/%s", name);
		err = insmod(path);
		if (err && err != EEXIST) {
			snprintf(what, len, "insmod %s", path);
			fclose(order);
			return err;
		}
	}
	if (order)
		fclose(order);
	mkdir("/host", 0755);
	mkdir("/scratch", 0755);
	/* The host's / does not change under a test: let the guest cache. */
	if (mount("host", "/host", "9p", MS_RDONLY,
		  "trans=virtio,version=9p2000.L,msize=262144,cache=loose")) {
		snprintf(what, len, "mount /host");
		return errno;
	}
	if (mount("scratch", "/scratch", "9p", 0,
		  "trans=virtio,version=9p2000.L,msize=262144,cache=mmap")) {
		snprintf(what, len, "mount /scratch");
		return errno;
	}
	mkdir("/usr", 0755);
	if (mount("/host/usr", "/usr", NULL, MS_BIND, NULL)) {
		snprintf(what, len, "bind /host/usr on /usr");
		return errno;
	}
	snprintf(what, len, "/host, /scratch and /usr mounted");
	return 0;
}

static int step_rmmod(void)
{
	return syscall(SYS_delete_module, "skas", O_NONBLOCK) ? errno : 0;
}

/* fork + exec argv with stdout/stderr on @out_fd; returns the wait status. */
static int run(char *const argv[], int out_fd)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (out_fd >= 0) {
			dup2(out_fd, 1);
			dup2(out_fd, 2);
		}
		if (chdir(TREE))
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	/*
	 * As PID 1, reap every child: orphans (killed guests' stubs, a
	 * test's leftovers) are reparented to init and would stay zombies.
	 */
	for (;;) {
		pid_t w = wait(&status);

		if (w == pid)
			return status;
		if (w < 0 && errno != EINTR)
			return -1;
	}
}

static void step_tests(void)
{
	char *argv[] = { "/bin/sh", TREE "/selftests/run-tests.sh",
			 TREE "/selftests/vm.list", NULL };
	char *filter = getenv("skas_tests"), *p;
	char *argv_one[] = { "/bin/sh", TREE "/selftests/run-tests.sh",
			     "-t", filter, TREE "/selftests/vm.list", NULL };

	/* vm-test.sh sends the filter's spaces as '+' (see there). */
	for (p = filter; p && *p; p++)
		if (*p == '+')
			*p = ' ';
	run(filter && *filter ? argv_one : argv, fileno(results));
}

/* Returns 1 if kmemleak found something, 0 if not, -1 if it is absent. */
static int step_kmemleak(void)
{
	static const char path[] = "/sys/kernel/debug/kmemleak";
	char buf[4096];
	int found = 0;
	ssize_t n;
	int fd, i;

	/* Objects must be older than kmemleak's minimum age (5 s) to count. */
	for (i = 0; i < 2; i++) {
		fd = open(path, O_WRONLY);
		if (fd < 0)
			return -1;
		if (write(fd, "scan", 4) < 0)
			return -1;
		close(fd);
		sleep(6);
	}
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		found = 1;
		fwrite(buf, 1, n, results);
	}
	close(fd);
	return found;
}

static void kmemleak_clear(void)
{
	int fd = open("/sys/kernel/debug/kmemleak", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "clear", 5) < 0)
			perror("kmemleak clear");
		close(fd);
	}
}

static void step_dmesg(void)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf;

	if (len <= 0)
		return;
	buf = malloc(len);
	if (!buf)
		return;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	say("---- dmesg ----\n");
	if (len > 0)
		fwrite(buf, 1, len, results);
	say("---- end dmesg ----\n");
	free(buf);
}

static void mode_check(void)
{
	int err, leak;

	kmemleak_clear();
	err = step_insmod();
	report(!err, "insmod skas.ko", err);
	if (!err) {
		step_tests();
		err = step_rmmod();
		report(!err, "rmmod skas after the tests", err);
	}
	leak = step_kmemleak();
	if (leak >= 0)
		report(!leak, "kmemleak reports no leak", EIO);
	step_dmesg();
}

static void mode_demo(void)
{
	char *sh_cmd[] = { "/bin/sh", "/demo-cmd", NULL };
	char *sh_tty[] = { "/bin/setsid", "/bin/cttyhack", "/bin/sh", "-l", NULL };
	char *guest_tty[] = { "/bin/setsid", "/bin/cttyhack", UMLRUN,
			      "/bin/busybox", "sh", NULL };
	int err = step_insmod(), status;

	if (err)
		fprintf(stderr, "init: insmod skas.ko: %s\n", strerror(err));
	if (access("/demo-cmd", R_OK) == 0) {
		status = run(sh_cmd, -1);
		say("SKAS-STATUS %d\n", WIFEXITED(status) ? WEXITSTATUS(status) :
		    128 + WTERMSIG(status));
	} else if (access(UMLRUN, X_OK) == 0) {
		printf("\nskas demo VM: /dev/skas is loaded, the tree is in %s.\n"
		       "This is busybox sh running as guest pid 1 under umlrun\n"
		       "(backend: $UML_BACKEND, else skas when usable, else ptrace).\n"
		       "The host's / is at /host (its /usr on /usr), /scratch is\n"
		       "writable: umlrun --root=/host /usr/bin/python3 runs Debian's.\n"
		       "'exit' leaves the guest for the VM's own shell.\n\n", TREE);
		run(guest_tty, -1);
		printf("\nBack in the VM's shell. 'exit' powers off.\n\n");
		run(sh_tty, -1);
	} else {
		printf("\nskas demo VM: /dev/skas is loaded, the tree is in %s.\n"
		       "Leave with 'exit' (or Ctrl-D).\n\n", TREE);
		run(sh_tty, -1);
	}
}

/* Benchmarks print, never assert: only init's own steps are counted. */
static void mode_bench(void)
{
	char *argv[] = { "/bin/sh", BENCH, NULL };
	int err = step_insmod();

	report(!err, "insmod skas.ko", err);
	run(argv, fileno(results));
	if (!err) {
		err = step_rmmod();
		report(!err, "rmmod skas after the benchmarks", err);
	}
	step_dmesg();
}

int main(void)
{
	const char *mode = getenv("skas_mode");
	char what[300];
	int err;

	step_mount();
	step_console();
	step_loopback();
	err = step_host(what, sizeof(what));
	if (mode && !strcmp(mode, "demo")) {
		if (err)
			fprintf(stderr, "init: %s: %s\n", what, strerror(err));
	} else {
		report(!err, what, err);
	}
	if (mode && !strcmp(mode, "demo"))
		mode_demo();
	else if (mode && !strcmp(mode, "bench"))
		mode_bench();
	else
		mode_check();
	say("SKAS-DONE\n");
	fclose(results);
	poweroff();
	return 0;
}
