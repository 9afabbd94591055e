/*
 * pmixev_helper_msg.h - the messages between a slurmstepd and its owner helper
 * (pmixev-owner): the process that talks to slurmctld for the step with
 * the job owner's uid, gid and groups, so that slurmctld applies the
 * owner's rights (never root's).
 *
 * One request or answer per SOCK_SEQPACKET message, at most
 * PMIXEV_OWNER_MSG_MAX bytes. Every request carries an id the answer
 * repeats. Requests so far:
 *   PMIXEV_OWNER_JOB_STATE   the job's scheduling state (slurm_load_job)
 *   PMIXEV_OWNER_NODE_STATE  which of the job's nodes Slurm has taken out
 *                            of service (slurm_load_node, answered from
 *                            the helper's copy when nothing changed)
 *   PMIXEV_OWNER_OTHER_JOB   another job's state, as Slurm shows it to the
 *                            owner (slurm_load_job; for queries)
 *   PMIXEV_OWNER_PARTITIONS  the cluster's partitions and their state
 *                            (slurm_load_partitions; for queries)
 *   PMIXEV_OWNER_CONTROL     job control: signal or kill a step, signal or
 *                            cancel a job, requeue a job (slurm_signal_job_
 *                            step, slurm_kill_job_step, slurm_kill_job,
 *                            slurm_requeue); slurmctld decides
 *   PMIXEV_OWNER_MAIL        PMIx_Log's email: the site's mail command run
 *                            as the owner ("CMD -s SUBJECT ADDRESS...",
 *                            the text on its stdin), as Slurm's MailProg
 *   PMIXEV_OWNER_ALLOC_NEW   PMIx_Allocation_request's NEW: a new job for
 *                            the owner (slurm_allocate_resources, no
 *                            response port); answered with its id at once,
 *                            pending or running
 *   PMIXEV_OWNER_SHRINK      PMIx_Allocation_request's RELEASE: the owner's
 *                            job gives nodes back (slurm_load_job, then
 *                            slurm_update_job with the nodes it keeps);
 *                            slurmctld decides
 *   PMIXEV_OWNER_EXTEND      PMIx_Allocation_request's EXTEND: the site's
 *                            command (PMIxevAllocExtendCmd) run as the
 *                            owner ("CMD JOB MINUTES NODES"); it decides
 * Unasked, the helper sends PMIXEV_OWNER_SIGNAL (id 0) when it gets a
 * signal (it runs in the step, so it gets what Slurm sends the tasks; the
 * owner can signal it too): the stepd then looks at the job at once, and
 * takes nothing else from the note.
 * Pure code, unit-tested in tests/unit/test_proto_events.c.
 */
#ifndef PMIXEV_HELPER_MSG_H_
#define PMIXEV_HELPER_MSG_H_

#include <stdbool.h>
#include <stdint.h>

#include "pmixev_buf.h"

#define PMIXEV_OWNER_MSG_MAX   32768
#define PMIXEV_OWNER_TEXT      256
#define PMIXEV_OWNER_NODES_MAX 64 /* offline nodes in one answer */
#define PMIXEV_OWNER_NAME      64 /* node name incl. NUL */

enum pmixev_owner_op {
	PMIXEV_OWNER_JOB_STATE = 1,
	PMIXEV_OWNER_NODE_STATE = 2,
	/* From the helper unasked (id 0): it got a signal (a hint). */
	PMIXEV_OWNER_SIGNAL = 3,
	PMIXEV_OWNER_OTHER_JOB = 4,
	PMIXEV_OWNER_PARTITIONS = 5,
	PMIXEV_OWNER_CONTROL = 6,
	PMIXEV_OWNER_MAIL = 7,
	PMIXEV_OWNER_ALLOC_NEW = 8,
	PMIXEV_OWNER_SHRINK = 9,
	PMIXEV_OWNER_EXTEND = 10,
};

#define PMIXEV_OWNER_ALLOC_NODES_MAX 65536 /* nodes of one request */

/*
 * What PMIXEV_OWNER_ALLOC_NEW asks Slurm for, and what PMIXEV_OWNER_SHRINK
 * gives back of job job_id: the nodes in `nodes`, or else `nnodes` nodes
 * the helper picks (never the job's batch host; those in `exclude` last,
 * then from the end of the job's list). `name`, `partition`: letters,
 * digits and "._-" ("" for Slurm's default partition; NEW's name is never
 * empty). `nodes`, `exclude`: "" or Slurm hostlist text (letters, digits
 * and "._,[]-"). NEW: nnodes or ncpus > 0; SHRINK: nodes or nnodes. A
 * SHRINK's answer names the nodes released in ctl.reason when it worked.
 * EXTEND: `cmd` (an absolute path of printable characters) asked for
 * `minutes` more or `nnodes` more nodes of job job_id (either > 0);
 * `cmd` is "" for the other ops.
 */
