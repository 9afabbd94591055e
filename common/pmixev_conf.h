/*
 * pmixev_conf.h - pmixev's site and user options: one typed struct, one
 * table of keys, one place for defaults.
 *
 * A value comes from mpi.conf (key PMIxev*) and may be overridden per job by
 * the environment (SLURM_PMIXEV_*) unless it is the site's alone (no
 * environment name). Most are integers; PMIxevLogSyslog, PMIxevLogMail and
 * PMIxevAllocExtendCmd are absolute paths or "none"; PMIxevMonitorPolicy,
 * PMIxevGds, PMIxevSpawn and PMIxevAlloc are words and PMIxevMonitorAllowed a
 * comma list of words. Every value is validated here; an invalid one is
 * rejected with a message naming the key and the value.
 *
 * Each option also says what a job's value may do to the site's (its
 * rule, below): an option that bounds what root's stepds hold, spend or
 * log is a site maximum a job may only lower, or for an interval a site
 * minimum it may only lengthen; pmixev_conf_bound() holds a job to them.
 * Pure code: no Slurm, no PMIx, unit-tested in tests/unit/test_conf.c.
 */
#ifndef PMIXEV_CONF_H_
#define PMIXEV_CONF_H_

#include <stddef.h>

struct pmixev_conf {
	unsigned debug;	       /* PMIxevDebug: 0 (quiet) .. 3 (per message) */
	unsigned timeout_sec;  /* PMIxevTimeout: collective/peer timeout */
	unsigned tree_width;   /* PMIxevTreeWidth: 0 = Slurm's TreeWidth */
	unsigned heartbeat_ms; /* PMIxevHeartbeat: 0 = off */
	unsigned event_cache;  /* PMIxevEventCache: events kept per node */
	unsigned event_cache_mib; /* PMIxevEventCacheMax: their bytes */
	unsigned watch_sec;	  /* PMIxevWatchInterval: slurmctld polls */
	unsigned watch_min;	  /* PMIxevWatchIntervalMin: site bound */
	unsigned warn_sec;	  /* PMIxevTimeWarning: lead time, 0 = none */
	unsigned sched_events;	  /* PMIxevSchedEvents: mask of wanted kinds */
	unsigned node_sec;	  /* PMIxevNodeInterval: node looks, 0 = none */
	/* Budgets of what one step may make a root stepd hold (site bounds:
	 * a job may only lower them). */
	unsigned event_kib;   /* PMIxevEventMax: a relayed client event */
	unsigned publish_mib; /* PMIxevPublishMax: the publish directory */
	unsigned overlay_mib; /* PMIxevOverlayMax: queued for one link */
	unsigned fence_max;   /* PMIxevFenceMax: collectives in flight */
	/* PMIx_Log (site only: a job cannot change them). */
	unsigned log_rate;    /* PMIxevLogRate: syslog and job-record lines
				 per second and node */
	char log_syslog[108]; /* PMIxevLogSyslog: the syslog socket, "" off */
	char log_mail[256];   /* PMIxevLogMail: the mail command, "" none */
	/* PMIx_Process_monitor alerts. */
	unsigned monitor_policy;  /* PMIxevMonitorPolicy: a policy below */
	unsigned monitor_allowed; /* PMIxevMonitorAllowed (site only): mask
				     of the policies a job may choose */
	unsigned gds;		  /* PMIxevGds: the job data store below */
	/* PMIx_Allocation_request's EXTEND (site only). */
	char alloc_extend[256]; /* PMIxevAllocExtendCmd: the command that may
				   grant it, "" none */
	/* Dynamic jobs, each 1 (served) or 0 (refused); a job may only turn
	 * them off. */
	unsigned spawn; /* PMIxevSpawn: PMIx_Spawn as new steps */
	unsigned alloc; /* PMIxevAlloc: PMIx_Allocation_request */
};

/* What a monitor alert leads to (jobmgmt/monitor.h). */
enum pmixev_monitor_policy {
	PMIXEV_MONITOR_NOTIFY,	/* the step's processes are told, no more */
	PMIXEV_MONITOR_KILL,	/* and the step is ended */
	PMIXEV_MONITOR_REQUEUE, /* and the job is requeued */
	PMIXEV_MONITOR_NPOLICIES
};

/*
 * Where OpenPMIx keeps the job's data for the node's processes
 * (pmixside/pmixlib.c names the library's components).
 */
enum pmixev_gds {
	PMIXEV_GDS_AUTO,  /* the faster of the two for the library: shmem
			     on OpenPMIx 4, hash on 5 and later */
	PMIXEV_GDS_HASH,  /* each process asks the server, keeps a copy */
	PMIXEV_GDS_SHMEM, /* the server's shared memory: 4.x ds21, 5.x
			     shmem2; hash for what it cannot hold */
	PMIXEV_GDS_NSTORES
};

