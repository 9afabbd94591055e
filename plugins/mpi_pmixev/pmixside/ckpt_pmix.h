/*
 * pmixside/ckpt_pmix.h - the ranks' checkpoint completions: the pmix
 * side's half (root's, which asks the ranks and answers the requester
 * once they all completed, is jobmgmt/ckpt.h).
 *
 * A handler for PMIX_JCTRL_CHECKPOINT_COMPLETE (any range: PMIX_RANGE_RM
 * keeps it from the other processes) takes each one a local rank of the
 * step raises and sends it to root as a CKPT_COMPLETE frame, with the
 * checkpoint id its PMIX_JOB_CTRL_CHECKPOINT names, if any (one longer
 * than any request's id names none: not sent). PMIx progress thread.
 */
#ifndef PMIXEV_PMIXSIDE_CKPT_PMIX_H_
#define PMIXEV_PMIXSIDE_CKPT_PMIX_H_

#include "pmixside/side.h"

/*
 * Watch for the completions: slurmstepd's thread, after the PMIx server
 * is up, before the pmix side starts (it waits for the registration). On
 * failure (logged) the step's checkpoint requests are refused
 * (pmixside_ckpt_watched).
 */
void ckpt_pmix_watch(struct pmixside *p);

#endif /* PMIXEV_PMIXSIDE_CKPT_PMIX_H_ */
