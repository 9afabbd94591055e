/*
 * Unit tests for common/pmixev_proto.c: wire bytes, round trips, and the
 * rejection of truncated, trailing, oversized and malformed bodies.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_frame.h"
#include "pmixev_proto.h"
#include "proto_strict.h"

static int unpack_ident(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_ident m;

	pmixev_buf_reader(&r, data, len);
	return pmixev_ident_unpack(&r, &m);
}

static int unpack_cred(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	const uint8_t *p;
	size_t n;

	pmixev_buf_reader(&r, data, len);
	return pmixev_cred_unpack(&r, &p, &n);
}

static int unpack_table(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_table m;

	pmixev_buf_reader(&r, data, len);
	if (pmixev_table_unpack(&r, &m) < 0)
		return -1;
	free(m.nodes);
	return 0;
}

static int unpack_fence(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_fence_msg m;

	pmixev_buf_reader(&r, data, len);
	return pmixev_fence_unpack(&r, &m);
}

static int unpack_dmdx_req(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_dmdx_req m;

	pmixev_buf_reader(&r, data, len);
	return pmixev_dmdx_req_unpack(&r, &m);
}

static int unpack_dmdx_resp(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_dmdx_resp m;

	pmixev_buf_reader(&r, data, len);
	return pmixev_dmdx_resp_unpack(&r, &m);
}

static int unpack_abort(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_abort_msg m;

	pmixev_buf_reader(&r, data, len);
	return pmixev_abort_unpack(&r, &m);
}

static int unpack_notice(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_notice_msg m;

	pmixev_buf_reader(&r, data, len);
	return pmixev_notice_unpack(&r, &m);
}

static void sample_ident(struct pmixev_ident *m)
{
	memset(m, 0, sizeof(*m));
	m->job_id = 0x01020304;
	m->step_id = 5;
	m->from = 6;
	m->to = PMIXEV_NODE_SRUN;
	strcpy(m->host, "h1");
	m->port = 8080;
	m->nonce = 0x1122334455667788ULL;
}

static void test_ident_bytes(void **state)
{
	static const uint8_t want[] = {
		0x01, 0x02, 0x03, 0x04, 0,    0,    0,	  5,	0,    0,    0,
		6,    0xff, 0xff, 0xff, 0xfe, 0,    0,	  0,	2,    'h',  '1',
		0x1f, 0x90, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	};
	struct pmixev_ident in, out;
	struct pmixev_buf w, r;

	sample_ident(&in);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_ident_pack(&w, &in), 0);
	assert_int_equal(w.len, sizeof(want));
	assert_memory_equal(w.data, want, sizeof(want));

	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_ident_unpack(&r, &out), 0);
	assert_int_equal(out.job_id, 0x01020304);
	assert_int_equal(out.step_id, 5);
	assert_int_equal(out.from, 6);
	assert_int_equal(out.to, PMIXEV_NODE_SRUN);
	assert_string_equal(out.host, "h1");
	assert_int_equal(out.port, 8080);
	assert_true(out.nonce == 0x1122334455667788ULL);
	assert_strict(&w, unpack_ident);
}

static void test_cred(void **state)
{
	static const uint8_t cred[] = {'M', 'U', 'N', 0, 'G', 'E'};
	struct pmixev_buf w, r;
	const uint8_t *p = NULL;
	size_t n = 0;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_cred_pack(&w, cred, sizeof(cred)), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_cred_unpack(&r, &p, &n), 0);
	assert_int_equal(n, sizeof(cred));
	assert_memory_equal(p, cred, sizeof(cred));
	assert_ptr_equal(p, w.data + 4);
	assert_strict(&w, unpack_cred);

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_cred_pack(&w, NULL, 0), 0);
	assert_int_equal(w.len, 4);
	assert_strict(&w, unpack_cred);
}

static void test_table(void **state)
{
	struct pmixev_table_entry nodes[3] = {
		{"node-a", 1}, {"10.0.0.2", 65535}, {"", 0}};
	struct pmixev_table in = {.job_id = 7,
				  .step_id = 0xfffffffb,
				  .nnodes = 3,
				  .nodes = nodes};
	struct pmixev_table out;
	struct pmixev_buf w, r;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_table_pack(&w, &in), 0);
	assert_int_equal(w.len, 12 + (4 + 6 + 2) + (4 + 8 + 2) + (4 + 0 + 2));
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_table_unpack(&r, &out), 0);
	assert_int_equal(out.job_id, 7);
	assert_int_equal(out.step_id, 0xfffffffb);
	assert_int_equal(out.nnodes, 3);
	assert_non_null(out.nodes);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(out.nodes[i].host, nodes[i].host);
		assert_int_equal(out.nodes[i].port, nodes[i].port);
	}
	free(out.nodes);
	assert_strict(&w, unpack_table);
}

/* A table header claiming `nnodes` followed by `present` empty entries. */
static void make_table(struct pmixev_buf *w, uint32_t nnodes, uint32_t present)
{
	pmixev_buf_init(w);
	pmixev_buf_put_u32(w, 1);
	pmixev_buf_put_u32(w, 2);
	pmixev_buf_put_u32(w, nnodes);
	for (uint32_t i = 0; i < present; i++) {
		pmixev_buf_put_str(w, "");
		pmixev_buf_put_u16(w, (uint16_t)i);
	}
	assert_true(pmixev_buf_ok(w));
}

