/*
 * jobmgmt/logsink.c - lines for the node's syslog daemon (see the header).
 */
#include "config.h"

#include "jobmgmt/logsink.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "pmixev_logline.h"

struct logsink {
	struct sockaddr_un sa;
	int fd;
	int type; /* SOCK_DGRAM or SOCK_STREAM, once connected */
};

static void hang_up(struct logsink *ls)
{
	if (ls->fd >= 0)
		close(ls->fd);
	ls->fd = -1;
}

/* Connect as a datagram socket, or as a stream one if the daemon's is. */
static int dial(struct logsink *ls)
{
	static const int types[] = {SOCK_DGRAM, SOCK_STREAM};
	int err = 0;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		int fd = socket(AF_UNIX,
				types[i] | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

		if (fd < 0)
			return errno;
		if (connect(fd, (struct sockaddr *)&ls->sa, sizeof(ls->sa)) ==
		    0) {
			ls->fd = fd;
			ls->type = types[i];
			return 0;
		}
		err = errno;
		close(fd);
		if (err != EPROTOTYPE)
			break;
	}
	return err;
}

/* One line; on a stream it ends in NUL, and a line cut short ends the
 * connection (the next line would run into it). */
static int put(struct logsink *ls, const char *line, size_t n)
{
	size_t len = ls->type == SOCK_STREAM ? n + 1 : n;
	ssize_t w = send(ls->fd, line, len, MSG_NOSIGNAL);
	int err = w < 0 ? errno : (size_t)w < len ? EAGAIN : 0;

	if (err && ls->type == SOCK_STREAM)
		hang_up(ls);
	return err;
}

static bool dropped(int err)
{
	return err == ECONNREFUSED || err == ENOTCONN || err == EPIPE ||
	       err == ECONNRESET || err == EDESTADDRREQ;
}

struct logsink *logsink_create(const char *path)
{
	struct logsink *ls = calloc(1, sizeof(*ls));

	if (!ls)
		return NULL;
	ls->sa.sun_family = AF_UNIX;
	snprintf(ls->sa.sun_path, sizeof(ls->sa.sun_path), "%s", path);
	ls->fd = -1;
	dial(ls);
	return ls;
}

int logsink_syslog(struct logsink *ls, int level, const char *text)
{
	char line[PMIXEV_LOGLINE_MAX + 1024];
	size_t n;
	int err;

	n = pmixev_syslog_format(line, sizeof(line), LOG_USER, level,
				 time(NULL), "pmixev", (long)getpid(), text);
	if (!n)
		return EMSGSIZE;
	if (ls->fd < 0 && (err = dial(ls)))
		return err;
	if (dropped(err = put(ls, line, n))) {
		hang_up(ls);
		if (!(err = dial(ls)))
			err = put(ls, line, n);
	}
	return err;
}

void logsink_destroy(struct logsink *ls)
{
	if (!ls)
		return;
	hang_up(ls);
	free(ls);
}
