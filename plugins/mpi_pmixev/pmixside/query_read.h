/*
 * pmixside/query_read.h - a PMIx_Query_info request read (PMIx progress
 * thread): each query's qualifiers checked, the distinct keys it asks
 * about which job, and what root must answer for them (the QUERY frame's
 * items, pmixev_pmixd_ctl.h): Slurm's state of a job, the partitions, the
 * tasks' table of this node or of the step, the step's live groups (node
 * 0's list, which the pmix side filters). The keys the step answers
 * alone ask root nothing. pmixside/query_pmix.c carries the request out.
 */
#ifndef PMIXEV_PMIXSIDE_QUERY_READ_H_
#define PMIXEV_PMIXSIDE_QUERY_READ_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "base/layout.h"
#include "pmixev_helper_msg.h"
#include "pmixev_pmixd_ctl.h"

enum qkey {
	/* About this step: answered by the step. */
	Q_NAMESPACES,
	Q_NAMESPACE_INFO,
	Q_SPAWN_SUPPORT,
	Q_DEBUG_SUPPORT,
	Q_SERVER_URI,
	Q_NUM_PSETS,
	Q_PSET_NAMES,
	Q_PSET_MEMBERSHIP,
	Q_EVENTS,
	/* About the step's tasks: from the process table (jobmgmt/ptable.h). */
	Q_PROC_TABLE,
	Q_LOCAL_PROC_TABLE,
	Q_MEMORY_USAGE,
	/* About the step's groups: from node 0's list of the live ones. */
	Q_NUM_GROUPS,
	Q_GROUP_NAMES,
	Q_GROUP_MEMBERSHIP,
	/* About a job (this one by default): answered from Slurm. */
	Q_JOB_STATUS,
	Q_JOB_STATE,
	Q_TIME_REMAINING,
	Q_ALLOC_STATUS,
	Q_PREEMPTIBLE,
	/* About the partitions. */
	Q_QUEUE_LIST,
	Q_QUEUE_STATUS,
	Q_UNKNOWN
};

#define Q_FIRST_TASKS Q_PROC_TABLE
#define Q_FIRST_JOB   Q_JOB_STATUS
#define Q_FIRST_QUEUE Q_QUEUE_LIST

/* Distinct things one request may ask; more are not answered. */
#define QUERY_ITEMS_MAX PMIXEV_PMIXD_ITEMS_MAX
/* An item the step answers alone. */
#define QUERY_NO_ASK UINT32_MAX

struct query_item {
	enum qkey key;
	uint32_t job;		       /* Q_FIRST_JOB..: 0 = the step's */
	char queue[PMIXEV_OWNER_NAME]; /* Q_QUEUE_STATUS: "" = all */
	pmix_rank_t rank; /* Q_MEMORY_USAGE: one, or wildcard: all */
	uint32_t app;	  /* Q_PSET_MEMBERSHIP: the set's (base/psets.h) */
	char grpid[PMIX_MAX_NSLEN + 1]; /* Q_GROUP_MEMBERSHIP: PMIX_GROUP_ID */
	bool local; /* Q_*GROUP*: PMIX_RANGE LOCAL or PROC_LOCAL: the groups
		       with a member on this node only */
	bool avg, minmax; /* Q_MEMORY_USAGE: the report directives */
	uint32_t ask;	  /* root's answer to it: ask.item[ask], or NO_ASK */
};

struct query_req {
	struct query_item items[QUERY_ITEMS_MAX];
	size_t nitems;
	bool unanswerable; /* something asked the step cannot answer */
	/* What root is asked, each thing once: PMIX_QUERY_REFRESH_CACHE,
	 * the shortest PMIX_TIMEOUT (0: none) and the items (no id yet). */
	struct pmixev_pmixd_query ask;
};

/* The key's PMIx name. */
const char *query_key_name(enum qkey key);

/*
 * Read `nqueries` queries into `r`, for the step laid out in `lay`.
 * PMIX_SUCCESS, or PMIX_ERR_BAD_PARAM: PMIX_PROCID together with
 * PMIX_NSPACE or PMIX_RANK, or no key at all. The membership of a process
 * set the step does not define, or without PMIX_PSET_NAME, and a group's
 * without PMIX_GROUP_ID (or a longer one), are unanswerable.
 */
pmix_status_t query_read(struct query_req *r, const struct layout *lay,
			 const pmix_query_t *queries, size_t nqueries);

#endif /* PMIXEV_PMIXSIDE_QUERY_READ_H_ */
