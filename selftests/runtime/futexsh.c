// SPDX-License-Identifier: GPL-2.0-only
/*
 * Futexes shared between processes, as LTP's checkpoints use them
 * (TST_CHECKPOINT_WAIT/WAKE: a word in a MAP_SHARED file that a test and
 * its forked or exec'd children map).  A non-private futex is keyed by
 * what is mapped, not by the address space: a shared anonymous mapping
 * inherited over fork, the same file mapped in two processes (at other
 * addresses, at another file offset, split by mprotect).  A private one
 * (FUTEX_PRIVATE_FLAG) is keyed by the address space: it does not wake
 * another process.  Prints one line per case; busybox.sh compares the
 * output with the native one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

/*
 * The child waits on *cw (its own mapping of the word); the parent wakes
 * *pw (its mapping of the same word, or not) with @op until someone is
 * woken: for up to 3 s (the child waits 5) if @wakes, else 0.3 s (the
 * child waits 0.6).  Prints how many the parent woke and how the child's
 * wait ended.
 */
static void wake_case(const char *name, uint32_t *pw, uint32_t *(*child_map)(void),
		      int op, int wakes)
{
	struct timespec ts = { wakes ? 5 : 0, wakes ? 0 : 600 * 1000 * 1000 };
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	int i, status, tries = wakes ? 300 : 30;
	long woken = 0;
	pid_t pid;

	*pw = 0;
	pid = fork();
	if (pid == 0) {
		uint32_t *cw = child_map();
		long r = futex(cw, FUTEX_WAIT, 0, &ts);

		_exit(r == 0 ? 0 : errno == ETIMEDOUT ? 1 : 2);
	}
	for (i = 0; i < tries && woken == 0; i++) {
		nanosleep(&nap, NULL);
		woken = futex(pw, op, 1, NULL);
	}
	waitpid(pid, &status, 0);
	printf("%s: woke %ld, child %s\n", name, woken,
	       !WIFEXITED(status) ? "killed" :
	       WEXITSTATUS(status) == 0 ? "woken" :
	       WEXITSTATUS(status) == 1 ? "timed out" : "failed");
}

static uint32_t *anon;
static char path[64];

static uint32_t *inherited(void)
{
	return anon;
}

/* The file anew, in a mapping of its own: page 1 at offset 1 page. */
static uint32_t *file_at_offset(void)
{
	int fd = open(path, O_RDWR);
	char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096);

	if (m == MAP_FAILED)
		_exit(3);
	close(fd);
	return (uint32_t *)(m + 8);
}

/* The file anew, whole, its first page made read-only (a split mapping). */
static uint32_t *file_split(void)
{
	int fd = open(path, O_RDWR);
	char *m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED || mprotect(m, 4096, PROT_READ))
		_exit(3);
	close(fd);
	return (uint32_t *)(m + 4096 + 8);
}

int main(void)
{
	char *file;
	int fd;

	anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		return 1;
	wake_case("shared anonymous, over fork", anon, inherited, FUTEX_WAKE, 1);
	wake_case("shared anonymous, private wake", anon, inherited,
		  FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 0);

	snprintf(path, sizeof(path), "futexsh.%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 3 * 4096))
		return 1;
	file = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (file == MAP_FAILED)
		return 1;
	close(fd);
	wake_case("one file, mapped at another offset", (uint32_t *)(file + 4096 + 8),
		  file_at_offset, FUTEX_WAKE, 1);
	wake_case("one file, the other mapping split", (uint32_t *)(file + 4096 + 8),
		  file_split, FUTEX_WAKE, 1);
	wake_case("one file, another word", (uint32_t *)(file + 4096 + 12),
		  file_split, FUTEX_WAKE, 0);
	unlink(path);
	return 0;
}