/* Unpacking the table in `w` fails and leaves `out` as it was. */
static void assert_table_rejected(struct pmixev_buf *w)
{
	struct pmixev_table out = {.nnodes = 42, .nodes = (void *)&out};
	struct pmixev_buf r;

	pmixev_buf_reader(&r, w->data, w->len);
	assert_int_equal(pmixev_table_unpack(&r, &out), -1);
	assert_int_equal(out.nnodes, 42);
	assert_ptr_equal(out.nodes, &out);
	pmixev_buf_release(w);
}

static void test_table_counts(void **state)
{
	struct pmixev_buf w, r;
	struct pmixev_table out;

	make_table(&w, 0, 0);
	assert_table_rejected(&w);
	make_table(&w, PMIXEV_MAX_NODES + 1, 0);
	assert_table_rejected(&w);
	make_table(&w, PMIXEV_MAX_NODES + 1, PMIXEV_MAX_NODES + 1);
	assert_table_rejected(&w);
	make_table(&w, UINT32_MAX, 1);
	assert_table_rejected(&w);
	make_table(&w, 1000, 10);
	assert_table_rejected(&w);
	/*
	 * A count the remaining bytes cannot hold is refused before the
	 * entries are allocated or read: the reader stops after the count.
	 */
	make_table(&w, 1000, 10);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_table_unpack(&r, &out), -1);
	assert_int_equal(r.pos, 12);
	pmixev_buf_release(&w);
	make_table(&w, 11, 10);
	assert_table_rejected(&w);
	make_table(&w, 9, 10);
	assert_table_rejected(&w);
	/* The largest table is accepted. */
	make_table(&w, PMIXEV_MAX_NODES, PMIXEV_MAX_NODES);
	assert_int_equal(unpack_table(w.data, w.len), 0);
	pmixev_buf_release(&w);
	make_table(&w, 1, 1);
	assert_int_equal(unpack_table(w.data, w.len), 0);
	pmixev_buf_release(&w);
}

static void test_fence(void **state)
{
	static const uint8_t data[] = {1, 2, 3, 0, 5};
	struct pmixev_fence_msg in = {.sig = "0-3,7",
				      .kind = PMIXEV_COLL_DISCONNECT,
				      .seq = 1ULL << 40,
				      .result = PMIXEV_ERR_UNREACH,
				      .collect = 1,
				      .data = data,
				      .ndata = sizeof(data)};
	struct pmixev_fence_msg out;
	struct pmixev_buf w, r;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_fence_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_fence_unpack(&r, &out), 0);
	assert_string_equal(out.sig, "0-3,7");
	assert_int_equal(out.kind, PMIXEV_COLL_DISCONNECT);
	assert_true(out.seq == 1ULL << 40);
	assert_int_equal(out.result, PMIXEV_ERR_UNREACH);
	assert_int_equal(out.collect, 1);
	assert_int_equal(out.ndata, sizeof(data));
	assert_memory_equal(out.data, data, sizeof(data));
	assert_ptr_equal(out.data, w.data + w.len - sizeof(data));
	assert_strict(&w, unpack_fence);

	in.collect = 0;
	in.data = NULL;
	in.ndata = 0;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_fence_pack(&w, &in), 0);
	assert_strict(&w, unpack_fence);
}

