// SPDX-License-Identifier: GPL-2.0-only
/*
 * File I/O that umlrun may run natively in the guest (fdpass.c) mixed with
 * the calls it answers itself, on the same fds: every line is printed
 * natively and as a guest, and compared.  Offsets, sizes and flags must be
 * one whichever side does a call; a closed, replaced, close-on-exec or
 * vfork-child fd must never reach the file it named before.
 *
 *   fileio PART    coherence, fork, exec, vfork, fsize, reuse, many,
 *                  threads, race, devices
 *   fileio bytes N read a 4 KiB file one byte a call, N times over (for
 *                  umlrun --stats: those reads should not trap)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *self_path;

/* The result of a call: its value, or its errno's name. */
static void show(const char *what, long r)
{
	if (r < 0)
		printf("%s: %s\n", what, strerrorname_np(errno));
	else
		printf("%s: %ld\n", what, r);
}

static int make_file(const char *name, const char *text, int flags)
{
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC | flags, 0600);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror(name);
		exit(2);
	}
	return fd;
}

/* Enough I/O calls on @fd for umlrun to install and mark it. */
static void warm(int fd)
{
	struct stat st;
	int i;

	for (i = 0; i < 3; i++)
		fstat(fd, &st);
}

static void read_show(const char *what, int fd, size_t n)
{
	char buf[64] = "";
	ssize_t r = read(fd, buf, n < sizeof(buf) - 1 ? n : sizeof(buf) - 1);

	if (r < 0)
		printf("%s: %s\n", what, strerrorname_np(errno));
	else
		printf("%s: %zd '%.*s'\n", what, r, (int)r, buf);
}

static void part_coherence(void)
{
	struct iovec iov;
	struct stat st;
	char buf[16];
	int fd, fa, p[2];
	off_t off;

	fd = make_file("co", "0123456789abcdefghij", 0);
	warm(fd);
	show("lseek set 2", lseek(fd, 2, SEEK_SET));
	read_show("read 3", fd, 3);
	/* preadv2 is never native: the runtime's read, at the same offset */
	iov.iov_base = buf;
	iov.iov_len = 4;
	show("preadv2 at -1", preadv2(fd, &iov, 1, -1, 0));
	printf("  got '%.4s'\n", buf);
	show("lseek cur", lseek(fd, 0, SEEK_CUR));
	read_show("read 2", fd, 2);
	/* sendfile moves the offset too */
	if (pipe(p))
		exit(2);
	show("sendfile 3", sendfile(p[1], fd, NULL, 3));
	show("lseek cur", lseek(fd, 0, SEEK_CUR));
	read_show("pipe", p[0], 3);
	/* writes, then size by fstat and by the runtime's stat */
	show("lseek end", lseek(fd, 0, SEEK_END));
	show("write", write(fd, "XYZ", 3));
	show("fstat size", fstat(fd, &st) ? -1 : (long)st.st_size);
	show("ftruncate 10", ftruncate(fd, 10));
	show("fstat size", fstat(fd, &st) ? -1 : (long)st.st_size);
	show("stat size", stat("co", &st) ? -1 : (long)st.st_size);
	show("pwrite at 4", pwrite(fd, "pw", 2, 4));
	show("pread at 3", pread(fd, buf, 4, 3));
	printf("  got '%.4s'\n", buf);
	/* O_APPEND set by fcntl (the runtime) applies to native writes */
	show("setfl append", fcntl(fd, F_SETFL, O_APPEND));
	show("lseek set 0", lseek(fd, 0, SEEK_SET));
	show("write", write(fd, "ap", 2));
	show("lseek cur", lseek(fd, 0, SEEK_CUR));
	/* a dup shares the offset; read-only and write-only ends */
	fa = dup(fd);
	show("lseek dup 1", lseek(fa, 1, SEEK_SET));
	read_show("read orig", fd, 2);
	close(fa);
	fa = open("co", O_RDONLY);
	warm(fa);
	show("write on O_RDONLY", write(fa, "n", 1));
	close(fa);
	fa = open("co", O_WRONLY);
	warm(fa);
	read_show("read on O_WRONLY", fa, 1);
	close(fa);
	/* a pipe dup2'd over a warm file fd: the pipe, not the file */
	show("dup2 pipe over fd", dup2(p[1], fd) == fd);
	show("write", write(fd, "pp", 2));
	read_show("pipe", p[0], 2);
	off = lseek(fd, 0, SEEK_CUR);
	show("lseek pipe", off);
	close(fd);
	close(p[0]);
	close(p[1]);
	show("read closed", read(fd, buf, 1));
	show("fstat closed", fstat(fd, &st));
}

