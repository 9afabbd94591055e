/*
 * Unit tests for common/pmixev_pmixd_nspace.c and pmixev_pmixd_alloc.c:
 * the family's namespace names, SPAWN_DONE, NSPACE_ADD/DEL/ADDED, ALLOC
 * and ALLOC_DONE round trips (strict and canonical), every refusal, and
 * the new types' numbers, names and sides.
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

#include "pmixd_fixture.h"
#include "pmixev_pmixd_spawn.h"
#include "proto_strict.h"

UNPACKER(un_done, struct pmixev_pmixd_spawn_done,
	 pmixev_pmixd_spawn_done_unpack(&r, &m))
UNPACKER(un_add, struct pmixev_pmixd_nspace_add,
	 pmixev_pmixd_nspace_add_unpack(&r, &m))
UNPACKER(un_added, struct pmixev_pmixd_nspace_added,
	 pmixev_pmixd_nspace_added_unpack(&r, &m))
UNPACKER(un_alloc, struct pmixev_pmixd_alloc,
	 pmixev_pmixd_alloc_unpack(&r, &fx, &m))
UNPACKER(un_alloc_done, struct pmixev_pmixd_alloc_done,
	 pmixev_pmixd_alloc_done_unpack(&r, &m))

static int un_del(const uint8_t *data, size_t len)
{
	char ns[PMIXEV_NSPACE_MAX];
	struct pmixev_buf r;

	pmixev_buf_reader(&r, data, len);
	return pmixev_pmixd_nspace_del_unpack(&r, ns);
}

static void test_nspace_names(void **state)
{
	uint32_t job = 0, step = 0;

	(void)state;
	assert_true(pmixev_pmixd_step_nspace("slurm.pmixev.7.0", &job, &step));
	assert_int_equal(job, 7);
	assert_int_equal(step, 0);
	assert_true(pmixev_pmixd_step_nspace("slurm.pmixev.4294967295.12", &job,
					     &step));
	assert_int_equal(job, UINT32_MAX);
	assert_int_equal(step, 12);
	assert_false(pmixev_pmixd_step_nspace("slurm.pmixev.4294967296.0", NULL,
					      NULL));
	assert_false(pmixev_pmixd_step_nspace("slurm.pmixev.07.0", NULL, NULL));
	assert_false(pmixev_pmixd_step_nspace("slurm.pmixev.7", NULL, NULL));
	assert_false(pmixev_pmixd_step_nspace("slurm.pmixev.7.", NULL, NULL));
	assert_false(pmixev_pmixd_step_nspace("slurm.pmixev.-7.0", NULL, NULL));
	assert_false(
		pmixev_pmixd_step_nspace("slurm.pmixev.7.0.srv", NULL, NULL));
	assert_false(pmixev_pmixd_step_nspace("slurm.pmix.7.0", NULL, NULL));
	assert_false(pmixev_pmixd_step_nspace("slurm.pmixev.7.0.tool.0.1", NULL,
					      NULL));
	assert_true(pmixev_pmixd_family_nspace("slurm.pmixev.7.0.tool.0.1"));
	assert_true(pmixev_pmixd_family_nspace("slurm.pmixev.7.3"));
	assert_false(pmixev_pmixd_family_nspace("slurm.pmixev.7.0.tool.0"));
	assert_false(pmixev_pmixd_family_nspace("slurm.pmixev.7.0.tool.0.1x"));
	assert_false(pmixev_pmixd_family_nspace("slurm.pmixev.7.0.srv"));
}

static void test_spawn_done(void **state)
{
	struct pmixev_pmixd_spawn_done d = {.id = 9,
					    .nspace = "slurm.pmixev.7.1"},
				       got;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_spawn_done_pack(&w, &d), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_spawn_done_unpack(&r, &got), 0);
	assert_string_equal(got.nspace, d.nspace);
	assert_strict(&w, un_done);
	/* A failure: no namespace, a reason. */
	d = (struct pmixev_pmixd_spawn_done){.id = 9, .status = -234};
	strcpy(d.reason, "srun: error: Requested nodes are busy");
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_spawn_done_pack(&w, &d), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_spawn_done_unpack(&r, &got), 0);
	assert_int_equal(got.status, -234);
	assert_string_equal(got.reason, d.reason);
	assert_strict(&w, un_done);
	/* Refused: a failure naming a namespace, a success naming none or
	 * another kind, a positive status, a reason without its NUL. */
	strcpy(d.nspace, "slurm.pmixev.7.1");
	assert_int_equal(pmixev_pmixd_spawn_done_pack(&w, &d), -1);
	d.status = 0;
	strcpy(d.nspace, "slurm.pmixev.7.1.srv");
	assert_int_equal(pmixev_pmixd_spawn_done_pack(&w, &d), -1);
	d.nspace[0] = '\0';
	assert_int_equal(pmixev_pmixd_spawn_done_pack(&w, &d), -1);
	d.status = 1;
	assert_int_equal(pmixev_pmixd_spawn_done_pack(&w, &d), -1);
	d.status = -1;
	memset(d.reason, 'r', sizeof(d.reason));
	assert_int_equal(pmixev_pmixd_spawn_done_pack(&w, &d), -1);
	assert_int_equal(w.len, 0);
	/* The same on the wire. */
	pmixev_buf_put_u64(&w, 1);
	pmixev_buf_put_i32(&w, 0);
	pmixev_buf_put_str(&w, "slurm.pmixev.7.x");
	pmixev_buf_put_str(&w, "");
	assert_int_equal(un_done(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

static void test_nspace_msgs(void **state)
{
	static const uint8_t lay[3] = {1, 2, 3};
	struct pmixev_pmixd_nspace_add a = {.nspace = "slurm.pmixev.7.1",
					    .parent = "slurm.pmixev.7.0",
					    .parent_rank = 2,
					    .layout = lay,
					    .nlayout = sizeof(lay)},
				       got;
	struct pmixev_pmixd_nspace_added k = {.nspace = "slurm.pmixev.7.1",
					      .status = -46},
					 kgot;
	char ns[PMIXEV_NSPACE_MAX];
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_nspace_add_pack(&w, &a), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_nspace_add_unpack(&r, &got), 0);
	assert_string_equal(got.parent, a.parent);
	assert_int_equal(got.nlayout, 3);
	assert_ptr_equal(got.layout, w.data + w.len - 3); /* zero-copy */
	assert_strict(&w, un_add);
	/* No parent; a tool's. */
	a.parent[0] = '\0';
	a.parent_rank = PMIXEV_PMIXD_NO_RANK;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_nspace_add_pack(&w, &a), 0);
	assert_strict(&w, un_add);
	strcpy(a.parent, "slurm.pmixev.7.0.tool.1.0");
	a.parent_rank = 0;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_nspace_add_pack(&w, &a), 0);
	assert_strict(&w, un_add);
	/* Refused: a parent without rank, a rank without parent, another
	 * namespace kind, an empty layout. */
	a.parent_rank = PMIXEV_PMIXD_NO_RANK;
	assert_int_equal(pmixev_pmixd_nspace_add_pack(&w, &a), -1);
	a.parent[0] = '\0';
	a.parent_rank = 0;
	assert_int_equal(pmixev_pmixd_nspace_add_pack(&w, &a), -1);
	a.parent_rank = PMIXEV_PMIXD_NO_RANK;
	strcpy(a.nspace, "slurm.pmixev.7.1.tool.0.0");
	assert_int_equal(pmixev_pmixd_nspace_add_pack(&w, &a), -1);
	strcpy(a.nspace, "slurm.pmixev.7.1");
	a.nlayout = 0;
	assert_int_equal(pmixev_pmixd_nspace_add_pack(&w, &a), -1);
	assert_int_equal(w.len, 0);
	/* NSPACE_DEL. */
	assert_int_equal(pmixev_pmixd_nspace_del_pack(&w, "slurm.pmixev.7.1"),
			 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_nspace_del_unpack(&r, ns), 0);
	assert_string_equal(ns, "slurm.pmixev.7.1");
	assert_strict(&w, un_del);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_nspace_del_pack(&w, "slurm.pmixev.x.1"),
			 -1);
	pmixev_buf_put_str(&w, "tag");
	assert_int_equal(un_del(w.data, w.len), -1);
	pmixev_buf_release(&w);
	/* NSPACE_ADDED. */
	assert_int_equal(pmixev_pmixd_nspace_added_pack(&w, &k), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_nspace_added_unpack(&r, &kgot), 0);
	assert_int_equal(kgot.status, -46);
	assert_strict(&w, un_added);
	pmixev_buf_init(&w);
	k.status = 3;
	assert_int_equal(pmixev_pmixd_nspace_added_pack(&w, &k), -1);
	k.status = 0;
	strcpy(k.nspace, "group1");
	assert_int_equal(pmixev_pmixd_nspace_added_pack(&w, &k), -1);
	assert_int_equal(w.len, 0);
}

