/*
 * pmix/gate_conn.h - the connections the gate passes to the PMIx server
 * library (see gate.h): each one's hello, its connection to the library,
 * and the bytes between them. Gate thread only, except the target.
 */
#ifndef PMIXEV_PMIX_GATE_CONN_H_
#define PMIXEV_PMIX_GATE_CONN_H_

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct gate_conn;

struct gate_conns {
	int epfd;
	uid_t job_uid;
	gid_t job_gid;
	/* Set by the stepd's main thread once the library listens; the
	 * major version first, then the port (0 until then). */
	atomic_uint major;
	atomic_ushort lib_port;
	struct gate_conn *head;
	struct gate_conn *closed; /* to free after the events in hand */
	size_t n;
	size_t timed; /* connections with a deadline */
	/* Over the step's life: */
	unsigned long other_users, bad_hellos, unfinished, unreachable;
};

/* Take the accepted connection `fd` of a peer owned by `peer_uid` (the
 * gate has checked who it is); `peer` names it in the log. */
void gate_conns_add(struct gate_conns *cs, int fd, uid_t peer_uid,
		    const char *peer);

/* epoll reported `events` for `ptr`, the data of a connection's socket. */
void gate_conns_event(struct gate_conns *cs, void *ptr, uint32_t events);

/* Milliseconds until the nearest deadline, -1 if none. */
int gate_conns_wait_ms(struct gate_conns *cs);

/* Close the connections whose deadline has passed. */
void gate_conns_expire(struct gate_conns *cs);

/* Free the connections closed while handling a batch of events. */
void gate_conns_reap(struct gate_conns *cs);

/* Close every connection. */
void gate_conns_close_all(struct gate_conns *cs);

#endif /* PMIXEV_PMIX_GATE_CONN_H_ */
