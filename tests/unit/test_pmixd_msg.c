/*
 * Unit tests for common/pmixev_pmixd_msg.c and _coll.c: the
 * frame header, round trips (strict: no prefix and no trailing byte
 * unpacks), and every refusal of the bounds root applies to O's messages.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixd_fixture.h"
#include "pmixev_pmixd_coll.h"
#include "pmixev_pmixd_start.h"
#include "proto_strict.h"

UNPACKER(un_abort, struct pmixev_pmixd_abort,
	 pmixev_pmixd_abort_unpack(&r, &fx, &m))
UNPACKER(un_done, struct pmixev_pmixd_done, pmixev_pmixd_done_unpack(&r, &m))
UNPACKER(un_client, struct pmixev_pmixd_client_state,
	 pmixev_pmixd_client_state_unpack(&r, &fx, &m))
UNPACKER(un_alert, struct pmixev_pmixd_alert_msg,
	 pmixev_pmixd_alert_unpack(&r, &fx, &m))
UNPACKER(un_ckpt, struct pmixev_pmixd_ckpt_done,
	 pmixev_pmixd_ckpt_done_unpack(&r, &fx, &m))
UNPACKER(un_line, struct pmixev_pmixd_log_line,
	 pmixev_pmixd_log_line_unpack(&r, &m))
UNPACKER(un_seq, uint64_t, pmixev_pmixd_seq_unpack(&r, &m))
UNPACKER(un_notify, struct pmixev_notify_msg,
	 pmixev_pmixd_notify_unpack(&r, &fx, &m))
UNPACKER(un_inject, struct pmixev_pmixd_inject,
	 pmixev_pmixd_inject_unpack(&r, &m))
static void test_header(void **state)
{
	uint8_t h[PMIXEV_PMIXD_HDR_LEN], type = 0;
	uint32_t len = 0;
	const char *why = NULL;

	(void)state;
	pmixev_pmixd_hdr_encode(PMIXEV_PMIXD_FENCE, 77, h);
	assert_int_equal(pmixev_pmixd_hdr_decode(h, 11, 100,
						 PMIXEV_PMIXD_FROM_OWNER, &type,
						 &len, &why),
			 0);
	assert_int_equal(pmixev_pmixd_hdr_decode(h, sizeof(h), 100,
						 PMIXEV_PMIXD_FROM_OWNER, &type,
						 &len, &why),
			 1);
	assert_int_equal(type, PMIXEV_PMIXD_FENCE);
	assert_int_equal(len, 77);
	/* Root's type from O, too long, bad magic/version/flags/type. */
	assert_int_equal(pmixev_pmixd_hdr_decode(h, sizeof(h), 100,
						 PMIXEV_PMIXD_FROM_ROOT, &type,
						 &len, &why),
			 -1);
	assert_string_equal(why, "message type of the other side");
	assert_int_equal(pmixev_pmixd_hdr_decode(h, sizeof(h), 76,
						 PMIXEV_PMIXD_FROM_OWNER, &type,
						 &len, &why),
			 -1);
	for (size_t off = 0; off < 8; off++) {
		uint8_t bad[PMIXEV_PMIXD_HDR_LEN];

		if (off == 5)
			continue;
		memcpy(bad, h, sizeof(bad));
		bad[off] ^= 0x40;
		assert_int_equal(
			pmixev_pmixd_hdr_decode(bad, sizeof(bad), 100,
						PMIXEV_PMIXD_FROM_OWNER, &type,
						&len, &why),
			-1);
	}
	pmixev_pmixd_hdr_encode(0, 0, h);
	assert_int_equal(pmixev_pmixd_hdr_decode(h, sizeof(h), 100,
						 PMIXEV_PMIXD_FROM_ROOT, &type,
						 &len, &why),
			 -1);
	pmixev_pmixd_hdr_encode(PMIXEV_PMIXD_TYPE_MAX + 1, 0, h);
	assert_int_equal(pmixev_pmixd_hdr_decode(h, sizeof(h), 100,
						 PMIXEV_PMIXD_FROM_ROOT, &type,
						 &len, &why),
			 -1);
	pmixev_pmixd_hdr_encode(PMIXEV_PMIXD_FINI, 0, h);
	assert_int_equal(pmixev_pmixd_hdr_decode(h, sizeof(h), 100,
						 PMIXEV_PMIXD_FROM_ROOT, &type,
						 &len, &why),
			 1);
	assert_string_equal(pmixev_pmixd_type_name(PMIXEV_PMIXD_SYNC_ECHO),
			    "SYNC_ECHO");
	assert_string_equal(pmixev_pmixd_type_name(99), "?");
}

