/*
 * base/step.c - the served step and its node-loss and rank-end
 * subscribers.
 */
#include "config.h"

#include "base/step.h"

#include "pmixev_log.h"

/* Written by the main thread while no upcall can run (see the header). */
static struct step *served;

int step_on_node_gone(struct step *s, step_gone_fn fn, void *ctx)
{
	if (s->ngone == STEP_MAX_SUBSCRIBERS) {
		PMIXEV_ERROR("step: more than %d parts follow node loss",
			     STEP_MAX_SUBSCRIBERS);
		return -1;
	}
	s->gone[s->ngone].fn = fn;
	s->gone[s->ngone].ctx = ctx;
	s->ngone++;
	return 0;
}

void step_node_gone(struct step *s, uint32_t node, bool lost)
{
	for (unsigned i = 0; i < s->ngone; i++)
		s->gone[i].fn(s->gone[i].ctx, node, lost);
}

int step_on_rank_gone(struct step *s, step_rank_fn fn, void *ctx)
{
	if (s->nrank_gone == STEP_MAX_SUBSCRIBERS) {
		PMIXEV_ERROR("step: more than %d parts follow rank ends",
			     STEP_MAX_SUBSCRIBERS);
		return -1;
	}
	s->rank_gone[s->nrank_gone].fn = fn;
	s->rank_gone[s->nrank_gone].ctx = ctx;
	s->nrank_gone++;
	return 0;
}

void step_rank_gone(struct step *s, uint32_t rank)
{
	for (unsigned i = 0; i < s->nrank_gone; i++)
		s->rank_gone[i].fn(s->rank_gone[i].ctx, rank);
}

void step_serve(struct step *s)
{
	served = s;
}

struct step *step_served(void)
{
	return served;
}
