/*
 * wireup/coll_int.h - the collective engine's insides (see coll.h), shared
 * by coll.c (the calls, the tree's messages, node loss) and coll_tracker.c
 * (one collective on this node: its state, its data and its end). Agent
 * thread.
 */
#ifndef PMIXEV_WIREUP_COLL_INT_H_
#define PMIXEV_WIREUP_COLL_INT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/layout.h"
#include "base/pending.h"
#include "pmixev_buf.h"
#include "pmixev_proto.h"
#include "pmixev_result.h"
#include "wireup/coll.h"
#include "wireup/fence_sig.h"

/* Kinds are small numbers (enum pmixev_coll_kind); 0 is none. */
#define COLL_KIND_MAX 8

/* One collective on this node, from its first news here to its end. */
struct tracker {
	struct coll *c;
	struct fence_sig *ss;
	uint64_t seq;
	bool local;	 /* this node hosts participants */
	bool local_in;	 /* ... and their contribution arrived */
	bool *nodes;	 /* [nnodes] hosts participants */
	uint32_t parent; /* the tree when the tracker started */
	uint32_t *child; /* [nchild] */
	uint32_t nchild;
	bool *exp; /* [nchild] child subtree hosts participants */
	/* [nnodes] or NULL: the node's ranks in the set have all ended and
	 * its kind goes on without them (coll_kind.on_death) */
	bool *spent;
	bool *got; /* [nchild] child contribution arrived */
	bool sent_up;
	bool at_root; /* its kind answers later (COLL_LATER) */
	bool by_kind; /* ending by its kind's word: no root_failed */
	bool collect;
	unsigned timeout_ms; /* its own: PMIX_TIMEOUT or the default */
	struct pmixev_buf data;
	void *call; /* this node's call, once local_in */
	struct pending *p;
};

struct coll {
	struct overlay *ov;
	const struct layout *lay;
	unsigned timeout_ms;
	uint32_t self;
	uint32_t *scratch;	/* [nnodes] */
	struct fence_sigs sigs; /* bounded by PMIxevFenceMax */
	size_t held;		/* contribution bytes held here */
	size_t max_held;	/* PMIxevOverlayMax */
	unsigned long refused;	/* collectives refused over a bound */
	bool *pmix_gone;	/* [nnodes] its PMIx server is gone */
	unsigned ngone;		/* nodes so in pmix_gone */
	uint8_t *dead;		/* [ntasks bits] ranks that ended */
	struct pending_set *trackers;
	struct {
		struct coll_kind ops;
		void *ctx;
	} kinds[COLL_KIND_MAX]; /* deliver NULL: not set */
};

/* `kind`'s hooks, or NULL when it has none. */
const struct coll_kind *coll_kind_of(const struct coll *c,
				     enum pmixev_coll_kind kind);

/* Answer this node's call of `kind`/`sig`/`seq` (its kind's deliver). */
void coll_deliver(struct coll *c, enum pmixev_coll_kind kind, const char *sig,
		  uint64_t seq, enum pmixev_result result, const uint8_t *data,
		  size_t ndata, void *call);

/* A tracker for collective `seq` of `ss`, in `c->trackers`, or NULL. */
struct tracker *tracker_new(struct coll *c, struct fence_sig *ss, uint64_t seq,
			    unsigned timeout_ms);
struct tracker *tracker_find(struct coll *c, struct fence_sig *ss,
			     uint64_t seq);

/* Free `t` without a word (the set it is in goes away). */
void tracker_release(void *arg);

/* The index of child `node` in `t`, or UINT32_MAX. */
uint32_t tracker_child(const struct tracker *t, uint32_t node);

/* The rank text of the step's own part of `t`'s signature, or NULL. */
const char *tracker_own(const struct tracker *t);

/* pending_set callbacks: a deadline passed or a node went; the nodes `t`
 * waits on. */
void tracker_expire(void *req, enum pmixev_result why, uint32_t lost);
bool tracker_waits(void *req, uint32_t node);

/*
 * End the collective on this node with `result`: answer the local call,
 * pass the outcome down to the expected children and, on failure, up to
 * the parent (except toward `from`, where it came from). Frees `t`.
 */
void tracker_finish(struct tracker *t, enum pmixev_result result,
		    const uint8_t *data, size_t ndata, uint32_t from);

/* tracker_finish with an error, logged with `why`. */
void tracker_fail(struct tracker *t, enum pmixev_result result, uint32_t from,
		  const char *why);

/* A rank of `t` that has ended (coll_rank_dead) into *rank: whether
 * there is one. */
bool tracker_dead_rank(const struct tracker *t, uint32_t *rank);

/* Pass `t` up (or end it at the tree root) once all it waits for is in;
 * or fail it: its kind ends with a rank that ended (else stops waiting
 * for the nodes whose ranks all did), or a node's PMIx server is gone. */
void tracker_check(struct tracker *t);

/* Hold `n` bytes more for `t` unless `*over` or the budget says no: then
 * `*over` is set. -1: out of memory (fail `t`). */
int tracker_take(struct tracker *t, const uint8_t *data, size_t n, bool *over);

/*
 * Holding `t` here passes PMIxevFenceMax (`count`) or PMIxevOverlayMax:
 * fail it at once on every node it involves. Frees `t`.
 */
void tracker_refuse(struct tracker *t, bool count);

#endif /* PMIXEV_WIREUP_COLL_INT_H_ */
