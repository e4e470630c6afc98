// SPDX-License-Identifier: GPL-2.0-only
/*
 * sendfile, copy_file_range, splice, tee and vmsplice, against the
 * kernel's rules:
 * file to pipe and back, with and without an offset (which the file
 * position then keeps), a pipe read that waits for another process's
 * write, and bad fds, modes and pointers.  Needs a writable cwd.  Prints
 * "xfer ok", or exits with the number of the check that failed.  Runs
 * natively too: the expectations are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static int fails(long r, int err)
{
	return r != -1 || errno != err;
}

int main(void)
{
	char buf[64];
	loff_t off = 2, off2 = 0;
	off_t soff = 3;
	int f, g, p[2], q[2], st;
	pid_t pid;

	f = open("xfer.in", O_RDWR | O_CREAT | O_TRUNC, 0600);
	g = open("xfer.out", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (f < 0 || g < 0 || write(f, "0123456789", 10) != 10 || pipe(p) || pipe(q))
		return 1;
	/* sendfile: from the position, then from an offset that it keeps. */
	lseek(f, 0, SEEK_SET);
	if (sendfile(p[1], f, NULL, 4) != 4 || lseek(f, 0, SEEK_CUR) != 4 ||
	    read(p[0], buf, 64) != 4 || memcmp(buf, "0123", 4))
		return 2;
	if (sendfile(p[1], f, &soff, 3) != 3 || soff != 6 || lseek(f, 0, SEEK_CUR) != 4 ||
	    read(p[0], buf, 64) != 3 || memcmp(buf, "345", 3))
		return 3;
	/* copy_file_range with both offsets. */
	if (copy_file_range(f, &off, g, &off2, 5, 0) != 5 || off != 7 || off2 != 5 ||
	    pread(g, buf, 64, 0) != 5 || memcmp(buf, "23456", 5))
		return 4;
	if (fails(copy_file_range(f, &off, g, &off2, 5, 1), EINVAL))
		return 5;
	/* splice: file -> pipe -> file, and tee between pipes. */
	off = 0;
	if (splice(f, &off, p[1], NULL, 10, 0) != 10 || off != 10 ||
	    tee(p[0], q[1], 10, 0) != 10 ||
	    splice(p[0], NULL, g, NULL, 10, 0) != 10 ||
	    read(q[0], buf, 64) != 10 || memcmp(buf, "0123456789", 10))
		return 6;
	/* A splice from an empty pipe waits for another process's write. */
	pid = fork();
	if (pid == 0) {
		usleep(50000);
		_exit(write(p[1], "late", 4) != 4);
	}
	if (splice(p[0], NULL, q[1], NULL, 64, 0) != 4 ||
	    waitpid(pid, &st, 0) != pid || st || read(q[0], buf, 64) != 4)
		return 7;
	if (fails(splice(p[0], NULL, q[1], NULL, 64, SPLICE_F_NONBLOCK), EAGAIN))
		return 8;
	/* Bad input. */
	if (fails(sendfile(p[1], 999, NULL, 4), EBADF) ||
	    fails(sendfile(999, f, NULL, 4), EBADF) ||
	    fails(syscall(SYS_sendfile, p[1], f, 8, 4), EFAULT) ||
	    fails(splice(f, NULL, g, NULL, 4, 0), EINVAL) ||
	    fails(tee(f, q[1], 4, 0), EINVAL) ||
	    fails(sendfile(p[0], f, NULL, 4), EBADF))
		return 9;
	unlink("xfer.in");
	unlink("xfer.out");
	/*
	 * vmsplice: into a pipe and out of it; nonblocking when empty; bad
	 * flags, a file that is no pipe, too many segments, a bad vector; no
	 * reader: EPIPE (and SIGPIPE, ignored here).
	 */
	{
		struct iovec in = { "vms", 3 }, outv = { buf, sizeof(buf) };

		memset(buf, 0, sizeof(buf));
		if (vmsplice(p[1], &in, 1, 0) != 3 ||
		    vmsplice(p[0], &outv, 1, 0) != 3 || memcmp(buf, "vms", 3))
			return 10;
		if (fails(vmsplice(p[0], &outv, 1, SPLICE_F_NONBLOCK), EAGAIN) ||
		    fails(vmsplice(p[1], &in, 1, 0x10), EINVAL) ||
		    fails(vmsplice(f, &in, 1, 0), EBADF) ||
		    fails(vmsplice(999, &in, 1, 0), EBADF) ||
		    fails(vmsplice(p[1], &in, 1025, 0), EINVAL) ||
		    fails(vmsplice(p[1], (void *)8, 1, 0), EFAULT) ||
		    vmsplice(p[1], &in, 0, 0) != 0)
			return 11;
		signal(SIGPIPE, SIG_IGN);
		close(p[0]);
		if (fails(vmsplice(p[1], &in, 1, 0), EPIPE))
			return 12;
	}
	puts("xfer ok");
	return 0;
}
