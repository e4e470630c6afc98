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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "umlrun.h"

/*
 * "/dev/fd/N", "/dev/stdin"...: where the host has them as symlinks into
 * /proc/self (udev and systemd do; a bare devtmpfs does not), follow
 * them here, so that they reach the guest's fds and not the runtime's.
 */
static const char *const devfd_names[] = {
	"/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr",
};

static void devfd_rewrite(char *path, size_t len)
{
	char target[128], tmp[PATH_MAX];
	size_t i, n;
	ssize_t r;

	for (i = 0; i < ARRAY_SIZE(devfd_names); i++) {
		n = strlen(devfd_names[i]);
		if (strncmp(path, devfd_names[i], n) ||
		    (path[n] && path[n] != '/'))
			continue;
		r = readlink(devfd_names[i], target, sizeof(target) - 1);
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

/*
 * Spell absolute @path the one way procfs.c matches: no empty or "."
 * components, ".." taken off lexically (it stops at "/"), no trailing
 * "/" (kept in *@slash).  "/proc//self", "/./proc/self/" and
 * "/proc/../proc/self" all name /proc/self: the host resolves them so.
 * Lexical ".." differs from the host's only after a symlink, and the
 * result is only ever used to pick the guest's entries, never to reach
 * a host file the plain path would not.  False if too long.
 */
static bool path_normalise(const char *path, char *out, size_t len, bool *slash)
{
	size_t n = 0, c;
	const char *s = path;

	*slash = false;
	while (*s) {
		while (*s == '/')
			s++;
		c = strcspn(s, "/");
		if (!c)
			break;
		/* A last "." or ".." goes through the one before, as "/". */
		*slash = s[c] == '/' || (c <= 2 && !strncmp(s, "..", c));
		if (c == 1 && s[0] == '.') {
			/* nothing */
		} else if (c == 2 && s[0] == '.' && s[1] == '.') {
			while (n && out[n - 1] != '/')
				n--;
			if (n)
				n--;
		} else {
			if (n + 1 + c >= len)
				return false;
			out[n++] = '/';
			memcpy(out + n, s, c);
			n += c;
		}
		s += c;
	}
	if (!n)
		out[n++] = '/';
	out[n] = 0;
	return true;
}

/*
 * @path normalised into @buf if it names something under /proc (or /dev,
 * for its links into /proc/self), else NULL.
 */
static char *proc_path(const char *path, char *buf, size_t len)
{
	bool slash;

	if (path[0] != '/' || !path_normalise(path, buf, len, &slash))
		return NULL;
	if (strncmp(buf, "/proc/", 6) && strncmp(buf, "/dev/", 5))
		return NULL;
	if (slash && strlen(buf) + 1 < len)
		strcat(buf, "/");
	return buf;
}

/*
 * Which guest process does "/proc/<x>..." name?  Sets *rest after it.
 * With @zombie a zombie not reaped yet too (its stat, status, comm and
 * cmdline are there until then, as on Linux).
 */
static struct proc *proc_named(struct task *t, const char *path,
			       const char **rest, int *err, bool zombie)
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
	if (p && zombie && p->state == PROC_ZOMBIE)
		return p;
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
	char buf[PATH_MAX];
	const char *rest;
	struct proc *p;
	int err;

	path = proc_path(path, buf, sizeof(buf));
	if (!path || strncmp(path, "/proc/", 6) != 0)
		return NULL;
	p = proc_named(t, path, &rest, &err, false);
	return p && strcmp(rest, "/exe") == 0 ? p : NULL;
}

/*
 * The text of a link in the guest's /proc that procfs_rewrite() would
 * follow, as readlink() gives it: /proc/self and /proc/thread-self, the
 * caller's "<pid>" and "<pid>/task/<tid>" (the rewrite names the guest's
 * host thread, whose links would say the runtime's); the host's other
 * links there and /dev/fd, /dev/stdin... ("self/mounts", "/proc/self/fd":
 * the same text for every reader).  Into @out (@len bytes): the text's
 * length, or 0 if @path (absolute) is no such link.
 */
int procfs_link_text(struct task *t, const char *path, char *out, size_t len)
{
	char buf[PATH_MAX];
	const char *name;
	size_t i;
	ssize_t r;

	if (!t->p->root->slash)
		return 0;
	path = proc_path(path, buf, sizeof(buf));
	if (!path)
		return 0;
	if (!strcmp(path, "/proc/self"))
		return snprintf(out, len, "%d", t->p->pid);
	if (!strcmp(path, "/proc/thread-self"))
		return snprintf(out, len, "%d/task/%d", t->p->pid, t->tid);
	name = path + 6;
	for (i = 0; i < ARRAY_SIZE(devfd_names); i++)
		if (!strcmp(path, devfd_names[i]))
			break;
	if (i == ARRAY_SIZE(devfd_names) &&
	    (strncmp(path, "/proc/", 6) || strchr(name, '/') ||
	     name[strspn(name, "0123456789")] == 0))
		return 0;
	r = readlink(path, out, len);
	return r > 0 ? (int)r : 0;
}

/*
 * The self and thread-self links of another procfs mount, read by the
 * runtime (@out, @n bytes, from host fd @fd of the link), name the
 * runtime's worker as that procfs's pid namespace numbers it, which the
 * guest must not see: the caller's pid and tid go in instead.  They are
 * the only procfs links whose text is "<n>" or "<n>/task/<m>".  The new
 * length.
 */
ssize_t procfs_self_text(struct task *t, int fd, char *out, ssize_t n,
			 size_t len)
{
	struct stat st;
	size_t d;
	bool task;

	if (n <= 0 || (size_t)n >= len)
		return n;
	out[n] = 0;
	d = strspn(out, "0123456789");
	if (!d)
		return n;
	task = !strncmp(out + d, "/task/", 6);
	if (task ? !out[d + 6] || out[d + 6 + strspn(out + d + 6,
						 "0123456789")] : out[d])
		return n;
	if (fstat(fd, &st) || !procfs_fd_on_proc(fd, &st))
		return n;
	return snprintf(out, len, task ? "%d/task/%d" : "%d", t->p->pid,
			t->tid);
}

/*
 * Rewrite an absolute guest path that names /proc/<guest> or /dev/fd.
 * Return 1 if @path is now a host path to use as it is, 2 if that path is
 * the runtime's own /proc link of the guest's file (a /proc/<guest>/fd/N
 * or cwd), 0 if unchanged or still a guest path, or -errno.
 */
int procfs_rewrite(struct task *t, char *path, size_t len)
{
	char tmp[PATH_MAX];
	const char *rest;
	struct proc *p;
	int err;

	if (!proc_path(path, tmp, sizeof(tmp)) || strlen(tmp) >= len)
		return 0;
	strcpy(path, tmp);
	devfd_rewrite(path, len);
	if (strncmp(path, "/proc/", 6) != 0)
		return 0;
	proc_link_rewrite(path, len);
	p = proc_named(t, path, &rest, &err, false);
	if (!p)
		return err;
	if (strcmp(rest, "/exe") == 0) {
		snprintf(path, len, "%s", p->exe);
		return 1;
	}
	if (strncmp(rest, "/fd/", 4) == 0 || strcmp(rest, "/cwd") == 0) {
		err = fd_link(t, p, rest, path, len);
		if (err)
			return err > 0 ? 2 : err;
	}
	snprintf(tmp, sizeof(tmp), "/proc/%d%s",
		 uml_thread_host_tid(p == t->p ? t->th : p->threads->th), rest);
	if (strlen(tmp) >= len)
		return -ENAMETOOLONG;
	strcpy(path, tmp);
	return 1;
}

/* Is this file on the host's procfs?  (All of /proc is one st_dev.) */
bool procfs_is_procfs(const struct stat *st)
{
	static dev_t dev;
	static bool known, have;
	struct stat ps;

	if (!known) {
		known = true;
		have = stat("/proc", &ps) == 0;
		dev = ps.st_dev;
	}
	return have && st->st_dev == dev;
}

/*
 * "/proc/<host tid of a guest thread>...", the host path of a directory
 * in /proc/<guest pid>, back to the guest's "/proc/<guest tid>...".
 */
void procfs_host_to_guest(char *path, size_t len)
{
	char tmp[PATH_MAX], *end;
	struct proc *p;
	struct task *t;
	long tid;

	if (strncmp(path, "/proc/", 6) != 0)
		return;
	tid = strtol(path + 6, &end, 10);
	if (end == path + 6 || (*end && *end != '/'))
		return;
	for (p = procs; p; p = p->next) {
		for (t = p->threads; t; t = t->next_in_proc) {
			if (!t->th || uml_thread_host_tid(t->th) != tid)
				continue;
			if ((size_t)snprintf(tmp, sizeof(tmp), "/proc/%d%s",
					     t->tid, end) < len)
				strcpy(path, tmp);
			return;
		}
	}
}

/*
 * Is host fd @fd, whose fstat() is @st, on a procfs, at /proc or mounted
 * anywhere else?  Every procfs has an anonymous device (major 0), as
 * tmpfs has; only those are asked.
 */
bool procfs_fd_on_proc(int fd, const struct stat *st)
{
	struct statfs sfs;

	if (major(st->st_dev) != 0)
		return false;
	return fstatfs(fd, &sfs) < 0 || sfs.f_type == PROC_SUPER_MAGIC;
}

/* Undo mountinfo's octal escapes (\040 for a space...) in place. */
static void mountinfo_unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0');
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = 0;
}

