// SPDX-License-Identifier: GPL-2.0
/*
 * Page faults in a UML guest: many pages touched (rounds of map, touch,
 * check, unmap), mprotect turning writes into SIGSEGV and back, PROT_NONE,
 * an unmapped hole, copy-on-write across fork, a shared mapping between
 * two processes, mremap, MADV_DONTNEED, a file mapping, stack growth.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report.h"

#define PAGE	4096UL
#define MB	(1024UL * 1024)

static sigjmp_buf jb;
static volatile int segv_code;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	segv_code = si->si_code;
	siglongjmp(jb, 1);
}

/* 1 if writing (or reading) *p faulted; si_code in segv_code. */
static int faults(volatile char *p, int write)
{
	segv_code = 0;
	if (sigsetjmp(jb, 1))
		return 1;
	if (write)
		*p = 1;
	else
		(void)*p;
	return 0;
}

static char *map(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		result("mmap", 0, "%zu bytes", len);
		exit(1);
	}
	return p;
}

static void fill(char *p, size_t len, unsigned int seed)
{
	for (size_t o = 0; o < len; o += PAGE)
		*(uint32_t *)(p + o) = seed ^ (uint32_t)(o / PAGE);
}

static int check(const char *p, size_t len, unsigned int seed)
{
	for (size_t o = 0; o < len; o += PAGE)
		if (*(const uint32_t *)(p + o) != (seed ^ (uint32_t)(o / PAGE)))
			return 0;
	return 1;
}

static int grow(int depth)
{
	volatile char buf[16384];

	buf[0] = (char)depth;
	buf[sizeof(buf) - 1] = (char)depth;
	if (depth == 0)
		return buf[0];
	return grow(depth - 1) + buf[sizeof(buf) - 1] - depth;
}

int main(void)
{
	struct sigaction sa;
	int status, good;
	char *p, *q;
	pid_t pid;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);

	/* Rounds of 16 MB: 4096 new pages each, 16384 faults in all. */
	good = 1;
	for (int round = 0; round < 4 && good; round++) {
		p = map(16 * MB);
		fill(p, 16 * MB, 0x5a5a0000u + round);
		good = check(p, 16 * MB, 0x5a5a0000u + round);
		munmap(p, 16 * MB);
	}
	result("16384 pages touched in 4 rounds", good, "a page lost its value");

	/* mprotect: read-only faults on write (SEGV_ACCERR), then writable. */
	p = map(64 * PAGE);
	fill(p, 64 * PAGE, 7);
	mprotect(p + 16 * PAGE, 32 * PAGE, PROT_READ);
	int ro = 0;

	for (int i = 16; i < 48; i++)
		ro += faults(p + i * PAGE + 8, 1) && segv_code == SEGV_ACCERR;
	int rw = !faults(p + 15 * PAGE + 8, 1) && !faults(p + 48 * PAGE + 8, 1);

	mprotect(p + 16 * PAGE, 32 * PAGE, PROT_READ | PROT_WRITE);
	int back = !faults(p + 20 * PAGE + 8, 1);

	result("mprotect read-only, then writable again", ro == 32 && rw && back &&
	       check(p, 64 * PAGE, 7), "ro %d rw %d back %d", ro, rw, back);

	/* PROT_NONE faults on read; the data is there after. */
	mprotect(p, 8 * PAGE, PROT_NONE);
	int none = faults(p + PAGE, 0) && segv_code == SEGV_ACCERR;

	mprotect(p, 8 * PAGE, PROT_READ);
	result("PROT_NONE faults on read, keeps the data", none && check(p, 8 * PAGE, 7),
	       "none %d", none);

	/* A hole: SEGV_MAPERR. */
	munmap(p + 32 * PAGE, PAGE);
	int hole = faults(p + 32 * PAGE, 0) && segv_code == SEGV_MAPERR;

	result("unmapped page faults with SEGV_MAPERR", hole, "code %d", segv_code);
	munmap(p, 64 * PAGE);

	/* Copy-on-write: the child writes every page, the parent's stay. */
	p = map(8 * MB);
	fill(p, 8 * MB, 11);
	pid = fork();
	if (pid == 0) {
		fill(p, 8 * MB, 12);
		_exit(check(p, 8 * MB, 12) ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	result("copy-on-write across fork", WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	       check(p, 8 * MB, 11), "status 0x%x", status);

	/* MADV_DONTNEED: private anonymous pages read back as zero. */
	madvise(p, 8 * MB, MADV_DONTNEED);
	good = 1;
	for (size_t o = 0; o < 8 * MB; o += PAGE)
		good &= p[o] == 0;
	result("MADV_DONTNEED zeroes the pages", good, "a page kept data");
	munmap(p, 8 * MB);

	/* Shared anonymous memory: the child's writes show in the parent. */
	q = mmap(NULL, MB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid = fork();
	if (pid == 0) {
		fill(q, MB, 21);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	result("shared mapping between processes", check(q, MB, 21), "parent misses writes");
	munmap(q, MB);

	/* mremap: grow and move, the old contents follow. */
	p = map(MB);
	fill(p, MB, 31);
	q = mremap(p, MB, 4 * MB, MREMAP_MAYMOVE);
	good = q != MAP_FAILED && check(q, MB, 31);
	if (good) {
		fill(q + MB, 3 * MB, 32);
		good = check(q + MB, 3 * MB, 32);
		munmap(q, 4 * MB);
	}
	result("mremap grows a mapping", good, "contents lost");

	/* A file mapping (on the guest's tmpfs). */
	int fd = open("/tmp/faults.map", O_RDWR | O_CREAT | O_TRUNC, 0600);

	good = fd >= 0 && ftruncate(fd, 2 * MB) == 0;
	if (good) {
		p = mmap(NULL, 2 * MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		good = p != MAP_FAILED;
	}
	if (good) {
		fill(p, 2 * MB, 41);
		msync(p, 2 * MB, MS_SYNC);
		munmap(p, 2 * MB);
		uint32_t v = 0;

		good = pread(fd, &v, sizeof(v), 100 * PAGE) == sizeof(v) && v == (41u ^ 100);
	}
	if (fd >= 0) {
		close(fd);
		unlink("/tmp/faults.map");
	}
	result("shared file mapping reaches the file", good, "value not in the file");

	/* Stack growth: 120 frames of 16 KB. */
	result("stack grows by about 2 MB", grow(120) == 0, "wrong value");
	return report_done();
}