static void part_fork(void)
{
	int fd = make_file("fk", "aaaaabbbbbcccccddddd", 0);
	pid_t pid;

	lseek(fd, 0, SEEK_SET);
	warm(fd);
	read_show("parent", fd, 5);
	pid = fork();
	if (pid == 0) {
		read_show("child", fd, 5);
		close(fd);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	read_show("parent after", fd, 5);
	close(fd);
}

static void part_exec(void)
{
	int keep = make_file("ex1", "keep-this-file", 0);
	int gone = make_file("ex2", "gone-on-exec", O_CLOEXEC);
	char a[16], b[16];

	lseek(keep, 0, SEEK_SET);
	lseek(gone, 0, SEEK_SET);
	warm(keep);
	warm(gone);
	read_show("keep", keep, 4);
	read_show("gone", gone, 4);
	fflush(stdout);
	snprintf(a, sizeof(a), "%d", keep);
	snprintf(b, sizeof(b), "%d", gone);
	execl(self_path, self_path, "exec-child", a, b, (char *)NULL);
	perror("execl");
	exit(2);
}

static void part_exec_child(int keep, int gone)
{
	struct stat st;

	read_show("after exec keep", keep, 5);
	read_show("after exec gone", gone, 4);
	show("fstat gone", fstat(gone, &st));
	show("lseek gone", lseek(gone, 0, SEEK_SET));
}

/* vfork: the child's dup2 and close are its own table's, not ours. */
static void part_vfork(void)
{
	int fd = make_file("vf", "parent-file", 0);
	char buf[16] = "";
	int p[2];
	pid_t pid;

	lseek(fd, 0, SEEK_SET);
	warm(fd);
	if (pipe(p))
		exit(2);
	pid = vfork();
	if (pid == 0) {
		/* Only what a vfork child may do: syscalls, then _exit. */
		if (dup2(p[1], fd) < 0 || write(fd, "child", 5) != 5)
			_exit(3);
		close(fd);
		if (read(fd, buf, 1) != -1 || errno != EBADF)
			_exit(4);
		_exit(0);
	}
	{
		int st;

		waitpid(pid, &st, 0);
		show("child status", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	read_show("pipe", p[0], 5);
	read_show("parent fd", fd, 6);
	show("write parent", write(fd, "!", 1));
	show("lseek parent", lseek(fd, 0, SEEK_CUR));
	close(fd);
	close(p[0]);
	close(p[1]);
}

static void part_fsize(void)
{
	struct rlimit rl = { 100, RLIM_INFINITY };
	char big[80];
	int fd = make_file("fs", "0123456789", 0);

	memset(big, 'x', sizeof(big));
	signal(SIGXFSZ, SIG_IGN);
	warm(fd);
	show("write 80", write(fd, big, 80));
	show("setrlimit fsize 100", setrlimit(RLIMIT_FSIZE, &rl));
	show("write 80", write(fd, big, 80));
	show("write 80", write(fd, big, 80));
	show("pwrite at 99", pwrite(fd, big, 2, 99));
	show("writev", writev(fd, &(struct iovec){ big, 4 }, 1));
	rl.rlim_cur = RLIM_INFINITY;
	show("setrlimit fsize inf", setrlimit(RLIMIT_FSIZE, &rl));
	show("write 80", write(fd, big, 80));
	close(fd);
}

/* /dev/null and /dev/zero, which umlrun passes through as well. */
static void part_devices(void)
{
	int z = open("/dev/zero", O_RDONLY), n = open("/dev/null", O_RDWR);
	char buf[8] = "xxxxxxx";
	struct stat st;
	int i;

	for (i = 0; i < 3; i++) {
		show("read zero", read(z, buf, 4));
		show("write null", write(n, "abc", 3));
		show("read null", read(n, buf, 4));
	}
	show("zero bytes", buf[0] == 0 && buf[3] == 0 && buf[4] == 'x');
	show("write zero", write(z, "a", 1));
	show("lseek null", lseek(n, 10, SEEK_SET));
	show("fstat null rdev", fstat(n, &st) ? -1 : (long)st.st_rdev);
	show("pread zero", pread(z, buf, 2, 100));
	close(z);
	close(n);
}

/* A number reused for a file the runtime makes up (/proc). */
static void part_reuse(void)
{
	int fd = make_file("ru", "regular", 0), fd2;
	char buf[64] = "";
	long pid;

	warm(fd);
	close(fd);
	fd2 = open("/proc/self/stat", O_RDONLY);
	show("same number", fd2 == fd);
	if (read(fd2, buf, sizeof(buf) - 1) > 0 &&
	    sscanf(buf, "%ld", &pid) == 1)
		show("stat pid is getpid", pid == getpid());
	else
		show("read /proc/self/stat", -1);
	warm(fd2);
	show("lseek 0", lseek(fd2, 0, SEEK_SET));
	show("read again", read(fd2, buf, 5) == 5 && atol(buf) == getpid());
	close(fd2);
}

/* Many files opened, read, closed: numbers change owners all the time. */
static void part_many(void)
{
	int fds[40], i, j, bad = 0;
	char name[16], buf[16];

	for (j = 0; j < 5; j++) {
		for (i = 0; i < 40; i++) {
			snprintf(name, sizeof(name), "m%d", i);
			fds[i] = make_file(name, name, 0);
			lseek(fds[i], 0, SEEK_SET);
			warm(fds[i]);
		}
		for (i = 0; i < 40; i++) {
			ssize_t r = read(fds[i], buf, sizeof(buf));

			snprintf(name, sizeof(name), "m%d", i);
			if (r != (ssize_t)strlen(name) || memcmp(buf, name, r))
				bad++;
			if (i % 2)
				close(fds[i]);
		}
		for (i = 0; i < 40; i += 2)
			close(fds[i]);
	}
	show("mismatches", bad);
}

static int th_fd;

static void *th_read(void *arg)
{
	long base = (long)arg, bad = 0;
	char c;
	int i;

	for (i = 0; i < 2000; i++)
		if (pread(th_fd, &c, 1, base + i % 26) != 1 ||
		    c != 'a' + (base + i % 26) % 26)
			bad++;
	return (void *)bad;
}

static void part_threads(void)
{
	char text[53];
	pthread_t th[3];
	long bad = 0;
	void *r;
	int i;

	for (i = 0; i < 52; i++)
		text[i] = 'a' + i % 26;
	text[52] = 0;
	th_fd = make_file("th", text, 0);
	warm(th_fd);
	for (i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, th_read, (void *)(long)i);
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], &r);
		bad += (long)r;
	}
	show("thread mismatches", bad);
	close(th_fd);
}

