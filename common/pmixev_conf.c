/*
 * pmixev_conf.c - option table, defaults and validation.
 */
#include "config.h"

#include "pmixev_conf.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_env.h"

struct option_desc {
	const char *key;   /* mpi.conf key */
	const char *env;   /* per-job environment override */
	size_t offset;	   /* of the member in struct pmixev_conf */
	unsigned min, max; /* accepted range, inclusive */
	unsigned def;	   /* default */
	const char *unit;  /* for messages, or "" */
	size_t path;	   /* 0: an unsigned member; else a char[path] path */
	const char *def_path;
	/* Non-NULL: the value is one of these words (its index), or with
	 * `list` a comma list of them (a mask). */
	const char *const *words;
	bool list;
};

static const char *const policy_words[] = {"notify", "kill", "requeue", NULL};
static const char *const gds_words[] = {"auto", "hash", "shmem", NULL};
static const char *const switch_words[] = {"no", "yes", NULL};

static const struct option_desc options[PMIXEV_CONF_NKEYS] = {
	[PMIXEV_CONF_DEBUG] = {"PMIxevDebug", "SLURM_PMIXEV_DEBUG",
			       offsetof(struct pmixev_conf, debug), 0, 3, 0,
			       ""},
	[PMIXEV_CONF_TIMEOUT] = {"PMIxevTimeout", "SLURM_PMIXEV_TIMEOUT",
				 offsetof(struct pmixev_conf, timeout_sec), 1,
				 86400, 300, " seconds"},
	[PMIXEV_CONF_TREE_WIDTH] = {"PMIxevTreeWidth",
				    "SLURM_PMIXEV_TREE_WIDTH",
				    offsetof(struct pmixev_conf, tree_width), 0,
				    65533, 0, " (0: Slurm's TreeWidth)"},
	[PMIXEV_CONF_HEARTBEAT] = {"PMIxevHeartbeat", "SLURM_PMIXEV_HEARTBEAT",
				   offsetof(struct pmixev_conf, heartbeat_ms),
				   0, 60000, 200, " milliseconds (0: off)"},
	[PMIXEV_CONF_EVENT_CACHE] = {"PMIxevEventCache",
				     "SLURM_PMIXEV_EVENT_CACHE",
				     offsetof(struct pmixev_conf, event_cache),
				     1, 65536, 512, " events"},
	[PMIXEV_CONF_EVENT_CACHE_MAX] = {"PMIxevEventCacheMax",
					 "SLURM_PMIXEV_EVENT_CACHE_MAX",
					 offsetof(struct pmixev_conf,
						  event_cache_mib),
					 1, 65536, 64, " MiB"},
	[PMIXEV_CONF_WATCH_INTERVAL] = {"PMIxevWatchInterval",
					"SLURM_PMIXEV_WATCH_INTERVAL",
					offsetof(struct pmixev_conf, watch_sec),
					1, 3600, 5, " seconds"},
	[PMIXEV_CONF_WATCH_MIN] = {"PMIxevWatchIntervalMin",
				   "SLURM_PMIXEV_WATCH_INTERVAL_MIN",
				   offsetof(struct pmixev_conf, watch_min), 1,
				   3600, 1, " seconds (site only)"},
	[PMIXEV_CONF_TIME_WARNING] = {"PMIxevTimeWarning",
				      "SLURM_PMIXEV_TIME_WARNING",
				      offsetof(struct pmixev_conf, warn_sec), 0,
				      604800, 300, " seconds (0: off)"},
	[PMIXEV_CONF_SCHED_EVENTS] =
		{"PMIxevSchedEvents", "SLURM_PMIXEV_SCHED_EVENTS",
		 offsetof(struct pmixev_conf, sched_events), 0, 511, 511,
		 " (a mask of scheduler events)"},
	[PMIXEV_CONF_NODE_INTERVAL] = {"PMIxevNodeInterval",
				       "SLURM_PMIXEV_NODE_INTERVAL",
				       offsetof(struct pmixev_conf, node_sec),
				       0, 86400, 60, " seconds (0: off)"},
	[PMIXEV_CONF_EVENT_MAX] = {"PMIxevEventMax", "SLURM_PMIXEV_EVENT_MAX",
				   offsetof(struct pmixev_conf, event_kib), 1,
				   65536, 1024, " KiB"},
	[PMIXEV_CONF_PUBLISH_MAX] = {"PMIxevPublishMax",
				     "SLURM_PMIXEV_PUBLISH_MAX",
				     offsetof(struct pmixev_conf, publish_mib),
				     1, 65536, 64, " MiB"},
	[PMIXEV_CONF_OVERLAY_MAX] = {"PMIxevOverlayMax",
				     "SLURM_PMIXEV_OVERLAY_MAX",
				     offsetof(struct pmixev_conf, overlay_mib),
				     1, 65536, 256, " MiB"},
	[PMIXEV_CONF_FENCE_MAX] = {"PMIxevFenceMax", "SLURM_PMIXEV_FENCE_MAX",
				   offsetof(struct pmixev_conf, fence_max), 1,
				   65536, 1024, " collectives"},
	[PMIXEV_CONF_LOG_RATE] = {"PMIxevLogRate", NULL,
				  offsetof(struct pmixev_conf, log_rate), 1,
				  100000, 100, " lines per second"},
	[PMIXEV_CONF_LOG_SYSLOG] =
		{"PMIxevLogSyslog", NULL,
		 offsetof(struct pmixev_conf, log_syslog), 0, 0, 0, "",
		 sizeof(((struct pmixev_conf *)0)->log_syslog), "/dev/log"},
	[PMIXEV_CONF_LOG_MAIL] = {"PMIxevLogMail", NULL,
				  offsetof(struct pmixev_conf, log_mail), 0, 0,
				  0, "",
				  sizeof(((struct pmixev_conf *)0)->log_mail),
				  ""},
	[PMIXEV_CONF_MONITOR_POLICY] =
		{"PMIxevMonitorPolicy", "SLURM_PMIXEV_MONITOR_POLICY",
		 offsetof(struct pmixev_conf, monitor_policy), 0, 0,
		 PMIXEV_MONITOR_NOTIFY, "", 0, NULL, policy_words, false},
	[PMIXEV_CONF_MONITOR_ALLOWED] = {"PMIxevMonitorAllowed", NULL,
					 offsetof(struct pmixev_conf,
						  monitor_allowed),
					 0, 0,
					 (1u << PMIXEV_MONITOR_NPOLICIES) - 1,
					 "", 0, NULL, policy_words, true},
	[PMIXEV_CONF_GDS] = {"PMIxevGds", "SLURM_PMIXEV_GDS",
			     offsetof(struct pmixev_conf, gds), 0, 0,
			     PMIXEV_GDS_AUTO, "", 0, NULL, gds_words, false},
	[PMIXEV_CONF_ALLOC_EXTEND] =
		{"PMIxevAllocExtendCmd", NULL,
		 offsetof(struct pmixev_conf, alloc_extend), 0, 0, 0, "",
		 sizeof(((struct pmixev_conf *)0)->alloc_extend), ""},
	[PMIXEV_CONF_SPAWN] = {"PMIxevSpawn", "SLURM_PMIXEV_SPAWN",
			       offsetof(struct pmixev_conf, spawn), 0, 0, 1, "",
			       0, NULL, switch_words, false},
	[PMIXEV_CONF_ALLOC] = {"PMIxevAlloc", "SLURM_PMIXEV_ALLOC",
			       offsetof(struct pmixev_conf, alloc), 0, 0, 1, "",
			       0, NULL, switch_words, false},
};