/* Options are addressed by index. */
enum pmixev_conf_idx {
	PMIXEV_CONF_DEBUG,
	PMIXEV_CONF_TIMEOUT,
	PMIXEV_CONF_TREE_WIDTH,
	PMIXEV_CONF_HEARTBEAT,
	PMIXEV_CONF_EVENT_CACHE,
	PMIXEV_CONF_EVENT_CACHE_MAX,
	PMIXEV_CONF_WATCH_INTERVAL,
	PMIXEV_CONF_WATCH_MIN,
	PMIXEV_CONF_TIME_WARNING,
	PMIXEV_CONF_SCHED_EVENTS,
	PMIXEV_CONF_NODE_INTERVAL,
	PMIXEV_CONF_EVENT_MAX,
	PMIXEV_CONF_PUBLISH_MAX,
	PMIXEV_CONF_OVERLAY_MAX,
	PMIXEV_CONF_FENCE_MAX,
	PMIXEV_CONF_LOG_RATE,
	PMIXEV_CONF_LOG_SYSLOG,
	PMIXEV_CONF_LOG_MAIL,
	PMIXEV_CONF_MONITOR_POLICY,
	PMIXEV_CONF_MONITOR_ALLOWED,
	PMIXEV_CONF_GDS,
	PMIXEV_CONF_ALLOC_EXTEND,
	PMIXEV_CONF_SPAWN,
	PMIXEV_CONF_ALLOC,
	PMIXEV_CONF_NKEYS
};

/* What a job's SLURM_PMIXEV_* value may do to the site's. */
enum pmixev_conf_rule {
	PMIXEV_RULE_FREE,  /* any valid value */
	PMIXEV_RULE_LOWER, /* a site maximum: the job may only lower it */
	PMIXEV_RULE_RAISE, /* a site minimum (an interval that bounds CPU):
			      the job may only raise it; 0 (off) counts as
			      the longest */
	PMIXEV_RULE_SITE,  /* the site's alone */
};

/* mpi.conf key name and environment override name (NULL: the site's
 * alone) of option `idx`. */
const char *pmixev_conf_key(size_t idx);
const char *pmixev_conf_env(size_t idx);

/* The rule of option `idx` (PMIXEV_RULE_SITE for an unknown index). */
enum pmixev_conf_rule pmixev_conf_rule(size_t idx);

/* Told of each job value pmixev_conf_bound() refused: the option, the
 * value the job asked for and the site's, in their text forms. */
typedef void pmixev_conf_refused_f(size_t idx, const char *asked,
				   const char *site, void *arg);

/*
 * Hold `job` (the site's values with the job's overrides applied) to the
 * rules against `site`: every option whose value the rule does not allow
 * gets the site's value back, and `refused` (if not NULL) is told.
 * Returns the number of values refused.
 */
unsigned pmixev_conf_bound(struct pmixev_conf *job,
			   const struct pmixev_conf *site,
			   pmixev_conf_refused_f *refused, void *arg);

/* Fill `conf` with the built-in defaults. */
void pmixev_conf_defaults(struct pmixev_conf *conf);

/*
 * Set option `idx` from its text form. Returns 0, or -1 with a reason
 * ("expected ...") in `err` and `conf` unchanged.
 */
int pmixev_conf_set(struct pmixev_conf *conf, size_t idx, const char *value,
		    char *err, size_t errlen);

/*
 * Apply SLURM_PMIXEV_* overrides from the NULL-terminated `env`. Returns 0,
 * or -1 with "NAME='value': reason" in `err`; options applied before the bad
 * one stay applied, so callers discard `conf` on error.
 */
int pmixev_conf_apply_env(struct pmixev_conf *conf, char *const *env, char *err,
			  size_t errlen);

/*
 * How many events each node's PMIx server may keep: PMIxevEventCache, and
 * no more than PMIxevEventCacheMax holds of events of the largest size a
 * node relays (PMIxevEventMax), so that the cache stays under its byte
 * cap whatever the events' sizes. At least 1.
 */
unsigned pmixev_conf_event_slots(const struct pmixev_conf *conf);

/* The name of data store `g` ("auto", "hash", "shmem"; "?"). */
const char *pmixev_gds_name(unsigned g);

/* The name of monitor policy `p` ("notify", "kill", "requeue"; "?"). */
const char *pmixev_monitor_policy_name(unsigned p);

/*
 * Whether `conf`'s monitor policy is one the site allows; if not, -1 with
 * the reason in `err`.
 */
int pmixev_conf_monitor_check(const struct pmixev_conf *conf, char *err,
			      size_t errlen);

/* Text form of option `idx` in `conf` (as it would appear in mpi.conf). */
void pmixev_conf_format(const struct pmixev_conf *conf, size_t idx, char *buf,
			size_t len);

#endif /* PMIXEV_CONF_H_ */
