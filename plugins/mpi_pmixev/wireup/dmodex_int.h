/*
 * wireup/dmodex_int.h - what direct modex within the step (dmodex.c) and
 * across the steps of the spawn family (dmodex_xstep.c) share. Agent
 * thread only.
 */
#ifndef PMIXEV_WIREUP_DMODEX_INT_H_
#define PMIXEV_WIREUP_DMODEX_INT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pending.h"
#include "base/step.h"
#include "pmixev_pmixd_budget.h"
#include "pmixev_result.h"
#include "wireup/dmodex.h"

/* Peers' requests waiting on the pmix side here at most (as many as
 * PMIXEV_PMIXD_BUDGET_DMODEX lets one node's pmix side ask), from this
 * step's nodes and other steps' alike. */
#define SERVING_MAX PMIXEV_PMIXD_BUDGET_DMODEX

/* Result, and the rank's data (valid during the call). */
typedef void (*dmodex_done_fn)(enum pmixev_result result, const uint8_t *data,
			       size_t ndata, void *arg);

/* A request of ours, pending until the hosting node answers. */
struct request {
	struct pending *p;
	uint32_t job, step; /* the hosting step: (0, 0) for this one */
	uint32_t node;	    /* hosting node */
	dmodex_done_fn done;
	void *arg;
};

/* A request served here for a peer: lives until the pmix side answers. */
struct serving {
	uint64_t sid; /* ours, in DMODEX_SERVE */
	uint64_t id;  /* the requester's */
	uint32_t requester;
	uint32_t job, step; /* the requester's step: (0, 0) for this one */
	struct serving *next;
};

struct dmodex {
	struct step *s;
	struct overlay *ov;
	struct chan *chan;
	const struct pmixev_pmixd_bounds *lim;
	struct pmixev_pmixd_budget *budget;
	const struct layout *lay;
	unsigned timeout_sec;
	struct pending_set *requests;
	struct pending_set *xrequests; /* to other steps' nodes */
	struct pending_set *xparked;   /* from steps not known here yet */
	unsigned nparked;	       /* in `xparked` */
	bool xsubscribed;	       /* to pmixd/nspaces.h's NSPACE_ADDED */
	size_t xdata_max;	       /* an answer's data: PMIxevOverlayMax */
	struct serving *serving;
	unsigned nserving; /* in `serving` */
	uint64_t unserved; /* peers' requests refused: SERVING_MAX */
	uint64_t xdropped; /* other steps' frames dropped */
	uint64_t last_sid;
};

void dmodex_request_end(struct request *r, enum pmixev_result result,
			const uint8_t *data, size_t ndata);

/*
 * A peer's request `id` for local `rank`: from node `requester` of step
 * (job, step) ((0, 0): this one). Served by the pmix side, or answered
 * at once (over budget, not a local rank, no pmix side).
 */
void dmodex_serve(struct dmodex *d, uint64_t id, uint32_t job, uint32_t step,
		  uint32_t requester, uint32_t rank);

/* dmodex_xstep.c: the cross-step half. */
int dmodex_xstep_create(struct dmodex *d);
void dmodex_xstep_destroy(struct dmodex *d);
/* Ask for `rank` of family member (job, step); `done` runs exactly once. */
void dmodex_xstep_request(struct dmodex *d, uint32_t job, uint32_t step,
			  uint32_t rank, unsigned timeout_sec,
			  dmodex_done_fn done, void *arg);
/* Answer another step's request `sv` served here. */
void dmodex_xstep_answer(struct dmodex *d, const struct serving *sv,
			 enum pmixev_result result, const uint8_t *data,
			 size_t ndata);

#endif /* PMIXEV_WIREUP_DMODEX_INT_H_ */
