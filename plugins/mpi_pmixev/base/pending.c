/*
 * base/pending.c - sets of requests with a deadline (see pending.h).
 * Agent thread only.
 */
#include "config.h"

#include "base/pending.h"

#include <stdlib.h>

struct pending {
	struct pending_set *set;
	void *req;
	uint64_t id;
	uint32_t node;
	struct event *timer;
	struct pending *next;
};

struct pending_set {
	struct event_base *base;
	pending_fail_fn fail;
	pending_waits_fn waits;
	uint64_t next_id;
	struct pending *head; /* most recent first */
};

struct pending_set *pending_set_create(struct event_base *base,
				       pending_fail_fn fail,
				       pending_waits_fn waits)
{
	struct pending_set *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->base = base;
	s->fail = fail;
	s->waits = waits;
	return s;
}

static void pending_free(struct pending *p)
{
	if (p->timer)
		event_free(p->timer);
	free(p);
}

void pending_set_destroy(struct pending_set *s, void (*release)(void *req))
{
	if (!s)
		return;
	while (s->head) {
		struct pending *p = s->head;

		s->head = p->next;
		if (release)
			release(p->req);
		pending_free(p);
	}
	free(s);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct pending *p = arg;

	p->set->fail(p->req, PMIXEV_ERR_TIMEOUT, PENDING_NO_NODE);
}

struct pending *pending_add(struct pending_set *s, void *req, uint32_t node,
			    unsigned timeout_sec)
{
	return pending_add_ms(s, req, node, (uint64_t)timeout_sec * 1000);
}

struct pending *pending_add_ms(struct pending_set *s, void *req, uint32_t node,
			       uint64_t timeout_ms)
{
	struct timeval tv = {(time_t)(timeout_ms / 1000),
			     (suseconds_t)(timeout_ms % 1000) * 1000};
	struct pending *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->timer = evtimer_new(s->base, on_deadline, p);
	if (!p->timer || evtimer_add(p->timer, &tv) < 0) {
		pending_free(p);
		return NULL;
	}
	p->set = s;
	p->req = req;
	p->id = ++s->next_id;
	p->node = node;
	p->next = s->head;
	s->head = p;
	return p;
}

uint64_t pending_id(const struct pending *p)
{
	return p->id;
}

void pending_end(struct pending *p)
{
	struct pending **pp;

	if (!p)
		return;
	for (pp = &p->set->head; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	pending_free(p);
}

void *pending_get(const struct pending_set *s, uint64_t id, uint32_t node)
{
	for (struct pending *p = s->head; p; p = p->next)
		if (p->id == id && p->node == node)
			return p->req;
	return NULL;
}

void *pending_find(const struct pending_set *s,
		   bool (*match)(void *req, const void *key), const void *key)
{
	for (struct pending *p = s->head; p; p = p->next)
		if (match(p->req, key))
			return p->req;
	return NULL;
}

void pending_each(struct pending_set *s, void (*fn)(void *req, void *ctx),
		  void *ctx)
{
	struct pending *p, *next;

	for (p = s->head; p; p = next) {
		next = p->next;
		fn(p->req, ctx);
	}
}

void pending_lost(struct pending_set *s, uint32_t node)
{
	struct pending *p, *next;

	for (p = s->head; p; p = next) {
		next = p->next;
		if (s->waits ? s->waits(p->req, node) : p->node == node)
			s->fail(p->req, PMIXEV_ERR_UNREACH, node);
	}
}
