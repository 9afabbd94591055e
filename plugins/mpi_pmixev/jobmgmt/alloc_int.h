/*
 * jobmgmt/alloc_int.h - what jobmgmt/alloc.c and alloc_release.c share:
 * the requests being carried out and their answers (agent thread).
 */
#ifndef PMIXEV_JOBMGMT_ALLOC_INT_H_
#define PMIXEV_JOBMGMT_ALLOC_INT_H_

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <event2/event.h>
#include <pmix_common.h>

#include "base/step.h"
#include "pmixev_helper_msg.h"
#include "pmixev_pmixd_spawn.h"

#define JOBS_MAX 16 /* jobs granted and alive, per step and node */

struct allocs {
	struct step *s;
	struct alloc_call *live; /* requests being carried out */
	uint32_t jobs[JOBS_MAX]; /* granted, cancelled at the step's end */
	unsigned njobs;
	uint64_t requests, refused;
};

/* A request of the pmix side, until it is answered. */
struct alloc_call {
	struct allocs *al;
	struct alloc_call *next;
	struct pmixev_pmixd_alloc m; /* as the pmix side read it */
	uint32_t job;		     /* NEW: the job Slurm made, once known */
	time_t deadline;	     /* NEW: CLOCK_MONOTONIC seconds */
	bool cancelled;		     /* CANCEL named it */
	bool asking;		     /* a helper answer is due */
	struct event *tick;
	struct pmixev_owner_alloc shrink; /* RELEASE: the helper's request */
};

/* Answer `c` with `d` (or `st` and `why` alone) and forget it. */
void alloc_finish(struct alloc_call *c, struct pmixev_pmixd_alloc_done *d);
void alloc_finish_st(struct alloc_call *c, pmix_status_t st, const char *why);

/* Job `job` is no longer the step's to cancel at its end. */
void alloc_forget(struct allocs *al, uint32_t job);

/* How many nodes hostlist text `nodes` names (0 if it cannot tell). */
uint32_t alloc_count_nodes(const char *nodes);

/* PMIX_ALLOC_RELEASE and _EXTEND (jobmgmt/alloc_release.c). */
void alloc_release_start(struct alloc_call *c);
void alloc_extend_start(struct alloc_call *c);

#endif /* PMIXEV_JOBMGMT_ALLOC_INT_H_ */
