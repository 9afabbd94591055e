/*
 * pmix_jobev - the job events (Slurm scheduler events) a process gets.
 *
 * usage: pmix_jobev SECONDS
 *
 * Every rank registers one handler for pmixev's job codes (time limit,
 * suspended, resumed, requeued; preempt alert, cancelled, job end), prints
 * "pmix_jobev: rank R: ready", and then, for SECONDS, one line per event:
 *   "pmix_jobev: rank R on HOST: CODE-NAME left=S changed=C mode=M
 *    src=SOURCE at T: TEXT"
 * (left: PMIX_TIME_REMAINING or -1; T: arrival, seconds since the epoch).
 * It ignores SIGTERM, as an application that wants its grace time does,
 * and SIGTSTP, as one that wants to hear of a suspend before Slurm stops
 * it, and ends with "pmix_jobev: rank R: done".
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <pmix.h>

#include "pmixev_events.h"

#define PROG "pmix_jobev"
#include "client_util.h"

static pmix_proc_t me;

static const char *name(pmix_status_t code)
{
	switch (code) {
	case PMIXEV_EVENT_TIME_LIMIT:
		return "TIME_LIMIT";
	case PMIXEV_EVENT_JOB_SUSPENDED:
		return "SUSPENDED";
	case PMIXEV_EVENT_JOB_RESUMED:
		return "RESUMED";
	case PMIXEV_EVENT_JOB_REQUEUED:
		return "REQUEUED";
	case PMIX_JCTRL_PREEMPT_ALERT:
		return "PREEMPT_ALERT";
	case PMIX_ERR_JOB_CANCELED:
		return "CANCELED";
	case PMIX_EVENT_JOB_END:
		return "JOB_END";
	}
	return "?";
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *src,
		     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		     size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	const char *text = "", *mode = "-", *from = "?";
	long long left = -1;
	bool changed = false;
	struct timeval now;

	gettimeofday(&now, NULL);
	for (size_t i = 0; i < ninfo; i++) {
		if (PMIX_CHECK_KEY(&info[i], PMIX_TIME_REMAINING))
			left = info[i].value.data.uint32;
		else if (PMIX_CHECK_KEY(&info[i], PMIXEV_TIME_CHANGED))
			changed = info[i].value.data.flag;
		else if (PMIX_CHECK_KEY(&info[i], PMIXEV_PREEMPT_MODE))
			mode = info[i].value.data.string;
		else if (PMIX_CHECK_KEY(&info[i], PMIXEV_EVENT_SOURCE))
			from = info[i].value.data.string;
		else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_TEXT_MESSAGE))
			text = info[i].value.data.string;
	}
	printf(PROG ": rank %u on %s: %s left=%lld changed=%d mode=%s src=%s "
		    "at %ld.%03ld: %s\n",
	       me.rank, client_host(), name(status), left, changed, mode, from,
	       (long)now.tv_sec, (long)now.tv_usec / 1000, text);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

int main(int argc, char **argv)
{
	pmix_status_t codes[] = {
		PMIXEV_EVENT_TIME_LIMIT,  PMIXEV_EVENT_JOB_SUSPENDED,
		PMIXEV_EVENT_JOB_RESUMED, PMIXEV_EVENT_JOB_REQUEUED,
		PMIX_JCTRL_PREEMPT_ALERT, PMIX_ERR_JOB_CANCELED,
		PMIX_EVENT_JOB_END};
	long secs;

	if (argc != 2 || client_parse_long(argv[1], 1, 3600, &secs)) {
		fprintf(stderr, "usage: " PROG " SECONDS\n");
		return 2;
	}
	signal(SIGTERM, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	client_watchdog(PROG, (unsigned)secs);
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	if (client_register(codes, sizeof(codes) / sizeof(codes[0]), on_event) <
	    0) {
		printf(PROG ": rank %u: setup failed\n", me.rank);
		return 1;
	}
	printf(PROG ": rank %u: ready\n", me.rank);
	for (long t = 0; t < secs * 10; t++)
		usleep(100000);
	printf(PROG ": rank %u: done\n", me.rank);
	PMIx_Finalize(NULL, 0);
	return 0;
}
