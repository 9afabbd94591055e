/*
 * pmix_where - where PMIx says this process and its node peers run, next
 * to where it really runs.
 *
 * usage: pmix_where
 *
 * Each rank prints one line:
 *   "pmix_where: rank R on HOST: runs on CPUS; PMIX_CPUSET CPUS:
 * same|DIFFERENT; locality LOC; peers R1=LOC1 R2=LOC2 ..." where "runs on" is
 * its affinity (sched_getaffinity), PMIX_CPUSET its own cpuset as the server
 * registered it (both as hwloc lists, e.g. "0-1"), and the localities are
 * PMIX_LOCALITY_STRING of itself and of each rank in PMIX_LOCAL_PEERS (itself
 * included). Exits 1 on a PMIx error.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <pmix.h>

#define PROG "pmix_where"
#include "client_util.h"

/* A string key of `proc`, or NULL. */
static char *get_str(const pmix_proc_t *proc, const char *key)
{
	pmix_value_t *val = NULL;
	char *s = NULL;

	if (PMIx_Get(proc, key, NULL, 0, &val) == PMIX_SUCCESS && val &&
	    val->type == PMIX_STRING && val->data.string)
		s = strdup(val->data.string);
	if (val)
		PMIX_VALUE_RELEASE(val);
	return s;
}

/* This process's affinity, as an hwloc list. */
static char *affinity(void)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char *s = NULL;
	cpu_set_t cpus;

	if (set && sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &cpus))
				hwloc_bitmap_set(set, (unsigned)i);
	if (set && hwloc_bitmap_list_asprintf(&s, set) < 0)
		s = NULL;
	hwloc_bitmap_free(set);
	return s;
}

/* "hwloc:BITMAP" (PMIX_CPUSET) as an hwloc list. */
static char *cpuset_list(const char *pmix)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char *s = NULL;

	if (set && pmix && !strncmp(pmix, "hwloc:", 6) &&
	    hwloc_bitmap_list_sscanf(set, pmix + 6) == 0 &&
	    hwloc_bitmap_list_asprintf(&s, set) < 0)
		s = NULL;
	hwloc_bitmap_free(set);
	return s;
}

int main(void)
{
	char line[4096], *mine, *pmix_cpus, *cpus, *loc, *peers, *tok,
		*save = NULL;
	pmix_proc_t me, peer, wild;
	size_t off;
	int rc = 0;

	client_watchdog(PROG, 0);
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	mine = affinity();
	pmix_cpus = get_str(&me, PMIX_CPUSET);
	cpus = cpuset_list(pmix_cpus);
	loc = get_str(&me, PMIX_LOCALITY_STRING);
	peers = get_str(&wild, PMIX_LOCAL_PEERS);
	if (!mine || !cpus || !loc || !peers) {
		printf(PROG ": rank %u: missing: %s%s%s%s\n", me.rank,
		       mine ? "" : "affinity ", cpus ? "" : "PMIX_CPUSET ",
		       loc ? "" : "PMIX_LOCALITY_STRING ",
		       peers ? "" : "PMIX_LOCAL_PEERS");
		rc = 1;
		goto out;
	}
	off = (size_t)snprintf(line, sizeof(line),
			       "rank %u on %s: runs on %s; PMIX_CPUSET %s: %s; "
			       "locality %s; peers",
			       me.rank, client_host(), mine, cpus,
			       strcmp(mine, cpus) ? "DIFFERENT" : "same", loc);
	for (tok = strtok_r(peers, ",", &save); tok && off < sizeof(line);
	     tok = strtok_r(NULL, ",", &save)) {
		char *theirs;

		PMIX_LOAD_PROCID(&peer, me.nspace, (pmix_rank_t)atoi(tok));
		theirs = get_str(&peer, PMIX_LOCALITY_STRING);
		off += (size_t)snprintf(line + off, sizeof(line) - off,
					" %s=%s", tok, theirs ? theirs : "?");
		rc |= !theirs;
		free(theirs);
	}
	printf(PROG ": %s\n", line);
out:
	free(mine);
	free(pmix_cpus);
	free(cpus);
	free(loc);
	free(peers);
	client_sync(&me, 1);
	PMIx_Finalize(NULL, 0);
	return rc;
}
