/*
 * jobmgmt/monitor.h - PMIx_Process_monitor across the step: root's half
 * (the pmix side's, which watches for the PMIx library's alerts, relays
 * them to every process of the step and refuses other monitors, is
 * pmixside/monitor_pmix.h).
 *
 * A MONITOR_ALERT frame, checked by its validating unpack (a local rank,
 * a known code), about an alert the library raised on this node
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
 * event (pmixside/notify_pmix.h): no frame, no policy. A monitor type
 * Slurm does not offer, refused by the pmix side (code OTHER), is logged
 * once per node and counted. The counts are logged at the step's end.
 * Agent thread; no PMIx here.
 */
#ifndef PMIXEV_PMIX_MONITOR_H_
#define PMIXEV_PMIX_MONITOR_H_

struct step;
struct monitor;

/* Serves MONITOR_ALERT frames on the step's channel. NULL: out of
 * memory. */
struct monitor *monitor_create(struct step *s);
void monitor_destroy(struct monitor *m);

#endif /* PMIXEV_PMIX_MONITOR_H_ */
