/*
 * Unit tests for common/pmixev_escape.c: control characters as visible
 * escapes, bounded output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_escape.h"

static void test_plain_kept(void **state)
{
	char buf[64];

	assert_int_equal(pmixev_escape(buf, sizeof(buf), "rank 3: ok é"),
			 strlen("rank 3: ok é"));
	assert_string_equal(buf, "rank 3: ok é");
	pmixev_escape(buf, sizeof(buf), NULL);
	assert_string_equal(buf, "");
}

static void test_controls_escaped(void **state)
{
	char buf[128];

	pmixev_escape(buf, sizeof(buf),
		      "ns\nerror: mpi/pmixev: FORGED\r\t\x1b[31m\x7f\x01\\");
	assert_string_equal(buf, "ns\\nerror: mpi/pmixev: FORGED\\r\\t"
				 "\\x1b[31m\\x7f\\x01\\\\");
	assert_null(strchr(buf, '\n'));
}

static void test_bounded(void **state)
{
	char buf[16], big[4096];

	/* Fits exactly: no "...". */
	assert_int_equal(pmixev_escape(buf, sizeof(buf), "0123456789abcde"),
			 15);
	assert_string_equal(buf, "0123456789abcde");
	/* One more: cut, with "...". */
	assert_int_equal(pmixev_escape(buf, sizeof(buf), "0123456789abcdef"),
			 15);
	assert_string_equal(buf, "0123456789ab...");
	/* Never inside an escape. */
	pmixev_escape(buf, sizeof(buf), "0123456789\n\n\n\n\n\n");
	assert_string_equal(buf, "0123456789\\n...");
	pmixev_escape(buf, sizeof(buf), "012345678\x1b\x1b\x1b");
	assert_string_equal(buf, "012345678...");
	/* A long line of newlines stays within the buffer. */
	memset(big, '\n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_true(pmixev_escape(buf, sizeof(buf), big) < sizeof(buf));
	/* Too small a buffer: empty. */
	assert_int_equal(pmixev_escape(buf, 3, "abc"), 0);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_kept),
		cmocka_unit_test(test_controls_escaped),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests_name("escape", tests, NULL, NULL);
}