#define NOPTIONS ((size_t)PMIXEV_CONF_NKEYS)

/*
 * Each option's rule, in one place (doc/admin-guide.md, mpi.conf options, says
 * why): what bounds root's memory (caches, budgets) is a site maximum; what
 * bounds its CPU by an interval is a site minimum; what only shapes the
 * job's own service (timeouts, tree width over its own nodes, which events
 * it hears, debug lines, themselves held to PMIxevLogRate) is free.
 */
static const enum pmixev_conf_rule rules[PMIXEV_CONF_NKEYS] = {
	[PMIXEV_CONF_DEBUG] = PMIXEV_RULE_FREE,
	[PMIXEV_CONF_TIMEOUT] = PMIXEV_RULE_FREE,
	[PMIXEV_CONF_TREE_WIDTH] = PMIXEV_RULE_FREE,
	[PMIXEV_CONF_HEARTBEAT] = PMIXEV_RULE_RAISE,
	[PMIXEV_CONF_EVENT_CACHE] = PMIXEV_RULE_LOWER,
	[PMIXEV_CONF_EVENT_CACHE_MAX] = PMIXEV_RULE_LOWER,
	[PMIXEV_CONF_WATCH_INTERVAL] = PMIXEV_RULE_FREE,
	[PMIXEV_CONF_WATCH_MIN] = PMIXEV_RULE_SITE,
	[PMIXEV_CONF_TIME_WARNING] = PMIXEV_RULE_FREE,
	[PMIXEV_CONF_SCHED_EVENTS] = PMIXEV_RULE_FREE,
	[PMIXEV_CONF_NODE_INTERVAL] = PMIXEV_RULE_FREE,
	[PMIXEV_CONF_EVENT_MAX] = PMIXEV_RULE_LOWER,
	[PMIXEV_CONF_PUBLISH_MAX] = PMIXEV_RULE_LOWER,
	[PMIXEV_CONF_OVERLAY_MAX] = PMIXEV_RULE_LOWER,
	[PMIXEV_CONF_FENCE_MAX] = PMIXEV_RULE_LOWER,
	[PMIXEV_CONF_LOG_RATE] = PMIXEV_RULE_SITE,
	[PMIXEV_CONF_LOG_SYSLOG] = PMIXEV_RULE_SITE,
	[PMIXEV_CONF_LOG_MAIL] = PMIXEV_RULE_SITE,
	[PMIXEV_CONF_MONITOR_POLICY] = PMIXEV_RULE_FREE,
	[PMIXEV_CONF_MONITOR_ALLOWED] = PMIXEV_RULE_SITE,
	/* The store lives in the job owner's pmixev-pmixd and its tasks. */
	[PMIXEV_CONF_GDS] = PMIXEV_RULE_FREE,
	[PMIXEV_CONF_ALLOC_EXTEND] = PMIXEV_RULE_SITE,
	/* A site that serves no spawn or allocation keeps them off. */
	[PMIXEV_CONF_SPAWN] = PMIXEV_RULE_LOWER,
	[PMIXEV_CONF_ALLOC] = PMIXEV_RULE_LOWER,
};

