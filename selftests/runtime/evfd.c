// SPDX-License-Identifier: GPL-2.0-only
/*
 * eventfd, timerfd and epoll, against the kernel's rules: counters and
 * EFD_SEMAPHORE, blocking and non-blocking reads, timer expirations and
 * overruns, edge and level triggering, EPOLLONESHOT, nesting, a wait that
 * blocks until another process writes, epoll_pwait's signal mask, and the
 * argument checks of each (bad flags, fds, kinds, sizes, pointers).
 * Prints "evfd ok", or exits with the number of the check that failed.
 * Runs natively too: the expectations are the kernel's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fails(long r, int err)
{
	return r != -1 || errno != err;
}

static uint64_t rd64(int fd)
{
	uint64_t v = 0;

	return read(fd, &v, 8) == 8 ? v : (uint64_t)-1;
}

/* Fork a child that writes @len bytes of @buf to @fd after @ms. */
static pid_t later(int fd, const void *buf, size_t len, int ms)
{
	pid_t pid = fork();

	if (pid == 0) {
		usleep(ms * 1000);
		_exit(write(fd, buf, len) == (ssize_t)len ? 0 : 1);
	}
	return pid;
}

static int reap(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st);
}

static int check_eventfd(void)
{
	uint64_t v = 5, big = UINT64_MAX;
	int fd, sem;
	pid_t pid;
	char small[4];

	if (fails(eventfd(0, 0x1000), EINVAL))
		return 10;
	fd = eventfd(3, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0 || !(fcntl(fd, F_GETFL) & O_NONBLOCK) ||
	    fcntl(fd, F_GETFD) != FD_CLOEXEC)
		return 11;
	if (rd64(fd) != 3 || fails(read(fd, &v, 8), EAGAIN))
		return 12;
	if (fails(write(fd, &big, 8), EINVAL) || fails(read(fd, small, 4), EINVAL))
		return 13;
	close(fd);
	sem = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK);
	if (sem < 0 || rd64(sem) != 1 || rd64(sem) != 1 ||
	    fails(read(sem, &v, 8), EAGAIN))
		return 14;
	close(sem);
	/* A blocking read waits for another process's write. */
	fd = eventfd(0, 0);
	v = 5;
	pid = later(fd, &v, 8, 50);
	if (fd < 0 || pid < 0 || rd64(fd) != 5 || !reap(pid))
		return 15;
	close(fd);
	return 0;
}

