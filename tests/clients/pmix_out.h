/*
 * pmix_out.h - a test client's stdout made into something else for a
 * while (PMIx_Log's stdout channel writes where the task's fd 1 points):
 *   passcred   a SOCK_SEQPACKET socket whose other end has SO_PASSCRED;
 *              at the end every message it got is printed as
 *              "passcred: uid=U gid=G: TEXT" (the kernel's SCM_CREDENTIALS
 *              of the process that sent it)
 *   pipe       a pipe filled up that nobody reads
 *   pty        a pty in raw mode filled up until poll just says POLLOUT,
 *              its master held and never read (a write larger than
 *              what is left blocks)
 *   file:PATH  PATH, opened for appending
 * The descriptor put on fd 1 is blocking, as a task's output normally is.
 * Needs _GNU_SOURCE (struct ucred, posix_openpt) before any include.
 */
#ifndef PMIX_OUT_H_
#define PMIX_OUT_H_

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

struct pmix_out {
	int saved;   /* the real stdout */
	int fd;	     /* what we read (passcred), or -1 */
	int held[2]; /* kept open: the pipe's read end, the pty master */
	struct timespec t0, t1;
};

static int pmix_out_fill(int fd)
{
	char buf[512];
	int fl = fcntl(fd, F_GETFL);

	memset(buf, 'x', sizeof(buf));
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	while (write(fd, buf, 1) == 1)
		;
	fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return errno == EAGAIN ? 0 : -1;
}

static int pmix_out_sink(struct pmix_out *po, const char *kind)
{
	int sv[2], one = 1, fd;

	if (!strcmp(kind, "passcred")) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0 ||
		    setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one,
			       sizeof(one)) < 0)
			return -1;
		po->fd = sv[0];
		return sv[1];
	}
	if (!strcmp(kind, "pipe")) {
		if (pipe(sv) < 0 || pmix_out_fill(sv[1]) < 0)
			return -1;
		po->held[0] = sv[0];
		return sv[1];
	}
	if (!strcmp(kind, "pty")) {
		struct termios t;
		char room[64];
		int m = posix_openpt(O_RDWR | O_NOCTTY);

		if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 ||
		    (fd = open(ptsname(m), O_RDWR | O_NOCTTY)) < 0 ||
		    tcgetattr(fd, &t) < 0)
			return -1;
		cfmakeraw(&t);
		if (tcsetattr(fd, TCSANOW, &t) < 0 || pmix_out_fill(fd) < 0)
			return -1;
		/* Just enough room that poll says writable; a long line
		 * does not fit. */
		for (struct pollfd p = {.fd = fd, .events = POLLOUT};
		     poll(&p, 1, 50) == 0;)
			if (read(m, room, sizeof(room)) <= 0)
				return -1;
		po->held[1] = m;
		return fd;
	}
	if (!strncmp(kind, "file:", 5))
		return open(kind + 5, O_WRONLY | O_APPEND | O_CREAT, 0600);
	errno = EINVAL;
	return -1;
}

/* Stdout becomes `kind` until pmix_out_end; 0, or -1 (said). */
static int pmix_out_begin(struct pmix_out *po, const char *kind)
{
	int fd;

	po->fd = po->held[0] = po->held[1] = -1;
	fflush(stdout);
	if ((po->saved = dup(1)) < 0 || (fd = pmix_out_sink(po, kind)) < 0 ||
	    dup2(fd, 1) < 0) {
		fprintf(stderr, "pmix_out: %s: %s\n", kind, strerror(errno));
		return -1;
	}
	close(fd);
	clock_gettime(CLOCK_MONOTONIC, &po->t0);
	return 0;
}

static void pmix_out_creds(int fd)
{
	char text[4096], ctl[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec io = {text, sizeof(text) - 1};
	struct msghdr mh = {.msg_iov = &io, .msg_iovlen = 1};
	ssize_t n;

	for (;;) {
		struct ucred *uc = NULL;

		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		if ((n = recvmsg(fd, &mh, MSG_DONTWAIT)) <= 0)
			break;
		text[n] = '\0';
		text[strcspn(text, "\n")] = '\0';
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c;
		     c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SCM_CREDENTIALS)
				uc = (struct ucred *)CMSG_DATA(c);
		if (uc)
			printf("passcred: uid=%u gid=%u: %s\n",
			       (unsigned)uc->uid, (unsigned)uc->gid, text);
		else
			printf("passcred: no credentials: %s\n", text);
	}
}

/* Stdout is the real one again; a passcred socket's messages printed. */
static void pmix_out_end(struct pmix_out *po)
{
	clock_gettime(CLOCK_MONOTONIC, &po->t1);
	fflush(stdout);
	dup2(po->saved, 1);
	close(po->saved);
	if (po->fd >= 0)
		pmix_out_creds(po->fd);
	fflush(stdout);
}

static long pmix_out_ms(const struct pmix_out *po)
{
	return (po->t1.tv_sec - po->t0.tv_sec) * 1000 +
	       (po->t1.tv_nsec - po->t0.tv_nsec) / 1000000;
}

#endif /* PMIX_OUT_H_ */
