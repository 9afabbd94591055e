/*
 * gate/gate_doors.c - the gate's listener and its means of telling who
 * owns a connection, made in the host's network (see the header).
 */
#include "config.h"

#include "gate/gate_doors.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pmixev_log.h"
#include "pmixev_sockdiag.h"

static int listen_loopback(struct pmix_gate_doors *d)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sin);
	int one = 1;

	d->listen_fd =
		socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d->listen_fd < 0 ||
	    setsockopt(d->listen_fd, IPPROTO_TCP, TCP_NODELAY, &one,
		       sizeof(one)) < 0 ||
	    bind(d->listen_fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(d->listen_fd, SOMAXCONN) < 0 ||
	    getsockname(d->listen_fd, (struct sockaddr *)&sin, &len) < 0)
		return -1;
	d->port = ntohs(sin.sin_port);
	return 0;
}

/*
 * Ask the kernel's sock_diag (in this thread's network) who owns the
 * gate's own listener; if it cannot tell, the gate is to read
 * /proc/net/tcp for every connection: say so.
 */
static void open_sockdiag(struct pmix_gate_doors *d)
{
	struct sockaddr_in us = {.sin_family = AF_INET,
				 .sin_port = htons(d->port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)},
			   any = {.sin_family = AF_INET};
	struct pmixev_sockdiag_answer ans;
	struct pmixev_sockdiag *sd = NULL;
	int rc = -1, probe;

	d->sockdiag_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
				NETLINK_SOCK_DIAG);
	/* The probe asks through a copy of the socket, and closes it. */
	if (d->sockdiag_fd >= 0 &&
	    (probe = fcntl(d->sockdiag_fd, F_DUPFD_CLOEXEC, 0)) >= 0 &&
	    !(sd = pmixev_sockdiag_from_fd(probe)))
		close(probe);
	if (sd)
		rc = pmixev_sockdiag_lookup(sd, (struct sockaddr *)&us,
					    (struct sockaddr *)&any, &ans);
	pmixev_sockdiag_destroy(sd);
	if (rc == 0 && ans.inode)
		return;
	PMIXEV_INFO("pmix gate: the kernel's sock_diag cannot tell who owns "
		    "a connection (%s): the gate reads /proc/net/tcp for each "
		    "one instead, at a cost that grows with the node's "
		    "sockets, so other local users can slow this step's "
		    "PMIx wire-up (load the tcp_diag module)",
		    rc == 0   ? "no socket file"
		    : rc == 1 ? "no answer"
			      : strerror(errno));
	if (d->sockdiag_fd >= 0)
		close(d->sockdiag_fd);
	d->sockdiag_fd = -1;
}

/* `path` opened read-only into *fd: 0, or -1 (logged), except for a
 * missing `optional` file (tcp6 without IPv6): 0 and *fd -1. */
static int open_table(const char *path, bool optional, int *fd)
{
	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0 ||
	    (optional && errno == ENOENT))
		return 0;
	PMIXEV_ERROR("pmix gate: cannot open %s, where the owners of "
		     "connections are read: %m",
		     path);
	return -1;
}

int pmix_gate_doors_create(struct pmix_gate_doors *d)
{
	d->listen_fd = d->sockdiag_fd = d->tcp_fd = d->tcp6_fd = -1;
	d->port = 0;
	if (listen_loopback(d) < 0) {
		PMIXEV_ERROR("pmix gate: cannot listen for PMIx clients at "
			     "127.0.0.1: %m");
		pmix_gate_doors_close(d);
		return -1;
	}
	if (open_table("/proc/net/tcp", false, &d->tcp_fd) < 0 ||
	    open_table("/proc/net/tcp6", true, &d->tcp6_fd) < 0) {
		pmix_gate_doors_close(d);
		return -1;
	}
	open_sockdiag(d);
	return 0;
}

void pmix_gate_doors_close(struct pmix_gate_doors *d)
{
	int err = errno,
	    *fds[] = {&d->listen_fd, &d->sockdiag_fd, &d->tcp_fd, &d->tcp6_fd};

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	errno = err;
}
