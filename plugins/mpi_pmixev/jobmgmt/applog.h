/*
 * jobmgmt/applog.h - PMIx_Log, root's half (the pmix side's, which reads
 * the request, is pmixside/applog_pmix.h): a LOG frame, checked by its
 * validating unpack (a task's rank local, channels, levels, texts within
 * 64 KiB, email parts as the owner helper takes them), is carried out
 * message by message, each to its channel, in the order given; one
 * LOG_DONE answers it with a PMIx status. No PMIx here but pmix_common.h's
 * constants (jobmgmt/pmixstatus.h). Agent thread.
 *
 * Channels (data keys, string values):
 *   PMIX_LOG_STDOUT, PMIX_LOG_STDERR  into the requesting task's own stdout
 *       or stderr (jobmgmt/taskproc.h): through srun, in order with the task's
 *       output. Tasks of this node only; a tool has none.
 *   PMIX_LOG_SYSLOG, PMIX_LOG_LOCAL_SYSLOG  the node's syslog (the socket
 *       PMIxevLogSyslog, default /dev/log), facility user, tag "pmixev",
 *       priority PMIX_LOG_SYSLOG_PRI (default LOG_ERR).
 *   PMIX_LOG_GLOBAL_SYSLOG  the syslog of the step's first node (overlay
 *       LOG_GLOBAL); this node's if that one is gone.
 *   PMIX_LOG_JOB_RECORD  the job's record: the slurmd log of the node, a
 *       line "job record: rank R: TEXT" with the step id. As a directive
 *       (bool), every message of the request also goes there.
 *   PMIX_LOG_EMAIL  the site's mail command (PMIxevLogMail; none: refused
 *       with PMIX_ERR_NOT_SUPPORTED) run by the owner helper as the owner
 *       (pmixside/logmail.h); at most 16 per step and node.
 * Directives: PMIX_LOG_ONCE (stop at the first channel that took it),
 * PMIX_LOG_TAG_OUTPUT ("[NSPACE,RANK]<stdout>: "), PMIX_LOG_TIMESTAMP_OUTPUT
 * with PMIX_LOG_TIMESTAMP or PMIX_LOG_GENERATE_TIMESTAMP. Items the PMIx
 * library marked done are skipped (it runs no channel itself under pmixev:
 * server/server.c selects only its forwarding plugin).
 *
 * Syslog and job-record lines are escaped and cut to one line
 * (pmixev_logline.h) and limited to PMIxevLogRate per second and node;
 * lines over the rate are refused (PMIX_ERR_OUT_OF_RESOURCE), counted and
 * summed up at the step's end. At most 256 requests are in progress on a
 * node (waiting on a full task output or the mail command); more are
 * refused with PMIX_ERR_OUT_OF_RESOURCE and counted. The answer:
 * PMIX_SUCCESS when every channel took its message (with PMIX_LOG_ONCE:
 * one did), PMIX_ERR_PARTIAL_SUCCESS when some did, else the first
 * channel's error.
 */
#ifndef PMIXEV_PMIX_APPLOG_H_
#define PMIXEV_PMIX_APPLOG_H_

struct step;
struct applog;

/*
 * PMIx_Log's channels for step `s`, serving LOG frames on its channel to
 * the pmix side (s->chan, made before). NULL when out of memory.
 */
struct applog *applog_create(struct step *s);
void applog_destroy(struct applog *al);

#endif /* PMIXEV_PMIX_APPLOG_H_ */