static unsigned *member(struct pmixev_conf *conf, size_t idx)
{
	return (unsigned *)((char *)conf + options[idx].offset);
}

static char *path_member(struct pmixev_conf *conf, size_t idx)
{
	return (char *)conf + options[idx].offset;
}

const char *pmixev_conf_key(size_t idx)
{
	return idx < NOPTIONS ? options[idx].key : NULL;
}

const char *pmixev_conf_env(size_t idx)
{
	return idx < NOPTIONS ? options[idx].env : NULL;
}

enum pmixev_conf_rule pmixev_conf_rule(size_t idx)
{
	return idx < NOPTIONS ? rules[idx] : PMIXEV_RULE_SITE;
}

void pmixev_conf_defaults(struct pmixev_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	for (size_t i = 0; i < NOPTIONS; i++)
		if (options[i].path)
			snprintf(path_member(conf, i), options[i].path, "%s",
				 options[i].def_path);
		else
			*member(conf, i) = options[i].def;
}

/* An absolute path of printable characters that fits, or "none" (""). */
static int set_path(struct pmixev_conf *conf, size_t idx, const char *value,
		    char *err, size_t errlen)
{
	const struct option_desc *o = &options[idx];
	size_t len = value ? strlen(value) : 0;
	bool printable = true;

	if (value && !strcmp(value, "none")) {
		path_member(conf, idx)[0] = '\0';
		return 0;
	}
	for (size_t i = 0; i < len; i++)
		printable &= (unsigned char)value[i] > ' ' && value[i] != 0x7f;
	if (!value || value[0] != '/' || len >= o->path || !printable) {
		snprintf(err, errlen,
			 "expected an absolute path of at most %zu printable "
			 "characters, or none",
			 o->path - 1);
		return -1;
	}
	memcpy(path_member(conf, idx), value, len + 1);
	return 0;
}

