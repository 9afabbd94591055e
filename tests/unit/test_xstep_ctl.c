/*
 * Unit tests for common/pmixev_xstep_ctl.c: the srun control frames
 * (HUB_HELLO, HUB_JOIN, HUB_LEAVE, FAMILY, SPAWN_REQ, SPAWN_CANCEL,
 * SPAWN_STATUS, ROOT_IS): round trips, canonical encoding, strictness,
 * each refusal on both sides, counts refused before allocation (calloc
 * wrapped: calloc_spy.h); the family look-ups and root's XSTEP check.
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
#include "pmixev_xstep_ctl.h"
#include "proto_strict.h"
#include "xstep_test.h"

#define NONE PMIXEV_XSTEP_NONE

UNPACKER(un_hello, struct pmixev_hub_hello, pmixev_hub_hello_unpack(&r, &m))
UNPACKER(un_join, struct pmixev_xstep_members,
	 (pmixev_hub_join_unpack(&r, &m) < 0
		  ? -1
		  : (pmixev_xstep_members_release(&m), 0)))
UNPACKER(un_family, struct pmixev_xstep_members,
	 (pmixev_family_unpack(&r, &m) < 0
		  ? -1
		  : (pmixev_xstep_members_release(&m), 0)))
UNPACKER(un_leave, struct pmixev_hub_leave,
	 (pmixev_hub_leave_unpack(&r, &m) < 0
		  ? -1
		  : (pmixev_hub_leave_release(&m), 0)))
UNPACKER(un_req, struct pmixev_spawn_req, pmixev_spawn_req_unpack(&r, 8, &m))
UNPACKER(un_status, struct pmixev_spawn_status,
	 pmixev_spawn_status_unpack(&r, &m))

/* 7.0 spawned 7.1 and 9.0 (PMIX_ALLOC_ID); 7.1 spawned 7.4. */
static struct pmixev_xstep_member fam[4] = {
	{7, 0, NONE, NONE}, {7, 1, 7, 0}, {7, 4, 7, 1}, {9, 0, 7, 0}};

static void members_raw(struct pmixev_buf *w,
			const struct pmixev_xstep_member *m, uint32_t n)
{
	pmixev_buf_put_u32(w, n);
	for (uint32_t i = 0; i < n; i++) {
		pmixev_buf_put_u32(w, m[i].job);
		pmixev_buf_put_u32(w, m[i].step);
		pmixev_buf_put_u32(w, m[i].parent_job);
		pmixev_buf_put_u32(w, m[i].parent_step);
	}
}

static void test_hello(void **state)
{
	struct pmixev_hub_hello m = {7, 4, 99}, got;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_hub_hello_pack(&w, &m), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_hub_hello_unpack(&r, &got), 0);
	assert_int_equal(got.job, 7);
	assert_int_equal(got.step, 4);
	assert_int_equal(got.spawn_id, 99);
	assert_strict(&w, un_hello);
	m.step = PMIXEV_XSTEP_STEP_LIMIT;
	REFUSED(pmixev_hub_hello_pack(&w, &m), &w);
	pmixev_buf_put_u32(&w, 7);
	pmixev_buf_put_u32(&w, PMIXEV_XSTEP_STEP_LIMIT);
	pmixev_buf_put_u64(&w, 1);
	assert_int_equal(un_hello(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

static void test_members(void **state)
{
	struct pmixev_xstep_members m = {4, fam}, got;
	struct pmixev_buf w, r, again;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_family_pack(&w, &m), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_family_unpack(&r, &got), 0);
	assert_int_equal(got.n, 4);
	assert_memory_equal(got.m, fam, sizeof(fam));
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_family_pack(&again, &got), 0);
	assert_same(&w, &again);
	pmixev_xstep_members_release(&got);
	pmixev_xstep_members_release(NULL);
	/* A FAMILY reads as a JOIN too. */
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_hub_join_unpack(&r, &got), 0);
	pmixev_xstep_members_release(&got);
	assert_strict(&w, un_family);
	/* A JOIN of a subtree: its parents are outside it. */
	m = (struct pmixev_xstep_members){2, &fam[1]};
	assert_int_equal(pmixev_hub_join_pack(&w, &m), 0);
	REFUSED(pmixev_family_pack(&w, &m), &w);
	assert_int_equal(un_family(w.data, w.len), -1);
	assert_strict(&w, un_join);
}

