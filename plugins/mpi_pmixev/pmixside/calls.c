/*
 * pmixside/calls.c - the pmix side's requests waiting for root (see
 * calls.h): a list, the oldest first; root answers mostly in order, so a
 * lookup rarely walks far. `lock` guards the list: calls are sent from
 * the PMIx progress thread and answered on the owner's.
 */
#include "config.h"

#include "pmixside/calls.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmixev_pmixd_coll.h"

struct calls {
	pthread_mutex_t lock;
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
	/* Which of the two: the call knows. */
	if (!(c = calls_take(cs, m.id, PMIXEV_PMIXD_FENCE_DONE)) &&
	    !(c = calls_take(cs, m.id, PMIXEV_PMIXD_DMODEX_DONE)))
		return -1; /* an id root was never given */
	c->answer(c, m.result, m.data, m.ndata);
	return 0;
}

struct calls *calls_create(struct chan *l)
{
	struct calls *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return NULL;
	pthread_mutex_init(&cs->lock, NULL);
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
	pthread_mutex_destroy(&cs->lock);
	free(cs);
}

uint64_t calls_new_id(struct calls *cs)
{
	return atomic_fetch_add(&cs->last_id, 1) + 1;
}

/* Take the call of `id` off the list. The call, or NULL when gone. */
static struct call *take(struct calls *cs, uint64_t id)
{
	struct call *c;

	pthread_mutex_lock(&cs->lock);
	for (c = cs->tail; c && c->id != id; c = c->prev)
		;
	if (c)
		unlink_call(cs, c);
	pthread_mutex_unlock(&cs->lock);
	return c;
}

struct call *calls_take(struct calls *cs, uint64_t id, uint8_t done_type)
{
	struct call *c;

	pthread_mutex_lock(&cs->lock);
	for (c = cs->head; c && c->id != id; c = c->next)
		;
	if (c && c->done_type == done_type)
		unlink_call(cs, c);
	else
		c = NULL;
	pthread_mutex_unlock(&cs->lock);
	return c;
}

int calls_send(struct calls *cs, struct call *c, uint8_t type,
	       struct pmixev_buf *frame)
{
	uint64_t id = c->id;

	pthread_mutex_lock(&cs->lock);
	c->prev = cs->tail;
	c->next = NULL;
	if (cs->tail)
		cs->tail->next = c;
	else
		cs->head = c;
	cs->tail = c;
	pthread_mutex_unlock(&cs->lock);
	if (chan_send_any(cs->l, type, frame) == 0)
		return 0;
	/* Not sent; unless the channel's close answered it meanwhile. */
	return take(cs, id) ? -1 : 0;
}

enum pmixev_result calls_request(struct calls *cs, struct call *c, uint64_t *id,
				 uint8_t type, call_pack_fn pack,
				 const void *msg, char *why, size_t whylen)
{
	enum pmixev_result rc = PMIXEV_OK;
	struct pmixev_buf frame;

	c->id = *id = calls_new_id(cs);
	pmixev_buf_init(&frame);
	chan_frame_begin(&frame);
	if (pack(&frame, msg) < 0) {
		pmixev_buf_release(&frame);
		snprintf(why, whylen, "out of memory");
		rc = PMIXEV_ERR_NOMEM;
	} else if (calls_send(cs, c, type, &frame) < 0) {
		snprintf(why, whylen, "the channel to root is closed");
		rc = PMIXEV_ERR_UNREACH;
	}
	if (rc != PMIXEV_OK)
		free(c);
	return rc;
}

size_t calls_fail_all(struct calls *cs, enum pmixev_result result)
{
	size_t n = 0;
	struct call *c;

	for (;;) {
		pthread_mutex_lock(&cs->lock);
		if ((c = cs->head))
			unlink_call(cs, c);
		pthread_mutex_unlock(&cs->lock);
		if (!c)
			break;
		c->answer(c, result, NULL, 0);
		n++;
	}
	return n;
}
