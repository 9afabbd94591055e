/*
 * stepd/site.c - the site events socket of a stepd.
 */
#include "config.h"

#include "stepd/site.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>

#include "base/agent.h"
#include "events/events.h"
#include "pmixev_fsafe.h"
#include "pmixev_log.h"

#define MAX_LINE 1024

struct site {
	struct agent *agent;
	struct events *ev;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct evconnlistener *listener;
};

static void reply(struct bufferevent *bev, const char *text)
{
	int fd = bufferevent_getfd(bev);
	ssize_t n = send(fd, text, strlen(text), MSG_NOSIGNAL);

	(void)n; /* best effort: the peer may be gone */
}

/* "CODE TEXT": 0 with the parts, or -1 with a reason. */
static int parse(char *line, int *code, const char **text, const char **why)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(line, &end, 10);
	if (end == line || errno || v < INT32_MIN || v > INT32_MAX ||
	    (*end != ' ' && *end != '\0')) {
		*why = "expected \"CODE TEXT\" with an integer CODE";
		return -1;
	}
	*code = (int)v;
	*text = *end ? end + 1 : "";
	for (const char *p = *text; *p; p++)
		if ((unsigned char)*p < 0x20) {
			*why = "control characters in TEXT";
			return -1;
		}
	return 0;
}

static void on_read(struct bufferevent *bev, void *arg)
{
	struct site *s = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t n = 0;
	char *line = evbuffer_readln(in, &n, EVBUFFER_EOL_LF);
	const char *text = NULL, *why = NULL;
	char answer[160];
	int code = 0;

	if (!line) {
		if (evbuffer_get_length(in) > MAX_LINE) {
			reply(bev, "error: request too long\n");
			bufferevent_free(bev);
		}
		return;
	}
	if (n > MAX_LINE || parse(line, &code, &text, &why) < 0) {
		PMIXEV_ERROR("site event refused: %s",
			     why ? why : "request too long");
		snprintf(answer, sizeof(answer), "error: %s\n",
			 why ? why : "request too long");
		reply(bev, answer);
	} else {
		PMIXEV_INFO("site event %d: %s", code, text);
		events_site(s->ev, code, text);
		reply(bev, "ok\n");
	}
	free(line);
	bufferevent_free(bev);
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		bufferevent_free(bev);
}

static void on_accept(struct evconnlistener *lis, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	struct site *s = arg;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct bufferevent *bev;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    cred.uid != 0) {
		PMIXEV_ERROR("site event refused: sender uid %d is not root",
			     len == sizeof(cred) ? (int)cred.uid : -1);
		evutil_closesocket(fd);
		return;
	}
	bev = bufferevent_socket_new(agent_base(s->agent), fd,
				     BEV_OPT_CLOSE_ON_FREE);
	if (!bev) {
		evutil_closesocket(fd);
		return;
	}
	bufferevent_setcb(bev, on_read, NULL, on_event, s);
	bufferevent_enable(bev, EV_READ);
}

struct site *site_create(struct step *step)
{
	const struct layout *lay = &step->lay;
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	struct site *s = calloc(1, sizeof(*s));
	int dirfd;

	if (!s)
		return NULL;
	s->agent = step->agent;
	s->ev = step->events;
	if ((dirfd = pmixev_fsafe_root_dir(PMIXEV_SITE_DIR, PMIXEV_RUN_MODE)) <
	    0) {
		PMIXEV_ERROR("site events disabled: %s must be a directory "
			     "of root that only root can write: %m",
			     PMIXEV_SITE_DIR);
		goto fail;
	}
	close(dirfd);
	if (snprintf(s->path, sizeof(s->path), "%s/%s.%s.sock", PMIXEV_SITE_DIR,
		     lay->step.node, lay->step.id) >= (int)sizeof(s->path)) {
		PMIXEV_ERROR("site events disabled: socket path too long");
		goto fail;
	}
	memcpy(sun.sun_path, s->path, sizeof(sun.sun_path));
	unlink(s->path);
	s->listener = evconnlistener_new_bind(
		agent_base(s->agent), on_accept, s,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 16,
		(struct sockaddr *)&sun, sizeof(sun));
	if (!s->listener || chmod(s->path, 0600) < 0) {
		PMIXEV_ERROR("site events disabled: cannot listen on %s: %m",
			     s->path);
		goto fail;
	}
	return s;
fail:
	site_destroy(s);
	return NULL;
}

void site_destroy(struct site *s)
{
	if (!s)
		return;
	if (s->listener) {
		evconnlistener_free(s->listener);
		unlink(s->path);
	}
	free(s);
}
