/*
 * pmixev_pmixd_ctl.h - the pmixd channel's requests root carries out for
 * O's clients: queries (answered with typed data; O builds the
 * pmix_info_t), job control and PMIx_Log. See pmixev_pmixd_msg.h for the
 * rules all messages follow.
 */
#ifndef PMIXEV_PMIXD_CTL_H_
#define PMIXEV_PMIXD_CTL_H_

#include <stdbool.h>
#include <stdint.h>

#include "pmixev_group_list.h"
#include "pmixev_helper_msg.h"
#include "pmixev_pmixd_msg.h"
#include "pmixev_ptable.h"

#define PMIXEV_PMIXD_ITEMS_MAX	 32	    /* answers to one PMIx_Query_info */
#define PMIXEV_PMIXD_TARGETS_MAX 16	    /* per job control request */
#define PMIXEV_PMIXD_MSGS_MAX	 16	    /* messages of one PMIx_Log */
#define PMIXEV_PMIXD_TEXT_MAX	 65536	    /* one PMIx_Log message */
#define PMIXEV_PMIXD_REASON_MAX	 1024	    /* a job control answer's why */
#define PMIXEV_PMIXD_WHY_MAX	 256	    /* a PMIx_Log refusal's reason */
#define PMIXEV_PMIXD_WHO_MAX	 288	    /* PMIX_MAX_NSLEN + 32 */
#define PMIXEV_PMIXD_ALL	 UINT32_MAX /* every rank (ckpt, targets) */
#define PMIXEV_PMIXD_TASKS_MAX	 (1u << 24) /* a step's (pmixev_taskmap.c) */

/* What a query item asks root for (the rest O answers itself). */
enum pmixev_pmixd_qkey {
	PMIXEV_PMIXD_Q_JOB = 1,	   /* Slurm's state of `job` (0: the step's) */
	PMIXEV_PMIXD_Q_PARTS = 2,  /* the partitions' state */
	PMIXEV_PMIXD_Q_PTABLE = 3, /* the tasks' table, `local` or all */
	PMIXEV_PMIXD_Q_GROUPS = 4, /* the step's live groups (node 0's list) */
};

/* `job` only for Q_JOB, `local` only for Q_PTABLE; no item twice. */
struct pmixev_pmixd_qitem {
	enum pmixev_pmixd_qkey key;
	uint32_t job;
	bool local;
};

/* QUERY (O->R). It names no rank or namespace: its unpack needs no bounds. */
struct pmixev_pmixd_query {
	uint64_t id;
	bool refresh; /* PMIX_QUERY_REFRESH_CACHE */
	uint32_t timeout_sec;
	uint32_t n;
	struct pmixev_pmixd_qitem item[PMIXEV_PMIXD_ITEMS_MAX];
};
int pmixev_pmixd_query_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_query *m);
int pmixev_pmixd_query_unpack(struct pmixev_buf *b,
			      struct pmixev_pmixd_query *m);

/* One answer: for Q_JOB and Q_PARTS the owner helper's response, for
 * Q_PTABLE the table (at most PMIXEV_PMIXD_TASKS_MAX entries) and whether
 * every node gave its part, for Q_GROUPS the list (ranks below
 * PMIXEV_PMIXD_TASKS_MAX); nothing unless PMIXEV_OK. */
struct pmixev_pmixd_qanswer {
	enum pmixev_pmixd_qkey key;
	enum pmixev_result result;
	uint32_t age_ms;
	struct pmixev_owner_resp *resp;	  /* malloc'd by unpack */
	struct pmixev_ptable_msg pt;	  /* pt.e malloc'd by unpack */
	bool complete;			  /* Q_PTABLE */
	struct pmixev_group_list *groups; /* malloc'd by unpack */
};

/* QUERY_DONE (R->O): one answer per item, in order. */
struct pmixev_pmixd_query_done {
	uint64_t id;
	uint32_t n;
	struct pmixev_pmixd_qanswer a[PMIXEV_PMIXD_ITEMS_MAX];
};
int pmixev_pmixd_query_done_pack(struct pmixev_buf *b,
				 const struct pmixev_pmixd_query_done *m);
int pmixev_pmixd_query_done_unpack(struct pmixev_buf *b,
				   struct pmixev_pmixd_query_done *m);
void pmixev_pmixd_query_done_release(struct pmixev_pmixd_query_done *m);

/* What PMIx_Job_control asks (jobmgmt/jobctl.h). */
enum pmixev_pmixd_action {
	PMIXEV_PMIXD_SIGNAL = 1,
	PMIXEV_PMIXD_TERMINATE,
	PMIXEV_PMIXD_KILL,
	PMIXEV_PMIXD_RESTART,
	PMIXEV_PMIXD_PAUSE,
	PMIXEV_PMIXD_RESUME,
	PMIXEV_PMIXD_CHECKPOINT,
	PMIXEV_PMIXD_CANCEL,
	PMIXEV_PMIXD_PREEMPTIBLE,
	PMIXEV_PMIXD_ACTION_MAX = PMIXEV_PMIXD_PREEMPTIBLE
};

/* The action's name for logs and reasons ("restart (requeue)"), or "?". */
const char *pmixev_pmixd_action_name(unsigned action);

