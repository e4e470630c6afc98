// SPDX-License-Identifier: GPL-2.0-only
/*
 * File mappings through mremap and madvise, as the kernel has them: a
 * grown file mapping shows the file's next pages, a moved one (MAYMOVE,
 * FIXED, DONTUNMAP) keeps its contents, private changes and its link to
 * the file (not MREMAP_DONTUNMAP: what kernels allow of it varies, and
 * umlrun refuses it); MADV_DONTNEED re-reads a private file mapping, keeps a shared
 * one and zeroes anonymous memory; MADV_FREE, MADV_REMOVE and MADV_WILLNEED
 * where a process may use them, and the kernel's errno for bad calls.
 * Prints what it sees; busybox.sh compares that with the native run.
 * Needs a writable cwd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PG	4096

static int fd;

/* What page @i of the file holds now: its first byte. */
static char file_pg(int i)
{
	char c = '?';

	pread(fd, &c, 1, (off_t)i * PG);
	return c ? c : '0';
}

static char at(const char *p)
{
	return *p ? *p : '0';
}

static void res(const char *what, long r)
{
	printf("%s: %s\n", what, r == -1 ? strerror(errno) : "ok");
}

/* An address range of @n pages that is free, with a guard page after. */
static char *hole(int n)
{
	char *p = mmap(NULL, (n + 1) * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(p, n * PG);
	return p;
}

static void mremaps(void)
{
	char *p, *q, *r;

	/* Shared, grown in place: the file's next pages. */
	p = hole(3);
	p = mmap(p, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	q = mremap(p, PG, 3 * PG, 0);
	if (q == MAP_FAILED) {
		res("grow shared in place", -1);
	} else {
		printf("grow shared in place: %s, pages %c%c%c\n",
		       q == p ? "same place" : "moved", at(q), at(q + PG), at(q + 2 * PG));
		q[2 * PG] = 'c';
		printf("a write to its new part reaches the file: %c\n", file_pg(2));
		munmap(q, 3 * PG);
	}

	/* Private, changed, then grown where it cannot stay: it moves. */
	p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	r = mmap(p + 2 * PG, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	p[0] = 'x';
	q = mremap(p, 2 * PG, 3 * PG, MREMAP_MAYMOVE);
	printf("grow private, MAYMOVE: %s, pages %c%c%c, file %c\n",
	       q == p ? "same place" : "moved", at(q), at(q + PG), at(q + 2 * PG),
	       file_pg(0));
	munmap(q, 3 * PG);
	munmap(r, PG);

	/* Shared, moved to a place of our choice, same size. */
	p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, PG);
	r = hole(2);
	q = mremap(p, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, r);
	printf("shared, MREMAP_FIXED: %s, pages %c%c\n", q == r ? "there" : "elsewhere",
	       at(q), at(q + PG));
	q[PG] = 'C';
	printf("a write after the move reaches the file: %c\n", file_pg(2));
	printf("the old place is gone: %s\n",
	       msync(p, PG, MS_ASYNC) ? strerror(errno) : "still there");
	munmap(q, 2 * PG);

	/* The kernel's checks. */
	p = mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, fd, 0);
	res("unknown flag", (long)mremap(p, PG, PG, 8) == -1 ? -1 : 0);
	res("FIXED without MAYMOVE", (long)mremap(p, PG, PG, MREMAP_FIXED, p + PG) == -1 ? -1 : 0);
	res("unaligned", (long)mremap(p + 1, PG, PG, 0) == -1 ? -1 : 0);
	res("new length 0", (long)mremap(p, PG, 0, MREMAP_MAYMOVE) == -1 ? -1 : 0);
	res("FIXED onto itself", (long)mremap(p, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, p) == -1 ? -1 : 0);
	res("FIXED unaligned", (long)mremap(p, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, p + 2 * PG + 1) == -1 ? -1 : 0);
	res("longer than the mapping", (long)mremap(p, 3 * PG, 4 * PG, MREMAP_MAYMOVE) == -1 ? -1 : 0);
	munmap(p, 2 * PG);
	res("nothing mapped there", (long)mremap(p, PG, 2 * PG, MREMAP_MAYMOVE) == -1 ? -1 : 0);
}

static void madvises(void)
{
	char *p, *s, *a;

	p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	s = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, PG);
	a = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p[0] = 'p';
	s[0] = 's';
	a[0] = 'a';
	res("MADV_DONTNEED private file", madvise(p, PG, MADV_DONTNEED));
	res("MADV_DONTNEED shared file", madvise(s, PG, MADV_DONTNEED));
	res("MADV_DONTNEED anonymous", madvise(a, PG, MADV_DONTNEED));
	printf("then: private %c (file %c), shared %c (file %c), anonymous %c\n",
	       at(p), file_pg(0), at(s), file_pg(1), at(a));
	res("MADV_WILLNEED file", madvise(s, PG, MADV_WILLNEED));
	res("MADV_WILLNEED anonymous", madvise(a, PG, MADV_WILLNEED));
	res("MADV_FREE file", madvise(p, PG, MADV_FREE));
	res("MADV_FREE anonymous", madvise(a, PG, MADV_FREE));
	res("MADV_REMOVE private file", madvise(p, PG, MADV_REMOVE));
	res("MADV_REMOVE anonymous", madvise(a, PG, MADV_REMOVE));
	res("MADV_REMOVE shared file", madvise(s, PG, MADV_REMOVE));
	printf("then: shared %c, file %c\n", at(s), file_pg(1));
	res("MADV_NORMAL", madvise(a, PG, MADV_NORMAL));
	res("MADV_SEQUENTIAL", madvise(s, PG, MADV_SEQUENTIAL));
	res("MADV_DONTFORK", madvise(a, PG, MADV_DONTFORK));
	res("MADV_DOFORK", madvise(a, PG, MADV_DOFORK));
	res("MADV_DONTDUMP", madvise(a, PG, MADV_DONTDUMP));
	res("MADV_WIPEONFORK file", madvise(s, PG, MADV_WIPEONFORK));
	res("unknown advice", madvise(a, PG, 999));
	res("unaligned", madvise(a + 1, PG, MADV_DONTNEED));
	res("length 0", madvise(a, 0, MADV_DONTNEED));
	res("length wraps", madvise(a, -1UL, MADV_DONTNEED));
	munmap(a + PG, PG);
	res("over a hole", madvise(a, 2 * PG, MADV_DONTNEED));
	res("unknown advice over a hole", madvise(a, 2 * PG, 999));
	munmap(p, PG);
	munmap(s, PG);
	munmap(a, PG);
}

int main(void)
{
	char page[PG];
	int i;

	setvbuf(stdout, NULL, _IONBF, 0);
	fd = open("mmfile.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror("mmfile.data");
		return 1;
	}
	for (i = 0; i < 4; i++) {
		memset(page, 'A' + i, sizeof(page));
		write(fd, page, sizeof(page));
	}
	mremaps();
	madvises();
	unlink("mmfile.data");
	return 0;
}