static void alloc_fill(struct pmixev_pmixd_alloc *m)
{
	*m = (struct pmixev_pmixd_alloc){
		.id = 5,
		.rank = 3,
		.directive = PMIXEV_PMIXD_ALLOC_NEW,
		.nnodes = 1,
		.ncpus = 8,
		.mem_mb = 1ull << 40,
		.seconds = 600,
		.nodes = "n[3-4]",
		.exclude = "n1",
		.queue = "debug",
		.reqid = "req-1",
		.flags = PMIXEV_PMIXD_ALLOC_CHILD_SEP,
		.timeout_ms = 3000,
	};
}

static void test_alloc(void **state)
{
	struct pmixev_pmixd_alloc m, got;
	struct pmixev_buf w, r;

	(void)state;
	alloc_fill(&m);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_alloc_pack(&w, &m), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_alloc_unpack(&r, &fx, &got), 0);
	assert_true(got.id == m.id && got.mem_mb == m.mem_mb);
	assert_int_equal(got.rank, m.rank);
	assert_int_equal(got.directive, m.directive);
	assert_int_equal(got.job, m.job);
	assert_int_equal(got.nnodes, m.nnodes);
	assert_int_equal(got.ncpus, m.ncpus);
	assert_int_equal(got.seconds, m.seconds);
	assert_string_equal(got.nodes, m.nodes);
	assert_string_equal(got.exclude, m.exclude);
	assert_string_equal(got.queue, m.queue);
	assert_string_equal(got.reqid, m.reqid);
	assert_int_equal(got.flags, m.flags);
	assert_int_equal(got.timeout_ms, m.timeout_ms);
	assert_strict(&w, un_alloc);
	for (unsigned d = PMIXEV_PMIXD_ALLOC_NEW;
	     d <= PMIXEV_PMIXD_ALLOC_CANCEL; d++) {
		alloc_fill(&m);
		m.directive = (enum pmixev_pmixd_alloc_dir)d;
		m.rank = PMIXEV_PMIXD_NO_RANK;
		pmixev_buf_init(&w);
		assert_int_equal(pmixev_pmixd_alloc_pack(&w, &m), 0);
		assert_strict(&w, un_alloc);
	}
	pmixev_buf_init(&w);
