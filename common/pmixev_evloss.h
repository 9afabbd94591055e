/*
 * pmixev_evloss.h - per-source accounting of the events one node's PMIx
 * server was given, and of those it lost.
 *
 * OpenPMIx keeps the last N events (its `pmix_max_events`, which pmixev
 * sets from PMIxevEventCache) so that processes registering late still get
 * them, and drops one when a new one does not fit. The library does not
 * tell its host, so pmixev mirrors the cache: every event it hands to the
 * server takes a slot, an event older than the library's lifetime (120 s)
 * has left by itself, and an event pushed out of a full cache while still
 * alive is counted as evicted, against its source. The mirror drops the
 * oldest; OpenPMIx 4.2 drops the oldest by the second, and among events of
 * one second the one in its lowest slot, so the number evicted is exact
 * and the source charged may differ within a burst of mixed sources.
 * An event the server refused, or one that could not be relayed or
 * decoded, is counted as undelivered. Sources are named by the caller
 * ("stepd@NODE", "site@NODE", "rank@R").
 *
 * Pure code, no locking (the agent thread owns it); unit-tested.
 */
#ifndef PMIXEV_EVLOSS_H_
#define PMIXEV_EVLOSS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMIXEV_EVLOSS_LIFETIME_SEC 120

struct pmixev_evloss;

struct pmixev_evloss_counts {
	uint64_t cached;      /* events of this source given to the server */
	uint64_t evicted;     /* pushed out of the full cache while alive */
	uint64_t undelivered; /* refused, not relayed, or undecodable */
};

/* A cache of `slots` (>= 1) events. NULL when out of memory. */
struct pmixev_evloss *pmixev_evloss_create(unsigned slots);
void pmixev_evloss_destroy(struct pmixev_evloss *l);

/*
 * An event from `source` entered the cache at time `now` (seconds). When
 * it pushed out a live event, *evicted_from names that event's source
 * (valid until destroy) and true is returned.
 */
bool pmixev_evloss_cached(struct pmixev_evloss *l, const char *source,
			  uint64_t now, const char **evicted_from);

/* An event from `source` did not reach this node's processes. Returns the
 * source's undelivered count so far. */
uint64_t pmixev_evloss_undelivered(struct pmixev_evloss *l, const char *source);

/* Number of sources seen, and source i's name and counts (i < count). */
size_t pmixev_evloss_nsources(const struct pmixev_evloss *l);
const char *pmixev_evloss_source(const struct pmixev_evloss *l, size_t i,
				 struct pmixev_evloss_counts *counts);

#endif /* PMIXEV_EVLOSS_H_ */
