/*
 * Unit tests for common/pmixev_pmixd_group.c: GROUP, GROUP_DONE and
 * GROUP_ABORT round trips (strict: no prefix and no trailing byte
 * unpacks; canonical: what unpacks packs back to the same bytes), every
 * refusal, and counts checked before anything is allocated (calloc is
 * wrapped at link time to see the largest request).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "calloc_spy.h"
#include "pmixd_fixture.h"
#include "pmixev_pmixd_group.h"
#include "proto_strict.h"

UNPACKER(un_group, struct pmixev_pmixd_group,
	 (pmixev_pmixd_group_unpack(&r, &fx, &m) < 0
		  ? -1
		  : (pmixev_pmixd_group_release(&m), 0)))
UNPACKER(un_done, struct pmixev_pmixd_group_done,
	 (pmixev_pmixd_group_done_unpack(&r, 8, &m) < 0
		  ? -1
		  : (pmixev_pmixd_group_done_release(&m), 0)))
UNPACKER(un_abort, struct pmixev_pmixd_group_abort,
	 pmixev_pmixd_group_abort_unpack(&r, &fx, &m))

static uint32_t members[3] = {1, 2, 5};
static const uint8_t blob[4] = {9, 0, 8, 7};

/* A construct of ranks 1, 2 (here, on node 0) and 5, led by 2. */
static void group_fill(struct pmixev_pmixd_group *g)
{
	*g = (struct pmixev_pmixd_group){
		.id = 42,
		.op = PMIXEV_PMIXD_GROUP_CONSTRUCT,
		.grpid = "tag1",
		.nspace = "slurm.pmixev.7.0",
		.nranks = 3,
		.ranks = members,
		.flags = PMIXEV_PMIXD_GROUP_ASSIGN |
			 PMIXEV_PMIXD_GROUP_LEADER_HERE |
			 PMIXEV_PMIXD_GROUP_OPTIONAL,
		.leader = 2,
		.timeout_ms = 1500,
		.endpt = blob,
		.nendpt = sizeof(blob),
	};
}

/* `g` packs; its bytes unpack (fixture bounds) and pack back the same. */
static void assert_group_canonical(const struct pmixev_pmixd_group *g)
{
	struct pmixev_pmixd_group got;
	struct pmixev_buf w, r, again;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_group_pack(&w, g), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_group_unpack(&r, &fx, &got), 0);
	assert_true(got.id == g->id);
	assert_int_equal(got.op, g->op);
	assert_string_equal(got.grpid, g->grpid);
	assert_string_equal(got.nspace, g->nspace);
	assert_int_equal(got.all, g->all);
	assert_int_equal(got.nranks, g->nranks);
	if (g->nranks)
		assert_memory_equal(got.ranks, g->ranks,
				    g->nranks * sizeof(*g->ranks));
	assert_int_equal(got.flags, g->flags);
	assert_int_equal(got.leader, g->leader);
	assert_int_equal(got.timeout_ms, g->timeout_ms);
	assert_int_equal(got.nendpt, g->nendpt);
	if (g->nendpt)
		assert_memory_equal(got.endpt, g->endpt, g->nendpt);
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_pmixd_group_pack(&again, &got), 0);
	assert_int_equal(again.len, w.len);
	assert_memory_equal(again.data, w.data, w.len);
	pmixev_buf_release(&again);
	pmixev_pmixd_group_release(&got);
	assert_null(got.ranks);
	assert_strict(&w, un_group);
}

static void test_group_round_trip(void **state)
{
	struct pmixev_pmixd_group g;

	(void)state;
	group_fill(&g);
	assert_group_canonical(&g);
	/* Every rank, no leader named though one is here. */
	group_fill(&g);
	g.all = true;
	g.nranks = 0;
	g.ranks = NULL;
	g.leader = PMIXEV_PMIXD_NO_RANK;
	g.timeout_ms = PMIXEV_PMIXD_GROUP_TIMEOUT_MS;
	assert_group_canonical(&g);
	/* The longest id, and every construct flag. */
	group_fill(&g);
	memset(g.grpid, 'i', sizeof(g.grpid) - 1);
	g.grpid[sizeof(g.grpid) - 1] = '\0';
	g.flags = PMIXEV_PMIXD_GROUP_FLAGS;
	assert_group_canonical(&g);
	/* A destruct: LOCAL_ONLY at most, no data. */
	group_fill(&g);
	g.op = PMIXEV_PMIXD_GROUP_DESTRUCT;
	g.flags = PMIXEV_PMIXD_GROUP_LOCAL_ONLY;
	g.leader = PMIXEV_PMIXD_NO_RANK;
	g.nendpt = 0;
	g.timeout_ms = 0;
	assert_group_canonical(&g);
	/* Ids near the reserved prefixes are the user's. */
	group_fill(&g);
	strcpy(g.grpid, "slurm.pmix");
	assert_group_canonical(&g);
	strcpy(g.grpid, "slurm.pmixevil");
	assert_group_canonical(&g);
	strcpy(g.grpid, "SLURM.pmix.x");
	assert_group_canonical(&g);
}

