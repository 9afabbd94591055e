/*
 * pmix_query - what PMIx_Query_info tells a rank about its step.
 *
 * usage: pmix_query [--nspace NS] [--jobid J] [--alloc-id J] [--queue Q]
 *                   [--timeout S] [--repeat N] [--rank R] [--avg] [--minmax]
 *                   [--fence] [--bad-qualifiers] [--bad-nspace] [--cached]
 *                   [--gap MS] [--for MS] [--pset NAME] KEY...
 *
 * One query (PMIX_QUERY_REFRESH_CACHE, so the host answers on every
 * OpenPMIx; --cached leaves it out) with the KEYs; a KEY may be a short name:
 * namespaces, nsinfo, spawn, debug, uri, numpsets, psetnames, psetmembers,
 * jobstatus,
 * jobstate, remaining, alloc, queues, qstatus, ptable, lptable, mem,
 * preemptible. --rank R qualifies it with PMIX_PROCID (R of its own namespace),
 * --avg and --minmax with PMIX_QUERY_REPORT_AVG / _MINMAX, --pset with
 * PMIX_PSET_NAME (an array of procs prints as "[R R ...]"); --fence has all
 * ranks meet before the first query and after the answers are printed.
 * --nspace, --jobid,
 * --alloc-id, --queue,
 * --timeout
 * qualify it with PMIX_NSPACE, PMIX_JOBID, PMIX_ALLOC_ID, PMIX_ALLOC_QUEUE,
 * PMIX_TIMEOUT; --bad-qualifiers with PMIX_PROCID and PMIX_RANK together,
 * --bad-nspace with PMIX_PROCID and PMIX_NSPACE together (both of which
 * the standard makes PMIX_ERR_BAD_PARAM). --repeat N asks N times (--gap:
 * MS milliseconds apart) and adds "pmix_query: rank R on HOST: N queries,
 * median U us, max U us" (the answers printed are the last one's). --attrs
 * FUNCTIONS asks instead which functions the host serves (PMIX_HOST_FUNCTIONS)
 * and the attributes it supports for FUNCTIONS (PMIX_HOST_ATTRIBUTES,
 * comma-separated). --for MS asks again and again (--gap apart) for MS
 * milliseconds or until a query fails: "pmix_query: rank R: ready" once the
 * first is answered, then "pmix_query: rank R on HOST: N queries, the last
 * STATUS in U ms" and, with --fence, "... fence STATUS in U ms"; the exit
 * status is then 1 if the last query or the fence failed.
 *
 * Prints "pmix_query: rank R on HOST: status STATUS", "... took S s" (the
 * last query) and one line per answer, "pmix_query: rank R on HOST: KEY =
 * VALUE" (a string in quotes, a number, a status by name, or for an array of
 * infos
 * "[k=v k=v] ..."). Exit status 0 unless PMIx_Init failed.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_query"
#include "client_util.h"

static const struct {
	const char *word, *key;
} shorts[] = {
	{"namespaces", PMIX_QUERY_NAMESPACES},
	{"nsinfo", PMIX_QUERY_NAMESPACE_INFO},
	{"spawn", PMIX_QUERY_SPAWN_SUPPORT},
	{"debug", PMIX_QUERY_DEBUG_SUPPORT},
	{"uri", PMIX_SERVER_URI},
	{"numpsets", PMIX_QUERY_NUM_PSETS},
	{"psetnames", PMIX_QUERY_PSET_NAMES},
	{"psetmembers", PMIX_QUERY_PSET_MEMBERSHIP},
	{"jobstatus", PMIX_QUERY_JOB_STATUS},
	{"jobstate", "slurm.pmixev.job.state"},
	{"remaining", PMIX_TIME_REMAINING},
	{"alloc", PMIX_QUERY_ALLOC_STATUS},
	{"queues", PMIX_QUERY_QUEUE_LIST},
	{"qstatus", PMIX_QUERY_QUEUE_STATUS},
	{"ptable", PMIX_QUERY_PROC_TABLE},
	{"lptable", PMIX_QUERY_LOCAL_PROC_TABLE},
	{"mem", PMIX_QUERY_MEMORY_USAGE},
	{"preemptible", PMIX_JOB_CTRL_PREEMPTIBLE},
};

static pmix_proc_t me;

static const char *key_of(const char *word)
{
	for (size_t i = 0; i < sizeof(shorts) / sizeof(shorts[0]); i++)
		if (!strcmp(word, shorts[i].word))
			return shorts[i].key;
	return word;
}

/* Process tables "[R@HOST:NAME:PID:STATE:EXIT ...]", procs "[R R]" (of
 * the caller's namespace, else "NS:R"), floats "[F F]". */
