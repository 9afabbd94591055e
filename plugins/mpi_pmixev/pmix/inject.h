/*
 * pmix/inject.h - what this node's PMIx server did with the step's events:
 * how many from each source it cached, evicted from its full cache, or
 * never delivered (common/pmixev_evloss.h), logged in the slurmd log and
 * answered to applications.
 *
 * Applications read the counts with PMIx_Query_info for the key
 * PMIXEV_QUERY_EVENTS ("slurm.pmixev.events"): the answer is a
 * PMIX_DATA_ARRAY of PMIX_INFO, one per source seen on the asking
 * process's node, whose key is the source ("stepd@NODE", "site@NODE",
 * "rank@R") and whose value is a PMIX_DATA_ARRAY of three PMIX_INFO
 * (PMIX_UINT64): "cached", "evicted", "undelivered".
 *
 * Agent thread only.
 */
#ifndef PMIXEV_PMIX_INJECT_H_
#define PMIXEV_PMIX_INJECT_H_

#include <stddef.h>

#include <pmix_common.h>

#define PMIXEV_QUERY_EVENTS "slurm.pmixev.events"

struct evcount;

/* For a cache of `slots` events; NULL when out of memory. */
struct evcount *evcount_create(unsigned slots);

/* An event from `source` was given to the local PMIx server (and cached
 * by it). An eviction it causes is counted and logged. */
void evcount_cached(struct evcount *c, const char *source);

/* An event from `source` will not reach this node's processes because of
 * `why`: counted and logged. */
void evcount_undelivered(struct evcount *c, const char *source,
			 const char *why);

/* The PMIXEV_QUERY_EVENTS answer, loaded into `info`. */
pmix_status_t evcount_report(const struct evcount *c, pmix_info_t *info);

/* Log the losses of the step on this node, if any, and free. */
void evcount_destroy(struct evcount *c);

#endif /* PMIXEV_PMIX_INJECT_H_ */
