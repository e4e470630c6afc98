// SPDX-License-Identifier: GPL-2.0-only
/*
 * execve and the start of guest pid 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umlrun.h"

/*
 * The limits of fs/exec.c: a string of argv or envp is at most
 * MAX_ARG_STRLEN bytes with its NUL; all of them, the file name and a
 * pointer each fit in a quarter of RLIMIT_STACK, at least ARG_MAX and at
 * most three quarters of _STK_LIM (bprm_stack_limits()).
 */
#define MAX_ARG_STRLEN	(32 * PAGE_SIZE)
#define ARG_MAX_MIN	(128ULL << 10)
#define ARG_MAX_TOP	((8ULL << 20) / 4 * 3)

struct proc *proc_alloc(void);

void exec_args_free(struct exec_args *a)
{
	int i;

	for (i = 0; a->argv && i < a->argc; i++)
		free(a->argv[i]);
	for (i = 0; a->envp && i < a->envc; i++)
		free(a->envp[i]);
	free(a->argv);
	free(a->envp);
	memset(a, 0, sizeof(*a));
}

/* How many bytes the strings of an exec and their pointers may take. */
static uint64_t exec_arg_limit(const struct proc *p)
{
	uint64_t lim = p->rlim[RLIMIT_STACK].cur / 4;

	if (lim > ARG_MAX_TOP)
		lim = ARG_MAX_TOP;
	return lim < ARG_MAX_MIN ? ARG_MAX_MIN : lim;
}

/*
 * The strings (@strs bytes) are copied to the top of the new stack, which
 * grows past its first page only within the execing process's
 * RLIMIT_STACK (get_arg_page()'s expand_downwards()): -E2BIG if not.
 */
static int exec_strings_fit(const struct proc *p, uint64_t strs)
{
	uint64_t span = PAGE_ALIGN(strs + 8);

	return span > PAGE_SIZE && span > p->rlim[RLIMIT_STACK].cur ? -E2BIG
								   : 0;
}

/*
 * Guest memory read a page at a time: argv and envp, their pointers and
 * their strings, are a few pages, read once each rather than once per
 * pointer and per string.  A pointer array and its strings are on
 * different pages (argv's strings and envp's array too), so the reader
 * keeps a few: with one, each pointer and each string read a whole page.
 */
#define RD_PAGES	4
struct strv_reader {
	struct task *t;
	uint64_t page[RD_PAGES];	/* the guest page in buf[i]; 1: none */
	unsigned int next;		/* the slot to read into next */
	char buf[RD_PAGES][PAGE_SIZE];
};

static void rd_init(struct strv_reader *rd, struct task *t)
{
	int i;

	rd->t = t;
	rd->next = 0;
	for (i = 0; i < RD_PAGES; i++)
		rd->page[i] = 1;
}

/* The bytes at @addr to the end of its page, or NULL if unreadable. */
static const char *rd_at(struct strv_reader *rd, uint64_t addr)
{
	uint64_t page = PAGE_DOWN(addr);
	unsigned int i;

	for (i = 0; i < RD_PAGES; i++)
		if (rd->page[i] == page)
			return rd->buf[i] + (addr - page);
	i = rd->next;
	rd->next = (i + 1) % RD_PAGES;
	rd->page[i] = 1;
	if (copy_from_guest(rd->t, rd->buf[i], page, PAGE_SIZE) < 0)
		return NULL;
	rd->page[i] = page;
	return rd->buf[i] + (addr - page);
}

static int rd_u64(struct strv_reader *rd, uint64_t addr, uint64_t *v)
{
	unsigned char *b = (unsigned char *)v;
	const char *s;
	int i;

	for (i = 0; i < 8; i++) {
		s = rd_at(rd, addr + i);
		if (!s)
			return -EFAULT;
		b[i] = *s;
	}
	return 0;
}

