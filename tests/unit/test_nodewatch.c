/*
 * Unit tests for common/pmixev_nodewatch.c: which of the job's nodes are
 * newly out of service (announced once each) and which came back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_nodewatch.h"

static struct pmixev_nodes_state s;
static struct pmixev_nodeev ev[PMIXEV_NODEEV_MAX];

static void add(const char *name, uint8_t avail, const char *reason)
{
	struct pmixev_node_state *n = &s.node[s.count++];

	snprintf(n->name, sizeof(n->name), "%s", name);
	n->avail = avail;
	snprintf(n->reason, sizeof(n->reason), "%s", reason);
}

static void test_drain_once_then_back(void **state)
{
	struct pmixev_nodewatch w;

	pmixev_nodewatch_init(&w);
	memset(&s, 0, sizeof(s));
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev), 0);
	add("n2", PMIXEV_NODE_DRAIN, "ECC errors");
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev), 1);
	assert_string_equal(ev[0].node.name, "n2");
	assert_int_equal(ev[0].node.avail, PMIXEV_NODE_DRAIN);
	assert_string_equal(ev[0].node.reason, "ECC errors");
	assert_string_equal(ev[0].text,
			    "node n2 is drained (no new work): ECC errors");
	/* The same state again is no news. */
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev), 1);
	assert_int_equal(ev[0].node.avail, PMIXEV_NODE_UP);
	assert_string_equal(ev[0].text, "node n2 is back in service");
	/* Drained again later: announced again. */
	add("n2", PMIXEV_NODE_DRAIN, "ECC errors");
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev), 1);
	assert_int_equal(ev[0].node.avail, PMIXEV_NODE_DRAIN);
}

static void test_change_of_state_or_reason(void **state)
{
	struct pmixev_nodewatch w;

	pmixev_nodewatch_init(&w);
	memset(&s, 0, sizeof(s));
	add("n1", PMIXEV_NODE_DRAIN, "maintenance");
	add("n3", PMIXEV_NODE_FAIL, "");
	/* The first look announces what is already out of service. */
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev), 2);
	assert_string_equal(ev[1].text,
			    "node n3 is expected to fail (no new work)");
	s.node[0].avail = PMIXEV_NODE_DOWN;
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev), 1);
	assert_string_equal(ev[0].text, "node n1 is down: maintenance");
	snprintf(s.node[1].reason, sizeof(s.node[1].reason), "thermal");
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev), 1);
	assert_string_equal(ev[0].node.name, "n3");
	assert_string_equal(ev[0].node.reason, "thermal");
}

static void test_bad_answers_change_nothing(void **state)
{
	struct pmixev_nodewatch w;

	pmixev_nodewatch_init(&w);
	memset(&s, 0, sizeof(s));
	add("n2", PMIXEV_NODE_DRAIN, "ECC errors");
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev), 1);
	/* A failed look (slurmctld down) says nothing, not "all back". */
	s.rc = 1;
	s.count = 0;
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev), 0);
	s.rc = 0;
	s.count = 1;
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev), 0);
	/* Unknown states and repeated names count once, as absent/first. */
	add("n2", PMIXEV_NODE_DOWN, "again");
	add("n4", PMIXEV_NODE_AVAIL_MAX + 1, "");
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev), 0);
	/* An out-of-range count is clamped. */
	s.count = PMIXEV_OWNER_NODES_MAX + 5;
	assert_true(pmixev_nodewatch_update(&w, &s, ev) <= PMIXEV_NODEEV_MAX);
}

static void test_every_node_out_and_back(void **state)
{
	struct pmixev_nodewatch w;
	char name[16];

	pmixev_nodewatch_init(&w);
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < PMIXEV_OWNER_NODES_MAX; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		add(name, PMIXEV_NODE_DRAIN, "maintenance");
	}
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev),
			 PMIXEV_OWNER_NODES_MAX);
	/* All replaced by others: as many back as newly out. */
	for (int i = 0; i < PMIXEV_OWNER_NODES_MAX; i++)
		snprintf(s.node[i].name, sizeof(s.node[i].name), "m%d", i);
	assert_int_equal(pmixev_nodewatch_update(&w, &s, ev),
			 PMIXEV_NODEEV_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drain_once_then_back),
		cmocka_unit_test(test_change_of_state_or_reason),
		cmocka_unit_test(test_bad_answers_change_nothing),
		cmocka_unit_test(test_every_node_out_and_back),
	};

	return cmocka_run_group_tests_name("nodewatch", tests, NULL, NULL);
}
