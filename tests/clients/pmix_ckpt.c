/*
 * pmix_ckpt - PMIX_JOB_CTRL_CHECKPOINT from a rank, and ranks that
 * checkpoint when asked.
 *
 * usage: pmix_ckpt [--by R] [--nspace NS] [--rank R] [--signal N]
 *                  [--timeout S] [--silent R] [--cancel-after S]
 *                  [--cancel-by R] [--method] ID
 *
 * Every rank registers a handler for PMIX_JCTRL_CHECKPOINT and catches
 * SIGUSR2; when asked (by the event, whose PMIX_JOB_CTRL_CHECKPOINT names
 * the id, or by the signal) it prints "pmix_ckpt: rank R: checkpoint ID by
 * event|signal", takes 0.5 s "to write", and tells the host it is done
 * (PMIX_JCTRL_CHECKPOINT_COMPLETE, range PMIX_RANGE_RM, with the id) -
 * unless it is rank --silent. After a fence ("pmix_ckpt: rank R: up"),
 * rank --by (default 0) asks for checkpoint ID of rank --rank (default all
 * ranks) of namespace --nspace (default its own), by event or --signal N, with
 * PMIX_JOB_CTRL_ID "req-ID" and PMIX_TIMEOUT --timeout, and prints "pmix_ckpt:
 * rank R: checkpoint: STATUS (T s)" and the answer's reason, if any;
 * --method puts the event or signal into a PMIX_JOB_CTRL_CHECKPOINT_METHOD
 * array. With --cancel-after S it asks without waiting, cancels "req-ID" S
 * seconds later ("pmix_ckpt: rank R: cancel: STATUS") and then prints the
 * checkpoint's answer; --cancel-by R has rank R (on another node, say)
 * cancel instead. All ranks then fence again and print "pmix_ckpt: rank R:
 * done".
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_ckpt"
#include "client_util.h"

static pmix_proc_t me;
static const char *ckpt_id;
static volatile sig_atomic_t by_signal;
static volatile int by_event;
static pmix_rank_t silent = PMIX_RANK_UNDEF;
static const char *nspace;
static bool method;

static void on_usr2(int sig)
{
	(void)sig;
	by_signal = 1;
}

static void on_ckpt(size_t id, pmix_status_t status, const pmix_proc_t *src,
		    pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		    size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
		    void *cbdata)
{
	(void)id;
	(void)status;
	(void)src;
	(void)results;
	(void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_CTRL_CHECKPOINT) &&
		    info[i].value.type == PMIX_STRING &&
		    !strcmp(info[i].value.data.string, ckpt_id))
			by_event = 1;
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Checkpoint when asked, once, and say so to the host. */
static void *writer(void *arg)
{
	pmix_info_t info;
	pmix_status_t rc;

	(void)arg;
	while (!by_signal && !by_event)
		usleep(10000);
	printf(PROG ": rank %u: checkpoint %s by %s\n", me.rank, ckpt_id,
	       by_event ? "event" : "signal");
	usleep(500000);
	if (me.rank == silent)
		return NULL;
	PMIX_INFO_LOAD(&info, PMIX_JOB_CTRL_CHECKPOINT, ckpt_id, PMIX_STRING);
	rc = PMIx_Notify_event(PMIX_JCTRL_CHECKPOINT_COMPLETE, &me,
			       PMIX_RANGE_RM, &info, 1, NULL, NULL);
	printf(PROG ": rank %u: checkpoint %s written: %s\n", me.rank, ckpt_id,
	       PMIx_Error_string(rc));
	return NULL;
}

static volatile int answered;
static pmix_status_t answer;

static void on_answer(pmix_status_t status, pmix_info_t *info, size_t ninfo,
		      void *cbdata, pmix_release_cbfunc_t release,
		      void *release_cbdata)
{
	(void)cbdata;
	for (size_t i = 0; i < ninfo; i++)
		if (info[i].value.type == PMIX_STRING)
			printf(PROG ": rank %u: reason: %s\n", me.rank,
			       info[i].value.data.string);
	answer = status;
	answered = 1;
	if (release)
		release(release_cbdata);
}

/* Cancel request "req-ID" after `secs` seconds. */
static void cancel_after(int secs)
{
	char req[128];
	pmix_info_t cancel, *res = NULL;
	size_t nres = 0;
	pmix_status_t rc;

	snprintf(req, sizeof(req), "req-%s", ckpt_id);
	sleep((unsigned)secs);
	PMIX_INFO_LOAD(&cancel, PMIX_JOB_CTRL_CANCEL, req, PMIX_STRING);
	rc = PMIx_Job_control(NULL, 0, &cancel, 1, &res, &nres);
	printf(PROG ": rank %u: cancel: %s\n", me.rank, PMIx_Error_string(rc));
	PMIX_INFO_FREE(res, nres);
}

