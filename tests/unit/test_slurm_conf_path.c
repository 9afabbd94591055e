/*
 * Unit tests for pmixev_slurm_conf_path() (slurm-headers-compat): the
 * slurm.conf the owner helper gets is slurmstepd's, from its configuration
 * or its own environment, or none (libslurm's default).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "slurm_compat.h"

/* The process's configuration, which libslurmfull defines in slurmstepd. */
slurm_conf_t slurm_conf;

static int reset(void **state)
{
	slurm_conf.slurm_conf = NULL;
	unsetenv("SLURM_CONF");
	return 0;
}

static void test_from_conf(void **state)
{
	slurm_conf.slurm_conf = "/etc/slurm/slurm.conf";
	setenv("SLURM_CONF", "/other/slurm.conf", 1);
	assert_string_equal(pmixev_slurm_conf_path(), "/etc/slurm/slurm.conf");
}

static void test_from_env(void **state)
{
	setenv("SLURM_CONF", "/run/slurm/conf/slurm.conf", 1);
	assert_string_equal(pmixev_slurm_conf_path(),
			    "/run/slurm/conf/slurm.conf");
	slurm_conf.slurm_conf = "";
	assert_string_equal(pmixev_slurm_conf_path(),
			    "/run/slurm/conf/slurm.conf");
}

static void test_none(void **state)
{
	assert_null(pmixev_slurm_conf_path());
	slurm_conf.slurm_conf = "slurm.conf";
	setenv("SLURM_CONF", "relative/slurm.conf", 1);
	assert_null(pmixev_slurm_conf_path());
	setenv("SLURM_CONF", "", 1);
	assert_null(pmixev_slurm_conf_path());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_from_conf, reset),
		cmocka_unit_test_setup(test_from_env, reset),
		cmocka_unit_test_setup(test_none, reset),
	};

	return cmocka_run_group_tests_name("slurm_conf_path", tests, NULL,
					   NULL);
}
