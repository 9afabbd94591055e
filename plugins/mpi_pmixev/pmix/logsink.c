/*
 * pmix/logsink.c - lines for the node's syslog daemon.
 */
#include "config.h"

#include "pmix/logsink.h"

#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "pmixev_logline.h"

static int send_line(const char *path, const char *line, size_t n, int type)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, err = 0;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if ((fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) <
		    0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    send(fd, line, n, MSG_NOSIGNAL) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	return err;
}

int logsink_syslog(const char *path, int level, const char *text)
{
	char line[PMIXEV_LOGLINE_MAX + 1024];
	size_t n;
	int err;

	n = pmixev_syslog_format(line, sizeof(line), LOG_USER, level,
				 time(NULL), "pmixev", (long)getpid(), text);
	if (!n)
		return EMSGSIZE;
	err = send_line(path, line, n, SOCK_DGRAM);
	if (err == EPROTOTYPE) /* a stream socket: lines end in NUL */
		err = send_line(path, line, n + 1, SOCK_STREAM);
	return err;
}