static void test_group_pack_refuses(void **state)
{
	static uint32_t unsorted[3] = {1, 5, 2};
	struct pmixev_pmixd_group g;
	struct pmixev_buf w;

	(void)state;
	pmixev_buf_init(&w);
	group_fill(&g);
	g.op = 0;
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	g.op = 3;
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	group_fill(&g);
	g.grpid[0] = '\0';
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	strcpy(g.grpid, "slurm.pmixev.7.0");
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	strcpy(g.grpid, "slurm.pmixev.other");
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	strcpy(g.grpid, "slurm.pmix.8.0");
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	memset(g.grpid, 'i', sizeof(g.grpid)); /* no NUL */
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	group_fill(&g);
	memset(g.nspace, 'n', sizeof(g.nspace));
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	group_fill(&g);
	g.all = true; /* with ranks */
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	g.all = false;
	g.nranks = 0; /* and none */
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	g.nranks = 3;
	g.ranks = unsorted;
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	group_fill(&g);
	g.flags = 0x20;
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	group_fill(&g);
	g.leader = 0; /* not a member */
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	g.leader = 2;
	g.flags = PMIXEV_PMIXD_GROUP_ASSIGN; /* named without LEADER_HERE */
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	group_fill(&g);
	g.timeout_ms = PMIXEV_PMIXD_GROUP_TIMEOUT_MS + 1;
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	/* A destruct with construct flags, or data. */
	group_fill(&g);
	g.op = PMIXEV_PMIXD_GROUP_DESTRUCT;
	g.leader = PMIXEV_PMIXD_NO_RANK;
	g.nendpt = 0;
	for (uint8_t bit = 1; bit <= PMIXEV_PMIXD_GROUP_LEADER_HERE;
	     bit <<= 1) {
		g.flags = bit;
		assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	}
	g.flags = 0;
	g.nendpt = 1;
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), -1);
	assert_int_equal(w.len, 0);
	pmixev_buf_release(&w);
}

/*
 * Pack `g` (it must pack) and unpack it with `lim`: 0, or -1 with the
 * output untouched.
 */
static int repack(const struct pmixev_pmixd_group *g,
		  const struct pmixev_pmixd_bounds *lim)
{
	struct pmixev_pmixd_group got = {.nranks = 77};
	struct pmixev_buf w, r;
	int rc;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_group_pack(&w, g), 0);
	fx_reader(&r, &w);
	rc = pmixev_pmixd_group_unpack(&r, lim, &got);
	if (rc == 0)
		pmixev_pmixd_group_release(&got);
	else
		assert_int_equal(got.nranks, 77);
	pmixev_buf_release(&w);
	return rc;
}

static void test_group_unpack_refuses(void **state)
{
	static uint32_t off_node[2] = {4, 6}, beyond[2] = {1, 8},
			far_leader[2] = {1, 5};
	struct pmixev_pmixd_bounds other = fx;
	struct pmixev_pmixd_group g;

	(void)state;
	group_fill(&g);
	assert_int_equal(repack(&g, &fx), 0);
	strcpy(g.nspace, "slurm.pmixev.7.1"); /* not the step's */
	assert_int_equal(repack(&g, &fx), -1);
	group_fill(&g);
	g.ranks = off_node;
	g.nranks = 2;
	g.leader = PMIXEV_PMIXD_NO_RANK;
	assert_int_equal(repack(&g, &fx), -1);
	g.ranks = beyond;
	assert_int_equal(repack(&g, &fx), -1);
	g.ranks = far_leader;
	assert_int_equal(repack(&g, &fx), 0);
	g.leader = 5; /* a member, not here */
	assert_int_equal(repack(&g, &fx), -1);
	/* The step's and the stepds' namespaces, in a step named otherwise. */
	other.nspace = "job7";
	other.srv_nspace = "job7.srv";
	group_fill(&g);
	strcpy(g.nspace, "job7");
	assert_int_equal(repack(&g, &other), 0);
	strcpy(g.grpid, "job7");
	assert_int_equal(repack(&g, &other), -1);
	strcpy(g.grpid, "job7.srv");
	assert_int_equal(repack(&g, &other), -1);
	strcpy(g.grpid, "job7.x");
	assert_int_equal(repack(&g, &other), 0);
}