/* A malloc'ed copy of the guest string at @addr, as copy_strings() takes. */
static int rd_str(struct strv_reader *rd, uint64_t addr, char **sp,
		  size_t *lenp)
{
	size_t len = 0;
	char *s = NULL;

	for (;;) {
		const char *c = rd_at(rd, addr + len), *nul;
		size_t n = PAGE_SIZE - ((addr + len) & (PAGE_SIZE - 1));
		char *ns;

		if (!c) {
			free(s);
			return -EFAULT;
		}
		nul = memchr(c, 0, n);
		if (nul)
			n = nul - c;
		if (len + n + 1 > MAX_ARG_STRLEN) {
			free(s);
			return -E2BIG;
		}
		ns = realloc(s, len + n + 1);
		if (!ns) {
			free(s);
			return -ENOMEM;
		}
		s = ns;
		memcpy(s + len, c, n);
		len += n;
		if (nul)
			break;
	}
	s[len] = 0;
	*sp = s;
	*lenp = len;
	return 0;
}

/*
 * Copy a NULL-terminated guest array of strings; *@bytes counts each
 * with its NUL and its pointer, up to @limit (-E2BIG past it).
 */
static int copy_strv(struct strv_reader *rd, uint64_t uv, char ***vp,
		     int *np, uint64_t *bytes, uint64_t limit)
{
	char **v = NULL;
	uint64_t p;
	size_t len;
	int n = 0, r;

	*vp = NULL;
	*np = 0;
	while (uv) {
		if (rd_u64(rd, uv + (uint64_t)n * 8, &p) < 0)
			return -EFAULT;
		if (!p)
			break;
		*bytes += 8;
		if (*bytes > limit)
			return -E2BIG;
		if (n % 64 == 0) {
			char **nv = realloc(v, (n + 65) * sizeof(*v));

			if (!nv)
				return -ENOMEM;
			v = nv;
			*vp = v;
		}
		r = rd_str(rd, p, &v[n], &len);
		if (r < 0)
			return r;
		*np = ++n;
		*bytes += len + 1;
		if (*bytes > limit)
			return -E2BIG;
	}
	return 0;
}

static void set_comm(struct proc *p, const char *path)
{
	const char *b = strrchr(path, '/');

	strncpy(p->comm, b ? b + 1 : path, sizeof(p->comm) - 1);
	p->comm[sizeof(p->comm) - 1] = 0;
}

/*
 * A CLONE_VM child execs: it gets an address space of its own (a fork of
 * the thread, whose memory exec empties next), and its thread in its
 * parent's address space ends.
 */
static int exec_unshare(struct task *t)
{
	struct uml_aspace *old = t->p->as, *as;
	struct uml_thread *th, *oth = t->th;
	struct proc *q;
	int r;

	r = uml_thread_clone(t->th, 0, &th, &as);
	if (r < 0)
		return r;
	for (q = procs; q; q = q->next)
		if (q->as == old && !q->as_shared)
			break;
	if (q)
		fast_proc_inherit(t->p, q);	/* what the copy holds */
	usage_as_left(t);	/* oth's times, before it goes */
	t->th = th;
	uml_thread_set_data(th, t);
	t->p->as = as;
	fdpass_unshared(t->p, q ? q->fdt : NULL);
	uml_thread_destroy(oth);
	proc_as_leave(t->p, old);
	fast_task_setup(t);
	return 0;
}