/* The index of the `len` bytes at `w` among `words`, or -1. */
static int word_index(const char *const *words, const char *w, size_t len)
{
	for (int i = 0; words[i]; i++)
		if (strlen(words[i]) == len && !strncmp(words[i], w, len))
			return i;
	return -1;
}

/* One word, or a comma list of them without empty items. */
static int set_words(struct pmixev_conf *conf, size_t idx, const char *value,
		     char *err, size_t errlen)
{
	const struct option_desc *o = &options[idx];
	const char *p = value ? value : "";
	unsigned v = 0;
	int i;

	for (;;) {
		size_t len = strcspn(p, ",");

		if ((i = word_index(o->words, p, len)) < 0 ||
		    (!o->list && p[len]))
			goto bad;
		v = o->list ? v | 1u << i : (unsigned)i;
		if (!p[len])
			break;
		p += len + 1;
	}
	*member(conf, idx) = v;
	return 0;
bad:
	i = snprintf(err, errlen, "expected %s",
		     o->list ? "a comma list of" : "one of");
	for (const char *const *w = o->words;
	     *w && i >= 0 && (size_t)i < errlen; w++)
		i += snprintf(err + i, errlen - (size_t)i, " %s", *w);
	return -1;
}

/* Strict unsigned decimal: digits only, no sign, no spaces, no suffix. */
static int parse_unsigned(const char *s, uintmax_t *out)
{
	char *end = NULL;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoumax(s, &end, 10);
	if (errno || *end != '\0')
		return -1;
	return 0;
}

int pmixev_conf_set(struct pmixev_conf *conf, size_t idx, const char *value,
		    char *err, size_t errlen)
{
	const struct option_desc *o;
	uintmax_t v;

	if (idx >= NOPTIONS) {
		snprintf(err, errlen, "unknown option");
		return -1;
	}
	o = &options[idx];
	if (o->path)
		return set_path(conf, idx, value, err, errlen);
	if (o->words)
		return set_words(conf, idx, value, err, errlen);
	if (parse_unsigned(value, &v) < 0 || v < o->min || v > o->max) {
		snprintf(err, errlen, "expected an integer in %u..%u%s", o->min,
			 o->max, o->unit);
		return -1;
	}
	*member(conf, idx) = (unsigned)v;
	return 0;
}

int pmixev_conf_apply_env(struct pmixev_conf *conf, char *const *env, char *err,
			  size_t errlen)
{
	char why[128];

	for (size_t i = 0; i < NOPTIONS; i++) {
		const char *v = options[i].env
					? pmixev_env_get(env, options[i].env)
					: NULL;

		if (!v)
			continue;
		if (pmixev_conf_set(conf, i, v, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%s='%s': %s", options[i].env, v,
				 why);
			return -1;
		}
	}
	return 0;
}

/* A word option's value as written: a word, or a comma list. */
static void format_words(const struct option_desc *o, unsigned v, char *buf,
			 size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; o->words[i] && off < len; i++) {
		if (o->list ? !(v & 1u << i) : v != i)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					off ? "," : "", o->words[i]);
	}
}

