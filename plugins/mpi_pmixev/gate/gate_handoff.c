/*
 * gate/gate_handoff.c - a client's connection handed from the gate to the
 * library (see the header). PMIx thread, under the connections' lock.
 */
#include "config.h"

#include "gate/gate_handoff.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pmixev_log.h"

#define SETTLE_TRIES 1000 /* of 50 us: the library's answer in transit */

/* Bytes `fd` sent that its peer has not taken in yet, or -1. */
static int unacked(int fd)
{
	int q = 0;

	return ioctl(fd, SIOCOUTQ, &q) < 0 ? -1 : q;
}

/* Bytes waiting to be read on `fd`, or -1. */
static int unread(int fd)
{
	int q = 0;

	return ioctl(fd, FIONREAD, &q) < 0 ? -1 : q;
}

static bool same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_family == AF_INET && b->sin_family == AF_INET &&
	       a->sin_port == b->sin_port &&
	       a->sin_addr.s_addr == b->sin_addr.s_addr;
}

/* Whether `fd` has received exactly `n` bytes and left none unread. */
static bool took_exactly(int fd, size_t n)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	return getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
	       len >= offsetof(struct tcp_info, tcpi_bytes_received) +
			       sizeof(ti.tcpi_bytes_received) &&
	       ti.tcpi_bytes_received == n && unread(fd) == 0;
}

/*
 * Which network namespace socket `fd` is in, or 0: its cookie (Linux 5.14
 * and later; no privilege needed, so it works in the job owner's process
 * too), else the inode SIOCGSKNS gives (CAP_NET_ADMIN: root's stepd).
 * Either way for every socket of one kernel.
 */
static uint64_t netns_of(int fd)
{
	struct stat st;
	uint64_t id = 0;
	int ns;

#ifdef SO_NETNS_COOKIE /* <asm-generic/socket.h> of Linux 5.14 */
	socklen_t len = sizeof(id);

	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &id, &len) == 0 &&
	    len == sizeof(id))
		return id;
#endif
	if ((ns = ioctl(fd, SIOCGSKNS)) < 0)
		return 0;
	if (fstat(ns, &st) == 0)
		id = (uint64_t)st.st_ino;
	close(ns);
	return id;
}

/* Whether `fd` is the other end of `ours`/`theirs` in namespace `ns`:
 * the gate's own sockets, in the host's network, may have the same
 * addresses and ports. */
static bool other_end(int fd, const struct sockaddr_in *ours,
		      const struct sockaddr_in *theirs, uint64_t ns)
{
	struct sockaddr_in local, peer;
	socklen_t llen = sizeof(local), plen = sizeof(peer);

	memset(&local, 0, sizeof(local));
	memset(&peer, 0, sizeof(peer));
	return getpeername(fd, (struct sockaddr *)&peer, &plen) == 0 &&
	       same_addr(&peer, ours) &&
	       getsockname(fd, (struct sockaddr *)&local, &llen) == 0 &&
	       same_addr(&local, theirs) && netns_of(fd) == ns;
}

/*
 * The library's end of the gate's connection `up`, once the library has
 * read the `hello` bytes the gate sent on it and nothing else; -1 if not
 * (yet) so.
 */
static int library_end(int up, size_t hello)
{
	struct sockaddr_in ours, theirs;
	socklen_t len = sizeof(ours), tlen = sizeof(theirs);
	struct dirent *de;
	uint64_t ns = netns_of(up);
	DIR *dir;
	int end = -1;

	memset(&ours, 0, sizeof(ours));
	memset(&theirs, 0, sizeof(theirs));
	if (!ns || getsockname(up, (struct sockaddr *)&ours, &len) < 0 ||
	    getpeername(up, (struct sockaddr *)&theirs, &tlen) < 0 ||
	    !(dir = opendir("/proc/self/fd")))
		return -1;
	while ((de = readdir(dir))) {
		int fd = atoi(de->d_name);

		if (de->d_name[0] != '.' && fd != dirfd(dir) && fd != up &&
		    other_end(fd, &ours, &theirs, ns)) {
			end = fd;
			break;
		}
	}
	closedir(dir);
	return end >= 0 && took_exactly(end, hello) ? end : -1;
}

/*
 * Pass on what the library already wrote on `end` (it reached the gate's
 * socket) and put the client's socket in its place. 0, or -1 with nothing
 * changed that relaying would not mend.
 */
static int swap(struct gate_conn *c, int end)
{
	struct timespec pause = {0, 50000};
	uint8_t buf[4096];
	size_t n = 0;
	ssize_t r;
	int flags, q;

	for (int i = 0; (q = unacked(end)) > 0 && i < SETTLE_TRIES; i++)
		nanosleep(&pause, NULL);
	if (q != 0)
		return -1;
	while (n < sizeof(buf) && (r = recv(c->lib.fd, buf + n, sizeof(buf) - n,
					    MSG_DONTWAIT)) > 0)
		n += (size_t)r;
	if (n == sizeof(buf) || (flags = fcntl(c->peer.fd, F_GETFL)) < 0) {
		if (n) /* cannot be: the library answers a hello in 8 bytes */
			PMIXEV_ERROR("pmix gate: the server answered the "
				     "client at %s with %zu bytes or more",
				     c->name, n);
		return -1;
	}
	/* The library's end is in blocking mode during its handshake. */
	fcntl(c->peer.fd, F_SETFL, flags & ~O_NONBLOCK);
	/* A client gone meanwhile: the library will find that out itself. */
	if (n && send(c->peer.fd, buf, n, MSG_NOSIGNAL) != (ssize_t)n)
		PMIXEV_DEBUG(1,
			     "pmix gate: the client at %s left during its "
			     "handshake",
			     c->name);
	if (dup2(c->peer.fd, end) < 0) {
		PMIXEV_ERROR("pmix gate: cannot hand the client connection "
			     "from %s to the server: %m",
			     c->name);
		fcntl(c->peer.fd, F_SETFL, flags);
		return -1;
	}
	return 0;
}

void gate_handoff_client(struct gate_conns *cs, uint32_t rank)
{
	struct gate_conn *c, *found = NULL;
	int nfound = 0, end = -1, fd;
	bool kick = false;

	pthread_mutex_lock(&cs->lock);
	for (c = cs->handoff; c; c = c->ho_next)
		if (!c->handed && !c->resume && c->rank == rank &&
		    !c->to_lib.len &&
		    (fd = library_end(c->lib.fd, c->need)) >= 0) {
			found = c;
			end = fd;
			nfound++;
		}
	if (nfound == 1 && swap(found, end) == 0) {
		found->handed = true;
	} else {
		/* Not sure which: relay every hello of this rank sent. */
		for (c = cs->handoff; c; c = c->ho_next)
			if (!c->handed && c->rank == rank && !c->to_lib.len)
				kick = c->resume = true;
	}
	pthread_mutex_unlock(&cs->lock);
	if (kick && write(cs->kick_fd, &(uint64_t){1}, sizeof(uint64_t)) < 0)
		PMIXEV_ERROR("pmix gate: cannot wake the gate thread: %m");
}
