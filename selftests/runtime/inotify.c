// SPDX-License-Identifier: GPL-2.0-only
/*
 * inotify (guest-runtime/inotify.c): bad input in the kernel's order,
 * the events of a folder's life (create, write, close, rename with one
 * cookie, delete, the watch's removal), IN_DONT_FOLLOW and IN_ONLYDIR on
 * a symlink, IN_MASK_CREATE, a blocking read woken by another process,
 * epoll and FIONREAD over the fd, a buffer too small.  One line per
 * check; busybox.sh compares the output natively and under umlrun.  Run
 * in an empty writable folder.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BADPTR	((const char *)8)

static void show(const char *what, long r)
{
	printf("%s: %ld %s\n", what, r, r < 0 ? strerrorname_np(errno) : "");
	errno = 0;
}

/* Print the events read from @fd: mask, name; moves' cookies paired. */
static void events(const char *when, int fd)
{
	char buf[4096] __attribute__((aligned(8)));
	uint32_t cookie = 0;
	ssize_t n = read(fd, buf, sizeof(buf)), off;

	if (n < 0) {
		printf("%s: read %s\n", when, strerrorname_np(errno));
		return;
	}
	for (off = 0; off < n; ) {
		struct inotify_event *e = (struct inotify_event *)(buf + off);

		printf("%s: wd %d mask %#x name '%s'", when, e->wd, e->mask,
		       e->len ? e->name : "");
		if (e->mask & IN_MOVED_FROM)
			cookie = e->cookie;
		if (e->mask & IN_MOVED_TO)
			printf(" cookie %s", e->cookie == cookie && cookie ?
			       "paired" : "unpaired");
		putchar('\n');
		off += sizeof(*e) + e->len;
	}
}

int main(void)
{
	int fd, p[2], wd, wd2, ep, n = -1, f;
	struct epoll_event ev = { .events = EPOLLIN };
	char small[1];
	pid_t c;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (pipe(p) || mkdir("d", 0755) || symlink("d", "l") ||
	    close(open("file", O_CREAT | O_WRONLY, 0644))) {
		perror("setup");
		return 1;
	}
	show("init1(bad flags)", inotify_init1(0x10));
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	show("init1(NONBLOCK | CLOEXEC) >= 0", fd < 0 ? fd : 0);
	show("fd is close-on-exec", fcntl(fd, F_GETFD));
	show("read, nothing queued", read(fd, small, sizeof(small)));

	show("add_watch(mask 0)", inotify_add_watch(fd, "d", 0));
	show("add_watch(mask 0x1000)",
	     inotify_add_watch(fd, "d", IN_CREATE | 0x1000));
	show("add_watch(mask 0, bad fd)", inotify_add_watch(99, "d", 0));
	show("add_watch(bad fd)", inotify_add_watch(99, "d", IN_CREATE));
	show("add_watch(bad fd, ADD | CREATE)",
	     inotify_add_watch(99, "d", IN_CREATE | IN_MASK_ADD |
			       IN_MASK_CREATE));
	show("add_watch(ADD | CREATE)",
	     inotify_add_watch(fd, "d", IN_CREATE | IN_MASK_ADD |
			       IN_MASK_CREATE));
	show("add_watch(a pipe)", inotify_add_watch(p[0], "d", IN_CREATE));
	show("add_watch(bad path)", inotify_add_watch(fd, BADPTR, IN_CREATE));
	show("add_watch(no such file)",
	     inotify_add_watch(fd, "nothing", IN_CREATE));
	show("add_watch(ONLYDIR, a file)",
	     inotify_add_watch(fd, "file", IN_ATTRIB | IN_ONLYDIR));
	show("add_watch(ONLYDIR | DONT_FOLLOW, a symlink to a folder)",
	     inotify_add_watch(fd, "l", IN_CREATE | IN_ONLYDIR |
			       IN_DONT_FOLLOW));
	wd = inotify_add_watch(fd, "l", IN_CREATE | IN_DELETE | IN_MODIFY |
			       IN_CLOSE_WRITE | IN_MOVE | IN_ONLYDIR);
	show("add_watch(ONLYDIR, the symlink followed)", wd);
	show("add_watch(d, MASK_CREATE again)",
	     inotify_add_watch(fd, "d", IN_CREATE | IN_MASK_CREATE));
	show("add_watch(d, MASK_ADD: the same wd)",
	     inotify_add_watch(fd, "d", IN_ATTRIB | IN_MASK_ADD));
	wd2 = inotify_add_watch(fd, "file", IN_ATTRIB | IN_DONT_FOLLOW);
	show("add_watch(file)", wd2);

	f = open("d/a", O_CREAT | O_WRONLY, 0644);
	if (write(f, "x", 1) != 1)
		perror("write");
	close(f);
	rename("d/a", "d/b");
	unlink("d/b");
	chmod("file", 0600);
	show("ioctl(FIONREAD) > 0", ioctl(fd, FIONREAD, &n) || n <= 0 ? -1 : 0);
	show("read(1 byte), events queued", read(fd, small, sizeof(small)));
	events("life", fd);

	show("rm_watch(bad fd)", inotify_rm_watch(99, wd));
	show("rm_watch(a pipe)", inotify_rm_watch(p[0], wd));
	show("rm_watch(wd 1000)", inotify_rm_watch(fd, 1000));
	show("rm_watch(file's)", inotify_rm_watch(fd, wd2));
	show("rm_watch(file's again)", inotify_rm_watch(fd, wd2));
	events("removed", fd);

	/* A blocking read on a blocking fd, woken by a child's mkdir. */
	close(fd);
	fd = inotify_init();
	show("inotify_init() is blocking", fcntl(fd, F_GETFL) & O_NONBLOCK);
	inotify_add_watch(fd, "d", IN_CREATE);
	ep = epoll_create1(0);
	show("epoll_ctl(ADD inotify fd)", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	show("epoll_wait, nothing yet", epoll_wait(ep, &ev, 1, 0));
	c = fork();
	if (c == 0) {
		nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
		mkdir("d/sub", 0755);
		_exit(0);
	}
	events("blocking", fd);
	waitpid(c, NULL, 0);
	mkdir("d/sub2", 0755);
	show("epoll_wait, an event", epoll_wait(ep, &ev, 1, 1000));
	events("after epoll", fd);
	rmdir("d/sub");
	rmdir("d/sub2");
	return 0;
}
