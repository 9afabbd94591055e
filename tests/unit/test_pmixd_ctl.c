/*
 * Unit tests for common/pmixev_pmixd_ctl.c: query, job control and log
 * messages of the pmixd channel, round trips and refusals.
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
#include "pmixev_pmixd_ctl.h"
#include "proto_strict.h"

static int un_query(const uint8_t *data, size_t len)
{
	struct pmixev_pmixd_query m;
	struct pmixev_buf r;

	pmixev_buf_reader(&r, data, len);
	return pmixev_pmixd_query_unpack(&r, &m);
}

static int un_qdone(const uint8_t *data, size_t len)
{
	static struct pmixev_pmixd_query_done m;
	struct pmixev_buf r;

	pmixev_buf_reader(&r, data, len);
	if (pmixev_pmixd_query_done_unpack(&r, &m) < 0)
		return -1;
	pmixev_pmixd_query_done_release(&m);
	return 0;
}

static int un_jobctl(const uint8_t *data, size_t len)
{
	struct pmixev_pmixd_jobctl m;
	struct pmixev_buf r;

	pmixev_buf_reader(&r, data, len);
	return pmixev_pmixd_jobctl_unpack(&r, &fx, &m);
}

static int un_status(const uint8_t *data, size_t len)
{
	struct pmixev_pmixd_status m;
	struct pmixev_buf r;

	pmixev_buf_reader(&r, data, len);
	return pmixev_pmixd_status_unpack(&r, &m);
}

static int un_log(const uint8_t *data, size_t len)
{
	static struct pmixev_pmixd_log m;
	struct pmixev_buf r;

	pmixev_buf_reader(&r, data, len);
	if (pmixev_pmixd_log_unpack(&r, &fx, &m) < 0)
		return -1;
	pmixev_pmixd_log_release(&m);
	return 0;
}

static void test_query(void **state)
{
	struct pmixev_pmixd_query q = {.id = 1, .refresh = true, .n = 2};
	struct pmixev_buf w;

	(void)state;
	q.item[0] = (struct pmixev_pmixd_qitem){PMIXEV_PMIXD_Q_JOB, 12, false};
	q.item[1] = (struct pmixev_pmixd_qitem){PMIXEV_PMIXD_Q_PTABLE, 0, true};
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_query_pack(&w, &q), 0);
	assert_strict(&w, un_query);
	q.item[1].key = 5;
	assert_int_equal(pmixev_pmixd_query_pack(&w, &q), -1);
	q.item[1].key = PMIXEV_PMIXD_Q_PARTS;
	q.timeout_sec = 86401;
	assert_int_equal(pmixev_pmixd_query_pack(&w, &q), -1);
	q.timeout_sec = 0;
	q.n = PMIXEV_PMIXD_ITEMS_MAX + 1;
	assert_int_equal(pmixev_pmixd_query_pack(&w, &q), -1);
	assert_int_equal(w.len, 0);
	pmixev_buf_put_u64(&w, 1);
	pmixev_buf_put_u8(&w, 2); /* refresh not a flag */
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, 0);
	assert_int_equal(un_query(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

/* A QUERY body of `n` items { key, job, local } as given. */
static void put_query(struct pmixev_buf *w, const uint32_t (*item)[3],
		      uint32_t n)
{
	pmixev_buf_init(w);
	pmixev_buf_put_u64(w, 1);
	pmixev_buf_put_u8(w, 0);
	pmixev_buf_put_u32(w, 0);
	pmixev_buf_put_u32(w, n);
	for (uint32_t i = 0; i < n; i++) {
		pmixev_buf_put_u8(w, (uint8_t)item[i][0]);
		pmixev_buf_put_u32(w, item[i][1]);
		pmixev_buf_put_u8(w, (uint8_t)item[i][2]);
	}
}

/* A job only on Q_JOB, local only on Q_PTABLE, no item twice: refused
 * by both ends. */
static void test_query_items(void **state)
{
	static const uint32_t bad[][2][3] = {
		{{PMIXEV_PMIXD_Q_PARTS, 3, 0}},
		{{PMIXEV_PMIXD_Q_PTABLE, 3, 0}},
		{{PMIXEV_PMIXD_Q_JOB, 3, 1}},
		{{PMIXEV_PMIXD_Q_PARTS, 0, 1}},
		{{PMIXEV_PMIXD_Q_JOB, 3, 0}, {PMIXEV_PMIXD_Q_JOB, 3, 0}},
		{{PMIXEV_PMIXD_Q_PTABLE, 0, 1}, {PMIXEV_PMIXD_Q_PTABLE, 0, 1}},
	};
	struct pmixev_pmixd_query q = {.id = 1, .n = 2};
	struct pmixev_buf w;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t n = bad[i][1][0] ? 2 : 1;

		for (uint32_t k = 0; k < n; k++)
			q.item[k] = (struct pmixev_pmixd_qitem){
				(enum pmixev_pmixd_qkey)bad[i][k][0],
				bad[i][k][1], bad[i][k][2] != 0};
		q.n = n;
		pmixev_buf_init(&w);
		assert_int_equal(pmixev_pmixd_query_pack(&w, &q), -1);
		assert_int_equal(w.len, 0);
		put_query(&w, bad[i], n);
		assert_int_equal(un_query(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
	/* The same key for two jobs, and both tables, are distinct. */
	q.n = 4;
	q.item[0] = (struct pmixev_pmixd_qitem){PMIXEV_PMIXD_Q_JOB, 0, false};
	q.item[1] = (struct pmixev_pmixd_qitem){PMIXEV_PMIXD_Q_JOB, 3, false};
	q.item[2] =
		(struct pmixev_pmixd_qitem){PMIXEV_PMIXD_Q_PTABLE, 0, false};
	q.item[3] = (struct pmixev_pmixd_qitem){PMIXEV_PMIXD_Q_PTABLE, 0, true};
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_query_pack(&w, &q), 0);
	assert_strict(&w, un_query);
}

static void test_query_done(void **state)
{
	static struct pmixev_pmixd_query_done d, got;
	static struct pmixev_owner_resp resp;
	struct pmixev_ptable_entry pe[2] = {
		{.rank = 0, .pid = 10, .name = "a"},
		{.rank = 1, .pid = 11, .name = "b"}};
	static uint32_t members[2] = {2, 5};
	struct pmixev_group_entry grp = {.nranks = 2, .ranks = members};
	struct pmixev_group_list groups = {.partial = true, .n = 1, .e = &grp};
	struct pmixev_buf w, r;

	(void)state;
	resp.op = PMIXEV_OWNER_JOB_STATE;
	resp.id = 1;
	resp.job.state = 1;
	d.id = 5;
	d.n = 3;
	d.a[0] = (struct pmixev_pmixd_qanswer){.key = PMIXEV_PMIXD_Q_JOB,
					       .result = PMIXEV_OK,
					       .age_ms = 20,
					       .resp = &resp};
	d.a[1].key = PMIXEV_PMIXD_Q_PTABLE;
	d.a[1].pt = (struct pmixev_ptable_msg){.count = 2, .e = pe};
	d.a[2] = (struct pmixev_pmixd_qanswer){.key = PMIXEV_PMIXD_Q_PARTS,
					       .result = PMIXEV_ERR_TIMEOUT};
	d.n = 4;
	d.a[3] = (struct pmixev_pmixd_qanswer){.key = PMIXEV_PMIXD_Q_GROUPS,
					       .groups = &groups};
	strcpy(grp.grpid, "g1");
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_query_done_pack(&w, &d), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_query_done_unpack(&r, &got), 0);
	assert_int_equal(got.a[0].resp->job.state, 1);
	assert_int_equal(got.a[1].pt.e[1].pid, 11);
	assert_null(got.a[2].resp);
	assert_true(got.a[3].groups->partial);
	assert_string_equal(got.a[3].groups->e[0].grpid, "g1");
	assert_int_equal(got.a[3].groups->e[0].ranks[1], 5);
	pmixev_pmixd_query_done_release(&got);
	assert_strict(&w, un_qdone);
	/* An OK group answer without its list. */
	d.a[3].groups = NULL;
	assert_int_equal(pmixev_pmixd_query_done_pack(&w, &d), -1);
	d.n = 3;
	/* An OK job answer without one, and an error with one. */
	d.a[0].resp = NULL;
	assert_int_equal(pmixev_pmixd_query_done_pack(&w, &d), -1);
	assert_int_equal(w.len, 0);
	d.a[0].resp = &resp;
	d.a[0].result = PMIXEV_RESULT_COUNT;
	assert_int_equal(pmixev_pmixd_query_done_pack(&w, &d), -1);
	pmixev_buf_put_u64(&w, 1);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_u8(&w, PMIXEV_PMIXD_Q_JOB);
	pmixev_buf_put_u8(&w, PMIXEV_ERR_FAILED);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_bytes(&w, "x", 1);
	assert_int_equal(un_qdone(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

/* A QUERY_DONE of one Q_PTABLE answer whose bytes are `body`. */
static int un_table(const struct pmixev_buf *body)
{
	struct pmixev_buf w;
	int rc;

	pmixev_buf_init(&w);
	pmixev_buf_put_u64(&w, 1);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_u8(&w, PMIXEV_PMIXD_Q_PTABLE);
	pmixev_buf_put_u8(&w, PMIXEV_OK);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_bytes(&w, body->data, body->len);
	rc = un_qdone(w.data, w.len);
	pmixev_buf_release(&w);
	return rc;
}

/* A whole step's table: more entries than one node's message holds, and
 * whether every node answered. */
static void test_query_done_table(void **state)
{
	static struct pmixev_pmixd_query_done d, got;
	uint32_t n = PMIXEV_PTABLE_MAX + 1;
	struct pmixev_ptable_entry *pe = calloc(n, sizeof(*pe));
	struct pmixev_buf w, r;

	(void)state;
	assert_non_null(pe);
	for (uint32_t i = 0; i < n; i++)
		pe[i] = (struct pmixev_ptable_entry){.rank = i, .pid = 100 + i};
	d.id = 6;
	d.n = 2;
	d.a[0] = (struct pmixev_pmixd_qanswer){.key = PMIXEV_PMIXD_Q_PTABLE,
					       .pt = {.count = n, .e = pe},
					       .complete = true};
	d.a[1] = (struct pmixev_pmixd_qanswer){.key = PMIXEV_PMIXD_Q_PTABLE,
					       .pt = {.count = 1, .e = pe}};
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_query_done_pack(&w, &d), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_query_done_unpack(&r, &got), 0);
	assert_int_equal(got.a[0].pt.count, n);
	assert_int_equal(got.a[0].pt.e[n - 1].pid, 100 + n - 1);
	assert_true(got.a[0].complete);
	assert_false(got.a[1].complete);
	pmixev_pmixd_query_done_release(&got);
	pmixev_buf_release(&w);
	/* complete belongs to a table that was answered. */
	d.n = 1;
	d.a[0].result = PMIXEV_ERR_UNREACH;
	assert_int_equal(pmixev_pmixd_query_done_pack(&w, &d), -1);
	d.a[0] = (struct pmixev_pmixd_qanswer){.key = PMIXEV_PMIXD_Q_PARTS,
					       .result = PMIXEV_ERR_UNREACH,
					       .complete = true};
	assert_int_equal(pmixev_pmixd_query_done_pack(&w, &d), -1);
	assert_int_equal(w.len, 0);
	/* A flag that is not one; a count the bytes cannot hold. */
	pmixev_buf_put_u8(&w, 2);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, 0);
	assert_int_equal(un_table(&w), -1);
	pmixev_buf_release(&w);
	pmixev_buf_put_u8(&w, 1);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, 1000);
	pmixev_buf_put_raw(&w, pe, 999 * 25);
	assert_int_equal(un_table(&w), -1);
	pmixev_buf_release(&w);
	pmixev_buf_put_u8(&w, 1);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, 0);
	assert_int_equal(un_table(&w), 0);
	pmixev_buf_release(&w);
	free(pe);
}

static void jobctl_fill(struct pmixev_pmixd_jobctl *j)
{
	memset(j, 0, sizeof(*j));
	j->id = 2;
	j->rank = 6;
	j->action = PMIXEV_PMIXD_CHECKPOINT;
	strcpy(j->ckpt.id, "c1");
	j->ckpt.rank = PMIXEV_PMIXD_ALL;
	j->ckpt.signo = 10;
	j->nt = 2;
	j->t[0] = (struct pmixev_pmixd_target){7, 0, true, 3};
	j->t[1] = (struct pmixev_pmixd_target){8, UINT32_MAX, false, 99};
}

static void jobctl_refused(const struct pmixev_pmixd_jobctl *j, bool packs)
{
	struct pmixev_buf w;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_jobctl_pack(&w, j), packs ? 0 : -1);
	if (packs)
		assert_int_equal(un_jobctl(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

static void test_jobctl(void **state)
{
	struct pmixev_pmixd_jobctl j;
	struct pmixev_pmixd_status st = {
		.id = 2, .status = -25, .why = "denied"};
	struct pmixev_buf w;

	(void)state;
	jobctl_fill(&j);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_jobctl_pack(&w, &j), 0);
	assert_strict(&w, un_jobctl);
	j.rank = PMIXEV_PMIXD_NO_RANK; /* a tool */
	assert_int_equal(pmixev_pmixd_jobctl_pack(&w, &j), 0);
	assert_strict(&w, un_jobctl);
	/* Ranks outside the step (packable: only the step knows). */
	j.rank = 8;
	jobctl_refused(&j, true);
	jobctl_fill(&j);
	j.ckpt.rank = 8;
	jobctl_refused(&j, true);
	jobctl_fill(&j);
	j.t[0].rank = 8;
	jobctl_refused(&j, true);
	/* Actions, signals, timeouts, counts. */
	jobctl_fill(&j);
	j.action = 0;
	jobctl_refused(&j, false);
	j.action = PMIXEV_PMIXD_ACTION_MAX + 1;
	jobctl_refused(&j, false);
	j.action = PMIXEV_PMIXD_SIGNAL;
	jobctl_refused(&j, false); /* signo 0 */
	j.signo = 65;
	jobctl_refused(&j, false);
	jobctl_fill(&j);
	j.ckpt.signo = 65;
	jobctl_refused(&j, false);
	jobctl_fill(&j);
	j.timeout_sec = 86401;
	jobctl_refused(&j, false);
	jobctl_fill(&j);
	j.nt = PMIXEV_PMIXD_TARGETS_MAX + 1;
	jobctl_refused(&j, false);
	jobctl_fill(&j);
	memset(j.ctl_id, 'i', sizeof(j.ctl_id));
	jobctl_refused(&j, false);

	assert_string_equal(pmixev_pmixd_action_name(PMIXEV_PMIXD_RESTART),
			    "restart (requeue)");
	assert_string_equal(pmixev_pmixd_action_name(0), "?");
	assert_string_equal(
		pmixev_pmixd_action_name(PMIXEV_PMIXD_ACTION_MAX + 1), "?");

	assert_int_equal(pmixev_pmixd_status_pack(&w, &st), 0);
	assert_strict(&w, un_status);
	memset(st.why, 'w', sizeof(st.why));
	assert_int_equal(pmixev_pmixd_status_pack(&w, &st), -1);
}

static void log_fill(struct pmixev_pmixd_log *l)
{
	memset(l, 0, sizeof(*l));
	l->id = 4;
	l->rank = 1;
	l->task = true;
	strcpy(l->who, "rank 1");
	l->flags = PMIXEV_PMIXD_LOG_ONCE | PMIXEV_PMIXD_LOG_STAMP;
	l->level = 3;
	l->when = -5;
	l->n = 2;
	l->m[0] = (struct pmixev_pmixd_log_msg){.ch = PMIXEV_PMIXD_STDERR,
						.text = "oops"};
	l->m[1] = (struct pmixev_pmixd_log_msg){.ch = PMIXEV_PMIXD_EMAIL,
						.text = "body",
						.to = "a@b.c,d@e",
						.subject = "hi there"};
}

static void log_refused(const struct pmixev_pmixd_log *l, bool packs)
{
	struct pmixev_buf w;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_log_pack(&w, l), packs ? 0 : -1);
	if (packs)
		assert_int_equal(un_log(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

static void test_log(void **state)
{
	static struct pmixev_pmixd_log l;
	struct pmixev_buf w;
	char *big;

	(void)state;
	log_fill(&l);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_log_pack(&w, &l), 0);
	assert_strict(&w, un_log);
	/* A tool claims any rank; a task must be local. */
	l.task = false;
	l.rank = 77;
	assert_int_equal(pmixev_pmixd_log_pack(&w, &l), 0);
	assert_strict(&w, un_log);
	l.task = true;
	log_refused(&l, true);
	log_fill(&l);
	l.rank = 4;
	log_refused(&l, true);
	/* Level, flags, channel, mail parts, sizes. */
	log_fill(&l);
	l.level = 8;
	log_refused(&l, false);
	log_fill(&l);
	l.flags = PMIXEV_PMIXD_LOG_FLAGS + 1;
	log_refused(&l, false);
	log_fill(&l);
	l.m[0].ch = PMIXEV_PMIXD_CHANNEL_MAX + 1;
	log_refused(&l, false);
	log_fill(&l);
	strcpy(l.m[1].to, "-oProg@x");
	log_refused(&l, false);
	log_fill(&l);
	strcpy(l.m[1].subject, "a\nb");
	log_refused(&l, false);
	log_fill(&l);
	l.n = PMIXEV_PMIXD_MSGS_MAX + 1;
	log_refused(&l, false);
	big = malloc(PMIXEV_PMIXD_TEXT_MAX + 2);
	assert_non_null(big);
	memset(big, 't', PMIXEV_PMIXD_TEXT_MAX + 1);
	big[PMIXEV_PMIXD_TEXT_MAX + 1] = '\0';
	log_fill(&l);
	l.m[0].text = big;
	log_refused(&l, false);
	big[PMIXEV_PMIXD_TEXT_MAX] = '\0'; /* at the cap: fine */
	assert_int_equal(pmixev_pmixd_log_pack(&w, &l), 0);
	assert_int_equal(un_log(w.data, w.len), 0);
	pmixev_buf_release(&w);
	l.m[1].text = big; /* too long for a mail */
	log_refused(&l, false);
	free(big);
}

/* Items O refused when it read them travel as their status, in place. */
static void test_log_refused_items(void **state)
{
	static struct pmixev_pmixd_log l;
	struct pmixev_buf w, r;
	size_t at;

	(void)state;
	log_fill(&l);
	l.flags |= PMIXEV_PMIXD_LOG_LIB_DONE;
	l.n = 3;
	l.m[2] = l.m[1];
	l.m[1] = (struct pmixev_pmixd_log_msg){.ch = PMIXEV_PMIXD_EMAIL,
					       .bad = -27};
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_log_pack(&w, &l), 0);
	fx_reader(&r, &w);
	memset(&l, 0, sizeof(l));
	assert_int_equal(pmixev_pmixd_log_unpack(&r, &fx, &l), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.flags & PMIXEV_PMIXD_LOG_LIB_DONE,
			 PMIXEV_PMIXD_LOG_LIB_DONE);
	assert_int_equal(l.m[1].ch, PMIXEV_PMIXD_EMAIL);
	assert_int_equal(l.m[1].bad, -27);
	assert_null(l.m[1].text);
	assert_int_equal(l.m[0].bad, 0);
	assert_string_equal(l.m[0].text, "oops");
	assert_string_equal(l.m[2].to, "a@b.c,d@e");
	pmixev_pmixd_log_release(&l);
	assert_strict(&w, un_log);
	/* A refused item has nothing to deliver, and a status below 0. */
	log_fill(&l);
	l.m[0].bad = -1;
	log_refused(&l, false); /* still its text */
	log_fill(&l);
	l.m[1].text = NULL;
	l.m[1].bad = -1;
	log_refused(&l, false); /* still its address */
	log_fill(&l);
	l.m[0] = (struct pmixev_pmixd_log_msg){.ch = PMIXEV_PMIXD_STDERR,
					       .bad = 5};
	log_refused(&l, false);
	/* ... also as bytes: the status is the message's second field. */
	log_fill(&l);
	l.n = 1;
	l.m[0] = (struct pmixev_pmixd_log_msg){.ch = PMIXEV_PMIXD_STDERR,
					       .bad = -1};
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_log_pack(&w, &l), 0);
	at = w.len - 4;
	assert_int_equal(un_log(w.data, w.len), 0);
	w.data[at] = 0x7f; /* -1 -> 0x7fffffff */
	assert_int_equal(un_log(w.data, w.len), -1);
	memset(w.data + at, 0, 4); /* 0: a text must follow */
	assert_int_equal(un_log(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_query_items),
		cmocka_unit_test(test_query_done),
		cmocka_unit_test(test_query_done_table),
		cmocka_unit_test(test_jobctl),
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_log_refused_items),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