/* A fence body with `kind`, `result` and `collect` as given. */
static void make_fence(struct pmixev_buf *w, uint8_t kind, uint8_t result,
		       uint8_t collect)
{
	pmixev_buf_init(w);
	pmixev_buf_put_str(w, "s");
	pmixev_buf_put_u8(w, kind);
	pmixev_buf_put_u64(w, 9);
	pmixev_buf_put_u8(w, result);
	pmixev_buf_put_u8(w, collect);
	pmixev_buf_put_bytes(w, NULL, 0);
}

static void test_fence_bad_fields(void **state)
{
	static const uint8_t bad[][3] = {
		{PMIXEV_COLL_FENCE, PMIXEV_OK, 2},
		{0, PMIXEV_OK, 0},
		{PMIXEV_COLL_GROUP_DESTRUCT + 1, PMIXEV_OK, 0},
		{PMIXEV_COLL_FENCE, PMIXEV_RESULT_COUNT, 0},
		{PMIXEV_COLL_FENCE, 0xff, 0}};
	struct pmixev_fence_msg out = {.seq = 3};
	struct pmixev_buf w, r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_fence(&w, bad[i][0], bad[i][1], bad[i][2]);
		pmixev_buf_reader(&r, w.data, w.len);
		assert_int_equal(pmixev_fence_unpack(&r, &out), -1);
		assert_int_equal(out.seq, 3);
		pmixev_buf_release(&w);
	}
	make_fence(&w, PMIXEV_COLL_CONNECT, PMIXEV_RESULT_COUNT - 1, 1);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_fence_unpack(&r, &out), 0);
	assert_int_equal(out.kind, PMIXEV_COLL_CONNECT);
	assert_int_equal(out.result, PMIXEV_RESULT_COUNT - 1);
	pmixev_buf_release(&w);
	/* The group kinds travel between stepds too. */
	make_fence(&w, PMIXEV_COLL_GROUP_CONSTRUCT, PMIXEV_OK, 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_fence_unpack(&r, &out), 0);
	assert_int_equal(out.kind, PMIXEV_COLL_GROUP_CONSTRUCT);
	pmixev_buf_release(&w);
	make_fence(&w, PMIXEV_COLL_GROUP_DESTRUCT, PMIXEV_OK, 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_fence_unpack(&r, &out), 0);
	assert_int_equal(out.kind, PMIXEV_COLL_GROUP_DESTRUCT);
	pmixev_buf_release(&w);
}

static void test_dmdx_req_bytes(void **state)
{
	static const uint8_t want[] = {
		0,   0,	  0,   0,   0, 0, 0x01, 0x00, 0, 0, 0, 4,
		'j', 'o', 'b', '1', 0, 0, 0,	9,    0, 0, 0, 0,
	};
	struct pmixev_dmdx_req in = {
		.id = 256, .nspace = "job1", .rank = 9, .timeout_sec = 0};
	struct pmixev_dmdx_req out;
	struct pmixev_buf w, r;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_dmdx_req_pack(&w, &in), 0);
	assert_int_equal(w.len, sizeof(want));
	assert_memory_equal(w.data, want, sizeof(want));
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_dmdx_req_unpack(&r, &out), 0);
	assert_int_equal(out.id, 256);
	assert_string_equal(out.nspace, "job1");
	assert_int_equal(out.rank, 9);
	assert_int_equal(out.timeout_sec, 0);
	assert_strict(&w, unpack_dmdx_req);
}

