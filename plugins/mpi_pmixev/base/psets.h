/*
 * base/psets.h - the process sets a step defines: one per PMIx
 * application (a --multi-prog line, else the whole step), named
 * "slurm://app/N" after its PMIX_APPNUM. Each rank is in exactly one, so
 * Open MPI 5's MPI_Group_from_session_pset can use every one of them
 * (it builds a set from each rank's single PMIX_PSET_NAME).
 */
#ifndef PMIXEV_BASE_PSETS_H_
#define PMIXEV_BASE_PSETS_H_

#include <stdint.h>

#include "base/layout.h"

#define PSETS_PREFIX "slurm://app/"
/* "slurm://app/4294967295" and its NUL */
#define PSETS_NAME_MAX 24

/* The name of application `app`'s set into `name`. */
void psets_name(uint32_t app, char name[PSETS_NAME_MAX]);

/* How many sets the step defines. */
static inline uint32_t psets_count(const struct layout *lay)
{
	return lay->apps.nnodes;
}

/* Every set's name, comma-separated in application order; malloc'd, or
 * NULL (no memory). */
char *psets_names(const struct layout *lay);

/*
 * The application whose set `name` is, into *app: 0, or -1 when the step
 * defines no set of that name (any other spelling of the number too).
 */
int psets_app_of(const struct layout *lay, const char *name, uint32_t *app);

#endif /* PMIXEV_BASE_PSETS_H_ */
