/*
 * pmix_alloc - PMIx_Allocation_request from rank 0, and what Slurm shows of
 * its outcome.
 *
 * usage: pmix_alloc [--timeout S] [--id JOB] [--reqid ID] [--hold SECS]
 *                   [--cancel-after SECS] DIRECTIVE [nodes N] [cpus N]
 *                   [list NODES] [time SECS] [key NAME]
 *   DIRECTIVE  new | extend | release | reacquire
 *   ("key NAME" adds a string directive NAME, required, as a job would to
 *   try a key pmixev does not serve)
 *
 * Rank 0 asks (with PMIX_TIMEOUT S, PMIX_ALLOC_ID JOB, PMIX_ALLOC_REQ_ID
 * ID if given; time as OpenPMIx's type: uint32_t seconds under 4.x, a
 * "minutes:seconds" string under 5.x) and prints
 * "pmix_alloc: DIRECTIVE: STATUS [CODE] (T s)", then each answer it knows as
 * "pmix_alloc: id JOB", "pmix_alloc: nodes LIST", "pmix_alloc: nnodes N",
 * "pmix_alloc: time ...", "pmix_alloc: reqid ID", "pmix_alloc: reason
 * TEXT". Every rank prints "pmix_alloc: rank R: node-offline HOST" for
 * each PMIX_EVENT_NODE_OFFLINE it gets. With a new job it prints "pmix_alloc:
 * squeue: ..." (squeue's
 * "%i %u %T %D" of that job) while the step still runs. Then it sleeps
 * --hold seconds and prints "pmix_alloc: done". Other ranks wait at
 * the end fence. With --cancel-after, rank 1 waits SECS, then
 * cancels the request by its id with PMIx_Job_control's
 * PMIX_JOB_CTRL_CANCEL and prints "pmix_alloc: rank R: cancel: STATUS
 * [CODE]". Exit status 0 unless PMIx_Init or the fence failed.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_alloc"
#include "client_util.h"

#define INFO_MAX 12

static pmix_alloc_directive_t directive(const char *s)
{
	if (!strcmp(s, "new"))
		return PMIX_ALLOC_NEW;
	if (!strcmp(s, "extend"))
		return PMIX_ALLOC_EXTEND;
	if (!strcmp(s, "release"))
		return PMIX_ALLOC_RELEASE;
	if (!strcmp(s, "reacquire"))
		return PMIX_ALLOC_REAQUIRE;
	return 0;
}

static void print_result(const pmix_info_t *in, char *job, size_t len)
{
	const pmix_value_t *v = &in->value;

	if (PMIX_CHECK_KEY(in, PMIX_ALLOC_ID) && v->type == PMIX_STRING) {
		printf(PROG ": id %s\n", v->data.string);
		snprintf(job, len, "%s", v->data.string);
	} else if (PMIX_CHECK_KEY(in, PMIX_ALLOC_NODE_LIST) &&
		   v->type == PMIX_STRING) {
		printf(PROG ": nodes %s\n", v->data.string);
	} else if (PMIX_CHECK_KEY(in, PMIX_ALLOC_NUM_NODES) &&
		   v->type == PMIX_UINT64) {
		printf(PROG ": nnodes %" PRIu64 "\n", v->data.uint64);
	} else if (PMIX_CHECK_KEY(in, PMIX_ALLOC_TIME) &&
		   v->type == PMIX_UINT32) {
		printf(PROG ": time %u\n", v->data.uint32);
	} else if (PMIX_CHECK_KEY(in, PMIX_ALLOC_TIME) &&
		   v->type == PMIX_STRING) {
		printf(PROG ": time %s\n", v->data.string);
	} else if (PMIX_CHECK_KEY(in, PMIX_ALLOC_REQ_ID) &&
		   v->type == PMIX_STRING) {
		printf(PROG ": reqid %s\n", v->data.string);
	} else if (v->type == PMIX_STRING && strstr(in->key, "reason")) {
		printf(PROG ": reason %s\n", v->data.string);
	}
}

static pmix_rank_t my_rank;

/* PMIX_EVENT_NODE_OFFLINE: which node, printed. */
static void on_offline(size_t id, pmix_status_t status,
		       const pmix_proc_t *source, pmix_info_t info[],
		       size_t ninfo, pmix_info_t *results, size_t nresults,
		       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	const char *host = "?";

	(void)id;
	(void)status;
	(void)source;
	(void)results;
	(void)nresults;
	for (size_t k = 0; k < ninfo; k++)
		if (PMIX_CHECK_KEY(&info[k], PMIX_HOSTNAME) &&
		    info[k].value.type == PMIX_STRING)
			host = info[k].value.data.string;
	printf(PROG ": rank %u: node-offline %s\n", my_rank, host);
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* squeue's view of job `job`, as the owner sees it. */
static void show_job(const char *job)
{
	char cmd[128], line[256];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "squeue -h -j %s -o '%%i %%u %%T %%D' 2>&1",
		 job);
	if (!(f = popen(cmd, "r")))
		return;
	while (fgets(line, sizeof(line), f))
		printf(PROG ": squeue: %s", line);
	pclose(f);
}

