/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one line a case prints for a call: what it returned, and errno's
 * name when that is -1, for busybox.sh to compare with the native run.
 */
#ifndef SHOW_H
#define SHOW_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

static inline void show(const char *what, long r)
{
	if (r < 0)
		printf("%s: -1 %s\n", what, strerrorname_np(errno));
	else
		printf("%s: %ld\n", what, r);
}

#endif
