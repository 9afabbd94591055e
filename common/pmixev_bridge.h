/*
 * pmixev_bridge.h - how the SPANK plugin hands task exits to the mpi
 * plugin inside the same slurmstepd.
 *
 * Slurm loads both plugins RTLD_LOCAL, so the SPANK plugin finds this
 * function of the loaded mpi_pmixev.so by name (dlopen RTLD_NOLOAD +
 * dlsym). Called on slurmstepd's main thread from slurm_spank_task_exit,
 * with the global rank and the wait(2) status.
 */
#ifndef PMIXEV_BRIDGE_H_
#define PMIXEV_BRIDGE_H_

#include <stdint.h>

#define PMIXEV_MPI_PLUGIN_FILE	"mpi_pmixev.so"
#define PMIXEV_TASK_EXIT_SYMBOL "pmixev_mpi_task_exit"

typedef void (*pmixev_task_exit_fn)(uint32_t rank, int status);

#endif /* PMIXEV_BRIDGE_H_ */
