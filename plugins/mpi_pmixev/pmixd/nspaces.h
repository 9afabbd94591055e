/*
 * pmixd/nspaces.h - the other steps of the spawn family whose namespaces
 * this node's pmix side registers (doc/spawn.md §4.1): a family member's
 * LAYOUT, checked with its codec (the owner's word: a bad one is logged
 * and dropped), becomes NSPACE_ADD to the pmix side, which answers
 * NSPACE_ADDED. The layouts come from srun (a child step's) and from the
 * step's environment (the parent step's, base/layout.h). Only the
 * layouts of this step's children (their parent is this step) and of
 * this step's parent are taken; at most NSPACES_MAX namespaces per step.
 * Each one's task map stays here for routed direct modex (§5.2).
 * Agent thread (nspaces_create and nspaces_add_parent also before it
 * runs).
 */
#ifndef PMIXEV_PMIXD_NSPACES_H_
#define PMIXEV_PMIXD_NSPACES_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/step.h"
#include "pmixev_result.h"
#include "pmixev_xstep.h"

#define NSPACES_MAX 256 /* PMIxevSpawnNspaceMax's default, fixed */

enum nspaces_state {
	NSPACES_UNKNOWN, /* no layout came */
	NSPACES_SENT,	 /* NSPACE_ADD sent, not answered yet */
	NSPACES_DONE,	 /* the pmix side answered (registered or not) */
};

/* The pmix side answered NSPACE_ADD of `nspace` with `status` (a
 * pmix_status_t: 0 or negative). */
typedef void (*nspaces_added_fn)(void *ctx, const char *nspace, int32_t status);

struct nspaces;

/* Serving NSPACE_ADDED on the step's channel; NULL when out of memory. */
struct nspaces *nspaces_create(struct step *s);

/* Call fn(ctx, ...) on each NSPACE_ADDED (at most 3 subscribers). 0, or
 * -1 when there are 3 already. */
int nspaces_on_added(struct nspaces *ns, nspaces_added_fn fn, void *ctx);

/* NULL-safe. */
void nspaces_destroy(struct nspaces *ns);

/*
 * srun's XSTEP LAYOUT: header `h` (already read and meant for this
 * node), body `body` (`len` bytes, the rest of the frame). Checked; on
 * success NSPACE_ADD goes to the pmix side. 0, or -1 (logged) when it is
 * refused.
 */
int nspaces_layout(struct nspaces *ns, const struct pmixev_xstep_hdr *h,
		   const uint8_t *body, size_t len);

/*
 * Register the parent step's namespace from the step's own layout
 * (lay.parent_layout, checked in prefork). 0 (sent, or there is none),
 * or -1 (logged).
 */
int nspaces_add_parent(struct nspaces *ns);

/* The tasks of family step (job, step) if the pmix side registered it,
 * else 0. NULL-safe. */
uint32_t nspaces_ntasks(const struct nspaces *ns, uint32_t job, uint32_t step);

enum nspaces_state nspaces_state(const struct nspaces *ns, const char *nspace);

/* fn(ctx, job, step) for each family step this node's pmix side
 * registered (NSPACES_DONE). NULL-safe. */
void nspaces_each(const struct nspaces *ns,
		  void (*fn)(void *ctx, uint32_t job, uint32_t step),
		  void *ctx);

/* Whether step (job, step) is a family member whose layout came here. */
bool nspaces_member(const struct nspaces *ns, uint32_t job, uint32_t step);

/*
 * The node of family member (job, step) that hosts `rank`, from its
 * layout: PMIXEV_OK and *node, PMIXEV_ERR_NOT_FOUND (no layout of that
 * step came here) or PMIXEV_ERR_BAD_REQUEST (rank beyond its size).
 */
enum pmixev_result nspaces_node_of(const struct nspaces *ns, uint32_t job,
				   uint32_t step, uint32_t rank,
				   uint32_t *node);

#endif /* PMIXEV_PMIXD_NSPACES_H_ */
