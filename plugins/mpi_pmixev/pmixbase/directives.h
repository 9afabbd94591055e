/*
 * pmixbase/directives.h - what a client's infos ask of an upcall: its own
 * timeout (PMIX_TIMEOUT), whether a fence collects data
 * (PMIX_COLLECT_DATA), whether a lookup waits for its keys (PMIX_WAIT), and
 * which keys are directives at all (the rest of a publish is data).
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
};

/* Read `info` into `d` (absent keys: all zero). */
void directives_read(const pmix_info_t info[], size_t ninfo,
		     struct directives *d);

/* Is `key` a directive (a "pmix." key) rather than published data? */
bool directives_is_directive(const char *key);

#endif /* PMIXEV_PMIX_DIRECTIVES_H_ */
