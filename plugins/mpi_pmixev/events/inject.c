/*
 * events/inject.c - events into the local PMIx server, and their counts.
 */
#include "config.h"

#include "events/inject.h"

#include <stdlib.h>
#include <time.h>

#include <pmix.h>

#include "pmixev_evloss.h"
#include "pmixev_log.h"

struct inject {
	struct pmixev_evloss *loss;
	unsigned slots;	     /* PMIxevEventCache, or fewer for the bytes */
	unsigned cache, mib; /* PMIxevEventCache, PMIxevEventCacheMax */
	uint64_t evicted;    /* all sources */
};

struct inject *inject_create(const struct step *s)
{
	unsigned slots = pmixev_conf_event_slots(&s->conf);
	struct inject *c = calloc(1, sizeof(*c));

	if (!c || !(c->loss = pmixev_evloss_create(slots))) {
		free(c);
		return NULL;
	}
	c->slots = slots;
	c->cache = s->conf.event_cache;
	c->mib = s->conf.event_cache_mib;
	return c;
}

/* 1, 2, 4, 8, ...: log a growing count without flooding the log. */
static int worth_logging(uint64_t n)
{
	return n && !(n & (n - 1));
}

void inject_cached(struct inject *c, const char *source)
{
	const char *from = NULL;

	if (!pmixev_evloss_cached(c->loss, source, (uint64_t)time(NULL),
				  &from) ||
	    !worth_logging(++c->evicted))
		return;
	if (c->slots == c->cache)
		PMIXEV_ERROR("events: the event cache is full "
			     "(PMIxevEventCache=%u): %llu event(s) evicted so "
			     "far, the last one from %s; processes registering "
			     "later will miss them",
			     c->slots, (unsigned long long)c->evicted, from);
	else
		PMIXEV_ERROR("events: the event cache is full (%u events, "
			     "what PMIxevEventCacheMax=%u MiB holds of the "
			     "largest): %llu event(s) evicted so far, the last "
			     "one from %s; processes registering later will "
			     "miss them",
			     c->slots, c->mib, (unsigned long long)c->evicted,
			     from);
}

void inject_undelivered(struct inject *c, const char *source, const char *why)
{
	uint64_t n = pmixev_evloss_undelivered(c->loss, source);

	if (worth_logging(n))
		PMIXEV_ERROR("events: an event from %s did not reach all "
			     "its processes: %s (%llu from %s so far)",
			     source, why, (unsigned long long)n, source);
}

/* Infos handed to PMIx, freed when it is done with them. */
struct injected {
	pmix_info_t *info;
	size_t nalloc;
};

static void injected_done(pmix_status_t status, void *cbdata)
{
	struct injected *d = cbdata;

	PMIX_INFO_FREE(d->info, d->nalloc);
	free(d);
}

void inject_event(struct inject *c, const char *counted_as, pmix_status_t code,
		  const pmix_proc_t *source, pmix_data_range_t range,
		  pmix_info_t *info, size_t nalloc, size_t ninfo)
{
	struct injected *d = calloc(1, sizeof(*d));
	pmix_status_t rc;

	if (!d) {
		if (info)
			PMIX_INFO_FREE(info, nalloc);
		inject_undelivered(c, counted_as, "out of memory");
		return;
	}
	d->info = info;
	d->nalloc = nalloc;
	rc = PMIx_Notify_event(code, source, range, info, ninfo, injected_done,
			       d);
	if (rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED) {
		if (rc == PMIX_OPERATION_SUCCEEDED)
			injected_done(rc, d);
		inject_cached(c, counted_as);
		return;
	}
	inject_undelivered(c, counted_as, PMIx_Error_string(rc));
	injected_done(rc, d);
}

static void load_counts(pmix_info_t *info, const char *source,
			const struct pmixev_evloss_counts *n)
{
	pmix_data_array_t da = {.type = PMIX_INFO, .size = 3};
	pmix_info_t v[3];

	PMIX_INFO_LOAD(&v[0], "cached", &n->cached, PMIX_UINT64);
	PMIX_INFO_LOAD(&v[1], "evicted", &n->evicted, PMIX_UINT64);
	PMIX_INFO_LOAD(&v[2], "undelivered", &n->undelivered, PMIX_UINT64);
	da.array = v;
	PMIX_INFO_LOAD(info, source, &da, PMIX_DATA_ARRAY);
}

pmix_status_t inject_report(const struct inject *c, pmix_info_t *info)
{
	size_t n = pmixev_evloss_nsources(c->loss);
	pmix_data_array_t *da;
	pmix_info_t *per;

	PMIX_DATA_ARRAY_CREATE(da, n, PMIX_INFO);
	if (!da)
		return PMIX_ERR_NOMEM;
	per = da->array;
	for (size_t i = 0; i < n; i++) {
		struct pmixev_evloss_counts counts;
		const char *source = pmixev_evloss_source(c->loss, i, &counts);

		load_counts(&per[i], source, &counts);
	}
	PMIX_INFO_LOAD(info, PMIXEV_QUERY_EVENTS, da, PMIX_DATA_ARRAY);
	PMIX_DATA_ARRAY_FREE(da);
	return PMIX_SUCCESS;
}

void inject_destroy(struct inject *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < pmixev_evloss_nsources(c->loss); i++) {
		struct pmixev_evloss_counts n;
		const char *source = pmixev_evloss_source(c->loss, i, &n);

		if (n.evicted || n.undelivered)
			PMIXEV_INFO("events from %s: %llu cached, %llu "
				    "evicted from the full cache, %llu "
				    "undelivered",
				    source, (unsigned long long)n.cached,
				    (unsigned long long)n.evicted,
				    (unsigned long long)n.undelivered);
	}
	pmixev_evloss_destroy(c->loss);
	free(c);
}