int main(int argc, char **argv)
{
	pmix_info_t info[INFO_MAX], *res = NULL;
	size_t n = 0, nres = 0;
	pmix_proc_t me;
	pmix_status_t rc, offline = PMIX_EVENT_NODE_OFFLINE;
	pmix_alloc_directive_t dir;
	const char *name;
	char job[32] = "";
	long hold = 0, cancel_after = -1;
	const char *reqid = NULL;
	int i = 1;
	double t0;

	client_watchdog(PROG, 600);
	for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--timeout")) {
			int t = atoi(argv[i + 1]);

			PMIX_INFO_LOAD(&info[n++], PMIX_TIMEOUT, &t, PMIX_INT);
		} else if (!strcmp(argv[i], "--id")) {
			PMIX_INFO_LOAD(&info[n++], PMIX_ALLOC_ID, argv[i + 1],
				       PMIX_STRING);
		} else if (!strcmp(argv[i], "--reqid")) {
			reqid = argv[i + 1];
			PMIX_INFO_LOAD(&info[n++], PMIX_ALLOC_REQ_ID, reqid,
				       PMIX_STRING);
		} else if (!strcmp(argv[i], "--cancel-after")) {
			cancel_after = atol(argv[i + 1]);
		} else if (!strcmp(argv[i], "--hold")) {
			hold = atol(argv[i + 1]);
		}
	}
	if (i >= argc || !(dir = directive(argv[i]))) {
		fprintf(stderr,
			"usage: " PROG " [--timeout S] [--id JOB] "
			"[--reqid ID] [--hold SECS] [--cancel-after SECS] "
			"new|extend|release|"
			"reacquire [nodes N] [cpus N] [list NODES] "
			"[time SECS] [key NAME]\n");
		return 2;
	}
	name = argv[i++];
	for (; i + 1 < argc && n + 1 < INFO_MAX; i += 2) {
		uint64_t v = strtoull(argv[i + 1], NULL, 10);

		if (!strcmp(argv[i], "nodes")) {
			PMIX_INFO_LOAD(&info[n++], PMIX_ALLOC_NUM_NODES, &v,
				       PMIX_UINT64);
		} else if (!strcmp(argv[i], "cpus")) {
			PMIX_INFO_LOAD(&info[n++], PMIX_ALLOC_NUM_CPUS, &v,
				       PMIX_UINT64);
		} else if (!strcmp(argv[i], "list")) {
			PMIX_INFO_LOAD(&info[n++], PMIX_ALLOC_NODE_LIST,
				       argv[i + 1], PMIX_STRING);
		} else if (!strcmp(argv[i], "time")) {
#if PMIX_VERSION_MAJOR >= 5
			char text[32];

			snprintf(text, sizeof(text), "%u:%02u",
				 (unsigned)(v / 60), (unsigned)(v % 60));
			PMIX_INFO_LOAD(&info[n++], PMIX_ALLOC_TIME, text,
				       PMIX_STRING);
#else
			uint32_t s = (uint32_t)v;

			PMIX_INFO_LOAD(&info[n++], PMIX_ALLOC_TIME, &s,
				       PMIX_UINT32);
#endif
		} else if (!strcmp(argv[i], "key")) {
			PMIX_INFO_LOAD(&info[n], argv[i + 1], "x", PMIX_STRING);
			PMIX_INFO_REQUIRED(&info[n]);
			n++;
		}
	}
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	my_rank = me.rank;
	if (client_register(&offline, 1, on_offline) < 0)
		printf(PROG ": rank %u: cannot register for node-offline\n",
		       me.rank);
	if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: fence: %s\n", me.rank,
		       PMIx_Error_string(rc));
		PMIx_Finalize(NULL, 0);
		return 1;
	}
	if (me.rank == 0) {
		t0 = client_now();
		rc = PMIx_Allocation_request(dir, info, n, &res, &nres);
		printf(PROG ": %s: %s [%d] (%.1f s)\n", name,
		       PMIx_Error_string(rc), (int)rc, client_now() - t0);
		for (size_t k = 0; k < nres; k++)
			print_result(&res[k], job, sizeof(job));
		if (job[0] && dir == PMIX_ALLOC_NEW)
			show_job(job);
		if (res)
			PMIX_INFO_FREE(res, nres);
		sleep((unsigned)hold);
		printf(PROG ": done\n");
	} else if (me.rank == 1 && cancel_after >= 0 && reqid) {
		pmix_info_t ctl;

		sleep((unsigned)cancel_after);
		PMIX_INFO_LOAD(&ctl, PMIX_JOB_CTRL_CANCEL, reqid, PMIX_STRING);
		rc = PMIx_Job_control(NULL, 0, &ctl, 1, &res, &nres);
		printf(PROG ": rank %u: cancel: %s [%d]\n", me.rank,
		       PMIx_Error_string(rc), (int)rc);
		PMIX_INFO_DESTRUCT(&ctl);
		if (res)
			PMIX_INFO_FREE(res, nres);
	}
	if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: fence: %s\n", me.rank,
		       PMIx_Error_string(rc));
		PMIx_Finalize(NULL, 0);
		return 1;
	}
	PMIx_Finalize(NULL, 0);
	return 0;
}
