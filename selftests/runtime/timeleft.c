// SPDX-License-Identifier: GPL-2.0-only
/*
 * select, pselect6 and ppoll write the time left back to their timeout
 * (poll_select_finish()), after a timeout, an early wake-up, a signal's
 * EINTR or an error, not for a timeout in read-only memory (no EFAULT
 * either), not with the STICKY_TIMEOUTS personality; nanosleep and a
 * relative clock_nanosleep write it when a signal interrupts them (EFAULT
 * if they cannot), and clock_nanosleep checks its clock first (CPU-time
 * clocks left out: umlrun does not offer them); personality(2)
 * itself: read back, inherited over fork, READ_IMPLIES_EXEC dropped by
 * exec, UNAME26 and PER_LINUX32 in uname.  One line per check, times in
 * coarse classes; busybox.sh compares the output natively and under umlrun.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int rd[2], ready[2];	/* a pipe never readable, one readable */

/*
 * The long timeout, and the classes a time left falls in: 0, under half
 * of it, half to all (what a call that returned within LONG_S / 2 leaves:
 * room for a slow machine), exactly all, more.
 */
#define LONG_S	20
#define ALL_US	(LONG_S * 1000000LL)

static const char *cls(long long us)
{
	if (us == 0)
		return "zero";
	if (us < ALL_US / 2)
		return "under half";
	if (us < ALL_US)
		return "half to all";
	return us == ALL_US ? "unchanged" : "over all";
}

static void put(const char *what, long r, const char *left)
{
	printf("%s: %ld %s, left %s\n", what, r, r < 0 ? strerrorname_np(errno) : "",
	       left);
	errno = 0;
}

static void show(const char *what, long r, long long us)
{
	put(what, r, cls(us));
}

/*
 * A call that ends at once leaves all of the timeout, or a little less:
 * with a coarse clocksource (jiffies, in some VMs) "now" may or may not
 * have moved on between its start and its end, natively as under umlrun.
 */
static void show_at_once(const char *what, long r, long long us)
{
	put(what, r, us >= ALL_US / 2 && us <= ALL_US ? "half to all, or all" :
	    cls(us));
}

static void on_alarm(int sig)
{
	(void)sig;
}

static long sel(int fd, struct timeval *tv)
{
	fd_set s;

	FD_ZERO(&s);
	FD_SET(fd, &s);
	return syscall(SYS_select, fd + 1, &s, NULL, NULL, tv);
}

static long psel(int fd, struct timespec *ts)
{
	fd_set s;

	FD_ZERO(&s);
	FD_SET(fd, &s);
	return syscall(SYS_pselect6, fd + 1, &s, NULL, NULL, ts, NULL);
}

static long ppl(int fd, struct timespec *ts)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return syscall(SYS_ppoll, &p, 1, ts, NULL, 8);
}

#define TV(tv)	((tv).tv_sec * 1000000LL + (tv).tv_usec)
#define TS(ts)	((ts).tv_sec * 1000000LL + (ts).tv_nsec / 1000)

static void calls(const char *when)
{
	struct itimerval it = { .it_value = { 0, 100000 } };
	struct timeval tv;
	struct timespec ts;
	long r;
	char name[80];

#define CASE(what) snprintf(name, sizeof(name), "%s: %s", when, what)
	tv = (struct timeval){ 0, 50000 };
	r = sel(rd[0], &tv);
	CASE("select times out");
	show(name, r, TV(tv));
	tv = (struct timeval){ LONG_S, 0 };
	r = sel(ready[0], &tv);
	CASE("select, readable at once");
	show_at_once(name, r, TV(tv));
	tv = (struct timeval){ 0, 0 };
	r = sel(rd[0], &tv);
	CASE("select, zero timeout");
	show(name, r, TV(tv));
	tv = (struct timeval){ LONG_S, 0 };
	r = sel(60, &tv);	/* below 64: in every fd table, not open */
	CASE("select, bad fd");
	show_at_once(name, r, TV(tv));
	tv = (struct timeval){ LONG_S, -1 };
	r = sel(ready[0], &tv);
	CASE("select, bad timeout");
	show(name, r, TV(tv));
	tv = (struct timeval){ LONG_S, 0 };
	setitimer(ITIMER_REAL, &it, NULL);
	r = sel(rd[0], &tv);
	CASE("select, a signal");
	show(name, r, TV(tv));

	ts = (struct timespec){ 0, 50000000 };
	r = psel(rd[0], &ts);
	CASE("pselect6 times out");
	show(name, r, TS(ts));
	ts = (struct timespec){ LONG_S, 0 };
	r = psel(ready[0], &ts);
	CASE("pselect6, readable at once");
	show_at_once(name, r, TS(ts));
	ts = (struct timespec){ LONG_S, 0 };
	setitimer(ITIMER_REAL, &it, NULL);
	r = psel(rd[0], &ts);
	CASE("pselect6, a signal");
	show(name, r, TS(ts));

	ts = (struct timespec){ 0, 50000000 };
	r = ppl(rd[0], &ts);
	CASE("ppoll times out");
	show(name, r, TS(ts));
	ts = (struct timespec){ LONG_S, 0 };
	r = ppl(ready[0], &ts);
	CASE("ppoll, readable at once");
	show_at_once(name, r, TS(ts));
	/* Without a mask its size is not looked at: it times out. */
	ts = (struct timespec){ 0, 50000000 };
	r = syscall(SYS_ppoll, NULL, 0, &ts, NULL, 7);
	CASE("ppoll, bad sigset size, no mask");
	show(name, r, TS(ts));
	ts = (struct timespec){ LONG_S, 0 };
	setitimer(ITIMER_REAL, &it, NULL);
	r = ppl(rd[0], &ts);
	CASE("ppoll, a signal");
	show(name, r, TS(ts));
}