static void array_text(const pmix_data_array_t *da, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "[");

	for (size_t i = 0; i < da->size && off < len; i++) {
		const char *sep = i ? " " : "";

		if (da->type == PMIX_PROC_INFO) {
			const pmix_proc_info_t *p =
				&((pmix_proc_info_t *)da->array)[i];

			off += (size_t)snprintf(
				buf + off, len - off, "%s%u@%s:%s:%d:%d:%d",
				sep, p->proc.rank,
				p->hostname ? p->hostname : "",
				p->executable_name ? p->executable_name : "",
				(int)p->pid, (int)p->state, p->exit_code);
		} else if (da->type == PMIX_PROC) {
			const pmix_proc_t *p = &((pmix_proc_t *)da->array)[i];

			off += (size_t)snprintf(
				buf + off, len - off, "%s%s%s%u", sep,
				PMIX_CHECK_NSPACE(p->nspace, me.nspace)
					? ""
					: p->nspace,
				PMIX_CHECK_NSPACE(p->nspace, me.nspace) ? ""
									: ":",
				p->rank);
		} else {
			off += (size_t)snprintf(
				buf + off, len - off, "%s%.1f", sep,
				(double)((float *)da->array)[i]);
		}
	}
	if (off < len)
		snprintf(buf + off, len - off, "]");
}

/* A value as text into buf (size len). */
static void value_text(const pmix_value_t *v, char *buf, size_t len)
{
	const pmix_data_array_t *da;
	size_t off = 0;

	switch (v->type) {
	case PMIX_STRING:
		snprintf(buf, len, "'%s'",
			 v->data.string ? v->data.string : "");
		return;
	case PMIX_SIZE:
		snprintf(buf, len, "%zu", v->data.size);
		return;
	case PMIX_BOOL:
		snprintf(buf, len, "%s", v->data.flag ? "true" : "false");
		return;
	case PMIX_UINT32:
		snprintf(buf, len, "%" PRIu32, v->data.uint32);
		return;
	case PMIX_STATUS:
		snprintf(buf, len, "%s (%d)", PMIx_Error_string(v->data.status),
			 (int)v->data.status);
		return;
	case PMIX_FLOAT:
		snprintf(buf, len, "%.1f", (double)v->data.fval);
		return;
	case PMIX_PID:
		snprintf(buf, len, "%d", (int)v->data.pid);
		return;
	case PMIX_PROC:
		snprintf(buf, len, "%u", v->data.proc ? v->data.proc->rank : 0);
		return;
	case PMIX_DATA_ARRAY:
		da = v->data.darray;
		if (da && (da->type == PMIX_PROC_INFO ||
			   da->type == PMIX_FLOAT || da->type == PMIX_PROC)) {
			array_text(da, buf, len);
			return;
		}
		if (da && da->type == PMIX_REGATTR) {
			off = (size_t)snprintf(buf, len, "{");
			for (size_t i = 0; i < da->size && off < len; i++)
				off += (size_t)snprintf(
					buf + off, len - off, "%s%s",
					i ? " " : "",
					((pmix_regattr_t *)da->array)[i].name);
			if (off < len)
				snprintf(buf + off, len - off, "}");
			return;
		}
		off = (size_t)snprintf(buf, len, "[");
		for (size_t i = 0;
		     da && da->type == PMIX_INFO && i < da->size && off < len;
		     i++) {
			const pmix_info_t *in = &((pmix_info_t *)da->array)[i];
			char sub[4096];

			value_text(&in->value, sub, sizeof(sub));
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%s",
						i ? " " : "", in->key, sub);
		}
		if (off < len)
			snprintf(buf + off, len - off, "]");
		return;
	default:
		snprintf(buf, len, "(type %u)", (unsigned)v->type);
	}
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* --for: `q` for `ms` milliseconds or until one fails; its status. */
static pmix_status_t query_for(pmix_query_t *q, int ms, int gap_ms, bool fence)
{
	pmix_info_t *res = NULL;
	size_t nres = 0;
	pmix_status_t rc, frc = PMIX_SUCCESS;
	double start = now_us(), t0, took = 0;
	long n = 0;

	if (fence)
		PMIx_Fence(NULL, 0, NULL, 0);
	do {
		if (n && gap_ms)
			usleep((useconds_t)gap_ms * 1000);
		t0 = now_us();
		rc = PMIx_Query_info(q, 1, &res, &nres);
		took = now_us() - t0;
		PMIX_INFO_FREE(res, nres);
		res = NULL;
		nres = 0;
		if (!n++ && rc == PMIX_SUCCESS) {
			printf(PROG ": rank %u: ready\n", me.rank);
			fflush(stdout);
		}
	} while (rc == PMIX_SUCCESS && now_us() - start < ms * 1e3);
	printf(PROG ": rank %u on %s: %ld queries, the last %s in %.0f ms\n",
	       me.rank, client_host(), n, PMIx_Error_string(rc), took / 1e3);
	if (fence) {
		t0 = now_us();
		frc = PMIx_Fence(NULL, 0, NULL, 0);
		printf(PROG ": rank %u on %s: fence %s in %.0f ms\n", me.rank,
		       client_host(), PMIx_Error_string(frc),
		       (now_us() - t0) / 1e3);
	}
	fflush(stdout);
	return rc != PMIX_SUCCESS ? rc : frc;
}

