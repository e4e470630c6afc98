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
 *   fifo open            a blocking open waits for the other end, as
 *                        fs/pipe.c's wait_for_partner(): a reader for a
 *                        writer, a writer for a reader even if it closes
 *                        at once; SA_RESTART restarts it; prints "open ok"
 *   fifo flood SECS CMD  run CMD (umlrun) and send it SIGALRM, its own
 *                        time-slice signal, every 20 us until it exits
 *                        (SIGKILL after SECS): a signal landing in one of
 *                        the runtime's own host calls is then the rule,
 *                        not a 1 in 1,000 event; exits with CMD's status
 *   fifo swap SECS CMD   run CMD while swapping ./fifo-test, a FIFO, and
 *                        ./fifo-test.reg, a regular file, by rename
 *                        (RENAME_EXCHANGE) in a loop; SIGKILL after SECS
 *   fifo nbopen N        N opens of ./fifo-test with O_RDONLY|O_NONBLOCK,
 *                        which never wait, FIFO or not, and as many with
 *                        O_PATH|O_NONBLOCK; prints "nbopen ok" (under
 *                        "fifo swap": an open that looked at the file
 *                        first and met the other one must not wait in
 *                        the runtime)
 *   fifo lease SECS CMD  run CMD while a child holds a read lease on
 *                        ./fifo-test.reg, which it gives up 0.2 s after
 *                        the kernel asks it to (SIGIO); SIGKILL after SECS
 *   fifo leaseopen       a blocking O_WRONLY open of ./fifo-test.reg, which
 *                        waits until the lease is given up (under "fifo
 *                        lease"); prints "leaseopen ok"
 *
 * busybox.sh runs "fifo race" natively and, under "fifo flood", as a guest
 * of umlrun, and "fifo open" natively and as a guest; the outputs must be
 * equal.  Run from a writable folder: the FIFO is ./fifo-test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
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
			printf("%s, round %d: read %s \"%s\" %s\n", what, i,
			       r ? strerror(-r) : "ok", r ? "" : buf,
			       "before the writer was done");
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

/* Reap @pid, killed first if @kill_it; its wait status. */
static int reap(pid_t pid, int kill_it)
{
	int status = 0;

	if (kill_it)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* A byte from @fd within @ms milliseconds, else 0. */
static char get1_within(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;

	do
		r = poll(&pfd, 1, ms);
	while (r < 0 && errno == EINTR);
	return r > 0 ? get1(fd) : 0;
}

static pid_t fork_or_die(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	return pid;
}

/*
 * A blocking reader's open waits for a writer (wait_for_partner() on
 * w_counter): the child must not be past its open before the parent's
 * writer came, and then reads what it wrote.
 */
static int reader_open_waits(void)
{
	int st[2], fd, bad = 0;
	char buf[16], c;
	pid_t pid;

	if (pipe(st))
		die("pipe");
	pid = fork_or_die();
	if (!pid) {
		close(st[0]);
		fd = open(FIFO, O_RDONLY);
		put1(st[1], 'o');
		_exit(fd < 0 || read_all(fd, buf, sizeof(buf)) ||
		      strcmp(buf, "x"));
	}
	close(st[1]);
	c = get1_within(st[0], 100);
	if (c) {
		printf("reader's open returned with no writer there\n");
		bad = 1;
	}
	fd = open(FIFO, O_WRONLY);	/* the child is a reader already */
	if (fd < 0 || write(fd, "x", 1) != 1)
		die("open writer");
	close(fd);
	if (!c && get1_within(st[0], 5000) != 'o') {
		printf("reader's open did not return when the writer came\n");
		bad = 1;
	}
	close(st[0]);
	if (reap(pid, bad) && !bad) {
		printf("reader did not read what the writer wrote\n");
		bad = 1;
	}
	return bad;
}

/*
 * A writer waiting in open meets a reader that opens and closes at once
 * (r_counter moved): its open returns, and its write fails with EPIPE
 * (or, if it came first, goes to the reader about to close).
 */
static int writer_meets_fleeting_reader(void)
{
	int st[2], fd, k, bad;
	pid_t pid;
	char c = 0;

	if (pipe(st))
		die("pipe");
	pid = fork_or_die();
	if (!pid) {
		close(st[0]);
		fd = open(FIFO, O_WRONLY);
		if (fd < 0)
			_exit(1);
		put1(st[1], write(fd, "x", 1) < 0 && errno == EPIPE ? 'p' : 'w');
		_exit(0);
	}
	close(st[1]);
	/* Until the writer reports: it may not be in its open yet. */
	for (k = 0; k < 10; k++) {
		c = get1_within(st[0], 100 * (k + 1));
		if (c)
			break;
		fd = open(FIFO, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			die("open reader");
		close(fd);
	}
	/* EPIPE, or it wrote before the reader's close: both met it. */
	bad = c != 'p' && c != 'w';
	if (bad)
		printf("writer never left its open: it missed the reader\n");
	close(st[0]);
	reap(pid, bad);
	return bad;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/*
 * A FIFO open is restarted after a SA_RESTART handler, as the kernel's
 * -ERESTARTSYS from wait_for_partner() is: it does not fail with EINTR.
 * @writer: the child waits as a writer, else as a reader.
 */
static int open_restarts(int writer)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	const char *who = writer ? "writer" : "reader";
	int st[2], fd, bad;
	pid_t pid;
	char c;

	if (pipe(st))
		die("pipe");
	pid = fork_or_die();
	if (!pid) {
		close(st[0]);
		sigaction(SIGUSR1, &sa, NULL);
		put1(st[1], 's');
		fd = open(FIFO, writer ? O_WRONLY : O_RDONLY);
		put1(st[1], fd >= 0 ? 'k' : errno == EINTR ? 'i' : 'e');
		_exit(0);
	}
	close(st[1]);
	if (get1(st[0]) != 's')
		die("child");
	/* Into its open. */
	nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	kill(pid, SIGUSR1);
	c = get1_within(st[0], 50);
	/* Never waits: O_NONBLOCK, and O_RDWR for a reader's partner. */
	fd = open(FIFO, writer ? O_RDONLY | O_NONBLOCK : O_RDWR);
	if (fd < 0)
		die("open partner");
	if (!c)
		c = get1_within(st[0], 5000);
	close(fd);
	bad = c != 'k';
	if (bad)
		printf("%s's open after a SA_RESTART handler: %s\n", who,
		       c == 'i' ? "EINTR" : c ? "failed" : "never returned");
	close(st[0]);
	reap(pid, bad);
	return bad;
}

static int open_semantics(void)
{
	int bad;

	signal(SIGPIPE, SIG_IGN);
	make_fifo();
	bad = reader_open_waits();
	bad += writer_meets_fleeting_reader();
	bad += open_restarts(1);
	bad += open_restarts(0);
	unlink(FIFO);
	if (bad)
		return 1;
	printf("open ok\n");
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

/*
 * Wait for @pid, which @who started; after @secs, its task dump (umlrun's
 * SIGUSR1) and SIGKILL.  With @flood, SIGALRM every 20 us meanwhile, once
 * it catches the signal.  Its exit status, 128 + a signal's number.
 */
static int watch(const char *who, pid_t pid, double secs, bool flood)
{
	struct timespec gap = { 0, flood ? 20000 : 1000000 };
	double end = now() + secs;
	int status, ready = 0, killed = 0;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0)
			die("waitpid");
		if (now() > end && !killed) {
			printf("%s: still running after %.0f s: killed\n",
			       who, secs);
			kill(pid, SIGUSR1);	/* umlrun's task dump */
			nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
			kill(pid, SIGKILL);
			killed = 1;
		} else if (flood && !killed &&
			   (ready || (ready = catches_alarm(pid)))) {
			kill(pid, SIGALRM);
		}
		nanosleep(&gap, NULL);
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Host side: run @argv, sending it SIGALRM every 20 us while it lives. */
static int flood(double secs, char **argv)
{
	int cpus[2];
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
	return watch("flood", pid, secs, true);
}

/* Start @argv in a child: its pid. */
static pid_t spawn(char **argv)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		execvp(argv[0], argv);
		die(argv[0]);
	}
	return pid;
}

/* A new, empty regular fifo-test.reg (swap and lease use it). */
static void reg_create(void)
{
	int fd;

	unlink(FIFO ".reg");
	fd = open(FIFO ".reg", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(FIFO ".reg");
	close(fd);
}

/* Host side: run @argv while a child swaps FIFO and fifo-test.reg. */
static int swap(double secs, char **argv)
{
	int status;
	pid_t pid, swapper;

	unlink(FIFO);
	if (mkfifo(FIFO, 0600))
		die("mkfifo");
	reg_create();
	swapper = fork();
	if (swapper < 0)
		die("fork");
	if (!swapper) {
		for (;;)
			if (renameat2(AT_FDCWD, FIFO, AT_FDCWD, FIFO ".reg",
				      RENAME_EXCHANGE))
				die("renameat2");
	}
	pid = spawn(argv);
	status = watch("swap", pid, secs, false);
	kill(swapper, SIGKILL);
	waitpid(swapper, NULL, 0);
	unlink(FIFO);
	unlink(FIFO ".reg");
	return status;
}

/* Guest side of "swap": non-blocking opens, FIFO or not, never wait. */
static int nbopen(int n)
{
	int i, fd;

	for (i = 0; i < n; i++) {
		fd = open(FIFO, O_RDONLY | O_NONBLOCK);
		if (fd < 0) {
			printf("open %d: %s\n", i, strerror(errno));
			return 1;
		}
		close(fd);
		fd = open(FIFO, O_PATH | O_NONBLOCK);
		if (fd < 0) {
			printf("O_PATH open %d: %s\n", i, strerror(errno));
			return 1;
		}
		close(fd);
	}
	printf("nbopen ok\n");
	return 0;
}

static volatile sig_atomic_t lease_broken;

static void on_sigio(int sig)
{
	(void)sig;
	lease_broken = 1;
}

/* Run @argv while a child holds a read lease on fifo-test.reg. */
static int lease(double secs, char **argv)
{
	int status, p[2], fd;
	pid_t holder, pid;
	char c;

	reg_create();
	if (pipe(p))
		die("pipe");
	holder = fork();
	if (holder < 0)
		die("fork");
	if (!holder) {
		signal(SIGIO, on_sigio);
		fd = open(FIFO ".reg", O_RDONLY);
		if (fd < 0 || fcntl(fd, F_SETLEASE, F_RDLCK))
			die("F_SETLEASE");
		if (write(p[1], "l", 1) != 1)
			die("write");
		while (!lease_broken)
			pause();
		nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
		fcntl(fd, F_SETLEASE, F_UNLCK);
		pause();
		_exit(0);
	}
	if (read(p[0], &c, 1) != 1)
		die("the lease holder");
	pid = spawn(argv);
	status = watch("lease", pid, secs, false);
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	unlink(FIFO ".reg");
	return status;
}

/* Guest side of "lease": a blocking open waits for the lease to go. */
static int leaseopen(void)
{
	int fd = open(FIFO ".reg", O_WRONLY);

	if (fd < 0) {
		printf("leaseopen: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	printf("leaseopen ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 4 && !strcmp(argv[1], "race"))
		return race(atoi(argv[2]), atof(argv[3]));
	if (argc == 2 && !strcmp(argv[1], "open"))
		return open_semantics();
	if (argc >= 4 && !strcmp(argv[1], "flood"))
		return flood(atof(argv[2]), argv + 3);
	if (argc >= 4 && !strcmp(argv[1], "swap"))
		return swap(atof(argv[2]), argv + 3);
	if (argc == 3 && !strcmp(argv[1], "nbopen"))
		return nbopen(atoi(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "lease"))
		return lease(atof(argv[2]), argv + 3);
	if (argc == 2 && !strcmp(argv[1], "leaseopen"))
		return leaseopen();
	fprintf(stderr,
		"usage: fifo race N SECS | fifo open | fifo flood SECS CMD... |\n"
		"       fifo swap SECS CMD... | fifo nbopen N |\n"
		"       fifo lease SECS CMD... | fifo leaseopen\n");
	return 2;
}
