/*
 * pmixev_xstep.h - the cross-step frame (XSTEP) of doc/spawn.md §6.2:
 * what a step's stepds send to another step of the same spawn family,
 * through their srun and the srun hub (§3). An XSTEP payload is a fixed
 * header (who from, who to, what) followed by one inner body.
 *
 * The bytes come from the job owner's sruns, so root reads them as
 * strictly as O's frames (pmixev_pmixd_msg.h): short, trailing or
 * malformed bodies, unknown enums, text without a NUL inside its cap, and
 * counts or sizes above the limits (the bytes left, or a bound the
 * caller gives) are refused before anything is allocated. Pack functions
 * refuse (-1, errno EINVAL) what unpack would refuse, and the encoding is
 * canonical: what unpacks packs back to the same bytes. Byte strings
 * unpack zero-copy into the reader's data unless noted.
 *
 * The srun-only control frames (hub, spawn requests, FAMILY, ROOT_IS)
 * are in pmixev_xstep_ctl.h. PUBSUB is coded in pmixev_xstep_pubsub.c.
 * Pure code: unit-tested and fuzzed.
 */
#ifndef PMIXEV_XSTEP_H_
#define PMIXEV_XSTEP_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_buf.h"
#include "pmixev_pmixd_coll.h"
#include "pmixev_pmixd_start.h"
#include "pmixev_proto.h"
#include "pmixev_result.h"

#define PMIXEV_XSTEP_ROOT	0xfffffffeu /* dst_node: the tree root */
#define PMIXEV_XSTEP_ALL	0xffffffffu /* dst_node: every node */
#define PMIXEV_XSTEP_NONE	0xffffffffu /* job and step: none */
#define PMIXEV_XSTEP_NO_RANK	0xffffffffu /* no rank (a tool, none) */
#define PMIXEV_XSTEP_STEP_LIMIT 0xfffffff0u /* Slurm's special steps */
#define PMIXEV_XSTEP_NODES_MAX	65536	    /* pmixev_proto.h's */
#define PMIXEV_XSTEP_REASON_MAX 1024	    /* a reason incl. NUL */
/* The largest LAYOUT frame a step sends through the sruns, whose links
 * take frames of 1 MiB: a larger layout is not sent (about 100 000
 * ranks). */
#define PMIXEV_XSTEP_LAYOUT_MAX (768u << 10)

/* A step a family may hold: job != 0 and not NONE, a step id below
 * Slurm's special ones (batch, extern, interactive, ...). */
bool pmixev_xstep_step_ok(uint32_t job, uint32_t step);

enum pmixev_xstep_inner {
	PMIXEV_XSTEP_LAYOUT = 1,      /* root -> root */
	PMIXEV_XSTEP_READY = 2,	      /* child root -> parent root */
	PMIXEV_XSTEP_COLL_PART = 3,   /* root -> coordinator root */
	PMIXEV_XSTEP_COLL_RESULT = 4, /* coordinator root -> root */
	PMIXEV_XSTEP_DMODEX_REQ = 5,  /* node -> node */
	PMIXEV_XSTEP_DMODEX_RESP = 6, /* node -> node */
	PMIXEV_XSTEP_PUBSUB_REQ = 7,  /* node -> family root's node 0 */
	PMIXEV_XSTEP_PUBSUB_RESP = 8, /* ... -> the requesting node */
	PMIXEV_XSTEP_EVENT = 9,	      /* root -> root (or every node) */
	PMIXEV_XSTEP_LEFT = 10,	      /* srun -> its root: src ended */
	PMIXEV_XSTEP_INNER_MAX = PMIXEV_XSTEP_LEFT
};

/*
 * The header, 25 bytes on the wire. Valid (pmixev_xstep_hdr_ok) when
 * both steps pass pmixev_xstep_step_ok and differ, src_node is a node id
 * (< NODES_MAX), and dst_node suits the inner type: ROOT for READY,
 * COLL_PART, COLL_RESULT and LEFT; ROOT or ALL for LAYOUT and EVENT; a
 * node id for the DMODEX and PUBSUB ones. srun routes on (dst_job,
 * dst_step) only. LEFT has no body: srun says that step src (its child or
 * its parent) ended, its link to that step's srun closed.
 */