static int check_timerfd(void)
{
	struct itimerspec it = { { 0, 0 }, { 0, 20000000 } }, cur;
	struct timespec now;
	int fd, efd;

	if (fails(timerfd_create(CLOCK_MONOTONIC, 0x1000), EINVAL) ||
	    fails(timerfd_create(12345, 0), EINVAL))
		return 20;
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (fd < 0 || timerfd_settime(fd, 0, &it, NULL))
		return 21;
	if (timerfd_gettime(fd, &cur) || cur.it_value.tv_nsec > 20000000)
		return 22;
	if (rd64(fd) != 1)	/* blocks about 20 ms */
		return 23;
	/* Periodic, 5 ms: after 40 ms, several expirations in one read. */
	it = (struct itimerspec){ { 0, 5000000 }, { 0, 5000000 } };
	if (timerfd_settime(fd, 0, &it, NULL))
		return 24;
	usleep(40000);
	if (rd64(fd) < 4)
		return 25;
	/* An absolute time in the past expires at once. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	it = (struct itimerspec){ { 0, 0 }, { now.tv_sec - 1, 1 } };
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &it, &cur) || rd64(fd) != 1)
		return 26;
	it.it_value.tv_nsec = 1000000000L;
	if (fails(timerfd_settime(fd, 0, &it, NULL), EINVAL))
		return 27;
	efd = eventfd(0, 0);
	if (fails(timerfd_settime(efd, 0, &it, NULL), EINVAL) ||
	    fails(timerfd_gettime(efd, &cur), EINVAL) ||
	    fails(timerfd_gettime(-1, &cur), EBADF) ||
	    fails(timerfd_gettime(fd, (void *)8), EFAULT))
		return 28;
	close(efd);
	close(fd);
	return 0;
}

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

static int check_epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0x1234567890ULL };
	struct epoll_event out[4];
	struct timespec t0, t1;
	sigset_t usr1, none;
	int ep, ep2, p[2], tmp;
	pid_t pid;
	char c;

	if (fails(epoll_create1(0x1000), EINVAL) || fails(epoll_create(0), EINVAL))
		return 40;
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || pipe(p) || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev))
		return 41;
	if (fails(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), EEXIST) ||
	    fails(epoll_ctl(ep, EPOLL_CTL_DEL, p[1], NULL), ENOENT) ||
	    fails(epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev), EINVAL) ||
	    fails(epoll_ctl(p[0], EPOLL_CTL_ADD, p[1], &ev), EINVAL) ||
	    fails(epoll_ctl(ep, EPOLL_CTL_ADD, 1000, &ev), EBADF) ||
	    fails(epoll_ctl(ep, 99, p[1], &ev), EINVAL) ||
	    fails(epoll_ctl(ep, EPOLL_CTL_ADD, p[1], (void *)8), EFAULT))
		return 42;
	tmp = open("/proc/self/exe", O_RDONLY);
	if (tmp < 0 || fails(epoll_ctl(ep, EPOLL_CTL_ADD, tmp, &ev), EPERM))
		return 43;
	close(tmp);
	if (epoll_wait(ep, out, 4, 0) != 0 || fails(epoll_wait(ep, out, 0, 0), EINVAL) ||
	    fails(epoll_wait(p[0], out, 4, 0), EINVAL) ||
	    fails(epoll_wait(-1, out, 4, 0), EBADF))
		return 44;
	/* Level-triggered: ready until read, with the guest's data. */
	if (write(p[1], "ab", 2) != 2 || epoll_wait(ep, out, 4, 0) != 1 ||
	    out[0].data.u64 != 0x1234567890ULL || !(out[0].events & EPOLLIN) ||
	    epoll_wait(ep, out, 4, 0) != 1)
		return 45;
	if (fails(syscall(SYS_epoll_wait, ep, 8, 4, 0), EFAULT))
		return 46;
	/* Edge-triggered: once per new write. */
	ev.events = EPOLLIN | EPOLLET;
	if (epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev) || epoll_wait(ep, out, 4, 0) != 1 ||
	    epoll_wait(ep, out, 4, 0) != 0)
		return 47;
	/* One-shot: once, until re-armed. */
	ev.events = EPOLLIN | EPOLLONESHOT;
	if (epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev) || epoll_wait(ep, out, 4, 0) != 1 ||
	    epoll_wait(ep, out, 4, 0) != 0 || epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev) ||
	    epoll_wait(ep, out, 4, 0) != 1)
		return 48;
	if (read(p[0], out, 2) != 2)
		return 49;
	/* A blocking wait until another process writes; a timeout. */
	ev.events = EPOLLIN;
	if (epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev))
		return 50;
	pid = later(p[1], "x", 1, 50);
	if (pid < 0 || epoll_wait(ep, out, 4, -1) != 1 || !reap(pid) ||
	    read(p[0], &c, 1) != 1)
		return 51;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (epoll_wait(ep, out, 4, 30) != 0)
		return 52;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if ((t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec - t0.tv_nsec < 29000000)
		return 53;
	/* Nested: an epoll fd in another one. */
	ep2 = epoll_create1(0);
	ev.data.u64 = 7;
	if (ep2 < 0 || epoll_ctl(ep2, EPOLL_CTL_ADD, ep, &ev) ||
	    epoll_wait(ep2, out, 4, 0) != 0 || write(p[1], "y", 1) != 1 ||
	    epoll_wait(ep2, out, 4, 0) != 1 || out[0].data.u64 != 7)
		return 54;
	/* epoll_pwait: a pending signal its mask unblocks ends the wait. */
	sigemptyset(&none);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	signal(SIGUSR1, on_usr1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	if (read(p[0], &c, 1) != 1 || epoll_wait(ep, out, 4, 0) != 0)
		return 55;
	if (epoll_pwait(ep, out, 4, 20, &usr1) != 0)	/* a timeout */
		return 56;
	raise(SIGUSR1);
	if (fails(epoll_pwait(ep, out, 4, 1000, &none), EINTR) || handled != 1)
		return 57;
	if (fails(syscall(SYS_epoll_pwait, ep, out, 4, 20, &none, 7), EINVAL))
		return 58;
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
	close(ep2);
	close(ep);
	close(p[0]);
	close(p[1]);
	return 0;
}

int main(void)
{
	int r = check_eventfd();

	if (!r)
		r = check_timerfd();
	if (!r)
		r = check_epoll();
	if (r)
		return r;
	puts("evfd ok");
	return 0;
}
