/*
 * spank_stepd.h - the SPANK plugin inside slurmstepd (S_CTX_REMOTE).
 */
#ifndef PMIXEV_SPANK_STEPD_H_
#define PMIXEV_SPANK_STEPD_H_

#include <slurm/spank.h>

/* slurm_spank_init in slurmstepd: learn the step, log that we are here. */
int spank_stepd_init(spank_t sp);

/*
 * slurm_spank_task_exit in slurmstepd: hand the task's exit status to
 * mpi/pmixev in the same process (if the step uses it).
 */
int spank_stepd_task_exit(spank_t sp);

/* slurm_spank_task_post_fork in slurmstepd: hand the task's pid to
 * mpi/pmixev likewise. */
int spank_stepd_task_post_fork(spank_t sp);

#endif /* PMIXEV_SPANK_STEPD_H_ */
