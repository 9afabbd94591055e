/*
 * wireup/pubsub.c - PUBSUB frames into the step's directory (see
 * pubsub.h).
 */
#include "config.h"

#include "wireup/pubsub.h"

#include <stdlib.h>
#include <string.h>

#include "pmixd/carry.h"
#include "pmixd/chan.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_coll.h"
#include "wireup/pubsub_dir.h"

/* A request of the pmix side, until the directory answers. */
struct ps_frame_call {
	struct chan *chan;
	struct pmixev_pmixd_budget *budget;
	uint64_t id;
};

static void send_done(struct chan *l, const struct pmixev_pmixd_pubsub_done *m)
{
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if ((pmixev_pmixd_pubsub_done_pack(&b, m) < 0 ||
	     chan_send(l, PMIXEV_PMIXD_PUBSUB_DONE, &b) < 0) &&
	    chan_is_open(l)) {
		struct pmixev_pmixd_pubsub_done nomem = {
			.id = m->id, .result = PMIXEV_ERR_NOMEM};

		pmixev_buf_release(&b);
		chan_frame_begin(&b);
		if (pmixev_pmixd_pubsub_done_pack(&b, &nomem) < 0 ||
		    chan_send(l, PMIXEV_PMIXD_PUBSUB_DONE, &b) < 0)
			PMIXEV_ERROR("publish/lookup: cannot answer the pmix "
				     "side's call %llu (out of memory)",
				     (unsigned long long)m->id);
	}
	pmixev_buf_release(&b);
}

/* The directory answered (entries only for a lookup). */
static void answer(enum pmixev_result result, const struct pubsub_entry *e,
		   size_t n, void *arg)
{
	struct ps_frame_call *c = arg;
	struct pmixev_pmixd_pubsub_done m = {.id = c->id, .result = result};

	if (result == PMIXEV_OK && n && !(m.e = calloc(n, sizeof(*m.e)))) {
		m.result = PMIXEV_ERR_NOMEM;
		n = 0;
	}
	for (size_t i = 0; m.e && i < n; i++) {
		snprintf(m.e[i].key, sizeof(m.e[i].key), "%s", e[i].key);
		m.e[i].job = e[i].job;
		m.e[i].step = e[i].step;
		m.e[i].rank = e[i].rank;
		m.e[i].value = e[i].value;
		m.e[i].nvalue = e[i].nvalue;
	}
	m.n = m.e ? (uint32_t)n : 0;
	send_done(c->chan, &m);
	pmixev_pmixd_budget_give(c->budget, PMIXEV_PMIXD_PUBSUB);
	free(m.e);
	free(c);
}

static enum pubsub_op dir_op(enum pmixev_pmixd_pubsub_op op)
{
	switch (op) {
	case PMIXEV_PMIXD_PUBLISH:
		return PUBSUB_PUBLISH;
	case PMIXEV_PMIXD_LOOKUP:
		return PUBSUB_LOOKUP;
	default:
		return PUBSUB_UNPUBLISH;
	}
}

static int on_pubsub(void *ctx, struct pmixev_buf *body)
{
	struct step *s = ctx;
	struct pmixev_pmixd_pubsub m;
	struct pubsub_entry *e = NULL;
	struct pubsub_how how;
	struct ps_frame_call *c;

	if (pmixev_pmixd_pubsub_unpack(body, &s->pmixd_lim, &m) < 0)
		return -1;
	if (!carry_take(&s->pmixd_budget, PMIXEV_PMIXD_PUBSUB)) {
		struct pmixev_pmixd_pubsub_done over = {
			.id = m.id, .result = PMIXEV_ERR_OVER_BUDGET};

		send_done(s->chan, &over);
		goto out;
	}
	e = calloc(m.n, sizeof(*e));
	c = malloc(sizeof(*c));
	if (!e || !c) {
		struct pmixev_pmixd_pubsub_done nomem = {
			.id = m.id, .result = PMIXEV_ERR_NOMEM};

		pmixev_pmixd_budget_give(&s->pmixd_budget, PMIXEV_PMIXD_PUBSUB);
		send_done(s->chan, &nomem);
		free(c);
		goto out;
	}
	for (uint32_t i = 0; i < m.n; i++) {
		snprintf(e[i].key, sizeof(e[i].key), "%s", m.e[i].key);
		e[i].rank = m.rank;
		e[i].value = (uint8_t *)m.e[i].value; /* copied by the dir */
		e[i].nvalue = m.e[i].nvalue;
	}
	c->chan = s->chan;
	c->budget = &s->pmixd_budget;
	c->id = m.id;
	how.wait = m.wait;
	how.timeout_sec = m.timeout_sec;
	how.range = m.range;
	how.persist = m.persist;
	pubsub_request(s->pubsub, dir_op(m.op), m.rank, &how, e, m.n, answer,
		       c);
out:
	free(e);
	pmixev_pmixd_entries_release(&m.e, &m.n);
	return 0;
}

void pubsub_frames_listen(struct step *s)
{
	chan_on(s->chan, PMIXEV_PMIXD_PUBSUB, on_pubsub, s);
}
