/*
 * time_left - how long may I still run? Ask Slurm, and be warned in time.
 *
 *   srun --mpi=pmixev -N2 -n4 -t 30 --pmixev-time-warning=300 \
 *       ./time_left 300
 *
 * The argument is how long the program needs to wrap up (seconds; pmixev
 * is asked to warn that long before the end). Each rank asks for
 * PMIX_TIME_REMAINING (PMIx_Query_info: pmixev asks slurmctld, as the
 * job's user, once for all ranks) and then works until the time-limit
 * warning: with --pmixev-time-warning=S, pmixev sends every rank the event
 * PMIXEV_EVENT_TIME_LIMIT once the job's end is S seconds away (it looks
 * every --pmixev-watch-interval seconds, 5 by default). An operator who
 * moves the limit (scontrol update jobid=J timelimit=...) sends the same
 * event with PMIXEV_TIME_CHANGED true and the new time left; the warning
 * follows when the new end comes near, or not at all when it is that near
 * already. At the warning the rank wraps up and exits 0, before Slurm's
 * kill at the time limit.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <pmix.h>
#include <pmixev_events.h> /* PMIXEV_EVENT_TIME_LIMIT, PMIXEV_TIME_CHANGED */

enum { MOVED = 1, WRAP_UP = 2 };
static atomic_int news; /* MOVED | WRAP_UP, since the main loop looked */
static atomic_uint seconds_left; /* from the last event */
static unsigned wrap_up_secs;	 /* the argument */

/* Runs in PMIx's progress thread: note what happened, return at once. */
static void on_time_limit(size_t id, pmix_status_t code,
			  const pmix_proc_t *source, pmix_info_t info[],
			  size_t ninfo, pmix_info_t results[], size_t nresults,
			  pmix_event_notification_cbfunc_fn_t done,
			  void *cbdata)
{
	unsigned left = UINT32_MAX;
	bool changed = false;

	for (size_t i = 0; i < ninfo; i++) {
		if (PMIX_CHECK_KEY(&info[i], PMIX_TIME_REMAINING))
			left = info[i].value.data.uint32;
		else if (PMIX_CHECK_KEY(&info[i], PMIXEV_TIME_CHANGED))
			changed = info[i].value.data.flag;
	}
	atomic_store(&seconds_left, left);
	/* A limit moved to within the lead time brings no warning after it:
	 * it is the warning. */
	if (!changed || left <= wrap_up_secs)
		atomic_fetch_or(&news, WRAP_UP);
	if (changed)
		atomic_fetch_or(&news, MOVED);
	if (done)
		done(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Seconds to the job's end: UINT32_MAX without a limit, -1 if unknown. */
static long long ask_time_left(void)
{
	pmix_query_t *query;
	pmix_info_t *answer = NULL;
	size_t nanswer = 0;
	long long left = -1;
	bool refresh = true;
	pmix_status_t rc;

	PMIX_QUERY_CREATE(query, 1);
	PMIX_ARGV_APPEND(rc, query->keys, PMIX_TIME_REMAINING);
	/* Ask the host (pmixev, so Slurm) rather than the library's cache. */
	PMIX_QUERY_QUALIFIERS_CREATE(query, 1);
	PMIX_INFO_LOAD(&query->qualifiers[0], PMIX_QUERY_REFRESH_CACHE,
		       &refresh, PMIX_BOOL);
	rc = PMIx_Query_info(query, 1, &answer, &nanswer);
	if (rc == PMIX_SUCCESS && nanswer == 1 &&
	    answer[0].value.type == PMIX_UINT32)
		left = answer[0].value.data.uint32;
	PMIX_INFO_FREE(answer, nanswer);
	PMIX_QUERY_FREE(query, 1);
	return left;
}

int main(int argc, char **argv)
{
	pmix_status_t code = PMIXEV_EVENT_TIME_LIMIT;
	long long left;
	pmix_proc_t me;
	int seen = 0;

	if (argc != 2 || (wrap_up_secs = (unsigned)atoi(argv[1])) == 0) {
		fprintf(stderr, "usage: time_left WRAP-UP-SECONDS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0); /* lines show as they come */
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	if (PMIx_Register_event_handler(&code, 1, NULL, 0, on_time_limit, NULL,
					NULL) < 0) {
		fprintf(stderr, "rank %u: cannot register for the warning\n",
			me.rank);
		PMIx_Finalize(NULL, 0);
		return 1;
	}
	left = ask_time_left();
	if (left == UINT32_MAX)
		printf("rank %u: the job has no time limit\n", me.rank);
	else if (left >= 0)
		printf("rank %u: %lld s left\n", me.rank, left);
	else
		printf("rank %u: Slurm did not say how long is left\n",
		       me.rank);

	while (!(seen & WRAP_UP)) {
		usleep(100000); /* one step of real work */
		seen = atomic_exchange(&news, 0);
		if (seen & MOVED)
			printf("rank %u: the time limit moved: %u s left\n",
			       me.rank, atomic_load(&seconds_left));
	}
	printf("rank %u: %u s left: wrapping up\n", me.rank,
	       atomic_load(&seconds_left));
	PMIx_Finalize(NULL, 0);
	return 0;
}
