/*
 * Unit tests for plugins/mpi_pmixev/overlay/waitq.c: a full door closes
 * the oldest unauthenticated connection (of the same address first),
 * never the new one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "overlay/waitq.h"

struct item {
	int id;
	struct waitq_entry *e;
};

static void number(struct item *it, int n)
{
	for (int i = 0; i < n; i++)
		it[i] = (struct item){.id = i};
}

/* Admit item `it` from `host` as a door does: evict, then push. */
static struct item *admit(struct waitq *q, struct item *it, const char *host)
{
	struct item *victim = waitq_victim(q, host);

	if (victim)
		waitq_remove(q, victim->e);
	it->e = waitq_push(q, it, host);
	assert_non_null(it->e);
	return victim;
}

static void room_evicts_nothing(void **state)
{
	struct waitq *q = waitq_create(2, 4);
	struct item it[2];

	number(it, 2);

	assert_null(admit(q, &it[0], "10.0.0.1"));
	assert_null(admit(q, &it[1], "10.0.0.2"));
	assert_int_equal(waitq_count(q), 2);
	assert_ptr_equal(waitq_oldest(q), &it[0]);
	waitq_destroy(q);
}

static void per_address_evicts_its_oldest(void **state)
{
	struct waitq *q = waitq_create(2, 10);
	struct item it[5];

	number(it, 5);

	admit(q, &it[0], "10.0.0.9"); /* attacker */
	admit(q, &it[1], "10.0.0.1"); /* a genuine peer */
	admit(q, &it[2], "10.0.0.9");
	/* the attacker's third closes the attacker's first */
	assert_ptr_equal(admit(q, &it[3], "10.0.0.9"), &it[0]);
	assert_ptr_equal(admit(q, &it[4], "10.0.0.9"), &it[2]);
	assert_int_equal(waitq_count(q), 3);
	assert_ptr_equal(waitq_oldest(q), &it[1]);
	waitq_destroy(q);
}

static void full_door_evicts_oldest_of_all(void **state)
{
	struct waitq *q = waitq_create(8, 3);
	struct item it[6];

	number(it, 6);

	admit(q, &it[0], "10.0.0.9");
	admit(q, &it[1], "10.0.0.8");
	admit(q, &it[2], "10.0.0.7");
	/* a new (maybe genuine) one always gets in */
	assert_ptr_equal(admit(q, &it[3], "10.0.0.1"), &it[0]);
	assert_ptr_equal(admit(q, &it[4], "10.0.0.2"), &it[1]);
	assert_int_equal(waitq_count(q), 3);
	/* one authenticated and left: room again */
	waitq_remove(q, it[3].e);
	assert_null(admit(q, &it[5], "10.0.0.3"));
	assert_ptr_equal(waitq_oldest(q), &it[2]);
	waitq_destroy(q);
}

static void count_each(void *item, void *arg)
{
	struct item *it = item;
	int *seen = arg;

	assert_int_equal(it->id, *seen);
	(*seen)++;
}

static void removal_keeps_order(void **state)
{
	struct waitq *q = waitq_create(0, 0); /* bounds of at least 1 */
	struct item it[4];

	number(it, 4);
	int seen = 0;

	assert_null(admit(q, &it[0], "a"));
	assert_ptr_equal(admit(q, &it[1], "a"), &it[0]);
	waitq_destroy(q);

	q = waitq_create(4, 4);
	for (int i = 0; i < 4; i++)
		admit(q, &it[i], "h");
	waitq_remove(q, it[0].e); /* head */
	waitq_remove(q, it[3].e); /* tail */
	seen = 1;
	waitq_each(q, count_each, &seen);
	assert_int_equal(seen, 3);
	waitq_remove(q, it[1].e);
	waitq_remove(q, it[2].e);
	assert_null(waitq_oldest(q));
	assert_int_equal(waitq_count(q), 0);
	waitq_destroy(q);
	waitq_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(room_evicts_nothing),
		cmocka_unit_test(per_address_evicts_its_oldest),
		cmocka_unit_test(full_door_evicts_oldest_of_all),
		cmocka_unit_test(removal_keeps_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
