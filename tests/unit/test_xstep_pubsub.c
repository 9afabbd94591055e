/*
 * Unit tests for common/pmixev_xstep.c's PUBSUB_REQ, PUBSUB_RESP and
 * EVENT bodies: round trips, canonical encoding, strictness, each bound
 * and refusal on both sides, and entry counts refused before allocation
 * (calloc wrapped: calloc_spy.h).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "calloc_spy.h"
#include "pmixev_xstep.h"
#include "proto_strict.h"
#include "xstep_test.h"

UNPACKER(un_pubsub, struct pmixev_xstep_pubsub,
	 (pmixev_xstep_pubsub_unpack(&r, BIG, &m) < 0
		  ? -1
		  : (pmixev_xstep_pubsub_release(&m), 0)))
UNPACKER(un_presp, struct pmixev_xstep_pubsub_resp,
	 (pmixev_xstep_pubsub_resp_unpack(&r, BIG, &m) < 0
		  ? -1
		  : (pmixev_xstep_pubsub_resp_release(&m), 0)))
UNPACKER(un_event, struct pmixev_xstep_event,
	 pmixev_xstep_event_unpack(&r, BIG, &m))

static struct pmixev_xstep_entry ents[2] = {
	{.key = "port:connect", .value = (const uint8_t *)"v1", .nvalue = 2},
	{.key = "port:accept", .value = (const uint8_t *)"v22", .nvalue = 3},
};

static struct pmixev_xstep_pubsub publish(void)
{
	return (struct pmixev_xstep_pubsub){.id = 5,
					    .op = PMIXEV_PMIXD_PUBLISH,
					    .rank = 0,
					    .range = PMIXEV_XSTEP_RANGE_SESSION,
					    .persist = 1, /* FIRST_READ */
					    .timeout_sec = 10,
					    .n = 2,
					    .e = ents};
}

/* A request's bytes as they are, whatever pack would say. */
static void pubsub_raw(struct pmixev_buf *w,
		       const struct pmixev_xstep_pubsub *m, uint8_t wait)
{
	pmixev_buf_put_u64(w, m->id);
	pmixev_buf_put_u8(w, (uint8_t)m->op);
	pmixev_buf_put_u32(w, m->rank);
	pmixev_buf_put_u8(w, m->range);
	pmixev_buf_put_u8(w, m->persist);
	pmixev_buf_put_u8(w, wait);
	pmixev_buf_put_u32(w, m->timeout_sec);
	pmixev_buf_put_u32(w, m->n);
	for (uint32_t i = 0; i < m->n; i++) {
		pmixev_buf_put_str(w, m->e[i].key);
		pmixev_buf_put_bytes(w, m->e[i].value, m->e[i].nvalue);
	}
}