/*
 * Mount @id of /proc/self/mountinfo: its root in its file system (@root,
 * "/" unless a bind mount of a part of it) and its mount point (@mp); and
 * a mount point of the same file system's root (@whole, "" if none is
 * mounted).  0, or -1 if the mount is not found.
 */
static int mount_find(uint64_t id, char *root, char *mp, char *whole,
		      size_t len)
{
	char line[3 * PATH_MAX], r[PATH_MAX], m[PATH_MAX], dev[32] = "";
	unsigned long long mid;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = -1;

	*whole = 0;
	if (!f)
		return -1;
	/* First the mount, then any mount of its file system's root. */
	while (found < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %*u %31s %4095s %4095s", &mid, dev, r,
			   m) != 4 || mid != id)
			continue;
		mountinfo_unescape(r);
		mountinfo_unescape(m);
		snprintf(root, len, "%s", r);
		snprintf(mp, len, "%s", m);
		found = 0;
	}
	rewind(f);
	while (found == 0 && !*whole && fgets(line, sizeof(line), f)) {
		struct statx stx;
		char d[32];

		if (sscanf(line, "%llu %*u %31s %4095s %4095s", &mid, d, r,
			   m) != 4 || strcmp(d, dev) != 0 || strcmp(r, "/") != 0)
			continue;
		mountinfo_unescape(m);
		/* Only if the path leads to it: not mounted over since. */
		if (statx(AT_FDCWD, m, AT_NO_AUTOMOUNT, STATX_MNT_ID, &stx) == 0 &&
		    (stx.stx_mask & STATX_MNT_ID) && stx.stx_mnt_id == mid)
			snprintf(whole, len, "%s", m);
	}
	fclose(f);
	return found;
}