/* The body of a GROUP up to its count, then `tail` bytes of zeros. */
static void group_head(struct pmixev_buf *w, uint8_t op, uint32_t nranks,
		       size_t tail)
{
	pmixev_buf_init(w);
	pmixev_buf_put_u64(w, 1);
	pmixev_buf_put_u8(w, op);
	pmixev_buf_put_str(w, "tag");
	pmixev_buf_put_str(w, "slurm.pmixev.7.0");
	pmixev_buf_put_u8(w, 0);
	pmixev_buf_put_u32(w, nranks);
	for (size_t i = 0; i < tail; i++)
		pmixev_buf_put_u8(w, 0);
}

static void test_group_counts_first(void **state)
{
	struct pmixev_pmixd_group g;
	struct pmixev_buf w;

	(void)state;
	/* What a valid one allocates: its 3 ranks. */
	group_fill(&g);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_group_pack(&w, &g), 0);
	calloc_max = 0;
	assert_int_equal(un_group(w.data, w.len), 0);
	assert_int_equal(calloc_max, 3 * sizeof(uint32_t));
	pmixev_buf_release(&w);
	/* 9 ranks in a step of 8, every byte there. */
	group_head(&w, PMIXEV_PMIXD_GROUP_CONSTRUCT, 9, 9 * 4 + 13 + 4);
	calloc_max = 0;
	assert_int_equal(un_group(w.data, w.len), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
	/* 8 ranks (the step's size), the bytes of 2. */
	group_head(&w, PMIXEV_PMIXD_GROUP_CONSTRUCT, 8, 8);
	calloc_max = 0;
	assert_int_equal(un_group(w.data, w.len), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
	/* A huge count with no bytes. */
	group_head(&w, PMIXEV_PMIXD_GROUP_CONSTRUCT, UINT32_MAX, 0);
	calloc_max = 0;
	assert_int_equal(un_group(w.data, w.len), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
	/* An unknown op is refused before the count is looked at. */
	group_head(&w, 3, 1, 4 + 13 + 4);
	calloc_max = 0;
	assert_int_equal(un_group(w.data, w.len), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
}

static void done_fill(struct pmixev_pmixd_group_done *d, uint32_t *failed)
{
	*d = (struct pmixev_pmixd_group_done){
		.id = 42,
		.result = PMIXEV_OK,
		.ctxid = (8ULL << 32) | 1,
		.flags =
			PMIXEV_PMIXD_GROUP_ASSIGN | PMIXEV_PMIXD_GROUP_OPTIONAL,
		.leader = 2,
		.nfailed = 1,
		.failed = failed,
		.endpt = blob,
		.nendpt = sizeof(blob),
	};
}

static void test_done_round_trip(void **state)
{
	static uint32_t failed[1] = {5};
	struct pmixev_pmixd_group_done d, got;
	struct pmixev_buf w, r, again;

	(void)state;
	done_fill(&d, failed);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_group_done_pack(&w, &d), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_group_done_unpack(&r, 8, &got), 0);
	assert_true(got.id == 42 && got.ctxid == d.ctxid);
	assert_int_equal(got.result, PMIXEV_OK);
	assert_int_equal(got.flags, d.flags);
	assert_int_equal(got.leader, 2);
	assert_int_equal(got.nfailed, 1);
	assert_int_equal(got.failed[0], 5);
	assert_memory_equal(got.endpt, blob, sizeof(blob));
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_pmixd_group_done_pack(&again, &got), 0);
	assert_int_equal(again.len, w.len);
	assert_memory_equal(again.data, w.data, w.len);
	pmixev_buf_release(&again);
	pmixev_pmixd_group_done_release(&got);
	assert_strict(&w, un_done);
	/* A failure: no id, nothing failed, no leader. */
	d = (struct pmixev_pmixd_group_done){.id = 7,
					     .result = PMIXEV_ERR_TIMEOUT,
					     .leader = PMIXEV_PMIXD_NO_RANK};
	assert_int_equal(pmixev_pmixd_group_done_pack(&w, &d), 0);
	assert_strict(&w, un_done);
}

static void test_done_refuses(void **state)
{
	static uint32_t failed[2] = {5, 5}, beyond[1] = {8};
	struct pmixev_pmixd_group_done d;
	struct pmixev_buf w;

	(void)state;
	pmixev_buf_init(&w);
	done_fill(&d, failed);
	d.result = PMIXEV_RESULT_COUNT;
	assert_int_equal(pmixev_pmixd_group_done_pack(&w, &d), -1);
	done_fill(&d, failed);
	d.ctxid = UINT64_MAX;
	assert_int_equal(pmixev_pmixd_group_done_pack(&w, &d), -1);
	d.ctxid = (uint64_t)SIZE_MAX;
	assert_int_equal(pmixev_pmixd_group_done_pack(&w, &d), -1);
	done_fill(&d, failed);
	d.flags = 0x40;
	assert_int_equal(pmixev_pmixd_group_done_pack(&w, &d), -1);
	done_fill(&d, failed);
	d.nfailed = 2; /* not increasing */
	assert_int_equal(pmixev_pmixd_group_done_pack(&w, &d), -1);
	assert_int_equal(w.len, 0);
	/* Packable, but beyond a step of 8. */
	done_fill(&d, beyond);
	assert_int_equal(pmixev_pmixd_group_done_pack(&w, &d), 0);
	assert_int_equal(un_done(w.data, w.len), -1);
	pmixev_buf_release(&w);
	done_fill(&d, failed);
	d.leader = 8;
	assert_int_equal(pmixev_pmixd_group_done_pack(&w, &d), 0);
	assert_int_equal(un_done(w.data, w.len), -1);
	pmixev_buf_release(&w);
	/* Counts: more than the step, or than the bytes, allocate nothing. */
	for (int i = 0; i < 2; i++) {
		pmixev_buf_put_u64(&w, 1);
		pmixev_buf_put_u8(&w, PMIXEV_OK);
		pmixev_buf_put_u64(&w, 0);
		pmixev_buf_put_u8(&w, 0);
		pmixev_buf_put_u32(&w, PMIXEV_PMIXD_NO_RANK);
		pmixev_buf_put_u32(&w, i ? 8 : 9);
		for (uint32_t k = 0; k < (i ? 2u : 9u); k++)
			pmixev_buf_put_u32(&w, k);
		pmixev_buf_put_u32(&w, 0);
		calloc_max = 0;
		assert_int_equal(un_done(w.data, w.len), -1);
		assert_int_equal(calloc_max, 0);
		pmixev_buf_release(&w);
	}
}

static void test_done_fits(void **state)
{
	static uint32_t failed[2] = {1, 5}, stranger[1] = {3};
	struct pmixev_pmixd_group g;
	struct pmixev_pmixd_group_done d;

	(void)state;
	group_fill(&g);
	done_fill(&d, failed);
	d.nfailed = 2;
	assert_true(pmixev_pmixd_group_done_fits(&d, &g));
	d.leader = 3; /* not a member */
	assert_false(pmixev_pmixd_group_done_fits(&d, &g));
	d.leader = PMIXEV_PMIXD_NO_RANK;
	assert_true(pmixev_pmixd_group_done_fits(&d, &g));
	d.failed = stranger;
	d.nfailed = 1;
	assert_false(pmixev_pmixd_group_done_fits(&d, &g));
	g.all = true; /* every rank is a member */
	g.nranks = 0;
	g.ranks = NULL;
	assert_true(pmixev_pmixd_group_done_fits(&d, &g));
	/* A destruct's answer has no context id and no data. */
	group_fill(&g);
	g.op = PMIXEV_PMIXD_GROUP_DESTRUCT;
	done_fill(&d, failed);
	assert_false(pmixev_pmixd_group_done_fits(&d, &g));
	d.ctxid = 0;
	assert_false(pmixev_pmixd_group_done_fits(&d, &g));
	d.nendpt = 0;
	assert_true(pmixev_pmixd_group_done_fits(&d, &g));
}

static void test_abort(void **state)
{
	struct pmixev_pmixd_group_abort a = {
		.grpid = "tag1", .rank = 2, .why = PMIXEV_PMIXD_GROUP_ABORTED};
	struct pmixev_pmixd_group_abort got;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_group_abort_pack(&w, &a), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_group_abort_unpack(&r, &fx, &got), 0);
	assert_string_equal(got.grpid, "tag1");
	assert_int_equal(got.rank, 2);
	assert_int_equal(got.why, PMIXEV_PMIXD_GROUP_ABORTED);
	assert_strict(&w, un_abort);
	pmixev_buf_release(&w);
	/* A rank on the other node, or beyond the step: refused by root. */
	a.rank = 5;
	assert_int_equal(pmixev_pmixd_group_abort_pack(&w, &a), 0);
	assert_int_equal(un_abort(w.data, w.len), -1);
	pmixev_buf_release(&w);
	a.rank = 8;
	assert_int_equal(pmixev_pmixd_group_abort_pack(&w, &a), 0);
	assert_int_equal(un_abort(w.data, w.len), -1);
	pmixev_buf_release(&w);
	a.rank = PMIXEV_PMIXD_NO_RANK;
	assert_int_equal(pmixev_pmixd_group_abort_pack(&w, &a), -1);
	a.rank = 0;
	a.why = 2;
	assert_int_equal(pmixev_pmixd_group_abort_pack(&w, &a), -1);
	a.why = PMIXEV_PMIXD_GROUP_ABORTED;
	strcpy(a.grpid, "slurm.pmix.1");
	assert_int_equal(pmixev_pmixd_group_abort_pack(&w, &a), -1);
	a.grpid[0] = '\0';
	assert_int_equal(pmixev_pmixd_group_abort_pack(&w, &a), -1);
	assert_int_equal(w.len, 0);
	/* The wire: a NUL inside the id, an id of 256 bytes, the step's
	 * namespace as the id. */
	pmixev_buf_put_bytes(&w, "ta\0g", 4);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u8(&w, 1);
	assert_int_equal(un_abort(w.data, w.len), -1);
	pmixev_buf_release(&w);
	pmixev_buf_put_str(&w, fx.nspace);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u8(&w, 1);
	assert_int_equal(un_abort(w.data, w.len), -1);
	pmixev_buf_release(&w);
	{
		char id[256];

		memset(id, 'i', sizeof(id));
		pmixev_buf_put_bytes(&w, id, sizeof(id));
		pmixev_buf_put_u32(&w, 0);
		pmixev_buf_put_u8(&w, 1);
		assert_int_equal(un_abort(w.data, w.len), -1);
		pmixev_buf_release(&w);
		pmixev_buf_put_bytes(&w, id, sizeof(id) - 1);
		pmixev_buf_put_u32(&w, 3);
		pmixev_buf_put_u8(&w, 1);
		assert_int_equal(un_abort(w.data, w.len), 0);
		pmixev_buf_release(&w);
	}
}

