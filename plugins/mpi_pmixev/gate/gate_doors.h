/*
 * gate/gate_doors.h - what the gate (gate.h) needs of the host's network,
 * made there before the PMIx server's process or thread leaves it.
 *
 * The gate listens on the host's loopback, where clients and tools are
 * told to connect, and must ask who owns each peer's socket there; the
 * library it guards listens in a network namespace of its own. A socket,
 * a NETLINK_SOCK_DIAG socket and a file of /proc/net all stay with the
 * namespace they were made in, whoever holds them afterwards: root makes
 * them in the host's network, and the gate uses them from inside the
 * library's, with no privilege (pmix_gate_create_inside).
 */
#ifndef PMIXEV_PMIX_GATE_DOORS_H_
#define PMIXEV_PMIX_GATE_DOORS_H_

#include <stdint.h>

/* Descriptors, all close-on-exec; -1 when not open. */
struct pmix_gate_doors {
	/* The gate's listener at 127.0.0.1:port: non-blocking, Nagle off
	 * (its connections inherit that), a backlog of SOMAXCONN. */
	int listen_fd;
	uint16_t port;
	/* sock_diag, which has told the owner of listen_fd; -1 if it could
	 * not (logged): the gate reads the files below instead. */
	int sockdiag_fd;
	/* /proc/net/tcp and tcp6, read-only; tcp6_fd -1 without IPv6. */
	int tcp_fd, tcp6_fd;
};

/*
 * Make the doors in the calling thread's network namespace: the host's.
 * 0, or -1 (logged, with the cause) with nothing left open.
 */
int pmix_gate_doors_create(struct pmix_gate_doors *d);

/* Close those open and mark them -1; errno is kept. */
void pmix_gate_doors_close(struct pmix_gate_doors *d);

#endif /* PMIXEV_PMIX_GATE_DOORS_H_ */
