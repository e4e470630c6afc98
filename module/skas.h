/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal declarations shared by the files of skas.ko.
 */
#ifndef _SKAS_H
#define _SKAS_H

#include <linux/fs.h>

long skas_create_aspace(void __user *uarg);

#endif /* _SKAS_H */
