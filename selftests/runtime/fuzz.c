// SPDX-License-Identifier: GPL-2.0-only
/*
 * Random syscalls with hostile arguments (NULL, -1, kernel addresses, its
 * own code, small ints): the runtime must answer each one and survive.
 * Calls that would end or rearrange this process itself (exit, exec,
 * signals, memory map changes, blocking waits) and ones that could grow
 * or scribble on the files it was given (writes, truncation, fallocate,
 * ioctl, fcntl) are skipped.  "fuzz SEED COUNT".
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static uint64_t state;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	switch (state % 8) {
	case 0: return 0;
	case 1: return (uint64_t)-1;
	case 2: return state % 64;
	case 3: return 0x7effffffe000ULL;
	case 4: return (uint64_t)&rnd;
	case 5: return 0xffffffff80000000ULL;
	case 6: return state % 4096;
	default: return state;
	}
}

static int skipped(long nr)
{
	static const long skip[] = {
		SYS_exit, SYS_exit_group, SYS_fork, SYS_vfork, SYS_clone,
		SYS_clone3, SYS_execve, SYS_execveat, SYS_pause,
		SYS_rt_sigsuspend, SYS_kill, SYS_tkill, SYS_tgkill,
		SYS_rt_sigreturn, SYS_rt_sigaction, SYS_rt_sigprocmask,
		SYS_sigaltstack, SYS_munmap, SYS_mprotect, SYS_mremap, SYS_brk,
		SYS_madvise, SYS_mmap, SYS_arch_prctl, SYS_nanosleep,
		SYS_clock_nanosleep, SYS_wait4, SYS_waitid, SYS_read,
		SYS_readv, SYS_pread64, SYS_poll, SYS_ppoll, SYS_select,
		SYS_pselect6, SYS_futex, SYS_setitimer, SYS_alarm, SYS_close,
		SYS_dup2, SYS_dup3, SYS_set_tid_address, SYS_prctl,
		SYS_setpgid, SYS_setsid, SYS_write, SYS_writev, SYS_pwrite64,
		SYS_sendfile, SYS_fallocate, SYS_ftruncate, SYS_truncate,
		SYS_ioctl, SYS_fcntl, SYS_open, SYS_openat, SYS_creat,
	};
	size_t i;

	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (skip[i] == nr)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	long i, n = argc > 2 ? atol(argv[2]) : 20000;

	state = 88172645463325252ULL ^ (argc > 1 ? strtoull(argv[1], NULL, 0) : 1);
	for (i = 0; i < n; i++) {
		long nr = rnd() % 460;

		if (!skipped(nr))
			syscall(nr, rnd(), rnd(), rnd(), rnd(), rnd(), rnd());
	}
	puts("fuzz done");
	return 0;
}
