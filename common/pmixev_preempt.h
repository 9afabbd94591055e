/*
 * pmixev_preempt.h - a job's "preemptible" mark in its Slurm comment.
 *
 * PMIX_JOB_CTRL_PREEMPTIBLE (jobmgmt/jobctl.h) is recorded as the word
 * "pmixev:preemptible" in the job's comment, which its owner may change
 * and admins, squeue (%k), sacct and a site's job_submit plugin
 * (slurm_job_modify) see. Other words of the comment are kept. Pure code,
 * unit-tested in tests/unit/test_preempt.c.
 */
#ifndef PMIXEV_PREEMPT_H_
#define PMIXEV_PREEMPT_H_

#include <stdbool.h>
#include <stddef.h>

#define PMIXEV_PREEMPT_WORD "pmixev:preemptible"

/* Slurm's longest job comment, NUL included. */
#define PMIXEV_COMMENT_MAX 1025

/* Whether `comment` (NULL: none) carries the mark. */
bool pmixev_preempt_marked(const char *comment);

/*
 * `comment` (NULL: none) with the mark (`on`) or without it into `out`, the
 * other words as they were. 0, or -1 when it does not fit in `len`.
 */
int pmixev_preempt_mark(const char *comment, bool on, char *out, size_t len);

#endif /* PMIXEV_PREEMPT_H_ */
