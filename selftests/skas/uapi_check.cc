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

int skas_uapi_check(void);
int skas_uapi_check(void)
{
	struct skas_create_aspace a;

	a.size = sizeof(a);

	return (int)(SKAS_GET_API_VERSION + SKAS_CHECK_EXTENSION +
		     SKAS_CREATE_ASPACE + a.size);
}
