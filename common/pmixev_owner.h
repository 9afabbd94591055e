/*
 * pmixev_owner.h - the messages between a slurmstepd and its owner helper
 * (pmixev-owner): the process that talks to slurmctld for the step with
 * the job owner's uid, gid and groups, so that slurmctld applies the
 * owner's rights (never root's).
 *
 * One request or answer per SOCK_SEQPACKET message, at most
 * PMIXEV_OWNER_MSG_MAX bytes. Every request carries an id the answer
 * repeats. Requests so far:
 *   PMIXEV_OWNER_JOB_STATE  the job's scheduling state (slurm_load_job)
 * Job control and allocation requests will follow the same pattern.
 * Pure code, unit-tested in tests/unit/test_owner.c.
 */
#ifndef PMIXEV_OWNER_H_
#define PMIXEV_OWNER_H_

#include <stdint.h>

#include "pmixev_buf.h"

#define PMIXEV_OWNER_MSG_MAX 4096
#define PMIXEV_OWNER_TEXT    256

enum pmixev_owner_op {
	PMIXEV_OWNER_JOB_STATE = 1,
};

struct pmixev_owner_req {
	uint8_t op;
	uint32_t id;
	uint32_t job_id;
};

/* slurmctld's view of the job, as far as pmixev watches it. */
struct pmixev_job_state {
	int32_t rc;	       /* 0, or the Slurm error number of the call */
	uint32_t state;	       /* job_state, with its flags */
	uint32_t restarts;     /* restart_cnt */
	uint32_t time_limit;   /* minutes */
	uint16_t preempt_mode; /* the cluster's PreemptMode */
	int64_t end_time;      /* seconds since the epoch, 0 if none */
	int64_t preempt_time;  /* 0 unless preemption is under way */
	int64_t suspend_time;  /* last suspend or resume, 0 if none */
	int64_t now;	       /* the helper's clock when it asked */
	char reason[PMIXEV_OWNER_TEXT]; /* Slurm's state_desc, or "" */
	char nodes[PMIXEV_OWNER_TEXT];	/* the job's nodes, as Slurm lists them
					 */
};

struct pmixev_owner_resp {
	uint8_t op;
	uint32_t id;
	struct pmixev_job_state job; /* PMIXEV_OWNER_JOB_STATE */
};

int pmixev_owner_req_pack(struct pmixev_buf *b,
			  const struct pmixev_owner_req *m);
int pmixev_owner_req_unpack(struct pmixev_buf *b, struct pmixev_owner_req *m);
int pmixev_owner_resp_pack(struct pmixev_buf *b,
			   const struct pmixev_owner_resp *m);
int pmixev_owner_resp_unpack(struct pmixev_buf *b, struct pmixev_owner_resp *m);

#endif /* PMIXEV_OWNER_H_ */