/* The event or the signal, into `dirs` (or an array there). */
static size_t load_method(pmix_info_t *dirs, int *signo, pmix_info_t *arr)
{
	pmix_data_array_t da = {.type = PMIX_INFO, .size = 1, .array = arr};
	bool yes = true;

	if (*signo)
		PMIX_INFO_LOAD(method ? arr : dirs,
			       PMIX_JOB_CTRL_CHECKPOINT_SIGNAL, signo,
			       PMIX_INT);
	else
		PMIX_INFO_LOAD(method ? arr : dirs,
			       PMIX_JOB_CTRL_CHECKPOINT_EVENT, &yes, PMIX_BOOL);
	if (method)
		PMIX_INFO_LOAD(dirs, PMIX_JOB_CTRL_CHECKPOINT_METHOD, &da,
			       PMIX_DATA_ARRAY);
	return 1;
}

static pmix_status_t ask(pmix_rank_t rank, int signo, int timeout,
			 int cancel_secs)
{
	char req[128];
	pmix_info_t dirs[4], arr;
	pmix_proc_t target;
	size_t n = 0;
	pmix_status_t rc;

	snprintf(req, sizeof(req), "req-%s", ckpt_id);
	PMIX_INFO_LOAD(&dirs[n++], PMIX_JOB_CTRL_CHECKPOINT, ckpt_id,
		       PMIX_STRING);
	n += load_method(&dirs[n], &signo, &arr);
	PMIX_INFO_LOAD(&dirs[n++], PMIX_JOB_CTRL_ID, req, PMIX_STRING);
	if (timeout)
		PMIX_INFO_LOAD(&dirs[n++], PMIX_TIMEOUT, &timeout, PMIX_INT);
	PMIX_LOAD_PROCID(&target, nspace ? nspace : me.nspace, rank);
	rc = PMIx_Job_control_nb(&target, 1, dirs, n, on_answer, NULL);
	if (rc != PMIX_SUCCESS)
		return rc;
	if (cancel_secs)
		cancel_after(cancel_secs);
	while (!answered)
		usleep(10000);
	return answer;
}

int main(int argc, char **argv)
{
	pmix_status_t code = PMIX_JCTRL_CHECKPOINT, rc;
	pmix_rank_t by = 0, rank = PMIX_RANK_WILDCARD,
		    cancel_by = PMIX_RANK_UNDEF;
	int i = 1, signo = 0, timeout = 0, cancel_secs = 0;
	pthread_t tid;
	double t0;

	for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i++) {
		const char *v = argv[i + 1];

		if (!strcmp(argv[i], "--method")) {
			method = true;
			continue;
		}
		if (!strcmp(argv[i], "--cancel-by"))
			cancel_by = (pmix_rank_t)atoi(v);
		else if (!strcmp(argv[i], "--by"))
			by = (pmix_rank_t)atoi(v);
		else if (!strcmp(argv[i], "--nspace"))
			nspace = v;
		else if (!strcmp(argv[i], "--rank"))
			rank = (pmix_rank_t)atoi(v);
		else if (!strcmp(argv[i], "--signal"))
			signo = atoi(v);
		else if (!strcmp(argv[i], "--timeout"))
			timeout = atoi(v);
		else if (!strcmp(argv[i], "--silent"))
			silent = (pmix_rank_t)atoi(v);
		else if (!strcmp(argv[i], "--cancel-after"))
			cancel_secs = atoi(v);
		else
			break;
		i++; /* the value */
	}
	if (i + 1 != argc) {
		fprintf(stderr, "usage: " PROG " [--by R] [--nspace NS] "
				"[--rank R] [--signal N] [--timeout S] "
				"[--silent R] [--cancel-after S] "
				"[--cancel-by R] [--method] ID\n");
		return 2;
	}
	ckpt_id = argv[i];
	client_watchdog(PROG, (unsigned)(timeout + cancel_secs));
	signal(SIGUSR2, on_usr2);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	if (client_register(&code, 1, on_ckpt) < 0 ||
	    pthread_create(&tid, NULL, writer, NULL) ||
	    PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: cannot set up\n", me.rank);
		return 1;
	}
	printf(PROG ": rank %u: up\n", me.rank);
	if (cancel_by == PMIX_RANK_UNDEF)
		cancel_by = by;
	if (me.rank == cancel_by && me.rank != by)
		cancel_after(cancel_secs);
	if (me.rank == by) {
		t0 = client_now();
		rc = ask(rank, signo, timeout,
			 cancel_by == by ? cancel_secs : 0);
		printf(PROG ": rank %u: checkpoint: %s (%.1f s)\n", me.rank,
		       PMIx_Error_string(rc), client_now() - t0);
	}
	rc = PMIx_Fence(NULL, 0, NULL, 0);
	printf(PROG ": rank %u: done%s\n", me.rank,
	       rc == PMIX_SUCCESS ? "" : ": the last fence failed");
	PMIx_Finalize(NULL, 0);
	return 0;
}
