/*
 * stepd/ompi_ft.h - a task of a job that turned Open MPI's fault
 * tolerance on (OMPI_MCA_mpi_ft_enable): the settings it needs under srun
 * where it did not choose its own, and SIGPIPE ignored. In the forked
 * task, before exec.
 */
#ifndef PMIXEV_STEPD_OMPI_FT_H_
#define PMIXEV_STEPD_OMPI_FT_H_

#include "slurm_compat.h"

void ompi_ft_task(const mpi_plugin_task_info_t *task, char ***env);

#endif /* PMIXEV_STEPD_OMPI_FT_H_ */
