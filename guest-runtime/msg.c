// SPDX-License-Identifier: GPL-2.0-only
/*
 * System V message queues: msgget, msgsnd, msgrcv and msgctl, checked in
 * the order ipc/msg.c checks them.  A queue's messages are the runtime's
 * memory; a sender that finds the queue full and a receiver that finds
 * no message wait for a change to the queue and look again, so a message
 * is always queued first (Linux hands it straight to a waiting receiver
 * when one matches: the same messages arrive, msg_qnum may read 1 for a
 * moment longer).  The limits are the host's msgmax, msgmnb and msgmni.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/msg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ipc.h"

struct message {
	struct message *next;
	long type;
	size_t size;
	char text[];
};

struct msq {
	struct ipc_obj perm;		/* first: an ipc_obj is a msq */
	struct message *head, **tail;
	unsigned long cbytes, qnum, qbytes;
	time_t stime, rtime, ctime;
	int lspid, lrpid;
};

static long msgmax, msgmnb, msgmni;
static unsigned long msg_hdrs, msg_bytes;	/* in all queues */

static void msg_limits(void)
{
	if (msgmni)
		return;
	msgmax = host_sysctl("kernel/msgmax", 0, 8192);
	msgmnb = host_sysctl("kernel/msgmnb", 0, 16384);
	msgmni = host_sysctl("kernel/msgmni", 0, 32000);
}

static struct msq *msq_of(struct ipc_obj *o)
{
	return (struct msq *)o;
}

static long msq_create(struct task *t, int key, int flg, void *arg)
{
	struct msq *q = calloc(1, sizeof(*q));
	int r;

	(void)t; (void)arg;
	if (!q)
		return -ENOMEM;
	q->tail = &q->head;
	q->qbytes = msgmnb;
	q->ctime = time(NULL);
	r = ipc_new(IPC_MSG, &q->perm, key, flg, msgmni);
	if (r) {
		free(q);
		return r;
	}
	return q->perm.id;
}

long sys_msgget(struct task *t, const uint64_t *a)
{
	if (!ipc_host())
		return -ENOSYS;
	msg_limits();
	return ipc_get(t, IPC_MSG, (int)a[0], (int)a[1], msq_create, NULL, NULL);
}

long sys_msgsnd(struct task *t, const uint64_t *a)
{
	int id = (int)a[0], flg = (int)a[3];
	size_t sz = a[2];
	struct ipc_obj *o;
	struct message *m;
	struct msq *q;
	long type, err;

	if (!ipc_host())
		return -ENOSYS;
	msg_limits();
	if (copy_from_guest(t, &type, a[1], sizeof(type)) < 0)
		return -EFAULT;
	if (sz > (size_t)msgmax || (long)sz < 0 || id < 0)
		return -EINVAL;
	if (type < 1)
		return -EINVAL;
	m = malloc(sizeof(*m) + sz);
	if (!m)
		return -ENOMEM;
	if (copy_from_guest(t, m->text, a[1] + sizeof(long), sz) < 0) {
		free(m);
		return -EFAULT;
	}
	m->type = type;
	m->size = sz;
	m->next = NULL;
	o = ipc_lookup(t, IPC_MSG, id, &err);
	if (!o)
		goto fail;
	q = msq_of(o);
	err = ipc_perms(t, o, 0222);
	if (err)
		goto fail;
	if (sz + q->cbytes > q->qbytes || 1 + q->qnum > q->qbytes) {
		free(m);
		if (flg & IPC_NOWAIT)
			return -EAGAIN;
		return ipc_wait(t, IPC_MSG, id);
	}
	q->lspid = t->p->pid;
	q->stime = time(NULL);
	*q->tail = m;
	q->tail = &m->next;
	q->cbytes += sz;
	q->qnum++;
	msg_hdrs++;
	msg_bytes += sz;
	ipc_wake(IPC_MSG, id);
	return 0;
fail:
	free(m);
	return err;
}

enum { SEARCH_ANY, SEARCH_EQUAL, SEARCH_NOTEQUAL, SEARCH_LESSEQUAL, SEARCH_NUMBER };

/* find_msg(): the link to the message msgrcv takes, or NULL. */
static struct message **msg_find(struct msq *q, long type, int mode)
{
	struct message **pm, **found = NULL;
	long count = 0;

