/*
 * pmix_jobctl - PMIx_Job_control from a rank, and ranks that see what it
 * does to them.
 *
 * usage: pmix_jobctl [--by RANK] [--nspace NS] [--rank R] [--timeout S]
 *                    [--linger SECS] [--repeat N] [--gate FILE] ACTION [ARG]
 *                    [ACTION...]
 *   ACTION  signal N | term | kill | restart | pause [SECS] | resume |
 *           preemptible yes|no | key NAME | none
 *   ("key NAME" sends a directive of any NAME, true, as a job would to
 *   try a key pmixev does not know)
 *
 * Every rank catches SIGUSR1, SIGUSR2 and SIGTERM (printing "pmix_jobctl:
 * rank R got signal N", or with --repeat "... got N signals"), joins a
 * fence and prints "pmix_jobctl: rank R: up"; then rank --by (default 0),
 * once FILE exists if --gate is given, asks for ACTION on the target:
 * namespace NS (default its own) and rank R (default PMIX_RANK_WILDCARD),
 * with PMIX_TIMEOUT S if given, and prints "pmix_jobctl: rank R: ACTION:
 * STATUS (T s)" and, if the answer says why, "pmix_jobctl: rank R: reason:
 * TEXT"; --repeat N asks N times (1 too) and adds "pmix_jobctl: rank R: N
 * requests, median U us, p99 U us".
 * Then every rank waits up
 * to --linger seconds (default 0) for a signal and prints "pmix_jobctl:
 * rank R: done" (with --linger, first "pmix_jobctl: rank R: longest stall
 * S s": the longest 100 ms tick since the fence, stopped time included).
 * "pause SECS" pauses after 1 s and resumes the target SECS seconds later
 * ("pmix_jobctl: rank R: resume: STATUS"). Several ACTIONs are asked for
 * one after the other, each printed so. Exit status 0 unless PMIx_Init or
 * the fence failed.
 */
#include <ctype.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_jobctl"
#include "client_util.h"

static volatile sig_atomic_t got, count;

static void on_signal(int sig)
{
	got = sig;
	count++;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The directives for ACTION into info; how many, or 0 if unknown. */
static size_t action(const char *what, const char *arg, pmix_info_t *info,
		     int *signo)
{
	bool yes = true;

	if (!strcmp(what, "signal") && arg) {
		*signo = atoi(arg);
		PMIX_INFO_LOAD(info, PMIX_JOB_CTRL_SIGNAL, signo, PMIX_INT);
	} else if (!strcmp(what, "term")) {
		PMIX_INFO_LOAD(info, PMIX_JOB_CTRL_TERMINATE, &yes, PMIX_BOOL);
	} else if (!strcmp(what, "kill")) {
		PMIX_INFO_LOAD(info, PMIX_JOB_CTRL_KILL, &yes, PMIX_BOOL);
	} else if (!strcmp(what, "restart")) {
		PMIX_INFO_LOAD(info, PMIX_JOB_CTRL_RESTART, "pmixev-test",
			       PMIX_STRING);
	} else if (!strcmp(what, "pause")) {
		PMIX_INFO_LOAD(info, PMIX_JOB_CTRL_PAUSE, &yes, PMIX_BOOL);
	} else if (!strcmp(what, "resume")) {
		PMIX_INFO_LOAD(info, PMIX_JOB_CTRL_RESUME, &yes, PMIX_BOOL);
	} else if (!strcmp(what, "key") && arg) {
		PMIX_INFO_LOAD(info, arg, &yes, PMIX_BOOL);
	} else if (!strcmp(what, "preemptible") && arg) {
		yes = !strcmp(arg, "yes");
		PMIX_INFO_LOAD(info, PMIX_JOB_CTRL_PREEMPTIBLE, &yes,
			       PMIX_BOOL);
	} else {
		return 0;
	}
	return 1;
}

/* pause SECS: resume the target SECS seconds after the pause. */
static void resume_after(const pmix_proc_t *me, const pmix_proc_t *target,
			 int secs)
{
	pmix_info_t dir, *res = NULL;
	size_t nres = 0;
	pmix_status_t rc;
	bool yes = true;

	sleep((unsigned)secs);
	PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_RESUME, &yes, PMIX_BOOL);
	rc = PMIx_Job_control(target, 1, &dir, 1, &res, &nres);
	printf(PROG ": rank %u: resume: %s\n", me->rank, PMIx_Error_string(rc));
	PMIX_INFO_FREE(res, nres);
	PMIX_INFO_DESTRUCT(&dir);
}

/* The request of one ACTION [ARG]; -1 if out of memory. */
struct request {
	const char *nspace;
	pmix_rank_t rank;
	int timeout;
};

