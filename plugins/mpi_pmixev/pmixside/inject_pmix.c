/*
 * pmixside/inject_pmix.c - events into the local PMIx server, and their
 * counts (see inject_pmix.h).
 */
#include "config.h"

#include "pmixside/inject_pmix.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <pmix.h>

#include "pmixbase/infos.h"
#include "pmixbase/wire.h"
#include "pmixev_evloss.h"
#include "pmixev_log.h"
#include "pmixside/event_infos.h"
#include "pmixside/invite_watch.h"
#include "pmixside/xlinks.h"
#include "pmixev_pmixd_spawn.h"

/* Most infos a relayed client event may carry (as notify_pmix.c sends). */
#define RELAY_INFO_MAX 4096

struct inject_pmix {
	pthread_mutex_t lock; /* loss, evicted */
	const struct layout *lay;
	struct pmixev_evloss *loss;
	unsigned slots;	     /* PMIxevEventCache, or fewer for the bytes */
	unsigned cache, mib; /* PMIxevEventCache, PMIxevEventCacheMax */
	uint64_t evicted;    /* all sources */
	void (*rank_end)(void *ctx, uint32_t rank);
	void *rank_end_ctx;
	struct invite_watch *invites;
	struct xlinks *links;
};

void inject_pmix_cached(struct inject_pmix *c, const char *source)
{
	const char *from = NULL;
	char last[PMIX_MAX_NSLEN + 32];
	uint64_t evicted;
	bool out;

	pthread_mutex_lock(&c->lock);
	out = pmixev_evloss_cached(c->loss, source, (uint64_t)time(NULL),
				   &from);
	evicted = out ? ++c->evicted : 0;
	if (out)
		snprintf(last, sizeof(last), "%s", from);
	pthread_mutex_unlock(&c->lock);
	if (!pmixev_log_worth(evicted))
		return;
	if (c->slots == c->cache)
		PMIXEV_ERROR("events: the event cache is full "
			     "(PMIxevEventCache=%u): %llu event(s) evicted so "
			     "far, the last one from %s; processes registering "
			     "later will miss them",
			     c->slots, (unsigned long long)evicted, last);
	else
		PMIXEV_ERROR("events: the event cache is full (%u events, "
			     "what PMIxevEventCacheMax=%u MiB holds of the "
			     "largest): %llu event(s) evicted so far, the last "
			     "one from %s; processes registering later will "
			     "miss them",
			     c->slots, c->mib, (unsigned long long)evicted,
			     last);
}

void inject_pmix_undelivered(struct inject_pmix *c, const char *source,
			     const char *why)
{
	uint64_t n;

	pthread_mutex_lock(&c->lock);
	n = pmixev_evloss_undelivered(c->loss, source);
	pthread_mutex_unlock(&c->lock);
	if (pmixev_log_worth(n))
		PMIXEV_ERROR("events: an event from %s did not reach all "
			     "its processes: %s (%llu from %s so far)",
			     source, why, (unsigned long long)n, source);
}

/*
 * Notify this node's clients of `code` from `source` over `range`, with the
 * first `ninfo` of the `nalloc` infos allocated at `info` (taken over:
 * freed when PMIx is done with them). Counted under `counted_as` (as
 * cached unless `uncached`).
 */
static void inject(struct inject_pmix *c, const char *counted_as,
		   pmix_status_t code, const pmix_proc_t *source,
		   pmix_data_range_t range, pmix_info_t *info, size_t nalloc,
		   size_t ninfo, bool uncached)
{
	struct infos *d = info ? infos_take(info, nalloc, ninfo) : NULL;
	pmix_status_t rc;

	if (info && !d) {
		inject_pmix_undelivered(c, counted_as, "out of memory");
		return;
	}
	rc = PMIx_Notify_event(code, source, range, info, ninfo, infos_done, d);
	if (rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED) {
		if (rc == PMIX_OPERATION_SUCCEEDED)
			infos_release(d);
		if (!uncached)
			inject_pmix_cached(c, counted_as);
		return;
	}
	inject_pmix_undelivered(c, counted_as, PMIx_Error_string(rc));
	infos_release(d);
}

void inject_pmix_event(struct inject_pmix *c, const char *source_name,
		       pmix_status_t code, const pmix_proc_t *source,
		       pmix_data_range_t range, pmix_info_t *info,
		       size_t nalloc, size_t ninfo)
{
	inject(c, source_name, code, source, range, info, nalloc, ninfo, false);
}

void inject_pmix_on_rank_end(struct inject_pmix *c,
			     void (*fn)(void *ctx, uint32_t rank), void *ctx)
{
	c->rank_end = fn;
	c->rank_end_ctx = ctx;
}

void inject_pmix_set_links(struct inject_pmix *c, struct xlinks *x)
{
	c->links = x;
}

/* A client's event relayed from node `origin`: counted under "rank@R" for
 * the step's processes, "NSPACE:R" for tools. */
