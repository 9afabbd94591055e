/*
 * overlay/overlay.h - the authenticated tree of a step's slurmstepds.
 *
 * Bootstrap (all on the agent thread):
 *  1. listen on an ephemeral TCP port;
 *  2. connect to srun's rendezvous (SLURM_SRUN_COMM_HOST and the port srun
 *     exported) and send RDV_HELLO: a munge credential over our identity
 *     (job, step, node id, address, port);
 *  3. srun answers, once every stepd has said hello, with RDV_TABLE: a
 *     credential of the job owner over every stepd's address;
 *  4. each stepd connects to its parent in the k-ary tree (PEER_HELLO with
 *     a credential naming both ends), and the parent answers PEER_WELCOME
 *     with its own credential echoing the nonce: mutual authentication,
 *     bound to job, step and both node ids.
 * Only the step's nodes (their slurm.conf addresses) may knock at the
 * door, and srun's table may give each node only its own address.
 * A peer that fails any check is logged and dropped. Frames for another
 * node are forwarded along the tree; frames queued for a link that is not
 * up yet are sent when it comes up.
 *
 * Healing: a node whose neighbour broke off (connection closed, or no
 * heartbeat for three periods) tells every node (GONE); each one re-forms
 * the tree without it (heal.c): orphans join their nearest ancestor still
 * there, or the lowest node left, which becomes the root.
 */
#ifndef PMIXEV_OVERLAY_OVERLAY_H_
#define PMIXEV_OVERLAY_OVERLAY_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/agent.h"
#include "overlay/auth.h"
#include "pmixev_tree.h"

struct overlay;

struct overlay_cfg {
	uint32_t job_id;
	uint32_t step_id;
	uint32_t nodeid;
	uint32_t nnodes;
	char *const *nodes; /* [nnodes] NodeNames, by node id */
	uint32_t width;	    /* tree fan-out */
	uid_t job_uid;	    /* srun's credential must carry it */
	uid_t slurmd_uid;   /* SlurmdUser (peer stepds: root or this) */
	const char *srun_host;
	uint16_t srun_port;
	uint32_t max_frame;    /* largest payload accepted */
	size_t max_queued;     /* bytes waiting to be sent on one link */
	unsigned timeout_sec;  /* bootstrap must finish within this */
	unsigned heartbeat_ms; /* 0: no heartbeats; else a neighbour silent
				* for 3 periods is lost */
};

/* A message of one type for this node arrived from node `src`. */
typedef void (*overlay_handler_t)(void *ctx, uint32_t src, const uint8_t *data,
				  size_t len);
/*
 * Node `node` left the step's tree, which heals around it: called on every
 * node once per gone node, with `ended` when it ended normally (said BYE)
 * or was merely unreachable when we tried to join it, and again without
 * `ended` if it is later reported lost. A lost node is reported (without
 * `ended`) once on each node.
 */
typedef void (*overlay_lost_t)(void *ctx, uint32_t node, const char *why,
			       bool ended);

/*
 * Resolves the nodes' addresses (overlay/nodeaddr.h): before the agent
 * thread starts. NULL on failure (logged).
 */
struct overlay *overlay_create(struct agent *agent, struct auth *auth,
			       const struct overlay_cfg *cfg);

/* Start the bootstrap; on the agent thread. 0, or -1 (logged). */
int overlay_start(struct overlay *ov);

void overlay_on(struct overlay *ov, uint8_t type, overlay_handler_t fn,
		void *ctx);
void overlay_on_lost(struct overlay *ov, overlay_lost_t fn, void *ctx);

/*
 * Send a message to node `dst` (routed along the tree) or to srun
 * (PMIXEV_NODE_SRUN). On the agent thread. 0, or -1 when `dst` is
 * unreachable.
 */
int overlay_send(struct overlay *ov, uint32_t dst, uint8_t type,
		 const void *data, size_t len);

/*
 * This node's part of the step ended: tell the neighbours (BYE) so they
 * see a normal end, not a lost node. On the agent thread.
 */
void overlay_leave(struct overlay *ov);

/*
 * This node's tasks all ended: its end is near. A child's hello it can no
 * longer answer (the credential signer ends with the step's processes)
 * then gets a goodbye, so that the child sees a normal end, not a lost
 * node. On the agent thread.
 */
void overlay_tasks_ended(struct overlay *ov);

/*
 * Show `text` to the user: srun prints it as an error naming this node
 * (a NOTICE). On the agent thread. 0, or -1 when srun is unreachable.
 */
int overlay_tell_srun(struct overlay *ov, const char *text);

/*
 * Send a message to every other node of the step along the tree (each gets
 * it once; their handlers see this node as src). On the agent thread. The
 * number of this node's links that refused it, over PMIxevOverlayMax (the
 * nodes behind them miss it; logged once per episode by the link).
 */
unsigned overlay_broadcast(struct overlay *ov, uint8_t type, const void *data,
			   size_t len);

uint32_t overlay_self(const struct overlay *ov);

/*
 * The tree as this node sees it now, healed around gone nodes: our parent
 * (PMIXEV_TREE_NONE at the root), our children (written to `out`, room
 * for nnodes; returns how many), whether `d` is below `id`, and whether
 * `node` is one of our children.
 */
uint32_t overlay_parent(const struct overlay *ov);

/*
 * Has this node joined the tree (its parent link came up once; the root
 * has none)? Any thread: the step's end waits a little for it, so that
 * a node whose tasks all ended at once still tells the others.
 */
bool overlay_joined(const struct overlay *ov);
size_t overlay_children(const struct overlay *ov, uint32_t *out);
bool overlay_in_subtree(const struct overlay *ov, uint32_t id, uint32_t d);
bool overlay_is_child(const struct overlay *ov, uint32_t node);

/* Close everything; no callbacks. On the agent thread (or after it ended). */
void overlay_destroy(struct overlay *ov);

#endif /* PMIXEV_OVERLAY_OVERLAY_H_ */