struct pmixev_owner_alloc {
	uint32_t nnodes;  /* min = max nodes, 0: Slurm's choice */
	uint32_t ncpus;	  /* CPUs over all nodes, 0: one a node */
	uint64_t mem_mb;  /* per node, 0: Slurm's default */
	uint32_t minutes; /* time limit, 0: the partition's default */
	char name[PMIXEV_OWNER_NAME];
	char partition[PMIXEV_OWNER_NAME];
	char nodes[PMIXEV_OWNER_TEXT];
	char exclude[PMIXEV_OWNER_TEXT];
	char cmd[PMIXEV_OWNER_TEXT];
};

#define PMIXEV_OWNER_MAIL_TEXT 1024 /* a mail's text incl. NUL */
#define PMIXEV_OWNER_MAIL_TO   16   /* addresses of one mail */

/*
 * A mail to send (PMIXEV_OWNER_MAIL). `to`: comma-separated addresses of
 * letters, digits and "._%+-@", none starting with "-" (never an option
 * of the command); "" for the job owner's user name. `subject`: printable
 * characters. `cmd`: the site's command, an absolute path.
 */
struct pmixev_owner_mail {
	char cmd[PMIXEV_OWNER_TEXT];
	char to[PMIXEV_OWNER_TEXT];
	char subject[PMIXEV_OWNER_TEXT];
	char text[PMIXEV_OWNER_MAIL_TEXT];
};

/* Whether `m` may be handed to a mail command (see above). */
int pmixev_owner_mail_ok(const struct pmixev_owner_mail *m);

/* What PMIXEV_OWNER_CONTROL does to job_id (and step_id). */
enum pmixev_control_action {
	PMIXEV_CTL_SIGNAL_STEP, /* signo to every task of the step */
	PMIXEV_CTL_KILL_STEP,	/* end the step (signo: SIGTERM or SIGKILL) */
	PMIXEV_CTL_SIGNAL_JOB,	/* signo to every step of the job */
	PMIXEV_CTL_CANCEL_JOB,	/* end the job (scancel) */
	PMIXEV_CTL_REQUEUE_JOB, /* requeue it (batch jobs, if Slurm allows) */
	PMIXEV_CTL_PREEMPTIBLE, /* mark the job (signo 1) or not (0) in its
				   comment (pmixev_preempt.h) */
	PMIXEV_CTL_ACTION_MAX = PMIXEV_CTL_PREEMPTIBLE,
};

struct pmixev_owner_req {
	uint8_t op;
	uint32_t id;
	uint32_t job_id;
	/* PMIXEV_OWNER_CONTROL only: */
	uint8_t action; /* enum pmixev_control_action */
	uint32_t step_id;
	uint32_t signo;	       /* 1..64 */
	uint64_t not_after_ms; /* CLOCK_MONOTONIC; later: not carried out
				  (its caller was told PMIX_ERR_TIMEOUT);
				  0: no limit */
	/* PMIXEV_OWNER_MAIL only: */
	struct pmixev_owner_mail mail;
	/* PMIXEV_OWNER_ALLOC_NEW, _SHRINK, _EXTEND (job_id: the job shrunk
	 * or extended) only: */
	struct pmixev_owner_alloc alloc;
};

/* Slurm's answer to a PMIXEV_OWNER_CONTROL request. */
struct pmixev_control_result {
	int32_t rc;			/* 0, or the Slurm error number */
	char reason[PMIXEV_OWNER_TEXT]; /* slurm_strerror(rc), or "" */
};

/* slurmctld's view of the job, as far as pmixev watches it. */
struct pmixev_job_state {
	int32_t rc;	       /* 0, or the Slurm error number of the call */
	uint32_t state;	       /* job_state, with its flags */
	uint32_t restarts;     /* restart_cnt */
	uint32_t time_limit;   /* minutes */
	uint16_t preempt_mode; /* the cluster's PreemptMode */
	uint8_t preemptible;   /* the comment carries pmixev's mark */
	int64_t end_time;      /* seconds since the epoch, 0 if none */
	int64_t preempt_time;  /* 0 unless preemption is under way */
	int64_t suspend_time;  /* last suspend or resume, 0 if none */
	int64_t now;	       /* the helper's clock when it asked */
	char reason[PMIXEV_OWNER_TEXT]; /* Slurm's state_desc, or "" */
	char nodes[PMIXEV_OWNER_TEXT];	/* the job's nodes, as Slurm lists them
					 */
};

/* How far Slurm has taken a node out of service, least to most. */
enum pmixev_node_avail {
	PMIXEV_NODE_UP,
	PMIXEV_NODE_DRAIN, /* draining or drained: no new work */
	PMIXEV_NODE_FAIL,  /* expected to fail: no new work */
	PMIXEV_NODE_DOWN,  /* unavailable */
	PMIXEV_NODE_AVAIL_MAX = PMIXEV_NODE_DOWN,
};

