/*
 * Unit tests for common/pmixev_pmixd_start.c: START and READY round trips
 * and refusals (task maps, environment names and limits).
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
#include "pmixev_pmixd_start.h"
#include "proto_strict.h"

UNPACKER(un_start, struct pmixev_pmixd_start,
	 (pmixev_pmixd_start_unpack(&r, &m) < 0
		  ? -1
		  : (pmixev_pmixd_start_release(&m), 0)))
UNPACKER(un_ready, struct pmixev_pmixd_ready,
	 (pmixev_pmixd_ready_unpack(&r, &fx, &m) < 0
		  ? -1
		  : (pmixev_pmixd_ready_release(&m), 0)))

static char *fx_nodes[2] = {"n0", "n1"};
static uint32_t fx_node_of[8] = {0, 0, 0, 0, 1, 1, 1, 1};
static uint32_t fx_app_of[8] = {0, 0, 0, 0, 0, 0, 1, 1};

static void start_fill(struct pmixev_pmixd_start *s)
{
	memset(s, 0, sizeof(*s));
	s->step = (struct pmixev_step){.job_id = 7, .nnodes = 2, .ntasks = 8};
	strcpy(s->step.node, "n0");
	strcpy(s->step.id, "7.0");
	s->nodes = fx_nodes;
	s->node_of = fx_node_of;
	s->napps = 2;
	s->app_of = fx_app_of;
	s->uid = 1000;
	strcpy(s->nspace, fx.nspace);
	s->timeout_sec = 300;
	s->debug = 3;
	s->event_cache_mib = 64;
	s->publish_mib = 16;
	s->log_rate = 100;
	s->gds = 1;
	s->spawn = 1;
	strcpy(s->bind_list, "0x3,0xc");
	strcpy(s->step_cores, "0-3,8");
}

static void test_start(void **state)
{
	struct pmixev_pmixd_start s, got;
	struct pmixev_buf w, r;

	(void)state;
	start_fill(&s);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_start_unpack(&r, &got), 0);
	assert_string_equal(got.nodes[1], "n1");
	assert_int_equal(got.app_of[7], 1);
	assert_int_equal(got.node_of[4], 1);
	assert_int_equal(got.event_cache_mib, 64);
	assert_int_equal(got.publish_mib, 16);
	assert_int_equal(got.log_rate, 100);
	assert_int_equal(got.gds, 1);
	assert_int_equal(got.spawn, 1);
	assert_string_equal(got.step_cores, "0-3,8");
	assert_string_equal(got.parent, "");
	pmixev_pmixd_start_release(&got);
	/* A spawned step's START names its parent. */
	strcpy(s.parent, "slurm.pmixev.7.0");
	s.parent_rank = 5;
	pmixev_buf_release(&w);
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_start_unpack(&r, &got), 0);
	assert_string_equal(got.parent, "slurm.pmixev.7.0");
	assert_int_equal(got.parent_rank, 5);
	pmixev_pmixd_start_release(&got);
	pmixev_pmixd_start_release(NULL);
	assert_strict(&w, un_start);
	/* Each refused by pack: unpack would refuse it too. */
	s.nodeid = 2;
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), -1);
	start_fill(&s);
	s.debug = 4;
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), -1);
	start_fill(&s);
	s.gds = 3;
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), -1);
	start_fill(&s);
	s.spawn = 2;
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), -1);
	start_fill(&s);
	strcpy(s.step_cores, "0-3;x"); /* not a core list */
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), -1);
	start_fill(&s);
	s.timeout_sec = 86401;
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), -1);
	/* A parent is a step's namespace and a valid rank, or none at all. */
	start_fill(&s);
	s.parent_rank = 3; /* a rank without a parent */
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), -1);
	strcpy(s.parent, "slurm.pmixev.7.x");
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), -1);
	strcpy(s.parent, "slurm.pmixev.7.0");
	s.parent_rank = PMIXEV_PMIXD_START_RANK_MAX;
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), -1);
	start_fill(&s);
	s.napps = 1; /* rank 6 is in app 1 */
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), -1);
	start_fill(&s);
	s.step.nnodes = 1; /* ranks on node 1 */
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), -1);
	assert_int_equal(w.len, 0);
	/* A huge task count with no bytes for it allocates nothing. */
	start_fill(&s);
	s.step.ntasks = 1;
	s.node_of = fx_node_of;
	s.app_of = fx_node_of;
	s.napps = 1;
	assert_int_equal(pmixev_pmixd_start_pack(&w, &s), 0);
	w.data[15] = 0xff; /* ntasks = 0x000000ff, the body far too short */
	assert_int_equal(un_start(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

static void test_ready(void **state)
{
	char *vars[4][2] = {{"PMIX_RANK=0", "A_1="},
			    {"PMIX_RANK=1", NULL},
			    {"X=2", NULL},
			    {"Y=3", NULL}};
	struct pmixev_pmixd_env env[4] = {{0, 2, vars[0]},
					  {1, 1, vars[1]},
					  {2, 1, vars[2]},
					  {3, 1, vars[3]}};
	struct pmixev_pmixd_ready rd = {.status = PMIXEV_OK,
					.gate_port = 9,
					.lib_major = 4,
					.nenv = 4,
					.env = env};
	struct pmixev_pmixd_ready got;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_ready_pack(&w, &rd), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_ready_unpack(&r, &fx, &got), 0);
	assert_string_equal(got.env[0].vars[1], "A_1=");
	pmixev_pmixd_ready_release(&got);
	assert_strict(&w, un_ready);
	/* Not exactly this node's ranks, in order. */
	env[3].rank = 4;
	assert_int_equal(pmixev_pmixd_ready_pack(&w, &rd), 0);
	assert_int_equal(un_ready(w.data, w.len), -1);
	pmixev_buf_release(&w);
	env[3].rank = 3;
	rd.nenv = 3;
	assert_int_equal(pmixev_pmixd_ready_pack(&w, &rd), 0);
	assert_int_equal(un_ready(w.data, w.len), -1);
	pmixev_buf_release(&w);
	/* A failure carries no environment. */
	rd.status = PMIXEV_ERR_FAILED;
	rd.nenv = 0;
	assert_int_equal(pmixev_pmixd_ready_pack(&w, &rd), 0);
	assert_strict(&w, un_ready);
	rd.nenv = 4;
	assert_int_equal(pmixev_pmixd_ready_pack(&w, &rd), -1);
	rd.status = PMIXEV_OK;
	/* Bad names, NUL in values, too many, too big. */
	assert_false(pmixev_pmixd_env_var_ok("1A=x"));
	assert_false(pmixev_pmixd_env_var_ok("a=x"));
	assert_false(pmixev_pmixd_env_var_ok("A-B=x"));
	assert_false(pmixev_pmixd_env_var_ok("AB"));
	assert_false(pmixev_pmixd_env_var_ok("=x"));
	assert_true(pmixev_pmixd_env_var_ok("_A9=a=b"));
	vars[2][0] = "bad=1";
	assert_int_equal(pmixev_pmixd_ready_pack(&w, &rd), -1);
	vars[2][0] = "X=2";
	assert_int_equal(pmixev_pmixd_ready_pack(&w, &rd), 0);
	/* Rank 2's "X=2" becomes "X\0" + "2": a NUL on the wire. */
	for (size_t i = 0; i + 3 <= w.len; i++)
		if (!memcmp(w.data + i, "X=2", 3))
			w.data[i + 1] = '\0';
	assert_int_equal(un_ready(w.data, w.len), -1);
	pmixev_buf_release(&w);
	{
		char **many = calloc(PMIXEV_PMIXD_ENV_VARS + 1, sizeof(*many));
		char *big = malloc(PMIXEV_PMIXD_ENV_BYTES + 1);

		assert_non_null(many);
		assert_non_null(big);
		for (size_t i = 0; i <= PMIXEV_PMIXD_ENV_VARS; i++)
			many[i] = "V=1";
		env[2] = (struct pmixev_pmixd_env){2, PMIXEV_PMIXD_ENV_VARS + 1,
						   many};
		assert_int_equal(pmixev_pmixd_ready_pack(&w, &rd), -1);
		memset(big, 'v', PMIXEV_PMIXD_ENV_BYTES);
		memcpy(big, "BIG=", 4);
		big[PMIXEV_PMIXD_ENV_BYTES] = '\0';
		many[0] = big;
		env[2].count = 2;
		assert_int_equal(pmixev_pmixd_ready_pack(&w, &rd), -1);
		assert_int_equal(w.len, 0);
		free(big);
		free(many);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start),
		cmocka_unit_test(test_ready),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
