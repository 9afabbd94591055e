/*
 * pmixbase/guard.h - pmixev_pmix_guard.so (plugins/pmix_guard/pmix_guard.h)
 * loaded into slurmstepd's global scope, before the PMIx server starts, so
 * that the PMIx library's calls of PMIx_Query_info_nb go through it. It is
 * looked for beside the loaded mpi_pmixev.so, then in pmixev's library
 * directory. slurmstepd's thread.
 */
#ifndef PMIXEV_PMIX_GUARD_LOAD_H_
#define PMIXEV_PMIX_GUARD_LOAD_H_

#include <stdbool.h>

/* Load it (once per process). true if the library's queries now go
 * through it; false (logged with the cause and the places looked at) if
 * not. */
bool guard_load(void);

/* Log what it did, if it was asked anything. */
void guard_report(void);

#endif /* PMIXEV_PMIX_GUARD_LOAD_H_ */