static void test_dmdx_resp(void **state)
{
	static const uint8_t blob[300] = {[0] = 1, [299] = 0xfe};
	struct pmixev_dmdx_resp in = {.id = UINT64_MAX,
				      .result = PMIXEV_RESULT_COUNT - 1,
				      .data = blob,
				      .ndata = sizeof(blob)};
	struct pmixev_dmdx_resp out;
	struct pmixev_buf w, r;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_dmdx_resp_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_dmdx_resp_unpack(&r, &out), 0);
	assert_true(out.id == UINT64_MAX);
	assert_int_equal(out.result, PMIXEV_RESULT_COUNT - 1);
	assert_int_equal(out.ndata, sizeof(blob));
	assert_memory_equal(out.data, blob, sizeof(blob));
	assert_strict(&w, unpack_dmdx_resp);

	/* An unknown result is refused. */
	pmixev_buf_init(&w);
	pmixev_buf_put_u64(&w, 1);
	pmixev_buf_put_u8(&w, PMIXEV_RESULT_COUNT);
	pmixev_buf_put_bytes(&w, NULL, 0);
	assert_int_equal(unpack_dmdx_resp(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

static void test_abort(void **state)
{
	struct pmixev_abort_msg in = {.status = 1, .rank = 3};
	struct pmixev_abort_msg out;
	struct pmixev_buf w, r;

	/* The longest text that fits. */
	memset(in.text, 'x', sizeof(in.text) - 1);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_abort_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_abort_unpack(&r, &out), 0);
	assert_int_equal(out.status, 1);
	assert_int_equal(out.rank, 3);
	assert_int_equal(strlen(out.text), PMIXEV_MSG_TEXT_MAX - 1);
	assert_strict(&w, unpack_abort);
}

static void test_notice(void **state)
{
	struct pmixev_notice_msg in, out;
	struct pmixev_buf w, r;

	memset(in.text, 'y', sizeof(in.text) - 1);
	in.text[sizeof(in.text) - 1] = '\0';
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_notice_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_notice_unpack(&r, &out), 0);
	assert_string_equal(out.text, in.text);
	assert_strict(&w, unpack_notice);

	/* Unterminated: refused before anything is sent. */
	memset(in.text, 'y', sizeof(in.text));
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_notice_pack(&w, &in), -1);
	pmixev_buf_release(&w);
}

