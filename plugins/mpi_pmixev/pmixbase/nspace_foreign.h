/*
 * pmixbase/nspace_foreign.h - what a PMIx server registers for another
 * step of its spawn family (doc/spawn.md §4.1), a namespace with no
 * process on this node: the job's keys (ids, sizes, maps, node list,
 * applications, PMIX_SPAWNED and PMIX_PARENT_ID), each application's, and
 * each rank's rank, application, node id and host name. Nothing of one
 * node (local peers, locality, cpusets): only that step's servers know.
 *
 * Node ids: a host that is also in this server's step keeps that step's
 * id; the others are numbered after this step's nodes, in the foreign
 * layout's order, so that every server of the step gives the same ids.
 */
#ifndef PMIXEV_PMIX_NSPACE_FOREIGN_H_
#define PMIXEV_PMIX_NSPACE_FOREIGN_H_

#include <stddef.h>

#include <pmix_server.h>

#include "base/layout.h"

/*
 * Build the info array of step `lay` as seen from step `own` into *info /
 * *ninfo (free with PMIX_INFO_FREE). 0, or -1 with `err`.
 */
int nspace_foreign_build(const struct layout *own, const struct layout *lay,
			 pmix_info_t **info, size_t *ninfo, char *err,
			 size_t errlen);

#endif /* PMIXEV_PMIX_NSPACE_FOREIGN_H_ */
