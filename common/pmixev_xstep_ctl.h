/*
 * pmixev_xstep_ctl.h - the srun-only control frames of doc/spawn.md §3
 * and §6.2, each the whole payload of its overlay frame type
 * (pmixev_xstep.h's PMIXEV_MSG_*):
 *
 *   srun <-> srun       HUB_HELLO, HUB_JOIN, HUB_LEAVE
 *   stepd -> own srun   SPAWN_REQ, SPAWN_CANCEL, ROOT_IS
 *   srun -> own stepds  SPAWN_STATUS, FAMILY
 *
 * The same rules as pmixev_xstep.h: strict, counts checked against the
 * bytes before allocation, canonical, pack refuses what unpack would.
 * Step lists travel sorted by (job, step), without repeats, so that each
 * set has one encoding. Pure code: unit-tested and fuzzed.
 */
#ifndef PMIXEV_XSTEP_CTL_H_
#define PMIXEV_XSTEP_CTL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_buf.h"
#include "pmixev_xstep.h"

/* Steps a family (and so a JOIN, LEAVE or FAMILY) may hold. */
#define PMIXEV_XSTEP_FAMILY_MAX 1024

/* A step. */
struct pmixev_xstep_id {
	uint32_t job, step;
};

/* A family member and the step that spawned it (NONE, NONE: the
 * family's root step). */
struct pmixev_xstep_member {
	uint32_t job, step;
	uint32_t parent_job, parent_step;
};

/* (job, step) order: <0, 0, >0. */
int pmixev_xstep_id_cmp(uint32_t job_a, uint32_t step_a, uint32_t job_b,
			uint32_t step_b);

/* HUB_HELLO: a child srun's first frame on its inherited socketpair. */
struct pmixev_hub_hello {
	uint32_t job, step; /* pmixev_xstep_step_ok */
	uint64_t spawn_id;  /* SLURM_PMIXEV_SPAWN_ID, 0 if none */
};
int pmixev_hub_hello_pack(struct pmixev_buf *b,
			  const struct pmixev_hub_hello *m);
int pmixev_hub_hello_unpack(struct pmixev_buf *b, struct pmixev_hub_hello *m);

/*
 * HUB_JOIN and FAMILY: 1..FAMILY_MAX members, strictly increasing by
 * (job, step), each a family step whose parent is another step of the
 * family, or NONE, NONE. FAMILY (srun -> stepds, the whole family) holds
 * exactly one member without a parent, the family's root step, and every
 * other member's parent is in it (see pmixev_xstep_family_ok); a JOIN
 * may name parents outside it. Namespaces are not carried: a family
 * step's is pmixev_xstep_nspace's.
 */
struct pmixev_xstep_members {
	uint32_t n;
	struct pmixev_xstep_member *m; /* [n]: unpack allocates */
};
int pmixev_hub_join_pack(struct pmixev_buf *b,
			 const struct pmixev_xstep_members *m);
int pmixev_hub_join_unpack(struct pmixev_buf *b,
			   struct pmixev_xstep_members *m);
int pmixev_family_pack(struct pmixev_buf *b,
		       const struct pmixev_xstep_members *m);
int pmixev_family_unpack(struct pmixev_buf *b, struct pmixev_xstep_members *m);
void pmixev_xstep_members_release(struct pmixev_xstep_members *m);
/* JOIN's rule above; FAMILY's (JOIN's, one root, parents members). */
bool pmixev_hub_join_ok(const struct pmixev_xstep_members *m);
bool pmixev_xstep_family_ok(const struct pmixev_xstep_members *m);
/* The member (job, step), or NULL. */
const struct pmixev_xstep_member *
pmixev_xstep_family_find(const struct pmixev_xstep_members *m, uint32_t job,
			 uint32_t step);
/* The family's root step (the member without a parent), or NULL. */
const struct pmixev_xstep_member *
pmixev_xstep_family_root(const struct pmixev_xstep_members *m);

/*
 * What root asks of an XSTEP header before it reads the body (doc §3.3),
 * this stepd being node `node` of (job, step), its tree root if `root`:
 * NULL when it is for this stepd and from a step of `family` (which must
 * hold this step too), else a static reason for the log.
 */
