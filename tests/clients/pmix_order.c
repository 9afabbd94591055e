/*
 * pmix_order - PMIx event handler ordering (RFC0018) end to end: each
 * rank's handlers run in the specified order for an event that reaches it
 * through slurmstepd, and each sees the results of the ones before it.
 *
 * usage: pmix_order SENDER
 *
 * Every rank registers, in this order: "single" (code CODE), "append"
 * (APPEND), "prepend" (PREPEND), "first" (FIRST), "last" (LAST), "multi"
 * (codes CODE and CODE-1) and "default" (no codes). After a fence, rank
 * SENDER notifies CODE to its namespace. Each handler checks that the
 * results it is given name the handlers that ran before it, in order, and
 * returns its own name as its result. Every other rank prints
 *   "pmix_order: rank R of N on HOST: ORDER; BEFORE/AFTER/DUP: A/B/C: ok"
 * where ORDER is the names in run order and A, B, C what the library said
 * to a handler registered BEFORE "single", one AFTER "single" and a
 * second "single" (OpenPMIx 4.2 refuses the first two and accepts the
 * third, which is then deregistered: doc/app-guide.md, "Event handler order");
 * FAILED with the cause otherwise.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_order"
#include "client_util.h"

#define CODE   (PMIX_EXTERNAL_ERR_BASE - 11)
#define RESKEY "slurm.pmixev.order"
#define EXPECT "first,prepend,single,append,multi,default,last"
#define NHDLR  7

static const char *names[NHDLR] = {"single", "append", "prepend", "first",
				   "last",   "multi",  "default"};
static size_t ids[NHDLR];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char order[256], why[640];
static volatile int finished;

struct res {
	pmix_info_t *info;
	size_t n;
};

static void release(pmix_status_t status, void *cbdata)
{
	struct res *r = cbdata;

	(void)status;
	PMIX_INFO_FREE(r->info, r->n);
	free(r);
}

static const char *name_of(size_t id)
{
	for (int i = 0; i < NHDLR; i++)
		if (ids[i] == id)
			return names[i];
	return "?";
}

/* Every handler: check the results so far, add its name, pass them on. */
static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *src,
		     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		     size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	const char *name = name_of(id);
	struct res *r = malloc(sizeof(*r));
	char seen[256] = "";

	(void)status, (void)src, (void)info, (void)ninfo;
	for (size_t i = 0; i < nresults; i++)
		if (PMIX_CHECK_KEY(&results[i], RESKEY))
			snprintf(seen + strlen(seen),
				 sizeof(seen) - strlen(seen), "%s%s",
				 seen[0] ? "," : "",
				 results[i].value.data.string);
	pthread_mutex_lock(&lock);
	if (strcmp(seen, order) && !why[0])
		snprintf(why, sizeof(why),
			 "\"%s\" saw results \"%s\" after \"%s\" ran", name,
			 seen, order);
	snprintf(order + strlen(order), sizeof(order) - strlen(order), "%s%s",
		 order[0] ? "," : "", name);
	if (!strcmp(name, "last"))
		finished = 1;
	pthread_mutex_unlock(&lock);
	if (r) {
		r->n = 1;
		PMIX_INFO_CREATE(r->info, 1);
		if (r->info)
			PMIX_INFO_LOAD(&r->info[0], RESKEY, name, PMIX_STRING);
	}
	if (!r || !r->info) {
		free(r);
		cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
		return;
	}
	cbfunc(PMIX_SUCCESS, r->info, r->n, release, r, cbdata);
}

struct reg {
	volatile int done;
	pmix_status_t status;
	size_t id;
};

static void on_registered(pmix_status_t status, size_t id, void *cbdata)
{
	struct reg *g = cbdata;

	g->status = status;
	g->id = id;
	g->done = 1;
}

/* Register handler `name` for ncodes codes with directive key (may be
 * NULL) = value (may be NULL: a bool true); the PMIx status. */
