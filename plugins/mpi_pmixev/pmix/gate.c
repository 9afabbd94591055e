/*
 * pmix/gate.c - who may talk to this step's PMIx server (see the header).
 */
#include "config.h"

#include "pmix/gate.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "pmixev_log.h"
#include "pmixev_peeruid.h"

#define SWEEP_SEC 1
#define KNOWN_MAX 1024 /* connections remembered as checked */

/*
 * A connection looked at need not be looked at again (a shut-out one
 * stays open until the library notices). It is known by descriptor and
 * socket inode, not by the peer's address: a descriptor freed by one
 * connection and reused for another from the same address and port (an
 * unprivileged user may bind the port a finished client used) is a new
 * socket with a new inode.
 */
struct known {
	int fd;
	ino_t ino;
};

struct pmix_gate {
	struct agent *agent;
	uint16_t port;
	uid_t job_uid;
	struct event *timer;
	pthread_mutex_t lock; /* the PMIx and agent threads both sweep */
	struct known known[KNOWN_MAX];
	size_t nknown;
	unsigned long shut_out; /* over the step's life */
};

uint16_t pmix_gate_uri_port(const char *uri)
{
	const char *colon = uri ? strrchr(uri, ':') : NULL;
	char *end = NULL;
	unsigned long port;

	if (!colon || !strstr(uri, "://"))
		return 0;
	port = strtoul(colon + 1, &end, 10);
	if (end == colon + 1 || (*end && *end != '/') || port == 0 ||
	    port > 65535)
		return 0;
	return (uint16_t)port;
}

static uint16_t port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

static bool is_known(struct pmix_gate *g, int fd, ino_t ino)
{
	for (size_t i = 0; i < g->nknown; i++)
		if (g->known[i].fd == fd && g->known[i].ino == ino)
			return true;
	return false;
}

static void remember(struct pmix_gate *g, int fd, ino_t ino)
{
	for (size_t i = 0; i < g->nknown; i++)
		if (g->known[i].fd == fd) {
			g->known[i].ino = ino;
			return;
		}
	if (g->nknown < KNOWN_MAX)
		g->known[g->nknown++] = (struct known){fd, ino};
}

static bool is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)
				      ->sin_addr.s_addr) >>
			24) == 127;
	return ss->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(
		       &((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* One descriptor: 1 if shut out, else 0. */
static unsigned look_at(struct pmix_gate *g, int fd)
{
	struct sockaddr_storage local, peer;
	struct stat st;
	socklen_t llen = sizeof(local), plen = sizeof(peer);
	char addr[INET6_ADDRSTRLEN] = "?";
	int one = 1, rc, err;
	uid_t uid = 0;

	memset(&local, 0, sizeof(local));
	memset(&peer, 0, sizeof(peer));
	if (getsockname(fd, (struct sockaddr *)&local, &llen) < 0 ||
	    port_of(&local) != g->port ||
	    getpeername(fd, (struct sockaddr *)&peer, &plen) < 0)
		return 0; /* not a connection of the server (or its listener) */
	if (fstat(fd, &st) < 0)
		st.st_ino = 0; /* looked at every time */
	else if (is_known(g, fd, st.st_ino))
		return 0;
	if (!is_loopback(&local))
		return 0;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	rc = pmixev_peeruid_of_fd(fd, &uid);
	err = errno;
	if (st.st_ino)
		remember(g, fd, st.st_ino);
	if (rc == 0 && (uid == g->job_uid || uid == 0))
		return 0;
	if (peer.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&peer)->sin_addr,
			  addr, sizeof(addr));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&peer)->sin6_addr,
			  addr, sizeof(addr));
	if (rc < 0 && err == ENOENT)
		PMIXEV_DEBUG(1,
			     "pmix gate: closing a connection from %s:%u "
			     "whose peer is gone",
			     addr, port_of(&peer));
	else if (rc < 0)
		PMIXEV_ERROR("pmix gate: refusing a PMIx connection from "
			     "%s:%u: cannot tell who owns it: %s",
			     addr, port_of(&peer), strerror(err));
	else
		PMIXEV_ERROR("pmix gate: refusing a PMIx connection from "
			     "%s:%u: its process runs as uid %u, not as the "
			     "job owner (uid %u) or root",
			     addr, port_of(&peer), (unsigned)uid,
			     (unsigned)g->job_uid);
	shutdown(fd, SHUT_RDWR);
	return 1;
}

/*
 * The server's port while it is not known yet (between the start of its
 * listener and pmix_gate_set_port): the one listening TCP socket of this
 * process on a loopback address (pmixev's own listen on all addresses or
 * on Unix sockets).
 */
static uint16_t find_listener(DIR *dir)
{
	struct dirent *de;
	uint16_t port = 0;

	while ((de = readdir(dir))) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss), olen;
		int fd = atoi(de->d_name), on = 0;

		olen = sizeof(on);
		memset(&ss, 0, sizeof(ss));
		if (de->d_name[0] != '.' && fd != dirfd(dir) &&
		    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &olen) ==
			    0 &&
		    on && getsockname(fd, (struct sockaddr *)&ss, &len) == 0 &&
		    is_loopback(&ss))
			port = port_of(&ss);
	}
	rewinddir(dir);
	return port;
}

bool pmix_gate_ready(struct pmix_gate *g)
{
	bool ready;

	pthread_mutex_lock(&g->lock);
	ready = g->port != 0;
	pthread_mutex_unlock(&g->lock);
	return ready;
}

unsigned pmix_gate_sweep(struct pmix_gate *g)
{
	DIR *dir;
	struct dirent *de;
	unsigned n = 0;

	if (!g)
		return 0;
	pthread_mutex_lock(&g->lock);
	if ((dir = opendir("/proc/self/fd"))) {
		if (!g->port)
			g->port = find_listener(dir);
		while (g->port && (de = readdir(dir)))
			if (de->d_name[0] != '.' &&
			    atoi(de->d_name) != dirfd(dir))
				n += look_at(g, atoi(de->d_name));
		closedir(dir);
	} else {
		PMIXEV_ERROR("pmix gate: cannot list /proc/self/fd: %m");
	}
	g->shut_out += n;
	pthread_mutex_unlock(&g->lock);
	return n;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	pmix_gate_sweep(arg);
}

struct pmix_gate *pmix_gate_create(struct agent *agent, uid_t job_uid)
{
	struct pmix_gate *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->agent = agent;
	g->job_uid = job_uid;
	pthread_mutex_init(&g->lock, NULL);
	return g;
}

void pmix_gate_set_port(struct pmix_gate *g, uint16_t port)
{
	pthread_mutex_lock(&g->lock);
	g->port = port;
	pthread_mutex_unlock(&g->lock);
}

int pmix_gate_start(struct pmix_gate *g)
{
	struct timeval tv = {SWEEP_SEC, 0};

	g->timer = event_new(agent_base(g->agent), -1, EV_PERSIST, on_timer, g);
	return g->timer && evtimer_add(g->timer, &tv) == 0 ? 0 : -1;
}

void pmix_gate_destroy(struct pmix_gate *g)
{
	if (!g)
		return;
	if (g->shut_out)
		PMIXEV_INFO("pmix gate: %lu connection(s) of other users "
			    "refused during the step",
			    g->shut_out);
	if (g->timer)
		event_free(g->timer);
	pthread_mutex_destroy(&g->lock);
	free(g);
}
