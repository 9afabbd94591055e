/*
 * The owner helper's writer (owner_write.h).
 *
 * Each request is written as this process (the job owner): a socket with
 * SO_PASSCRED sees the owner's uid and gid, a file system the owner's
 * quota and no root reserve. Sockets and pipes are written without
 * blocking (MSG_DONTWAIT, RWF_NOWAIT) and waited for with poll; anything
 * else (a terminal, a file, a device) may block in write() although poll
 * said it would not (a pty with less room than the line), so a timer
 * interrupts this thread at the deadline (SIGALRM to this thread only,
 * without SA_RESTART: the write returns what it wrote, or EINTR).
 */
#include "config.h"

#include "owner_write.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "pmixev_owner_write.h"

/* glibc before 2.35 names it only by its union member. */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define CHUNK 4096 /* at most this much per write() that may block */

struct writer {
	int chan;
	timer_t timer;
	uint8_t in[PMIXEV_OWNER_WRITE_MSG_MAX];
};

static void on_alarm(int signo)
{
	(void)signo; /* only to interrupt a write */
}

static long left_ms(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (end->tv_sec - now.tv_sec) * 1000 +
	       (end->tv_nsec - now.tv_nsec) / 1000000;
}

/* Once, without blocking where the kind allows: bytes, or -1 (errno). */
static ssize_t write_once(int fd, mode_t kind, const uint8_t *p, size_t n)
{
	struct iovec io = {(void *)p, n};

	if (S_ISSOCK(kind))
		return send(fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (S_ISFIFO(kind)) {
		ssize_t w = pwritev2(fd, &io, 1, -1, RWF_NOWAIT);

		if (w >= 0 || errno != EOPNOTSUPP)
			return w;
	}
	/* The timer interrupts it at the deadline. */
	return write(fd, p, n < CHUNK ? n : CHUNK);
}

/* All of `p` into `fd` before `end`: 0, or an errno; *done: written. */
static int write_all(int fd, const uint8_t *p, size_t n,
		     const struct timespec *end, size_t *done)
{
	struct pollfd pfd = {.fd = fd, .events = POLLOUT};
	struct stat st;
	long ms;

	if (fstat(fd, &st) < 0)
		return errno;
	while (*done < n) {
		ssize_t w;

		if ((ms = left_ms(end)) <= 0)
			return ETIMEDOUT;
		if (poll(&pfd, 1, (int)ms) < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (!pfd.revents)
			return ETIMEDOUT;
		if (pfd.revents & (POLLERR | POLLNVAL) &&
		    !(pfd.revents & POLLOUT))
			return pfd.revents & POLLNVAL ? EBADF : EPIPE;
		w = write_once(fd, st.st_mode, p + *done, n - *done);
		if (w > 0)
			*done += (size_t)w;
		else if (w == 0 || (errno != EAGAIN && errno != EINTR))
			return w == 0 ? EIO : errno;
	}
	return 0;
}

/* One request (its descriptor `fd`): the answer to send. */
static void carry_out(struct writer *wr, const uint8_t *in, size_t len, int fd,
		      struct pmixev_owner_written *r)
{
	struct itimerspec arm = {{0, 0}, {0, 0}}, off = {{0, 0}, {0, 0}};
	struct pmixev_owner_write m;
	struct timespec end;
	struct pmixev_buf b;
	size_t done = 0;

	pmixev_buf_reader(&b, in, len);
	if (pmixev_owner_write_unpack(&b, &m) < 0 || fd < 0) {
		r->err = EINVAL;
		return;
	}
	r->id = m.id;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += m.timeout_ms / 1000;
	end.tv_nsec += (long)(m.timeout_ms % 1000) * 1000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	arm.it_value = end;
	timer_settime(wr->timer, TIMER_ABSTIME, &arm, NULL);
	r->err = write_all(fd, m.data, m.len, &end, &done);
	timer_settime(wr->timer, 0, &off, NULL);
	r->done = (uint32_t)done;
}

/* A request and its descriptor, or none: bytes read (0: the stepd
 * closed the channel), or -1. */
static ssize_t receive(struct writer *wr, int *fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec io = {wr->in, sizeof(wr->in)};
	struct msghdr mh = {.msg_iov = &io,
			    .msg_iovlen = 1,
			    .msg_control = ctl,
			    .msg_controllen = sizeof(ctl)};
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(wr->chan, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); n > 0 && c;
	     c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	if (n > 0 && (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
	return n;
}

static void *serve(void *arg)
{
	struct writer *wr = arg;
	ssize_t n;
	int fd;

	while ((n = receive(wr, &fd)) > 0) {
		struct pmixev_owner_written r = {0};
		struct pmixev_buf b;

		carry_out(wr, wr->in, (size_t)n, fd, &r);
		if (fd >= 0)
			close(fd);
		pmixev_buf_init(&b);
		if (pmixev_owner_written_pack(&b, &r) < 0 ||
		    send(wr->chan, b.data, b.len, MSG_NOSIGNAL) !=
			    (ssize_t)b.len)
			fprintf(stderr, "pmixev-owner: writer: cannot answer "
					"the stepd\n");
		pmixev_buf_release(&b);
	}
	close(wr->chan);
	return NULL;
}

static void *start(void *arg)
{
	struct writer *wr = arg;
	struct sigevent sev = {.sigev_notify = SIGEV_THREAD_ID,
			       .sigev_signo = SIGALRM};
	sigset_t all_but_alarm;

	/* The main thread takes the signals Slurm sends; this one only its
	 * own deadline's. */
	sigfillset(&all_but_alarm);
	sigdelset(&all_but_alarm, SIGALRM);
	pthread_sigmask(SIG_SETMASK, &all_but_alarm, NULL);
	sev.sigev_notify_thread_id = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &wr->timer) < 0) {
		fprintf(stderr, "pmixev-owner: writer: timer_create: %s\n",
			strerror(errno));
		close(wr->chan);
		return NULL;
	}
	return serve(wr);
}

int owner_write_start(int fd)
{
	static struct writer wr;
	struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART */
	sigset_t alarm_only;
	pthread_t t;
	int rc;

	wr.chan = fd;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&alarm_only);
	sigaddset(&alarm_only, SIGALRM);
	/* The main thread never takes it. */
	if (sigaction(SIGALRM, &sa, NULL) < 0 ||
	    pthread_sigmask(SIG_BLOCK, &alarm_only, NULL) < 0)
		return -1;
	if ((rc = pthread_create(&t, NULL, start, &wr))) {
		errno = rc;
		return -1;
	}
	pthread_detach(t);
	return 0;
}