static pmix_status_t reg(const char *name, int ncodes, const char *key,
			 const char *value, size_t *id)
{
	pmix_status_t codes[2] = {CODE, CODE - 1};
	struct reg g = {0};
	pmix_info_t info[2];
	size_t ninfo = 0;
	bool yes = true;

	PMIX_INFO_LOAD(&info[ninfo++], PMIX_EVENT_HDLR_NAME, name, PMIX_STRING);
	if (key && value)
		PMIX_INFO_LOAD(&info[ninfo++], key, value, PMIX_STRING);
	else if (key)
		PMIX_INFO_LOAD(&info[ninfo++], key, &yes, PMIX_BOOL);
	PMIx_Register_event_handler(ncodes ? codes : NULL, (size_t)ncodes, info,
				    ninfo, on_event, on_registered, &g);
	while (!g.done)
		usleep(1000);
	for (size_t i = 0; i < ninfo; i++)
		PMIX_INFO_DESTRUCT(&info[i]);
	if (id)
		*id = g.id;
	return g.status;
}

int main(int argc, char **argv)
{
	const char *keys[NHDLR] = {NULL,
				   PMIX_EVENT_HDLR_APPEND,
				   PMIX_EVENT_HDLR_PREPEND,
				   PMIX_EVENT_HDLR_FIRST,
				   PMIX_EVENT_HDLR_LAST,
				   NULL,
				   NULL};
	const int ncodes[NHDLR] = {1, 1, 1, 1, 1, 2, 0};
	pmix_status_t rc, before, after, dup;
	size_t dup_id;
	pmix_proc_t me;
	uint32_t size;
	long sender;

	if (argc != 2 || client_parse_long(argv[1], 0, 1L << 30, &sender)) {
		fprintf(stderr, "usage: " PROG " SENDER\n");
		return 2;
	}
	client_watchdog(PROG, 0);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	size = client_job_size(&me);
	for (int i = 0; i < NHDLR; i++) {
		rc = reg(names[i], ncodes[i], keys[i], NULL, &ids[i]);
		if (rc != PMIX_SUCCESS) {
			printf(PROG ": rank %u: registering \"%s\": %s\n",
			       me.rank, names[i], PMIx_Error_string(rc));
			return 1;
		}
	}
	before = reg("before", 1, PMIX_EVENT_HDLR_BEFORE, "single", NULL);
	after = reg("after", 1, PMIX_EVENT_HDLR_AFTER, "single", NULL);
	dup = reg("single", 1, NULL, NULL, &dup_id);
	if (dup == PMIX_SUCCESS)
		PMIx_Deregister_event_handler(dup_id, NULL, NULL);
	if (client_sync(&me, 1) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: fence failed\n", me.rank);
		return 1;
	}
	if (me.rank == (uint32_t)sender) {
		rc = PMIx_Notify_event(CODE, &me, PMIX_RANGE_NAMESPACE, NULL, 0,
				       NULL, NULL);
		if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
			printf(PROG ": rank %u: PMIx_Notify_event: %s\n",
			       me.rank, PMIx_Error_string(rc));
	} else {
		for (int i = 0; i < 5000 && !finished; i++)
			usleep(1000);
		pthread_mutex_lock(&lock);
		if (!why[0] && strcmp(order, EXPECT))
			snprintf(why, sizeof(why), "ran in order \"%s\"",
				 order);
		printf(PROG ": rank %u of %u on %s: %s; BEFORE/AFTER/DUP: "
			    "%s/%s/%s: %s%s\n",
		       me.rank, size, client_host(), order,
		       PMIx_Error_string(before), PMIx_Error_string(after),
		       PMIx_Error_string(dup), why[0] ? "FAILED: " : "ok", why);
		pthread_mutex_unlock(&lock);
	}
	client_sync(&me, 2);
	PMIx_Finalize(NULL, 0);
	return why[0] ? 1 : 0;
}
