/*
 * pmixside/calls.c - the pmix side's requests waiting for root (see
 * calls.h): a list, the oldest first; root answers mostly in order, so a
 * lookup rarely walks far.
 */
#include "config.h"

#include "pmixside/calls.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "pmixev_pmixd_coll.h"

struct calls {
	struct chan *l;
	atomic_uint_fast64_t last_id;
	struct call *head, *tail;
};

static void unlink_call(struct calls *cs, struct call *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		cs->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		cs->tail = c->prev;
	c->prev = c->next = NULL;
}

/* FENCE_DONE, DMODEX_DONE: { id, result, data }. */
static int on_done(void *ctx, struct pmixev_buf *body)
{
	struct calls *cs = ctx;
	struct pmixev_pmixd_data m;
	struct call *c;

	if (pmixev_pmixd_data_unpack(body, &m) < 0)
		return -1;
	for (c = cs->head; c && c->id != m.id; c = c->next)
		;
	if (!c)
		return -1; /* an id root was never given */
	unlink_call(cs, c);
	c->answer(c, m.result, m.data, m.ndata);
	return 0;
}

struct calls *calls_create(struct chan *l)
{
	struct calls *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return NULL;
	cs->l = l;
	atomic_init(&cs->last_id, 0);
	chan_on(l, PMIXEV_PMIXD_FENCE_DONE, on_done, cs);
	chan_on(l, PMIXEV_PMIXD_DMODEX_DONE, on_done, cs);
	return cs;
}

void calls_destroy(struct calls *cs)
{
	struct call *c, *next;

	if (!cs)
		return;
	for (c = cs->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(cs);
}

uint64_t calls_new_id(struct calls *cs)
{
	return atomic_fetch_add(&cs->last_id, 1) + 1;
}

void calls_send(struct calls *cs, struct call *c, uint8_t type,
		struct pmixev_buf *frame)
{
	c->prev = cs->tail;
	c->next = NULL;
	if (cs->tail)
		cs->tail->next = c;
	else
		cs->head = c;
	cs->tail = c;
	if (chan_send(cs->l, type, frame) == 0)
		return;
	unlink_call(cs, c);
	c->answer(c, PMIXEV_ERR_UNREACH, NULL, 0);
}

size_t calls_fail_all(struct calls *cs, enum pmixev_result result)
{
	size_t n = 0;
	struct call *c;

	while ((c = cs->head)) {
		unlink_call(cs, c);
		c->answer(c, result, NULL, 0);
		n++;
	}
	return n;
}
