/*
 * mpi_conf.h - pmixev's options in mpi.conf, through Slurm's mpi conf hooks.
 *
 * slurmctld and slurmd read mpi.conf with the key table from
 * mpi_conf_options(), hand the values to mpi_conf_set(), and ship what
 * mpi_conf_get() returns to each slurmstepd, where mpi_conf_set() runs
 * again. Values travel as written and are validated on both sides; an
 * invalid value is logged with file, key and value, and steps using
 * --mpi=pmixev are refused (mpi_conf_effective) until it is fixed.
 */
#ifndef PMIXEV_MPI_CONF_H_
#define PMIXEV_MPI_CONF_H_

#include <stddef.h>

#include "slurm_compat.h"

#include "pmixev_conf.h"

/* Forget everything set so far; back to the built-in defaults. */
void mpi_conf_reset(void);

void mpi_conf_options(s_p_options_t **full_options, int *full_opt_cnt);
void mpi_conf_set(s_p_hashtbl_t *tbl);
s_p_hashtbl_t *mpi_conf_get(void);
pmixev_slurm_list_t mpi_conf_get_printable(void);

/*
 * The site configuration in force. Returns 0, or -1 with the first invalid
 * mpi.conf entry described in `err`.
 */
int mpi_conf_effective(struct pmixev_conf *conf, char *err, size_t errlen);

#endif /* PMIXEV_MPI_CONF_H_ */