void pmixev_conf_format(const struct pmixev_conf *conf, size_t idx, char *buf,
			size_t len)
{
	if (idx >= NOPTIONS) {
		snprintf(buf, len, "?");
		return;
	}
	if (options[idx].path) {
		const char *p = path_member((struct pmixev_conf *)conf, idx);

		snprintf(buf, len, "%s", p[0] ? p : "none");
		return;
	}
	if (options[idx].words) {
		format_words(&options[idx],
			     *member((struct pmixev_conf *)conf, idx), buf,
			     len);
		return;
	}
	snprintf(buf, len, "%u", *member((struct pmixev_conf *)conf, idx));
}

/* An interval's length for comparison: 0 (off) is the longest. */
static unsigned long long interval(unsigned v)
{
	return v ? v : 1ull << 32;
}

/* Whether `rule` lets a job turn the site's value of `idx` into its own. */
static bool allowed(size_t idx, const struct pmixev_conf *job,
		    const struct pmixev_conf *site)
{
	const void *j = (const char *)job + options[idx].offset;
	const void *s = (const char *)site + options[idx].offset;
	unsigned jv, sv;

	if (options[idx].path)
		return rules[idx] != PMIXEV_RULE_SITE || !strcmp(j, s);
	memcpy(&jv, j, sizeof(jv));
	memcpy(&sv, s, sizeof(sv));
	switch (rules[idx]) {
	case PMIXEV_RULE_FREE:
		return true;
	case PMIXEV_RULE_LOWER:
		return jv <= sv;
	case PMIXEV_RULE_RAISE:
		return interval(jv) >= interval(sv);
	case PMIXEV_RULE_SITE:
		break;
	}
	return jv == sv;
}

unsigned pmixev_conf_bound(struct pmixev_conf *job,
			   const struct pmixev_conf *site,
			   pmixev_conf_refused_f *refused, void *arg)
{
	unsigned n = 0;

	for (size_t i = 0; i < NOPTIONS; i++) {
		char asked[256], theirs[256];

		if (allowed(i, job, site))
			continue;
		pmixev_conf_format(job, i, asked, sizeof(asked));
		pmixev_conf_format(site, i, theirs, sizeof(theirs));
		if (options[i].path)
			memcpy(path_member(job, i),
			       (const char *)site + options[i].offset,
			       options[i].path);
		else
			*member(job, i) =
				*(const unsigned *)((const char *)site +
						    options[i].offset);
		if (refused)
			refused(i, asked, theirs, arg);
		n++;
	}
	return n;
}

unsigned pmixev_conf_event_slots(const struct pmixev_conf *conf)
{
	unsigned long long fit =
		((unsigned long long)conf->event_cache_mib << 10) /
		(conf->event_kib ? conf->event_kib : 1);

	if (fit < 1)
		fit = 1;
	return fit < conf->event_cache ? (unsigned)fit : conf->event_cache;
}

const char *pmixev_gds_name(unsigned g)
{
	return g < PMIXEV_GDS_NSTORES ? gds_words[g] : "?";
}

const char *pmixev_monitor_policy_name(unsigned p)
{
	return p < PMIXEV_MONITOR_NPOLICIES ? policy_words[p] : "?";
}

int pmixev_conf_monitor_check(const struct pmixev_conf *conf, char *err,
			      size_t errlen)
{
	char allowed[64];

	if (conf->monitor_policy < PMIXEV_MONITOR_NPOLICIES &&
	    conf->monitor_allowed & 1u << conf->monitor_policy)
		return 0;
	pmixev_conf_format(conf, PMIXEV_CONF_MONITOR_ALLOWED, allowed,
			   sizeof(allowed));
	snprintf(err, errlen,
		 "PMIxevMonitorPolicy=%s is not among the site's "
		 "PMIxevMonitorAllowed=%s",
		 pmixev_monitor_policy_name(conf->monitor_policy),
		 allowed[0] ? allowed : "(none)");
	return -1;
}
