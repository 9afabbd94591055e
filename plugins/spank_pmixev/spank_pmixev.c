/*
 * spank_pmixev.c - the SPANK plugin's entry points. They only route by
 * SPANK context: srun work goes to spank_srun.c, slurmstepd work to
 * spank_stepd.c.
 */
#include "config.h"

#include <slurm/spank.h>

#include "pmixev_log.h"
#include "spank_options.h"
#include "spank_srun.h"
#include "spank_stepd.h"

SPANK_PLUGIN(pmixev, 1);

int slurm_spank_init(spank_t sp, int ac, char **av);
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av);
int slurm_spank_local_user_init(spank_t sp, int ac, char **av);
int slurm_spank_task_exit(spank_t sp, int ac, char **av);
int slurm_spank_task_post_fork(spank_t sp, int ac, char **av);

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	int rc;

	pmixev_log_init("spank/pmixev");
	if ((rc = spank_options_register(sp)) != ESPANK_SUCCESS)
		return rc;
	if (spank_context() == S_CTX_REMOTE)
		return spank_stepd_init(sp);
	return ESPANK_SUCCESS;
}

/*
 * -v takes effect after option parsing: in sbatch/salloc before
 * init_post_opt, in srun only before local_user_init.
 */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	if (spank_context() == S_CTX_ALLOCATOR)
		PMIXEV_VERBOSE("loaded");
	return ESPANK_SUCCESS;
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	PMIXEV_VERBOSE("loaded");
	return spank_srun_user_init(sp);
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	return spank_stepd_task_exit(sp);
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	return spank_stepd_task_post_fork(sp);
}
