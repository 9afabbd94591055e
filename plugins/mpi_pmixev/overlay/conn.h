/*
 * overlay/conn.h - one framed TCP connection of the overlay (stepd <-> stepd,
 * stepd <-> srun): the lowest layer of the overlay, on the agent thread
 * (in srun, the one the rendezvous starts).
 *
 * Incoming bytes are cut into frames (pmixev_frame.h); a frame with a bad
 * header or a payload above the limit closes the connection with a reason.
 * Each complete frame goes to the owner's frame callback; when the peer
 * goes away (EOF, error, bad frame, or the owner refused a frame) the close
 * callback runs once and the connection frees itself.
 */
#ifndef PMIXEV_OVERLAY_CONN_H_
#define PMIXEV_OVERLAY_CONN_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <event2/event.h>

#include "pmixev_frame.h"

struct conn;

/*
 * A frame arrived; `payload` is valid during the call only. Return 0 to
 * go on, or -1 to close the connection (log the reason before).
 */
typedef int (*conn_frame_fn)(struct conn *c, const struct pmixev_frame_hdr *hdr,
			     const uint8_t *payload, void *ctx);
/* Why a connection closed. */
enum conn_close {
	CONN_EOF,	/* the peer closed it */
	CONN_ERROR,	/* a socket error */
	CONN_BAD_FRAME, /* a frame header was invalid or over the limit */
	CONN_REFUSED,	/* the owner refused a frame (and logged why) */
	CONN_NO_MEMORY, /* a frame could not be assembled */
};

/*
 * The connection is gone (`reason`, with `why` for the log); it is freed
 * right after this returns.
 */
typedef void (*conn_close_fn)(struct conn *c, enum conn_close reason,
			      const char *why, void *ctx);

/*
 * Wrap an accepted socket `fd`, or with fd < 0 connect to `sa` (the new
 * socket is close-on-exec). The connection owns the socket. NULL on
 * failure.
 */
struct conn *conn_create(struct event_base *base, int fd,
			 const struct sockaddr *sa, socklen_t salen,
			 uint32_t max_len, conn_frame_fn on_frame,
			 conn_close_fn on_close, void *ctx);

/*
 * Resolve `host` and connect to it at `port`, as conn_create does. NULL
 * on failure, with the reason in `err`.
 */
struct conn *conn_dial(struct event_base *base, const char *host, uint16_t port,
		       uint32_t max_len, conn_frame_fn on_frame,
		       conn_close_fn on_close, void *ctx, char *err,
		       size_t errlen);

/*
 * Hand the connection to a new owner (e.g. once a peer is identified);
 * may be called from within the frame callback.
 */
void conn_set_owner(struct conn *c, conn_frame_fn on_frame,
		    conn_close_fn on_close, void *ctx);

/* Queue one frame. 0, or -1 (out of memory). */
int conn_send(struct conn *c, uint8_t type, uint32_t src, uint32_t dst,
	      const void *payload, size_t len);

/*
 * Write queued frames now, without the event loop (best effort), and
 * half-close: the peer reads everything we sent, then EOF - never a reset
 * that could discard our last frames.
 */
void conn_finish(struct conn *c);

/* Peer address for log lines ("10.0.0.1:4242"), and its host part. */
const char *conn_peer(const struct conn *c);
const char *conn_peer_host(const struct conn *c);

/* Largest payload accepted from now on (e.g. raised after a handshake). */
void conn_set_max_len(struct conn *c, uint32_t max_len);

/* Bytes queued for sending, not yet written to the socket. */
size_t conn_queued(const struct conn *c);

/* Bytes received so far, complete frames or not: a large frame in
 * transit is a sign of life too. */
uint64_t conn_rx_bytes(const struct conn *c);

/* Local address of the socket (numeric host text), or -1. */
int conn_local_host(const struct conn *c, char *host, size_t len);

/* Close without calling on_close. NULL-safe. */
void conn_destroy(struct conn *c);

#endif /* PMIXEV_OVERLAY_CONN_H_ */
