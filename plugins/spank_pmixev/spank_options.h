/*
 * spank_options.h - the user's controls over pmixev's scheduler events,
 * shown by srun/sbatch/salloc --help:
 *   --pmixev-time-warning=SECONDS   lead time of the time-limit warning
 *   --pmixev-watch-interval=SECONDS how often slurmctld is asked
 *   --pmixev-sched-events=LIST      which scheduler events to receive
 *   --pmixev-monitor=POLICY         what a monitor alert does
 * Each is checked where it is given (an invalid value fails the command
 * with a message naming it) and handed on as the job's SLURM_PMIXEV_*
 * variable, which srun passes to the stepds (mpi.conf keys and ranges:
 * common/pmixev_conf.h).
 */
#ifndef PMIXEV_SPANK_OPTIONS_H_
#define PMIXEV_SPANK_OPTIONS_H_

#include <slurm/spank.h>

/* Register the options (every context: Slurm forwards them). */
int spank_options_register(spank_t sp);

#endif /* PMIXEV_SPANK_OPTIONS_H_ */
