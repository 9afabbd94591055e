/*
 * gate/gate_conn.h - the connections the gate passes to the PMIx server
 * library (see gate.h): each one's hello, its connection to the library,
 * and the bytes between them. Gate thread only, except what `lock`
 * guards, which the hand-off (gate_handoff.h) uses from the PMIx thread.
 *
 * A tool's connection stays relayed. A client's is handed over: once the
 * library has taken its hello, the library's own end of the connection is
 * replaced by the client's socket (gate_handoff.h), and the gate is out of
 * the way of the client's messages.
 */
#ifndef PMIXEV_PMIX_GATE_CONN_H_
#define PMIXEV_PMIX_GATE_CONN_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmixev_hello.h"

struct gate_tally;

enum gate_state {
	GATE_HELLO,	 /* reading the peer's hello */
	GATE_CONNECTING, /* to the library */
	GATE_PIPE,	 /* passing bytes */
	GATE_DRAIN,	 /* the peer is gone; taking the library's answer */
	GATE_HANDOFF,	 /* a client's: waiting for the library to take it */
};

struct gate_conn;

struct gate_side {
	struct gate_conn *c;
	int fd;
	uint32_t armed; /* the epoll events asked for */
};

/* Bytes read from one side that the other has not taken yet. */
struct gate_pending {
	uint8_t *buf;
	size_t len, off;
};

struct gate_conn {
	struct gate_side peer, lib;
	enum gate_state st;
	uid_t peer_uid;
	bool client;   /* a client's hello (not a tool's) */
	uint32_t rank; /* ... naming this rank */
	uint8_t hdr[PMIXEV_HELLO_HDR];
	uint8_t *hello; /* header and body, `need` bytes once known */
	size_t need, got;
	struct gate_pending to_peer, to_lib;
	uint64_t lib_bytes;	 /* from the library */
	int64_t deadline, quiet; /* monotonic ms, 0: none */
	char name[64];
	bool closed; /* on the list of closed ones */
	struct gate_conn *next, **pprev;
	/* Under the lock, while GATE_HANDOFF: */
	bool handed; /* the library has the client's socket */
	bool resume; /* not handed over: relay it after all */
	struct gate_conn *ho_next, **ho_pprev;
};

struct gate_conns {
	int epfd;
	int kick_fd; /* eventfd: connections to resume relaying */
	uid_t job_uid;
	gid_t job_gid;
	/* Set by the stepd's main thread once the library listens; the
	 * major version first, then the port (0 until then). */
	atomic_uint major;
	atomic_ushort lib_port;
	/* Its data-store modules (a comma list with static storage), set
	 * before the major version; NULL: "hash". */
	_Atomic(const char *) stores;
	struct gate_conn *head;
	struct gate_conn *closed; /* to free after the events in hand */
	size_t n;
	size_t n_other;		  /* ... of peers other than the job owner */
	struct gate_tally *tally; /* refusals, for the log */
	size_t timed;		  /* connections with a deadline */
	pthread_mutex_t lock;
	struct gate_conn *handoff; /* in GATE_HANDOFF */
	/* Over the step's life: */
	unsigned long other_users, bad_hellos, unfinished, unreachable;
	atomic_ulong handed, relayed_clients;
};

/* Take the accepted connection `fd` of a peer owned by `peer_uid` (the
 * gate has checked who it is); `peer` names it in the log. */
void gate_conns_add(struct gate_conns *cs, int fd, uid_t peer_uid,
		    const char *peer);

/* epoll reported `events` for `ptr`, the data of a connection's socket. */
void gate_conns_event(struct gate_conns *cs, void *ptr, uint32_t events);

/* The hand-off gave up on some connections: relay them (kick_fd read). */
void gate_conns_resume(struct gate_conns *cs);

/* Milliseconds until the nearest deadline, -1 if none. */
int gate_conns_wait_ms(struct gate_conns *cs);

/* Close the connections whose deadline has passed. */
void gate_conns_expire(struct gate_conns *cs);

/* Free the connections closed while handling a batch of events. */
void gate_conns_reap(struct gate_conns *cs);

/* Close every connection. */
void gate_conns_close_all(struct gate_conns *cs);

#endif /* PMIXEV_PMIX_GATE_CONN_H_ */
