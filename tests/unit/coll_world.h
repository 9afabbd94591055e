/*
 * coll_world.h - the world test_coll.c and test_coll_later.c run the
 * collective engine in: a few engines in one process joined by a stub
 * overlay (a fixed tree, messages queued and pumped by hand), with real
 * pending sets on a libevent base, and a test kind whose hooks record
 * what they saw. Header-only (static): each test is a single translation
 * unit.
 */
#ifndef PMIXEV_TEST_COLL_WORLD_H_
#define PMIXEV_TEST_COLL_WORLD_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>

#include "base/agent.h"
#include "base/step.h"
#include "overlay/overlay.h"
#include "pmixev_log.h"
#include "pmixev_tree.h"
#include "wireup/coll.h"

#define NNODES 3
#define NTASKS 6 /* ranks 2n and 2n+1 on node n */

struct msg {
	uint32_t src, dst;
	uint8_t type;
	uint8_t *data;
	size_t len;
	struct msg *next;
};

struct overlay {
	uint32_t self;
	struct {
		overlay_handler_t fn;
		void *ctx;
	} on[256];
};

/* One node's answer, as its kind's deliver got it. */
struct answer {
	int n; /* deliver calls */
	uint32_t node;
	enum pmixev_result result;
	char data[64];
};

static struct {
	struct event_base *base;
	struct pmixev_tree tree;
	struct overlay ov[NNODES];
	struct step step[NNODES];
	struct coll *coll[NNODES];
	struct msg *head, **tail;
	int at_root;		     /* at_root calls */
	char root_in[64];	     /* the data it got */
	enum pmixev_result verdict;  /* what it returns */
	int errors;		     /* PMIXEV_ERROR lines */
	int root_failed;	     /* root_failed calls */
	enum pmixev_result root_why; /* ... the last one's result */
	bool left[NNODES];	     /* leaves that left the tree */
} w;

/* The stub overlay: node 0 is the root of a chain (width 1). */

uint32_t overlay_self(const struct overlay *ov)
{
	return ov->self;
}

uint32_t overlay_parent(const struct overlay *ov)
{
	return pmixev_tree_parent(&w.tree, ov->self);
}

size_t overlay_children(const struct overlay *ov, uint32_t *out)
{
	uint32_t n = pmixev_tree_nchildren(&w.tree, ov->self), k = 0;

	for (uint32_t i = 0; i < n; i++)
		if (!w.left[pmixev_tree_child(&w.tree, ov->self, i)])
			out[k++] = pmixev_tree_child(&w.tree, ov->self, i);
	return k;
}

bool overlay_in_subtree(const struct overlay *ov, uint32_t id, uint32_t d)
{
	return pmixev_tree_in_subtree(&w.tree, id, d);
}

bool overlay_is_child(const struct overlay *ov, uint32_t node)
{
	return node < NNODES && overlay_parent(&w.ov[node]) == ov->self;
}

void overlay_on(struct overlay *ov, uint8_t type, overlay_handler_t fn,
		void *ctx)
{
	ov->on[type].fn = fn;
	ov->on[type].ctx = ctx;
}

int overlay_send(struct overlay *ov, uint32_t dst, uint8_t type,
		 const void *data, size_t len)
{
	struct msg *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	assert_non_null(m->data = malloc(len ? len : 1));
	memcpy(m->data, data, len);
	m->src = ov->self;
	m->dst = dst;
	m->type = type;
	m->len = len;
	*w.tail = m;
	w.tail = &m->next;
	return 0;
}

unsigned overlay_broadcast(struct overlay *ov, uint8_t type, const void *data,
			   size_t len)
{
	for (uint32_t n = 0; n < NNODES; n++)
		if (n != ov->self)
			overlay_send(ov, n, type, data, len);
	return NNODES - 1;
}

struct event_base *agent_base(struct agent *a)
{
	return w.base;
}

