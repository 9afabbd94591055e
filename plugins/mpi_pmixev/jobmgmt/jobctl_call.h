/*
 * jobmgmt/jobctl_call.h - one PMIx_Job_control request as jobmgmt/jobctl.c
 * carries it out, and its reading (jobmgmt/jobctl_read.c, PMIx progress
 * thread): the action, its ids and checkpoint method, the targets.
 */
#ifndef PMIXEV_PMIX_JOBCTL_CALL_H_
#define PMIXEV_PMIX_JOBCTL_CALL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "jobmgmt/ckpt.h"

#define TARGETS_MAX 16
#define REASON_MAX  1024

enum action {
	A_NONE,
	A_SIGNAL,
	A_TERMINATE,
	A_KILL,
	A_RESTART,
	A_PAUSE,
	A_RESUME,
	A_CHECKPOINT,
	A_CANCEL,
	A_PREEMPTIBLE
};

/* The checkpoint signal's key: OpenPMIx's headers give
 * PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT the same string, so it is read as the
 * signal (the timeout is PMIX_TIMEOUT). */
#define CKPT_SIGNAL_KEY PMIX_JOB_CTRL_CHECKPOINT_SIGNAL

struct target {
	uint32_t job, step; /* step PMIXEV_STEP_ANY: the whole job */
	bool tasks;	    /* the own step's tasks, signalled by the stepds */
	uint32_t rank;	    /* ... this one, or TASKSIG_ALL */
	struct ctl_call *c;
};

struct ctl_call {
	enum action action;
	int signo;
	bool preemptible;     /* A_PREEMPTIBLE: mark, or take the mark off */
	uint32_t rank;	      /* the requester's, for the log */
	struct ckpt_req ckpt; /* A_CHECKPOINT; A_CANCEL: ckpt.ctl_id names
				 the request to cancel */
	char ctl_id[CKPT_ID_MAX]; /* PMIX_JOB_CTRL_ID */
	struct target t[TARGETS_MAX];
	size_t nt;
	unsigned timeout_sec;
	unsigned outstanding;
	bool replied;
	pmix_status_t st;
	char reason[REASON_MAX];
	struct event *deadline;
	pmix_info_t *answer;
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
};

/* The action's name for the log. */
const char *jobctl_action_name(enum action a);

/*
 * Read the request into `c`: its action and directives, then its targets
 * (none: the requester's step; `own` is its namespace). PMIX_SUCCESS, or
 * why it is refused, with the reason in c->reason.
 */
pmix_status_t jobctl_read(struct ctl_call *c, const char *own,
			  const pmix_proc_t targets[], size_t ntargets,
			  const pmix_info_t dirs[], size_t ndirs);

#endif /* PMIXEV_PMIX_JOBCTL_CALL_H_ */
