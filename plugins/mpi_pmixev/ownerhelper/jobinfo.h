/*
 * ownerhelper/jobinfo.h - Slurm's answers about jobs and partitions, for
 * queries, shared by the step's nodes.
 *
 * Only the tree's root asks slurmctld (through its owner helper, with the
 * job owner's rights); the other nodes ask the root over the overlay. Each
 * node keeps the answers it got with their age; an answer younger than
 * the step's PMIxevWatchInterval is used again (the watcher's own looks at
 * the job count), and a request with `refresh` takes one younger than the
 * site's PMIxevWatchIntervalMin. So however many ranks ask, slurmctld gets
 * at most one RPC per kind of answer (the step's job, another job, the
 * partitions) per PMIxevWatchIntervalMin, and requests for one kind while
 * one is under way wait for it. Agent thread only.
 */
#ifndef PMIXEV_SLURMCTLD_JOBINFO_H_
#define PMIXEV_SLURMCTLD_JOBINFO_H_

#include <stdbool.h>
#include <stdint.h>

#include <pmix_common.h>

#include "base/step.h"
#include "pmixev_helper_msg.h"

struct jobinfo;

/* What Slurm said: `job` for PMIXEV_OWNER_JOB_STATE / _OTHER_JOB, `parts`
 * for _PARTITIONS; `age_ms` since slurmctld said it. */
struct jobinfo_answer {
	uint8_t op;
	uint32_t age_ms;
	struct pmixev_job_state job;
	struct pmixev_parts_state parts;
};

/*
 * Slurm's answer (`st` PMIX_SUCCESS), or why there is none (`a` NULL):
 * PMIX_ERR_NOT_FOUND (no such job), PMIX_ERR_NO_PERMISSIONS (Slurm refused
 * the owner), PMIX_ERR_UNREACH (slurmctld, the helper or the root did not
 * answer), PMIX_ERR_OUT_OF_RESOURCE (too many requests waiting).
 */
typedef void (*jobinfo_fn)(void *arg, pmix_status_t st,
			   const struct jobinfo_answer *a);

struct jobinfo *jobinfo_create(struct step *s);

/*
 * Ask for the step's job (`job_id` 0 or the step's), another job, or the
 * partitions (PMIXEV_OWNER_PARTITIONS, `job_id` ignored). `fn` is called
 * once, maybe before this returns.
 */
void jobinfo_get(struct jobinfo *ji, enum pmixev_owner_op op, uint32_t job_id,
		 bool refresh, jobinfo_fn fn, void *arg);

/* The watcher's look at the step's job, to be used again by queries. */
void jobinfo_feed(struct jobinfo *ji, const struct pmixev_owner_resp *resp);

/* Log what it cost; waiting requests are dropped (the step ends). */
void jobinfo_destroy(struct jobinfo *ji);

#endif /* PMIXEV_SLURMCTLD_JOBINFO_H_ */