int main(int argc, char **argv)
{
	const char *nspace = NULL, *jobid = NULL, *alloc = NULL, *queue = NULL,
		   *attrs = NULL, *pset = NULL;
	bool bad = false;
	pmix_info_t *res = NULL;
	pmix_query_t *q;
	size_t nres = 0, nq = 0;
	pmix_status_t rc;
	int i = 1, timeout = 0, rank = -1, gap_ms = 0, for_ms = 0;
	bool avg = false, minmax = false, fence = false, cached = false;
	bool bad_ns = false;
	long repeat = 1;
	bool yes = true;
	double t0, *took;

	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--nspace") && i + 1 < argc)
			nspace = argv[++i];
		else if (!strcmp(argv[i], "--jobid") && i + 1 < argc)
			jobid = argv[++i];
		else if (!strcmp(argv[i], "--alloc-id") && i + 1 < argc)
			alloc = argv[++i];
		else if (!strcmp(argv[i], "--queue") && i + 1 < argc)
			queue = argv[++i];
		else if (!strcmp(argv[i], "--pset") && i + 1 < argc)
			pset = argv[++i];
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			timeout = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atol(argv[++i]);
		else if (!strcmp(argv[i], "--attrs") && i + 1 < argc)
			attrs = argv[++i];
		else if (!strcmp(argv[i], "--rank") && i + 1 < argc)
			rank = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--fence"))
			fence = true;
		else if (!strcmp(argv[i], "--avg"))
			avg = true;
		else if (!strcmp(argv[i], "--minmax"))
			minmax = true;
		else if (!strcmp(argv[i], "--bad-qualifiers"))
			bad = true;
		else if (!strcmp(argv[i], "--bad-nspace"))
			bad_ns = true;
		else if (!strcmp(argv[i], "--cached"))
			cached = true;
		else if (!strcmp(argv[i], "--gap") && i + 1 < argc)
			gap_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--for") && i + 1 < argc)
			for_ms = atoi(argv[++i]);
		else
			break;
	}
	if ((i >= argc && !attrs) || repeat < 1) {
		fprintf(stderr,
			"usage: " PROG " [--nspace NS] [--jobid J] "
			"[--alloc-id J] [--queue Q] [--timeout S] "
			"[--repeat N] [--gap MS] [--for MS] [--cached] "
			"[--bad-qualifiers] [--bad-nspace] [--pset NAME] "
			"KEY... | "
			"--attrs FUNCTIONS\n");
		return 2;
	}
	client_watchdog(PROG, 0);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	PMIX_QUERY_CREATE(q, 1);
	for (; i < argc; i++)
		PMIX_ARGV_APPEND(rc, q[0].keys, key_of(argv[i]));
	PMIX_INFO_CREATE(q[0].qualifiers, 16);
	if (attrs) {
		PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_ATTRIBUTE_SUPPORT);
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_HOST_ATTRIBUTES,
			       attrs, PMIX_STRING);
	} else if (!cached) {
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_QUERY_REFRESH_CACHE,
			       &yes, PMIX_BOOL);
	}
	if (nspace)
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_NSPACE, nspace,
			       PMIX_STRING);
	if (jobid)
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_JOBID, jobid,
			       PMIX_STRING);
	if (alloc)
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_ALLOC_ID, alloc,
			       PMIX_STRING);
	if (queue)
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_ALLOC_QUEUE, queue,
			       PMIX_STRING);
	if (pset)
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_PSET_NAME, pset,
			       PMIX_STRING);
	if (timeout)
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_TIMEOUT, &timeout,
			       PMIX_INT);
	if (rank >= 0) {
		pmix_proc_t who;

		PMIX_LOAD_PROCID(&who, me.nspace, (pmix_rank_t)rank);
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_PROCID, &who,
			       PMIX_PROC);
	}
	if (avg)
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_QUERY_REPORT_AVG,
			       &yes, PMIX_BOOL);
	if (minmax)
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_QUERY_REPORT_MINMAX,
			       &yes, PMIX_BOOL);
	if (bad) {
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_PROCID, &me,
			       PMIX_PROC);
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_RANK, &me.rank,
			       PMIX_PROC_RANK);
	}
	if (bad_ns) {
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_PROCID, &me,
			       PMIX_PROC);
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_NSPACE, me.nspace,
			       PMIX_STRING);
	}
	q[0].nqual = nq;
	if (for_ms > 0) {
		rc = query_for(q, for_ms, gap_ms, fence);
		PMIX_QUERY_FREE(q, 1);
		PMIx_Finalize(NULL, 0);
		return rc != PMIX_SUCCESS;
	}
	if (!(took = calloc((size_t)repeat, sizeof(*took))))
		return 1;
	if (fence)
		PMIx_Fence(NULL, 0, NULL, 0);
	for (long r = 0; r < repeat; r++) {
		if (res)
			PMIX_INFO_FREE(res, nres);
		res = NULL;
		nres = 0;
		if (r && gap_ms)
			usleep((useconds_t)gap_ms * 1000);
		t0 = now_us();
		rc = PMIx_Query_info(q, 1, &res, &nres);
		took[r] = now_us() - t0;
	}
	printf(PROG ": rank %u on %s: status %s\n", me.rank, client_host(),
	       PMIx_Error_string(rc));
	printf(PROG ": rank %u on %s: took %.1f s\n", me.rank, client_host(),
	       took[repeat - 1] / 1e6);
	for (size_t r = 0; r < nres; r++) {
		char text[8192];

		value_text(&res[r].value, text, sizeof(text));
		printf(PROG ": rank %u on %s: %s = %s\n", me.rank,
		       client_host(), res[r].key, text);
	}
	if (repeat > 1) {
		qsort(took, (size_t)repeat, sizeof(*took), by_value);
		printf(PROG ": rank %u on %s: %ld queries, median %.0f us, "
			    "max %.0f us\n",
		       me.rank, client_host(), repeat, took[repeat / 2],
		       took[repeat - 1]);
	}
	free(took);
	if (fence)
		PMIx_Fence(NULL, 0, NULL, 0);
	PMIX_INFO_FREE(res, nres);
	PMIX_QUERY_FREE(q, 1);
	PMIx_Finalize(NULL, 0);
	return 0;
}
