/*
 * pmixside/monitor_pmix.h - PMIx_Process_monitor: the pmix side's half
 * (root's, which logs and counts the alerts and applies the step's
 * policy, is jobmgmt/monitor.h).
 *
 * OpenPMIx runs the heartbeat and file monitors (PMIX_MONITOR_HEARTBEAT,
 * PMIX_MONITOR_FILE) itself, on its progress thread, and raises
 * PMIX_MONITOR_HEARTBEAT_ALERT / _FILE_ALERT with the monitored rank as the
 * source to the clients of that rank's node only; the host never sees the
 * alert through notify_event. So a handler for both codes takes each alert
 * the library raised about a local rank of the step (not a client's own
 * PMIx_Notify_event, which carries the server's marker, nor one relayed
 * from another node), relays it to every other node like a client's event
 * (notify_pmix.h: every process of the step gets it once, whatever range
 * the requester gave) and sends it to root as MONITOR_ALERT. The file
 * monitor stats the file as the job owner (the process's identity): a
 * file the owner cannot reach is never seen and never alerts.
 *
 * Other monitor types reach the host's monitor upcall: Slurm offers none
 * of them, so they are refused with PMIX_ERR_NOT_SUPPORTED and told to
 * root (MONITOR_ALERT, code OTHER), which logs the first and counts them.
 */
#ifndef PMIXEV_PMIXSIDE_MONITOR_PMIX_H_
#define PMIXEV_PMIXSIDE_MONITOR_PMIX_H_

#include <pmix_server.h>

/*
 * Watch for the library's alerts: slurmstepd's thread, after the PMIx
 * server is up (it waits for the registration). On failure (logged) the
 * alerts stay on their node and no policy applies.
 */
void monitor_pmix_watch(void);

/* The upcall (PMIx progress thread), for the server module's table. */
pmix_status_t monitor_upcall(const pmix_proc_t *requestor,
			     const pmix_info_t *monitor, pmix_status_t error,
			     const pmix_info_t directives[], size_t ndirs,
			     pmix_info_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIXSIDE_MONITOR_PMIX_H_ */