/* A target: a whole step or job through Slurm, or tasks of the own step. */
struct pmixev_pmixd_target {
	uint32_t job, step; /* step PMIXEV_STEP_ANY: the whole job */
	bool tasks;	    /* the own step's tasks */
	uint32_t rank;	    /* tasks: < ntasks, or PMIXEV_PMIXD_ALL */
};

/* A checkpoint (jobmgmt/ckpt.h's struct ckpt_req; root sets the rank and
 * the timeout per target). */
struct pmixev_pmixd_ckpt {
	char id[PMIXEV_PMIXD_ID_MAX];
	char ctl_id[PMIXEV_PMIXD_ID_MAX];
	uint32_t rank;	/* < ntasks, or PMIXEV_PMIXD_ALL */
	uint32_t signo; /* 0: by event */
	uint32_t timeout_sec;
};

/* JOBCTL (O->R): a PMIx_Job_control request as O read it. */
struct pmixev_pmixd_jobctl {
	uint64_t id;
	uint32_t rank; /* requester: < ntasks, or PMIXEV_PMIXD_NO_RANK */
	enum pmixev_pmixd_action action;
	uint32_t signo; /* SIGNAL: 1..64; else 0..64 */
	bool preemptible;
	struct pmixev_pmixd_ckpt ckpt;
	char ctl_id[PMIXEV_PMIXD_ID_MAX];
	uint32_t nt;
	struct pmixev_pmixd_target t[PMIXEV_PMIXD_TARGETS_MAX];
	uint32_t timeout_sec;
};
int pmixev_pmixd_jobctl_pack(struct pmixev_buf *b,
			     const struct pmixev_pmixd_jobctl *m);
int pmixev_pmixd_jobctl_unpack(struct pmixev_buf *b,
			       const struct pmixev_pmixd_bounds *lim,
			       struct pmixev_pmixd_jobctl *m);

/* JOBCTL_DONE and LOG_DONE (R->O): a PMIx status (root has the
 * constants, not the library) and why, for O's answer. */
struct pmixev_pmixd_status {
	uint64_t id;
	int32_t status;
	char why[PMIXEV_PMIXD_REASON_MAX];
};
int pmixev_pmixd_status_pack(struct pmixev_buf *b,
			     const struct pmixev_pmixd_status *m);
int pmixev_pmixd_status_unpack(struct pmixev_buf *b,
			       struct pmixev_pmixd_status *m);

/* PMIx_Log's channels (jobmgmt/applog.h). */
enum pmixev_pmixd_channel {
	PMIXEV_PMIXD_STDOUT,
	PMIXEV_PMIXD_STDERR,
	PMIXEV_PMIXD_SYSLOG,
	PMIXEV_PMIXD_GLOBAL,
	PMIXEV_PMIXD_JOBREC,
	PMIXEV_PMIXD_EMAIL,
	PMIXEV_PMIXD_CHANNEL_MAX = PMIXEV_PMIXD_EMAIL
};

/*
 * One message. EMAIL: `to` and `subject` as pmixev_owner_mail_ok wants
 * them and text within PMIXEV_OWNER_MAIL_TEXT; root adds the command.
 * `bad`: 0, or the PMIx status (< 0) O refused the item with when it read
 * it (not a string, too long, out of memory, ...): root delivers nothing,
 * only counts and logs the refusal in its place; such a message has no
 * text, `to` nor `subject`.
 */
struct pmixev_pmixd_log_msg {
	enum pmixev_pmixd_channel ch;
	int32_t bad;
	char *text; /* malloc'd by unpack */
	char to[PMIXEV_OWNER_TEXT];
	char subject[PMIXEV_OWNER_TEXT];
};

#define PMIXEV_PMIXD_LOG_ONCE	  0x1
#define PMIXEV_PMIXD_LOG_TAG	  0x2
#define PMIXEV_PMIXD_LOG_STAMP	  0x4
#define PMIXEV_PMIXD_LOG_JREC_ALL 0x8
/* The library carried out some items itself: a request with no message
 * left succeeds. */
#define PMIXEV_PMIXD_LOG_LIB_DONE 0x10
#define PMIXEV_PMIXD_LOG_FLAGS	  0x1f

/* LOG (O->R): a PMIx_Log request as O read it (pmixside/applog_read.h). */
struct pmixev_pmixd_log {
	uint64_t id;
	uint32_t rank; /* task: a local rank; else as claimed */
	bool task;
	char who[PMIXEV_PMIXD_WHO_MAX]; /* as claimed */
	uint8_t flags;			/* PMIXEV_PMIXD_LOG_* */
	uint8_t level;			/* 0..7 */
	int64_t when;
	uint32_t n;
	struct pmixev_pmixd_log_msg m[PMIXEV_PMIXD_MSGS_MAX];
};
int pmixev_pmixd_log_pack(struct pmixev_buf *b,
			  const struct pmixev_pmixd_log *m);
int pmixev_pmixd_log_unpack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_bounds *lim,
			    struct pmixev_pmixd_log *m);
void pmixev_pmixd_log_release(struct pmixev_pmixd_log *m);

#endif /* PMIXEV_PMIXD_CTL_H_ */
