/*
 * srun/srun_step.h - the mpi plugin inside srun.
 *
 * srun_step_prelaunch runs in srun, as the user, before the step is launched;
 * what it adds to `env` reaches every slurmstepd and task of the step.
 * It returns the per-step state that srun_step_fini releases, or NULL to make
 * srun fail the launch.
 */
#ifndef PMIXEV_SRUN_SRUN_STEP_H_
#define PMIXEV_SRUN_SRUN_STEP_H_

#include "slurm_compat.h"

mpi_plugin_client_state_t *
srun_step_prelaunch(const mpi_plugin_client_info_t *info, char ***env);

/* Returns srun's mpi exit status (0: nothing to report). */
int srun_step_fini(mpi_plugin_client_state_t *state);

#endif /* PMIXEV_SRUN_SRUN_STEP_H_ */
