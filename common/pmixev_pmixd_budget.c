/*
 * pmixev_pmixd_budget.c - in-flight budgets of the PMIx server process's
 * requests (see pmixev_pmixd_budget.h).
 */
#include "config.h"

#include "pmixev_pmixd_budget.h"

uint32_t pmixev_pmixd_budget_max(uint8_t type)
{
	switch (type) {
	case PMIXEV_PMIXD_DMODEX:
		return PMIXEV_PMIXD_BUDGET_DMODEX;
	case PMIXEV_PMIXD_PUBSUB:
		return PMIXEV_PMIXD_BUDGET_PUBSUB;
	case PMIXEV_PMIXD_QUERY:
		return PMIXEV_PMIXD_BUDGET_QUERY;
	case PMIXEV_PMIXD_JOBCTL:
		return PMIXEV_PMIXD_BUDGET_JOBCTL;
	case PMIXEV_PMIXD_ALLOC:
		return PMIXEV_PMIXD_BUDGET_ALLOC;
	case PMIXEV_PMIXD_SPAWN:
		return PMIXEV_PMIXD_BUDGET_SPAWN;
	default:
		return 0;
	}
}

bool pmixev_pmixd_budget_take(struct pmixev_pmixd_budget *b, uint8_t type,
			      bool *first)
{
	uint32_t max = pmixev_pmixd_budget_max(type);

	if (first)
		*first = false;
	if (max && b->live[type] < max) {
		b->live[type]++;
		return true;
	}
	if (type <= PMIXEV_PMIXD_TYPE_MAX && !b->refused[type]++ && first)
		*first = true;
	return false;
}

void pmixev_pmixd_budget_give(struct pmixev_pmixd_budget *b, uint8_t type)
{
	if (type <= PMIXEV_PMIXD_TYPE_MAX && b->live[type])
		b->live[type]--;
}