const char *pmixev_xstep_check(const struct pmixev_xstep_hdr *h,
			       const struct pmixev_xstep_members *family,
			       uint32_t job, uint32_t step, uint32_t node,
			       bool root);

/* HUB_LEAVE: 1..FAMILY_MAX steps, strictly increasing. */
struct pmixev_hub_leave {
	uint32_t n;
	struct pmixev_xstep_id *ids; /* [n]: unpack allocates */
};
bool pmixev_hub_leave_ok(const struct pmixev_hub_leave *m);
int pmixev_hub_leave_pack(struct pmixev_buf *b,
			  const struct pmixev_hub_leave *m);
int pmixev_hub_leave_unpack(struct pmixev_buf *b, struct pmixev_hub_leave *m);
void pmixev_hub_leave_release(struct pmixev_hub_leave *m);

/*
 * SPAWN_REQ: root passes a SPAWN body it validated with
 * pmixev_pmixd_spawn's codec to its srun, as bytes (1..`max`, not read
 * here); `id` is the body's, so srun can answer even a body it refuses.
 * `layout` (0..`max` bytes, not read here either): the requesting step's
 * own XSTEP LAYOUT body, for the child step; none when too large.
 */
struct pmixev_spawn_req {
	uint64_t id;
	const uint8_t *body;
	size_t nbody;
	const uint8_t *layout;
	size_t nlayout;
};
int pmixev_spawn_req_pack(struct pmixev_buf *b,
			  const struct pmixev_spawn_req *m);
int pmixev_spawn_req_unpack(struct pmixev_buf *b, size_t max,
			    struct pmixev_spawn_req *m);

/* SPAWN_CANCEL: end the child srun of spawn `id`. ROOT_IS: node `node`
 * (< NODES_MAX) is the step's tree root now. */
int pmixev_spawn_cancel_pack(struct pmixev_buf *b, uint64_t id);
int pmixev_spawn_cancel_unpack(struct pmixev_buf *b, uint64_t *id);
int pmixev_root_is_pack(struct pmixev_buf *b, uint32_t node);
int pmixev_root_is_unpack(struct pmixev_buf *b, uint32_t *node);

/*
 * SPAWN_STATUS: how spawn `id` went. LAUNCHED: the child srun runs (no
 * reason); READY: every child rank registered, the child step being
 * (job, step) (no reason); otherwise why it did not start or register
 * (doc §2.1's causes, with srun's reason). job and step are 0 but for
 * READY.
 */
enum pmixev_spawn_state {
	PMIXEV_SPAWN_LAUNCHED = 1,
	PMIXEV_SPAWN_FAILED = 2, /* could not start, or it exited */
	PMIXEV_SPAWN_BUSY = 3,	 /* Slurm: no resources within the time */
	PMIXEV_SPAWN_DENIED = 4, /* PMIX_ALLOC_ID: another user's job */
	PMIXEV_SPAWN_NO_JOB = 5, /* PMIX_ALLOC_ID: no such job */
	PMIXEV_SPAWN_READY = 6,	 /* every child registered */
	PMIXEV_SPAWN_STATE_MAX = PMIXEV_SPAWN_READY
};
struct pmixev_spawn_status {
	uint64_t id;
	enum pmixev_spawn_state state;
	uint32_t job, step;
	char reason[PMIXEV_XSTEP_REASON_MAX];
};
int pmixev_spawn_status_pack(struct pmixev_buf *b,
			     const struct pmixev_spawn_status *m);
int pmixev_spawn_status_unpack(struct pmixev_buf *b,
			       struct pmixev_spawn_status *m);

/*
 * NSPACE_ACK: the sending node's pmix side answered the NSPACE_ADD of the
 * layout of step (job, step) that srun passed the node (doc/spawn.md
 * §4.1): status 0, or the PMIx status it failed with (or that the node
 * dropped the layout); the child runs all the same.
 */
struct pmixev_nspace_ack {
	uint32_t job, step;
	int32_t status;
};
int pmixev_nspace_ack_pack(struct pmixev_buf *b,
			   const struct pmixev_nspace_ack *m);
int pmixev_nspace_ack_unpack(struct pmixev_buf *b, struct pmixev_nspace_ack *m);

#endif /* PMIXEV_XSTEP_CTL_H_ */
