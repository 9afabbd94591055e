/*
 * pmixside/inject_pmix.h - the one door through which events reach this
 * node's PMIx server (Slurm's task exits and node losses, the scheduler's
 * and the site's events, checkpoint requests, clients' events relayed
 * from other nodes: root sends each as an INJECT frame), and the count of
 * what the server did with them: how many from each source it cached,
 * evicted from its full cache, or never delivered (common/pmixev_evloss.h),
 * logged and answered to applications.
 *
 * Applications read the counts with PMIx_Query_info for the key
 * PMIXEV_QUERY_EVENTS ("slurm.pmixev.events"): the answer is a
 * PMIX_DATA_ARRAY of PMIX_INFO, one per source seen on the asking
 * process's node, whose key is the source ("stepd@NODE", "site@NODE",
 * "slurmctld-via-owner@NODE", "rank@R") and whose value is a PMIX_DATA_ARRAY
 * of three PMIX_INFO (PMIX_UINT64): "cached", "evicted", "undelivered".
 * What root could not hand over at all is counted and logged by root
 * (events/inject.h).
 *
 * INJECT frames are handled on the pmix side's agent; the counts may also
 * be touched from the PMIx progress thread (a client's own event) and read
 * by a query: they are guarded by a lock.
 */
#ifndef PMIXEV_PMIXSIDE_INJECT_PMIX_H_
#define PMIXEV_PMIXSIDE_INJECT_PMIX_H_

#include <pmix_common.h>

#include "base/layout.h"
#include "pmixd/chan.h"
#include "pmixev_conf.h"

#define PMIXEV_QUERY_EVENTS "slurm.pmixev.events"

struct inject_pmix;
struct xlinks;

/*
 * For the step laid out in `lay`, whose PMIx server caches what `conf`
 * says (PMIxevEventCache, PMIxevEventCacheMax); serving INJECT frames on
 * `l`. NULL when out of memory.
 */
struct inject_pmix *inject_pmix_create(const struct layout *lay,
				       const struct pmixev_conf *conf,
				       struct chan *l);

/* The server cached an event from `source` by itself (a client's event it
 * handed up): counted like an injected one. Any thread. */
void inject_pmix_cached(struct inject_pmix *in, const char *source);

/* An event from `source` will not reach this node's processes because of
 * `why`: counted and logged. Any thread. */
void inject_pmix_undelivered(struct inject_pmix *in, const char *source,
			     const char *why);

/*
 * An event this node's pmix side makes itself (not from root): `code`
 * from `source` over `range`, with the first `ninfo` of the `nalloc`
 * infos allocated at `info` (taken: freed when PMIx is done with them),
 * counted (cached, or undelivered) under `source_name`. Agent thread.
 */
void inject_pmix_event(struct inject_pmix *in, const char *source_name,
		       pmix_status_t code, const pmix_proc_t *source,
		       pmix_data_range_t range, pmix_info_t *info,
		       size_t nalloc, size_t ninfo);

/* Call `fn(ctx, rank)` for each rank of the step whose end root tells
 * (a task exit, or lost with its node), after its event went in. Before
 * the agent starts; one subscriber. */
void inject_pmix_on_rank_end(struct inject_pmix *in,
			     void (*fn)(void *ctx, uint32_t rank), void *ctx);

/* A spawn family step's rank end (INJECT CHILD) also goes to this node's
 * ranks connected to that step (pmixside/xlinks.h). Before the agent
 * starts. */
void inject_pmix_set_links(struct inject_pmix *in, struct xlinks *x);

/* The PMIXEV_QUERY_EVENTS answer, loaded into `info`. Any thread. */
pmix_status_t inject_pmix_report(struct inject_pmix *in, pmix_info_t *info);

/* The group invitations open on this node (pmixside/invite_watch.h): fed
 * the relayed client events and the task exits here, the clients' own
 * events by the notify upcall. */
struct invite_watch *inject_pmix_invites(struct inject_pmix *in);

/* Log the losses of the step on this node, if any, and free. NULL-safe. */
void inject_pmix_destroy(struct inject_pmix *in);

#endif /* PMIXEV_PMIXSIDE_INJECT_PMIX_H_ */
