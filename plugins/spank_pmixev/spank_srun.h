/*
 * spank_srun.h - the SPANK plugin inside srun (S_CTX_LOCAL).
 */
#ifndef PMIXEV_SPANK_SRUN_H_
#define PMIXEV_SPANK_SRUN_H_

#include <slurm/spank.h>

#include "pmixev_multiprog.h"

/*
 * slurm_spank_local_user_init: for an `srun --multi-prog` step through
 * mpi/pmixev, number its PMIx applications (one per configuration line)
 * and leave them for mpi/pmixev in srun's environment as
 * PMIXEV_MULTIPROG_ENV="SRUNPID:NAPPS:MAP".
 */
int spank_srun_user_init(spank_t sp);

#endif /* PMIXEV_SPANK_SRUN_H_ */
