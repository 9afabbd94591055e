/*
 * overlay/handshake.h - how a stepd's links come up: the door (admit.h)
 * where children say hello, the hello to srun and its address table, and
 * the hello/welcome with the parent (cred.h). Above link.h; on the agent
 * thread.
 */
#ifndef PMIXEV_OVERLAY_HANDSHAKE_H_
#define PMIXEV_OVERLAY_HANDSHAKE_H_

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "overlay/addrs.h"
#include "overlay/auth.h"
#include "overlay/link.h"

struct handshake;

struct handshake_cfg {
	uint32_t job_id;
	uint32_t step_id;
	uint32_t nnodes;
	uid_t job_uid;	  /* srun's credential may be the job owner's */
	uid_t slurmd_uid; /* a stepd's may be root's or this one's */
	const struct addrs *nodes; /* by node id (kept, not copied) */
	const char *srun_host;
	uint16_t srun_port;
};

/*
 * Node `node` said a valid hello: the link it takes as our child, or NULL
 * with the reason in *why.
 */
typedef struct link *(*handshake_child_fn)(void *ctx, uint32_t node,
					   const char **why);

struct handshake *handshake_create(const struct handshake_cfg *cfg,
				   struct auth *auth, struct links *ls);
void handshake_on_child(struct handshake *hs, handshake_child_fn fn, void *ctx);

/* Open the door and say hello to srun. 0, or -1 (logged). */
int handshake_start(struct handshake *hs);

/*
 * A frame on srun's link, or on the parent's before its welcome. 0, or
 * -1 to close the link (logged).
 */
int handshake_frame(struct handshake *hs, struct link *l,
		    const struct pmixev_frame_hdr *hdr, const uint8_t *payload);

/* srun's address table arrived. */
bool handshake_has_table(const struct handshake *hs);

/* Dial the parent link's peer and say hello. 0, or -1 (logged). */
int handshake_connect_parent(struct handshake *hs);

/* This node's part of the step ended: BYE to those still at the door. */
void handshake_leave(struct handshake *hs);

/* Close the door; no callbacks. NULL-safe. */
void handshake_destroy(struct handshake *hs);

#endif /* PMIXEV_OVERLAY_HANDSHAKE_H_ */
