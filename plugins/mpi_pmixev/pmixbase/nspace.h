/*
 * pmixbase/nspace.h - the job, application, node and process information pmixev
 * registers for a step's PMIx namespace (PMIx_server_register_nspace).
 *
 * Everything a PMIx client or Open MPI reads at start-up: sizes, node and
 * proc maps, per-node peers and leaders, per-rank ranks, node ids and
 * hostnames, tmpdirs, and the locality of this node's ranks.
 * Call after PMIx_server_init (locality strings need the server).
 */
#ifndef PMIXEV_PMIX_NSPACE_H_
#define PMIXEV_PMIX_NSPACE_H_

#include <stddef.h>

#include <hwloc.h>
#include <pmix_server.h>

#include "base/layout.h"

struct nspace_dirs {
	const char *tmpdir; /* PMIX_TMPDIR */
	const char *nsdir;  /* PMIX_NSDIR */
};

/*
 * Build the info array into *info / *ninfo (free with PMIX_INFO_FREE).
 * `task_cpus[i]` is where local rank i (its index on this node) runs: its
 * PMIX_CPUSET and PMIX_LOCALITY_STRING. 0, or -1 with `err`.
 */
int nspace_info_build(const struct layout *lay, const struct nspace_dirs *dirs,
		      const hwloc_const_cpuset_t *task_cpus, pmix_info_t **info,
		      size_t *ninfo, char *err, size_t errlen);

#endif /* PMIXEV_PMIX_NSPACE_H_ */
