/*
 * pmixev_ompi_ft.c - Open MPI settings for fault-tolerant MPI under srun.
 */
#include "config.h"

#include "pmixev_ompi_ft.h"

#include <strings.h>

#include "pmixev_env.h"

static const struct pmixev_setting ft_settings[] = {
	{"OMPI_MCA_coll", "^han,hcoll,portals4"},
	{"OMPI_MCA_mpi_add_procs_cutoff", "2147483647"},
};

bool pmixev_ompi_ft_on(char *const *env)
{
	static const char *const yes[] = {"1", "true", "yes",
					  "t", "y",    "enabled"};
	const char *v = pmixev_env_get(env, "OMPI_MCA_mpi_ft_enable");

	if (!v)
		return false;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcasecmp(v, yes[i]))
			return true;
	return false;
}

size_t pmixev_ompi_ft_defaults(char *const *env, struct pmixev_setting *out,
			       size_t max)
{
	size_t n = 0;

	if (!pmixev_ompi_ft_on(env))
		return 0;
	for (size_t i = 0;
	     i < sizeof(ft_settings) / sizeof(ft_settings[0]) && n < max; i++)
		if (!pmixev_env_get(env, ft_settings[i].name))
			out[n++] = ft_settings[i];
	return n;
}
