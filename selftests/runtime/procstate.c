// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/<pid>/stat, /proc/<pid>/task/<tid>/stat and /proc/thread-self as
 * the kernel's: each shows its own thread's state (LTP's futex_wait03
 * waits for its main thread, blocked in a futex, to show S while another
 * thread runs).  Bad thread numbers are ENOENT.  A zombie child's stat
 * and status say Z until it is reaped (LTP's semctl01 waits for that),
 * then they are gone.  busybox.sh compares the output with the native one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned int word;
static volatile int child_tid;

/* @path's text into @buf, or -errno (-EIO for an empty file). */
static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	return 0;
}

/* The state letter of @path's stat (and its first field), or -errno. */
static int state_of(const char *path, long *first)
{
	char buf[512], *p;
	int r = read_text(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	p = strrchr(buf, ')');
	if (!p || !p[1] || !p[2])
		return -EIO;
	if (first)
		*first = strtol(buf, NULL, 10);
	return p[2];
}

/* The letter of "State:" in @path, or -errno. */
static int status_state(const char *path)
{
	char buf[1024], *p;
	int r = read_text(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	p = strstr(buf, "State:\t");
	return p ? p[7] : -EIO;
}

/* Wait up to 5 s for @path to show @want; the state last seen. */
static int wait_state(const char *path, int want)
{
	int s = 0, i;

	for (i = 0; i < 500; i++) {
		s = state_of(path, NULL);
		if (s == want)
			break;
		usleep(10000);
	}
	return s;
}

/* A thread's comm: the program's name, which it inherited. */
static void show_comm(const char *path)
{
	char buf[64];

	printf("its task comm: %s",
	       read_text(path, buf, sizeof(buf)) ? "unreadable\n" : buf);
}

static void show_state(const char *what, int s)
{
	if (s < 0)
		printf("%s: %s\n", what, strerror(-s));
	else
		printf("%s: %c\n", what, s);
}

static long futex_op(int op, unsigned int val)
{
	return syscall(SYS_futex, &word, op | FUTEX_PRIVATE_FLAG, val, NULL,
		       NULL, 0);
}

/* futex_wait03: the main thread waits, this one sees it sleep. */
static void *waker(void *arg)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)arg);
	show_state("main thread in a futex wait, its /proc/<pid>/stat",
		   wait_state(path, 'S'));
	while (futex_op(FUTEX_WAKE, 1) != 1)
		usleep(1000);
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	child_tid = syscall(SYS_gettid);
	while (!__atomic_load_n(&word, __ATOMIC_SEQ_CST))
		futex_op(FUTEX_WAIT, 0);
	return NULL;
}

static void bad_tasks(void)
{
	static const char *const names[] = { "0", "-1", "99999", "1x", "" };
	char path[64];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", names[i]);
		printf("task \"%s\": ", names[i]);
		show_state("stat", state_of(path, NULL));
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", getppid());
	show_state("the parent's pid as a task of ours", state_of(path, NULL));
}

/* A child that has exited and is not reaped yet. */
static void zombie(void)
{
	char path[64], cmd[16];
	pid_t c = fork();
	int n;

	if (c == 0)
		_exit(0);
	snprintf(path, sizeof(path), "/proc/%d/stat", c);
	show_state("a zombie child's stat", wait_state(path, 'Z'));
	snprintf(path, sizeof(path), "/proc/%d/status", c);
	show_state("its status", status_state(path));
	snprintf(path, sizeof(path), "/proc/%d/cmdline", c);
	n = read_text(path, cmd, sizeof(cmd));
	printf("its cmdline: %s\n", n == -EIO ? "empty" : "not empty");
	waitpid(c, NULL, 0);
	snprintf(path, sizeof(path), "/proc/%d/stat", c);
	show_state("reaped", state_of(path, NULL));
}

int main(void)
{
	char path[64];
	pthread_t th;
	long first;
	int s;

	/* The main thread blocks; another thread reads its state. */
	pthread_create(&th, NULL, waker, (void *)(long)getpid());
	while (futex_op(FUTEX_WAIT, 0) && errno == EINTR)
		;
	pthread_join(th, NULL);
	printf("main thread woken\n");

	/* Another thread blocks; the main thread reads both states. */
	word = 0;
	pthread_create(&th, NULL, sleeper, NULL);
	while (!child_tid)
		usleep(1000);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", child_tid);
	show_state("a thread in a futex wait, its task stat", wait_state(path, 'S'));
	s = state_of(path, &first);
	printf("its first field is its tid: %s\n",
	       first == child_tid ? "yes" : "no");
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", child_tid);
	show_state("its task status", status_state(path));
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", child_tid);
	show_comm(path);
	show_state("the running main thread, /proc/self/stat",
		   state_of("/proc/self/stat", NULL));
	show_state("/proc/self/status", status_state("/proc/self/status"));
	s = state_of("/proc/thread-self/stat", &first);
	show_state("/proc/thread-self/stat", s);
	printf("its first field is our tid: %s\n",
	       first == syscall(SYS_gettid) ? "yes" : "no");
	bad_tasks();
	__atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
	futex_op(FUTEX_WAKE, 1);
	pthread_join(th, NULL);
	zombie();
	return 0;
}
