/*
 * pmixd/carry.c - root's requests budget, logged (see carry.h).
 */
#include "config.h"

#include "pmixd/carry.h"

#include "pmixev_log.h"

bool carry_take(struct pmixev_pmixd_budget *b, uint8_t type)
{
	bool first;

	if (pmixev_pmixd_budget_take(b, type, &first))
		return true;
	if (first)
		PMIXEV_ERROR("the PMIx server process has %u %s requests in "
			     "flight, its budget: more are refused "
			     "(PMIX_ERR_OUT_OF_RESOURCE) and counted",
			     (unsigned)pmixev_pmixd_budget_max(type),
			     pmixev_pmixd_type_name(type));
	return false;
}

void carry_report(const struct pmixev_pmixd_budget *b)
{
	for (unsigned t = 0; t <= PMIXEV_PMIXD_TYPE_MAX; t++)
		if (b->refused[t])
			PMIXEV_ERROR("the PMIx server process's %s requests: "
				     "%llu refused over the budget of %u in "
				     "flight",
				     pmixev_pmixd_type_name(t),
				     (unsigned long long)b->refused[t],
				     (unsigned)pmixev_pmixd_budget_max(t));
}
