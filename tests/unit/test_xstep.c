/*
 * Unit tests for common/pmixev_xstep.c: the XSTEP header (destination
 * rules per inner type, for_me), LAYOUT, READY, COLL_PART/COLL_RESULT
 * and the DMODEX bodies (PUBSUB and EVENT: test_xstep_pubsub.c): round trips,
 * canonical encoding and strictness (no prefix, no trailing byte), each
 * bound and refusal on both sides, and counts refused before allocation
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

static int hdr_whole(struct pmixev_buf *r, struct pmixev_xstep_hdr *m)
{
	return pmixev_xstep_hdr_unpack(r, m) < 0 || pmixev_buf_remaining(r) ? -1
									    : 0;
}

UNPACKER(un_hdr, struct pmixev_xstep_hdr, hdr_whole(&r, &m))
UNPACKER(un_layout, struct pmixev_xstep_layout,
	 (pmixev_xstep_layout_unpack(&r, BIG, &m) < 0
		  ? -1
		  : (pmixev_xstep_layout_release(&m), 0)))
UNPACKER(un_ready, struct pmixev_xstep_ready, pmixev_xstep_ready_unpack(&r, &m))
UNPACKER(un_coll, struct pmixev_xstep_coll,
	 pmixev_xstep_coll_unpack(&r, BIG, &m))
UNPACKER(un_dreq, struct pmixev_xstep_dmodex_req,
	 pmixev_xstep_dmodex_req_unpack(&r, 5, &m))
UNPACKER(un_dresp, struct pmixev_xstep_dmodex_resp,
	 pmixev_xstep_dmodex_resp_unpack(&r, BIG, &m))
static const struct pmixev_xstep_hdr hdr0 = {.src_job = 7,
					     .src_step = 3,
					     .src_node = 2,
					     .dst_job = 7,
					     .dst_step = 1,
					     .dst_node = PMIXEV_XSTEP_ROOT,
					     .inner = PMIXEV_XSTEP_LAYOUT};

static void test_step_ok(void **state)
{
	char ns[64];

	(void)state;
	assert_true(pmixev_xstep_step_ok(1, 0));
	assert_true(pmixev_xstep_step_ok(0xfffffffe, 0xffffffef));
	assert_false(pmixev_xstep_step_ok(0, 1));
	assert_false(pmixev_xstep_step_ok(PMIXEV_XSTEP_NONE, 1));
	assert_false(pmixev_xstep_step_ok(7, PMIXEV_XSTEP_STEP_LIMIT));
	assert_false(pmixev_xstep_step_ok(7, PMIXEV_XSTEP_NONE));
	pmixev_xstep_nspace(7, 12, ns, sizeof(ns));
	assert_string_equal(ns, "slurm.pmixev.7.12");
}

static void test_hdr(void **state)
{
	struct pmixev_xstep_hdr h = hdr0, got;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_xstep_hdr_pack(&w, &h), 0);
	assert_int_equal(w.len, PMIXEV_XSTEP_HDR_LEN);
	/* The body follows the header: hdr_unpack leaves it. */
	pmixev_buf_put_u8(&w, 0xaa);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_hdr_unpack(&r, &got), 0);
	assert_int_equal(got.src_job, 7);
	assert_int_equal(got.src_step, 3);
	assert_int_equal(got.src_node, 2);
	assert_int_equal(got.dst_job, 7);
	assert_int_equal(got.dst_step, 1);
	assert_int_equal(got.dst_node, PMIXEV_XSTEP_ROOT);
	assert_int_equal(got.inner, PMIXEV_XSTEP_LAYOUT);
	assert_int_equal(pmixev_buf_remaining(&r), 1);
	w.len--;
	assert_strict(&w, un_hdr);
	/* Each destination as its inner type wants it. */
	for (uint8_t in = 0; in <= PMIXEV_XSTEP_INNER_MAX + 1; in++) {
		bool to_root = (in >= PMIXEV_XSTEP_LAYOUT &&
				in <= PMIXEV_XSTEP_COLL_RESULT) ||
			       in == PMIXEV_XSTEP_LEFT;
		bool to_node = in >= PMIXEV_XSTEP_DMODEX_REQ &&
			       in <= PMIXEV_XSTEP_PUBSUB_RESP;

		h.inner = in;
		h.dst_node = PMIXEV_XSTEP_ROOT;
		assert_int_equal(pmixev_xstep_hdr_ok(&h),
				 to_root || in == PMIXEV_XSTEP_EVENT);
		h.dst_node = PMIXEV_XSTEP_ALL;
		assert_int_equal(pmixev_xstep_hdr_ok(&h),
				 in == PMIXEV_XSTEP_EVENT ||
					 in == PMIXEV_XSTEP_LAYOUT);
		h.dst_node = PMIXEV_XSTEP_NODES_MAX - 1;
		assert_int_equal(pmixev_xstep_hdr_ok(&h), to_node);
		h.dst_node = PMIXEV_XSTEP_NODES_MAX;
		assert_false(pmixev_xstep_hdr_ok(&h));
	}
	/* Each refused by pack, and by unpack. */
	for (int i = 0; i < 6; i++) {
		h = hdr0;
		switch (i) {
		case 0:
			h.src_job = 0;
			break;
		case 1:
			h.dst_step = PMIXEV_XSTEP_STEP_LIMIT;
			break;
		case 2:
			h.dst_step = 3;
			break; /* to its own step */
		case 3:
			h.src_node = PMIXEV_XSTEP_ROOT;
			break;
		case 4:
			h.dst_node = 0;
			break;
		default:
			h.inner = 0;
			break;
		}
		pmixev_buf_init(&w);
		REFUSED(pmixev_xstep_hdr_pack(&w, &h), &w);
		pmixev_buf_put_u32(&w, h.src_job);
		pmixev_buf_put_u32(&w, h.src_step);
		pmixev_buf_put_u32(&w, h.src_node);
		pmixev_buf_put_u32(&w, h.dst_job);
		pmixev_buf_put_u32(&w, h.dst_step);
		pmixev_buf_put_u32(&w, h.dst_node);
		pmixev_buf_put_u8(&w, h.inner);
		assert_int_equal(un_hdr(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
	/* for_me: this node, the root when it is, everyone. */
	h = hdr0;
	assert_true(pmixev_xstep_for_me(&h, 7, 1, 0, true));
	assert_false(pmixev_xstep_for_me(&h, 7, 1, 0, false));
	assert_false(pmixev_xstep_for_me(&h, 7, 2, 0, true));
	assert_false(pmixev_xstep_for_me(&h, 8, 1, 0, true));
	h.inner = PMIXEV_XSTEP_DMODEX_REQ;
	h.dst_node = 4;
	assert_true(pmixev_xstep_for_me(&h, 7, 1, 4, false));
	assert_false(pmixev_xstep_for_me(&h, 7, 1, 3, true));
	h.inner = PMIXEV_XSTEP_EVENT;
	h.dst_node = PMIXEV_XSTEP_ALL;
	assert_true(pmixev_xstep_for_me(&h, 7, 1, 3, false));
}

/* A layout of step 7.3: 3 nodes, 5 ranks, 2 apps. */
static char *lay_nodes[3] = {"n0", "n1", "n2"};
static uint32_t lay_node_of[5] = {0, 0, 1, 2, 2};
static uint32_t lay_app_of[5] = {0, 0, 0, 1, 1};

static void layout_fill(struct pmixev_xstep_layout *m)
{
	memset(m, 0, sizeof(*m));
	m->spawn_id = 42;
	strcpy(m->parent_nspace, "slurm.pmixev.7.1");
	m->parent_rank = 2;
	m->start.step = (struct pmixev_step){
		.job_id = 7, .step_id = 3, .nnodes = 3, .ntasks = 5};
	m->start.nodes = lay_nodes;
	m->start.node_of = lay_node_of;
	m->start.napps = 2;
	m->start.app_of = lay_app_of;
	strcpy(m->start.nspace, "slurm.pmixev.7.3");
}

/* LAYOUT's bytes around a START body packed as is. */
static void layout_raw(struct pmixev_buf *w,
		       const struct pmixev_xstep_layout *m)
{
	struct pmixev_buf s;

	pmixev_buf_init(&s);
	assert_int_equal(pmixev_pmixd_start_pack(&s, &m->start), 0);
	pmixev_buf_put_u64(w, m->spawn_id);
	pmixev_buf_put_str(w, m->parent_nspace);
	pmixev_buf_put_u32(w, m->parent_rank);
	pmixev_buf_put_bytes(w, s.data, s.len);
	pmixev_buf_release(&s);
}

static void test_layout(void **state)
{
	struct pmixev_xstep_layout m, got;
	struct pmixev_xstep_hdr h = hdr0;
	struct pmixev_buf w, r, again;

	(void)state;
	layout_fill(&m);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_xstep_layout_pack(&w, &m), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_layout_unpack(&r, BIG, &got), 0);
	assert_int_equal(got.spawn_id, 42);
	assert_string_equal(got.parent_nspace, "slurm.pmixev.7.1");
	assert_int_equal(got.parent_rank, 2);
	assert_int_equal(got.start.step.ntasks, 5);
	assert_string_equal(got.start.nodes[2], "n2");
	assert_int_equal(got.start.app_of[4], 1);
	assert_true(pmixev_xstep_layout_from(&h, &got));
	h.src_step = 4;
	assert_false(pmixev_xstep_layout_from(&h, &got));
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_xstep_layout_pack(&again, &got), 0);
	assert_same(&w, &again);
	pmixev_xstep_layout_release(&got);
	pmixev_xstep_layout_release(NULL);
	/* The START body is bounded by the caller. */
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_layout_unpack(&r, 40, &got), -1);
	assert_strict(&w, un_layout);
	/* No parent: no rank, no spawn answered. */
	m.parent_nspace[0] = '\0';
	REFUSED(pmixev_xstep_layout_pack(&w, &m), &w);
	m.parent_rank = PMIXEV_XSTEP_NO_RANK;
	REFUSED(pmixev_xstep_layout_pack(&w, &m), &w);
	m.spawn_id = 0;
	assert_int_equal(pmixev_xstep_layout_pack(&w, &m), 0);
	assert_int_equal(un_layout(w.data, w.len), 0);
	pmixev_buf_release(&w);
	/* Each refused by pack, and by unpack (START's codec takes them). */
	for (int i = 0; i < 8; i++) {
		layout_fill(&m);
		switch (i) {
		case 0:
			strcpy(m.start.step.node, "n0");
			break;
		case 1:
			m.start.uid = 1000;
			break;
		case 2:
			strcpy(m.start.task_dir, "/tmp/x");
			break;
		case 3:
			m.start.timeout_sec = 300;
			break;
		case 4:
			strcpy(m.start.step_cores, "0-3");
			break;
		case 5:
			strcpy(m.start.nspace, "slurm.pmixev.7.4");
			break;
		case 6:
			m.start.step.step_id = PMIXEV_XSTEP_STEP_LIMIT;
			strcpy(m.start.nspace, "slurm.pmixev.7.4294967280");
			break;
		default:
			m.start.nodeid = 1;
			break;
		}
		REFUSED(pmixev_xstep_layout_pack(&w, &m), &w);
		layout_raw(&w, &m);
		assert_int_equal(un_layout(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
	/* A START that START's codec refuses. */
	layout_fill(&m);
	m.start.node_of[4] = 3;
	REFUSED(pmixev_xstep_layout_pack(&w, &m), &w);
	m.start.node_of[4] = 2;
}

static void test_layout_alloc(void **state)
{
	struct pmixev_buf w;

	(void)state;
	/* START's counts claim 65536 nodes and 2^24 ranks in its 100
	 * bytes of fixed fields, with nothing after them. */
	pmixev_buf_init(&w);
	pmixev_buf_put_u64(&w, 1);
	pmixev_buf_put_str(&w, "slurm.pmixev.7.1");
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, 100);
	pmixev_buf_put_u32(&w, 7);
	pmixev_buf_put_u32(&w, 3);
	pmixev_buf_put_u32(&w, 65536);
	pmixev_buf_put_u32(&w, 1u << 24);
	for (int i = 0; i < 21; i++) /* nodeid 0, napps 1, the rest 0 */
		pmixev_buf_put_u32(&w, i == 3);
	assert_int_equal(w.len, 8 + 20 + 4 + 4 + 100);
	calloc_max = 0;
	assert_int_equal(un_layout(w.data, w.len), -1);
	assert_true(calloc_max < 32768);
	pmixev_buf_release(&w);
	/* A START byte string longer than the body. */
	pmixev_buf_put_u64(&w, 1);
	pmixev_buf_put_str(&w, "");
	pmixev_buf_put_u32(&w, PMIXEV_XSTEP_NO_RANK);
	pmixev_buf_put_u32(&w, 0xffffffffu);
	calloc_max = 0;
	assert_int_equal(un_layout(w.data, w.len), -1);
	assert_true(calloc_max < 32768);
	pmixev_buf_release(&w);
}

static void test_ready(void **state)
{
	struct pmixev_xstep_ready m = {.spawn_id = 9,
				       .status = PMIXEV_ERR_FAILED,
				       .failed_rank = 3,
				       .exit_class = -181,
				       .reason =
					       "rank 3 exited with status 127"},
				  got;
	struct pmixev_buf w, r, again;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_xstep_ready_pack(&w, &m), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_ready_unpack(&r, &got), 0);
	assert_int_equal(got.spawn_id, 9);
	assert_int_equal(got.status, PMIXEV_ERR_FAILED);
	assert_int_equal(got.failed_rank, 3);
	assert_int_equal(got.exit_class, -181);
	assert_string_equal(got.reason, m.reason);
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_xstep_ready_pack(&again, &got), 0);
	assert_same(&w, &again);
	assert_strict(&w, un_ready);
	for (int i = 0; i < 6; i++) {
		struct pmixev_xstep_ready t = {
			.spawn_id = 9, .failed_rank = PMIXEV_XSTEP_NO_RANK};

		switch (i) {
		case 0:
			t.spawn_id = 0;
			break;
		case 1:
			t.failed_rank = 0;
			break;
		case 2:
			t.exit_class = 1;
			break;
		case 3:
			strcpy(t.reason, "x");
			break;
		case 4:
			t.status = PMIXEV_RESULT_COUNT;
			break;
		default:
			memset(t.reason, 'a', sizeof(t.reason));
		}
		pmixev_buf_init(&w);
		REFUSED(pmixev_xstep_ready_pack(&w, &t), &w);
		pmixev_buf_put_u64(&w, t.spawn_id);
		pmixev_buf_put_u8(&w, (uint8_t)t.status);
		pmixev_buf_put_u32(&w, t.failed_rank);
		pmixev_buf_put_i32(&w, t.exit_class);
		pmixev_buf_put_bytes(&w, t.reason,
				     strnlen(t.reason, sizeof(t.reason)));
		assert_int_equal(un_ready(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
	m = (struct pmixev_xstep_ready){.spawn_id = 1,
					.failed_rank = PMIXEV_XSTEP_NO_RANK};
	assert_int_equal(pmixev_xstep_ready_pack(&w, &m), 0);
	assert_int_equal(un_ready(w.data, w.len), 0);
	pmixev_buf_release(&w);
}

static void test_coll(void **state)
{
	struct pmixev_xstep_coll m = {.kind = PMIXEV_COLL_CONNECT,
				      .sig = "7.1:*@7.3:0-2",
				      .seq = 5,
				      .data = (const uint8_t *)"abc",
				      .ndata = 3},
				 got;
	struct pmixev_buf w, r, again;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_xstep_coll_pack(&w, &m), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_coll_unpack(&r, 3, &got), 0);
	assert_int_equal(got.kind, PMIXEV_COLL_CONNECT);
	assert_string_equal(got.sig, m.sig);
	assert_int_equal(got.seq, 5);
	assert_memory_equal(got.data, "abc", 3);
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_xstep_coll_pack(&again, &got), 0);
	assert_same(&w, &again);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_coll_unpack(&r, 2, &got), -1);
	assert_strict(&w, un_coll);
	for (int i = 0; i < 5; i++) {
		struct pmixev_xstep_coll t = m;

		switch (i) {
		case 0:
			t.kind = 0;
			break;
		case 1:
			t.kind = PMIXEV_COLL_GROUP_DESTRUCT + 1;
			break;
		case 2:
			t.sig[0] = '\0';
			break;
		case 3:
			t.result = PMIXEV_ERR_TIMEOUT;
			break; /* and data */
		default:
			t.result = PMIXEV_RESULT_COUNT;
		}
		pmixev_buf_init(&w);
		REFUSED(pmixev_xstep_coll_pack(&w, &t), &w);
		pmixev_buf_put_u8(&w, (uint8_t)t.kind);
		pmixev_buf_put_str(&w, t.sig);
		pmixev_buf_put_u64(&w, t.seq);
		pmixev_buf_put_u8(&w, (uint8_t)t.result);
		pmixev_buf_put_bytes(&w, t.data, t.ndata);
		assert_int_equal(un_coll(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
	/* A failed collective without data. */
	m.result = PMIXEV_ERR_UNREACH;
	m.ndata = 0;
	assert_int_equal(pmixev_xstep_coll_pack(&w, &m), 0);
	assert_int_equal(un_coll(w.data, w.len), 0);
	pmixev_buf_release(&w);
}

static void test_dmodex(void **state)
{
	struct pmixev_xstep_dmodex_req q = {.sid = 11,
					    .rank = 4,
					    .timeout_sec = 30},
				       qgot;
	struct pmixev_xstep_dmodex_resp a = {.sid = 11,
					     .data = (const uint8_t *)"blob",
					     .ndata = 4},
					agot;
	struct pmixev_buf w, r, again;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_xstep_dmodex_req_pack(&w, &q), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_dmodex_req_unpack(&r, 5, &qgot), 0);
	assert_memory_equal(&qgot, &q, sizeof(q));
	/* The rank is the receiving step's. */
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_dmodex_req_unpack(&r, 4, &qgot), -1);
	assert_strict(&w, un_dreq);
	q.rank = PMIXEV_XSTEP_NO_RANK;
	REFUSED(pmixev_xstep_dmodex_req_pack(&w, &q), &w);

	assert_int_equal(pmixev_xstep_dmodex_resp_pack(&w, &a), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_dmodex_resp_unpack(&r, 4, &agot), 0);
	assert_memory_equal(agot.data, "blob", 4);
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_xstep_dmodex_resp_pack(&again, &agot), 0);
	assert_same(&w, &again);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_xstep_dmodex_resp_unpack(&r, 3, &agot), -1);
	assert_strict(&w, un_dresp);
	/* Data only with success; a known result. */
	a.result = PMIXEV_ERR_NOT_FOUND;
	REFUSED(pmixev_xstep_dmodex_resp_pack(&w, &a), &w);
	pmixev_buf_put_u64(&w, 11);
	pmixev_buf_put_u8(&w, PMIXEV_ERR_NOT_FOUND);
	pmixev_buf_put_bytes(&w, "blob", 4);
	assert_int_equal(un_dresp(w.data, w.len), -1);
	pmixev_buf_release(&w);
	a.ndata = 0;
	assert_int_equal(pmixev_xstep_dmodex_resp_pack(&w, &a), 0);
	assert_int_equal(un_dresp(w.data, w.len), 0);
	pmixev_buf_release(&w);
	a.result = PMIXEV_RESULT_COUNT;
	REFUSED(pmixev_xstep_dmodex_resp_pack(&w, &a), &w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_ok),
		cmocka_unit_test(test_hdr),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_layout_alloc),
		cmocka_unit_test(test_ready),
		cmocka_unit_test(test_coll),
		cmocka_unit_test(test_dmodex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
