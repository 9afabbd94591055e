/*
 * events/inject.h - the one door through which pmixev hands events to this
 * node's PMIx server (Slurm's task exits and node losses, the scheduler's
 * and the site's events, clients' events relayed from other nodes), and the
 * count of what the server did with them: how many from each source it
 * cached, evicted from its full cache, or never delivered
 * (common/pmixev_evloss.h), logged in the slurmd log and answered to
 * applications.
 *
 * Applications read the counts with PMIx_Query_info for the key
 * PMIXEV_QUERY_EVENTS ("slurm.pmixev.events"): the answer is a
 * PMIX_DATA_ARRAY of PMIX_INFO, one per source seen on the asking
 * process's node, whose key is the source ("stepd@NODE", "site@NODE",
 * "slurmctld-via-owner@NODE", "rank@R") and whose value is a PMIX_DATA_ARRAY of
 * three PMIX_INFO (PMIX_UINT64): "cached", "evicted", "undelivered".
 *
 * Agent thread only.
 */
#ifndef PMIXEV_PMIX_INJECT_H_
#define PMIXEV_PMIX_INJECT_H_

#include <stddef.h>

#include <pmix_common.h>

#include "base/step.h"

#define PMIXEV_QUERY_EVENTS "slurm.pmixev.events"

struct inject;

/* For the step's PMIx server (it caches PMIxevEventCache events); NULL
 * when out of memory. */
struct inject *inject_create(const struct step *s);

/*
 * Notify this node's clients of `code` from `source` over `range`, with the
 * first `ninfo` of the `nalloc` infos allocated at `info` (taken over:
 * freed when PMIx is done with them). Counted under `counted_as`.
 */
void inject_event(struct inject *in, const char *counted_as, pmix_status_t code,
		  const pmix_proc_t *source, pmix_data_range_t range,
		  pmix_info_t *info, size_t nalloc, size_t ninfo);

/* The server cached an event from `source` by itself (a client's event it
 * handed up): counted like an injected one. */
void inject_cached(struct inject *in, const char *source);

/* An event from `source` will not reach this node's processes because of
 * `why`: counted and logged. */
void inject_undelivered(struct inject *in, const char *source, const char *why);

/* The PMIXEV_QUERY_EVENTS answer, loaded into `info`. */
pmix_status_t inject_report(const struct inject *in, pmix_info_t *info);

/* Log the losses of the step on this node, if any, and free. */
void inject_destroy(struct inject *in);

#endif /* PMIXEV_PMIX_INJECT_H_ */