static void test_types(void **state)
{
	uint8_t h[PMIXEV_PMIXD_HDR_LEN], type = 0;
	uint32_t len = 0;
	const char *why = NULL;

	(void)state;
	assert_string_equal(pmixev_pmixd_type_name(PMIXEV_PMIXD_GROUP),
			    "GROUP");
	assert_string_equal(pmixev_pmixd_type_name(PMIXEV_PMIXD_GROUP_DONE),
			    "GROUP_DONE");
	assert_string_equal(pmixev_pmixd_type_name(PMIXEV_PMIXD_GROUP_ABORT),
			    "GROUP_ABORT");
	assert_int_equal(PMIXEV_PMIXD_GROUP, PMIXEV_PMIXD_FINI + 1);
	/* GROUP and GROUP_ABORT come from O, GROUP_DONE from root. */
	for (uint8_t t = PMIXEV_PMIXD_GROUP; t <= PMIXEV_PMIXD_GROUP_ABORT;
	     t++) {
		bool owner = t != PMIXEV_PMIXD_GROUP_DONE;

		pmixev_pmixd_hdr_encode(t, 0, h);
		assert_int_equal(
			pmixev_pmixd_hdr_decode(h, sizeof(h), 100,
						PMIXEV_PMIXD_FROM_OWNER, &type,
						&len, &why),
			owner ? 1 : -1);
		assert_int_equal(pmixev_pmixd_hdr_decode(h, sizeof(h), 100,
							 PMIXEV_PMIXD_FROM_ROOT,
							 &type, &len, &why),
				 owner ? -1 : 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_round_trip),
		cmocka_unit_test(test_group_pack_refuses),
		cmocka_unit_test(test_group_unpack_refuses),
		cmocka_unit_test(test_group_counts_first),
		cmocka_unit_test(test_done_round_trip),
		cmocka_unit_test(test_done_refuses),
		cmocka_unit_test(test_done_fits),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_types),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
