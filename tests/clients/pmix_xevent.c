/*
 * pmix_xevent - clients' events across the steps of a spawn family
 * (doc/spawn.md §5.4).
 *
 * usage: pmix_xevent [--host LIST]
 *
 * Parent (every rank): registers for CODE_UP and CODE_NS, fences, and
 * rank 0 spawns two processes of itself (on LIST, PMIX_HOST, if given).
 * Each parent rank waits up to 5 s for CODE_UP and prints "pmix_xevent:
 * parent rank R got up from NSPACE rank K", or "... no up"; rank 0 then
 * notifies CODE_DOWN (range SESSION). Each parent rank then waits 1 s
 * more and prints "pmix_xevent: parent rank R got N namespace-range
 * events". Rank 0 spawned with PMIX_NOTIFY_COMPLETION: it waits up to 10
 * s for PMIX_EVENT_JOB_END and prints "pmix_xevent: parent rank 0 got job
 * end of NSPACE (affected NSPACE rank K) status S" or "... no job end".
 *
 * Child (PMIX_SPAWNED, every rank): registers for CODE_DOWN, fences in
 * its namespace; rank 0 notifies CODE_NS (range NAMESPACE: its own step
 * only) and then CODE_UP (range SESSION: the family). Each child waits
 * up to 5 s for CODE_DOWN: "pmix_xevent: child rank R got down from
 * NSPACE rank K parent=0|1" (parent=1: NSPACE is PMIX_PARENT_ID's) or
 * "... no down". Every process fences in its namespace and finalizes;
 * exit status 0 unless PMIx failed.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "client_util.h"

#define PROG	  "pmix_xevent"
#define CODE_UP	  (PMIX_EXTERNAL_ERR_BASE - 61)
#define CODE_DOWN (PMIX_EXTERNAL_ERR_BASE - 62)
#define CODE_NS	  (PMIX_EXTERNAL_ERR_BASE - 63)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static unsigned got_main, got_ns;
static pmix_proc_t from;
static bool got_end;
static pmix_proc_t end_of;
static pmix_status_t end_status = PMIX_ERR_NOT_FOUND;

static void on_end(size_t id, pmix_status_t status, const pmix_proc_t *src,
		   pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		   size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
		   void *cbdata)
{
	(void)id;
	(void)status;
	(void)src;
	(void)results;
	(void)nresults;
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS))
			end_status = info[i].value.data.status;
		else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC))
			end_of = *info[i].value.data.proc;
	got_end = true;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Rank 0: wait up to 10 s for the children's end. */
static void wait_end(const char *ns)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&mu);
	while (!got_end && pthread_cond_timedwait(&cv, &mu, &until) == 0)
		;
	if (got_end)
		printf(PROG ": parent rank 0 got job end of %s (affected %s "
			    "rank %d) status %s\n",
		       ns, end_of.nspace,
		       end_of.rank == PMIX_RANK_WILDCARD ? -1
							 : (int)end_of.rank,
		       PMIx_Error_string(end_status));
	else
		printf(PROG ": parent rank 0: no job end\n");
	pthread_mutex_unlock(&mu);
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *src,
		     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		     size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id;
	(void)info;
	(void)ninfo;
	(void)results;
	(void)nresults;
	pthread_mutex_lock(&mu);
	if (status == CODE_NS) {
		got_ns++;
	} else {
		got_main++;
		if (src)
			from = *src;
	}
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Wait up to `secs` for the main event; true when it came. */
static bool wait_main(int secs)
{
	struct timespec until;
	bool got;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += secs;
	pthread_mutex_lock(&mu);
	while (!got_main && pthread_cond_timedwait(&cv, &mu, &until) == 0)
		;
	got = got_main > 0;
	pthread_mutex_unlock(&mu);
	return got;
}

static pmix_status_t notify(pmix_status_t code, pmix_data_range_t range)
{
	return PMIx_Notify_event(code, NULL, range, NULL, 0, NULL, NULL);
}