	for (pm = &q->head; *pm; pm = &(*pm)->next) {
		long mt = (*pm)->type;

		if ((mode == SEARCH_EQUAL && mt != type) ||
		    (mode == SEARCH_NOTEQUAL && mt == type) ||
		    (mode == SEARCH_LESSEQUAL && mt > type))
			continue;
		if (mode == SEARCH_LESSEQUAL && mt != 1) {
			/* the lowest type: look on for one below it */
			type = mt - 1;
			found = pm;
		} else if (mode == SEARCH_NUMBER) {
			if (type == count)
				return pm;
		} else {
			return pm;
		}
		count++;
	}
	return found;
}

/*
 * MSG_COPY needs the host's CONFIG_CHECKPOINT_RESTORE (the debug kernel's
 * tinyconfig has none): the guest sees the host's features.
 */
static bool host_msg_copy(void)
{
	static int has = -1;

	return host_has(&has, SYS_msgrcv, 0, 0, 0, 0, MSG_COPY | IPC_NOWAIT, 0);
}

long sys_msgrcv(struct task *t, const uint64_t *a)
{
	int id = (int)a[0], flg = (int)a[4], mode;
	size_t bufsz = a[2], n;
	long type = (long)a[3], err;
	struct message **pm, *m;
	struct ipc_obj *o;
	struct msq *q;

	if (!ipc_host())
		return -ENOSYS;
	msg_limits();
	if (id < 0 || (long)bufsz < 0)
		return -EINVAL;
	if ((flg & MSG_COPY) && ((flg & MSG_EXCEPT) || !(flg & IPC_NOWAIT)))
		return -EINVAL;
	if ((flg & MSG_COPY) && !host_msg_copy())
		return -ENOSYS;		/* prepare_copy() without CHECKPOINT_RESTORE */
	if (flg & MSG_COPY)
		mode = SEARCH_NUMBER;
	else if (type == 0)
		mode = SEARCH_ANY;
	else if (type < 0) {
		type = type == LONG_MIN ? LONG_MAX : -type;
		mode = SEARCH_LESSEQUAL;
	} else
		mode = flg & MSG_EXCEPT ? SEARCH_NOTEQUAL : SEARCH_EQUAL;
	o = ipc_lookup(t, IPC_MSG, id, &err);
	if (!o)
		return err;
	q = msq_of(o);
	if (ipc_perms(t, o, 0444))
		return -EACCES;
	pm = msg_find(q, type, mode);
	if (!pm) {
		if (flg & IPC_NOWAIT)
			return -ENOMSG;
		return ipc_wait(t, IPC_MSG, id);
	}
	m = *pm;
	if (bufsz < m->size && !(flg & MSG_NOERROR))
		return -E2BIG;
	n = bufsz < m->size ? bufsz : m->size;
	if (flg & MSG_COPY) {
		/* copy_msg() into a buffer of min(bufsz, msgmax) bytes */
		if (m->size > (bufsz < (size_t)msgmax ? bufsz : (size_t)msgmax))
			return -EINVAL;
	} else {
		*pm = m->next;
		if (q->tail == &m->next)
			q->tail = pm;
		q->qnum--;
		q->cbytes -= m->size;
		q->rtime = time(NULL);
		q->lrpid = t->p->pid;
		msg_hdrs--;
		msg_bytes -= m->size;
		ipc_wake(IPC_MSG, id);
	}
	/* do_msg_fill(): a fault loses the message, as on Linux */
	err = n;
	if (copy_to_guest(t, a[1], &m->type, sizeof(long)) < 0 ||
	    copy_to_guest(t, a[1] + sizeof(long), m->text, n) < 0)
		err = -EFAULT;
	if (!(flg & MSG_COPY))
		free(m);
	return err;
}

static void msq_free(struct msq *q)
{
	struct message *m;

	while ((m = q->head)) {
		q->head = m->next;
		msg_hdrs--;
		msg_bytes -= m->size;
		free(m);
	}
	ipc_remove(IPC_MSG, &q->perm);
	free(q);
}

