/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * System V IPC in the runtime (ipc.c): the parts message queues (msg.c),
 * semaphore sets (sem.c) and shared memory (shm.c) share.  The uapi
 * headers give the guest's structures; glibc's <sys/ipc.h> is not used.
 */
#ifndef UMLRUN_IPC_H
#define UMLRUN_IPC_H

#include <linux/capability.h>
#include <linux/ipc.h>

#include "umlrun.h"

enum { IPC_MSG, IPC_SEM, IPC_SHM, IPC_KINDS };

/* struct kern_ipc_perm: what every object starts with. */
struct ipc_obj {
	int id;
	int key;
	uid_t uid, cuid;
	gid_t gid, cgid;
	unsigned int mode;	/* the low 9 bits, and shm's SHM_DEST, SHM_LOCKED */
	unsigned int seq;
};

struct ipc_ids {
	struct ipc_obj **slot;
	int size, count;
	int free_hint;		/* no free slot below it */
	unsigned int seq;
};

extern struct ipc_ids ipc_ids[IPC_KINDS];

bool ipc_host(void);
struct ipc_obj *ipc_at(int kind, int idx);
struct ipc_obj *ipc_find(int kind, int id);
struct ipc_obj *ipc_lookup(struct task *t, int kind, int id, long *err);
bool ipc_capable(struct task *t, int cap);
int ipc_perms(struct task *t, const struct ipc_obj *o, int flag);
struct ipc_obj *ipc_stat_obj(struct task *t, int kind, int id, bool by_index,
			     bool any, long *err);
struct ipc_obj *ipc_ctl_obj(struct task *t, int kind, int id, long *err);
int ipc_set_perm(struct ipc_obj *o, const struct ipc64_perm *in);
void ipc_fill_perm(const struct ipc_obj *o, struct ipc64_perm *p);
int ipc_max_idx(int kind);
int ipc_new(int kind, struct ipc_obj *o, int key, int flg, int max);
void ipc_remove(int kind, struct ipc_obj *o);
long ipc_get(struct task *t, int kind, int key, int flg,
	     long (*create)(struct task *t, int key, int flg, void *arg),
	     int (*more)(struct ipc_obj *o, void *arg), void *arg);
long ipc_wait(struct task *t, int kind, int id);
void ipc_wake(int kind, int id);

#include <stdio.h>
void msg_proc_show(FILE *f);
void sem_proc_show(FILE *f);
void shm_proc_show(FILE *f);

#endif
