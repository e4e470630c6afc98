// SPDX-License-Identifier: GPL-2.0-only
/*
 * umlrun: run an x86-64 Linux program as guest pid 1 of a small
 * user-mode kernel built on libuml.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umlrun.h"

struct options opt = { .root = "/", .max_procs = 256 };
struct uml_host *host;
int root_fd = -1;
bool root_is_slash = true;

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("umlrun: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(125);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("umlrun: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: umlrun [--backend=skas|ptrace|auto] [--root=DIR] [--rw]\n"
		"              [--strace] [--stats] [--no-fast] [--no-passthrough]\n"
		"              [--spin[=NS]] [--yield] [--max-procs=N]\n"
		"              [--net=inet|none|host] [--cpus=N]\n"
		"              [--] PROGRAM [ARGS...]\n"
		"       umlrun --list-syscalls | --version\n");
	exit(status);
}

/* umlrun's, libuml's and, if loaded, skas.ko's versions. */
static void version(void)
{
	char v[64] = "";
	FILE *f;

	printf("umlrun %s\nlibuml %s\n", UMLRUN_VERSION, uml_version());
	f = fopen("/sys/module/skas/version", "r");
	if (f && fgets(v, sizeof(v), f))
		printf("skas.ko %s", v);
	else
		printf("skas.ko %s\n", access("/sys/module/skas", F_OK) ?
		       "not loaded" : "loaded, no version");
	if (f)
		fclose(f);
	exit(0);
}

static int parse_options(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (strcmp(s, "--") == 0)
			return i + 1;
		if (s[0] != '-' || s[1] != '-')
			return i;
		if (strncmp(s, "--backend=", 10) == 0) {
			if (uml_backend_parse(s + 10, &opt.backend) < 0)
				die("unknown backend '%s'", s + 10);
		} else if (strncmp(s, "--root=", 7) == 0) {
			opt.root = s + 7;
		} else if (strcmp(s, "--rw") == 0) {
			opt.rw = true;
		} else if (strcmp(s, "--strace") == 0) {
			opt.strace = true;
		} else if (strcmp(s, "--stats") == 0) {
			opt.stats = true;
		} else if (strcmp(s, "--no-fast") == 0) {
			opt.no_fast = true;
		} else if (strcmp(s, "--no-passthrough") == 0) {
			opt.no_passthrough = true;
		} else if (strcmp(s, "--spin") == 0) {
			opt.spin_ns = -1;
		} else if (strcmp(s, "--yield") == 0) {
			opt.yield = true;
		} else if (strncmp(s, "--spin=", 7) == 0) {
			char *end;

			errno = 0;
			opt.spin_ns = strtol(s + 7, &end, 10);
			if (end == s + 7 || *end || errno || opt.spin_ns < 0 ||
			    opt.spin_ns > UINT_MAX)
				die("bad --spin: a time in ns");
		} else if (strncmp(s, "--net=", 6) == 0) {
			if (strcmp(s + 6, "inet") == 0)
				opt.net = NET_INET;
			else if (strcmp(s + 6, "none") == 0)
				opt.net = NET_NONE;
			else if (strcmp(s + 6, "host") == 0)
				opt.net = NET_HOST;
			else
				die("unknown --net mode '%s'", s + 6);
		} else if (strncmp(s, "--cpus=", 7) == 0) {
			char *end;
			long n = strtol(s + 7, &end, 10);

			if (end == s + 7 || *end || n < 1 || n > GUEST_MAX_CPUS)
				die("bad --cpus: 1 to %d", GUEST_MAX_CPUS);
			opt.cpus = n;
		} else if (strncmp(s, "--max-procs=", 12) == 0) {
			opt.max_procs = atoi(s + 12);
			if (opt.max_procs < 1)
				die("bad --max-procs");
		} else if (strcmp(s, "--list-syscalls") == 0) {
			syscall_list();
			exit(0);
		} else if (strcmp(s, "--version") == 0) {
			version();
		} else if (strcmp(s, "--help") == 0) {
			usage(0);
		} else {
			fprintf(stderr, "umlrun: unknown option '%s'\n", s);
			usage(125);
		}
	}
	return i;
}

static void setup_root(void)
{
	char real[4096];

	if (!realpath(opt.root, real))
		die("--root=%s: %s", opt.root, strerror(errno));
	root_is_slash = strcmp(real, "/") == 0;
	opt.root = root_default.path = strdup(real);
	root_fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		die("--root=%s: %s", real, strerror(errno));
	root_default.refs = 1;
	root_default.fd = root_fd;
	root_default.slash = root_is_slash;
}

static void setup_host_limits(void)
{
	struct rlimit rl;

	rlimit_host_init();	/* the guest's, before the runtime's change */
	/* Guest fds are host fds of the runtime: allow many. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* A guest writing to a closed pipe gets SIGPIPE from us, not the host. */
	signal(SIGPIPE, SIG_IGN);
	/* And past RLIMIT_FSIZE SIGXFSZ from us (rlimit.c), never the host's. */
	signal(SIGXFSZ, SIG_IGN);
	/* The guest's umask is applied by the runtime. */
	umask(0);
}

/* Map the host's exec errors to a shell's exit statuses. */
static int start_status(int err)
{
	if (err == -ENOENT || err == -ENOTDIR)
		return 127;
	return 126;
}

/* Like a shell: a PROGRAM without a slash is looked up in $PATH. */
static const char *find_program(const char *prog)
{
	static char buf[4096];
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(prog, '/') || !path || !root_is_slash)
		return prog;
	for (p = path; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p), p, prog);
		if (access(buf, X_OK) == 0)
			return buf;
	}
	return prog;
}

/*
 * --cpus's default: the host CPUs umlrun may run on (its affinity, which
 * is at most the online ones), up to what a guest cpumask holds.
 */
static int host_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > GUEST_MAX_CPUS ? GUEST_MAX_CPUS : n;
}

/* The end, from whichever worker saw the guest init exit. */
void runtime_exit(int status)
{
	if (opt.stats)
		stats_print();
	uml_host_close(host);
	exit(status);
}

extern int proc_start_init(const char *path, int argc, char **argv,
			   char **envp);

int main(int argc, char **argv)
{
	extern char **environ;
	int first, r;

	first = parse_options(argc, argv);
	if (first >= argc)
		usage(125);
	setup_root();
	setup_host_limits();

	r = uml_host_open(&host, opt.backend);
	if (r < 0)
		die("cannot open backend '%s': %s",
		    uml_backend_name(opt.backend), uml_strerror(r));
	if (opt.spin_ns && !uml_host_spin_max(host))
		die("--spin: backend '%s' cannot spin (skas.ko with SKAS_CAP_SPIN can)",
		    uml_backend_name(uml_host_backend(host)));
	if (opt.spin_ns > uml_host_spin_max(host))
		die("--spin=%ld: at most %ld on this host", opt.spin_ns,
		    uml_host_spin_max(host));
	if (opt.spin_ns == -1)
		opt.spin_ns = uml_host_spin_max(host);
	fast_init();
	fdpass_init();
	if (!opt.cpus)
		opt.cpus = host_cpus();
	guest_ncpus = opt.cpus;
	smp_init(opt.cpus);

	r = proc_start_init(find_program(argv[first]), argc - first, argv + first, environ);
	if (r < 0)
		return start_status(r);
	runtime_exit(sched_loop());
}