static void test_bad_text(void **state)
{
	char big[PMIXEV_SIG_MAX + 1];
	struct pmixev_buf w;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';

	pmixev_buf_init(&w);
	pmixev_buf_put_i32(&w, 0);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_bytes(&w, "bad\0text", 8);
	assert_int_equal(unpack_abort(w.data, w.len), -1);
	pmixev_buf_release(&w);

	pmixev_buf_init(&w);
	pmixev_buf_put_i32(&w, 0);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_bytes(&w, big, PMIXEV_MSG_TEXT_MAX);
	assert_int_equal(unpack_abort(w.data, w.len), -1);
	pmixev_buf_release(&w);

	pmixev_buf_init(&w);
	pmixev_buf_put_u64(&w, 1);
	pmixev_buf_put_bytes(&w, big, PMIXEV_NSPACE_MAX);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, 0);
	assert_int_equal(unpack_dmdx_req(w.data, w.len), -1);
	pmixev_buf_release(&w);

	pmixev_buf_init(&w);
	pmixev_buf_put_str(&w, big);
	pmixev_buf_put_u8(&w, PMIXEV_COLL_FENCE);
	pmixev_buf_put_u64(&w, 1);
	pmixev_buf_put_u8(&w, PMIXEV_OK);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_put_bytes(&w, NULL, 0);
	assert_int_equal(unpack_fence(w.data, w.len), -1);
	pmixev_buf_release(&w);

	pmixev_buf_init(&w);
	for (int i = 0; i < 4; i++)
		pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_bytes(&w, big, PMIXEV_HOST_MAX);
	pmixev_buf_put_u16(&w, 0);
	pmixev_buf_put_u64(&w, 0);
	assert_int_equal(unpack_ident(w.data, w.len), -1);
	pmixev_buf_release(&w);

	pmixev_buf_init(&w);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_bytes(&w, "h\0", 2);
	pmixev_buf_put_u16(&w, 0);
	assert_int_equal(unpack_table(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

/* Pack refuses what unpack would reject, and leaves the writer alone. */
static void test_pack_refuses(void **state)
{
	struct pmixev_ident id;
	struct pmixev_table_entry node = {.port = 1};
	struct pmixev_table t = {.nnodes = 1, .nodes = &node};
	struct pmixev_fence_msg f = {
		.sig = "s", .kind = PMIXEV_COLL_FENCE, .collect = 2};
	struct pmixev_abort_msg a = {.status = 0};
	struct pmixev_dmdx_req d = {.id = 1};
	struct pmixev_dmdx_resp r = {.id = 1};
	struct pmixev_buf w;

	sample_ident(&id);
	memset(id.host, 'h', sizeof(id.host));
	memset(node.host, 'n', sizeof(node.host));
	memset(a.text, 't', sizeof(a.text));
	memset(d.nspace, 'n', sizeof(d.nspace));

	pmixev_buf_init(&w);
	pmixev_buf_put_u8(&w, 0x5a);
	errno = 0;
	assert_int_equal(pmixev_ident_pack(&w, &id), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pmixev_table_pack(&w, &t), -1);
	assert_int_equal(pmixev_fence_pack(&w, &f), -1);
	f.collect = 0;
	f.kind = 0;
	assert_int_equal(pmixev_fence_pack(&w, &f), -1);
	f.kind = PMIXEV_COLL_FENCE;
	f.result = PMIXEV_RESULT_COUNT;
	assert_int_equal(pmixev_fence_pack(&w, &f), -1);
	r.result = PMIXEV_RESULT_COUNT;
	assert_int_equal(pmixev_dmdx_resp_pack(&w, &r), -1);
	assert_int_equal(pmixev_abort_pack(&w, &a), -1);
	assert_int_equal(pmixev_dmdx_req_pack(&w, &d), -1);
	strcpy(node.host, "ok");
	t.nnodes = 0;
	assert_int_equal(pmixev_table_pack(&w, &t), -1);
	t.nnodes = PMIXEV_MAX_NODES + 1;
	assert_int_equal(pmixev_table_pack(&w, &t), -1);
	t.nnodes = 1;
	t.nodes = NULL;
	assert_int_equal(pmixev_table_pack(&w, &t), -1);
	assert_true(pmixev_buf_ok(&w));
	assert_int_equal(w.len, 1);
	t.nodes = &node;
	assert_int_equal(pmixev_table_pack(&w, &t), 0);
	assert_int_equal(w.len, 1 + 12 + 4 + 2 + 2);
	pmixev_buf_release(&w);
}

/* Packing into a writer that already failed reports the failure. */
static void test_pack_failed_writer(void **state)
{
	struct pmixev_dmdx_resp m = {.id = 1};
	struct pmixev_buf w;

	pmixev_buf_init(&w);
	pmixev_buf_put_u8(&w, 0);
	assert_int_equal(pmixev_buf_put_raw(&w, "x", SIZE_MAX), -1);
	assert_int_equal(pmixev_dmdx_resp_pack(&w, &m), -1);
	assert_int_equal(pmixev_cred_pack(&w, "c", 1), -1);
	pmixev_buf_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ident_bytes),
		cmocka_unit_test(test_cred),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_counts),
		cmocka_unit_test(test_fence),
		cmocka_unit_test(test_fence_bad_fields),
		cmocka_unit_test(test_dmdx_req_bytes),
		cmocka_unit_test(test_dmdx_resp),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_notice),
		cmocka_unit_test(test_bad_text),
		cmocka_unit_test(test_pack_refuses),
		cmocka_unit_test(test_pack_failed_writer),
	};

	return cmocka_run_group_tests_name("proto", tests, NULL, NULL);
}
