/*
 * pmix_nodeid - what PMIx_Get of PMIX_NODEID answers for every rank of the
 * job, asked plainly and with PMIX_JOB_INFO.
 *
 * usage: pmix_nodeid
 *
 * Each rank puts its SLURM_NODEID as "test.nodeid", fences with
 * PMIX_COLLECT_DATA, then reads every rank's PMIX_NODEID twice: a plain
 * PMIx_Get (OpenPMIx 4.2 takes the key as node-level and looks in the
 * rank's node's record, where it never files the id) and one with
 * PMIX_JOB_INFO (the rank's own value, as the host registered it), and
 * compares each with what that rank put. Prints, per rank,
 *   "pmix_nodeid: rank R: plain: A right, B wrong, C missing; by-rank:
 *    D right, E wrong, F missing"
 * and exits 0 once it could ask (whatever the answers), 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#define PROG "pmix_nodeid"
#include "client_util.h"

#define KEY "test.nodeid" /* a "pmix" prefix is reserved */

struct tally {
	unsigned right, wrong, missing;
};

static void count(struct tally *t, pmix_status_t rc, const pmix_value_t *v,
		  uint32_t want)
{
	if (rc != PMIX_SUCCESS || !v)
		t->missing++;
	else if (v->type == PMIX_UINT32 && v->data.uint32 == want)
		t->right++;
	else
		t->wrong++;
}

int main(void)
{
	const char *env = getenv("SLURM_NODEID");
	pmix_proc_t me, wild, peer;
	struct tally plain = {0, 0, 0}, by_rank = {0, 0, 0};
	pmix_info_t collect, job_info;
	pmix_value_t val, *v;
	uint32_t nodeid, size;
	pmix_status_t rc;

	client_watchdog(PROG, 0);
	if (!env || (rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		fprintf(stderr, PROG ": no SLURM_NODEID or PMIx_Init failed\n");
		return 1;
	}
	nodeid = (uint32_t)strtoul(env, NULL, 10);
	PMIX_VALUE_LOAD(&val, &nodeid, PMIX_UINT32);
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	PMIX_INFO_LOAD(&job_info, PMIX_JOB_INFO, NULL, PMIX_BOOL);
	if (PMIx_Put(PMIX_GLOBAL, KEY, &val) != PMIX_SUCCESS ||
	    PMIx_Commit() != PMIX_SUCCESS ||
	    PMIx_Fence(&wild, 1, &collect, 1) != PMIX_SUCCESS ||
	    PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS) {
		fprintf(stderr,
			PROG ": rank %u: put, fence or job size "
			     "failed\n",
			me.rank);
		return 1;
	}
	size = v->data.uint32;
	PMIX_VALUE_RELEASE(v);
	for (uint32_t r = 0; r < size; r++) {
		uint32_t want;

		PMIX_LOAD_PROCID(&peer, me.nspace, r);
		if (PMIx_Get(&peer, KEY, NULL, 0, &v) != PMIX_SUCCESS) {
			fprintf(stderr, PROG ": rank %u: no %s of rank %u\n",
				me.rank, KEY, r);
			return 1;
		}
		want = v->data.uint32;
		PMIX_VALUE_RELEASE(v);
		v = NULL;
		rc = PMIx_Get(&peer, PMIX_NODEID, NULL, 0, &v);
		count(&plain, rc, v, want);
		if (v)
			PMIX_VALUE_RELEASE(v);
		v = NULL;
		rc = PMIx_Get(&peer, PMIX_NODEID, &job_info, 1, &v);
		count(&by_rank, rc, v, want);
		if (v)
			PMIX_VALUE_RELEASE(v);
	}
	printf(PROG ": rank %u: plain: %u right, %u wrong, %u missing; "
		    "by-rank: %u right, %u wrong, %u missing\n",
	       me.rank, plain.right, plain.wrong, plain.missing, by_rank.right,
	       by_rank.wrong, by_rank.missing);
	PMIx_Finalize(NULL, 0);
	return 0;
}
