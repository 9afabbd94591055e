/*
 * pmix_notify - a client's PMIx_Notify_event reaches exactly its range.
 *
 * usage: pmix_notify SENDER namespace|session|global|custom:R[,R...] [bad]
 *
 * Every rank registers for code -3001, all synchronise, rank SENDER
 * notifies -3001 with the range (custom: PMIX_EVENT_CUSTOM_RANGE lists the
 * ranks), then every rank waits 3 s, counts what it got and checks it:
 * exactly 1 if it is in the range, else 0. (The sender's own handler runs
 * when the range includes it: the PMIx client library does that locally;
 * no server sends an event back to its source.) It prints
 *   "pmix_notify: rank R of N on HOST: got G, expected E: ok"
 * (or FAILED); exit status 0 only when the count is right. With "bad", the
 * sender first sends what no process registered for: an unknown code with
 * no info, and one with 5000 infos (more than pmixev relays); neither may
 * disturb the step or the real event that follows.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_notify"
#include "client_util.h"

#define CODE (PMIX_EXTERNAL_ERR_BASE - 1)

static volatile unsigned got;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *src,
		     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		     size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	__atomic_add_fetch(&got, 1, __ATOMIC_SEQ_CST);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Is `rank` in the comma list `list`? */
static bool listed(const char *list, uint32_t rank)
{
	for (const char *p = list; p && *p;
	     p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strtoul(p, NULL, 10) == rank)
			return true;
	return false;
}

static pmix_status_t send_event(const pmix_proc_t *me, const char *range)
{
	pmix_info_t info[2];
	pmix_data_array_t *procs = NULL;
	pmix_data_range_t r;
	size_t ninfo = 0, n = 0;
	pmix_status_t rc;
	const char *list;

	PMIX_INFO_LOAD(&info[ninfo++], PMIX_EVENT_TEXT_MESSAGE,
		       "pmix_notify test event", PMIX_STRING);
	if (!strcmp(range, "namespace"))
		r = PMIX_RANGE_NAMESPACE;
	else if (!strcmp(range, "session"))
		r = PMIX_RANGE_SESSION;
	else if (!strcmp(range, "global"))
		r = PMIX_RANGE_GLOBAL;
	else {
		pmix_proc_t *p;

		r = PMIX_RANGE_CUSTOM;
		list = range + strlen("custom:");
		for (const char *q = list; q; q = strchr(q + 1, ','))
			n++;
		PMIX_DATA_ARRAY_CREATE(procs, n, PMIX_PROC);
		p = procs->array;
		n = 0;
		for (const char *q = list; q && *q;
		     q = strchr(q, ',') ? strchr(q, ',') + 1 : NULL) {
			PMIX_LOAD_PROCID(&p[n], me->nspace,
					 (pmix_rank_t)strtoul(q, NULL, 10));
			n++;
		}
		PMIX_INFO_LOAD(&info[ninfo++], PMIX_EVENT_CUSTOM_RANGE, procs,
			       PMIX_DATA_ARRAY);
		PMIX_DATA_ARRAY_FREE(procs);
	}
	rc = PMIx_Notify_event(CODE, me, r, info, ninfo, NULL, NULL);
	for (size_t i = 0; i < ninfo; i++)
		PMIX_INFO_DESTRUCT(&info[i]);
	return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
}

/* Unknown codes, one with an oversized info array. */
static void send_bad(const pmix_proc_t *me)
{
	pmix_info_t *info;
	pmix_status_t rc;
	char key[16];

	rc = PMIx_Notify_event(CODE - 777, me, PMIX_RANGE_NAMESPACE, NULL, 0,
			       NULL, NULL);
	if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
		printf(PROG ": unknown code: %s\n", PMIx_Error_string(rc));
	PMIX_INFO_CREATE(info, 5000);
	for (uint32_t i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "bad.%u", i);
		PMIX_INFO_LOAD(&info[i], key, &i, PMIX_UINT32);
	}
	rc = PMIx_Notify_event(CODE - 778, me, PMIX_RANGE_NAMESPACE, info, 5000,
			       NULL, NULL);
	if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
		printf(PROG ": 5000 infos: %s\n", PMIx_Error_string(rc));
	PMIX_INFO_FREE(info, 5000);
}

int main(int argc, char **argv)
{
	pmix_status_t code = CODE, rc;
	pmix_proc_t me;
	unsigned expect;
	uint32_t size;
	long sender;

	if (argc < 3 || argc > 4 ||
	    client_parse_long(argv[1], 0, 1L << 30, &sender) ||
	    (strcmp(argv[2], "namespace") && strcmp(argv[2], "session") &&
	     strcmp(argv[2], "global") && strncmp(argv[2], "custom:", 7)) ||
	    (argc == 4 && strcmp(argv[3], "bad"))) {
		fprintf(stderr, "usage: " PROG " SENDER namespace|session|"
				"global|custom:R[,R...] [bad]\n");
		return 2;
	}
	client_watchdog(PROG, 0);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	size = client_job_size(&me);
	if (client_register(&code, 1, on_event) < 0 ||
	    client_sync(&me, 1) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: setup failed\n", me.rank);
		return 1;
	}
	if (me.rank == (uint32_t)sender && argc == 4)
		send_bad(&me);
	if (me.rank == (uint32_t)sender &&
	    (rc = send_event(&me, argv[2])) != PMIX_SUCCESS)
		printf(PROG ": rank %u: PMIx_Notify_event: %s\n", me.rank,
		       PMIx_Error_string(rc));
	sleep(3);
	expect = strncmp(argv[2], "custom:", 7) || listed(argv[2] + 7, me.rank);
	printf(PROG ": rank %u of %u on %s: got %u, expected %u: %s\n", me.rank,
	       size, client_host(), got, expect,
	       got == expect ? "ok" : "FAILED");
	client_sync(&me, 2);
	PMIx_Finalize(NULL, 0);
	return got == expect ? 0 : 1;
}
