/*
 * pmix_monitor - PMIx_Process_monitor as the ranks of a step see it.
 *
 * usage: pmix_monitor heartbeat RANK [--linger SECS]
 *        pmix_monitor file RANK PATH [--expect-none]
 *        pmix_monitor raise RANK
 *        pmix_monitor other
 *
 * Every rank registers one handler for PMIX_MONITOR_HEARTBEAT_ALERT and
 * PMIX_MONITOR_FILE_ALERT and prints "rank R: up" once all have. Then:
 *   heartbeat  rank RANK asks to be monitored for heartbeats (every 1 s, no
 *              drop allowed) and never sends one;
 *   file       rank RANK asks the library to watch PATH's size (checked
 *              every 1 s, 2 misses allowed);
 *   raise      rank RANK raises a heartbeat alert about itself with
 *              PMIx_Notify_event (range namespace);
 *   other      rank 0 asks for a monitor no one offers and prints
 *              "rank 0: other monitor: STATUS".
 * Every rank but RANK (a source never gets its own event) waits up to 15 s
 * for an alert, 1 s more for duplicates, and prints "rank R: N alert(s):
 * CODE from rank S" (or "rank R: 0 alert(s)"); with --linger it then stays
 * SECS seconds (a policy may end the step meanwhile). Exit 0 when each
 * rank got what it should: one alert from RANK (none with --expect-none,
 * where PATH is not the owner's to see).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_monitor"
#include "client_util.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned nalerts;
static pmix_status_t first_code;
static pmix_rank_t first_source = PMIX_RANK_UNDEF;

static void on_alert(size_t id, pmix_status_t status, const pmix_proc_t *src,
		     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		     size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id;
	(void)info;
	(void)ninfo;
	(void)results;
	(void)nresults;
	pthread_mutex_lock(&lock);
	if (!nalerts++) {
		first_code = status;
		first_source = src ? src->rank : PMIX_RANK_UNDEF;
	}
	pthread_mutex_unlock(&lock);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static pmix_status_t monitor(const pmix_info_t *what, pmix_status_t code,
			     pmix_info_t *dirs, size_t ndirs)
{
	pmix_info_t *results = NULL;
	size_t nresults = 0;
	pmix_status_t rc;

	rc = PMIx_Process_monitor(what, code, dirs, ndirs, &results, &nresults);
	if (results)
		PMIX_INFO_FREE(results, nresults);
	return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
}

static pmix_status_t watch_heartbeat(void)
{
	pmix_info_t what, dirs[2];
	uint32_t secs = 1, drops = 1;
	pmix_status_t rc;

	PMIX_INFO_LOAD(&what, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
	PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_HEARTBEAT_TIME, &secs,
		       PMIX_UINT32);
	PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_HEARTBEAT_DROPS, &drops,
		       PMIX_UINT32);
	rc = monitor(&what, PMIX_MONITOR_HEARTBEAT_ALERT, dirs, 2);
	PMIX_INFO_DESTRUCT(&dirs[0]);
	PMIX_INFO_DESTRUCT(&dirs[1]);
	return rc;
}

static pmix_status_t watch_file(const char *path)
{
	pmix_info_t what, dirs[3];
	uint32_t secs = 1, drops = 2;
	bool yes = true;
	pmix_status_t rc;

	PMIX_INFO_LOAD(&what, PMIX_MONITOR_FILE, path, PMIX_STRING);
	PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_FILE_SIZE, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_FILE_CHECK_TIME, &secs,
		       PMIX_UINT32);
	PMIX_INFO_LOAD(&dirs[2], PMIX_MONITOR_FILE_DROPS, &drops, PMIX_UINT32);
	rc = monitor(&what, PMIX_MONITOR_FILE_ALERT, dirs, 3);
	PMIX_INFO_DESTRUCT(&what);
	for (size_t i = 0; i < 3; i++)
		PMIX_INFO_DESTRUCT(&dirs[i]);
	return rc;
}

static pmix_status_t raise_alert(const pmix_proc_t *me)
{
	return PMIx_Notify_event(PMIX_MONITOR_HEARTBEAT_ALERT, me,
				 PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL);
}

static pmix_status_t other(void)
{
	pmix_info_t what;
	uint32_t v = 1;

	PMIX_INFO_LOAD(&what, "slurm.pmixev.test.monitor", &v, PMIX_UINT32);
	return monitor(&what, PMIX_MONITOR_HEARTBEAT_ALERT, NULL, 0);
}

static const char *code_name(pmix_status_t code)
{
	if (code == PMIX_MONITOR_HEARTBEAT_ALERT)
		return "PMIX_MONITOR_HEARTBEAT_ALERT";
	if (code == PMIX_MONITOR_FILE_ALERT)
		return "PMIX_MONITOR_FILE_ALERT";
	return PMIx_Error_string(code);
}

/* Wait for the alerts, print them; 0 when there is what `want` says. */
static int await_alerts(const pmix_proc_t *me, unsigned want, uint32_t from)
{
	double until = client_now() + 15;
	unsigned n;
	int ok;

	while (client_now() < until) {
		pthread_mutex_lock(&lock);
		n = nalerts;
		pthread_mutex_unlock(&lock);
		if (n)
			break;
		usleep(20000);
	}
	usleep(1000000);
	pthread_mutex_lock(&lock);
	n = nalerts;
	ok = n == want && (!n || first_source == from);
	if (n)
		printf("%s: rank %u: %u alert(s): %s from rank %u%s\n", PROG,
		       me->rank, n, code_name(first_code), first_source,
		       ok ? "" : ": FAILED");
	else
		printf("%s: rank %u: 0 alert(s)%s\n", PROG, me->rank,
		       ok ? "" : ": FAILED");
	pthread_mutex_unlock(&lock);
	return ok ? 0 : -1;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: %s heartbeat RANK [--linger SECS] | file RANK "
		"PATH [--expect-none] | raise RANK | other\n",
		PROG);
	return 2;
}

