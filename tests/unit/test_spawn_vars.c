/*
 * Unit tests for common/pmixev_spawn_vars.c and pmixev_base64.c:
 * SLURM_PMIXEV_SPAWN_PARENT, _ID and _LAYOUT both ways, and strict base64.
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

#include "pmixev_base64.h"
#include "pmixev_spawn_cmd.h"

static void test_parent_and_id(void **state)
{
	static const char *const bad[] = {"slurm.pmixev.7.0",
					  "slurm.pmixev.7.0,",
					  ",3",
					  "slurm.pmixev.7.0,03",
					  "slurm.pmixev.7.0,-1",
					  "slurm.pmixev.7.0,+1",
					  "slurm.pmixev.7.0,1 ",
					  "slurm.pmixev.7.0,4294967245",
					  "slurm.pmixev.7.0,99999999999",
					  "group,1",
					  "slurm.pmixev.7.0.srv,1",
					  NULL};
	char ns[PMIXEV_NSPACE_MAX], buf[300], id[PMIXEV_SPAWN_ID_LEN];
	uint32_t rank = 0;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(
		pmixev_spawn_parent_parse("slurm.pmixev.7.0,12", ns, &rank), 0);
	assert_string_equal(ns, "slurm.pmixev.7.0");
	assert_int_equal(rank, 12);
	assert_int_equal(
		pmixev_spawn_parent_parse(
			"slurm.pmixev.7.0.tool.1.0,4294967244", ns, &rank),
		0);
	assert_int_equal(rank, PMIXEV_SPAWN_RANK_MAX - 1);
	for (size_t i = 0; bad[i]; i++)
		assert_int_equal(pmixev_spawn_parent_parse(bad[i], ns, &rank),
				 -1);
	assert_int_equal(pmixev_spawn_parent_format(buf, sizeof(buf),
						    "slurm.pmixev.7.3", 0),
			 0);
	assert_string_equal(buf, "slurm.pmixev.7.3,0");
	assert_int_equal(
		pmixev_spawn_parent_format(buf, 10, "slurm.pmixev.7.3", 0), -1);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(pmixev_spawn_parent_format(buf, sizeof(buf),
						    "slurm.pmixev.7.3",
						    PMIXEV_SPAWN_RANK_MAX),
			 -1);
	/* Spawn ids. */
	assert_int_equal(pmixev_spawn_id_format(id, UINT64_MAX), 0);
	assert_string_equal(id, "18446744073709551615");
	assert_int_equal(pmixev_spawn_id_parse(id, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(pmixev_spawn_id_parse("1", &v), 0);
	assert_true(v == 1);
	assert_int_equal(pmixev_spawn_id_format(id, 0), -1);
	assert_int_equal(pmixev_spawn_id_parse("0", &v), -1);
	assert_int_equal(pmixev_spawn_id_parse("", &v), -1);
	assert_int_equal(pmixev_spawn_id_parse("01", &v), -1);
	assert_int_equal(pmixev_spawn_id_parse("18446744073709551616", &v), -1);
	assert_int_equal(pmixev_spawn_id_parse("184467440737095516150", &v),
			 -1);
	assert_int_equal(pmixev_spawn_id_parse("1x", &v), -1);
}

static void test_base64(void **state)
{
	/* RFC 4648 §10. */
	static const char *const vec[][2] = {{"", ""},
					     {"f", "Zg=="},
					     {"fo", "Zm8="},
					     {"foo", "Zm9v"},
					     {"foob", "Zm9vYg=="},
					     {"fooba", "Zm9vYmE="},
					     {"foobar", "Zm9vYmFy"}};
	char text[16];
	uint8_t raw[16];
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		size_t len = strlen(vec[i][0]);

		assert_int_equal(pmixev_base64_len(len), strlen(vec[i][1]));
		pmixev_base64_encode((const uint8_t *)vec[i][0], len, text);
		assert_string_equal(text, vec[i][1]);
		assert_int_equal(
			pmixev_base64_decode(text, strlen(text), raw, &n), 0);
		assert_int_equal(n, len);
		assert_memory_equal(raw, vec[i][0], len);
	}
	/* Not canonical: unused bits set, padding misplaced, other
	 * characters. */
	assert_int_equal(pmixev_base64_decode("Zh==", 4, raw, &n), -1);
	assert_int_equal(pmixev_base64_decode("Zm9=", 4, raw, &n), -1);
	assert_int_equal(pmixev_base64_decode("Zg=a", 4, raw, &n), -1);
	assert_int_equal(pmixev_base64_decode("Zg==Zg==", 8, raw, &n), -1);
	assert_int_equal(pmixev_base64_decode("Zm9", 3, raw, &n), -1);
	assert_int_equal(pmixev_base64_decode("Zm9v\n", 5, raw, &n), -1);
	assert_int_equal(pmixev_base64_decode("Zm-v", 4, raw, &n), -1);
	assert_int_equal(pmixev_base64_decode("====", 4, raw, &n), -1);
}

static void test_layout_var(void **state)
{
	static const uint8_t raw[] = {0, 1, 2, 0xff, 'x'};
	uint8_t *got = NULL, *big;
	size_t n = 0;
	char *text;

	(void)state;
	text = pmixev_spawn_layout_encode(raw, sizeof(raw));
	assert_non_null(text);
	assert_string_equal(text, "AAEC/3g=");
	assert_int_equal(pmixev_spawn_layout_decode(text, &got, &n), 0);
	assert_int_equal(n, sizeof(raw));
	assert_memory_equal(got, raw, n);
	free(got);
	free(text);
	/* Empty, not base64, too long: refused. */
	assert_int_equal(pmixev_spawn_layout_decode("", &got, &n), -1);
	assert_null(got);
	assert_int_equal(pmixev_spawn_layout_decode("AAEC/3g", &got, &n), -1);
	assert_int_equal(pmixev_spawn_layout_decode("AA\nC", &got, &n), -1);
	errno = 0;
	assert_null(pmixev_spawn_layout_encode(raw, 0));
	assert_int_equal(errno, E2BIG);
	big = calloc(1, PMIXEV_SPAWN_APPS_MAX);
	assert_non_null(big);
	errno = 0;
	assert_null(pmixev_spawn_layout_encode(big, PMIXEV_SPAWN_APPS_MAX));
	assert_int_equal(errno, E2BIG);
	text = pmixev_spawn_layout_encode(big, PMIXEV_SPAWN_APPS_MAX / 4 * 3);
	assert_non_null(text);
	assert_int_equal(strlen(text), PMIXEV_SPAWN_APPS_MAX);
	assert_int_equal(pmixev_spawn_layout_decode(text, &got, &n), 0);
	assert_int_equal(n, PMIXEV_SPAWN_APPS_MAX / 4 * 3);
	free(got);
	free(text);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parent_and_id),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_layout_var),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