static void parent(const pmix_proc_t *me, const char *self, const char *host)
{
	pmix_status_t codes[] = {CODE_UP, CODE_NS}, end = PMIX_EVENT_JOB_END;
	pmix_status_t rc;
	pmix_app_t *app = NULL;
	pmix_proc_t wild;
	pmix_info_t job[2];
	pmix_nspace_t ns = "";
	bool yes = true;

	PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
	if (client_register(codes, 2, on_event) < 0 ||
	    client_register(&end, 1, on_end) < 0 ||
	    PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS) {
		printf(PROG ": parent rank %u: cannot register\n", me->rank);
		return;
	}
	if (me->rank == 0) {
		PMIX_APP_CREATE(app, 1);
		app->cmd = strdup(self);
		PMIX_ARGV_APPEND(rc, app->argv, self);
		app->maxprocs = 2;
		PMIX_INFO_LOAD(&job[0], PMIX_NOTIFY_COMPLETION, &yes,
			       PMIX_BOOL);
		if (host)
			PMIX_INFO_LOAD(&job[1], PMIX_HOST, host, PMIX_STRING);
		rc = PMIx_Spawn(job, host ? 2 : 1, app, 1, ns);
		if (rc != PMIX_SUCCESS)
			printf(PROG ": parent spawn failed: %s\n",
			       PMIx_Error_string(rc));
		PMIX_INFO_DESTRUCT(&job[0]);
		if (host)
			PMIX_INFO_DESTRUCT(&job[1]);
		PMIX_APP_FREE(app, 1);
	}
	if (wait_main(5))
		printf(PROG ": parent rank %u got up from %s rank %u\n",
		       me->rank, from.nspace, from.rank);
	else
		printf(PROG ": parent rank %u: no up\n", me->rank);
	if (me->rank == 0 &&
	    (rc = notify(CODE_DOWN, PMIX_RANGE_SESSION)) != PMIX_SUCCESS)
		printf(PROG ": parent notify: %s\n", PMIx_Error_string(rc));
	sleep(1);
	pthread_mutex_lock(&mu);
	printf(PROG ": parent rank %u got %u namespace-range events\n",
	       me->rank, got_ns);
	pthread_mutex_unlock(&mu);
	if (me->rank == 0)
		wait_end(ns);
}

static void child(const pmix_proc_t *me)
{
	pmix_status_t code = CODE_DOWN, rc;
	char par[PMIX_MAX_NSLEN + 1] = "";
	pmix_proc_t wild;

	PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
	client_parent_ns(me, par);
	if (client_register(&code, 1, on_event) < 0 ||
	    PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS) {
		printf(PROG ": child rank %u: cannot register\n", me->rank);
		return;
	}
	if (me->rank == 0 &&
	    ((rc = notify(CODE_NS, PMIX_RANGE_NAMESPACE)) != PMIX_SUCCESS ||
	     (rc = notify(CODE_UP, PMIX_RANGE_SESSION)) != PMIX_SUCCESS))
		printf(PROG ": child notify: %s\n", PMIx_Error_string(rc));
	if (wait_main(5))
		printf(PROG ": child rank %u got down from %s rank %u "
			    "parent=%d\n",
		       me->rank, from.nspace, from.rank,
		       strcmp(from.nspace, par) == 0);
	else
		printf(PROG ": child rank %u: no down\n", me->rank);
}

int main(int argc, char **argv)
{
	const char *host;
	pmix_proc_t me, wild;
	pmix_status_t rc;
	int st;

	if ((st = client_family_init(PROG, argc, argv, 30, &me, &host)))
		return st;
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (client_spawned(&me))
		child(&me);
	else
		parent(&me, argv[0], host);
	PMIx_Fence(&wild, 1, NULL, 0);
	rc = PMIx_Finalize(NULL, 0);
	return rc == PMIX_SUCCESS ? 0 : 1;
}
