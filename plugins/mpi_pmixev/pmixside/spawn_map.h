/*
 * pmixside/spawn_map.h - the text of PMIx_Spawn's placement directives
 * read as what Slurm can give (doc/spawn.md §2.2): PMIX_PPR "N:node" and
 * PMIX_MAPBY "ppr:N:node" (processes per node), PMIX_MAPBY slot, core,
 * hwthread (blocks) or node (cyclic) with the modifiers OVERSUBSCRIBE,
 * NOOVERSUBSCRIBE and DISPLAY[DEVEL] (Open MPI's display_map), a
 * PMIX_RANKBY policy, a PMIX_BINDTO target. Words in any case, modifiers
 * after ':' or ','. Pure code.
 */
#ifndef PMIXEV_PMIXSIDE_SPAWN_MAP_H_
#define PMIXEV_PMIXSIDE_SPAWN_MAP_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

/* What one PMIX_PPR or PMIX_MAPBY asks. */
struct spawn_map {
	uint32_t ppn; /* processes per node (1..65535), 0: not asked */
	int dist;     /* an enum pmixev_pmixd_spawn_dist, -1: not asked */
	bool overlap; /* the OVERSUBSCRIBE modifier */
};

/*
 * Read PMIX_PPR's (`mapby` false) or PMIX_MAPBY's value `s` into `*m`.
 * PMIX_SUCCESS, PMIX_ERR_BAD_PARAM (malformed) or PMIX_ERR_NOT_SUPPORTED
 * (a placement Slurm cannot give), with the reason in `why` (`len`
 * bytes), naming `key`.
 */
pmix_status_t spawn_map_read(const char *key, const char *s, bool mapby,
			     struct spawn_map *m, char *why, size_t len);

/* A PMIX_RANKBY policy: the distribution that ranks so, or -1. */
int spawn_map_rankby(const char *s);

/* A PMIX_BINDTO target: its enum pmixev_pmixd_spawn_bind, or -1. */
int spawn_map_bindto(const char *s);

#endif /* PMIXEV_PMIXSIDE_SPAWN_MAP_H_ */