/*
 * Is @id the runtime's pid or a thread's id, as the procfs mounted at @mp
 * numbers them (its pid namespace's)?  Its "self" is the runtime, which
 * opens and reads.
 */
static bool runtime_id_in(const char *mp, long id)
{
	char path[PATH_MAX + 16], self[32], buf[4096];
	long n, off;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s/self", mp);
	r = readlink(path, self, sizeof(self) - 1);
	if (r < 0)
		/* Not in that namespace: no entry there is the runtime's. */
		return errno != ENOENT;
	self[r] = 0;
	if (strtol(self, NULL, 10) == id)
		return true;
	snprintf(path, sizeof(path), "%s/self/task", mp);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return true;	/* cannot tell: as if it were */
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);

			off += d->d_reclen;
			if (d->d_name[0] >= '0' && d->d_name[0] <= '9' &&
			    strtol(d->d_name, NULL, 10) == id) {
				close(fd);
				return true;
			}
		}
	}
	close(fd);
	return n < 0;
}

/*
 * Is mount @id the one at /proc, of a procfs's root (it has "self")?
 * The common case, told without reading /proc/self/mountinfo.
 */
static bool proc_root_mount(uint64_t id)
{
	struct statx a, b;

	return statx(AT_FDCWD, "/proc", AT_NO_AUTOMOUNT, STATX_MNT_ID, &a) == 0 &&
	       (a.stx_mask & STATX_MNT_ID) && a.stx_mnt_id == id &&
	       statx(AT_FDCWD, "/proc/self", AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		     STATX_MNT_ID | STATX_TYPE, &b) == 0 &&
	       (b.stx_mask & STATX_MNT_ID) && b.stx_mnt_id == id &&
	       S_ISLNK(b.stx_mode);
}

