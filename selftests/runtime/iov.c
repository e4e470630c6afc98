// SPDX-License-Identifier: GPL-2.0-only
/*
 * readv/writev with hostile iovecs, against the kernel's rules
 * (import_iovec()): a length with the sign bit set is EINVAL, even after
 * segments that already fill a call, and so is a count below 0 or above
 * 1024; a count of 0 does nothing.  Lengths that wrapped the runtime's sum
 * used to make it gather 5 bytes into a 2-byte buffer.  Then a scatter and
 * gather through a pipe must move exactly the bytes asked for.  Prints
 * "iov ok", or exits with the number of the check that failed.  Runs
 * natively too: the expectations are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static int fails(ssize_t r, int err)
{
	return r != -1 || errno != err;
}

int main(void)
{
	static char big[4096], out[16];
	struct iovec iov[1025];
	struct iovec sc[3] = {
		{ out, 3 }, { out + 8, 0 }, { out + 3, 5 },
	};
	int p[2];

	if (pipe(p))
		return 1;
	iov[0] = (struct iovec){ "hello", 5 };
	iov[1] = (struct iovec){ big, (size_t)-3 };
	if (fails(writev(p[1], iov, 2), EINVAL))
		return 2;
	if (fails(readv(p[0], iov + 1, 1), EINVAL))
		return 3;
	/* The sign bit after a segment of the whole limit (2 GiB - 4 KiB). */
	iov[0] = (struct iovec){ big, 0x7ffff000 };
	iov[1] = (struct iovec){ big, 1UL << 63 };
	if (fails(writev(p[1], iov, 2), EINVAL))
		return 4;
	for (int i = 0; i < 1025; i++)
		iov[i] = (struct iovec){ big, 1 };
	if (fails(writev(p[1], iov, 1025), EINVAL))
		return 5;
	if (fails(syscall(SYS_writev, p[1], iov, -1), EINVAL))
		return 6;
	if (writev(p[1], iov, 0) != 0)
		return 7;
	/* Nothing above reached the pipe: it holds exactly what comes now. */
	iov[0] = (struct iovec){ "abc", 3 };
	iov[1] = (struct iovec){ big, 0 };
	iov[2] = (struct iovec){ "defgh", 5 };
	if (writev(p[1], iov, 3) != 8)
		return 8;
	if (readv(p[0], sc, 3) != 8 || memcmp(out, "abcdefgh", 8))
		return 9;
	puts("iov ok");
	return 0;
}
