/*
 * pmixside/spawn_read.h - a PMIx_Spawn read into the SPAWN frame root
 * carries out (pmixev_pmixd_spawn.h), as doc/spawn.md §2.2 says, job-level
 * and app-level directives alike:
 *
 *   PMIX_HOST, PMIX_ADD_HOST      nodelist (Slurm hostlist text)
 *   PMIX_PPR "N:node", PMIX_MAPBY "ppr:N:node"   ntasks_per_node
 *   PMIX_MAPBY slot|core|hwthread, node          dist BLOCK, CYCLIC
 *     modifiers :OVERSUBSCRIBE (flag OVERLAP), :NOOVERSUBSCRIBE, :DISPLAY
 *   PMIX_RANKBY                   accepted when it ranks as the mapping maps
 *   PMIX_BINDTO none|core|hwthread|package|socket   bind
 *   PMIX_CPUS_PER_PROC            cpus_per_task
 *   PMIX_WDIR                     job level: wdir; app level: its cwd
 *                                 (a relative one under the app's cwd)
 *   PMIX_SET/ADD/UNSET/PREPEND/APPEND_ENVAR   ops, in order (app level:
 *                                 only with one app)
 *   PMIX_JOB_TIMEOUT              job_minutes, rounded up
 *   PMIX_SPAWN_TIMEOUT, PMIX_TIMEOUT   timeout_ms (the shortest)
 *   PMIX_NON_PMI, PMIX_SPAWN_TOOL, PMIX_NOTIFY_COMPLETION,
 *   PMIX_NOTIFY_JOB_EVENTS        flags
 *   PMIX_ALLOC_ID                 alloc_job (a Slurm job id)
 *   PMIX_PERSONALITY, PMIX_DISPLAY_MAP, PMIX_ENVARS_HARVESTED,
 *   PMIX_PSET_NAME, PMIX_NO_OVERSUBSCRIBE   accepted, no effect
 *   PMIX_FWD_STDOUT/STDERR/STDDIAG   accepted unless required
 *
 * A step has one of each setting: given twice (two apps, or job and app)
 * it must be the same. Refused whatever their flags (a boolean only when
 * true): PMIX_HOSTFILE, PMIX_ADD_HOSTFILE, PMIX_PREFIX, PMIX_PRELOAD_BIN,
 * PMIX_PRELOAD_FILES, PMIX_STDIN_TGT, PMIX_FWD_STDIN, PMIX_INDEX_ARGV,
 * PMIX_DEBUG_*, PMIX_DEBUGGER_DAEMONS, PMIX_COSPAWN_APP, PMIX_MAPPER,
 * PMIX_JOB_RECOVERABLE, PMIX_MAX_RESTARTS and 5.x's PMIX_SPAWN_CHILD_SEP
 * (a child ends with its parent). Any other key: refused when required,
 * else ignored. Each app needs a command, 1..65536 processes, and an
 * absolute working directory (its cwd, its PMIX_WDIR, or the job's).
 * PMIx progress thread; no blocking.
 */
#ifndef PMIXEV_PMIXSIDE_SPAWN_READ_H_
#define PMIXEV_PMIXSIDE_SPAWN_READ_H_

#include <stddef.h>

#include <pmix_common.h>

#include "pmixev_pmixd_spawn.h"

/* A spawn being read. */
struct spawn_req {
	struct pmixev_pmixd_spawn m;   /* its id and rank: the caller's */
	char why[PMIXEV_MSG_TEXT_MAX]; /* why it is refused */
};

/*
 * Read `job_info` and `apps` into r->m (r zeroed but for id and rank).
 * PMIX_SUCCESS with a frame SPAWN's pack takes, or why the spawn is
 * refused (PMIX_ERR_BAD_PARAM: a malformed value or one past SPAWN's
 * bounds; PMIX_ERR_NOT_SUPPORTED: what Slurm cannot give; PMIX_ERR_NOMEM),
 * with the key named in r->why. Either way r->m holds what was read: free
 * it with pmixev_pmixd_spawn_release.
 */
pmix_status_t spawn_read(struct spawn_req *r, const pmix_info_t job_info[],
			 size_t ninfo, const pmix_app_t apps[], size_t napps);

/*
 * The keys spawn_read acts on, comma-joined (PMIX_QUERY_SPAWN_SUPPORT's
 * answer, as PRRTE gives it): malloc'd, NULL when out of memory.
 */
char *spawn_read_support(void);

#endif /* PMIXEV_PMIXSIDE_SPAWN_READ_H_ */