struct pmixev_node_state {
	char name[PMIXEV_OWNER_NAME];
	uint8_t avail;			/* enum pmixev_node_avail, never UP */
	char reason[PMIXEV_OWNER_TEXT]; /* the admin's or Slurm's, or "" */
};

/* The job's nodes that are not up, as far as they fit. */
struct pmixev_nodes_state {
	int32_t rc; /* 0, or the Slurm error number of the call */
	uint32_t count;
	uint32_t omitted; /* more offline nodes that did not fit */
	struct pmixev_node_state node[PMIXEV_OWNER_NODES_MAX];
};

#define PMIXEV_OWNER_PARTS_MAX 64 /* partitions in one answer */

/* A partition's state as Slurm's PARTITION_* names it. */
enum pmixev_part_avail {
	PMIXEV_PART_UP,
	PMIXEV_PART_DOWN,     /* takes jobs, runs none */
	PMIXEV_PART_DRAIN,    /* runs jobs, takes none */
	PMIXEV_PART_INACTIVE, /* neither */
	PMIXEV_PART_AVAIL_MAX = PMIXEV_PART_INACTIVE,
};

struct pmixev_part_state {
	char name[PMIXEV_OWNER_NAME];
	uint8_t avail;	   /* enum pmixev_part_avail */
	uint32_t nodes;	   /* total_nodes */
	uint32_t max_time; /* minutes, or UINT32_MAX: none */
};

/* The partitions the owner sees, as far as they fit. */
struct pmixev_parts_state {
	int32_t rc; /* 0, or the Slurm error number of the call */
	uint32_t count;
	uint32_t omitted; /* more partitions that did not fit */
	struct pmixev_part_state part[PMIXEV_OWNER_PARTS_MAX];
};

struct pmixev_owner_resp {
	uint8_t op;
	uint32_t id;
	uint8_t asked_again;		  /* slurmctld calls made twice */
	uint32_t signo;			  /* PMIXEV_OWNER_SIGNAL */
	struct pmixev_job_state job;	  /* _JOB_STATE, _OTHER_JOB */
	struct pmixev_nodes_state nodes;  /* PMIXEV_OWNER_NODE_STATE */
	struct pmixev_parts_state parts;  /* PMIXEV_OWNER_PARTITIONS */
	struct pmixev_control_result ctl; /* _CONTROL, _MAIL, _ALLOC_NEW,
					     _SHRINK */
	uint32_t new_job; /* PMIXEV_OWNER_ALLOC_NEW: the job, 0 if none */
};

/*
 * Between stepds (overlay JOBINFO_REQ / JOBINFO_RESP): a node asks the
 * tree's root, which holds the helper, for Slurm's answer (op: JOB_STATE,
 * OTHER_JOB or PARTITIONS); the root answers with what Slurm said and how
 * old that is, or that it has no answer (`failed`: a PMIx status).
 */
struct pmixev_jobinfo_req {
	uint32_t id;
	uint8_t op;
	uint32_t job_id;
	uint8_t refresh; /* an answer as fresh as the site allows */
};

struct pmixev_jobinfo_resp {
	uint32_t id;
	uint32_t age_ms;
	int32_t failed;		       /* 0, or why there is no answer */
	struct pmixev_owner_resp resp; /* when not failed */
};

int pmixev_jobinfo_req_pack(struct pmixev_buf *b,
			    const struct pmixev_jobinfo_req *m);
int pmixev_jobinfo_req_unpack(struct pmixev_buf *b,
			      struct pmixev_jobinfo_req *m);
int pmixev_jobinfo_resp_pack(struct pmixev_buf *b,
			     const struct pmixev_jobinfo_resp *m);
int pmixev_jobinfo_resp_unpack(struct pmixev_buf *b,
			       struct pmixev_jobinfo_resp *m);

int pmixev_owner_req_pack(struct pmixev_buf *b,
			  const struct pmixev_owner_req *m);
int pmixev_owner_req_unpack(struct pmixev_buf *b, struct pmixev_owner_req *m);

/*
 * A control request's not_after_ms for a caller that waits `timeout_sec`
 * seconds (0: none), and whether such a deadline has passed: milliseconds
 * of CLOCK_MONOTONIC, the one clock the stepd and its helper share.
 */
uint64_t pmixev_owner_deadline(unsigned timeout_sec);
bool pmixev_owner_expired(uint64_t not_after_ms);
int pmixev_owner_resp_pack(struct pmixev_buf *b,
			   const struct pmixev_owner_resp *m);
int pmixev_owner_resp_unpack(struct pmixev_buf *b, struct pmixev_owner_resp *m);

#endif /* PMIXEV_HELPER_MSG_H_ */
