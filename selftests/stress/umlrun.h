/* SPDX-License-Identifier: GPL-2.0 */
/*
 * umlrun instances as stress guests: guest-runtime/umlrun (skas backend)
 * running selftests/stress/guest, its stdin and stdout on pipes.  Paths
 * are relative to the repository root, the tests' current directory.
 */
#ifndef SKAS_STRESS_UMLRUN_H
#define SKAS_STRESS_UMLRUN_H

#include "stress.h"

#define UMLRUN		"guest-runtime/umlrun"
#define STRESS_GUEST	"selftests/stress/guest"

struct umlrun {
	pid_t pid;
	int in, out;		/* its stdin (we write), its stdout (we read) */
	char buf[512];
	size_t len;
	int status;
};

/* umlrun --backend=skas [OPT] -- guest MODE [ARG] */
static inline int umlrun_start(struct umlrun *u, const char *opt,
			       const char *mode, const char *arg)
{
	const char *argv[8];
	int in[2], out[2], n = 0;

	memset(u, 0, sizeof(*u));
	u->pid = -1;
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return -errno;
	argv[n++] = UMLRUN;
	argv[n++] = "--backend=skas";
	if (opt)
		argv[n++] = opt;
	argv[n++] = "--";
	argv[n++] = STRESS_GUEST;
	argv[n++] = mode;
	if (arg)
		argv[n++] = arg;
	argv[n] = NULL;
	u->pid = fork();
	if (u->pid < 0)
		return -errno;
	if (u->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execv(UMLRUN, (char **)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	u->in = in[1];
	u->out = out[0];
	return 0;
}

/*
 * Wait up to @secs for a line starting with @word; *@val gets the number
 * after it.  0, or -ETIMEDOUT, or -EPIPE at end of output.
 */
static inline int umlrun_expect(struct umlrun *u, const char *word,
				double secs, long *val)
{
	double end = stress_now() + secs;
	size_t wl = strlen(word);

	for (;;) {
		char *nl = memchr(u->buf, '\n', u->len);
		struct pollfd p = { .fd = u->out, .events = POLLIN };
		ssize_t n;

		if (nl) {
			size_t ll = nl - u->buf + 1;
			bool hit = ll > wl && !memcmp(u->buf, word, wl) &&
				   (u->buf[wl] == ' ' || u->buf[wl] == '\n');

			*nl = 0;
			if (!hit)
				printf("# umlrun %d: %s\n", u->pid, u->buf);
			if (hit && val)
				*val = strtol(u->buf + wl, NULL, 10);
			memmove(u->buf, u->buf + ll, u->len - ll);
			u->len -= ll;
			if (hit)
				return 0;
			continue;
		}
		if (u->len == sizeof(u->buf) - 1)
			u->len = 0;	/* a line too long: not ours */
		if (poll(&p, 1, 100) < 0 && errno != EINTR)
			return -errno;
		if (p.revents) {
			n = read(u->out, u->buf + u->len,
				 sizeof(u->buf) - 1 - u->len);
			if (n <= 0)
				return -EPIPE;
			u->len += n;
		} else if (stress_now() > end) {
			return -ETIMEDOUT;
		}
	}
}

/*
 * Reap it within @secs (SIGKILL after that); closes its pipes.  Returns
 * its wait status, or -ETIMEDOUT if it had to be killed.
 */
static inline int umlrun_wait(struct umlrun *u, double secs)
{
	double end = stress_now() + secs;
	int ret = -ETIMEDOUT;
	pid_t p;

	close(u->in);
	close(u->out);
	if (u->pid <= 0)
		return -ECHILD;
	for (;;) {
		p = waitpid(u->pid, &u->status, WNOHANG);
		if (p == u->pid) {
			ret = u->status;
			break;
		}
		if (p < 0)
			return -errno;
		if (stress_now() > end) {
			kill(u->pid, SIGKILL);
			waitpid(u->pid, &u->status, 0);
			break;
		}
		usleep(10000);
	}
	u->pid = -1;
	return ret;
}

#endif /* SKAS_STRESS_UMLRUN_H */
