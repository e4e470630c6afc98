// SPDX-License-Identifier: GPL-2.0-only
/*
 * Named pipes under umlrun, against Linux's semantics (fs/pipe.c).
 *
 *   fifo race N SECS     N rounds (at most SECS seconds) of each of three
 *                        orders: reader first (the writer writes "x"),
 *                        writer leaves (it writes nothing), writer first;
 *                        a reader must never see EOF before the writer
 *                        came and went, nor a writer lose its reader;
 *                        prints "race ok", or the first round that failed
 *   fifo flood SECS CMD  run CMD (umlrun) and send it SIGALRM, its own
 *                        time-slice signal, every 20 us until it exits
 *                        (SIGKILL after SECS): a signal landing in one of
 *                        the runtime's own host calls is then the rule,
 *                        not a 1 in 1,000 event; exits with CMD's status
 *
 * busybox.sh runs "fifo race" natively and, under "fifo flood", as a guest
 * of umlrun; the outputs must be equal.  Run from a writable folder: the
 * FIFO is ./fifo-test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FIFO	"fifo-test"

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A few turns for the other side, so that either may come first. */
static void dither(int i)
{
	int k;

	for (k = 0; k < i % 4; k++)
		sched_yield();
}

/* Read @fd to EOF into @buf (NUL-terminated); -errno on an error. */
static int read_all(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	for (;;) {
		r = read(fd, buf + got, len - 1 - got);
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += r;
	}
	buf[got] = 0;
	return 0;
}

static void make_fifo(void)
{
	unlink(FIFO);
	if (mkfifo(FIFO, 0600))
		die("mkfifo");
}

/* One byte on @fd; 0 at EOF or on an error. */
static char get1(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? c : 0;
}

static void put1(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		die("write");
}

/*
 * A partner process for the rounds of one order: it waits for the
 * parent's go (a byte on a pipe), takes a few turns so that either side
 * may come first, does its part and reports a byte back.
 */
struct partner {
	pid_t pid;
	int go, done;		/* the parent's ends */
};

