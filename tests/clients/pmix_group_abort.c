/*
 * pmix_group_abort - a member aborts a PMIx group construct in flight by
 * notifying PMIX_GROUP_CONSTRUCT_ABORT with PMIX_GROUP_ID (RFC0033).
 *
 * usage: pmix_group_abort --abort R [--thread] [--late R:S] [--timeout S]
 *                         [--watch]
 *
 * Every rank constructs group "grp1" of every rank, with PMIX_TIMEOUT S
 * (default 10). Rank R calls PMIx_Group_construct_nb, waits half a second
 * (the others have called by then) and notifies the abort (range
 * session); with --thread it calls the blocking PMIx_Group_construct while
 * a second thread notifies. --late R:S: rank R sleeps S seconds before it
 * constructs. --watch: each rank registers for PMIX_GROUP_CONSTRUCT_ABORT
 * and, after its construct, waits up to 2 s for the event.
 *
 * Prints per rank "pmix_group_abort: rank R on HOST: construct grp1:
 * STATUS in T ms", the aborting rank "... notify abort grp1: STATUS", and
 * with --watch "... event STATUS from rank P group ID" or "... no event".
 * Exit status 0 when the construct returned PMIX_GROUP_CONSTRUCT_ABORT
 * (and the notification was accepted, and with --watch the event came).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_group_abort"
#include "client_util.h"

#define GROUP "grp1"

static pmix_proc_t me;
static volatile bool got_event, built;
static pmix_status_t built_status;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf(PROG ": rank %u on %s: %s\n", me.rank, client_host(), line);
}

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " --abort R [--thread] [--late R:S] "
			"[--timeout S] [--watch]\n");
	exit(2);
}

/* --watch: the abort event, printed. */
static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
		     pmix_info_t info[], size_t ninfo, pmix_info_t *results,
		     size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	const char *grp = "?";

	(void)id;
	(void)results;
	(void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) &&
		    info[i].value.type == PMIX_STRING)
			grp = info[i].value.data.string;
	say("event %s from rank %u group %s", PMIx_Error_string(status),
	    source->rank, grp);
	got_event = true;
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Notify the abort of GROUP half a second from now; its status. */
static void *notify_abort(void *arg)
{
	pmix_info_t info;
	pmix_status_t rc;

	(void)arg;
	usleep(500000);
	PMIX_INFO_LOAD(&info, PMIX_GROUP_ID, GROUP, PMIX_STRING);
	rc = PMIx_Notify_event(PMIX_GROUP_CONSTRUCT_ABORT, &me,
			       PMIX_RANGE_SESSION, &info, 1, NULL, NULL);
	PMIX_INFO_DESTRUCT(&info);
	say("notify abort " GROUP ": %s", PMIx_Error_string(rc));
	return (void *)(intptr_t)(rc == PMIX_SUCCESS ||
				  rc == PMIX_OPERATION_SUCCEEDED);
}

static void on_built(pmix_status_t status, pmix_info_t *info, size_t ninfo,
		     void *cbdata, pmix_release_cbfunc_t release_fn,
		     void *release_cbdata)
{
	(void)info;
	(void)ninfo;
	(void)cbdata;
	built_status = status;
	if (release_fn)
		release_fn(release_cbdata);
	built = true;
}

/* This rank's construct (the aborting one's as asked); its status, and
 * whether its notification was accepted in *sent. */
static pmix_status_t construct(const pmix_proc_t *procs, size_t n,
			       pmix_info_t *info, bool aborts, bool thread,
			       bool *sent)
{
	pmix_info_t *res = NULL;
	size_t nres = 0;
	pthread_t th;
	void *ok = NULL;
	pmix_status_t rc;

	*sent = true;
	if (aborts && !thread) {
		rc = PMIx_Group_construct_nb(GROUP, procs, n, info, 1, on_built,
					     NULL);
		*sent = notify_abort(NULL) != NULL;
		/* the answer may come before the call returns */
		while (rc == PMIX_SUCCESS && !built)
			usleep(100);
		return rc == PMIX_SUCCESS ? built_status : rc;
	}
	if (aborts && pthread_create(&th, NULL, notify_abort, NULL) != 0)
		return PMIX_ERR_NOMEM;
	rc = PMIx_Group_construct(GROUP, procs, n, info, 1, &res, &nres);
	if (res)
		PMIX_INFO_FREE(res, nres);
	if (aborts) {
		pthread_join(th, &ok);
		*sent = ok != NULL;
	}
	return rc;
}

int main(int argc, char **argv)
{
	long abort_rank = -1, late_rank = -1, late_sec = 0, timeout = 10;
	bool thread = false, watch = false, sent;
	pmix_status_t rc, codes[] = {PMIX_GROUP_CONSTRUCT_ABORT};
	pmix_proc_t *procs;
	pmix_info_t info;
	uint32_t size;
	double t0;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--abort") && v)
			abort_rank = atol(argv[++i]);
		else if (!strcmp(argv[i], "--timeout") && v)
			timeout = atol(argv[++i]);
		else if (!strcmp(argv[i], "--late") && v &&
			 sscanf(argv[++i], "%ld:%ld", &late_rank, &late_sec) ==
				 2)
			;
		else if (!strcmp(argv[i], "--thread"))
			thread = true;
		else if (!strcmp(argv[i], "--watch"))
			watch = true;
		else
			usage();
	}
	if (abort_rank < 0 || timeout <= 0)
		usage();
	client_watchdog(PROG, (unsigned)(timeout + late_sec));
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	size = client_job_size(&me);
	if (!size || !(procs = calloc(size, sizeof(*procs))))
		return 1;
	for (uint32_t r = 0; r < size; r++)
		PMIX_LOAD_PROCID(&procs[r], me.nspace, r);
	if (watch && client_register(codes, 1, on_event) < 0)
		bad++;
	if ((long)me.rank == late_rank)
		sleep((unsigned)late_sec);
	PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &(int){(int)timeout}, PMIX_INT);
	t0 = client_now();
	rc = construct(procs, size, &info, (long)me.rank == abort_rank, thread,
		       &sent);
	say("construct " GROUP ": %s in %.1f ms", PMIx_Error_string(rc),
	    (client_now() - t0) * 1e3);
	bad += rc != PMIX_GROUP_CONSTRUCT_ABORT || !sent;
	for (int i = 0; watch && !got_event && i < 200; i++)
		usleep(10000);
	if (watch && (long)me.rank != abort_rank && !got_event) {
		say("no event");
		bad++;
	}
	PMIX_INFO_DESTRUCT(&info);
	free(procs);
	rc = PMIx_Finalize(NULL, 0);
	return bad || rc != PMIX_SUCCESS;
}
