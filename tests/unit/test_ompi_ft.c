/*
 * Unit tests for common/pmixev_ompi_ft.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_ompi_ft.h"

static void test_on(void **state)
{
	char *on[][2] = {{"OMPI_MCA_mpi_ft_enable=1", NULL},
			 {"OMPI_MCA_mpi_ft_enable=TRUE", NULL},
			 {"OMPI_MCA_mpi_ft_enable=enabled", NULL}};
	char *off[][2] = {{"OMPI_MCA_mpi_ft_enable=0", NULL},
			  {"OMPI_MCA_mpi_ft_enable=", NULL},
			  {"OMPI_MCA_mpi_ft_enable=truely", NULL},
			  {"OMPI_MCA_mpi_ft_enabled=1", NULL}};

	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++)
		assert_true(pmixev_ompi_ft_on(on[i]));
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		assert_false(pmixev_ompi_ft_on(off[i]));
	assert_false(pmixev_ompi_ft_on(NULL));
}

static void test_defaults(void **state)
{
	char *off[] = {"PATH=/bin", NULL};
	char *bare[] = {"OMPI_MCA_mpi_ft_enable=yes", NULL};
	char *chosen[] = {"OMPI_MCA_coll=^tuned", "OMPI_MCA_mpi_ft_enable=1",
			  NULL};
	struct pmixev_setting s[4];

	assert_int_equal(pmixev_ompi_ft_defaults(off, s, 4), 0);
	assert_int_equal(pmixev_ompi_ft_defaults(bare, s, 4), 2);
	assert_string_equal(s[0].name, "OMPI_MCA_coll");
	assert_string_equal(s[0].value, "^han,hcoll,portals4");
	assert_string_equal(s[1].name, "OMPI_MCA_mpi_add_procs_cutoff");
	/* The user's own choice wins. */
	assert_int_equal(pmixev_ompi_ft_defaults(chosen, s, 4), 1);
	assert_string_equal(s[0].name, "OMPI_MCA_mpi_add_procs_cutoff");
	/* Never more than asked for. */
	assert_int_equal(pmixev_ompi_ft_defaults(bare, s, 1), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_on),
		cmocka_unit_test(test_defaults),
	};

	return cmocka_run_group_tests_name("ompi_ft", tests, NULL, NULL);
}