static void test_pubsub(void **state)
{
	struct pmixev_xstep_pubsub m = publish(), got;
	struct pmixev_buf w, r, again;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_xstep_pubsub_pack(&w, &m), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_pubsub_unpack(&r, 5, &got), 0);
	assert_int_equal(got.op, PMIXEV_PMIXD_PUBLISH);
	assert_int_equal(got.n, 2);
	assert_string_equal(got.e[1].key, "port:accept");
	assert_memory_equal(got.e[1].value, "v22", 3);
	assert_int_equal(got.persist, 1);
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_xstep_pubsub_pack(&again, &got), 0);
	assert_same(&w, &again);
	pmixev_xstep_pubsub_release(&got);
	pmixev_xstep_pubsub_release(NULL);
	/* The values' bound is the caller's, over all entries. */
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_pubsub_unpack(&r, 4, &got), -1);
	assert_strict(&w, un_pubsub);
	/* A lookup that waits, keys only. */
	struct pmixev_xstep_entry keys[1] = {{.key = "port:accept"}};
	m = (struct pmixev_xstep_pubsub){
		.op = PMIXEV_PMIXD_LOOKUP, .wait = true, .n = 1, .e = keys};
	assert_int_equal(pmixev_xstep_pubsub_pack(&w, &m), 0);
	assert_int_equal(un_pubsub(w.data, w.len), 0);
	pmixev_buf_release(&w);
	/* Each refused by pack, and by unpack. */
	for (int i = 0; i < 12; i++) {
		struct pmixev_xstep_entry bad[1] = {{.key = "k"}};
		uint8_t wait;

		m = publish();
		switch (i) {
		case 0:
			m.op = 0;
			break;
		case 1:
			m.op = PMIXEV_PMIXD_UNPUBLISH + 1;
			break;
		case 2:
			m.range = 3;
			break; /* NAMESPACE stays in the step */
		case 3:
			m.persist = PMIXEV_XSTEP_PERSIST_MAX + 1;
			break;
		case 4:
			m.op = PMIXEV_PMIXD_LOOKUP;
			break; /* values, persist */
		case 5:
			m.wait = true;
			break; /* not a lookup */
		case 6:
			m.n = 0;
			break;
		case 7:
			m.rank = PMIXEV_XSTEP_NO_RANK;
			break;
		case 8:
			m.e = bad;
			m.n = 1;
			bad[0].key[0] = '\0';
			break;
		case 9:
			m.op = PMIXEV_PMIXD_UNPUBLISH;
			m.persist = 0;
			break; /* values */
		case 10:
			m.n = PMIXEV_PMIXD_ENTRIES_MAX + 1;
			break;
		default:
			m.range = 2;
			break; /* LOCAL */
		}
		wait = m.wait;
		REFUSED(pmixev_xstep_pubsub_pack(&w, &m), &w);
		if (i != 10) {
			pubsub_raw(&w, &m, wait);
			assert_int_equal(un_pubsub(w.data, w.len), -1);
			pmixev_buf_release(&w);
		}
	}
	/* wait is a flag. */
	m = (struct pmixev_xstep_pubsub){
		.op = PMIXEV_PMIXD_LOOKUP, .n = 1, .e = keys};
	pubsub_raw(&w, &m, 2);
	assert_int_equal(un_pubsub(w.data, w.len), -1);
	pmixev_buf_release(&w);
	pubsub_raw(&w, &m, 1);
	assert_int_equal(un_pubsub(w.data, w.len), 0);
	pmixev_buf_release(&w);
}

