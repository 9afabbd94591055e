/*
 * pmixbase/directives.h - what a client's infos ask of an upcall: its own
 * timeout (PMIX_TIMEOUT), whether a fence collects data
 * (PMIX_COLLECT_DATA), whether a lookup waits for its keys (PMIX_WAIT), the
 * range and persistence of a publish, lookup or unpublish (PMIX_RANGE,
 * PMIX_PERSISTENCE), and which keys are directives at all (the rest of a
 * publish is data).
 * The one reader of these keys for fence, direct modex and publish/lookup.
 * Pure code on the PMIx progress thread (any thread would do).
 */
#ifndef PMIXEV_PMIX_DIRECTIVES_H_
#define PMIXEV_PMIX_DIRECTIVES_H_

#include <stdbool.h>
#include <stddef.h>

#include <pmix_common.h>

struct directives {
	unsigned timeout_sec; /* the first positive PMIX_TIMEOUT, else 0 */
	bool collect;	      /* the first PMIX_COLLECT_DATA is true */
	bool wait;	      /* a PMIX_WAIT is present (any value) */
	/* The first PMIX_RANGE, else PMIX_RANGE_UNDEF; PMIX_RANGE_INVALID
	 * when its value is not a range (PMIX_DATA_RANGE or PMIX_UINT8). */
	pmix_data_range_t range;
	/* The first PMIX_PERSISTENCE, else PMIX_PERSIST_INDEF;
	 * PMIX_PERSIST_INVALID when its value is not a persistence
	 * (PMIX_PERSIST or PMIX_UINT8). */
	pmix_persistence_t persist;
};

/* Read `info` into `d` (absent keys: all zero). */
void directives_read(const pmix_info_t info[], size_t ninfo,
		     struct directives *d);

/* Is `key` a directive (a "pmix." key) rather than published data? */
bool directives_is_directive(const char *key);

#endif /* PMIXEV_PMIX_DIRECTIVES_H_ */
