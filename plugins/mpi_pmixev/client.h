/*
 * client.h - the mpi plugin inside srun.
 *
 * client_prelaunch runs in srun, as the user, before the step is launched;
 * what it adds to `env` reaches every slurmstepd and task of the step.
 * It returns the per-step state that client_fini releases, or NULL to make
 * srun fail the launch.
 */
#ifndef PMIXEV_CLIENT_H_
#define PMIXEV_CLIENT_H_

#include "slurm_compat.h"

mpi_plugin_client_state_t *
client_prelaunch(const mpi_plugin_client_info_t *info, char ***env);

/* Returns srun's mpi exit status (0: nothing to report). */
int client_fini(mpi_plugin_client_state_t *state);

#endif /* PMIXEV_CLIENT_H_ */
