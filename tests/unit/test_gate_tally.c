/*
 * Unit tests for gate/gate_tally.c (built with a 200 ms interval): the
 * first refusal of a quiet spell is logged at once, a flood within the
 * interval becomes one summary naming its uids and its last cause, a quiet
 * interval ends the spell, and every line is at info level (never error:
 * slurmstepd copies error lines to the job's own stderr).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <time.h>
#include <unistd.h>

#include "gate/gate_tally.h"
#include "pmixev_log.h"

/* The lines logged, one after the other. */
static char logged[16][1024];
static int nlogged, nerrors;

void pmixev_log(enum pmixev_log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level == PMIXEV_LOG_ERROR)
		nerrors++;
	if (nlogged == 16)
		return;
	va_start(ap, fmt);
	vsnprintf(logged[nlogged++], sizeof(logged[0]), fmt, ap);
	va_end(ap);
}

void pmixev_log_debug(unsigned dbg, const char *fmt, ...)
{
	(void)dbg;
	(void)fmt;
}

static int reset(void **state)
{
	(void)state;
	nlogged = nerrors = 0;
	return 0;
}

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static void test_flood_is_summed_up(void **state)
{
	struct gate_tally *t = gate_tally_create();
	char peer[32];
	int wait_ms;

	(void)state;
	assert_non_null(t);
	assert_int_equal(gate_tally_wait_ms(t), -1);
	gate_tally_refused(t, 995, "127.0.0.1:1000", "its process runs as %s",
			   "uid 995");
	assert_int_equal(nlogged, 1);
	assert_string_equal(logged[0],
			    "pmix gate: refusing a PMIx connection from "
			    "127.0.0.1:1000: its process runs as uid 995 (more "
			    "refusals are summed up every 1 s)");
	for (int i = 0; i < 10000; i++) {
		snprintf(peer, sizeof(peer), "127.0.0.1:%d", 2000 + i % 50000);
		gate_tally_refused(t, i % 3 ? 995 : (uid_t)-1, peer, "cause %d",
				   i);
	}
	gate_tally_refused(t, 0, "127.0.0.1:9", "the last");
	assert_int_equal(nlogged, 1);
	/* (cmocka 2 deprecates assert_in_range) */
	wait_ms = gate_tally_wait_ms(t);
	assert_true(wait_ms >= 1 && wait_ms <= 200);
	gate_tally_tick(t); /* not due yet */
	assert_int_equal(nlogged, 1);
	pause_ms(250);
	assert_int_equal(gate_tally_wait_ms(t), 0);
	gate_tally_tick(t);
	assert_int_equal(nlogged, 2);
	assert_string_equal(logged[1],
			    "pmix gate: 10001 connection(s) refused in the "
			    "last 1 s, from uid(s) 995, 0, unknown; the last "
			    "from 127.0.0.1:9: the last");
	/* A new interval began: a refusal in it is counted, not logged. */
	gate_tally_refused(t, 1001, "127.0.0.1:10", "again");
	assert_int_equal(nlogged, 2);
	/* Logged when the gate ends, though the interval has not. */
	gate_tally_destroy(t);
	assert_int_equal(nlogged, 3);
	assert_string_equal(logged[2],
			    "pmix gate: 1 connection(s) refused in the last 1 "
			    "s, from uid(s) 1001; the last from 127.0.0.1:10: "
			    "again");
	assert_int_equal(nerrors, 0);
}

static void test_quiet_interval_ends_the_spell(void **state)
{
	struct gate_tally *t = gate_tally_create();

	(void)state;
	gate_tally_refused(t, 995, "127.0.0.1:1", "first");
	pause_ms(250);
	gate_tally_tick(t); /* nothing counted: no summary, spell over */
	assert_int_equal(nlogged, 1);
	assert_int_equal(gate_tally_wait_ms(t), -1);
	gate_tally_refused(t, 995, "127.0.0.1:2", "second");
	assert_int_equal(nlogged, 2);
	assert_non_null(strstr(logged[1], "127.0.0.1:2: second"));
	gate_tally_destroy(t); /* nothing left to say */
	assert_int_equal(nlogged, 2);
	gate_tally_destroy(NULL);
}

static void test_many_uids(void **state)
{
	struct gate_tally *t = gate_tally_create();

	(void)state;
	gate_tally_refused(t, 1, "p", "c");
	for (uid_t u = 100; u < 120; u++)
		gate_tally_refused(t, u, "p", "c");
	gate_tally_destroy(t);
	assert_int_equal(nlogged, 2);
	assert_non_null(strstr(logged[1], "20 connection(s) refused"));
	assert_non_null(strstr(logged[1], "from uid(s) 100, 101, 102, 103, "
					  "104, 105, 106, 107, and others;"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_flood_is_summed_up, reset),
		cmocka_unit_test_setup(test_quiet_interval_ends_the_spell,
				       reset),
		cmocka_unit_test_setup(test_many_uids, reset),
	};

	return cmocka_run_group_tests_name("gate_tally", tests, NULL, NULL);
}