void pmixev_log(enum pmixev_log_level level, const char *fmt, ...)
{
	w.errors += level == PMIXEV_LOG_ERROR;
}

void pmixev_log_debug(unsigned dbg, const char *fmt, ...)
{
}

/* Deliver every queued message, and those they cause. */
static void pump(void)
{
	struct msg *m;

	while ((m = w.head)) {
		struct overlay *dst = &w.ov[m->dst];

		if (!(w.head = m->next))
			w.tail = &w.head;
		if (dst->on[m->type].fn)
			dst->on[m->type].fn(dst->on[m->type].ctx, m->src,
					    m->data, m->len);
		free(m->data);
		free(m);
	}
}

/* The test kind: the root's result is "R:" and what it gathered. */
static enum pmixev_result at_root(void *ctx, const struct coll_id *id,
				  struct pmixev_buf *data)
{
	w.at_root++;
	snprintf(w.root_in, sizeof(w.root_in), "%.*s", (int)data->len,
		 data->data ? (const char *)data->data : "");
	if (w.verdict != PMIXEV_OK)
		return w.verdict;
	pmixev_buf_release(data);
	pmixev_buf_init(data);
	pmixev_buf_put_raw(data, "R:", 2);
	pmixev_buf_put_raw(data, w.root_in, strlen(w.root_in));
	return PMIXEV_OK;
}

static void deliver(void *ctx, const struct coll_id *id,
		    enum pmixev_result result, const uint8_t *data,
		    size_t ndata, void *call)
{
	struct answer *a = call;

	assert_true(id->kind == PMIXEV_COLL_FENCE ||
		    id->kind == PMIXEV_COLL_CONNECT);
	a->n++;
	a->result = result;
	snprintf(a->data, sizeof(a->data), "%.*s", (int)ndata,
		 data ? (const char *)data : "");
}

static void root_failed(void *ctx, const struct coll_id *id,
			enum pmixev_result result)
{
	w.root_failed++;
	w.root_why = result;
}

static const struct coll_kind kind = {
	.at_root = at_root, .root_failed = root_failed, .deliver = deliver};

/* `*state` non-NULL: PMIxevTimeout 0, every collective times out at once. */
static int setup(void **state)
{
	char err[128];
	bool quick = *state != NULL;

	memset(&w, 0, sizeof(w));
	w.tail = &w.head;
	w.tree = (struct pmixev_tree){.n = NNODES, .width = 1};
	if (!(w.base = event_base_new()))
		return -1;
	for (uint32_t n = 0; n < NNODES; n++) {
		struct step *s = &w.step[n];

		w.ov[n].self = n;
		s->ov = &w.ov[n];
		s->lay.step.job_id = 7;
		s->lay.step.nnodes = NNODES;
		s->lay.step.ntasks = NTASKS;
		s->lay.nodeid = n;
		s->conf.timeout_sec = quick ? 0 : 60;
		s->conf.fence_max = 2;
		s->conf.overlay_mib = 1;
		if (pmixev_taskmap_parse(&s->lay.map, "0-1;2-3;4-5", NNODES,
					 NTASKS, err, sizeof(err)) < 0 ||
		    !(w.coll[n] = coll_create(s)) ||
		    coll_kind_set(w.coll[n], PMIXEV_COLL_FENCE, &kind, NULL) <
			    0)
			return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	pump();
	for (uint32_t n = 0; n < NNODES; n++) {
		coll_destroy(w.coll[n]);
		pmixev_taskmap_free(&w.step[n].lay.map);
	}
	event_base_free(w.base);
	return 0;
}

static void local(uint32_t n, const char *sig, const char *data,
		  struct answer *a)
{
	a->node = n;
	coll_local(w.coll[n], PMIXEV_COLL_FENCE, sig, true, 0,
		   (const uint8_t *)data, strlen(data), a);
}

#endif /* PMIXEV_TEST_COLL_WORLD_H_ */
