/*
 * pmix_cache - the event cache seen from a process: late registrants get
 * the newest events the cache still holds, and the loss counts are there
 * to query.
 *
 * usage: pmix_cache CODE HOST FLAGFILE
 *
 * Even ranks register a handler for CODE at once; odd ranks only after
 * FLAGFILE appears (the test creates it once it sent its site events about
 * HOST). Events are told apart by pmixev's source and sequence (OpenPMIx
 * 4.2 repeats cached events to registered processes). Two seconds after
 * the flag each rank queries "slurm.pmixev.events" and prints
 *   "pmix_cache: rank R on NODE: early|late: got G seq LIST;
 *    site@HOST cached C evicted E undelivered U"
 * with the distinct events from site@HOST it got (LIST: sequence numbers
 * as ranges, e.g. "1-4,7", or "none") and its node's counts
 * for that source (-1 when the query had none).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_cache"
#include "client_util.h"

#define MAXSEQ 4096

static char want_source[128];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool seen[MAXSEQ + 1];

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *src,
		     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		     size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	const char *from = "";
	uint64_t seq = 0;

	for (size_t i = 0; i < ninfo; i++) {
		if (PMIX_CHECK_KEY(&info[i], "slurm.pmixev.evsrc"))
			from = info[i].value.data.string;
		if (PMIX_CHECK_KEY(&info[i], "slurm.pmixev.evseq"))
			seq = info[i].value.data.uint64;
	}
	pthread_mutex_lock(&lock);
	if (!strcmp(from, want_source) && seq >= 1 && seq <= MAXSEQ)
		seen[seq] = true;
	pthread_mutex_unlock(&lock);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* One counter of a source's entry in the query answer. */
static long long counter(const pmix_info_t *entry, const char *name)
{
	const pmix_data_array_t *da = entry->value.data.darray;
	const pmix_info_t *v = da ? da->array : NULL;

	if (entry->value.type != PMIX_DATA_ARRAY || !da ||
	    da->type != PMIX_INFO)
		return -1;
	for (size_t i = 0; i < da->size; i++)
		if (PMIX_CHECK_KEY(&v[i], name) &&
		    v[i].value.type == PMIX_UINT64)
			return (long long)v[i].value.data.uint64;
	return -1;
}

/* The node's counts for want_source: cached, evicted, undelivered. */
static void query_counts(long long out[3])
{
	pmix_query_t *q;
	pmix_info_t *res = NULL;
	size_t nres = 0;
	pmix_status_t rc;

	out[0] = out[1] = out[2] = -1;
	PMIX_QUERY_CREATE(q, 1);
	PMIX_ARGV_APPEND(rc, q[0].keys, "slurm.pmixev.events");
	rc = PMIx_Query_info(q, 1, &res, &nres);
	PMIX_QUERY_FREE(q, 1);
	if (rc != PMIX_SUCCESS) {
		fprintf(stderr, PROG ": query: %s\n", PMIx_Error_string(rc));
		return;
	}
	for (size_t i = 0; i < nres; i++) {
		const pmix_data_array_t *da = res[i].value.data.darray;
		const pmix_info_t *src;

		if (!PMIX_CHECK_KEY(&res[i], "slurm.pmixev.events") ||
		    res[i].value.type != PMIX_DATA_ARRAY || !da ||
		    da->type != PMIX_INFO)
			continue;
		src = da->array;
		for (size_t j = 0; j < da->size; j++) {
			if (!PMIX_CHECK_KEY(&src[j], want_source))
				continue;
			out[0] = counter(&src[j], "cached");
			out[1] = counter(&src[j], "evicted");
			out[2] = counter(&src[j], "undelivered");
		}
	}
	PMIX_INFO_FREE(res, nres);
}

int main(int argc, char **argv)
{
	unsigned got = 0, last;
	char seqs[256] = "";
	size_t len = 0;
	long long counts[3];
	pmix_status_t code;
	pmix_proc_t me;
	bool early;
	long v;

	if (argc != 4 ||
	    client_parse_long(argv[1], -2147483647L, 2147483647L, &v)) {
		fprintf(stderr, "usage: " PROG " CODE HOST FLAGFILE\n");
		return 2;
	}
	code = (pmix_status_t)v;
	snprintf(want_source, sizeof(want_source), "site@%s", argv[2]);
	client_watchdog(PROG, 0);
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	early = me.rank % 2 == 0;
	if ((early && client_register(&code, 1, on_event) < 0) ||
	    client_sync(&me, 1) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: setup failed\n", me.rank);
		return 1;
	}
	printf(PROG ": rank %u: ready\n", me.rank);
	while (access(argv[3], F_OK) != 0)
		usleep(10000);
	if (!early && client_register(&code, 1, on_event) < 0)
		return 1;
	sleep(2);
	pthread_mutex_lock(&lock);
	for (unsigned s = 1; s <= MAXSEQ; s++) {
		if (!seen[s] || (got++, s > 1 && seen[s - 1]))
			continue;
		for (last = s; last < MAXSEQ && seen[last + 1]; last++)
			;
		if (len < sizeof(seqs))
			len += (size_t)snprintf(seqs + len, sizeof(seqs) - len,
						"%s%u%s%.0u", len ? "," : "", s,
						last > s ? "-" : "",
						last > s ? last : 0);
	}
	pthread_mutex_unlock(&lock);
	query_counts(counts);
	printf(PROG ": rank %u on %s: %s: got %u seq %s; %s cached %lld "
		    "evicted %lld undelivered %lld\n",
	       me.rank, client_host(), early ? "early" : "late", got,
	       seqs[0] ? seqs : "none", want_source, counts[0], counts[1],
	       counts[2]);
	client_sync(&me, 2);
	PMIx_Finalize(NULL, 0);
	return 0;
}