static void test_members_refused(void **state)
{
	struct pmixev_xstep_member t[4];
	struct pmixev_xstep_members m = {4, t};
	struct pmixev_buf w;

	(void)state;
	pmixev_buf_init(&w);
	for (int i = 0; i < 9; i++) {
		bool join_too = i < 5; /* JOIN refuses it as well */

		memcpy(t, fam, sizeof(fam));
		m.n = 4;
		switch (i) {
		case 0:
			t[1] = t[2];
			break; /* not increasing */
		case 1:
			t[0].job = 0;
			break;
		case 2:
			t[3].step = PMIXEV_XSTEP_STEP_LIMIT;
			break;
		case 3:
			t[1].parent_job = 7;
			t[1].parent_step = 1;
			break;
		case 4:
			t[1].parent_step = NONE;
			break; /* half none */
		case 5:
			t[1].parent_job = NONE; /* two roots */
			t[1].parent_step = NONE;
			break;
		case 6:
			t[0].parent_job = 9; /* no root: a cycle */
			t[0].parent_step = 0;
			break;
		case 7:
			t[3].parent_step = 2;
			break; /* not a member */
		default:
			t[1].parent_step = 4;
			break; /* 7.1 <-> 7.4 */
		}
		REFUSED(pmixev_family_pack(&w, &m), &w);
		members_raw(&w, t, 4);
		assert_int_equal(un_family(w.data, w.len), -1);
		if (join_too) {
			REFUSED(pmixev_hub_join_pack(&w, &m), &w);
			assert_int_equal(un_join(w.data, w.len), -1);
		} else {
			assert_int_equal(un_join(w.data, w.len), 0);
		}
		pmixev_buf_release(&w);
	}
	m.n = 0;
	REFUSED(pmixev_hub_join_pack(&w, &m), &w);
	members_raw(&w, t, 0);
	assert_int_equal(un_join(w.data, w.len), -1);
	pmixev_buf_release(&w);
	/* Counts beyond the bound or the bytes: nothing allocated. */
	calloc_max = 0;
	pmixev_buf_put_u32(&w, PMIXEV_XSTEP_FAMILY_MAX);
	members_raw(&w, fam, 4);
	assert_int_equal(un_join(w.data + 4, w.len - 4), 0);
	calloc_max = 0;
	assert_int_equal(un_join(w.data, w.len), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
	pmixev_buf_put_u32(&w, PMIXEV_XSTEP_FAMILY_MAX + 1);
	for (uint32_t i = 0; i <= PMIXEV_XSTEP_FAMILY_MAX; i++) {
		pmixev_buf_put_u32(&w, 7);
		pmixev_buf_put_u32(&w, i);
		pmixev_buf_put_u32(&w, i ? 7 : NONE);
		pmixev_buf_put_u32(&w, i ? 0 : NONE);
	}
	assert_int_equal(un_family(w.data, w.len), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
}

static void test_family_lookups(void **state)
{
	struct pmixev_xstep_members m = {4, fam};
	struct pmixev_xstep_hdr h = {.src_job = 9,
				     .src_step = 0,
				     .src_node = 1,
				     .dst_job = 7,
				     .dst_step = 4,
				     .dst_node = 3,
				     .inner = PMIXEV_XSTEP_DMODEX_REQ};

	(void)state;
	assert_ptr_equal(pmixev_xstep_family_find(&m, 7, 4), &fam[2]);
	assert_null(pmixev_xstep_family_find(&m, 7, 2));
	assert_null(pmixev_xstep_family_find(NULL, 7, 4));
	assert_ptr_equal(pmixev_xstep_family_root(&m), &fam[0]);
	assert_null(pmixev_xstep_family_root(NULL));
	assert_true(pmixev_xstep_id_cmp(7, 9, 8, 0) < 0);
	assert_true(pmixev_xstep_id_cmp(7, 9, 7, 8) > 0);
	assert_int_equal(pmixev_xstep_id_cmp(7, 9, 7, 9), 0);
	/* Root's check of a header from its srun. */
	assert_null(pmixev_xstep_check(&h, &m, 7, 4, 3, false));
	assert_non_null(pmixev_xstep_check(&h, &m, 7, 4, 2, true));
	assert_non_null(pmixev_xstep_check(&h, &m, 7, 1, 3, false));
	h.src_job = 8;
	assert_non_null(pmixev_xstep_check(&h, &m, 7, 4, 3, false));
	h.src_job = 9;
	m.n = 2; /* a FAMILY without this step (7.4) nor the source */
	assert_non_null(pmixev_xstep_check(&h, &m, 7, 4, 3, false));
	m.n = 4;
	h.dst_node = PMIXEV_XSTEP_ROOT; /* DMODEX_REQ goes to a node */
	assert_non_null(pmixev_xstep_check(&h, &m, 7, 4, 3, true));
	h.inner = PMIXEV_XSTEP_READY;
	assert_null(pmixev_xstep_check(&h, &m, 7, 4, 3, true));
	assert_non_null(pmixev_xstep_check(&h, &m, 7, 4, 3, false));
}

static void test_leave(void **state)
{
	struct pmixev_xstep_id ids[2] = {{7, 1}, {7, 4}};
	struct pmixev_hub_leave m = {2, ids}, got;
	struct pmixev_buf w, r, again;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_hub_leave_pack(&w, &m), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_hub_leave_unpack(&r, &got), 0);
	assert_int_equal(got.n, 2);
	assert_int_equal(got.ids[1].step, 4);
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_hub_leave_pack(&again, &got), 0);
	assert_same(&w, &again);
	pmixev_hub_leave_release(&got);
	pmixev_hub_leave_release(NULL);
	assert_strict(&w, un_leave);
	for (int i = 0; i < 4; i++) {
		struct pmixev_xstep_id t[2] = {ids[0], ids[1]};

		m = (struct pmixev_hub_leave){2, t};
		switch (i) {
		case 0:
			t[1] = t[0];
			break;
		case 1:
			t[0].job = 0;
			break;
		case 2:
			t[1].step = NONE;
			break;
		default:
			m.n = 0;
			break;
		}
		REFUSED(pmixev_hub_leave_pack(&w, &m), &w);
		pmixev_buf_put_u32(&w, m.n);
		for (uint32_t k = 0; k < m.n; k++) {
			pmixev_buf_put_u32(&w, t[k].job);
			pmixev_buf_put_u32(&w, t[k].step);
		}
		assert_int_equal(un_leave(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
	calloc_max = 0;
	pmixev_buf_put_u32(&w, PMIXEV_XSTEP_FAMILY_MAX);
	pmixev_buf_put_u32(&w, 7);
	pmixev_buf_put_u32(&w, 1);
	assert_int_equal(un_leave(w.data, w.len), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
}

static void test_spawn_frames(void **state)
{
	struct pmixev_spawn_req q = {.id = 3,
				     .body = (const uint8_t *)"spawn",
				     .nbody = 5,
				     .layout = (const uint8_t *)"lay",
				     .nlayout = 3},
				qgot;
	struct pmixev_spawn_status s = {.id = 3,
					.state = PMIXEV_SPAWN_BUSY,
					.reason =
						"srun: error: Unable to create "
						"step for job 7: Requested "
						"nodes are busy"},
				   sgot;
	struct pmixev_buf w, r;
	uint64_t id = 0;
	uint32_t node = 0;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_spawn_req_pack(&w, &q), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_spawn_req_unpack(&r, 5, &qgot), 0);
	assert_int_equal(qgot.id, 3);
	assert_memory_equal(qgot.body, "spawn", 5);
	assert_int_equal(qgot.nlayout, 3);
	assert_memory_equal(qgot.layout, "lay", 3);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_spawn_req_unpack(&r, 4, &qgot), -1);
	assert_strict(&w, un_req);
	pmixev_buf_release(&w);
	/* No layout is allowed; a layout above `max` is not. */
	q.nlayout = 0;
	assert_int_equal(pmixev_spawn_req_pack(&w, &q), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_spawn_req_unpack(&r, 5, &qgot), 0);
	assert_int_equal(qgot.nlayout, 0);
	pmixev_buf_release(&w);
	q.layout = (const uint8_t *)"layout";
	q.nlayout = 6;
	assert_int_equal(pmixev_spawn_req_pack(&w, &q), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_spawn_req_unpack(&r, 5, &qgot), -1);
	pmixev_buf_release(&w);
	q.nbody = 0;
	REFUSED(pmixev_spawn_req_pack(&w, &q), &w);
	pmixev_buf_put_u64(&w, 3);
	pmixev_buf_put_bytes(&w, NULL, 0);
	pmixev_buf_put_bytes(&w, NULL, 0);
	assert_int_equal(un_req(w.data, w.len), -1);
	pmixev_buf_release(&w);

	assert_int_equal(pmixev_spawn_cancel_pack(&w, 77), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_spawn_cancel_unpack(&r, &id), 0);
	assert_int_equal(id, 77);
	pmixev_buf_reader(&r, w.data, w.len - 1);
	assert_int_equal(pmixev_spawn_cancel_unpack(&r, &id), -1);
	pmixev_buf_release(&w);

	assert_int_equal(pmixev_root_is_pack(&w, 12), 0);
	pmixev_buf_put_u32(&w, PMIXEV_XSTEP_NODES_MAX);
	pmixev_buf_reader(&r, w.data, 4);
	assert_int_equal(pmixev_root_is_unpack(&r, &node), 0);
	assert_int_equal(node, 12);
	pmixev_buf_reader(&r, w.data + 4, 4);
	assert_int_equal(pmixev_root_is_unpack(&r, &node), -1);
	pmixev_buf_reader(&r, w.data, 8);
	assert_int_equal(pmixev_root_is_unpack(&r, &node), -1);
	pmixev_buf_release(&w);
	REFUSED(pmixev_root_is_pack(&w, PMIXEV_XSTEP_ROOT), &w);

	assert_int_equal(pmixev_spawn_status_pack(&w, &s), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_spawn_status_unpack(&r, &sgot), 0);
	assert_int_equal(sgot.id, 3);
	assert_int_equal(sgot.state, PMIXEV_SPAWN_BUSY);
	assert_string_equal(sgot.reason, s.reason);
	assert_strict(&w, un_status);
	for (int i = 0; i < 8; i++) {
		struct pmixev_spawn_status t = s;

		switch (i) {
		case 0:
			t.state = 0;
			break;
		case 1:
			t.state = PMIXEV_SPAWN_STATE_MAX + 1;
			break;
		case 2:
			t.state = PMIXEV_SPAWN_LAUNCHED;
			break; /* reason */
		case 3:
			t.job = 7; /* a step without READY */
			break;
		case 4: /* READY with a reason */
			t = (struct pmixev_spawn_status){
				.id = 1,
				.state = PMIXEV_SPAWN_READY,
				.job = 7,
				.step = 2,
				.reason = "x"};
			break;
		case 5: /* READY without its step */
			t = (struct pmixev_spawn_status){
				.id = 1, .state = PMIXEV_SPAWN_READY};
			break;
		case 6: /* READY naming a special step */
			t = (struct pmixev_spawn_status){
				.id = 1,
				.state = PMIXEV_SPAWN_READY,
				.job = 7,
				.step = PMIXEV_XSTEP_STEP_LIMIT};
			break;
		default:
			memset(t.reason, 'x', sizeof(t.reason));
		}
		REFUSED(pmixev_spawn_status_pack(&w, &t), &w);
		pmixev_buf_put_u64(&w, t.id);
		pmixev_buf_put_u8(&w, (uint8_t)t.state);
		pmixev_buf_put_u32(&w, t.job);
		pmixev_buf_put_u32(&w, t.step);
		pmixev_buf_put_bytes(&w, t.reason,
				     strnlen(t.reason, sizeof(t.reason)));
		assert_int_equal(un_status(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
	s = (struct pmixev_spawn_status){.id = 1,
					 .state = PMIXEV_SPAWN_LAUNCHED};
	assert_int_equal(pmixev_spawn_status_pack(&w, &s), 0);
	assert_int_equal(un_status(w.data, w.len), 0);
	pmixev_buf_release(&w);
	s = (struct pmixev_spawn_status){
		.id = 1, .state = PMIXEV_SPAWN_READY, .job = 7, .step = 3};
	assert_int_equal(pmixev_spawn_status_pack(&w, &s), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_spawn_status_unpack(&r, &sgot), 0);
	assert_int_equal(sgot.job, 7);
	assert_int_equal(sgot.step, 3);
	pmixev_buf_release(&w);
}

/* NSPACE_ACK: a step's ids checked both ways, the status as it is. */
static void test_nspace_ack(void **state)
{
	struct pmixev_nspace_ack a = {.job = 7, .step = 3, .status = -25};
	struct pmixev_nspace_ack got;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_nspace_ack_pack(&w, &a), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_nspace_ack_unpack(&r, &got), 0);
	assert_int_equal(got.job, 7);
	assert_int_equal(got.step, 3);
	assert_int_equal(got.status, -25);
	pmixev_buf_reader(&r, w.data, w.len - 1);
	assert_int_equal(pmixev_nspace_ack_unpack(&r, &got), -1);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_nspace_ack_unpack(&r, &got), -1);
	pmixev_buf_release(&w);
	a.step = PMIXEV_XSTEP_STEP_LIMIT;
	REFUSED(pmixev_nspace_ack_pack(&w, &a), &w);
	pmixev_buf_put_u32(&w, a.job);
	pmixev_buf_put_u32(&w, a.step);
	pmixev_buf_put_i32(&w, 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_nspace_ack_unpack(&r, &got), -1);
	pmixev_buf_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hello),
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_members_refused),
		cmocka_unit_test(test_family_lookups),
		cmocka_unit_test(test_leave),
		cmocka_unit_test(test_spawn_frames),
		cmocka_unit_test(test_nspace_ack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
