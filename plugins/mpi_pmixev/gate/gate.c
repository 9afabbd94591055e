/*
 * gate/gate.c - the only way in to this step's PMIx server (see the
 * header): the library's private network, who may come in, and the gate
 * thread.
 */
#include "config.h"

#include "gate/gate.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gate/gate_conn.h"
#include "gate/gate_doors.h"
#include "gate/gate_handoff.h"
#include "gate/gate_tally.h"
#include "pmixev_log.h"
#include "pmixev_peeruid.h"
#include "pmixev_sockdiag.h"

/* Connections at most: 4096, and a quarter of the descriptors the stepd
 * may open (each takes two), so a job cannot take the stepd's others. */
#define MAX_CONNS 4096
/* Of them, the peers of one uid other than the job owner's (root's) at
 * most a quarter: the job's own ranks keep the rest. */
#define OTHER_SHARE 4
/* Connections taken per wake-up: the connections in hand are served
 * between batches, however fast new ones come. */
#define ACCEPT_BATCH 256

struct pmix_gate {
	struct gate_conns cs;
	int listen_fd; /* in the host's network, as all the doors */
	uint16_t port;
	/* The thread makes the library's network (in slurmstepd); if not,
	 * the whole process is in it already. */
	bool own_netns;
	int netns;   /* the library's network, or -1: the process's */
	int stop_fd; /* eventfd */
	size_t max_conns;
	/* Who owns a peer's socket: sock_diag in the host's network, or NULL:
	 * /proc/net/tcp and tcp6 (slow with many sockets; said at the start)
	 * opened there. */
	struct pmixev_sockdiag *sd;
	int tcp_fd, tcp6_fd;
	pthread_t thread;
	bool running;
	/* The thread's start: it reports whether it made the network. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started;
	int netns_err;
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

char *pmix_gate_repoint(const char *text, size_t len, size_t *out_len,
			void *arg)
{
	const uint16_t *ports = arg; /* from, to */
	char from[32], to[32], *out, *o;
	size_t nf = (size_t)snprintf(from, sizeof(from), "127.0.0.1:%u",
				     (unsigned)ports[0]),
	       nt = (size_t)snprintf(to, sizeof(to), "127.0.0.1:%u",
				     (unsigned)ports[1]);
	const char *p = text, *end = text + len, *hit;

	/* Each replacement grows the text by at most 5 bytes. */
	if (!(o = out = malloc(len + (len / nf + 1) * 5 + 1)))
		return NULL;
	while ((hit = memmem(p, (size_t)(end - p), from, nf))) {
		bool whole = hit + nf == end || hit[nf] < '0' || hit[nf] > '9';

		memcpy(o, p, (size_t)(hit - p));
		o += hit - p;
		memcpy(o, whole ? to : from, whole ? nt : nf);
		o += whole ? nt : nf;
		p = hit + nf;
	}
	memcpy(o, p, (size_t)(end - p));
	o += end - p;
	*o = '\0';
	*out_len = (size_t)(o - out);
	return out;
}

void pmix_gate_client_connected(struct pmix_gate *g, uint32_t rank)
{
	gate_handoff_client(&g->cs, rank);
}

uint16_t pmix_gate_port(const struct pmix_gate *g)
{
	return g->port;
}

/* Turn on the loopback device of the calling thread's (new) network. */
static int loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return rc;
}

/* Gate thread: leave the host's network for a new one of the library's
 * (only this thread moves); its descriptor, or -1 with errno. */
static int make_netns(void)
{
	if (unshare(CLONE_NEWNET) < 0 || loopback_up() < 0)
		return -1;
	return open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
}

/* Close a refused connection at once, with a reset: it leaves no
 * TIME_WAIT behind at the gate's end. */
