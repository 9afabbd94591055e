/*
 * Unit tests for plugins/mpi_pmixev/base/pending.c: ids, lookups, ends,
 * deadlines and lost nodes, on a real libevent base.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "base/pending.h"

struct req {
	struct pending *p;
	int failed;		/* fail calls */
	enum pmixev_result why; /* of the last one */
	uint32_t lost;
	bool released;
	bool far; /* waits on node 99 (for waits_far) */
};

static void req_fail(void *arg, enum pmixev_result why, uint32_t lost)
{
	struct req *r = arg;

	r->failed++;
	r->why = why;
	r->lost = lost;
	pending_end(r->p);
	r->p = NULL;
}

static void req_release(void *arg)
{
	((struct req *)arg)->released = true;
}

static bool waits_far(void *arg, uint32_t node)
{
	return ((struct req *)arg)->far && node == 99;
}

struct fixture {
	struct event_base *base;
	struct pending_set *set;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || !(f->base = event_base_new()) ||
	    !(f->set = pending_set_create(f->base, req_fail, NULL)))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pending_set_destroy(f->set, NULL);
	event_base_free(f->base);
	free(f);
	return 0;
}

static void add(struct fixture *f, struct req *r, uint32_t node,
		unsigned timeout_sec)
{
	r->p = pending_add(f->set, r, node, timeout_sec);
	assert_non_null(r->p);
}

static void test_ids_and_get(void **state)
{
	struct fixture *f = *state;
	struct req a = {0}, b = {0}, c = {0};

	add(f, &a, 1, 60);
	add(f, &b, 2, 60);
	add(f, &c, 1, 60);
	assert_int_equal(pending_id(a.p), 1);
	assert_int_equal(pending_id(b.p), 2);
	assert_int_equal(pending_id(c.p), 3);
	assert_ptr_equal(pending_get(f->set, 2, 2), &b);
	assert_ptr_equal(pending_get(f->set, 3, 1), &c);
	assert_null(pending_get(f->set, 2, 1)); /* right id, wrong node */
	assert_null(pending_get(f->set, 4, 1));
	pending_end(b.p);
	assert_null(pending_get(f->set, 2, 2));
	pending_end(NULL);
	pending_end(a.p);
	pending_end(c.p);
	assert_int_equal(a.failed + b.failed + c.failed, 0);
}

static void test_deadline(void **state)
{
	struct fixture *f = *state;
	struct req now = {0}, later = {0};

	add(f, &now, 1, 0);
	add(f, &later, 1, 3600);
	assert_int_equal(event_base_loop(f->base, EVLOOP_ONCE), 0);
	assert_int_equal(now.failed, 1);
	assert_int_equal(now.why, PMIXEV_ERR_TIMEOUT);
	assert_int_equal(now.lost, PENDING_NO_NODE);
	assert_int_equal(later.failed, 0);
	assert_null(pending_get(f->set, 1, 1));
	assert_ptr_equal(pending_get(f->set, 2, 1), &later);
	pending_end(later.p);
	/* Nothing is left to fire. */
	assert_int_equal(event_base_loop(f->base, EVLOOP_NONBLOCK), 1);
}

static void test_lost(void **state)
{
	struct fixture *f = *state;
	struct req a = {0}, b = {0}, c = {0};

	add(f, &a, 3, 60);
	add(f, &b, 4, 60);
	add(f, &c, 3, 60);
	pending_lost(f->set, 3);
	assert_int_equal(a.failed, 1);
	assert_int_equal(a.why, PMIXEV_ERR_UNREACH);
	assert_int_equal(a.lost, 3);
	assert_int_equal(c.failed, 1);
	assert_int_equal(b.failed, 0);
	pending_lost(f->set, 3);
	assert_int_equal(a.failed + c.failed, 2);
	assert_ptr_equal(pending_get(f->set, 2, 4), &b);
	pending_end(b.p);
}

