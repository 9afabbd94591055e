/*
 * Unit tests for common/pmixev_preempt.c: the preemptible mark in a job
 * comment, the user's own words kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_preempt.h"

static void test_marked(void **state)
{
	assert_false(pmixev_preempt_marked(NULL));
	assert_false(pmixev_preempt_marked(""));
	assert_false(pmixev_preempt_marked("pmixev:preemptible2"));
	assert_false(pmixev_preempt_marked("xpmixev:preemptible"));
	assert_true(pmixev_preempt_marked("pmixev:preemptible"));
	assert_true(pmixev_preempt_marked("run 7  pmixev:preemptible\tok"));
}

static void test_mark(void **state)
{
	static const struct {
		const char *in;
		bool on;
		const char *out;
	} cases[] = {
		{NULL, true, "pmixev:preemptible"},
		{"", false, ""},
		{"my run", true, "my run pmixev:preemptible"},
		{"my run pmixev:preemptible", true,
		 "my run pmixev:preemptible"},
		{"my pmixev:preemptible  run", false, "my  run"},
		{"pmixev:preemptible my run", false, "my run"},
		{"  a  ", true, "a pmixev:preemptible"},
		{"pmixev:preemptible", false, ""},
		{"pmixev:preemptiblex", true,
		 "pmixev:preemptiblex pmixev:preemptible"},
	};
	char out[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(pmixev_preempt_mark(cases[i].in, cases[i].on,
						     out, sizeof(out)),
				 0);
		assert_string_equal(out, cases[i].out);
		assert_int_equal(pmixev_preempt_marked(out), cases[i].on);
	}
}

static void test_too_long(void **state)
{
	char out[20];

	assert_int_equal(pmixev_preempt_mark("abc", true, out, sizeof(out)),
			 -1);
	assert_int_equal(pmixev_preempt_mark("abc", false, out, 3), -1);
	assert_int_equal(pmixev_preempt_mark("abc", false, out, 4), 0);
	assert_string_equal(out, "abc");
	assert_int_equal(pmixev_preempt_mark("abc", false, out, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marked),
		cmocka_unit_test(test_mark),
		cmocka_unit_test(test_too_long),
	};

	return cmocka_run_group_tests_name("preempt", tests, NULL, NULL);
}