static void close_now(int fd)
{
	struct linger lg = {.l_onoff = 1, .l_linger = 0};

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

/* Whether a connection of `uid` fits: the gate's bound, and for anyone
 * but the job owner a share of it. */
static bool room_for(const struct pmix_gate *g, uid_t uid)
{
	return g->cs.n < g->max_conns &&
	       (uid == g->cs.job_uid ||
		g->cs.n_other < g->max_conns / OTHER_SHARE);
}

static void admit(struct pmix_gate *g, int fd)
{
	struct sockaddr_in peer;
	socklen_t len = sizeof(peer);
	char name[64] = "?";
	uid_t uid = (uid_t)-1;
	int rc, err;

	if (getpeername(fd, (struct sockaddr *)&peer, &len) == 0 &&
	    peer.sin_family == AF_INET) {
		inet_ntop(AF_INET, &peer.sin_addr, name, sizeof(name));
		snprintf(name + strlen(name), sizeof(name) - strlen(name),
			 ":%u", ntohs(peer.sin_port));
	}
	rc = pmixev_peeruid_of_fd(fd, g->sd, g->tcp_fd, g->tcp6_fd, &uid);
	err = errno;
	if (rc == 0 && (uid == g->cs.job_uid || uid == 0) && room_for(g, uid)) {
		gate_conns_add(&g->cs, fd, uid, name);
		return;
	}
	if (rc < 0 && err == ENOENT)
		gate_tally_refused(g->cs.tally, (uid_t)-1, name,
				   "its peer is gone");
	else if (rc < 0)
		gate_tally_refused(g->cs.tally, (uid_t)-1, name,
				   "cannot tell who owns it: %s",
				   strerror(err));
	else if (uid != g->cs.job_uid && uid != 0)
		gate_tally_refused(g->cs.tally, uid, name,
				   "its process runs as uid %u, not as the job "
				   "owner (uid %u) or root",
				   (unsigned)uid, (unsigned)g->cs.job_uid);
	else
		gate_tally_refused(g->cs.tally, uid, name,
				   "uid %u: %zu connections are open already "
				   "(%zu not the job owner's)",
				   (unsigned)uid, g->cs.n, g->cs.n_other);
	if (rc == 0 && uid != g->cs.job_uid && uid != 0)
		g->cs.other_users++;
	close_now(fd);
}

static void accept_all(struct pmix_gate *g)
{
	int fd = -1;

	for (int i = 0; i < ACCEPT_BATCH; i++) {
		if ((fd = accept4(g->listen_fd, NULL, NULL,
				  SOCK_NONBLOCK | SOCK_CLOEXEC)) < 0)
			break;
		admit(g, fd);
	}
	if (fd < 0 && errno != EAGAIN && errno != EINTR &&
	    errno != ECONNABORTED)
		PMIXEV_ERROR("pmix gate: accept: %m");
}

static void resume(struct pmix_gate *g)
{
	uint64_t n;

	if (read(g->cs.kick_fd, &n, sizeof(n)) == sizeof(n))
		gate_conns_resume(&g->cs);
}

static void started(struct pmix_gate *g, int netns, int err)
{
	pthread_mutex_lock(&g->lock);
	g->netns = netns;
	g->netns_err = err;
	g->started = true;
	pthread_cond_signal(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static void *gate_thread(void *arg)
{
	struct pmix_gate *g = arg;
	struct epoll_event evs[64];
	int netns = g->own_netns ? make_netns() : -1;

	started(g, netns, netns < 0 ? errno : 0);
	for (;;) {
		int conns_ms = gate_conns_wait_ms(&g->cs),
		    tally_ms = gate_tally_wait_ms(g->cs.tally);
		int n = epoll_wait(
			g->cs.epfd, evs, 64,
			conns_ms < 0 || (tally_ms >= 0 && tally_ms < conns_ms)
				? tally_ms
				: conns_ms);

		if (n < 0 && errno != EINTR) {
			PMIXEV_ERROR("pmix gate: epoll_wait: %m; the gate "
				     "stops");
			break;
		}
		for (int i = 0; i < n; i++) {
			if (evs[i].data.ptr == &g->stop_fd)
				return NULL;
			if (evs[i].data.ptr == &g->listen_fd)
				accept_all(g);
			else if (evs[i].data.ptr == &g->cs.kick_fd)
				resume(g);
			else
				gate_conns_event(&g->cs, evs[i].data.ptr,
						 evs[i].events);
		}
		gate_conns_expire(&g->cs);
		gate_conns_reap(&g->cs);
		gate_tally_tick(g->cs.tally);
	}
	return NULL;
}

static int watch(struct pmix_gate *g, int fd, void *tag)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = tag};

	return epoll_ctl(g->cs.epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* The gate's own copies of the doors' descriptors: 0, or -1 with errno. */
static int take_doors(struct pmix_gate *g, const struct pmix_gate_doors *d)
{
	int sd_fd;

	g->port = d->port;
	if ((g->listen_fd = fcntl(d->listen_fd, F_DUPFD_CLOEXEC, 0)) < 0 ||
	    (d->tcp_fd >= 0 &&
	     (g->tcp_fd = fcntl(d->tcp_fd, F_DUPFD_CLOEXEC, 0)) < 0) ||
	    (d->tcp6_fd >= 0 &&
	     (g->tcp6_fd = fcntl(d->tcp6_fd, F_DUPFD_CLOEXEC, 0)) < 0))
		return -1;
	if (d->sockdiag_fd < 0)
		return 0;
	if ((sd_fd = fcntl(d->sockdiag_fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return -1;
	if (!(g->sd = pmixev_sockdiag_from_fd(sd_fd))) {
		int err = errno;

		close(sd_fd);
		errno = err;
		return -1;
	}
	return 0;
}

static struct pmix_gate *gate_start(uid_t job_uid, gid_t job_gid,
				    const struct pmix_gate_doors *doors,
				    bool own_netns)
{
	struct pmix_gate *g = calloc(1, sizeof(*g));
	struct rlimit nofile;

	if (!g) {
		PMIXEV_ERROR("pmix gate: cannot listen for PMIx clients: %m");
		return NULL;
	}
	g->max_conns = MAX_CONNS;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 &&
	    nofile.rlim_cur / 4 < g->max_conns)
		g->max_conns = nofile.rlim_cur / 4;
	g->cs.job_uid = job_uid;
	g->cs.job_gid = job_gid;
	g->own_netns = own_netns;
	g->netns = g->stop_fd = g->listen_fd = g->cs.epfd = g->cs.kick_fd = -1;
	g->tcp_fd = g->tcp6_fd = -1;
	pthread_mutex_init(&g->lock, NULL);
	pthread_mutex_init(&g->cs.lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	if (take_doors(g, doors) < 0) {
		PMIXEV_ERROR("pmix gate: cannot copy the descriptors made "
			     "for it in the host's network: %m");
		pmix_gate_destroy(g);
		return NULL;
	}
	if ((g->cs.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (g->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    (g->cs.kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    !(g->cs.tally = gate_tally_create()) ||
	    watch(g, g->stop_fd, &g->stop_fd) < 0 ||
	    watch(g, g->cs.kick_fd, &g->cs.kick_fd) < 0 ||
	    watch(g, g->listen_fd, &g->listen_fd) < 0 ||
	    pthread_create(&g->thread, NULL, gate_thread, g) != 0) {
		PMIXEV_ERROR("pmix gate: cannot listen for PMIx clients: %m");
		pmix_gate_destroy(g);
		return NULL;
	}
	g->running = true;
	pthread_mutex_lock(&g->lock);
	while (!g->started)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
	if (own_netns && g->netns < 0)
		PMIXEV_ERROR("pmix gate: cannot give the PMIx server a network "
			     "of its own (%s): other local users can reach it "
			     "directly",
			     strerror(g->netns_err));
	return g;
}

struct pmix_gate *pmix_gate_create(uid_t job_uid, gid_t job_gid)
{
	struct pmix_gate_doors doors;
	struct pmix_gate *g;

	/* Made here, in the host's network, before the thread leaves it. */
	if (pmix_gate_doors_create(&doors) < 0)
		return NULL;
	g = gate_start(job_uid, job_gid, &doors, true);
	pmix_gate_doors_close(&doors);
	return g;
}

struct pmix_gate *pmix_gate_create_inside(uid_t job_uid, gid_t job_gid,
					  const struct pmix_gate_doors *doors)
{
	if (doors->listen_fd < 0 ||
	    (doors->sockdiag_fd < 0 && doors->tcp_fd < 0)) {
		PMIXEV_ERROR("pmix gate: given no %s made in the host's "
			     "network",
			     doors->listen_fd < 0
				     ? "listener"
				     : "sock_diag socket nor /proc/net/tcp");
		return NULL;
	}
	return gate_start(job_uid, job_gid, doors, false);
}

int pmix_gate_run_inside(struct pmix_gate *g, int (*fn)(void *), void *arg)
{
	int self, rc;

	if (g->netns < 0)
		return fn(arg);
	if ((self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) <
		    0 ||
	    setns(g->netns, CLONE_NEWNET) < 0) {
		PMIXEV_ERROR("pmix gate: cannot enter the PMIx server's "
			     "network: %m");
		if (self >= 0)
			close(self);
		return -1;
	}
	rc = fn(arg);
	/* Tasks are forked from this thread: it must not stay inside. */
	if (setns(self, CLONE_NEWNET) < 0) {
		PMIXEV_ERROR("pmix gate: cannot return to the host's network: "
			     "%m");
		rc = -1;
	}
	close(self);
	return rc;
}

/* Nagle off on the library's listener: its connections inherit it
 * (OpenPMIx 4.2 leaves it on: an event right after another small message
 * would wait for a delayed ACK). */
static int library_nodelay(uint16_t lib_port)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;
	int found = -1, one = 1;

	while (dir && (de = readdir(dir))) {
		struct sockaddr_in sin;
		socklen_t len = sizeof(sin), olen = sizeof(int);
		int fd = atoi(de->d_name), on = 0;

		memset(&sin, 0, sizeof(sin));
		if (de->d_name[0] != '.' && fd != dirfd(dir) &&
		    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &olen) ==
			    0 &&
		    on && getsockname(fd, (struct sockaddr *)&sin, &len) == 0 &&
		    sin.sin_family == AF_INET &&
		    ntohs(sin.sin_port) == lib_port &&
		    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
			       sizeof(one)) == 0)
			found = 0;
	}
	if (dir)
		closedir(dir);
	return found;
}

int pmix_gate_open(struct pmix_gate *g, uint16_t lib_port,
		   unsigned server_major, const char *stores)
{
	if (library_nodelay(lib_port) < 0) {
		PMIXEV_ERROR("pmix gate: the PMIx server's listener at port "
			     "%u is not found",
			     (unsigned)lib_port);
		return -1;
	}
	atomic_store(&g->cs.stores, stores);
	atomic_store(&g->cs.major, server_major);
	atomic_store(&g->cs.lib_port, lib_port);
	return 0;
}

void pmix_gate_destroy(struct pmix_gate *g)
{
	uint64_t one = 1;

	if (!g)
		return;
	if (g->running) {
		if (write(g->stop_fd, &one, sizeof(one)) < 0)
			PMIXEV_ERROR("pmix gate: cannot stop its thread: %m");
		pthread_join(g->thread, NULL);
	}
	gate_conns_close_all(&g->cs);
	gate_tally_destroy(g->cs.tally);
	pmixev_sockdiag_destroy(g->sd);
	if (g->tcp_fd >= 0)
		close(g->tcp_fd);
	if (g->tcp6_fd >= 0)
		close(g->tcp6_fd);
	if (g->cs.other_users)
		PMIXEV_INFO("pmix gate: %lu connection(s) of other users "
			    "refused during the step",
			    g->cs.other_users);
	if (g->cs.bad_hellos || g->cs.unfinished || g->cs.unreachable)
		PMIXEV_INFO("pmix gate: during the step %lu connection(s) "
			    "refused for their hello, %lu ended before it, "
			    "%lu could not reach the server",
			    g->cs.bad_hellos, g->cs.unfinished,
			    g->cs.unreachable);
	if (g->netns >= 0)
		close(g->netns);
	PMIXEV_DEBUG(1,
		     "pmix gate: %lu client connection(s) handed to the "
		     "server, %lu relayed",
		     atomic_load(&g->cs.handed),
		     atomic_load(&g->cs.relayed_clients));
	if (g->stop_fd >= 0)
		close(g->stop_fd);
	if (g->cs.kick_fd >= 0)
		close(g->cs.kick_fd);
	if (g->listen_fd >= 0)
		close(g->listen_fd);
	if (g->cs.epfd >= 0)
		close(g->cs.epfd);
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
	pthread_mutex_destroy(&g->cs.lock);
	free(g);
}
