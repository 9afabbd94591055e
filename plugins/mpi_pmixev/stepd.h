/*
 * stepd.h - the mpi plugin inside slurmstepd.
 *
 * stepd_prefork runs once per step as root before the tasks are forked;
 * stepd_task runs in each forked task, as the job user, before exec.
 */
#ifndef PMIXEV_STEPD_H_
#define PMIXEV_STEPD_H_

#include "slurm_compat.h"

/* `env` is the step environment (job->env); returns SLURM_SUCCESS/ERROR. */
int stepd_prefork(char **env);

int stepd_task(const mpi_plugin_task_info_t *task, char ***env);

#endif /* PMIXEV_STEPD_H_ */
