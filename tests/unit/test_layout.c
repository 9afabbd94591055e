/*
 * Unit tests for plugins/mpi_pmixev/base/layout.c: a layout carried in
 * START comes back the same (nodes, task map, applications, ids), and a
 * rank in a group that does not exist is refused; base/layout_family.c:
 * the step's LAYOUT for the rest of its family holds the whole step's
 * fields and none of this node's, and LAYOUT's codec takes it; the
 * step's process sets are its applications, and only their exact names
 * are known.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/layout.h"
#include "base/layout_family.h"
#include "base/psets.h"
#include "pmixev_xstep.h"

static char *names[] = {"n1", "n2", "n3"};

/* 8 ranks over 3 nodes (3 on n1, none on n2, 5 on n3), 2 applications. */
static void fill(struct layout *lay)
{
	char err[128];

	memset(lay, 0, sizeof(*lay));
	lay->step = (struct pmixev_step){
		.job_id = 7, .step_id = 1, .nnodes = 3, .ntasks = 8};
	strcpy(lay->step.node, "n3");
	strcpy(lay->step.id, "7.1");
	lay->nodeid = 2;
	lay->nodes = names;
	lay->nnames = 3;
	lay->uid = 1000;
	lay->gid = 100;
	strcpy(lay->nspace, "slurm.pmixev.7.1");
	strcpy(lay->srv_nspace, "slurm.pmixev.7.1.srv");
	assert_int_equal(pmixev_taskmap_parse(&lay->map, "0,3,6;;1-2,4-5,7", 3,
					      8, err, sizeof(err)),
			 0);
	assert_int_equal(pmixev_taskmap_parse(&lay->apps, "0-5;6-7", 2, 8, err,
					      sizeof(err)),
			 0);
}

static void test_round_trip(void **state)
{
	struct pmixev_pmixd_start m = {0};
	struct layout lay, got;
	char err[128];

	(void)state;
	fill(&lay);
	layout_to_start(&lay, &m);
	assert_int_equal(layout_from_start(&got, &m, err, sizeof(err)), 0);
	assert_int_equal(got.step.ntasks, 8);
	assert_string_equal(got.step.id, "7.1");
	assert_int_equal(got.nodeid, 2);
	assert_int_equal(got.nnames, 3);
	assert_string_equal(got.nodes[1], "n2");
	assert_int_equal(got.uid, 1000);
	assert_string_equal(got.srv_nspace, "slurm.pmixev.7.1.srv");
	assert_int_equal(got.map.count[0], 3);
	assert_int_equal(got.map.count[1], 0);
	assert_int_equal(got.map.count[2], 5);
	assert_int_equal(got.map.ranks[2][4], 7);
	assert_int_equal(got.map.local_of[5], 3);
	assert_int_equal(layout_nlocal(&got), 5);
	assert_true(layout_is_local(&got, 4));
	assert_false(layout_is_local(&got, 3));
	assert_int_equal(got.apps.nnodes, 2);
	assert_int_equal(got.apps.node_of[6], 1);
	assert_int_equal(got.apps.local_of[7], 1);
	layout_free(&got);
	/* A rank in a node that does not exist. */
	lay.map.node_of[3] = 3;
	layout_to_start(&lay, &m);
	assert_int_equal(layout_from_start(&got, &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "rank 3"));
	assert_null(got.nodes);
	lay.nodes = NULL;
	lay.nnames = 0;
	layout_free(&lay);
}

static void test_family(void **state)
{
	struct pmixev_xstep_layout m;
	struct pmixev_buf b, r;
	struct layout lay, got;
	char err[128];

	(void)state;
	fill(&lay);
	pmixev_buf_init(&b);
	/* Not spawned: no parent, no rank, no spawn. */
	assert_int_equal(layout_family_pack(&lay, &b), 0);
	pmixev_buf_reader(&r, b.data, b.len);
	assert_int_equal(pmixev_xstep_layout_unpack(&r, b.len, &m), 0);
	assert_string_equal(m.parent_nspace, "");
	assert_int_equal(m.parent_rank, PMIXEV_XSTEP_NO_RANK);
	assert_int_equal(m.spawn_id, 0);
	assert_string_equal(m.start.nspace, "slurm.pmixev.7.1");
	assert_string_equal(m.start.step.node, "");
	assert_int_equal(m.start.uid, 0);
	assert_int_equal(layout_from_start(&got, &m.start, err, sizeof(err)),
			 0);
	assert_int_equal(got.map.count[2], 5);
	assert_int_equal(got.apps.node_of[6], 1);
	assert_string_equal(got.nodes[2], "n3");
	layout_free(&got);
	pmixev_xstep_layout_release(&m);
	pmixev_buf_release(&b);
	/* Spawned by rank 2 of step 7.0, spawn 5. */
	strcpy(lay.parent, "slurm.pmixev.7.0");
	lay.parent_rank = 2;
	lay.spawn_id = 5;
	pmixev_buf_init(&b);
	assert_int_equal(layout_family_pack(&lay, &b), 0);
	pmixev_buf_reader(&r, b.data, b.len);
	assert_int_equal(pmixev_xstep_layout_unpack(&r, b.len, &m), 0);
	assert_string_equal(m.parent_nspace, "slurm.pmixev.7.0");
	assert_int_equal(m.parent_rank, 2);
	assert_int_equal(m.spawn_id, 5);
	assert_string_equal(m.start.parent, "slurm.pmixev.7.0");
	pmixev_xstep_layout_release(&m);
	pmixev_buf_release(&b);
	lay.nodes = NULL;
	lay.nnames = 0;
	layout_free(&lay);
}

static void test_psets(void **state)
{
	struct layout lay;
	char name[PSETS_NAME_MAX], *all;
	uint32_t app = 99;

	(void)state;
	fill(&lay);
	assert_int_equal(psets_count(&lay), 2);
	psets_name(1, name);
	assert_string_equal(name, "slurm://app/1");
	psets_name(UINT32_MAX, name);
	assert_string_equal(name, "slurm://app/4294967295");
	all = psets_names(&lay);
	assert_non_null(all);
	assert_string_equal(all, "slurm://app/0,slurm://app/1");
	free(all);
	assert_int_equal(psets_app_of(&lay, "slurm://app/1", &app), 0);
	assert_int_equal(app, 1);
	assert_int_equal(psets_app_of(&lay, "slurm://app/0", &app), 0);
	assert_int_equal(app, 0);
	app = 99;
	assert_int_equal(psets_app_of(&lay, "slurm://app/2", &app), -1);
	assert_int_equal(psets_app_of(&lay, "slurm://app/01", &app), -1);
	assert_int_equal(psets_app_of(&lay, "slurm://app/", &app), -1);
	assert_int_equal(psets_app_of(&lay, "slurm://app/1x", &app), -1);
	assert_int_equal(psets_app_of(&lay, "slurm://app/-1", &app), -1);
	assert_int_equal(psets_app_of(&lay, "slurm://app/4294967296", &app),
			 -1);
	assert_int_equal(psets_app_of(&lay, "slurm://app/99999999999", &app),
			 -1);
	assert_int_equal(psets_app_of(&lay, "mpi://WORLD", &app), -1);
	assert_int_equal(psets_app_of(&lay, NULL, &app), -1);
	assert_int_equal(app, 99);
	lay.nodes = NULL;
	lay.nnames = 0;
	layout_free(&lay);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_psets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
