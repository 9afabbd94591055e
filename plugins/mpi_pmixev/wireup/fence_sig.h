/*
 * wireup/fence_sig.h - how collectives are named across the step: by their
 * kind (enum pmixev_coll_kind) and participant set as text, the
 * signature: "*" for every rank of the step, else the sorted ranks as
 * ranges, "0-3,5". Equal sets give equal text on every node. A group
 * collective's signature adds '#' and the group id, "0-3,5#tag": rank
 * text has no '#', so the first one splits it. A collective across steps
 * of a spawn family (doc/spawn.md §5.1) names every step's part, its own
 * included, in (job, step) order, each "job.step:" and its rank text,
 * joined by '@': "7.0:*@7.1:0-3". The
 * collectives of one kind and signature run one after another, numbered
 * from 1; struct fence_sig keeps their numbers on this node, struct
 * fence_sigs the names and their bound.
 * Agent thread (pure code but for the list of names); unit-tested.
 */
#ifndef PMIXEV_PMIX_FENCE_SIG_H_
#define PMIXEV_PMIX_FENCE_SIG_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_pmixd_coll.h"
#include "pmixev_proto.h"
#include "pmixev_result.h"
#include "pmixev_taskmap.h"

/* One name (kind and signature) and the numbers of its collectives. */
struct fence_sig {
	enum pmixev_coll_kind kind;
	char sig[PMIXEV_SIG_MAX];
	uint64_t next_local;	 /* last number this node started locally */
	uint64_t done;		 /* every number <= done has ended */
	enum pmixev_result last; /* result of the last one that ended */
	size_t live;		 /* its collectives in flight here */
	bool listed;		 /* in a struct fence_sigs (else a stand-in) */
	struct fence_sig *next;
};

/*
 * The names this node remembers, at most `max` (PMIxevFenceMax), with at
 * most `max` collectives in flight. A name is forgotten when its last
 * collective ended well and none is in flight or owed to a local caller:
 * every node forgets it at the same point, so the next collective over
 * the set is number 1 everywhere. A name whose last collective failed
 * stays (a late message or local contribution must meet its number)
 * until a new name needs its place: the oldest such goes first.
 */
struct fence_sigs {
	struct fence_sig *head; /* the most recent first */
	size_t n;		/* names remembered */
	size_t live;		/* collectives in flight, all names */
	size_t max;
};

/*
 * The entry of `kind` and `sig` in `l`, added if new; NULL with errno
 * ENOSPC when `l` holds `max` names all in use, or ENOMEM.
 */
struct fence_sig *fence_sig_get(struct fence_sigs *l,
				enum pmixev_coll_kind kind, const char *sig);

/*
 * fence_sig_get, or `standin` (filled in) when `l` holds `max` names, all
 * in flight: the collective is then refused. NULL: out of memory.
 */
struct fence_sig *fence_sig_get_or(struct fence_sigs *l,
				   enum pmixev_coll_kind kind, const char *sig,
				   struct fence_sig *standin);

/* Would a collective of `ss` (a new one: `fresh`) pass `max`? */
bool fence_sig_over(const struct fence_sigs *l, const struct fence_sig *ss,
		    bool fresh);

/* The entry of `kind` and `sig` in `l`, or NULL (never adds). */
struct fence_sig *fence_sig_find(const struct fence_sigs *l,
				 enum pmixev_coll_kind kind, const char *sig);

/* May one more collective start (fewer than `max` in flight)? */
bool fence_sig_room(const struct fence_sigs *l);

/* A collective of `ss` (listed or a stand-in) starts here. */
void fence_sig_start(struct fence_sigs *l, struct fence_sig *ss);

/*
 * Collective `seq` of `ss`, started with fence_sig_start, ended here with
 * `result`. `ss` is forgotten (freed) if it may be (see above).
 */
void fence_sig_end(struct fence_sigs *l, struct fence_sig *ss, uint64_t seq,
		   enum pmixev_result result);

/* Free every name of `l` and empty it. */
void fence_sig_free(struct fence_sigs *l);

/* "fence", "connect", "disconnect", "group construct" or "group
 * destruct", for log lines. */
const char *fence_kind_name(enum pmixev_coll_kind kind);

/*
 * Write the signature of `ranks` (any order, repeats allowed; every rank
 * of the step when `all`) into `sig` of `len` bytes. 0, or -1 with errno
 * ENOMEM, or EINVAL when the set is empty or its text does not fit.
 */
int fence_sig_format(bool all, const uint32_t *ranks, size_t nranks, char *sig,
		     size_t len);

/*
 * fence_sig_format, then '#' and `grpid` (not empty): a group collective's
 * signature. 0, or -1 with errno ENOMEM, or EINVAL when the set is empty,
 * `grpid` is empty or the whole does not fit.
 */
int fence_sig_format_group(bool all, const uint32_t *ranks, size_t nranks,
			   const char *grpid, char *sig, size_t len);

/*
 * The signature of a collective over the own step's set (job, step, all,
 * ranks) and the other steps' `parts` (sorted by (job, step), none the
 * own; pmixev_pmixd_coll.h). Without parts, fence_sig_format's text. 0,
 * or -1 with errno as fence_sig_format's.
 */
int fence_sig_format_parts(uint32_t job, uint32_t step, bool all,
			   const uint32_t *ranks, size_t nranks,
			   const struct pmixev_pmixd_part *parts,
			   uint32_t nparts, char *sig, size_t len);

/*
 * The steps a cross-step signature names, in order, into jobs[] and
 * steps[] (`max` entries each): how many (2 or more), 0 for a signature
 * of one step, -1 when malformed, out of order or more than `max`.
 */
int fence_sig_steps(const char *sig, uint32_t *jobs, uint32_t *steps,
		    size_t max);

/*
 * The rank text of step (job, step)'s part of `sig` (ending at '@' or
 * the end), which fence_sig_nodes and fence_sig_ranks read; `sig` itself
 * for a signature of one step; NULL when `sig` names other steps only.
 */
const char *fence_sig_part(const char *sig, uint32_t job, uint32_t step);

/* The group id in `sig` (after its first '#'), or NULL: a plain one. */
const char *fence_sig_group_id(const char *sig);

/*
 * Is `sig` a group collective's signature whose id is `grpid` and whose
 * ranks hold `rank` (false too when `sig` is malformed or no memory)?
 */
bool fence_sig_group_has(const struct pmixev_taskmap *map, const char *sig,
			 const char *grpid, uint32_t rank);

/*
 * Mark in `nodes` (map->nnodes entries) the nodes that host a rank of
 * `sig` (its ranks: up to a '#', which a group id must follow, or an '@';
 * give fence_sig_part's text for a cross-step one). 0, or -1
 * when `sig` is malformed or names a rank beyond the map.
 */
int fence_sig_nodes(const struct pmixev_taskmap *map, const char *sig,
		    bool *nodes);

/*
 * The ranks of `sig` (up to a '#'): *all for "*", else *ranks (malloc'd,
 * strictly increasing, each < map->ntasks) and *nranks. 0, or -1 when
 * `sig` is malformed, not in order or beyond the map, or no memory.
 */
int fence_sig_ranks(const struct pmixev_taskmap *map, const char *sig,
		    bool *all, uint32_t **ranks, uint32_t *nranks);

#endif /* PMIXEV_PMIX_FENCE_SIG_H_ */
