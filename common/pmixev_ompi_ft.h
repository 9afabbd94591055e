/*
 * pmixev_ompi_ft.h - the Open MPI settings fault-tolerant MPI (ULFM) needs
 * under srun, for a job that turned it on (OMPI_MCA_mpi_ft_enable) without
 * choosing them itself. Measured with Open MPI 5.0.7 (Debian 13); both
 * defects are fixed in Open MPI 5.0.10 (open-mpi/ompi#13510, #13642),
 * where the settings cost little:
 *
 *   OMPI_MCA_coll=^han,hcoll,portals4
 *       coll/han's internal per-node and leader communicators are never
 *       revoked: a survivor blocks in them, or an allreduce over the dead
 *       rank returns success with a wrong sum. hcoll and portals4 are what
 *       Open MPI's own ft-mpi parameter file excludes (an environment value
 *       replaces the file's).
 *   OMPI_MCA_mpi_add_procs_cutoff=2147483647
 *       below the cutoff every peer is known at MPI_Init; above it, a peer
 *       never talked to stays a placeholder that the failure never marks,
 *       and the shrink's agreement waits for it forever (or drops live
 *       ranks).
 *
 * Pure code, unit-tested.
 */
#ifndef PMIXEV_OMPI_FT_H_
#define PMIXEV_OMPI_FT_H_

#include <stdbool.h>
#include <stddef.h>

struct pmixev_setting {
	const char *name;
	const char *value;
};

/* Whether `env` turns Open MPI's fault tolerance on (an MCA boolean:
 * 1, true, yes, t, y or enabled, in any case). */
bool pmixev_ompi_ft_on(char *const *env);

/*
 * The settings above that `env` lacks, when it turns fault tolerance on:
 * up to `max` of them into `out` (static strings); returns how many.
 */
size_t pmixev_ompi_ft_defaults(char *const *env, struct pmixev_setting *out,
			       size_t max);

#endif /* PMIXEV_OMPI_FT_H_ */
