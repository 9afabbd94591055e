/*
 * Unit tests for plugins/mpi_pmixev/ownerhelper/owner_env.c: a production
 * build execs a program with its spec's environment itself; a sanitizer
 * build (this test built with --enable-sanitizers) puts the ASan runtime
 * this process runs with first in LD_PRELOAD, before the spec's preload,
 * and passes ASAN_OPTIONS and UBSAN_OPTIONS on; a spec with too many
 * entries is refused.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ownerhelper/owner_env.h"

/* The entry NAME=... of `env`, or NULL. */
static const char *entry(const char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (; *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env;
	return NULL;
}

static void test_spec_kept(void **state)
{
	const char *spec[] = {"PATH=/usr/bin", "LD_PRELOAD=/x/guard.so",
			      "PMIXEV_X=1", NULL};
	struct owner_env e;
	const char *const *env;
	const char *pre;

	(void)state;
	setenv("ASAN_OPTIONS", "abort_on_error=1", 1);
	env = owner_env_make(&e, spec);
	assert_non_null(env);
	assert_string_equal(entry(env, "PATH"), "PATH=/usr/bin");
	assert_string_equal(entry(env, "PMIXEV_X"), "PMIXEV_X=1");
	pre = entry(env, "LD_PRELOAD");
	assert_non_null(pre);
	if (!PMIXEV_SANITIZERS) {
		assert_ptr_equal(env, spec);
		return;
	}
	/* The runtime first, the spec's preload after it. */
	assert_non_null(strstr(pre, "libasan.so"));
	assert_true(strstr(pre, "libasan.so") < strstr(pre, ":/x/guard.so"));
	assert_string_equal(strstr(pre, ":/x/guard.so"), ":/x/guard.so");
	assert_string_equal(entry(env, "ASAN_OPTIONS"),
			    "ASAN_OPTIONS=abort_on_error=1");
}

static void test_no_preload(void **state)
{
	const char *spec[] = {"PATH=/usr/bin", NULL};
	struct owner_env e;
	const char *const *env;

	(void)state;
	unsetenv("UBSAN_OPTIONS");
	env = owner_env_make(&e, spec);
	assert_non_null(env);
	assert_null(entry(env, "UBSAN_OPTIONS"));
	if (PMIXEV_SANITIZERS)
		assert_non_null(strstr(entry(env, "LD_PRELOAD"), "libasan.so"));
	else
		assert_null(entry(env, "LD_PRELOAD"));
}

static void test_too_many(void **state)
{
	const char *spec[OWNER_ENV_VARS + 2] = {0};
	struct owner_env e;

	(void)state;
	for (int i = 0; i <= OWNER_ENV_VARS; i++)
		spec[i] = "A=1";
	if (PMIXEV_SANITIZERS)
		assert_null(owner_env_make(&e, spec));
	else
		assert_ptr_equal(owner_env_make(&e, spec), spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_kept),
		cmocka_unit_test(test_no_preload),
		cmocka_unit_test(test_too_many),
	};

	return cmocka_run_group_tests_name("owner_env", tests, NULL, NULL);
}