static void test_pubsub_alloc(void **state)
{
	struct pmixev_xstep_pubsub m = publish();
	struct pmixev_buf w;

	(void)state;
	/* 1024 entries claimed, 1023 entries' bytes there. */
	m.n = 0;
	pmixev_buf_init(&w);
	pubsub_raw(&w, &m, 0);
	w.len -= 4;
	pmixev_buf_put_u32(&w, PMIXEV_PMIXD_ENTRIES_MAX);
	for (uint32_t i = 0; i + 1 < PMIXEV_PMIXD_ENTRIES_MAX; i++) {
		pmixev_buf_put_str(&w, "k");
		pmixev_buf_put_bytes(&w, NULL, 0);
	}
	calloc_max = 0;
	assert_int_equal(un_pubsub(w.data, w.len), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
	/* More entries than allowed, with the bytes for them. */
	pubsub_raw(&w, &m, 0);
	w.len -= 4;
	pmixev_buf_put_u32(&w, PMIXEV_PMIXD_ENTRIES_MAX + 1);
	for (uint32_t i = 0; i <= PMIXEV_PMIXD_ENTRIES_MAX; i++) {
		pmixev_buf_put_str(&w, "k");
		pmixev_buf_put_bytes(&w, NULL, 0);
	}
	calloc_max = 0;
	assert_int_equal(un_pubsub(w.data, w.len), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
}

static void test_pubsub_resp(void **state)
{
	struct pmixev_xstep_entry found[2] = {
		{.key = "a",
		 .job = 7,
		 .step = 1,
		 .rank = 0,
		 .value = (const uint8_t *)"x",
		 .nvalue = 1},
		{.key = "b", .job = 7, .step = 3, .rank = 2},
	};
	struct pmixev_xstep_pubsub_resp m = {.id = 8, .n = 2, .e = found}, got;
	struct pmixev_buf w, r, again;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_xstep_pubsub_resp_pack(&w, &m), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_pubsub_resp_unpack(&r, 1, &got), 0);
	assert_int_equal(got.n, 2);
	assert_int_equal(got.e[1].step, 3);
	assert_int_equal(got.e[1].rank, 2);
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_xstep_pubsub_resp_pack(&again, &got), 0);
	assert_same(&w, &again);
	pmixev_xstep_pubsub_resp_release(&got);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_pubsub_resp_unpack(&r, 0, &got), -1);
	assert_strict(&w, un_presp);
	/* Entries only with success; publishers are family steps. */
	for (int i = 0; i < 3; i++) {
		struct pmixev_xstep_pubsub_resp t = m;
		struct pmixev_xstep_entry e[2] = {found[0], found[1]};

		t.e = e;
		if (i == 0)
			t.result = PMIXEV_ERR_NOT_FOUND;
		else if (i == 1)
			e[1].job = 0;
		else
			e[0].step = PMIXEV_XSTEP_STEP_LIMIT;
		REFUSED(pmixev_xstep_pubsub_resp_pack(&w, &t), &w);
		pmixev_buf_put_u64(&w, t.id);
		pmixev_buf_put_u8(&w, (uint8_t)t.result);
		pmixev_buf_put_u32(&w, t.n);
		for (uint32_t k = 0; k < t.n; k++) {
			pmixev_buf_put_str(&w, e[k].key);
			pmixev_buf_put_u32(&w, e[k].job);
			pmixev_buf_put_u32(&w, e[k].step);
			pmixev_buf_put_u32(&w, e[k].rank);
			pmixev_buf_put_bytes(&w, e[k].value, e[k].nvalue);
		}
		assert_int_equal(un_presp(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
	m = (struct pmixev_xstep_pubsub_resp){.id = 8,
					      .result = PMIXEV_ERR_TIMEOUT};
	assert_int_equal(pmixev_xstep_pubsub_resp_pack(&w, &m), 0);
	assert_int_equal(un_presp(w.data, w.len), 0);
	pmixev_buf_release(&w);
	m.result = PMIXEV_RESULT_COUNT;
	REFUSED(pmixev_xstep_pubsub_resp_pack(&w, &m), &w);
}

static void event_trip(const struct pmixev_xstep_event *m)
{
	struct pmixev_xstep_event got;
	struct pmixev_buf w, r, again;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_xstep_event_pack(&w, m), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_event_unpack(&r, 4, &got), 0);
	assert_int_equal(got.form, m->form);
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_xstep_event_pack(&again, &got), 0);
	assert_same(&w, &again);
	assert_strict(&w, un_event);
}