struct pmixev_xstep_hdr {
	uint32_t src_job, src_step, src_node;
	uint32_t dst_job, dst_step, dst_node;
	uint8_t inner; /* enum pmixev_xstep_inner */
};
#define PMIXEV_XSTEP_HDR_LEN 25
bool pmixev_xstep_hdr_ok(const struct pmixev_xstep_hdr *h);
int pmixev_xstep_hdr_pack(struct pmixev_buf *b,
			  const struct pmixev_xstep_hdr *h);
/* Reads the header only (the inner body follows in `b`); -1 when short
 * or not pmixev_xstep_hdr_ok. */
int pmixev_xstep_hdr_unpack(struct pmixev_buf *b, struct pmixev_xstep_hdr *h);

/*
 * Whether this stepd, node `node` of step (job, step) and its tree root
 * when `root`, is the header's destination.
 */
bool pmixev_xstep_for_me(const struct pmixev_xstep_hdr *h, uint32_t job,
			 uint32_t step, uint32_t node, bool root);

/*
 * LAYOUT: a step's layout, the proc that spawned it and the spawn it
 * answers. The layout is a START body (pmixev_pmixd_start.h) carried as
 * a byte string and read by START's codec, with only the layout's fields
 * set: job and step ids, nnodes, ntasks, napps, nspace, the node names
 * and the ranks' nodes and apps. Everything node-local (this node's name
 * and id text, nodeid, uid, gid, server nspace, directories, conf,
 * binding, cores) is 0 or "" and unpack refuses it otherwise.
 * parent_nspace "" means no parent (then parent_rank is NO_RANK); a
 * spawn_id (0: answering none) needs a parent.
 */
struct pmixev_xstep_layout {
	uint64_t spawn_id;
	char parent_nspace[PMIXEV_NSPACE_MAX];
	uint32_t parent_rank;
	struct pmixev_pmixd_start start; /* unpack allocates; release */
};
int pmixev_xstep_layout_pack(struct pmixev_buf *b,
			     const struct pmixev_xstep_layout *m);
/* `max`: the largest START body accepted, in bytes. */
int pmixev_xstep_layout_unpack(struct pmixev_buf *b, size_t max,
			       struct pmixev_xstep_layout *m);
void pmixev_xstep_layout_release(struct pmixev_xstep_layout *m);
/* The layout is the header's source step's own. */
bool pmixev_xstep_layout_from(const struct pmixev_xstep_hdr *h,
			      const struct pmixev_xstep_layout *m);

/*
 * READY: the child step's answer to spawn `spawn_id`. PMIXEV_OK: every
 * child registered, with no failed rank, class 0 and no reason. Else the
 * failure: a rank (or NO_RANK), the PMIx code its exit was classified
 * with (0: none), a reason.
 */
struct pmixev_xstep_ready {
	uint64_t spawn_id; /* not 0 */
	enum pmixev_result status;
	uint32_t failed_rank;
	int32_t exit_class;
	char reason[PMIXEV_XSTEP_REASON_MAX];
};
int pmixev_xstep_ready_pack(struct pmixev_buf *b,
			    const struct pmixev_xstep_ready *m);
int pmixev_xstep_ready_unpack(struct pmixev_buf *b,
			      struct pmixev_xstep_ready *m);

/*
 * COLL_PART and COLL_RESULT (§5.1): a step's part of a cross-step
 * collective, and the coordinator's answer. `sig` is the collective's
 * whole signature (every part, wireup/fence_sig.c's text, not empty);
 * `seq` its number per kind and signature. Data (at most the caller's
 * `max` bytes) only with PMIXEV_OK.
 */
struct pmixev_xstep_coll {
	enum pmixev_coll_kind kind;
	char sig[PMIXEV_SIG_MAX];
	uint64_t seq;
	enum pmixev_result result;
	const uint8_t *data;
	size_t ndata;
};
int pmixev_xstep_coll_pack(struct pmixev_buf *b,
			   const struct pmixev_xstep_coll *m);
int pmixev_xstep_coll_unpack(struct pmixev_buf *b, size_t max,
			     struct pmixev_xstep_coll *m);

