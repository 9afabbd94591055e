/*
 * pmixd/carry.h - root carries the PMIx server process's requests within
 * the budgets of common/pmixev_pmixd_budget.h: the refusal said in the
 * log, and the step's count at its end. Agent thread.
 */
#ifndef PMIXEV_PMIXD_CARRY_H_
#define PMIXEV_PMIXD_CARRY_H_

#include <stdbool.h>
#include <stdint.h>

#include "pmixev_pmixd_budget.h"

/*
 * May root carry one more request of `type`? true (give it back with
 * pmixev_pmixd_budget_give when it is answered), or false: the caller
 * answers PMIXEV_ERR_OVER_BUDGET; the type's first refusal is logged.
 */
bool carry_take(struct pmixev_pmixd_budget *b, uint8_t type);

/* Log how many requests of each type were refused, if any. */
void carry_report(const struct pmixev_pmixd_budget *b);

#endif /* PMIXEV_PMIXD_CARRY_H_ */