static void test_event(void **state)
{
	static struct pmixev_xstep_event m;
	struct pmixev_buf w, r;

	(void)state;
	m.form = PMIXEV_XSTEP_EV_OBSERVED;
	m.ev = (struct pmixev_event_msg){.code = -402,
					 .rank = 3,
					 .exit_code = 9,
					 .flags = PMIXEV_EVENT_NON_DEFAULT,
					 .seq = 1,
					 .text = "killed by signal 9"};
	event_trip(&m);
	pmixev_buf_init(&w);
	m.ev.flags = 0x80;
	REFUSED(pmixev_xstep_event_pack(&w, &m), &w);
	m.form = PMIXEV_XSTEP_EV_NOTIFY;
	m.notify =
		(struct pmixev_notify_msg){.nspace = "slurm.pmixev.7.3",
					   .rank = 1,
					   .code = -1000,
					   .range = PMIXEV_XSTEP_RANGE_GLOBAL,
					   .info = (const uint8_t *)"info",
					   .ninfo = 4};
	event_trip(&m);
	m.notify.range = 6; /* CUSTOM */
	event_trip(&m);
	/* The info bound is the caller's. */
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_xstep_event_pack(&w, &m), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_event_unpack(&r, 3, &m), -1);
	pmixev_buf_release(&w);
	/* Each refused by pack, and by unpack. */
	for (int i = 0; i < 4; i++) {
		struct pmixev_xstep_event t = m;

		switch (i) {
		case 0:
			t.form = 0;
			break;
		case 1:
			t.form = 3;
			break;
		case 2:
			t.notify.range = 2;
			break; /* LOCAL */
		default:
			t.notify.nspace[0] = '\0';
		}
		REFUSED(pmixev_xstep_event_pack(&w, &t), &w);
		pmixev_buf_put_u8(&w, (uint8_t)t.form);
		assert_int_equal(pmixev_notify_pack(&w, &t.notify), 0);
		assert_int_equal(un_event(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
}

/* The srun's routing of PUBSUB frames: up from a child step to the
 * family root's node 0, and the answer back down. */
static void test_pubsub_hop(void **state)
{
	/* Step 7.2 spawned by 7.1, which 7.0 (the family root) spawned. */
	struct pmixev_xstep_hdr req = {.src_job = 7,
				       .src_step = 2,
				       .src_node = 1,
				       .dst_job = 7,
				       .dst_step = 1,
				       .dst_node = 0,
				       .inner = PMIXEV_XSTEP_PUBSUB_REQ};
	struct pmixev_xstep_hdr resp = {.src_job = 7,
					.src_step = 0,
					.src_node = 0,
					.dst_job = 7,
					.dst_step = 2,
					.dst_node = 1,
					.inner = PMIXEV_XSTEP_PUBSUB_RESP};
	struct pmixev_xstep_hdr t;

	(void)state;
	/* 7.2's srun: its own node's request climbs; another node's, or
	 * one with no parent srun, does not; one bounced back by the
	 * parent srun returns to its node (or toward its step). */
	assert_int_equal(pmixev_xstep_pubsub_hop(&req, PMIXEV_XSTEP_FROM_NODE,
						 1, 7, 2, true),
			 PMIXEV_XSTEP_HOP_UP);
	assert_int_equal(pmixev_xstep_pubsub_hop(&req, PMIXEV_XSTEP_FROM_NODE,
						 2, 7, 2, true),
			 PMIXEV_XSTEP_HOP_DROP);
	assert_int_equal(pmixev_xstep_pubsub_hop(&req, PMIXEV_XSTEP_FROM_NODE,
						 1, 7, 2, false),
			 PMIXEV_XSTEP_HOP_DROP);
	assert_int_equal(pmixev_xstep_pubsub_hop(&req, PMIXEV_XSTEP_FROM_PARENT,
						 0, 7, 2, true),
			 PMIXEV_XSTEP_HOP_NODE);
	assert_int_equal(pmixev_xstep_pubsub_hop(&req, PMIXEV_XSTEP_FROM_PARENT,
						 0, 7, 1, true),
			 PMIXEV_XSTEP_HOP_CHILD);
	/* 7.1's srun passes it up; 7.0's gives it to its node 0. */
	assert_int_equal(pmixev_xstep_pubsub_hop(&req, PMIXEV_XSTEP_FROM_CHILD,
						 0, 7, 1, true),
			 PMIXEV_XSTEP_HOP_UP);
	assert_int_equal(pmixev_xstep_pubsub_hop(&req, PMIXEV_XSTEP_FROM_CHILD,
						 0, 7, 0, false),
			 PMIXEV_XSTEP_HOP_NODE);
	/* A child srun may not speak for this srun's own step. */
	assert_int_equal(pmixev_xstep_pubsub_hop(&req, PMIXEV_XSTEP_FROM_CHILD,
						 0, 7, 2, true),
			 PMIXEV_XSTEP_HOP_DROP);
	/* The answer: from 7.0's node 0 down, through 7.1, to 7.2's node. */
	assert_int_equal(pmixev_xstep_pubsub_hop(&resp, PMIXEV_XSTEP_FROM_NODE,
						 0, 7, 0, false),
			 PMIXEV_XSTEP_HOP_CHILD);
	assert_int_equal(pmixev_xstep_pubsub_hop(&resp, PMIXEV_XSTEP_FROM_NODE,
						 1, 7, 0, false),
			 PMIXEV_XSTEP_HOP_DROP);
	assert_int_equal(pmixev_xstep_pubsub_hop(&resp, PMIXEV_XSTEP_FROM_NODE,
						 0, 7, 0, true),
			 PMIXEV_XSTEP_HOP_DROP);
	assert_int_equal(pmixev_xstep_pubsub_hop(&resp,
						 PMIXEV_XSTEP_FROM_PARENT, 0, 7,
						 1, true),
			 PMIXEV_XSTEP_HOP_CHILD);
	assert_int_equal(pmixev_xstep_pubsub_hop(&resp,
						 PMIXEV_XSTEP_FROM_PARENT, 0, 7,
						 2, true),
			 PMIXEV_XSTEP_HOP_NODE);
	assert_int_equal(pmixev_xstep_pubsub_hop(&resp, PMIXEV_XSTEP_FROM_CHILD,
						 0, 7, 1, true),
			 PMIXEV_XSTEP_HOP_DROP);
	/* Other inner types and invalid headers are not routed here. */
	t = req;
	t.inner = PMIXEV_XSTEP_EVENT;
	t.dst_node = PMIXEV_XSTEP_ROOT;
	assert_int_equal(pmixev_xstep_pubsub_hop(&t, PMIXEV_XSTEP_FROM_NODE, 1,
						 7, 2, true),
			 PMIXEV_XSTEP_HOP_DROP);
	t = req;
	t.dst_step = 2;
	assert_int_equal(pmixev_xstep_pubsub_hop(&t, PMIXEV_XSTEP_FROM_NODE, 1,
						 7, 2, true),
			 PMIXEV_XSTEP_HOP_DROP);
}

/* The srun's routing of collectives and direct modex: anywhere in the
 * family by destination step, never back up from the parent. */
static void test_route_hop(void **state)
{
	/* 7.2 (spawned by 7.1) sends its part to 7.1's root. */
	struct pmixev_xstep_hdr part = {.src_job = 7,
					.src_step = 2,
					.src_node = 0,
					.dst_job = 7,
					.dst_step = 1,
					.dst_node = PMIXEV_XSTEP_ROOT,
					.inner = PMIXEV_XSTEP_COLL_PART};
	struct pmixev_xstep_hdr dm = {.src_job = 7,
				      .src_step = 1,
				      .src_node = 2,
				      .dst_job = 7,
				      .dst_step = 2,
				      .dst_node = 1,
				      .inner = PMIXEV_XSTEP_DMODEX_REQ};
	struct pmixev_xstep_hdr t;

	(void)state;
	/* 7.2's srun: its node 0's frame leaves; another node's does not. */
	assert_int_equal(
		pmixev_xstep_route_hop(&part, PMIXEV_XSTEP_FROM_NODE, 0, 7, 2),
		PMIXEV_XSTEP_HOP_AWAY);
	assert_int_equal(
		pmixev_xstep_route_hop(&part, PMIXEV_XSTEP_FROM_NODE, 1, 7, 2),
		PMIXEV_XSTEP_HOP_DROP);
	/* 7.1's srun: from its child, for its own step: to the node. */
	assert_int_equal(
		pmixev_xstep_route_hop(&part, PMIXEV_XSTEP_FROM_CHILD, 0, 7, 1),
		PMIXEV_XSTEP_HOP_NODE);
	/* ... for another step: away (down, else up). */
	assert_int_equal(
		pmixev_xstep_route_hop(&part, PMIXEV_XSTEP_FROM_CHILD, 0, 7, 0),
		PMIXEV_XSTEP_HOP_AWAY);
	/* A child srun may not speak for this srun's own step. */
	assert_int_equal(
		pmixev_xstep_route_hop(&part, PMIXEV_XSTEP_FROM_CHILD, 0, 7, 2),
		PMIXEV_XSTEP_HOP_DROP);
	/* 7.1's node 2 asks 7.2's node 1: away from 7.1's srun, down to the
	 * node at 7.2's, never up again from a parent. */
	assert_int_equal(
		pmixev_xstep_route_hop(&dm, PMIXEV_XSTEP_FROM_NODE, 2, 7, 1),
		PMIXEV_XSTEP_HOP_AWAY);
	assert_int_equal(
		pmixev_xstep_route_hop(&dm, PMIXEV_XSTEP_FROM_PARENT, 0, 7, 2),
		PMIXEV_XSTEP_HOP_NODE);
	assert_int_equal(
		pmixev_xstep_route_hop(&dm, PMIXEV_XSTEP_FROM_PARENT, 0, 7, 3),
		PMIXEV_XSTEP_HOP_CHILD);
	assert_int_equal(
		pmixev_xstep_route_hop(&dm, PMIXEV_XSTEP_FROM_PARENT, 0, 7, 1),
		PMIXEV_XSTEP_HOP_DROP);
	/* The other inner types are not routed here, nor bad headers. */
	t = dm;
	t.inner = PMIXEV_XSTEP_PUBSUB_REQ;
	assert_int_equal(
		pmixev_xstep_route_hop(&t, PMIXEV_XSTEP_FROM_NODE, 2, 7, 1),
		PMIXEV_XSTEP_HOP_DROP);
	t = dm;
	t.dst_node = PMIXEV_XSTEP_ROOT;
	assert_int_equal(
		pmixev_xstep_route_hop(&t, PMIXEV_XSTEP_FROM_NODE, 2, 7, 1),
		PMIXEV_XSTEP_HOP_DROP);
	/* A client's event for every node of a step is routed; a rank's
	 * end for the parent's root takes the spawn's own path. */
	t = part;
	t.inner = PMIXEV_XSTEP_EVENT;
	t.dst_node = PMIXEV_XSTEP_ALL;
	assert_true(pmixev_xstep_routed(&t));
	assert_int_equal(
		pmixev_xstep_route_hop(&t, PMIXEV_XSTEP_FROM_CHILD, 0, 7, 1),
		PMIXEV_XSTEP_HOP_NODE);
	t.dst_node = PMIXEV_XSTEP_ROOT;
	assert_false(pmixev_xstep_routed(&t));
	assert_int_equal(
		pmixev_xstep_route_hop(&t, PMIXEV_XSTEP_FROM_CHILD, 0, 7, 1),
		PMIXEV_XSTEP_HOP_DROP);
	/* srun's word that a child (or the parent) left: to its own root. */
	t.inner = PMIXEV_XSTEP_LEFT;
	assert_true(pmixev_xstep_routed(&t));
	assert_int_equal(
		pmixev_xstep_route_hop(&t, PMIXEV_XSTEP_FROM_CHILD, 0, 7, 1),
		PMIXEV_XSTEP_HOP_NODE);
	t.dst_node = PMIXEV_XSTEP_ALL;
	assert_false(pmixev_xstep_hdr_ok(&t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pubsub),
		cmocka_unit_test(test_pubsub_alloc),
		cmocka_unit_test(test_pubsub_resp),
		cmocka_unit_test(test_event),
		cmocka_unit_test(test_pubsub_hop),
		cmocka_unit_test(test_route_hop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
