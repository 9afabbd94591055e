/*
 * pmix_xpub - PMIx_Publish and PMIx_Lookup across the steps of a spawn
 * family (doc/spawn.md §5.3).
 *
 * usage: pmix_xpub [--host LIST]
 *
 * As a parent, rank 0 publishes "xpub.parent" (default range) and
 * "xpub.once" (PMIX_PERSIST_FIRST_READ), starts a lookup of "xpub.child"
 * with PMIX_WAIT, then spawns two processes of itself (on the hosts LIST,
 * PMIX_HOST, if given) and waits for the lookup: "pmix_xpub: parent got
 * xpub.child=VALUE from NSPACE rank R child=0|1" (child=1: NSPACE is the
 * spawned one) or "pmix_xpub: parent lookup of xpub.child: STATUS".
 *
 * A child (PMIX_SPAWNED): rank 0 looks up "xpub.parent" with PMIX_WAIT and
 * then "xpub.once", printing "pmix_xpub: child rank 0 got KEY=VALUE from
 * NSPACE rank R parent=0|1" (parent=1: NSPACE is PMIX_PARENT_ID's) or
 * "pmix_xpub: child rank R lookup of KEY: STATUS"; after a fence rank 1
 * looks up "xpub.once" without waiting (FIRST_READ: gone) and then
 * publishes "xpub.child" for the parent. Every process fences in its
 * own namespace and finalizes; exit status 0 unless PMIx failed.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "client_util.h"

#define PROG "pmix_xpub"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static bool done;
static pmix_status_t got_rc;
static char got_val[64], got_ns[PMIX_MAX_NSLEN + 1];
static pmix_rank_t got_rank;

static void on_lookup(pmix_status_t status, pmix_pdata_t data[], size_t n,
		      void *cbdata)
{
	(void)cbdata;
	pthread_mutex_lock(&mu);
	got_rc = status;
	if (status == PMIX_SUCCESS && n == 1 &&
	    data[0].value.type == PMIX_STRING) {
		snprintf(got_val, sizeof(got_val), "%s",
			 data[0].value.data.string);
		snprintf(got_ns, sizeof(got_ns), "%s", data[0].proc.nspace);
		got_rank = data[0].proc.rank;
	} else if (status == PMIX_SUCCESS) {
		got_rc = PMIX_ERR_BAD_PARAM;
	}
	done = true;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

static pmix_status_t publish(const char *key, const char *val, bool once)
{
	pmix_info_t info[2];
	pmix_persistence_t p = PMIX_PERSIST_FIRST_READ;
	pmix_status_t rc;

	PMIX_INFO_LOAD(&info[0], key, val, PMIX_STRING);
	PMIX_INFO_LOAD(&info[1], PMIX_PERSISTENCE, &p, PMIX_PERSIST);
	rc = PMIx_Publish(info, once ? 2 : 1);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
	return rc;
}

/* Look `key` up (waiting when `wait`), the answer in got_*. */
static pmix_status_t lookup_nb(const char *key, bool wait)
{
	static char *keys[2];
	pmix_info_t info[2];
	bool t = true;
	int secs = 30;

	keys[0] = (char *)key;
	done = false;
	PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &t, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &secs, PMIX_INT);
	return PMIx_Lookup_nb(keys, info, wait ? 2 : 0, on_lookup, NULL);
}

static pmix_status_t lookup_wait(void)
{
	pthread_mutex_lock(&mu);
	while (!done)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return got_rc;
}

static void report(const char *who, const char *key, pmix_status_t rc,
		   const char *other)
{
	if (rc == PMIX_SUCCESS)
		printf(PROG ": %s got %s=%s from %s rank %u %s=%d\n", who, key,
		       got_val, got_ns, got_rank,
		       strcmp(who, "parent") ? "parent" : "child",
		       strcmp(got_ns, other) == 0);
	else
		printf(PROG ": %s lookup of %s: %s\n", who, key,
		       PMIx_Error_string(rc));
}

static void parent(const pmix_proc_t *me, const char *self, const char *host)
{
	pmix_app_t *app = NULL;
	pmix_info_t job;
	pmix_nspace_t ns = "";
	pmix_status_t rc;

	if ((rc = publish("xpub.parent", "hello-parent", false)) !=
		    PMIX_SUCCESS ||
	    (rc = publish("xpub.once", "once", true)) != PMIX_SUCCESS ||
	    (rc = lookup_nb("xpub.child", true)) != PMIX_SUCCESS) {
		printf(PROG ": parent rank %u: publish: %s\n", me->rank,
		       PMIx_Error_string(rc));
		return;
	}
	PMIX_APP_CREATE(app, 1);
	app->cmd = strdup(self);
	PMIX_ARGV_APPEND(rc, app->argv, self);
	app->maxprocs = 2;
	if (host)
		PMIX_INFO_LOAD(&job, PMIX_HOST, host, PMIX_STRING);
	rc = PMIx_Spawn(host ? &job : NULL, host ? 1 : 0, app, 1, ns);
	if (rc != PMIX_SUCCESS)
		printf(PROG ": parent spawn failed: %s\n",
		       PMIx_Error_string(rc));
	else
		report("parent", "xpub.child", lookup_wait(), ns);
	if (host)
		PMIX_INFO_DESTRUCT(&job);
	PMIX_APP_FREE(app, 1);
}

static void child(const pmix_proc_t *me)
{
	pmix_proc_t wild;
	char par[PMIX_MAX_NSLEN + 1] = "";
	char who[32];
	pmix_status_t rc;

	PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
	client_parent_ns(me, par);
	snprintf(who, sizeof(who), "child rank %u", me->rank);
	if (me->rank == 0) {
		rc = lookup_nb("xpub.parent", true);
		report(who, "xpub.parent", rc ? rc : lookup_wait(), par);
		rc = lookup_nb("xpub.once", false);
		report(who, "xpub.once", rc ? rc : lookup_wait(), par);
	}
	PMIx_Fence(&wild, 1, NULL, 0);
	if (me->rank == 1) {
		rc = lookup_nb("xpub.once", false);
		report(who, "xpub.once", rc ? rc : lookup_wait(), par);
		if ((rc = publish("xpub.child", "hello-child", false)) !=
		    PMIX_SUCCESS)
			printf(PROG ": child rank 1: publish: %s\n",
			       PMIx_Error_string(rc));
	}
}

int main(int argc, char **argv)
{
	const char *host;
	pmix_proc_t me, wild;
	pmix_status_t rc;
	int st;

	if ((st = client_family_init(PROG, argc, argv, 60, &me, &host)))
		return st;
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (client_spawned(&me))
		child(&me);
	else if (me.rank == 0)
		parent(&me, argv[0], host);
	rc = PMIx_Fence(&wild, 1, NULL, 0);
	PMIx_Finalize(NULL, 0);
	return rc == PMIX_SUCCESS ? 0 : 1;
}
