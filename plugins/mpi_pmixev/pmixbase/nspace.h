/*
 * pmixbase/nspace.h - the job, application, node and process information pmixev
 * registers for a step's PMIx namespace (PMIx_server_register_nspace).
 *
 * Everything a PMIx client or Open MPI reads at start-up: sizes, node and
 * proc maps (PMIx's, raw and ANL forms), per-node peers, procs and
 * leaders, per-rank ranks, node ids and hostnames, tmpdirs, the locality
 * of this node's ranks and the step's process sets (base/psets.h). What
 * slurmstepd does not know for certain is left out rather than guessed
 * (doc/app-guide.md, "Namespace, keys and process sets"). Call after
 * PMIx_server_init (locality strings need the server).
 */
#ifndef PMIXEV_PMIX_NSPACE_H_
#define PMIXEV_PMIX_NSPACE_H_

#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>
#include <pmix_server.h>

#include "base/layout.h"

/* What this node's PMIx server adds to the layout. */
struct nspace_host {
	const char *tmpdir; /* PMIX_TMPDIR */
	const char *nsdir;  /* PMIX_NSDIR */
	uint64_t memory;    /* PMIX_AVAIL_PHYS_MEMORY in bytes; 0: unknown */
};

/*
 * Build the info array into *info / *ninfo (free with PMIX_INFO_FREE).
 * `task_cpus[i]` is where local rank i (its index on this node) runs: its
 * PMIX_CPUSET and PMIX_LOCALITY_STRING. 0, or -1 with `err`.
 */
int nspace_info_build(const struct layout *lay, const struct nspace_host *host,
		      const hwloc_const_cpuset_t *task_cpus, pmix_info_t **info,
		      size_t *ninfo, char *err, size_t errlen);

#endif /* PMIXEV_PMIX_NSPACE_H_ */
