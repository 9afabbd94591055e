/*
 * pmixev_pmixd_budget.h - how many requests of each type the step's PMIx
 * server process may have root carry at once
 * (doc/pmix-server-as-owner.md §3c).
 *
 * That process runs the job's code on the job's word: a flood of requests
 * must not make root hold memory, timers and slurmctld calls without
 * bound. A request beyond its type's budget is answered at once with
 * PMIXEV_ERR_OVER_BUDGET (PMIX_ERR_OUT_OF_RESOURCE to the client) and
 * counted. Fences keep their own budget (PMIxevFenceMax and their bytes,
 * plugins/mpi_pmixev/wireup/fence.c) and PMIx_Log its own
 * (jobmgmt/applog.c); the types budgeted here are DMODEX, PUBSUB, QUERY,
 * JOBCTL, ALLOC and SPAWN. Pure code, no locking (root's agent thread owns it);
 * unit-tested.
 */
#ifndef PMIXEV_PMIXD_BUDGET_H_
#define PMIXEV_PMIXD_BUDGET_H_

#include <stdbool.h>
#include <stdint.h>

#include "pmixev_pmixd_msg.h"

#define PMIXEV_PMIXD_BUDGET_DMODEX 4096 /* >= ranks a node asks at once */
#define PMIXEV_PMIXD_BUDGET_PUBSUB 1024 /* lookups may wait long */
#define PMIXEV_PMIXD_BUDGET_QUERY  256
#define PMIXEV_PMIXD_BUDGET_JOBCTL 64 /* the owner helper queues 64 */
#define PMIXEV_PMIXD_BUDGET_ALLOC  8  /* allocation requests per node */
#define PMIXEV_PMIXD_BUDGET_SPAWN  8  /* spawns in flight per node */

struct pmixev_pmixd_budget {
	uint32_t live[PMIXEV_PMIXD_TYPE_MAX + 1];    /* being carried out */
	uint64_t refused[PMIXEV_PMIXD_TYPE_MAX + 1]; /* over the budget */
};

/* The budget of requests of `type` in flight; 0: not budgeted here. */
uint32_t pmixev_pmixd_budget_max(uint8_t type);

/*
 * One more request of `type` (a budgeted one) may be carried out: true,
 * and it is counted live until pmixev_pmixd_budget_give. Or false: it is
 * refused and counted, and *first (may be NULL) says whether it is the
 * first refusal of its type (the caller logs that one).
 */
bool pmixev_pmixd_budget_take(struct pmixev_pmixd_budget *b, uint8_t type,
			      bool *first);

/* A request of `type` taken before is over. */
void pmixev_pmixd_budget_give(struct pmixev_pmixd_budget *b, uint8_t type);

#endif /* PMIXEV_PMIXD_BUDGET_H_ */
