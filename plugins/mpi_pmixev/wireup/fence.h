/*
 * wireup/fence.h - collectives over the overlay tree: PMIx fences (with or
 * without data) and the barriers behind connect/disconnect. The upcalls
 * (fence_upcall_*) run on the PMIx progress thread and post to the agent;
 * the rest is called on the agent thread.
 *
 * A collective is named by its kind and participant set (the signature,
 * wireup/fence_sig.h) plus a per-signature sequence number, so different
 * sets can run at the same time. Each node waits for its own contribution
 * (if it hosts participants) and for every child whose subtree hosts
 * participants, then passes the combined data up; the root sends the
 * result down the same branches. A data-less fence is therefore a true
 * barrier across nodes. Failure (timeout, lost node, error from a peer)
 * ends the collective with an error on every participating node; it never
 * hangs.
 */
#ifndef PMIXEV_PMIX_FENCE_H_
#define PMIXEV_PMIX_FENCE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "base/step.h"
#include "pmixev_proto.h"
#include "pmixev_result.h"

struct fence;

/* `timeout_sec`: how long a collective waits unless its call says. */
/* For step `s` (default timeout PMIxevTimeout); follows its node loss. */
struct fence *fence_create(struct step *s);

/* Free everything without answering any call (the PMIx server is gone). */
void fence_destroy(struct fence *f);

/* Result, and the combined data (valid during the call). */
typedef void (*fence_done_fn)(enum pmixev_result result, const uint8_t *data,
			      size_t ndata, void *arg);

/*
 * This node's part of a `kind` collective over `ranks` (every rank when
 * `all`). `data` is copied; `timeout_sec` 0 means the default. `done` runs
 * exactly once (possibly before this returns, on a bad request or over a
 * bound).
 */
void fence_local(struct fence *f, enum pmixev_coll_kind kind, bool all,
		 const uint32_t *ranks, size_t nranks, bool collect,
		 unsigned timeout_sec, const uint8_t *data, size_t ndata,
		 fence_done_fn done, void *arg);

/* The upcalls (PMIx progress thread, fence_call.c), for the server
 * module's table. */
pmix_status_t fence_upcall_fence_nb(const pmix_proc_t procs[], size_t nprocs,
				    const pmix_info_t info[], size_t ninfo,
				    char *data, size_t ndata,
				    pmix_modex_cbfunc_t cbfunc, void *cbdata);
pmix_status_t fence_upcall_connect(const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t info[], size_t ninfo,
				   pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t fence_upcall_disconnect(const pmix_proc_t procs[], size_t nprocs,
				      const pmix_info_t info[], size_t ninfo,
				      pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIX_FENCE_H_ */