static void inject_relayed(struct inject_pmix *c, uint32_t origin,
			   const struct pmixev_notify_msg *m)
{
	const struct layout *lay = c->lay;
	char name[PMIX_MAX_NSLEN + 16];
	pmix_info_t *info = NULL;
	size_t ninfo = 0;
	pmix_proc_t source;

	PMIX_LOAD_PROCID(&source, m->nspace, m->rank);
	if (PMIX_CHECK_NSPACE(source.nspace, lay->nspace))
		snprintf(name, sizeof(name), "rank@%u", source.rank);
	else
		snprintf(name, sizeof(name), "%s:%u", source.nspace,
			 source.rank);
	if (m->range > PMIX_RANGE_PROC_LOCAL ||
	    wire_unpack_infos(m->info, m->ninfo, RELAY_INFO_MAX, &info,
			      &ninfo) != PMIX_SUCCESS) {
		snprintf(name, sizeof(name), "stepd@%s",
			 origin < lay->step.nnodes ? lay->nodes[origin] : "?");
		inject_pmix_undelivered(c, name,
					"malformed client event frame");
		if (info)
			PMIX_INFO_FREE(info, ninfo);
		return;
	}
	invite_watch_event(c->invites, m->code, &source, info, ninfo);
	inject(c, name, m->code, &source, m->range, info, ninfo, ninfo, false);
}

/* Agent thread: event `ev` (built, or why not) into the server. */
static void inject_built(struct inject_pmix *c, int rc, struct event_infos *ev,
			 const char *why)
{
	if (rc < 0) {
		inject_pmix_undelivered(c, ev->counted_as, why);
		return;
	}
	inject(c, ev->counted_as, ev->code, &ev->source, ev->range, ev->info,
	       EVENT_INFOS_MAX, ev->ninfo, ev->uncached);
}

/*
 * Agent thread: a rank of family step m->child ended: one event for the
 * spawner (m->to_rank, on its node) and this node's ranks connected to
 * that step. The end of the whole step goes to the spawner only. Nobody
 * here to tell: no event.
 */
static void inject_child(struct inject_pmix *c,
			 const struct pmixev_pmixd_inject *m)
{
	uint32_t job = 0, step = 0, to[XLINKS_TOLD + 1];
	struct event_infos ev;
	const char *why = "";
	size_t n = 0, linked = 0;
	int rc;

	if (m->to_rank != PMIXEV_PMIXD_NO_RANK)
		to[n++] = m->to_rank;
	if (m->ev.code != PMIX_EVENT_JOB_END && c->links &&
	    pmixev_pmixd_step_nspace(m->child, &job, &step))
		linked = xlinks_ranks(c->links, job, step, to + n, XLINKS_TOLD);
	for (size_t i = n, end = n + linked, spawner = n; i < end; i++)
		if (!spawner || to[i] != to[0])
			to[n++] = to[i];
	if (!n)
		return;
	rc = event_infos_build_child(c->lay, m, to, n, &ev, &why);
	inject_built(c, rc, &ev, why);
}

/* Agent thread: an event from root for this node's clients. */
static int on_inject(void *ctx, struct pmixev_buf *body)
{
	struct inject_pmix *c = ctx;
	struct pmixev_pmixd_inject m;
	struct event_infos ev;
	const char *why = "";

	if (pmixev_pmixd_inject_unpack(body, &m) < 0)
		return -1;
	if (m.kind == PMIXEV_PMIXD_INJECT_NOTIFY) {
		inject_relayed(c, m.origin, &m.nt);
		return 0;
	}
	if (m.kind == PMIXEV_PMIXD_INJECT_CHILD) {
		inject_child(c, &m);
		return 0;
	}
	inject_built(c, event_infos_build(c->lay, &m, &ev, &why), &ev, why);
	/* A task's end: only those carry a rank. */
	if (m.kind == PMIXEV_PMIXD_INJECT_EVENT &&
	    m.ev.rank != PMIXEV_EVENT_NO_RANK) {
		invite_watch_ended(c->invites, m.ev.rank);
		if (c->rank_end)
			c->rank_end(c->rank_end_ctx, m.ev.rank);
	}
	return 0;
}

struct inject_pmix *inject_pmix_create(const struct layout *lay,
				       const struct pmixev_conf *conf,
				       struct chan *l)
{
	unsigned slots = pmixev_conf_event_slots(conf);
	struct inject_pmix *c = calloc(1, sizeof(*c));

	if (!c || !(c->loss = pmixev_evloss_create(slots)) ||
	    !(c->invites = invite_watch_create(lay))) {
		if (c)
			pmixev_evloss_destroy(c->loss);
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	c->lay = lay;
	c->slots = slots;
	c->cache = conf->event_cache;
	c->mib = conf->event_cache_mib;
	chan_on(l, PMIXEV_PMIXD_INJECT, on_inject, c);
	return c;
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

pmix_status_t inject_pmix_report(struct inject_pmix *c, pmix_info_t *info)
{
	pmix_data_array_t *da;
	pmix_info_t *per;
	size_t n;

	pthread_mutex_lock(&c->lock);
	n = pmixev_evloss_nsources(c->loss);
	PMIX_DATA_ARRAY_CREATE(da, n, PMIX_INFO);
	if (!da) {
		pthread_mutex_unlock(&c->lock);
		return PMIX_ERR_NOMEM;
	}
	per = da->array;
	for (size_t i = 0; i < n; i++) {
		struct pmixev_evloss_counts counts;
		const char *source = pmixev_evloss_source(c->loss, i, &counts);

		load_counts(&per[i], source, &counts);
	}
	pthread_mutex_unlock(&c->lock);
	PMIX_INFO_LOAD(info, PMIXEV_QUERY_EVENTS, da, PMIX_DATA_ARRAY);
	PMIX_DATA_ARRAY_FREE(da);
	return PMIX_SUCCESS;
}

struct invite_watch *inject_pmix_invites(struct inject_pmix *c)
{
	return c->invites;
}

void inject_pmix_destroy(struct inject_pmix *c)
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
	invite_watch_destroy(c->invites);
	pmixev_evloss_destroy(c->loss);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
