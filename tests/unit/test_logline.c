/*
 * Unit tests for common/pmixev_logline.c: an application's message as one
 * safe log line, and the syslog datagram.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <cmocka.h>

#include "pmixev_logline.h"

static void test_clean_escapes(void **state)
{
	char out[64];

	assert_int_equal(pmixev_logline_clean(out, sizeof(out), "plain"), 5);
	assert_string_equal(out, "plain");
	pmixev_logline_clean(out, sizeof(out),
			     "two\nlines\r\tand \x1b[31mred\x7f");
	assert_string_equal(out, "two#012lines#015#011and #033[31mred#177");
	assert_int_equal(pmixev_logline_clean(out, sizeof(out), ""), 0);
	assert_string_equal(out, "");
	assert_int_equal(pmixev_logline_clean(out, sizeof(out), NULL), 0);
}

/* Too long: cut, and the cut said; never past the buffer. */
static void test_clean_cuts(void **state)
{
	char out[10], *big, *line;
	size_t n;

	assert_int_equal(pmixev_logline_clean(out, sizeof(out), "123456789"),
			 9);
	assert_string_equal(out, "123456789");
	assert_int_equal(pmixev_logline_clean(out, sizeof(out), "1234567890"),
			 9);
	assert_string_equal(out, "123456...");
	pmixev_logline_clean(out, sizeof(out), "12345\n\n");
	assert_string_equal(out, "12345#...");
	assert_int_equal(pmixev_logline_clean(out, 3, "abc"), 0);
	assert_string_equal(out, "");
	big = malloc(10000);
	line = malloc(10000);
	assert_non_null(big);
	assert_non_null(line);
	memset(big, 'x', 9999);
	big[9999] = '\0';
	n = pmixev_logline_clean(line, 10000, big);
	assert_int_equal(n, PMIXEV_LOGLINE_MAX);
	assert_string_equal(line + n - 3, "...");
	free(big);
	free(line);
}

static void test_syslog_format(void **state)
{
	char out[128];
	size_t n;

	setenv("TZ", "UTC", 1);
	tzset();
	n = pmixev_syslog_format(out, sizeof(out), LOG_USER, LOG_ERR,
				 (time_t)1764000000, "pmixev", 42, "hello");
	assert_string_equal(out, "<11>Nov 24 16:00:00 pmixev[42]: hello");
	assert_int_equal(n, strlen(out));
	assert_int_equal(pmixev_syslog_format(out, 10, LOG_USER, LOG_ERR, 0,
					      "pmixev", 42, "hello"),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_escapes),
		cmocka_unit_test(test_clean_cuts),
		cmocka_unit_test(test_syslog_format),
	};

	return cmocka_run_group_tests_name("logline", tests, NULL, NULL);
}
