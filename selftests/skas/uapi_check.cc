// SPDX-License-Identifier: GPL-2.0
/*
 * Compile-only check: <linux/skas.h> must build as C++ with -Wall -Wextra
 * -Werror (and, from the same file, as C99: see the Makefile).
 */
#include <linux/skas.h>

/* A C99 and C++98 static assertion. */
#define SKAS_ABI_SIZE(type, n) \
	typedef char skas_abi_size_##type[sizeof(struct type) == (n) ? 1 : -1]

SKAS_ABI_SIZE(skas_create_aspace, 32);
SKAS_ABI_SIZE(skas_create_thread, 32);
SKAS_ABI_SIZE(skas_attach, 32);
SKAS_ABI_SIZE(skas_regs, 27 * 8);
SKAS_ABI_SIZE(skas_exit_syscall, 64);
SKAS_ABI_SIZE(skas_exit_fault, 24);
SKAS_ABI_SIZE(skas_exit_exited, 8);
SKAS_ABI_SIZE(skas_run, 32 + 27 * 8 + 256);
SKAS_ABI_SIZE(skas_mem_op, 48);
SKAS_ABI_SIZE(skas_mem_batch, 40);
SKAS_ABI_SIZE(skas_mem_rw, 48);
SKAS_ABI_SIZE(skas_clone, 40);
SKAS_ABI_SIZE(skas_policy, 40);
SKAS_ABI_SIZE(skas_install_fd, 32);
SKAS_ABI_SIZE(skas_enable_cap, 40);

int skas_uapi_check(void);
int skas_uapi_check(void)
{
	struct skas_create_aspace a;

	a.size = sizeof(a);

	return (int)(SKAS_GET_API_VERSION + SKAS_CHECK_EXTENSION +
		     SKAS_CREATE_ASPACE + a.size);
}