static void partner_start(struct partner *pt, void (*fn)(int go, int done))
{
	int go[2], done[2];

	if (pipe(go) || pipe(done))
		die("pipe");
	pt->pid = fork();
	if (pt->pid < 0)
		die("fork");
	if (!pt->pid) {
		close(go[1]);
		close(done[0]);
		fn(go[0], done[1]);
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	pt->go = go[1];
	pt->done = done[0];
}

/* End the partner; kill it if @stuck (in an open that never returns). */
static void partner_end(struct partner *pt, int stuck)
{
	if (stuck)
		kill(pt->pid, SIGKILL);
	close(pt->go);		/* EOF: a waiting partner leaves */
	close(pt->done);
	while (waitpid(pt->pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Writer for "reader first": open, write "x" (or nothing), close. */
static void late_writer(int go, int done)
{
	int i, fd;
	char c;

	for (i = 0; (c = get1(go)); i++) {
		dither(i);
		fd = open(FIFO, O_WRONLY);
		if (fd < 0)
			_exit(1);
		if (c == 'x' && write(fd, "x", 1) != 1)
			_exit(1);
		put1(done, 'c');	/* before the close, so before EOF */
		close(fd);
	}
}

/*
 * Reader first: the parent opens and reads at once, the writer comes a
 * little later and writes "x", or (writer leaves) writes nothing.  The
 * reader must get "x" and then EOF, or EOF only after the writer came:
 * never an EOF before the writer.
 */
static int reader_first(int n, double end, int data)
{
	const char *what = data ? "reader first" : "writer leaves";
	struct partner pt;
	char buf[16];
	int i, fd, r;

	partner_start(&pt, late_writer);
	/* The writer's byte is there before its close, so before EOF. */
	fcntl(pt.done, F_SETFL, O_NONBLOCK);
	for (i = 0; i < n && now() < end; i++) {
		put1(pt.go, data ? 'x' : 'n');
		fd = open(FIFO, O_RDONLY);
		if (fd < 0)
			die("open reader");
		r = read_all(fd, buf, sizeof(buf));
		close(fd);
		if (r || strcmp(buf, data ? "x" : "") || get1(pt.done) != 'c') {
			printf("%s, round %d: read %s \"%s\" before the writer was done\n",
			       what, i, r ? strerror(-r) : "ok", r ? "" : buf);
			partner_end(&pt, 1);
			return 1;
		}
	}
	partner_end(&pt, 0);
	return 0;
}

/* Reader for "writer first": open, read to EOF, report what it read. */
static void late_reader(int go, int done)
{
	char buf[16];
	int i, fd;

	for (i = 0; get1(go); i++) {
		dither(i);
		fd = open(FIFO, O_RDONLY);
		if (fd < 0 || read_all(fd, buf, sizeof(buf)))
			_exit(1);
		close(fd);
		put1(done, strcmp(buf, "x") ? 'e' : 'x');
	}
}

/*
 * Writer first: the parent opens for writing and waits, the reader comes
 * a little later and must read "x".  An alarm ends a writer whose reader
 * left early (EINTR).
 */
static int writer_first(int n, double end)
{
	struct partner pt;
	int i, fd, r;
	char got;

	partner_start(&pt, late_reader);
	for (i = 0; i < n && now() < end; i++) {
		put1(pt.go, 'g');
		alarm(2);
		r = 0;
		fd = open(FIFO, O_WRONLY);
		if (fd < 0)
			r = -errno;
		else if (write(fd, "x", 1) != 1)
			r = -errno;
		alarm(0);
		if (fd >= 0)
			close(fd);
		got = r ? 0 : get1(pt.done);
		if (r || got != 'x') {
			printf("writer first, round %d: writer %s, reader %s\n",
			       i, r ? strerror(-r) : "ok",
			       got == 'e' ? "saw EOF first" : "gone");
			partner_end(&pt, 1);
			return 1;
		}
	}
	partner_end(&pt, 0);
	return 0;
}

static int race(int n, double secs)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	double t0 = now();
	int fails;

	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: EINTR */
	signal(SIGPIPE, SIG_IGN);
	make_fifo();
	/* A third of the time for each order. */
	fails = reader_first(n, t0 + secs / 3, 1);
	fails += reader_first(n, t0 + secs * 2 / 3, 0);
	fails += writer_first(n, t0 + secs);
	unlink(FIFO);
	if (fails)
		return 1;
	printf("race ok\n");
	return 0;
}

/* Does @pid catch SIGALRM yet (else the flood would kill it)? */
static int catches_alarm(pid_t pid)
{
	unsigned long long cgt = 0;
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &cgt) == 1)
			break;
	fclose(f);
	return !!(cgt & (1ULL << (SIGALRM - 1)));
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * With two CPUs or more: the command on the first, the flood on the
 * second, so that a signal comes while the runtime is inside a syscall.
 */
static void pin(int (*cpus)[2])
{
	cpu_set_t set;
	int cpu, n = 0;

	(*cpus)[0] = (*cpus)[1] = -1;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			(*cpus)[n++] = cpu;
	if (n < 2) {
		(*cpus)[0] = -1;
		return;
	}
	pin_to((*cpus)[1]);
}

/* Host side: run @argv, sending it SIGALRM every 20 us while it lives. */
static int flood(double secs, char **argv)
{
	struct timespec gap = { 0, 20000 };
	double end = now() + secs;
	int status, ready = 0, killed = 0, cpus[2];
	pid_t pid;

	prctl(PR_SET_TIMERSLACK, 1);
	pin(&cpus);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		if (cpus[0] >= 0)
			pin_to(cpus[0]);
		execvp(argv[0], argv);
		die(argv[0]);
	}
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0)
			die("waitpid");
		if (now() > end && !killed) {
			printf("flood: still running after %.0f s: killed\n",
			       secs);
			kill(pid, SIGUSR1);	/* umlrun's task dump */
			nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
			kill(pid, SIGKILL);
			killed = 1;
		} else if (killed) {
			/* wait for it */
		} else if (ready || (ready = catches_alarm(pid))) {
			kill(pid, SIGALRM);
		}
		nanosleep(&gap, NULL);
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 4 && !strcmp(argv[1], "race"))
		return race(atoi(argv[2]), atof(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "flood"))
		return flood(atof(argv[2]), argv + 3);
	fprintf(stderr, "usage: fifo race N SECS | fifo flood SECS CMD...\n");
	return 2;
}
