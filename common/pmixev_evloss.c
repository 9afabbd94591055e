/*
 * pmixev_evloss.c - the cache mirror and the per-source counters.
 */
#include "config.h"

#include "pmixev_evloss.h"

#include <stdlib.h>
#include <string.h>

struct source {
	char *name;
	struct pmixev_evloss_counts counts;
};

struct slot {
	uint32_t source; /* index into sources */
	uint64_t when;	 /* seconds */
};

struct pmixev_evloss {
	struct source *sources;
	size_t nsources, cap;
	size_t last; /* index of the last source looked up */
	struct slot *ring;
	unsigned slots, head, used; /* head: oldest occupied slot */
};

struct pmixev_evloss *pmixev_evloss_create(unsigned slots)
{
	struct pmixev_evloss *l = calloc(1, sizeof(*l));

	if (!l || !slots || !(l->ring = calloc(slots, sizeof(*l->ring)))) {
		free(l);
		return NULL;
	}
	l->slots = slots;
	return l;
}

void pmixev_evloss_destroy(struct pmixev_evloss *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nsources; i++)
		free(l->sources[i].name);
	free(l->sources);
	free(l->ring);
	free(l);
}

/* Index of `name`, added if new; SIZE_MAX when out of memory. Events come
 * in runs from one source, so the last one found is tried first. */
static size_t find(struct pmixev_evloss *l, const char *name)
{
	size_t i;

	if (l->last < l->nsources && !strcmp(l->sources[l->last].name, name))
		return l->last;
	for (i = 0; i < l->nsources; i++)
		if (!strcmp(l->sources[i].name, name))
			return l->last = i;
	if (l->nsources == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct source *s = realloc(l->sources, cap * sizeof(*s));

		if (!s)
			return SIZE_MAX;
		l->sources = s;
		l->cap = cap;
	}
	l->sources[i] = (struct source){.name = strdup(name)};
	if (!l->sources[i].name)
		return SIZE_MAX;
	l->nsources++;
	return l->last = i;
}

bool pmixev_evloss_cached(struct pmixev_evloss *l, const char *source,
			  uint64_t now, const char **evicted_from)
{
	size_t i = find(l, source);
	bool evicted = false;

	if (i == SIZE_MAX)
		return false;
	l->sources[i].counts.cached++;
	while (l->used &&
	       l->ring[l->head].when + PMIXEV_EVLOSS_LIFETIME_SEC <= now) {
		l->head = (l->head + 1) % l->slots;
		l->used--;
	}
	if (l->used == l->slots) {
		struct source *old = &l->sources[l->ring[l->head].source];

		old->counts.evicted++;
		*evicted_from = old->name;
		evicted = true;
		l->head = (l->head + 1) % l->slots;
		l->used--;
	}
	l->ring[(l->head + l->used) % l->slots] =
		(struct slot){.source = (uint32_t)i, .when = now};
	l->used++;
	return evicted;
}

uint64_t pmixev_evloss_undelivered(struct pmixev_evloss *l, const char *source)
{
	size_t i = find(l, source);

	return i == SIZE_MAX ? 0 : ++l->sources[i].counts.undelivered;
}

size_t pmixev_evloss_nsources(const struct pmixev_evloss *l)
{
	return l->nsources;
}

const char *pmixev_evloss_source(const struct pmixev_evloss *l, size_t i,
				 struct pmixev_evloss_counts *counts)
{
	*counts = l->sources[i].counts;
	return l->sources[i].name;
}
