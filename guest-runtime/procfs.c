// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest's view of /proc/<pid>, /proc/self and /dev/fd.
 *
 * The host resolves /proc/self to umlrun itself, whose memory and fds are
 * the runtime's: a guest must never reach them.  Paths naming a guest
 * process are rewritten to the host task that runs it (its memory is the
 * guest's own), fd and cwd links to the runtime's host fd of that guest
 * fd, and every file the guest opens is checked not to lie in the
 * runtime's own /proc directory (a symlink could still lead there).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "umlrun.h"

/*
 * "/dev/fd/N", "/dev/stdin"...: where the host has them as symlinks into
 * /proc/self (udev and systemd do; a bare devtmpfs does not), follow
 * them here, so that they reach the guest's fds and not the runtime's.
 */
static void devfd_rewrite(char *path, size_t len)
{
	static const char *const names[] = {
		"/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr",
	};
	char target[128], tmp[PATH_MAX];
	size_t i, n;
	ssize_t r;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		n = strlen(names[i]);
		if (strncmp(path, names[i], n) || (path[n] && path[n] != '/'))
			continue;
		r = readlink(names[i], target, sizeof(target) - 1);
		if (r <= 0)
			return;
		target[r] = 0;
		if (strncmp(target, "/proc/self/", 11) != 0)
			return;
		if ((size_t)snprintf(tmp, sizeof(tmp), "%s%s", target,
				     path + n) >= len)
			return;
		strcpy(path, tmp);
		return;
	}
}

/* /proc/mounts, /proc/net...: the host's links to "self/...". */
static void proc_link_rewrite(char *path, size_t len)
{
	char first[PATH_MAX], target[64], tmp[PATH_MAX];
	const char *rest = strchrnul(path + 6, '/');
	ssize_t r;

	if ((size_t)(rest - path) >= sizeof(first))
		return;
	memcpy(first, path, rest - path);
	first[rest - path] = 0;
	r = readlink(first, target, sizeof(target) - 1);
	if (r <= 0)
		return;
	target[r] = 0;
	if (strncmp(target, "self/", 5) && strncmp(target, "thread-self/", 12))
		return;
	if ((size_t)snprintf(tmp, sizeof(tmp), "/proc/%s%s", target, rest) >= len)
		return;
	strcpy(path, tmp);
}

/* Which guest process does "/proc/<x>..." name?  Sets *rest after it. */
static struct proc *proc_named(struct task *t, const char *path,
			       const char **rest, int *err)
{
	const char *s = path + 6;
	struct proc *p;
	char *end;
	long pid;

	*err = 0;
	if (strncmp(s, "self", 4) == 0 && (!s[4] || s[4] == '/')) {
		*rest = s + 4;
		return t->p;
	}
	if (strncmp(s, "thread-self", 11) == 0 && (!s[11] || s[11] == '/')) {
		*rest = s + 11;
		return t->p;
	}
	pid = strtol(s, &end, 10);
	if (end == s || (*end && *end != '/'))
		return NULL;		/* /proc/cpuinfo and friends */
	*rest = end;
	p = proc_by_pid(pid);
	if (!p || p->state != PROC_ALIVE || !p->threads) {
		*err = -ENOENT;		/* host pids are not the guest's */
		return NULL;
	}
	return p;
}

/* "/fd/N" and "/cwd" of the calling process: the runtime's host fd. */
static int fd_link(struct task *t, struct proc *p, const char *rest,
		   char *path, size_t len)
{
	struct file *f;
	char *end;
	long fd;

	if (p != t->p)
		return -EACCES;
	if (strcmp(rest, "/cwd") == 0) {
		snprintf(path, len, "/proc/%d/fd/%d", getpid(), p->cwdfd);
		return 1;
	}
	fd = strtol(rest + 4, &end, 10);
	if (end == rest + 4 || *end)
		return 0;
	f = fd_lookup(t, fd);
	if (!f)
		return -ENOENT;
	snprintf(path, len, "/proc/%d/fd/%d", getpid(), f->hostfd);
	return 1;
}

/* The guest process whose "/proc/<x>/exe" @path names, or NULL. */
struct proc *procfs_exe_proc(struct task *t, const char *path)
{
	const char *rest;
	struct proc *p;
	int err;

	if (strncmp(path, "/proc/", 6) != 0)
		return NULL;
	p = proc_named(t, path, &rest, &err);
	return p && strcmp(rest, "/exe") == 0 ? p : NULL;
}

/*
 * Rewrite an absolute guest path that names /proc/<guest> or /dev/fd.
 * Return 1 if @path is now a host path to use as it is, 0 if unchanged
 * or still a guest path, or -errno.
 */
int procfs_rewrite(struct task *t, char *path, size_t len)
{
	const char *rest;
	struct proc *p;
	char tmp[PAGE_SIZE];
	int err;

	devfd_rewrite(path, len);
	if (strncmp(path, "/proc/", 6) != 0)
		return 0;
	proc_link_rewrite(path, len);
	p = proc_named(t, path, &rest, &err);
	if (!p)
		return err;
	if (strcmp(rest, "/exe") == 0) {
		snprintf(path, len, "%s", p->exe);
		return 1;
	}
	if (strncmp(rest, "/fd/", 4) == 0 || strcmp(rest, "/cwd") == 0) {
		err = fd_link(t, p, rest, path, len);
		if (err)
			return err;
	}
	snprintf(tmp, sizeof(tmp), "/proc/%d%s",
		 uml_thread_host_tid(p->threads->th), rest);
	if (strlen(tmp) >= len)
		return -ENAMETOOLONG;
	strcpy(path, tmp);
	return 1;
}

/* Does this host fd lead into the runtime's own /proc/<pid>? */
bool procfs_is_runtime(int hostfd)
{
	char link[64], target[PATH_MAX], me[32];
	size_t n;
	ssize_t r;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", hostfd);
	r = readlink(link, target, sizeof(target) - 1);
	if (r < 0)
		return false;
	target[r] = 0;
	n = snprintf(me, sizeof(me), "/proc/%d", getpid());
	return strncmp(target, me, n) == 0 && (!target[n] || target[n] == '/');
}