static void test_abort_done(void **state)
{
	struct pmixev_pmixd_abort a = {.id = 9, .rank = 3, .status = -2};
	struct pmixev_pmixd_done d = {.id = 5, .result = PMIXEV_ERR_TIMEOUT};
	struct pmixev_buf w;

	(void)state;
	strcpy(a.text, "bye");
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_abort_pack(&w, &a), 0);
	assert_strict(&w, un_abort);
	a.rank = 4; /* node 1's */
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_abort_pack(&w, &a), 0);
	assert_int_equal(un_abort(w.data, w.len), -1);
	pmixev_buf_release(&w);
	memset(a.text, 'x', sizeof(a.text));
	assert_int_equal(pmixev_pmixd_abort_pack(&w, &a), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(w.len, 0);

	assert_int_equal(pmixev_pmixd_done_pack(&w, &d), 0);
	assert_strict(&w, un_done);
	d.result = PMIXEV_RESULT_COUNT;
	assert_int_equal(pmixev_pmixd_done_pack(&w, &d), -1);
	pmixev_buf_put_u64(&w, 1);
	pmixev_buf_put_u8(&w, PMIXEV_RESULT_COUNT);
	assert_int_equal(un_done(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

static void test_small_claims(void **state)
{
	struct pmixev_pmixd_client_state c = {2, PMIXEV_PMIXD_FINALIZED};
	struct pmixev_pmixd_alert_msg al = {.rank = 0,
					    .code = PMIXEV_PMIXD_FILE};
	struct pmixev_pmixd_ckpt_done k = {
		.rank = 1, .has_id = true, .id = "ck1"};
	struct pmixev_buf w;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_client_state_pack(&w, &c), 0);
	assert_strict(&w, un_client);
	assert_int_equal(pmixev_pmixd_alert_pack(&w, &al), 0);
	assert_strict(&w, un_alert);
	assert_int_equal(pmixev_pmixd_ckpt_done_pack(&w, &k), 0);
	assert_strict(&w, un_ckpt);
	/* Off-node and out-of-step ranks, unknown states and codes. */
	for (uint32_t rank = 4; rank <= 8; rank += 4) {
		pmixev_buf_put_u32(&w, rank);
		pmixev_buf_put_u8(&w, 1);
		assert_int_equal(un_client(w.data, w.len), -1);
		assert_int_equal(un_alert(w.data, w.len), -1);
		pmixev_buf_release(&w);
		pmixev_buf_put_u32(&w, rank);
		pmixev_buf_put_u8(&w, 1);
		pmixev_buf_put_str(&w, "ck");
		assert_int_equal(un_ckpt(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
	for (uint8_t v = 0; v < 5; v += 4) {
		pmixev_buf_put_u32(&w, 0);
		pmixev_buf_put_u8(&w, v);
		assert_int_equal(un_client(w.data, w.len), -1);
		assert_int_equal(un_alert(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
	c.state = 3;
	al.code = 4;
	assert_int_equal(pmixev_pmixd_client_state_pack(&w, &c), -1);
	assert_int_equal(pmixev_pmixd_alert_pack(&w, &al), -1);
}

/* A refused monitor: the requester as claimed, and the key it asked. */
static void test_alert_other(void **state)
{
	struct pmixev_pmixd_alert_msg al = {
		.rank = 6, .code = PMIXEV_PMIXD_MONITOR_OTHER, .key = "m.x"};
	struct pmixev_buf w;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_alert_pack(&w, &al), 0);
	assert_strict(&w, un_alert);	/* off this node: a claim */
	al.rank = PMIXEV_PMIXD_NO_RANK; /* a tool */
	assert_int_equal(pmixev_pmixd_alert_pack(&w, &al), 0);
	assert_strict(&w, un_alert);
	al.rank = 8; /* outside the step (packable: only the step knows) */
	assert_int_equal(pmixev_pmixd_alert_pack(&w, &al), 0);
	assert_int_equal(un_alert(w.data, w.len), -1);
	pmixev_buf_release(&w);
	/* No key for an alert; the key within its cap. */
	al = (struct pmixev_pmixd_alert_msg){
		.rank = 0, .code = PMIXEV_PMIXD_HEARTBEAT, .key = "k"};
	assert_int_equal(pmixev_pmixd_alert_pack(&w, &al), -1);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u8(&w, PMIXEV_PMIXD_HEARTBEAT);
	pmixev_buf_put_str(&w, "k");
	assert_int_equal(un_alert(w.data, w.len), -1);
	pmixev_buf_release(&w);
	al.code = PMIXEV_PMIXD_MONITOR_OTHER;
	memset(al.key, 'k', sizeof(al.key));
	assert_int_equal(pmixev_pmixd_alert_pack(&w, &al), -1);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u8(&w, PMIXEV_PMIXD_MONITOR_OTHER);
	pmixev_buf_put_bytes(&w, al.key, sizeof(al.key));
	assert_int_equal(un_alert(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

/* A completion names its checkpoint, or none: then its id is empty. */
static void test_ckpt_done(void **state)
{
	struct pmixev_pmixd_ckpt_done k = {.rank = 1};
	struct pmixev_buf w;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_ckpt_done_pack(&w, &k), 0);
	assert_strict(&w, un_ckpt);
	k.has_id = true; /* the empty id, named */
	assert_int_equal(pmixev_pmixd_ckpt_done_pack(&w, &k), 0);
	assert_strict(&w, un_ckpt);
	k = (struct pmixev_pmixd_ckpt_done){.rank = 1, .id = "c1"};
	assert_int_equal(pmixev_pmixd_ckpt_done_pack(&w, &k), -1);
	for (uint8_t f = 0; f < 3; f += 2) {
		pmixev_buf_put_u32(&w, 1);
		pmixev_buf_put_u8(&w, f); /* no id, yet one; not a flag */
		pmixev_buf_put_str(&w, "c1");
		assert_int_equal(un_ckpt(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
	memset(k.id, 'i', sizeof(k.id));
	k.has_id = true;
	assert_int_equal(pmixev_pmixd_ckpt_done_pack(&w, &k), -1);
}

static void test_line_seq(void **state)
{
	struct pmixev_pmixd_log_line l = {.level = 7, .text = "lib: hi"};
	struct pmixev_buf w;
	uint64_t seq = 0;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_log_line_pack(&w, &l), 0);
	assert_strict(&w, un_line);
	l.level = 8;
	assert_int_equal(pmixev_pmixd_log_line_pack(&w, &l), -1);
	pmixev_buf_put_u8(&w, 8);
	pmixev_buf_put_str(&w, "x");
	assert_int_equal(un_line(w.data, w.len), -1);
	pmixev_buf_release(&w);
	assert_int_equal(pmixev_pmixd_seq_pack(&w, 42), 0);
	assert_strict(&w, un_seq);
	assert_int_equal(pmixev_pmixd_seq_pack(&w, 42), 0);
	{
		struct pmixev_buf r;

		fx_reader(&r, &w);
		assert_int_equal(pmixev_pmixd_seq_unpack(&r, &seq), 0);
		assert_int_equal(seq, 42);
		pmixev_buf_reader(&r, w.data, 0);
		assert_int_equal(pmixev_pmixd_empty_unpack(&r), 0);
		fx_reader(&r, &w);
		assert_int_equal(pmixev_pmixd_empty_unpack(&r), -1);
	}
	pmixev_buf_release(&w);
}

/* Pack `n` and check un_notify's verdict. */
static void notify_case(const struct pmixev_notify_msg *n, int want)
{
	struct pmixev_buf w;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_notify_pack(&w, n), 0);
	assert_int_equal(un_notify(w.data, w.len), want);
	pmixev_buf_release(&w);
}

static void test_notify(void **state)
{
	static const uint8_t info[65] = {1};
	struct pmixev_notify_msg n = {.rank = 5, .code = -1, .range = 7};
	struct pmixev_buf w;

	(void)state;
	strcpy(n.nspace, fx.nspace);
	n.info = info;
	n.ninfo = 64;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_notify_pack(&w, &n), 0);
	assert_strict(&w, un_notify);
	n.ninfo = 65; /* above event_max */
	notify_case(&n, -1);
	n.ninfo = 1;
	n.range = 8;
	notify_case(&n, -1);
	assert_int_equal(pmixev_pmixd_notify_pack(&w, &n), -1);
	n.range = 0;
	n.rank = 8;
	notify_case(&n, -1);
	strcpy(n.nspace, "slurm.pmixev.7.0.tool.3"); /* any tool rank */
	notify_case(&n, 0);
	strcpy(n.nspace, fx.srv_nspace);
	n.rank = 0;
	notify_case(&n, -1);
	strcpy(n.nspace, "slurm.pmixev.7.1");
	notify_case(&n, -1);
	strcpy(n.nspace, "slurm.pmixev.7.0.toolx");
	notify_case(&n, -1);
}

static void test_inject(void **state)
{
	struct pmixev_pmixd_inject in = {.kind = PMIXEV_PMIXD_INJECT_EVENT};
	struct pmixev_buf w;

	(void)state;
	in.ev.code = -3;
	in.ev.rank = 2;
	strcpy(in.ev.text, "exit");
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), 0);
	assert_strict(&w, un_inject);
	in.kind = PMIXEV_PMIXD_INJECT_NOTIFY;
	in.origin = 2;
	strcpy(in.nt.nspace, "x");
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), 0);
	assert_strict(&w, un_inject);
	in.kind = PMIXEV_PMIXD_INJECT_CKPT;
	in.ev.rank = PMIXEV_EVENT_NO_RANK;
	strcpy(in.ev.text, "ck-1");
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), 0);
	assert_strict(&w, un_inject);
	/* A spawned step's rank: its namespace and the spawner, checked. */
	in.kind = PMIXEV_PMIXD_INJECT_CHILD;
	in.ev.rank = 3;
	strcpy(in.child, "slurm.pmixev.7.1");
	in.to_rank = 0;
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), 0);
	assert_strict(&w, un_inject);
	in.ev.rank = PMIXEV_EVENT_NO_RANK; /* a child's end has a rank */
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), -1);
	/* ... the whole child step's end has none. */
	in.ev.code = PMIXEV_PMIXD_JOB_END;
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), 0);
	assert_strict(&w, un_inject);
	in.ev.rank = 3;
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), -1);
	in.ev.code = -3;
	strcpy(in.child, "slurm.pmixev.7"); /* not a step's namespace */
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), -1);
	strcpy(in.child, "slurm.pmixev.7.1");
	in.to_rank = PMIXEV_PMIXD_START_RANK_MAX;
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), -1);
	/* No spawner here: for the ranks connected to the child step only;
	 * the whole step's end goes to its spawner alone. */
	in.to_rank = PMIXEV_PMIXD_NO_RANK;
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), 0);
	assert_strict(&w, un_inject);
	in.ev.code = PMIXEV_PMIXD_JOB_END;
	in.ev.rank = PMIXEV_EVENT_NO_RANK;
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), -1);
	in.kind = 5;
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), -1);
	in.kind = PMIXEV_PMIXD_INJECT_EVENT;
	in.ev.flags = 0x80; /* refused by the event's own pack */
	assert_int_equal(pmixev_pmixd_inject_pack(&w, &in), -1);
	assert_int_equal(w.len, 0);
	pmixev_buf_put_u8(&w, 0);
	assert_int_equal(un_inject(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_abort_done),
		cmocka_unit_test(test_small_claims),
		cmocka_unit_test(test_alert_other),
		cmocka_unit_test(test_ckpt_done),
		cmocka_unit_test(test_line_seq),
		cmocka_unit_test(test_notify),
		cmocka_unit_test(test_inject),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