#define REFUSED(change)                                                        \
	do {                                                                   \
		alloc_fill(&m);                                                \
		change;                                                        \
		assert_int_equal(pmixev_pmixd_alloc_pack(&w, &m), -1);         \
		assert_int_equal(w.len, 0);                                    \
	} while (0)
	REFUSED(m.directive = 0);
	REFUSED(m.directive = 6);
	REFUSED(m.flags = 8);
	REFUSED(m.timeout_ms = PMIXEV_PMIXD_SPAWN_MS_MAX + 1);
	REFUSED(strcpy(m.nodes, "n1 n2"));
	REFUSED(strcpy(m.exclude, "n1\n"));
	REFUSED(memset(m.reqid, 'q', sizeof(m.reqid)));
	REFUSED(memset(m.queue, 'q', sizeof(m.queue)));
#undef REFUSED
	/* A rank on another node. */
	alloc_fill(&m);
	m.rank = 4;
	assert_int_equal(pmixev_pmixd_alloc_pack(&w, &m), 0);
	assert_int_equal(un_alloc(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

static void test_alloc_done(void **state)
{
	struct pmixev_pmixd_alloc_done d = {.id = 5,
					    .job = 31,
					    .nodes = "n3",
					    .nnodes = 1,
					    .ncpus = 8,
					    .seconds = 600,
					    .queue = "debug"},
				       got;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_alloc_done_pack(&w, &d), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_alloc_done_unpack(&r, &got), 0);
	assert_true(got.id == d.id);
	assert_int_equal(got.status, d.status);
	assert_int_equal(got.job, d.job);
	assert_string_equal(got.nodes, d.nodes);
	assert_int_equal(got.nnodes, d.nnodes);
	assert_int_equal(got.ncpus, d.ncpus);
	assert_int_equal(got.seconds, d.seconds);
	assert_string_equal(got.queue, d.queue);
	assert_string_equal(got.reason, d.reason);
	assert_strict(&w, un_alloc_done);
	pmixev_buf_init(&w);
	d.status = 1;
	assert_int_equal(pmixev_pmixd_alloc_done_pack(&w, &d), -1);
	d.status = -188;
	strcpy(d.nodes, "n3,n4 ");
	assert_int_equal(pmixev_pmixd_alloc_done_pack(&w, &d), -1);
	assert_int_equal(w.len, 0);
}

static void test_types(void **state)
{
	static const struct {
		uint8_t type;
		const char *name;
		bool owner;
	} t[] = {
		{PMIXEV_PMIXD_SPAWN, "SPAWN", true},
		{PMIXEV_PMIXD_SPAWN_DONE, "SPAWN_DONE", false},
		{PMIXEV_PMIXD_NSPACE_ADD, "NSPACE_ADD", false},
		{PMIXEV_PMIXD_NSPACE_DEL, "NSPACE_DEL", false},
		{PMIXEV_PMIXD_NSPACE_ADDED, "NSPACE_ADDED", true},
		{PMIXEV_PMIXD_ALLOC, "ALLOC", true},
		{PMIXEV_PMIXD_ALLOC_DONE, "ALLOC_DONE", false},
	};
	uint8_t h[PMIXEV_PMIXD_HDR_LEN], type;
	const char *why;
	uint32_t len;

	(void)state;
	/* Appended: the types before keep their numbers. */
	assert_int_equal(PMIXEV_PMIXD_SPAWN, PMIXEV_PMIXD_GROUP_ABORT + 1);
	assert_int_equal(PMIXEV_PMIXD_GROUP_ABORT, 30);
	assert_int_equal(PMIXEV_PMIXD_TYPE_MAX, PMIXEV_PMIXD_ALLOC_DONE);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(t[i].type, PMIXEV_PMIXD_SPAWN + i);
		assert_string_equal(pmixev_pmixd_type_name(t[i].type),
				    t[i].name);
		pmixev_pmixd_hdr_encode(t[i].type, 0, h);
		assert_int_equal(
			pmixev_pmixd_hdr_decode(h, sizeof(h), 100,
						PMIXEV_PMIXD_FROM_OWNER, &type,
						&len, &why),
			t[i].owner ? 1 : -1);
		assert_int_equal(pmixev_pmixd_hdr_decode(h, sizeof(h), 100,
							 PMIXEV_PMIXD_FROM_ROOT,
							 &type, &len, &why),
				 t[i].owner ? -1 : 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nspace_names),
		cmocka_unit_test(test_spawn_done),
		cmocka_unit_test(test_nspace_msgs),
		cmocka_unit_test(test_alloc),
		cmocka_unit_test(test_alloc_done),
		cmocka_unit_test(test_types),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