/* The point of no return: the old image goes. */
static int exec_commit(struct task *t, int fd, int ifd, const char *path,
		       char *hostpath, struct exec_args *a)
{
	struct proc *p = t->p;
	int r;

	world_stop_for(p);	/* the others may run on other workers */
	while (p->threads->next_in_proc || p->threads != t) {
		struct task *o = p->threads == t ? t->next_in_proc : p->threads;

		task_exit(o, 0);
	}
	r = p->as_shared ? exec_unshare(t) : 0;
	if (r == 0)
		r = uml_aspace_reset(p->as);
	if (r == 0) {
		/* The segments and the stack: one host call, not one each. */
		struct mm_batch b;
		int fr;

		mm_batch_start(t, &b);
		r = elf_load(t, fd, ifd, path, a);
		fr = mm_batch_end(t, r == 0);
		if (r == 0)
			r = fr;
	}
	if (r < 0) {
		free(hostpath);
		return r;
	}
	free(p->exe);
	p->exe = hostpath;
	set_comm(p, path);
	proc_set_cmdline(p, a->argv, a->argc);
	if (p->fdt->refs > 1) {
		struct fdtable *n = fdt_copy(p->fdt);

		if (n) {
			fdpass_drop(p->fdt);	/* two tables, one host table */
			fdt_put(p->fdt);
			p->fdt = n;
		}
	}
	fdt_close_on_exec(p->fdt);
	p->execed = true;
	sig_exec_reset(p);
	cred_exec(t);
	posix_timers_free(p);
	personality_exec(t);
	p->dumpable = true;
	fast_proc_sync(p);
	fast_task_setup(t);
	t->ss_sp = t->ss_size = 0;
	t->clear_child_tid = 0;
	t->robust_list = 0;	/* futex_exec_release() */
	if (p->vfork_parent) {
		sched_wake(p->vfork_parent);
		p->vfork_parent = NULL;
	}
	return 0;
}

/* The interpreter of a script must be an ELF itself. */
static int exec_prepare_interp(struct task *t, const char *interp, int *fdp,
			       char **hostpath, char *why, size_t whylen)
{
	int r = exec_open(t, AT_FDCWD, interp, fdp, hostpath);

	if (r < 0) {
		snprintf(why, whylen, "interpreter %.60s: %s", interp,
			 strerror(-r));
		return r;
	}
	r = elf_check(*fdp, why, whylen);
	if (r < 0) {
		close(*fdp);
		free(*hostpath);
	}
	return r;
}

/* Split "#!interp [arg]" from the first line of @fd; -ENOEXEC if none. */
static int script_line(int fd, char *line, size_t len, char **interp,
		       char **arg)
{
	ssize_t n = pread(fd, line, len - 1, 0);
	char *p, *end;

	if (n < 3 || line[0] != '#' || line[1] != '!')
		return -ENOEXEC;
	line[n] = 0;
	end = strchr(line, '\n');
	if (!end)
		return -ENOEXEC;
	while (end > line + 2 && (end[-1] == ' ' || end[-1] == '\t' ||
				  end[-1] == '\r'))
		end--;
	*end = 0;
	for (p = line + 2; *p == ' ' || *p == '\t'; p++)
		;
	if (!*p)
		return -ENOEXEC;
	*interp = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	*arg = NULL;
	if (*p) {
		*p++ = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p)
			*arg = p;
	}
	return 0;
}

