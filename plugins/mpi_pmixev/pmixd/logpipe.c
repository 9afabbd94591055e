/*
 * pmixd/logpipe.c - the PMIx server process's log lines (see logpipe.h).
 */
#include "config.h"

#include "pmixd/logpipe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmixev_log.h"

struct logpipe {
	int fd;
	struct event *rd;
	char line[LOGPIPE_LINE_MAX + 1];
	size_t len;
	bool cut; /* the current line was longer than LOGPIPE_LINE_MAX */
};

/* One whole line (NUL-terminated in lp->line). */
static void emit(struct logpipe *lp)
{
	const char *text = lp->line;
	enum pmixev_log_level level = PMIXEV_LOG_INFO;

	if (!pmixev_log_take())
		return;
	if (text[0] && text[1] == ' ' && strchr("EIVD", text[0])) {
		level = text[0] == 'E'	 ? PMIXEV_LOG_ERROR
			: text[0] == 'V' ? PMIXEV_LOG_VERBOSE
			: text[0] == 'D' ? PMIXEV_LOG_DEBUG
					 : PMIXEV_LOG_INFO;
		text += 2;
	}
	pmixev_log(level, "%s%s", text, lp->cut ? " [line cut]" : "");
}

/* Take `n` bytes read: log every line they end. */
static void take(struct logpipe *lp, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			lp->line[lp->len] = '\0';
			emit(lp);
			lp->len = 0;
			lp->cut = false;
		} else if (lp->len < LOGPIPE_LINE_MAX) {
			lp->line[lp->len++] = buf[i];
		} else {
			lp->cut = true;
		}
	}
}

/* Read what is there now. false at EOF or on an error. */
static bool drain(struct logpipe *lp)
{
	char buf[4096];
	ssize_t n;

	for (int i = 0; i < 16; i++) {
		n = read(lp->fd, buf, sizeof(buf));
		if (n > 0) {
			take(lp, buf, (size_t)n);
			continue;
		}
		return n < 0 && (errno == EAGAIN || errno == EINTR);
	}
	return true;
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct logpipe *lp = arg;

	if (!drain(lp))
		event_del(lp->rd);
}

struct logpipe *logpipe_create(struct event_base *base, int fd)
{
	struct logpipe *lp = calloc(1, sizeof(*lp));

	if (!lp || fcntl(fd, F_SETFL, O_NONBLOCK) < 0 ||
	    !(lp->rd = event_new(base, fd, EV_READ | EV_PERSIST, on_readable,
				 lp)) ||
	    event_add(lp->rd, NULL) < 0) {
		if (lp && lp->rd)
			event_free(lp->rd);
		free(lp);
		close(fd);
		return NULL;
	}
	lp->fd = fd;
	return lp;
}

void logpipe_destroy(struct logpipe *lp)
{
	if (!lp)
		return;
	drain(lp);
	if (lp->len) {
		lp->line[lp->len] = '\0';
		emit(lp);
	}
	event_free(lp->rd);
	close(lp->fd);
	free(lp);
}