static long msgctl_info(struct task *t, int cmd, uint64_t ubuf)
{
	struct msginfo mi;
	int max = ipc_max_idx(IPC_MSG);

	memset(&mi, 0, sizeof(mi));
	mi.msgmni = msgmni;
	mi.msgmax = msgmax;
	mi.msgmnb = msgmnb;
	mi.msgssz = MSGSSZ;
	mi.msgseg = MSGSEG;
	if (cmd == MSG_INFO) {
		mi.msgpool = ipc_ids[IPC_MSG].count;
		mi.msgmap = msg_hdrs > INT_MAX ? INT_MAX : (int)msg_hdrs;
		mi.msgtql = msg_bytes > INT_MAX ? INT_MAX : (int)msg_bytes;
	} else {
		mi.msgmap = MSGMAP;
		mi.msgpool = MSGPOOL;
		mi.msgtql = MSGTQL;
	}
	if (copy_to_guest(t, ubuf, &mi, sizeof(mi)) < 0)
		return -EFAULT;
	return max < 0 ? 0 : max;
}

static long msgctl_stat(struct task *t, int id, int cmd, uint64_t ubuf)
{
	struct msqid64_ds ds;
	struct ipc_obj *o;
	struct msq *q;
	long err;

	memset(&ds, 0, sizeof(ds));
	o = ipc_stat_obj(t, IPC_MSG, id, cmd != IPC_STAT, cmd == MSG_STAT_ANY, &err);
	if (!o)
		return err;
	q = msq_of(o);
	ipc_fill_perm(o, &ds.msg_perm);
	ds.msg_stime = q->stime;
	ds.msg_rtime = q->rtime;
	ds.msg_ctime = q->ctime;
	ds.msg_cbytes = q->cbytes;
	ds.msg_qnum = q->qnum;
	ds.msg_qbytes = q->qbytes;
	ds.msg_lspid = q->lspid;
	ds.msg_lrpid = q->lrpid;
	if (copy_to_guest(t, ubuf, &ds, sizeof(ds)) < 0)
		return -EFAULT;
	return cmd == IPC_STAT ? 0 : o->id;
}

long sys_msgctl(struct task *t, const uint64_t *a)
{
	int id = (int)a[0], cmd = (int)a[1];
	struct msqid64_ds ds;
	struct ipc_obj *o;
	struct msq *q;
	int r;
	long err;

	if (!ipc_host())
		return -ENOSYS;
	msg_limits();
	if (id < 0 || cmd < 0)
		return -EINVAL;
	switch (cmd) {
	case IPC_INFO:
	case MSG_INFO:
		return msgctl_info(t, cmd, a[2]);
	case IPC_STAT:
	case MSG_STAT:
	case MSG_STAT_ANY:
		return msgctl_stat(t, id, cmd, a[2]);
	case IPC_SET:
		if (copy_from_guest(t, &ds, a[2], sizeof(ds)) < 0)
			return -EFAULT;
		/* fall through */
	case IPC_RMID:
		o = ipc_ctl_obj(t, IPC_MSG, id, &err);
		if (!o)
			return err;
		q = msq_of(o);
		if (cmd == IPC_RMID) {
			msq_free(q);
			return 0;
		}
		if (ds.msg_qbytes > (unsigned long)msgmnb &&
		    !ipc_capable(t, CAP_SYS_RESOURCE))
			return -EPERM;
		r = ipc_set_perm(o, &ds.msg_perm);
		if (r)
			return r;
		q->qbytes = ds.msg_qbytes;
		q->ctime = time(NULL);
		ipc_wake(IPC_MSG, id);
		return 0;
	default:
		return -EINVAL;
	}
}

/* /proc/sysvipc/msg (sysvipc_msg_proc_show()) */
void msg_proc_show(FILE *f)
{
	struct ipc_ids *ids = &ipc_ids[IPC_MSG];
	int i;

	fprintf(f, "       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid  cgid      stime      rtime      ctime\n");
	for (i = 0; i < ids->size; i++) {
		const struct msq *q = (const struct msq *)ids->slot[i];

		if (!q)
			continue;
		fprintf(f, "%10d %10d  %4o  %10lu %10lu %5u %5u %5u %5u %5u %5u %10llu %10llu %10llu\n",
			q->perm.key, q->perm.id, q->perm.mode, q->cbytes,
			q->qnum, q->lspid, q->lrpid, q->perm.uid, q->perm.gid,
			q->perm.cuid, q->perm.cgid,
			(unsigned long long)q->stime,
			(unsigned long long)q->rtime,
			(unsigned long long)q->ctime);
	}
}
