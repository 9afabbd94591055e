/*
 * pmixev_untrace.h - a program running as the job owner for root
 * (pmixev-owner, pmixev-pmixd) makes itself untraceable by the job's
 * user: a traced child cannot be reaped by slurmstepd, and its memory
 * holds what root and slurmctld sent it. A fresh exec is dumpable until
 * this runs, so a tracer attached before is caught here.
 */
#ifndef PMIXEV_UNTRACE_H_
#define PMIXEV_UNTRACE_H_

#include <stddef.h>

/* Not dumpable, and no tracer now. 0, or -1 with the reason in `why`. */
int pmixev_untraceable(char *why, size_t len);

#endif /* PMIXEV_UNTRACE_H_ */