/* DMODEX_REQ (§5.2): the requesting node's `sid` for a rank of the
 * destination step (unpack: < `ntasks`, the receiver's). */
struct pmixev_xstep_dmodex_req {
	uint64_t sid;
	uint32_t rank;
	uint32_t timeout_sec; /* 0: the default */
};
int pmixev_xstep_dmodex_req_pack(struct pmixev_buf *b,
				 const struct pmixev_xstep_dmodex_req *m);
int pmixev_xstep_dmodex_req_unpack(struct pmixev_buf *b, uint32_t ntasks,
				   struct pmixev_xstep_dmodex_req *m);

/* DMODEX_RESP: data (at most `max` bytes) only with PMIXEV_OK. */
struct pmixev_xstep_dmodex_resp {
	uint64_t sid;
	enum pmixev_result result;
	const uint8_t *data;
	size_t ndata;
};
int pmixev_xstep_dmodex_resp_pack(struct pmixev_buf *b,
				  const struct pmixev_xstep_dmodex_resp *m);
int pmixev_xstep_dmodex_resp_unpack(struct pmixev_buf *b, size_t max,
				    struct pmixev_xstep_dmodex_resp *m);

/*
 * PUBSUB_REQ and PUBSUB_RESP (§5.3), to and from the family's directory.
 * PMIx's range and persistence values, restated (pmix_common.h):
 * only the ranges that leave a step cross (default, SESSION, GLOBAL).
 */
#define PMIXEV_XSTEP_RANGE_UNDEF   0 /* PMIX_RANGE_UNDEF: the default */
#define PMIXEV_XSTEP_RANGE_SESSION 4 /* PMIX_RANGE_SESSION */
#define PMIXEV_XSTEP_RANGE_GLOBAL  5 /* PMIX_RANGE_GLOBAL */
#define PMIXEV_XSTEP_PERSIST_MAX   4 /* PMIX_PERSIST_SESSION */

/* A key; a value (publish, lookup answers); its publisher (answers). */
struct pmixev_xstep_entry {
	char key[PMIXEV_PMIXD_KEY_MAX]; /* not empty */
	uint32_t job, step, rank;	/* answers only */
	const uint8_t *value;
	size_t nvalue;
};

/*
 * PUBSUB_REQ: rank `rank` of the source step asks; 1..ENTRIES_MAX keys,
 * values only for PUBLISH (at most `max` bytes in all), `persist` only
 * for PUBLISH, `wait` only for LOOKUP.
 */
struct pmixev_xstep_pubsub {
	uint64_t id; /* the requesting node's */
	enum pmixev_pmixd_pubsub_op op;
	uint32_t rank;
	uint8_t range;
	uint8_t persist;
	bool wait;
	uint32_t timeout_sec;
	uint32_t n;
	struct pmixev_xstep_entry *e; /* [n]: unpack allocates */
};
int pmixev_xstep_pubsub_pack(struct pmixev_buf *b,
			     const struct pmixev_xstep_pubsub *m);
int pmixev_xstep_pubsub_unpack(struct pmixev_buf *b, size_t max,
			       struct pmixev_xstep_pubsub *m);
void pmixev_xstep_pubsub_release(struct pmixev_xstep_pubsub *m);

/* PUBSUB_RESP: the result and, for a lookup, the entries found with
 * their publishers (steps passing pmixev_xstep_step_ok); entries only
 * with PMIXEV_OK, values at most `max` bytes in all. */
struct pmixev_xstep_pubsub_resp {
	uint64_t id;
	enum pmixev_result result;
	uint32_t n;
	struct pmixev_xstep_entry *e; /* [n]: unpack allocates */
};
int pmixev_xstep_pubsub_resp_pack(struct pmixev_buf *b,
				  const struct pmixev_xstep_pubsub_resp *m);
int pmixev_xstep_pubsub_resp_unpack(struct pmixev_buf *b, size_t max,
				    struct pmixev_xstep_pubsub_resp *m);
void pmixev_xstep_pubsub_resp_release(struct pmixev_xstep_pubsub_resp *m);

