/*
 * pmix_events - what the survivors of a task's end learn through PMIx.
 *
 * usage: pmix_events VICTIM kill|exit3|nofinalize|ok|nodedown
 *
 * Every rank registers one handler for the task-end codes pmixev sends
 * (-402, -200, -404, -8, -201), then all synchronise. Rank VICTIM then ends:
 *   kill        raise(SIGKILL)                  expect -402, exit code 9
 *   exit3       PMIx_Finalize, exit(3)          expect -404, exit code 3
 *   nofinalize  exit(0) without PMIx_Finalize   expect -200, exit code 0
 *   ok          PMIx_Finalize, exit(0)          expect -201, exit code 0
 *   nodedown    waits to be killed with its node: expect -231 (node down)
 *               naming the victim among PMIX_EVENT_AFFECTED_PROCS, and
 *               one -200 (lost without finalize) naming it as
 *               PMIX_EVENT_AFFECTED_PROC, as fault-tolerant MPI needs
 * Each survivor waits up to 10 s for events naming the victim, then 1 s
 * (PMIX_EVENTS_SETTLE_MS) more for duplicates, checks there is exactly one with
 * the right code, affected proc, exit code and hostname, and then fences with
 * the other survivors (the overlay still works). It prints "pmix_events: rank R
 * of N on HOST: got CODE for rank V ... at T: ok" (T: when the event arrived,
 * seconds since the epoch) or FAILED with the reason; exit status 0 only when
 * all checks passed.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_events"
#include "client_util.h"

static pmix_proc_t me;
static uint32_t victim;
static bool nodedown; /* the victim is lost with its node */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned nevents;     /* events naming the victim */
static pmix_status_t code;   /* of the first one */
static int exit_code = -1;   /* its PMIX_EXIT_CODE */
static char host[256];	     /* its PMIX_HOSTNAME */
static double first_at;	     /* client_now() when it arrived */
static double first_epoch;   /* the same, seconds since the epoch */
static unsigned other_procs; /* PMIX_PROC infos besides the affected proc */
static unsigned nlost;	     /* nodedown: -200 events naming the victim */

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *src,
		     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		     size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	bool about_victim = false;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < ninfo; i++) {
		if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
		    info[i].value.data.proc->rank == victim)
			about_victim = true;
		if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROCS) &&
		    info[i].value.type == PMIX_DATA_ARRAY) {
			pmix_data_array_t *da = info[i].value.data.darray;
			pmix_proc_t *p = da->array;

			for (size_t j = 0; j < da->size; j++)
				if (p[j].rank == victim)
					about_victim = true;
		}
	}
	if (about_victim && nodedown && status == PMIX_ERR_PROC_TERM_WO_SYNC)
		nlost++;
	else if (about_victim && nevents++ == 0) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		code = status;
		first_at = client_now();
		first_epoch = (double)ts.tv_sec + ts.tv_nsec / 1e9;
		for (size_t i = 0; i < ninfo; i++) {
			if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE))
				exit_code = info[i].value.data.integer;
			else if (PMIX_CHECK_KEY(&info[i], PMIX_HOSTNAME))
				snprintf(host, sizeof(host), "%s",
					 info[i].value.data.string);
			else if (info[i].value.type == PMIX_PROC &&
				 !PMIX_CHECK_KEY(&info[i],
						 PMIX_EVENT_AFFECTED_PROC))
				other_procs++;
		}
	}
	pthread_mutex_unlock(&lock);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Ends the victim as MODE says; returns only for an unknown mode. */
static void end_victim(const char *mode)
{
	if (!strcmp(mode, "kill"))
		raise(SIGKILL);
	if (!strcmp(mode, "nofinalize"))
		_exit(0);
	if (!strcmp(mode, "nodedown"))
		for (;;)
			pause();
	PMIx_Finalize(NULL, 0);
	if (!strcmp(mode, "exit3"))
		exit(3);
	exit(0);
}

static int expected(const char *mode, pmix_status_t *c, int *ec)
{
	static const struct {
		const char *mode;
		pmix_status_t code;
		int exit_code;
	} table[] = {{"kill", PMIX_ERR_PROC_ABORTED_BY_SIG, SIGKILL},
		     {"exit3", PMIX_ERR_EXIT_NONZERO_TERM, 3},
		     {"nofinalize", PMIX_ERR_PROC_TERM_WO_SYNC, 0},
		     {"ok", PMIX_EVENT_PROC_TERMINATED, 0},
		     {"nodedown", PMIX_EVENT_NODE_DOWN, -1}};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(mode, table[i].mode)) {
			*c = table[i].code;
			*ec = table[i].exit_code;
			return 0;
		}
	return -1;
}