/* With `waits`, the set asks which requests wait on a lost node. */
static void test_waits(void **state)
{
	struct fixture *f = *state;
	struct pending_set *s =
		pending_set_create(f->base, req_fail, waits_far);
	struct req near = {0}, far = {.far = true};

	assert_non_null(s);
	near.p = pending_add(s, &near, PENDING_NO_NODE, 60);
	far.p = pending_add(s, &far, PENDING_NO_NODE, 60);
	pending_lost(s, 5);
	assert_int_equal(near.failed + far.failed, 0);
	pending_lost(s, 99);
	assert_int_equal(far.failed, 1);
	assert_int_equal(far.lost, 99);
	assert_int_equal(near.failed, 0);
	pending_set_destroy(s, req_release);
	assert_true(near.released);
	assert_false(far.released);
}

/* A request that waits on the nodes of a mask, and on a lost one goes on
 * for the others. */
struct multi {
	struct pending *p;
	unsigned mask, unreach, timeouts;
};

static void multi_fail(void *arg, enum pmixev_result why, uint32_t lost)
{
	struct multi *m = arg;

	if (why == PMIXEV_ERR_UNREACH) {
		m->unreach++;
		m->mask &= ~(1u << lost);
		if (m->mask)
			return;
	} else {
		m->timeouts++;
	}
	pending_end(m->p);
	m->p = NULL;
}

static bool multi_waits(void *arg, uint32_t node)
{
	return ((struct multi *)arg)->mask & (1u << node);
}

/* One that goes on after a lost node keeps its deadline, and ends on the
 * last of its nodes lost. */
static void test_goes_on(void **state)
{
	struct fixture *f = *state;
	struct pending_set *s =
		pending_set_create(f->base, multi_fail, multi_waits);
	struct multi one = {.mask = 0x6}, two = {.mask = 0x6};

	assert_non_null(s);
	one.p = pending_add(s, &one, PENDING_NO_NODE, 0);
	two.p = pending_add(s, &two, PENDING_NO_NODE, 3600);
	pending_lost(s, 1);
	assert_int_equal(one.unreach + two.unreach, 2);
	assert_non_null(one.p);
	assert_non_null(two.p);
	pending_lost(s, 1); /* it no longer waits on node 1 */
	assert_int_equal(one.unreach + two.unreach, 2);
	assert_int_equal(event_base_loop(f->base, EVLOOP_ONCE), 0);
	assert_int_equal(one.timeouts, 1);
	assert_null(one.p);
	assert_int_equal(two.timeouts, 0);
	pending_lost(s, 2);
	assert_int_equal(two.unreach, 2);
	assert_null(two.p);
	pending_set_destroy(s, NULL);
	assert_int_equal(event_base_loop(f->base, EVLOOP_NONBLOCK), 1);
}

static bool is_far(void *arg, const void *key)
{
	return ((struct req *)arg)->far == *(const bool *)key;
}

static void end_if_far(void *arg, void *ctx)
{
	struct req *r = arg;

	(*(int *)ctx)++;
	if (r->far) {
		pending_end(r->p);
		r->p = NULL;
	}
}

static void test_find_and_each(void **state)
{
	struct fixture *f = *state;
	struct req a = {.far = true}, b = {0}, c = {.far = true};
	bool yes = true;
	int seen = 0;

	add(f, &a, 1, 60);
	add(f, &b, 1, 60);
	add(f, &c, 1, 60);
	assert_ptr_equal(pending_find(f->set, is_far, &yes), &c);
	pending_each(f->set, end_if_far, &seen);
	assert_int_equal(seen, 3);
	assert_null(pending_find(f->set, is_far, &yes));
	assert_ptr_equal(pending_get(f->set, 2, 1), &b);
	pending_end(b.p);
}

/* Destroying a set drops its requests without failing them. */
static void test_destroy(void **state)
{
	struct fixture *f = *state;
	struct pending_set *s = pending_set_create(f->base, req_fail, NULL);
	struct req a = {0}, b = {0};

	assert_non_null(s);
	a.p = pending_add(s, &a, 1, 0);
	b.p = pending_add(s, &b, 2, 60);
	pending_set_destroy(s, req_release);
	assert_true(a.released && b.released);
	assert_int_equal(event_base_loop(f->base, EVLOOP_NONBLOCK), 1);
	assert_int_equal(a.failed + b.failed, 0);
	pending_set_destroy(NULL, req_release);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ids_and_get, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_deadline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_goes_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_and_each, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_destroy, setup, teardown),
	};

	return cmocka_run_group_tests_name("pending", tests, NULL, NULL);
}