/*
 * Does this host fd lead into the runtime's own /proc/<pid> or
 * /proc/<tid>, through /proc or any other mount of a procfs?  A file on a
 * procfs is one of the runtime's if the first part of its path inside
 * that procfs (its mount's root and its path below the mount point, from
 * /proc/self/mountinfo) is the runtime's pid or a thread's id as that
 * procfs numbers them: another mount may belong to another pid
 * namespace, and a bind mount of /proc/<pid> alone shows no number in the
 * fd's path.  Whatever cannot be told is refused.
 */
bool procfs_is_runtime(int hostfd)
{
	struct stat st;

	if (fstat(hostfd, &st) == 0 && !procfs_fd_on_proc(hostfd, &st))
		return false;
	return procfs_names_runtime(hostfd);
}

/* procfs_is_runtime() of a file known to be on a procfs (or not known). */
bool procfs_names_runtime(int hostfd)
{
	char link[64], target[PATH_MAX], root[PATH_MAX], mp[PATH_MAX];
	char whole[PATH_MAX], inner[2 * PATH_MAX];
	const char *rel;
	struct statx stx;
	size_t n;
	ssize_t r;

	if (statx(hostfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0 ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return true;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", hostfd);
	r = readlink(link, target, sizeof(target));
	if (r <= 0 || r >= (ssize_t)sizeof(target))
		return true;	/* cannot tell: as if it were */
	target[r] = 0;
	if (proc_root_mount(stx.stx_mnt_id) &&
	    (strncmp(target, "/proc/", 6) == 0 || !strcmp(target, "/proc"))) {
		strcpy(root, "/");
		strcpy(mp, "/proc");
		strcpy(whole, "/proc");
	} else if (mount_find(stx.stx_mnt_id, root, mp, whole, PATH_MAX) < 0) {
		return true;
	}
	/* The fd's path below its mount point. */
	n = strlen(mp);
	if (strcmp(mp, "/") == 0)
		rel = target;
	else if (strncmp(target, mp, n) == 0 &&
		 (target[n] == '/' || !target[n]))
		rel = target + n;
	else
		return true;
	snprintf(inner, sizeof(inner), "%s%s",
		 strcmp(root, "/") == 0 ? "" : root, rel);
	rel = inner;
	while (*rel == '/')
		rel++;
	n = strspn(rel, "0123456789");
	if (!n || (rel[n] && rel[n] != '/'))
		return false;	/* not a process's directory */
	if (!*whole)
		return true;	/* no mount to ask who we are there */
	return runtime_id_in(whole, strtol(rel, NULL, 10));
}

/* ---- the guest's processes in /proc ---- */

void proc_set_cmdline(struct proc *p, char **argv, int argc)
{
	size_t len = 0;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	free(p->cmdline);
	p->cmdline = malloc(len + 1);
	p->cmdline_len = p->cmdline ? len : 0;
	for (i = 0, len = 0; p->cmdline && i < argc; i++) {
		strcpy(p->cmdline + len, argv[i]);
		len += strlen(argv[i]) + 1;
	}
}

/*
 * A thread's state letter, as fs/proc/array.c's task_state_array: S while
 * it waits in a syscall, T while its process is stopped, Z once it has
 * exited (a leader gone before its threads stays a zombie), else R.
 */
static char task_state_char(const struct task *t)
{
	if (!t || t->state == TASK_DEAD)
		return 'Z';
	if (t->p->stopped)
		return 'T';
	return t->state == TASK_BLOCKED ? 'S' : 'R';
}

/* The thread of @p whose tid is @tid, or NULL. */
static struct task *proc_thread(struct proc *p, long tid)
{
	struct task *t;

	for (t = p->threads; t; t = t->next_in_proc)
		if (t->tid == tid && t->state != TASK_DEAD)
			return t;
	return NULL;
}

/*
 * /proc/<pid>/stat, with the fields ps, top and LTP read: the process's
 * (or, for a task/<tid> file, the thread's) user and system time and the
 * children's waited for, in clock ticks (usage.c), nice, threads, start
 * time and size.
 */
static int stat_text(struct proc *p, struct task *th, int tid, char *buf,
		     size_t len)
{
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long long vsize = 0, start = p->start_ns / (1000000000 / hz);
	uint64_t tick = 1000000000 / hz, ut, all;
	struct task *who = tid && tid != p->pid ? th : NULL;
	int i, nice = th ? th->sched.nice : 0;

	for (i = 0; p->mm && i < p->mm->n; i++)
		vsize += p->mm->v[i].end - p->mm->v[i].start;
	ut = usage_cpu_clock(p, who, 1);
	all = usage_cpu_clock(p, who, 0);
	return snprintf(buf, len,
			"%d (%s) %c %d %d %d 0 -1 0 0 0 0 0 %llu %llu %llu %llu "
			"%d %d %d 0 %llu %llu 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
			"0 0 0 0 0 0 0 0 0 0 0\n",
			tid, p->comm, task_state_char(th),
			p->parent ? p->parent->pid : 0, p->pgid, p->sid,
			(unsigned long long)(ut / tick),
			(unsigned long long)((all > ut ? all - ut : 0) / tick),
			p->usage_children.utime * 1000 / tick,
			p->usage_children.stime * 1000 / tick,
			20 + nice, nice, p->nthreads ? p->nthreads : 1, start,
			vsize);
}

/* The state's word in status (fs/proc/array.c's task_state_array). */
static const char *state_word(char c)
{
	switch (c) {
	case 'R':
		return "running";
	case 'S':
		return "sleeping";
	case 'T':
		return "stopped";
	default:
		return "zombie";
	}
}

/*
 * The memory lines (VmPeak ... VmSwap, RssAnon ...) of the host task that
 * runs @th: its memory is the guest's; VmLck is the runtime's count.  Their text, at most @len - 1
 * bytes, or "" for a zombie.
 */
static void vm_lines(const struct task *th, char *out, size_t len)
{
	char path[64], line[256];
	size_t n = 0;
	FILE *f;

	out[0] = 0;
	if (!th || !th->th || th->state == TASK_DEAD)
		return;
	snprintf(path, sizeof(path), "/proc/%d/status",
		 uml_thread_host_tid(th->th));
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);

		if ((strncmp(line, "Vm", 2) && strncmp(line, "Rss", 3)) ||
		    n + l >= len)
			continue;
		if (strncmp(line, "VmLck:", 6) == 0 && th->p->mm)	/* mlock.c's */
			l = snprintf(line, sizeof(line), "VmLck:\t%8llu kB\n",
				     (unsigned long long)mm_locked_bytes(th->p->mm) / 1024);
		memcpy(out + n, line, l + 1);
		n += l;
	}
	fclose(f);
}