static void sleeps(void)
{
	struct itimerval it = { .it_value = { 0, 100000 } };
	struct timespec req = { LONG_S, 0 }, rem = { 9, 0 }, *ro;
	char name[64];
	long r;
	int id;

	setitimer(ITIMER_REAL, &it, NULL);
	r = nanosleep(&req, &rem);
	show("nanosleep, a signal", r, TS(rem));
	rem = (struct timespec){ 9, 0 };
	setitimer(ITIMER_REAL, &it, NULL);
	r = clock_nanosleep(CLOCK_MONOTONIC, 0, &req, &rem) ? -1 : 0;
	show("clock_nanosleep, a signal", r, TS(rem));
	rem = (struct timespec){ LONG_S, 0 };
	clock_gettime(CLOCK_MONOTONIC, &req);
	req.tv_sec += LONG_S;
	setitimer(ITIMER_REAL, &it, NULL);
	r = syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &req,
		    &rem);
	show("clock_nanosleep ABSTIME, a signal", r, TS(rem));
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	req = (struct timespec){ LONG_S, 0 };
	setitimer(ITIMER_REAL, &it, NULL);
	r = syscall(SYS_nanosleep, &req, ro);
	show("nanosleep, a signal, time left read-only", r, 0);
	munmap(ro, 4096);
	req = (struct timespec){ 0, 1 };
	for (id = 0; id <= 12; id++) {
		if (id == CLOCK_PROCESS_CPUTIME_ID)
			continue;
		snprintf(name, sizeof(name), "clock_nanosleep(clock %d)", id);
		show(name, syscall(SYS_clock_nanosleep, id, 0, &req, NULL), 0);
	}
	show("clock_nanosleep(clock 4, bad request)",
	     syscall(SYS_clock_nanosleep, 4, 0, 8L, NULL), 0);
	show("clock_nanosleep(clock 1, bad request)",
	     syscall(SYS_clock_nanosleep, 1, 0, 8L, NULL), 0);
}

static void read_only(void)
{
	struct timeval *tv = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec *ts = (struct timespec *)(tv + 1);

	*tv = (struct timeval){ LONG_S, 0 };
	*ts = (struct timespec){ LONG_S, 0 };
	mprotect(tv, 4096, PROT_READ);
	show("select, timeout read-only", sel(ready[0], tv), TV(*tv));
	show("pselect6, timeout read-only", psel(ready[0], ts), TS(*ts));
	show("ppoll, timeout read-only", ppl(ready[0], ts), TS(*ts));
	munmap(tv, 4096);
}

static void personalities(const char *self)
{
	struct utsname u;
	pid_t c;
	int st;

	printf("personality now %#x\n", personality(0xffffffff));
	printf("set UNAME26: old %#x\n", personality(UNAME26));
	uname(&u);
	printf("uname26: %s %s\n", u.release, u.machine);
	printf("set PER_LINUX32: old %#x\n", personality(PER_LINUX32));
	uname(&u);
	printf("linux32: %s %s\n", u.release, u.machine);
	printf("set READ_IMPLIES_EXEC | ADDR_NO_RANDOMIZE: old %#x\n",
	       personality(READ_IMPLIES_EXEC | ADDR_NO_RANDOMIZE));
	c = fork();
	if (c == 0) {
		printf("child: %#x\n", personality(0xffffffff));
		execl(self, self, "exec", (char *)NULL);
		_exit(127);
	}
	waitpid(c, &st, 0);
	printf("set 0x7fffffff: old %#x\n", personality(0x7fffffff));
	printf("ask with -1 (64-bit): %#lx\n", syscall(SYS_personality, -1L));
	printf("set PER_LINUX: old %#x\n", personality(PER_LINUX));
	printf("set STICKY_TIMEOUTS: old %#x\n", personality(STICKY_TIMEOUTS));
	calls("sticky");
	personality(PER_LINUX);
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "exec")) {
		printf("after exec: %#x\n", personality(0xffffffff));
		return 0;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	if (pipe(rd) || pipe(ready) || write(ready[1], "x", 1) != 1) {
		perror("pipe");
		return 1;
	}
	calls("linux");
	read_only();
	sleeps();
	personalities(argv[0]);
	return 0;
}