int main(int argc, char **argv)
{
	pmix_status_t codes[] = {PMIX_MONITOR_HEARTBEAT_ALERT,
				 PMIX_MONITOR_FILE_ALERT};
	pmix_status_t rc = PMIX_SUCCESS;
	const char *mode = argc > 1 ? argv[1] : "";
	long target = 0, linger = 0;
	bool none = false;
	pmix_proc_t me;
	int status = 0;

	client_watchdog(PROG, 30);
	if (!strcmp(mode, "other")) {
		if (argc != 2)
			return usage();
	} else if (argc < 3 || client_parse_long(argv[2], 0, 1 << 20, &target))
		return usage();
	if (!strcmp(mode, "heartbeat") && argc == 5 &&
	    !strcmp(argv[3], "--linger")) {
		if (client_parse_long(argv[4], 0, 3600, &linger))
			return usage();
	} else if (!strcmp(mode, "file") && (argc == 4 || argc == 5)) {
		none = argc == 5 && !strcmp(argv[4], "--expect-none");
		if (argc == 5 && !none)
			return usage();
	} else if (strcmp(mode, "other") && argc != 3)
		return usage();
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		fprintf(stderr, "%s: PMIx_Init: %s\n", PROG,
			PMIx_Error_string(rc));
		return 1;
	}
	if (client_register(codes, 2, on_alert) < 0 ||
	    client_sync(&me, 0) != PMIX_SUCCESS) {
		fprintf(stderr, "%s: rank %u: cannot set up\n", PROG, me.rank);
		status = 1;
		goto done;
	}
	printf("%s: rank %u: up\n", PROG, me.rank);
	if (!strcmp(mode, "other")) {
		if (me.rank == 0)
			printf("%s: rank 0: other monitor: %s\n", PROG,
			       PMIx_Error_string(other()));
		goto done;
	}
	if (me.rank == (pmix_rank_t)target) {
		if (!strcmp(mode, "heartbeat"))
			rc = watch_heartbeat();
		else if (!strcmp(mode, "file"))
			rc = watch_file(argv[3]);
		else
			rc = raise_alert(&me);
		printf("%s: rank %u: %s: %s\n", PROG, me.rank, mode,
		       PMIx_Error_string(rc));
		if (rc != PMIX_SUCCESS)
			status = 1;
		/* Stay while the others wait; never beat. */
		sleep(none ? 8 : 4);
	} else if (await_alerts(&me, none ? 0 : 1, (uint32_t)target) < 0)
		status = 1;
	if (linger)
		sleep((unsigned)linger);
done:
	PMIx_Finalize(NULL, 0);
	return status;
}