static int status_text(struct proc *p, struct task *th, int tid, char *buf,
		       size_t len)
{
	char c = task_state_char(th), vm[512];

	vm_lines(th, vm, sizeof(vm));
	return snprintf(buf, len,
			"Name:\t%s\nState:\t%c (%s)\nTgid:\t%d\nPid:\t%d\n"
			"PPid:\t%d\nUid:\t%d\t%d\t%d\t%d\n"
			"Gid:\t%d\t%d\t%d\t%d\n%sThreads:\t%d\n",
			p->comm, c, state_word(c), p->pid, tid,
			p->parent ? p->parent->pid : 0, host_uid, host_euid,
			host_euid, host_euid, host_gid, host_egid, host_egid,
			host_egid, vm, p->nthreads);
}

static int memfd_with(const char *data, size_t len)
{
	int fd = memfd_create("umlrun-proc", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -errno;
	if (write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return -EIO;
	}
	lseek(fd, 0, SEEK_SET);
	fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK |
	      F_SEAL_SEAL);
	return fd;
}

/*
 * The host's /proc/cpuinfo cut to the guest's CPUs (guest_ncpus, misc.c):
 * the blocks of processors 0 to guest_ncpus - 1, with "siblings" and
 * "cpu cores" saying guest_ncpus.
 */
