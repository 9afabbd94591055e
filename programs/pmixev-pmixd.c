/*
 * programs/pmixev-pmixd.c - the PMIx server of one step on one node, run
 * by slurmstepd as the job owner (doc/pmix-server-as-owner.md): root has
 * put it in a network of its own, without new privileges, to die with its
 * slurmstepd, and handed it its descriptors:
 *   3 the channel to root (pmixd/chan.h frames)
 *   4 the gate's listener on the host's loopback
 *   5 a NETLINK_SOCK_DIAG socket of the host's network, or -1 closed
 *   6, 7 the host's /proc/net/tcp and /proc/net/tcp6
 * stderr: root's pipe for its log lines (programs/pmixd_log.c).
 * With --version alone it says its version and the OpenPMIx it was built
 * with and loads (for pmixev-check), and ends.
 */
#include "config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pmix.h>

#include "pmixev_log.h"
#include "pmixev_untrace.h"
#include "pmixside/pmixd.h"

#define PROG "pmixev-pmixd"

/* The port of listener `fd` on 127.0.0.1, or 0. */
static uint16_t port_of(int fd)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (getsockname(fd, (struct sockaddr *)&sin, &len) < 0 ||
	    sin.sin_family != AF_INET)
		return 0;
	return ntohs(sin.sin_port);
}

/* `fd` if it is open, else -1. */
static int given(int fd)
{
	return fcntl(fd, F_GETFD) < 0 ? -1 : fd;
}

int main(int argc, char **argv)
{
	struct pmixd_fds fds = {.chan = 3};
	char why[128];

	pmixev_log_init(PROG);
	/* For pmixev-check: it runs, and which OpenPMIx it loads. */
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf(PROG " (pmixev " PACKAGE_VERSION ")\n"
			    "OpenPMIx: built with %ld.%ld.%ld, runs with %s\n",
		       (long)PMIX_VERSION_MAJOR, (long)PMIX_VERSION_MINOR,
		       (long)PMIX_VERSION_RELEASE, PMIx_Get_version());
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "E " PROG ": usage: started by slurmstepd's "
				"mpi/pmixev plugin only\n");
		return 2;
	}
	/* The identity must be one, for good: real = effective. */
	if (getuid() != geteuid() || getgid() != getegid()) {
		fprintf(stderr, "E " PROG ": refusing to run set-id\n");
		return 2;
	}
	if (pmixev_untraceable(why, sizeof(why)) < 0) {
		fprintf(stderr, "E " PROG ": %s\n", why);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	fds.doors = (struct pmix_gate_doors){.listen_fd = given(4),
					     .sockdiag_fd = given(5),
					     .tcp_fd = given(6),
					     .tcp6_fd = given(7)};
	fds.doors.port = port_of(fds.doors.listen_fd);
	if (given(fds.chan) < 0 || !fds.doors.port) {
		fprintf(stderr, "E " PROG ": its channel (fd 3) or listener "
				"(fd 4) is not open\n");
		return 2;
	}
	return pmixd_run(&fds);
}