/*
 * One thread reads fd N while another closes it and opens another file
 * there, over and over: each read gets one of the two files, or EBADF,
 * never a third file (a secret one, open at another number all along).
 */
static volatile int race_stop;
static int race_fd;

static void *race_read(void *arg)
{
	long odd = 0;
	char c;

	(void)arg;
	while (!race_stop) {
		ssize_t r = pread(race_fd, &c, 1, 0);

		if ((r == 1 && c != 'A' && c != 'B') ||
		    (r < 0 && errno != EBADF) || r == 0)
			odd++;
		r = read(race_fd, &c, 1);
		if (r == 1 && c != 'A' && c != 'B')
			odd++;
	}
	return (void *)odd;
}

static void part_race(void)
{
	int secret = make_file("rs", "S", 0), i, fd;
	pthread_t th;
	void *odd;

	fd = make_file("ra", "A", 0);
	make_file("rb", "B", 0);
	race_fd = fd;
	pthread_create(&th, NULL, race_read, NULL);
	for (i = 0; i < 300; i++) {
		close(fd);
		if (open(i % 2 ? "ra" : "rb", O_RDONLY) != fd)
			printf("open: not the same number\n");
	}
	race_stop = 1;
	pthread_join(th, &odd);
	show("odd reads", (long)odd);
	close(fd);
	close(secret);
}

static void bytes(long n)
{
	char text[4096], c;
	long sum = 0, i;
	int fd;

	memset(text, 'b', sizeof(text));
	text[sizeof(text) - 1] = 0;
	fd = make_file("by", text, 0);
	for (i = 0; i < n; i++) {
		if (lseek(fd, 0, SEEK_SET) != 0)
			exit(3);
		while (read(fd, &c, 1) == 1)
			sum += c;
	}
	close(fd);
	printf("bytes: %ld\n", sum);
}

static const struct {
	const char *name;
	void (*fn)(void);
} parts[] = {
	{ "coherence", part_coherence }, { "fork", part_fork },
	{ "exec", part_exec }, { "vfork", part_vfork },
	{ "fsize", part_fsize }, { "reuse", part_reuse },
	{ "many", part_many }, { "threads", part_threads },
	{ "race", part_race }, { "devices", part_devices },
};

int main(int argc, char **argv)
{
	size_t i;

	self_path = argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "exec-child")) {
		part_exec_child(atoi(argv[2]), atoi(argv[3]));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "bytes")) {
		bytes(atol(argv[2]));
		return 0;
	}
	for (i = 0; argc == 2 && i < sizeof(parts) / sizeof(parts[0]); i++)
		if (!strcmp(argv[1], parts[i].name)) {
			parts[i].fn();
			return 0;
		}
	fprintf(stderr, "usage: fileio PART | bytes N\n");
	return 2;
}