static int cpuinfo_open(void)
{
	char *in = NULL, *out = NULL, *line, *save;
	size_t cap = 0, len = 0, olen = 0;
	bool keep = true;
	ssize_t n;
	int fd, r;

	fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(in, cap = (len + 4096 + 1) * 2);

			if (!nb) {
				n = -1;
				break;
			}
			in = nb;
		}
		n = read(fd, in + len, cap - len - 1);
		if (n > 0)
			len += n;
	} while (n > 0);
	close(fd);
	out = n < 0 ? NULL : malloc(len + 64 * (size_t)guest_ncpus + 1);
	if (!out) {
		free(in);
		return -ENOMEM;
	}
	in[len] = 0;
	for (line = strtok_r(in, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "processor", 9) == 0)
			keep = strtol(line + strcspn(line, ":") + 1, NULL, 10) <
			       guest_ncpus;
		if (!keep)
			continue;
		if (olen && strncmp(line, "processor", 9) == 0)
			out[olen++] = '\n';	/* the blank line between */
		if (strncmp(line, "siblings", 8) == 0)
			olen += sprintf(out + olen, "siblings\t: %d\n", guest_ncpus);
		else if (strncmp(line, "cpu cores", 9) == 0)
			olen += sprintf(out + olen, "cpu cores\t: %d\n", guest_ncpus);
		else
			olen += sprintf(out + olen, "%s\n", line);
	}
	if (olen)
		out[olen++] = '\n';
	r = memfd_with(out, olen);
	free(in);
	free(out);
	return r;
}

/*
 * The files that tell the guest about CPUs, made from guest_ncpus so
 * that they agree with sched_getaffinity and getcpu; 0 for another path.
 */
static int cpu_file_open(const char *path)
{
	static const char *const lists[] = {
		"/sys/devices/system/cpu/online",
		"/sys/devices/system/cpu/possible",
		"/sys/devices/system/cpu/present",
	};
	char norm[PATH_MAX], buf[32];
	bool slash;
	size_t i;
	int n;

	if (path[0] != '/' || !path_normalise(path, norm, sizeof(norm), &slash) ||
	    slash)
		return 0;
	if (strcmp(norm, "/proc/cpuinfo") == 0)
		return cpuinfo_open();
	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		if (strcmp(norm, lists[i]) != 0)
			continue;
		n = guest_ncpus == 1 ? snprintf(buf, sizeof(buf), "0\n") :
		    snprintf(buf, sizeof(buf), "0-%d\n", guest_ncpus - 1);
		return memfd_with(buf, n);
	}
	return 0;
}

/*
 * Which thread of @p do the files at *@rest describe?  /proc/thread-self
 * is the caller, "/task/<tid>/..." that thread (*@rest moves past it,
 * *@tid is set, and NULL means no such thread), else the leader: a
 * process's stat shows its main thread's state, as the kernel's does.
 */
static struct task *task_named(struct task *t, struct proc *p,
			       const char *path, const char **rest, int *tid)
{
	const char *s = *rest;
	char *end;
	long n;

	*tid = 0;
	if (strncmp(path + 6, "thread-self", 11) == 0) {
		*tid = t->tid;
		return t;
	}
	if (strncmp(s, "/task/", 6) != 0)
		return proc_thread(p, p->pid);
	n = strtol(s + 6, &end, 10);
	if (end == s + 6 || *end != '/' || n <= 0 || n > PID_MAX)
		return proc_thread(p, p->pid);	/* not a file it makes */
	*rest = end;
	*tid = n;
	return proc_thread(p, n);
}

/*
 * Files of /proc/<guest pid> that describe the guest process (its host
 * task's would show the stub): a host fd with their text, or 0 when @path
 * is not one of them.
 */
