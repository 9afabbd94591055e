/*
 * jobmgmt/monitor.h - PMIx_Process_monitor across the step.
 *
 * OpenPMIx runs the heartbeat and file monitors (PMIX_MONITOR_HEARTBEAT,
 * PMIX_MONITOR_FILE) itself, on its progress thread, and raises
 * PMIX_MONITOR_HEARTBEAT_ALERT / _FILE_ALERT with the monitored rank as the
 * source to the clients of that rank's node only; the host never sees the
 * alert through notify_event. So pmixev registers a handler for both codes
 * with its own server: an alert the library raised about a rank of this
 * node
 *   - is relayed to every other node of the step (pmixside/notify_pmix.h), where
 *     the local server delivers it with the same source: every process of
 *     the step gets it once, whatever range the requester gave;
 *   - is logged in the slurmd log with the step id ("monitor: rank R:
 *     heartbeat alert") and counted;
 *   - leads to the step's policy, once per node (PMIxevMonitorPolicy, the
 *     job's --pmixev-monitor within the site's PMIxevMonitorAllowed):
 *       notify   nothing more;
 *       kill     slurmctld ends the step (SIGKILL), asked as the job owner;
 *       requeue  slurmctld requeues the job, asked as the job owner
 *                (batch jobs Slurm lets the owner requeue); a refusal is
 *                logged with Slurm's reason.
 * An alert a client raised itself with PMIx_Notify_event is an ordinary
 * event (pmixside/notify_pmix.h): no policy. The file monitor stats the file with the
 * owner's file identity (the progress thread is confined, pmixbase/confine.h):
 * a file the owner cannot reach is never seen and never alerts.
 *
 * Other monitor types reach the host's monitor upcall: Slurm offers none of
 * them, so they are refused with PMIX_ERR_NOT_SUPPORTED, logged once per
 * node and counted. The counts are logged at the step's end.
 */
#ifndef PMIXEV_PMIX_MONITOR_H_
#define PMIXEV_PMIX_MONITOR_H_

#include <pmix_server.h>

struct step;
struct monitor;

/* After the PMIx server is up (it registers the handler). NULL: logged. */
struct monitor *monitor_create(struct step *s);
void monitor_destroy(struct monitor *m);

pmix_status_t monitor_upcall(const pmix_proc_t *requestor,
			     const pmix_info_t *monitor, pmix_status_t error,
			     const pmix_info_t directives[], size_t ndirs,
			     pmix_info_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIX_MONITOR_H_ */
