/*
 * jobmgmt/query.h - root's half of PMIx_Query_info (the pmix side's is
 * pmixside/query_pmix.h, which builds every PMIx answer): a QUERY frame,
 * checked by its validating unpack (at most 32 distinct items), is
 * answered item by item - Slurm's state of a job (0: the step's) or of
 * the partitions through ownerhelper/jobinfo.h, with the job owner's
 * rights; the tasks' table of this node or of the whole step through
 * jobmgmt/ptable.h, within the query's PMIX_TIMEOUT; the step's live
 * groups from node 0's registry through wireup/group_ask.h - and goes
 * back, once every item is, as one QUERY_DONE with the pmix side's id:
 * typed data (pmixev_pmixd_ctl.h), no PMIx. Agent thread.
 */
#ifndef PMIXEV_JOBMGMT_QUERY_H_
#define PMIXEV_JOBMGMT_QUERY_H_

#include "base/step.h"

/* Serve QUERY frames on the step's channel. */
void query_frames_listen(struct step *s);

#endif /* PMIXEV_JOBMGMT_QUERY_H_ */
