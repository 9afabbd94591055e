/*
 * events/inject.c - events to the pmix side, and what could not go (see
 * inject.h).
 */
#include "config.h"

#include "events/inject.h"

#include <errno.h>
#include <stdlib.h>

#include "pmixd/chan.h"
#include "pmixev_evloss.h"
#include "pmixev_log.h"

struct inject {
	const struct step *s;
	struct chan *chan;
	struct pmixev_evloss *loss; /* only undelivered counts here */
};

struct inject *inject_create(const struct step *s)
{
	struct inject *c = calloc(1, sizeof(*c));

	if (!c || !(c->loss = pmixev_evloss_create(1))) {
		free(c);
		return NULL;
	}
	c->s = s;
	c->chan = s->chan;
	return c;
}

void inject_undelivered(struct inject *c, const char *source, const char *why)
{
	uint64_t n = pmixev_evloss_undelivered(c->loss, source);

	if (pmixev_log_worth(n))
		PMIXEV_ERROR("events: an event from %s did not reach all "
			     "its processes: %s (%llu from %s so far)",
			     source, why, (unsigned long long)n, source);
}

void inject_send(struct inject *c, const struct pmixev_pmixd_inject *m,
		 const char *counted_as)
{
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if (pmixev_pmixd_inject_pack(&b, m) < 0) {
		pmixev_buf_release(&b);
		inject_undelivered(c, counted_as, "it cannot be framed");
		return;
	}
	if (chan_send_bounded(c->chan, PMIXEV_PMIXD_INJECT, &b) == 0)
		return;
	if (errno == ENOBUFS && chan_is_open(c->chan))
		inject_undelivered(c, counted_as,
				   "the PMIx server process reads too slowly "
				   "(PMIxevOverlayMax waits for it)");
	else if (chan_is_open(c->chan))
		inject_undelivered(c, counted_as, "out of memory");
	else if (!c->s->tasks_ended)
		inject_undelivered(c, counted_as, "the pmix side is gone");
	else /* no process here is left to tell */
		PMIXEV_DEBUG(2,
			     "events: one from %s after this node's tasks "
			     "ended: not delivered",
			     counted_as);
}

void inject_destroy(struct inject *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < pmixev_evloss_nsources(c->loss); i++) {
		struct pmixev_evloss_counts n;
		const char *source = pmixev_evloss_source(c->loss, i, &n);

		PMIXEV_INFO("events from %s: %llu not handed to this node's "
			    "PMIx server",
			    source, (unsigned long long)n.undelivered);
	}
	pmixev_evloss_destroy(c->loss);
	free(c);
}