/* argv becomes: interp [arg] path argv[1...], as the kernel's binfmt_script. */
static int script_args(struct exec_args *ea, const char *interp,
		       const char *arg, const char *path)
{
	int n = 0, i, extra = arg ? 3 : 2;
	char **v = calloc(ea->argc + extra + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	v[n++] = strdup(interp);
	if (arg)
		v[n++] = strdup(arg);
	v[n++] = strdup(path);
	for (i = 1; i < ea->argc; i++)
		v[n++] = ea->argv[i];
	if (ea->argc > 0)
		free(ea->argv[0]);
	free(ea->argv);
	ea->argv = v;
	ea->argc = n;
	return 0;
}

/*
 * The dynamic loader the ELF @fd names (PT_INTERP), opened as the guest
 * sees it (inside --root) before the point of no return, as
 * load_elf_binary() opens it: *@ifdp, or -1 for a static program.
 */
static int exec_open_loader(struct task *t, int fd, int *ifdp, char *why,
			    size_t whylen)
{
	char path[PATH_MAX], *host;
	int r = elf_interp(fd, path, sizeof(path));

	*ifdp = -1;
	if (r <= 0) {
		if (r < 0)
			snprintf(why, whylen, "bad program interpreter");
		return r;
	}
	r = exec_open(t, AT_FDCWD, path, ifdp, &host);
	if (r < 0) {
		snprintf(why, whylen, "interpreter %.60s: %s", path,
			 strerror(-r));
		return r;
	}
	free(host);
	if (elf_check(*ifdp, why, whylen) < 0) {
		snprintf(why, whylen, "interpreter %.60s: not an x86-64 ELF",
			 path);
		close(*ifdp);
		*ifdp = -1;
		return -ELIBBAD;
	}
	return 0;
}

/*
 * Open what @path runs: an ELF, or the interpreter of a "#!" script (one
 * level, as the argv is rewritten), and the dynamic loader of that ELF
 * (*@ifdp, -1 if none).  @why explains a failure.
 */
static int exec_prepare(struct task *t, const char *path,
			struct exec_args *ea, int *fdp, int *ifdp,
			char **hostpath, char *why, size_t whylen)
{
	char line[256], *interp, *arg;
	int r;

	*ifdp = -1;
	snprintf(why, whylen, "cannot execute");
	r = exec_open(t, AT_FDCWD, path, fdp, hostpath);
	if (r < 0) {
		snprintf(why, whylen, "%s", strerror(-r));
		return r;
	}
	r = elf_check(*fdp, why, whylen);
	if (r == -ENOEXEC &&
	    script_line(*fdp, line, sizeof(line), &interp, &arg) == 0) {
		close(*fdp);
		free(*hostpath);
		r = script_args(ea, interp, arg, path);
		if (r < 0)
			return r;
		r = exec_prepare_interp(t, interp, fdp, hostpath, why, whylen);
		if (r < 0)
			return r;
	}
	if (r == 0)
		r = exec_open_loader(t, *fdp, ifdp, why, whylen);
	if (r < 0) {
		close(*fdp);
		free(*hostpath);
	}
	return r;
}

/*
 * An empty argv gets "" as its argv[0], as do_execveat_common() gives it
 * since 5.18, so that a program that starts at argv[1] does not walk
 * into envp.
 */
static int argv_empty_string(struct exec_args *ea, uint64_t *bytes,
			     uint64_t limit)
{
	char **v;

	*bytes += 8 + 1;
	if (*bytes > limit)
		return -E2BIG;
	v = calloc(2, sizeof(*v));

	if (v)
		v[0] = strdup("");
	if (!v || !v[0]) {
		free(v);
		return -ENOMEM;
	}
	free(ea->argv);
	ea->argv = v;
	ea->argc = 1;
	return 0;
}

long sys_execve(struct task *t, const uint64_t *a)
{
	struct exec_args ea = { 0 };
	char path[PAGE_SIZE], why[128], *hostpath;
	struct strv_reader *rd = malloc(sizeof(*rd));
	uint64_t bytes, limit = exec_arg_limit(t->p);
	int r, fd, ifd;

	if (!rd)
		return -ENOMEM;
	r = strncpy_from_guest(t, path, a[0], sizeof(path));
	if (r < 0) {
		free(rd);
		return r;
	}
	bytes = r + 1;
	rd_init(rd, t);
	r = copy_strv(rd, a[1], &ea.argv, &ea.argc, &bytes, limit);
	if (r == 0)
		r = copy_strv(rd, a[2], &ea.envp, &ea.envc, &bytes, limit);
	free(rd);
	if (r == 0 && ea.argc == 0)
		r = argv_empty_string(&ea, &bytes, limit);
	if (r == 0)
		r = exec_strings_fit(t->p, bytes - 8 * (uint64_t)(ea.argc + ea.envc));
	if (r == 0)
		r = exec_prepare(t, path, &ea, &fd, &ifd, &hostpath, why,
				 sizeof(why));
	if (r == -ELIBBAD && opt.strace)
		warnx_("%s: %s", path, why);
	if (r < 0) {
		exec_args_free(&ea);
		return r;
	}
	r = exec_commit(t, fd, ifd, path, hostpath, &ea);
	close(fd);
	if (ifd >= 0)
		close(ifd);
	exec_args_free(&ea);
	if (r < 0) {
		/* Too late to fail the call: the old image is gone. */
		proc_exit_group(t->p, SIGSEGV);
	}
	return SYS_NORETURN;
}

static struct fdtable *init_fds(void)
{
	struct fdtable *fdt = fdt_new();
	int i;

	for (i = 0; fdt && i < 3; i++) {
		int hfd = fcntl(i, F_DUPFD_CLOEXEC, 3), fl;
		struct file *f;

		if (hfd < 0)
			continue;
		fl = fcntl(hfd, F_GETFL);
		f = file_new(hfd, fl < 0 ? O_RDWR : fl & ~O_NONBLOCK);
		if (f)
			fdt->ent[i].f = f;
	}
	return fdt;
}

/* Create guest pid 1 running @path; negative errno if it can't start. */
/* A malloc'ed copy of a NULL-terminated string array. */
static char **strv_dup(char **v, int *n)
{
	char **c;
	int i;

	for (*n = 0; v[*n]; (*n)++)
		;
	c = calloc(*n + 1, sizeof(*c));
	for (i = 0; c && i < *n; i++)
		c[i] = strdup(v[i]);
	return c;
}

static struct task *init_task(void)
{
	struct uml_thread *th;
	struct stat st;
	struct proc *p;
	struct task *t;
	int r;

	p = proc_alloc();
	if (!p)
		die("out of memory");
	init_proc = p;
	p->cwdfd = root_is_slash ? open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)
				 : fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
	p->fdt = init_fds();
	p->sh = sighand_new();
	p->umask = 022;
	rlimit_init(p);
	p->pgid = p->sid = p->pid;
	if (p->cwdfd < 0 || !p->fdt || !p->sh || fstat(p->cwdfd, &st) < 0)
		die("cannot set up the first process");
	p->cwd_in_proc = procfs_is_procfs(&st);
	r = uml_aspace_create(host, &p->as, &th);
	if (r < 0)
		die("cannot create an address space: %s", uml_strerror(r));
	/* Every thread and process cloned from it inherits the spin. */
	if (opt.spin_ns) {
		r = uml_thread_set_spin(th, opt.spin_ns);
		if (r < 0)
			die("--spin: %s", uml_strerror(r));
	}
	if (opt.yield) {
		r = uml_thread_set_yield(th, 1);
		if (r < 0)
			die(r == -EOPNOTSUPP ?
			    "--yield: backend '%s' cannot yield (skas.ko with SKAS_CAP_YIELD can)" :
			    "--yield: backend '%s': %s",
			    uml_backend_name(uml_host_backend(host)),
			    uml_strerror(r));
	}
	fdpass_aspace_new(p, true);
	t = task_new(p, th, p->pid);
	if (!t)
		die("out of memory");
	cred_init(t);
	t->timer_slack_ns = 50000;	/* the kernel's default */
	p->dumpable = true;
	fast_aspace_init(p);
	fast_task_setup(t);
	return t;
}

/* Create guest pid 1 running @path; negative errno if it can't start. */
int proc_start_init(const char *path, int argc, char **argv, char **envp)
{
	struct exec_args ea;
	char why[128], *hostpath;
	struct task *t = init_task();
	int fd, ifd, r;

	(void)argc;
	ea.argv = strv_dup(argv, &ea.argc);
	ea.envp = strv_dup(envp, &ea.envc);
	if (!ea.argv || !ea.envp)
		die("out of memory");
	r = exec_prepare(t, path, &ea, &fd, &ifd, &hostpath, why, sizeof(why));
	if (r < 0) {
		warnx_("%s: %s", path, why);
		exec_args_free(&ea);
		return r;
	}
	r = elf_load(t, fd, ifd, path, &ea);
	close(fd);
	if (ifd >= 0)
		close(ifd);
	proc_set_cmdline(t->p, ea.argv, ea.argc);
	exec_args_free(&ea);
	if (r < 0) {
		warnx_("%s: cannot load: %s", path, strerror(-r));
		free(hostpath);
		return -ENOEXEC;
	}
	t->p->exe = hostpath;
	set_comm(t->p, path);
	t->p->state = PROC_ALIVE;
	sched_enqueue(t);
	return 0;
}