int procfs_open(struct task *t, const char *path)
{
	static const char *const files[] = { "stat", "status", "cmdline",
					     "comm" };
	char buf[1024], norm[PATH_MAX];
	const char *rest;
	struct task *th;
	struct proc *p;
	size_t i;
	int err, n, tid;

	n = cpu_file_open(path);
	if (n)
		return n;
	if (!t->p->root->slash)
		return 0;
	path = proc_path(path, norm, sizeof(norm));
	if (!path || strncmp(path, "/proc/", 6) != 0)
		return 0;
	if (strncmp(path, "/proc/sysvipc/", 14) == 0)
		return ipc_proc_open(path + 14, memfd_with);
	p = proc_named(t, path, &rest, &err, true);
	if (!p || *rest != '/')
		return 0;
	th = task_named(t, p, path, &rest, &tid);
	for (i = 0; i < ARRAY_SIZE(files); i++)
		if (strcmp(rest + 1, files[i]) == 0)
			break;
	if (i < ARRAY_SIZE(files) && tid && !th)
		return -ENOENT;		/* not a thread of that process */
	switch (i) {
	case 0:
		n = stat_text(p, th, tid ? tid : p->pid, buf, sizeof(buf));
		break;
	case 1:
		n = status_text(p, th, tid ? tid : p->pid, buf, sizeof(buf));
		break;
	case 2:		/* a zombie's memory is gone: empty, as Linux's */
		if (p->state != PROC_ALIVE || !p->cmdline)
			return memfd_with("", 0);
		return memfd_with(p->cmdline, p->cmdline_len);
	case 3:
		n = snprintf(buf, sizeof(buf), "%s\n", p->comm);
		break;
	default:
		return 0;
	}
	return memfd_with(buf, n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

bool procfs_is_root(int hostfd)
{
	char link[64], target[16];
	ssize_t r;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", hostfd);
	r = readlink(link, target, sizeof(target) - 1);
	if (r < 0)
		return false;
	target[r] = 0;
	return strcmp(target, "/proc") == 0;
}

static int dirent_add(char **buf, size_t *len, size_t *cap, const char *name,
		      unsigned char type, uint64_t ino)
{
	size_t reclen = (offsetof(struct dirent64, d_name) + strlen(name) + 8) &
			~7UL;
	struct dirent64 *d;

	if (*len + reclen > *cap) {
		size_t ncap = (*cap + reclen) * 2;
		char *n = realloc(*buf, ncap);

		if (!n)
			return -ENOMEM;
		*buf = n;
		*cap = ncap;
	}
	d = (struct dirent64 *)(*buf + *len);
	memset(d, 0, reclen);
	d->d_ino = ino;
	d->d_off = *len + reclen;
	d->d_reclen = reclen;
	d->d_type = type;
	strcpy(d->d_name, name);
	*len += reclen;
	return 0;
}

/* The lowest live guest pid above @after, 0 if none. */
static int next_pid(int after)
{
	struct proc *p;
	int best = 0;

	for (p = procs; p; p = p->next)
		if (p->state == PROC_ALIVE && p->pid > after &&
		    (!best || p->pid < best))
			best = p->pid;
	return best;
}

/* The listing of /proc: the host's entries without its pids, plus ours. */
static int procdir_build(struct file *f)
{
	char hbuf[32768], name[16], *buf = NULL;
	size_t len = 0, cap = 0;
	long n, off;
	int pid;

	lseek(f->hostfd, 0, SEEK_SET);
	while ((n = syscall(SYS_getdents64, f->hostfd, hbuf, sizeof(hbuf))) > 0) {
		for (off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(hbuf + off);

			off += d->d_reclen;
			if (d->d_name[0] >= '0' && d->d_name[0] <= '9')
				continue;
			if (dirent_add(&buf, &len, &cap, d->d_name, d->d_type,
				       d->d_ino) < 0)
				goto nomem;
		}
	}
	/* Ascending pids, as the kernel lists them. */
	for (pid = next_pid(0); pid; pid = next_pid(pid)) {
		snprintf(name, sizeof(name), "%d", pid);
		if (dirent_add(&buf, &len, &cap, name, DT_DIR, 0x1000 + pid) < 0)
			goto nomem;
	}
	free(f->dirbuf);
	f->dirbuf = buf;
	f->dirlen = len;
	f->dirpos = 0;
	return 0;
nomem:
	free(buf);
	return -ENOMEM;
}

/* getdents64 on the host's /proc, served from the guest's listing. */
long procfs_getdents(struct task *t, struct file *f, uint64_t ubuf, size_t n)
{
	size_t start, end;
	int r;

	if (!f->dirbuf) {
		r = procdir_build(f);
		if (r < 0)
			return r;
	}
	start = end = f->dirpos;
	while (end < f->dirlen) {
		struct dirent64 *d = (struct dirent64 *)(f->dirbuf + end);

		if (end + d->d_reclen - start > n)
			break;
		end += d->d_reclen;
	}
	if (end == start && end < f->dirlen)
		return -EINVAL;		/* buffer too small for one entry */
	if (copy_to_guest(t, ubuf, f->dirbuf + start, end - start) < 0)
		return -EFAULT;
	f->dirpos = end;
	return end - start;
}
