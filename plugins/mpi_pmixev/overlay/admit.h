/*
 * overlay/admit.h - a door: a listening TCP socket and the connections it
 * accepted that have not authenticated yet, for a stepd's overlay port and
 * srun's rendezvous port alike. On the agent thread (in srun, the one the
 * rendezvous starts).
 *
 * A connection from an address that is not one of the step's nodes
 * (addrs.h) is closed at once, before any read. Before its owner takes it
 * (admit_take), a connection may send frames of at most ADMIT_FRAME_MAX
 * bytes and must be taken within ADMIT_DEADLINE_SEC, else it is dropped;
 * a new connection beyond the door's bounds (per source address, in all)
 * closes the oldest one waiting (waitq.h). Those drops are counted, not
 * logged one by one: a summary line (counts, last source) at most every
 * ADMIT_SUMMARY_SEC, and one when the door closes.
 */
#ifndef PMIXEV_OVERLAY_ADMIT_H_
#define PMIXEV_OVERLAY_ADMIT_H_

#include <stdint.h>

#include <event2/event.h>

#include "overlay/addrs.h"
#include "overlay/conn.h"

/* A credential-carrying hello or welcome takes a few hundred bytes. */
#define ADMIT_FRAME_MAX	   (8u << 10)
#define ADMIT_DEADLINE_SEC 5
#define ADMIT_SUMMARY_SEC  10

struct admit;

/*
 * A frame from the unauthenticated connection `c`: return 0 to go on
 * (after admit_take and conn_set_owner, the connection is the caller's),
 * or -1 to drop it (log the reason before).
 */
typedef int (*admit_frame_fn)(void *ctx, struct conn *c,
			      const struct pmixev_frame_hdr *hdr,
			      const uint8_t *payload);

struct admit_cfg {
	const char *name;	     /* log lines start "name: " (kept) */
	const struct addrs *allowed; /* the step's nodes (kept, not copied) */
	unsigned per_addr; /* unauthenticated connections from one address */
	unsigned total;	   /* ... in all */
	admit_frame_fn on_frame;
	void *ctx;
};

/* Listen on an ephemeral port of every address. NULL (errno) on failure. */
struct admit *admit_create(struct event_base *base,
			   const struct admit_cfg *cfg);

uint16_t admit_port(const struct admit *door);

/*
 * `c` authenticated: it leaves the door (no deadline, no longer counted).
 * The caller hands it a new owner (conn_set_owner) before returning from
 * the frame callback.
 */
void admit_take(struct admit *door, struct conn *c);

/* Call `fn` for each connection still waiting in the door. */
void admit_each(const struct admit *door, void (*fn)(struct conn *, void *),
		void *arg);

/* Close the door and every connection in it; no callbacks. NULL-safe. */
void admit_destroy(struct admit *door);

#endif /* PMIXEV_OVERLAY_ADMIT_H_ */