static int ask(const pmix_proc_t *me, const struct request *req,
	       const char *what, const char *arg, int repeat, bool stats)
{
	pmix_info_t dirs[2], *res = NULL;
	size_t ndirs, nres = 0;
	pmix_proc_t target;
	pmix_status_t rc = PMIX_ERR_BAD_PARAM;
	double *took;
	int signo = 0;

	if (!strcmp(what, "pause")) /* the others are in their ticks */
		sleep(1);
	ndirs = action(what, arg, dirs, &signo);
	if (req->timeout)
		PMIX_INFO_LOAD(&dirs[ndirs++], PMIX_TIMEOUT, &req->timeout,
			       PMIX_INT);
	PMIX_LOAD_PROCID(&target, req->nspace ? req->nspace : me->nspace,
			 req->rank);
	if (!(took = calloc((size_t)repeat, sizeof(*took))))
		return -1;
	for (int r = 0; r < repeat; r++) {
		PMIX_INFO_FREE(res, nres);
		res = NULL;
		nres = 0;
		double t1 = now_s();

		rc = PMIx_Job_control(&target, 1, dirs, ndirs, &res, &nres);
		took[r] = now_s() - t1;
	}
	printf(PROG ": rank %u: %s: %s (%.1f s)\n", me->rank, what,
	       PMIx_Error_string(rc), took[repeat - 1]);
	if (stats) {
		qsort(took, (size_t)repeat, sizeof(*took), by_value);
		printf(PROG ": rank %u: %d requests, median %.0f us, p99 %.0f "
			    "us\n",
		       me->rank, repeat, took[repeat / 2] * 1e6,
		       took[(repeat * 99 + 99) / 100 - 1] * 1e6);
	}
	free(took);
	for (size_t r = 0; r < nres; r++)
		if (res[r].value.type == PMIX_STRING)
			printf(PROG ": rank %u: reason: %s\n", me->rank,
			       res[r].value.data.string);
	PMIX_INFO_FREE(res, nres);
	if (!strcmp(what, "pause") && arg)
		resume_after(me, &target, atoi(arg));
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct request req = {NULL, PMIX_RANK_WILDCARD, 0};
	const char *what, *gate = NULL;
	pmix_rank_t by = 0;
	int i = 1, linger = 0, repeat = 1;
	bool stats = false;
	pmix_proc_t me;
	pmix_status_t rc;
	double t0, stall = 0;

	for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--by"))
			by = (pmix_rank_t)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--nspace"))
			req.nspace = argv[i + 1];
		else if (!strcmp(argv[i], "--rank"))
			req.rank = (pmix_rank_t)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--timeout"))
			req.timeout = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--linger"))
			linger = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--repeat"))
			repeat = atoi(argv[i + 1]), stats = true;
		else if (!strcmp(argv[i], "--gate"))
			gate = argv[i + 1];
		else
			break;
	}
	if (i >= argc || repeat < 1) {
		fprintf(stderr, "usage: " PROG " [--by RANK] [--nspace NS] "
				"[--rank R] [--timeout S] [--linger SECS] "
				"[--repeat N] [--gate FILE] ACTION [ARG] "
				"[ACTION...]\n");
		return 2;
	}
	client_watchdog(PROG, (unsigned)linger);
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	signal(SIGTERM, on_signal);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: fence: %s\n", me.rank,
		       PMIx_Error_string(rc));
		return 1;
	}
	printf(PROG ": rank %u: up\n", me.rank);
	fflush(stdout);
	while (me.rank == by && gate && access(gate, F_OK) < 0)
		usleep(100000);
	t0 = now_s();
	while (me.rank == by && i < argc) {
		const char *arg = NULL;

		what = argv[i++];
		if (i < argc &&
		    (!strcmp(what, "signal") || !strcmp(what, "preemptible") ||
		     !strcmp(what, "key") ||
		     (!strcmp(what, "pause") &&
		      isdigit((unsigned char)*argv[i]))))
			arg = argv[i++];
		if (strcmp(what, "none") &&
		    ask(&me, &req, what, arg, repeat, stats) < 0)
			return 1;
	}
	for (int t = 0; t < linger * 10 && count < repeat; t++) {
		double t1;

		usleep(100000);
		t1 = now_s();
		stall = t1 - t0 > stall ? t1 - t0 : stall;
		t0 = t1;
	}
	if (linger)
		printf(PROG ": rank %u: longest stall %.1f s\n", me.rank,
		       stall);
	if (got && repeat > 1)
		printf(PROG ": rank %u got %d signals\n", me.rank, (int)count);
	else if (got)
		printf(PROG ": rank %u got signal %d\n", me.rank, (int)got);
	printf(PROG ": rank %u: done\n", me.rank);
	PMIx_Finalize(NULL, 0);
	return 0;
}