/*
 * Where an srun sends a PUBSUB frame (§5.3). Requests climb the hub to
 * the family root's srun, which gives them to its node 0; answers go back
 * down by the requester's step. The srun reads the header only.
 */
enum pmixev_xstep_hop {
	PMIXEV_XSTEP_HOP_DROP,	/* not a frame this srun may pass */
	PMIXEV_XSTEP_HOP_UP,	/* to the parent srun */
	PMIXEV_XSTEP_HOP_NODE,	/* to its own step's node */
	PMIXEV_XSTEP_HOP_CHILD, /* to the child srun toward the step */
	PMIXEV_XSTEP_HOP_AWAY,	/* a child srun toward it, else the parent */
};
enum pmixev_xstep_from {
	PMIXEV_XSTEP_FROM_NODE,	  /* a stepd of the srun's own step */
	PMIXEV_XSTEP_FROM_PARENT, /* the parent srun */
	PMIXEV_XSTEP_FROM_CHILD,  /* a child srun */
};
/*
 * For the srun of step (job, step), with a parent srun when `spawned`: a
 * frame with header `h` that came `from` (from node `node` for NODE). A
 * REQ comes from a stepd of a spawned step (its own node as source) or
 * from a child srun (another step), and climbs while there is a parent.
 * A request that came back from the parent srun (bounced: it found no
 * way up) returns to its source: its node, or down toward its step. An
 * answer comes from the family root's node 0, or from the parent srun,
 * and goes to its own node when for its step, else down.
 */
enum pmixev_xstep_hop pmixev_xstep_pubsub_hop(const struct pmixev_xstep_hdr *h,
					      enum pmixev_xstep_from from,
					      uint32_t node, uint32_t job,
					      uint32_t step, bool spawned);

/*
 * COLL_PART, COLL_RESULT, DMODEX_REQ, DMODEX_RESP and EVENTs for every
 * node (a client's event to the steps of the family) travel anywhere in
 * the family, by destination step: for the srun of step (job, step), a
 * frame with header `h` that came `from` (node `node` for NODE). A
 * stepd's frame must name it as source and leave the step (AWAY); a
 * child srun's goes to its node when for this step, else AWAY (down if a
 * child srun leads there, else up); the parent's goes to its node or
 * down, never back up. Only the header is read; ROOT means node 0, ALL
 * every node of the step.
 */
enum pmixev_xstep_hop pmixev_xstep_route_hop(const struct pmixev_xstep_hdr *h,
					     enum pmixev_xstep_from from,
					     uint32_t node, uint32_t job,
					     uint32_t step);
/* A frame pmixev_xstep_route_hop routes (its header checked or not). */
bool pmixev_xstep_routed(const struct pmixev_xstep_hdr *h);

/*
 * EVENT (§5.4): an exit or node event (pmixev_proto.h's EVENT body) or a
 * client's event (its NOTIFY body, info at most `max` bytes), as the
 * overlay and INJECT carry them.
 */
enum pmixev_xstep_event_form {
	PMIXEV_XSTEP_EV_OBSERVED = 1, /* struct pmixev_event_msg */
	PMIXEV_XSTEP_EV_NOTIFY = 2,   /* struct pmixev_notify_msg */
};
struct pmixev_xstep_event {
	enum pmixev_xstep_event_form form;
	struct pmixev_event_msg ev;	 /* OBSERVED */
	struct pmixev_notify_msg notify; /* NOTIFY */
};
int pmixev_xstep_event_pack(struct pmixev_buf *b,
			    const struct pmixev_xstep_event *m);
int pmixev_xstep_event_unpack(struct pmixev_buf *b, size_t max,
			      struct pmixev_xstep_event *m);

/* LEFT (srun's word to its own step's root that step (gone_job,
 * gone_step) ended): the header alone. 0, or -1 (invalid). */
int pmixev_xstep_left_pack(struct pmixev_buf *b, uint32_t gone_job,
			   uint32_t gone_step, uint32_t job, uint32_t step);

/* "slurm.pmixev.JOB.STEP", the namespace of a family's step. */
void pmixev_xstep_nspace(uint32_t job, uint32_t step, char *buf, size_t len);

#endif /* PMIXEV_XSTEP_H_ */
