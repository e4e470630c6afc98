// SPDX-License-Identifier: GPL-2.0-only
/*
 * Calls that LTP's syscalls suite found wrong in umlrun, one case per
 * argument: each prints what the call returned (and errno), and
 * busybox.sh compares the output with the native one.
 *
 *   ltpcalls pipesz    fcntl F_GETPIPE_SZ / F_SETPIPE_SZ
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void show(const char *what, long r)
{
	if (r < 0)
		printf("%s: -1 %s\n", what, strerrorname_np(errno));
	else
		printf("%s: %ld\n", what, r);
}

static int pipesz(void)
{
	int p[2], fd = open(".", O_RDONLY | O_DIRECTORY);

	if (pipe(p))
		return 1;
	show("get", fcntl(p[0], F_GETPIPE_SZ));
	show("set 4096 (write end)", fcntl(p[1], F_SETPIPE_SZ, 4096));
	show("get (read end)", fcntl(p[0], F_GETPIPE_SZ));
	show("set 5000 rounds up", fcntl(p[0], F_SETPIPE_SZ, 5000));
	show("set 0 is one page", fcntl(p[0], F_SETPIPE_SZ, 0));
	show("write 3 bytes", write(p[1], "abc", 3));
	show("set 1 MiB keeps the data", fcntl(p[0], F_SETPIPE_SZ, 1 << 20));
	show("read", read(p[0], (char[8]){ 0 }, 8));
	show("get on a directory", fcntl(fd, F_GETPIPE_SZ));
	show("set on a directory", fcntl(fd, F_SETPIPE_SZ, 4096));
	show("get on a bad fd", fcntl(999, F_GETPIPE_SZ));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "pipesz"))
		return pipesz();
	fprintf(stderr, "usage: ltpcalls pipesz\n");
	return 2;
}