/* Fence among the survivors (all ranks but the victim). */
static pmix_status_t survivors_fence(uint32_t size)
{
	pmix_proc_t *procs = calloc(size, sizeof(*procs));
	size_t n = 0;
	pmix_status_t rc;

	for (uint32_t r = 0; procs && r < size; r++) {
		if (r == victim)
			continue;
		/* PMIX_LOAD_PROCID evaluates its arguments more than once. */
		PMIX_LOAD_PROCID(&procs[n], me.nspace, r);
		n++;
	}
	rc = procs ? PMIx_Fence(procs, n, NULL, 0) : PMIX_ERR_NOMEM;
	free(procs);
	return rc;
}

int main(int argc, char **argv)
{
	size_t ncodes;
	pmix_status_t codes[] = {
		PMIX_ERR_PROC_ABORTED_BY_SIG, PMIX_ERR_PROC_TERM_WO_SYNC,
		PMIX_ERR_EXIT_NONZERO_TERM,   PMIX_ERR_PROC_REQUESTED_ABORT,
		PMIX_EVENT_PROC_TERMINATED,   PMIX_EVENT_NODE_DOWN};
	pmix_status_t want_code, rc;
	int want_exit;
	char why[256] = "";
	uint32_t size;
	long v;
	double t0;

	if (argc != 3 || client_parse_long(argv[1], 0, 1L << 30, &v) ||
	    expected(argv[2], &want_code, &want_exit)) {
		fprintf(stderr,
			"usage: " PROG " VICTIM kill|exit3|nofinalize|ok\n");
		return 2;
	}
	victim = (uint32_t)v;
	nodedown = !strcmp(argv[2], "nodedown");
	client_watchdog(PROG, 0);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	size = client_job_size(&me);
	ncodes = sizeof(codes) / sizeof(codes[0]);
	if (client_register(codes, ncodes, on_event) < 0 ||
	    (rc = client_sync(&me, 1)) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: setup failed\n", me.rank);
		return 1;
	}
	if (me.rank == victim)
		end_victim(argv[2]);

	t0 = client_now();
	while (client_now() - t0 < (want_exit < 0 ? 30 : 10) &&
	       !(nevents && (!nodedown || nlost)))
		usleep(1000);
	/* Time for duplicates to show up (bench/events.sh shortens it). */
	usleep((useconds_t)(getenv("PMIX_EVENTS_SETTLE_MS")
				    ? atol(getenv("PMIX_EVENTS_SETTLE_MS"))
				    : 1000) *
	       1000);
	pthread_mutex_lock(&lock);
	if (nevents != 1)
		snprintf(why, sizeof(why), "%u events about rank %u", nevents,
			 victim);
	else if (code != want_code)
		snprintf(why, sizeof(why), "code %s, expected %s",
			 PMIx_Error_string(code), PMIx_Error_string(want_code));
	else if (exit_code != want_exit)
		snprintf(why, sizeof(why), "exit code %d, expected %d",
			 exit_code, want_exit);
	else if (!host[0])
		snprintf(why, sizeof(why), "no PMIX_HOSTNAME");
	else if (other_procs)
		snprintf(why, sizeof(why), "%u extra PMIX_PROC infos",
			 other_procs);
	else if (nodedown && nlost != 1)
		snprintf(why, sizeof(why),
			 "%u process-failure events about rank %u, expected 1",
			 nlost, victim);
	pthread_mutex_unlock(&lock);
	if (!why[0] && (rc = survivors_fence(size)) != PMIX_SUCCESS)
		snprintf(why, sizeof(why), "survivors' fence: %s",
			 PMIx_Error_string(rc));
	if (why[0])
		printf(PROG ": rank %u of %u on %s: FAILED: %s\n", me.rank,
		       size, client_host(), why);
	else
		printf(PROG ": rank %u of %u on %s: got %s for rank %u (exit "
			    "%d, host %s) after %.0f ms at %.3f: ok\n",
		       me.rank, size, client_host(), PMIx_Error_string(code),
		       victim, exit_code, host, (first_at - t0) * 1e3,
		       first_epoch);
	PMIx_Finalize(NULL, 0);
	return why[0] ? 1 : 0;
}
