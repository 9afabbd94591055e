/*
 * wireup/coll.h - the collective engine: collectives over the overlay tree,
 * root's half, on the agent thread. The kinds (enum pmixev_coll_kind) plug
 * in with hooks (struct coll_kind): PMIx fences and the barriers behind
 * connect/disconnect (wireup/fence.c). The data stays opaque here.
 *
 * A collective is named by its kind and participant set (the signature,
 * wireup/fence_sig.h) plus a per-kind, per-signature sequence number, so
 * different sets can run at the same time. Each node waits for its own
 * contribution (if it hosts participants) and for every child whose
 * subtree hosts participants, then passes the combined data up; the tree
 * root hands the whole to the kind (at_root) and sends its result down the
 * same branches. A data-less collective is therefore a true barrier across
 * nodes. Failure (timeout, lost node, error from a peer, a bound) ends the
 * collective with an error on every participating node; it never hangs.
 *
 * The engine also keeps the step's dead ranks (step_on_rank_gone), for the
 * kinds that need them.
 */
#ifndef PMIXEV_WIREUP_COLL_H_
#define PMIXEV_WIREUP_COLL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/step.h"
#include "pmixev_buf.h"
#include "pmixev_proto.h"
#include "pmixev_result.h"

struct coll;

/* One collective, as a kind's hooks see it (valid during the hook). */
struct coll_id {
	enum pmixev_coll_kind kind;
	const char *sig;
	uint64_t seq;
};

/*
 * What at_root returns to answer later, with coll_root_finish (a
 * collective across steps waits at the tree root for the other steps'
 * parts, wireup/coll_xstep.h). Never a result on the wire.
 */
#define COLL_LATER ((enum pmixev_result)PMIXEV_RESULT_COUNT)

/*
 * What a kind does at the ends of its collectives; the engine does the
 * rest (trackers, the tree, bounds, timeouts, failures). A contribution is
 * built by the kind's caller (coll_local's `data`); a node holds its
 * own and its children's end to end, in the order they came: a kind that
 * needs an order marks its contributions (e.g. with the node).
 */
struct coll_kind {
	/*
	 * Tree root: every contribution is in, `data` holding them all. Leave
	 * in `data` the result to send down (the hook may rewrite it; the
	 * engine frees it after) and return PMIXEV_OK, or return an error:
	 * the collective then fails with it on every node (the hook says why
	 * in the log). Or return COLL_LATER, having taken from `data` what it
	 * needs: the collective waits, within its deadline, for the kind's
	 * coll_root_finish.
	 */
	enum pmixev_result (*at_root)(void *ctx, const struct coll_id *id,
				      struct pmixev_buf *data);
	/*
	 * May be NULL. Tree root: the collective failed here with `result`
	 * by anything but the kind's word (its deadline, a lost node, a
	 * node's error, a bound), before or after at_root: the kind may tell
	 * whom it waits for or who waits for it, and drop what it keeps.
	 */
	void (*root_failed)(void *ctx, const struct coll_id *id,
			    enum pmixev_result result);
	/*
	 * The collective ended on this node: answer this node's call `call`
	 * (as given to coll_local) with `result` and, on success, the data
	 * the root sent down (valid during the hook). Exactly once per call,
	 * failures included (timeout, lost node, a peer's error, a bound, a
	 * bad request), possibly before coll_local returns.
	 */
	void (*deliver)(void *ctx, const struct coll_id *id,
			enum pmixev_result result, const uint8_t *data,
			size_t ndata, void *call);
	/*
	 * NULL: participants that end change nothing (a fence waits for
	 * them). Else the kind's word on a collective one of whose ranks has
	 * ended (before it started or while it runs; each node hears of every
	 * rank's end), given this node's call (NULL while none came): an error
	 * fails the collective with it on every node at once; PMIXEV_OK goes
	 * on without the ranks that ended: a node whose ranks in the set have
	 * all ended is no longer waited for, and the kind's at_root finds them
	 * with coll_dead.
	 */
	enum pmixev_result (*on_death)(void *ctx, const struct coll_id *id,
				       void *call);
};

/*
 * The engine for step `s` (default timeout PMIxevTimeout, bounds
 * PMIxevFenceMax and PMIxevOverlayMax); it follows node loss and rank
 * ends. NULL when out of memory.
 */
struct coll *coll_create(struct step *s);

/* Free everything without answering any call (the PMIx server is gone). */
void coll_destroy(struct coll *c);

/*
 * `kind`'s hooks (copied) with their `ctx`, before the agent runs. 0, or
 * -1 when `kind` is out of range or has hooks already.
 */
int coll_kind_set(struct coll *c, enum pmixev_coll_kind kind,
		  const struct coll_kind *ops, void *ctx);

/*
 * This node's part of a `kind` collective over `sig` (fence_sig_format):
 * `data` (held only when `collect`, which the frames carry) is copied;
 * `timeout_ms` (milliseconds) 0 means the default. The kind's deliver answers
 * `call`.
 */
void coll_local(struct coll *c, enum pmixev_coll_kind kind, const char *sig,
		bool collect, unsigned timeout_ms, const uint8_t *data,
		size_t ndata, void *call);

/*
 * This node's PMIx server is gone (its process ended, or the channel to it
 * closed): every collective with a rank here fails at once on every node
 * it involves, now and from now on. `tell`: while tasks here still ran;
 * every node is told (PMIX_GONE), so that collectives started elsewhere
 * later, which this node would hear of only through its children, fail
 * at once too. At a normal end the node's leaving does that.
 */
void coll_pmix_gone(struct coll *c, bool tell);

/*
 * Fail with `result` (not PMIXEV_OK) each `kind` collective this node
 * holds whose signature `pick` takes, as a peer's error does: on every
 * node it involves, its local call answered at once (`why` is logged,
 * as information). Returns how many it failed.
 */
size_t coll_fail_where(struct coll *c, enum pmixev_coll_kind kind,
		       bool (*pick)(const char *sig, void *arg), void *arg,
		       enum pmixev_result result, const char *why);

/*
 * The kind's answer to collective `id` for which at_root said COLL_LATER:
 * `result` and, on success, the data sent down. With an error, collective
 * `id` fails at once on every node of the step, whatever it waits for;
 * if this node has not heard of it yet, its calls get the error when
 * they come. Whether it took the answer (else the collective ended
 * already, or, on success, has not reached the root).
 */
bool coll_root_finish(struct coll *c, const struct coll_id *id,
		      enum pmixev_result result, const uint8_t *data,
		      size_t ndata);

/* The last number of `kind`'s collectives over `sig` that ended here (0:
 * none it remembers): a later message of one up to it is stale. */
uint64_t coll_done(struct coll *c, enum pmixev_coll_kind kind, const char *sig);

/* Has rank `rank` of the step ended (exited, or lost with its node)? */
bool coll_rank_dead(const struct coll *c, uint32_t rank);

/* The step's ranks that ended, a bitmap of ntasks bits (bit r in
 * byte r / 8, 1 << r % 8), as pmixev_group_merge reads it. */
const uint8_t *coll_dead(const struct coll *c);

#endif /* PMIXEV_WIREUP_COLL_H_ */
