/*
 * pmixev_bridge.h - how the parts of pmixev find each other: the SPANK
 * plugin hands task exits to the mpi plugin inside the same slurmstepd,
 * and pmixev-notify finds the stepds of its node.
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

/*
 * pmixev's run directory: root's, mode 0711 (others may pass through to a
 * name they know, never list it). Each stepd listens there for site events
 * from pmixev-notify (sockets NODE.JOB.STEP.sock, mode 0600; plugins/
 * plugins/mpi_pmixev/stepd/site.h has the protocol) and keeps its PMIx server's
 * directories (plugins/mpi_pmixev/pmix/server.c).
 */
#define PMIXEV_RUN_DIR	"/run/pmixev"
#define PMIXEV_RUN_MODE 0711
#define PMIXEV_SITE_DIR PMIXEV_RUN_DIR

#endif /* PMIXEV_BRIDGE_H_ */
