/*
 * pmixev_events.h - the event codes and info keys pmixev adds to the PMIx
 * standard's, for applications running under srun --mpi=pmixev.
 *
 * Standard codes pmixev also uses for Slurm's job events:
 *   PMIX_JCTRL_PREEMPT_ALERT (-108)  Slurm decided to preempt the job
 *   PMIX_ERR_JOB_CANCELED    (-180)  the job was cancelled (scancel)
 *   PMIX_EVENT_JOB_END       (-145)  the job ended otherwise
 * All job events are non-default (catch-all handlers never see them),
 * come from the source {NSPACE.srv, node}, and carry
 * PMIX_EVENT_TEXT_MESSAGE, PMIX_EVENT_TIMESTAMP and pmixev's source and
 * sequence (PMIXEV_EVENT_SOURCE "slurmctld-via-owner@NODE",
 * PMIXEV_EVENT_SEQ). The job's state reaches the stepd through a helper
 * that runs as the job owner (slurmctld checks the owner's permissions,
 * not root's), so a job event carries the owner's word, no more: the
 * source says so.
 */
#ifndef PMIXEV_EVENTS_H_PUBLIC_
#define PMIXEV_EVENTS_H_PUBLIC_

/* The job's end time is near (the lead time asked for), or it moved:
 * PMIX_TIME_REMAINING (uint32_t seconds), PMIXEV_TIME_CHANGED (bool). */
#define PMIXEV_EVENT_TIME_LIMIT (-3301)
/* The job was suspended (scontrol suspend, gang scheduling). */
#define PMIXEV_EVENT_JOB_SUSPENDED (-3302)
/* The job was resumed. */
#define PMIXEV_EVENT_JOB_RESUMED (-3303)
/* The job is being requeued: its processes will be killed and it will
 * run again later. */
#define PMIXEV_EVENT_JOB_REQUEUED (-3304)

/* pmixev's metadata on every event it generates. */
#define PMIXEV_EVENT_SOURCE "slurm.pmixev.evsrc" /* (char*) who observed it */
#define PMIXEV_EVENT_SEQ    "slurm.pmixev.evseq" /* (uint64_t) per source */
/* The source name of job events (before "@NODE"): slurmctld's answer, as
 * relayed by a process of the job owner. */
#define PMIXEV_EVENT_SOURCE_JOB "slurmctld-via-owner"

/* PMIX_JCTRL_PREEMPT_ALERT: what Slurm will do when the grace time
 * (PMIX_TIME_REMAINING) is over: "cancel", "requeue", "suspend" or "". */
#define PMIXEV_PREEMPT_MODE "slurm.pmixev.preempt.mode"
/* PMIXEV_EVENT_TIME_LIMIT: true when the end time moved (an operator
 * extended or reduced the limit), false for the lead-time warning. */
#define PMIXEV_TIME_CHANGED "slurm.pmixev.time.changed"

/* PMIX_EVENT_NODE_OFFLINE (-232), an environment event (only to processes
 * that registered for it): Slurm took a node of the job out of service.
 * PMIX_HOSTNAME names it (PMIX_NODEID and PMIX_EVENT_AFFECTED_PROCS too
 * when it runs part of the step); these say how and why. */
#define PMIXEV_NODE_STATE                                                      \
	"slurm.pmixev.node.state" /* "drain", "fail", "down" */
#define PMIXEV_NODE_REASON "slurm.pmixev.node.reason" /* the admin's, or "" */

/* PMIx_Query_info: PMIX_QUERY_JOB_STATUS of a job Slurm holds pending
 * (queued, held, or requeued and waiting to run again). The other answers:
 * PMIX_SUCCESS (running), PMIXEV_EVENT_JOB_SUSPENDED, PMIX_EVENT_JOB_END
 * (completed), PMIX_ERR_JOB_CANCELED, PMIX_ERR_JOB_NON_ZERO_TERM (failed),
 * PMIX_ERR_TIMEOUT (time limit or deadline), PMIX_JCTRL_PREEMPT_ALERT
 * (preempted), PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT (node or boot failure),
 * PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED (out of memory). */
#define PMIXEV_JOB_PENDING (-3305)
/* PMIx_Query_info key: (char*) the job's state as Slurm names it, with
 * Slurm's reason when it gives one: "RUNNING", "PENDING (Resources)". */
#define PMIXEV_QUERY_JOB_STATE "slurm.pmixev.job.state"

/* PMIx_Query_info's PMIX_QUERY_MEMORY_USAGE, per task: (float) its
 * resident memory in MiB. */
#define PMIXEV_MEM_RSS "slurm.pmixev.mem.rss"

/* PMIx_Job_control's answer when Slurm refused or failed a target:
 * (char*) each target and Slurm's reason, "step 12.0: Access/permission
 * denied". */
#define PMIXEV_JCTRL_REASON "slurm.pmixev.jctrl.reason"

/* PMIx_Allocation_request's answer when it failed: (char*) why, Slurm's
 * words where Slurm refused ("Requested node configuration is not
 * available"). */
#define PMIXEV_ALLOC_REASON "slurm.pmixev.alloc.reason"

#endif /* PMIXEV_EVENTS_H_PUBLIC_ */
