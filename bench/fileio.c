// SPDX-License-Identifier: GPL-2.0
/*
 * File I/O, the bulk of a build's syscalls, in a scratch folder of its own
 * (made and removed by the program, outside the timed part):
 *
 *   pread:  one 4 KiB pread of a 1 MiB file per operation, at a rotating
 *           offset (page cache hits, as a linker's or a compiler's reads).
 *   tree:   one file per operation of a tree of 64 files of 16 KiB: open,
 *           fstat, read it whole 4 KiB at a time, a checksum, close (as
 *           md5sum, cat or a compiler reading its sources).
 *   copy:   one 64 KiB file copied per operation, 4 KiB a read and a write,
 *           into a file opened with O_TRUNC (as cp, or an assembler
 *           writing its object).
 *
 * Usage: fileio pread|tree|copy [N]	(default 10000)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define DIR_	"/tmp/bench-fileio"
#define NFILES	64
#define FSIZE	(16 * 1024)
#define BIG	(1024 * 1024)
#define CSIZE	(64 * 1024)

static char buf[4096];
static unsigned long sum;

static void make(const char *name, long size)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	long i;

	if (fd < 0)
		bench_die("create %s", name);
	for (i = 0; i < (long)sizeof(buf); i++)
		buf[i] = (char)i;
	for (i = 0; i < size; i += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			bench_die("write %s", name);
	close(fd);
}

static void do_pread(int fd, long n, long from)
{
	long i;

	for (i = from; i < from + n; i++) {
		if (pread(fd, buf, sizeof(buf), (i % (BIG / 4096)) * 4096) !=
		    sizeof(buf))
			bench_die("pread");
		sum += (unsigned char)buf[i % sizeof(buf)];
	}
}

static void do_tree(long n, long from)
{
	char name[64];
	struct stat st;
	long i;
	ssize_t r;
	int fd;

	for (i = from; i < from + n; i++) {
		snprintf(name, sizeof(name), DIR_ "/f%ld", i % NFILES);
		fd = open(name, O_RDONLY);
		if (fd < 0 || fstat(fd, &st) || st.st_size != FSIZE)
			bench_die("open %s", name);
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			sum += (unsigned char)buf[r - 1];
		if (r < 0)
			bench_die("read %s", name);
		close(fd);
	}
}

static void do_copy(long n)
{
	long i;
	ssize_t r;
	int in, out;

	for (i = 0; i < n; i++) {
		in = open(DIR_ "/src", O_RDONLY);
		out = open(DIR_ "/dst", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (in < 0 || out < 0)
			bench_die("open");
		while ((r = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, r) != r)
				bench_die("write");
		if (r < 0)
			bench_die("read");
		close(in);
		close(out);
	}
}

int main(int argc, char **argv)
{
	long n = bench_arg(argc, argv, 2, 10000), w = n / 10 + 1, i;
	const char *mode = argc > 1 ? argv[1] : "";
	char name[64];
	double t0;
	int fd = -1;

	if (strcmp(mode, "pread") && strcmp(mode, "tree") && strcmp(mode, "copy")) {
		fprintf(stderr, "usage: fileio pread|tree|copy [N]\n");
		return 2;
	}
	mkdir(DIR_, 0700);
	if (!strcmp(mode, "pread")) {
		make(DIR_ "/big", BIG);
		fd = open(DIR_ "/big", O_RDONLY);
		if (fd < 0)
			bench_die("open big");
		do_pread(fd, w, 0);
		t0 = bench_now_ns();
		do_pread(fd, n, w);
	} else if (!strcmp(mode, "tree")) {
		for (i = 0; i < NFILES; i++) {
			snprintf(name, sizeof(name), DIR_ "/f%ld", i);
			make(name, FSIZE);
		}
		do_tree(w, 0);
		t0 = bench_now_ns();
		do_tree(n, w);
	} else {
		make(DIR_ "/src", CSIZE);
		do_copy(w);
		t0 = bench_now_ns();
		do_copy(n);
	}
	bench_result((bench_now_ns() - t0) / n);
	if (fd >= 0)
		close(fd);
	for (i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), DIR_ "/f%ld", i);
		unlink(name);
	}
	unlink(DIR_ "/big");
	unlink(DIR_ "/src");
	unlink(DIR_ "/dst");
	rmdir(DIR_);
	printf("# checksum %lu\n", sum);
	return 0;
}
