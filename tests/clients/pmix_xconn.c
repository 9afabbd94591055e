/*
 * pmix_xconn - connect, fence and disconnect across the steps of a spawn
 * family (doc/spawn.md §5.1), as Open MPI's MPI_Comm_spawn does them.
 *
 * usage: pmix_xconn [--host LIST]
 *
 * As a parent, rank 0 spawns two processes of itself (on the hosts LIST,
 * PMIX_HOST, if given) and gives the child namespace to the other parent
 * ranks (a key and a fence in its own namespace); each of them waits until
 * its server knows the child namespace (PMIX_JOB_SIZE). A child takes its
 * parent's from PMIX_PARENT_ID. Then (after the late connect below) every
 * process of both steps, each step's part being {NSPACE, WILDCARD}:
 *   PMIx_Connect over both;
 *   PMIx_Put "xconn.parent"/"xconn.child" = "parent-R"/"child-R",
 *   PMIx_Commit, PMIx_Fence over both with PMIX_COLLECT_DATA, PMIx_Get
 *   of the other step's rank R % its size (by direct modex: the fence
 *   gives each server its own step's data), PMIx_Get of its own step's
 *   rank (R + 1) % its size, and of the other step's key from that rank
 *   with PMIX_IMMEDIATE ("stray": never found);
 *   PMIx_Disconnect over both; a data-less PMIx_Fence over both.
 * Each prints "pmix_xconn: ROLE rank R: OP rc=N ms=T" (OP: connect,
 * fence, disconnect, barrier) and, for each PMIx_Get, "pmix_xconn: ROLE
 * rank R: got KEY=VALUE from NSPACE rank Q" or "... get KEY from NSPACE
 * rank Q: rc=N".
 * Before all that, a connect the children join late: the parents' has
 * PMIX_TIMEOUT 2; rank 0 then publishes "xconn.go", which each child
 * looks up (PMIX_WAIT) before it calls: "pmix_xconn: ROLE rank R: late
 * connect rc=N ms=T". Every process then fences in its own namespace and
 * finalizes; exit status 0 unless PMIx failed.
 *
 * The ends of the other step: each process counts the process-end events
 * it gets from the other namespace. Without XCONN_DIE, after the
 * data-less fence rank 0 (the spawner) waits until it got both
 * children's (at most 5 s), and after the final fence every parent says
 * "pmix_xconn: parent rank R: N end(s) in the other step": only the
 * spawner hears of children no longer connected. With XCONN_DIE (in the
 * environment, which the children inherit) only the connect is done, no
 * late one, then: 1: child rank 1 kills itself (SIGKILL), child rank 0
 * ends normally, and each parent says the same once it got both ends (at
 * most 10 s); 2: parent rank 2 kills itself, the other parents end a
 * second later, and each child says the same once it got one end (at
 * most 10 s); 3: the children end at once, and the parents' connect
 * (PMIX_TIMEOUT 20) fails when the child step is gone.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "client_util.h"

#define PROG "pmix_xconn"

static pmix_proc_t me;
static const char *role;
static long die; /* XCONN_DIE: 1 a child dies, 2 a parent */

static atomic_uint other_ends;

/* A process-end event: counted when it is another namespace's. */
static void on_end(size_t id, pmix_status_t status, const pmix_proc_t *src,
		   pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		   size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
		   void *cbdata)
{
	(void)id;
	(void)status;
	(void)info;
	(void)ninfo;
	(void)results;
	(void)nresults;
	if (src && !PMIX_CHECK_NSPACE(src->nspace, me.nspace))
		atomic_fetch_add(&other_ends, 1);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* The count of the other step's ends (not of the own step's). */
static void watch_ends(void)
{
	pmix_status_t codes[] = {
		PMIX_EVENT_PROC_TERMINATED, PMIX_ERR_PROC_ABORTED_BY_SIG,
		PMIX_ERR_PROC_TERM_WO_SYNC, PMIX_ERR_EXIT_NONZERO_TERM};

	if (client_register(codes, 4, on_end) < 0)
		printf(PROG ": %s rank %u: cannot register for process ends\n",
		       role, me.rank);
}

/* Wait (at most `secs`) until `n` ends of the other step came. */
static void wait_ends(unsigned secs, unsigned n)
{
	for (unsigned i = 0; i < secs * 20 && atomic_load(&other_ends) < n; i++)
		usleep(50000);
}

static void say_ends(void)
{
	printf(PROG ": %s rank %u: %u end(s) in the other step\n", role,
	       me.rank, atomic_load(&other_ends));
}

/* After `across`: the ends of the other step's processes (see above).
 * 0, or -1 when the last fence failed. */
static int ends(const pmix_proc_t *wild)
{
	bool parent = !strcmp(role, "parent");

	if (die == 3) /* the parents: their connect failed */
		return PMIx_Fence(wild, 1, NULL, 0) == PMIX_SUCCESS ? 0 : -1;
	if ((die == 1 && !parent && me.rank == 1) ||
	    (die == 2 && parent && me.rank == 2))
		raise(SIGKILL);
	if (die == 1 && !parent)
		return 0;
	if (die == 2 && parent) {
		sleep(1); /* the children hear of rank 2 meanwhile */
		return 0;
	}
	if (die > 0) {
		wait_ends(10, die == 1 ? 2 : 1);
		say_ends();
		return 0;
	}
	if (parent && me.rank == 0)
		wait_ends(5, 2);
	if (PMIx_Fence(wild, 1, NULL, 0) != PMIX_SUCCESS)
		return -1;
	if (parent)
		say_ends(); /* the spawner's came first */
	return 0;
}

static void said(const char *op, pmix_status_t rc, double t0)
{
	printf(PROG ": %s rank %u: %s rc=%d ms=%.0f\n", role, me.rank, op,
	       (int)rc, (client_now() - t0) * 1000.0);
}

/* A string value of `who`'s `key` (without asking the host when `now`),
 * or NULL. */
static char *get_string(const pmix_proc_t *who, const char *key, bool now,
			pmix_status_t *rc)
{
	pmix_value_t *v = NULL;
	pmix_info_t info;
	int secs = 5;
	char *s = NULL;

	if (now)
		PMIX_INFO_LOAD(&info, PMIX_IMMEDIATE, NULL, PMIX_BOOL);
	else
		PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
	*rc = PMIx_Get(who, key, &info, 1, &v);
	PMIX_INFO_DESTRUCT(&info);
	if (*rc == PMIX_SUCCESS && v->type == PMIX_STRING)
		s = strdup(v->data.string);
	else if (*rc == PMIX_SUCCESS)
		*rc = PMIX_ERR_TYPE_MISMATCH;
	if (v)
		PMIX_VALUE_RELEASE(v);
	return s;
}

static pmix_status_t put(const char *key, const char *val)
{
	pmix_value_t v;
	pmix_status_t rc;

	PMIX_VALUE_LOAD(&v, val, PMIX_STRING);
	rc = PMIx_Put(PMIX_GLOBAL, key, &v);
	PMIX_VALUE_DESTRUCT(&v);
	return rc == PMIX_SUCCESS ? PMIx_Commit() : rc;
}

/* The size of namespace `ns` once this server knows it (up to 10 s). */
static uint32_t size_of(const char *ns)
{
	pmix_proc_t wild;
	pmix_value_t *v = NULL;
	uint32_t n = 0;

	PMIX_LOAD_PROCID(&wild, ns, PMIX_RANK_WILDCARD);
	for (int i = 0; i < 200 && !n; i++) {
		if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) ==
			    PMIX_SUCCESS &&
		    v->type == PMIX_UINT32)
			n = v->data.uint32;
		if (v)
			PMIX_VALUE_RELEASE(v);
		v = NULL;
		if (!n)
			usleep(50000);
	}
	return n;
}

/* Rank 0 spawns; every parent rank learns the child namespace. */
static int spawn_children(const char *self, const char *host, char *child)
{
	pmix_proc_t wild, zero;
	pmix_app_t *app = NULL;
	pmix_info_t job;
	pmix_nspace_t ns = "";
	pmix_status_t rc = PMIX_SUCCESS;
	char *s;

	if (me.rank == 0) {
		PMIX_APP_CREATE(app, 1);
		app->cmd = strdup(self);
		PMIX_ARGV_APPEND(rc, app->argv, self);
		app->maxprocs = 2;
		if (host)
			PMIX_INFO_LOAD(&job, PMIX_HOST, host, PMIX_STRING);
		rc = PMIx_Spawn(host ? &job : NULL, host ? 1 : 0, app, 1, ns);
		if (host)
			PMIX_INFO_DESTRUCT(&job);
		PMIX_APP_FREE(app, 1);
		if (rc != PMIX_SUCCESS)
			printf(PROG ": parent spawn failed: rc=%d\n", (int)rc);
		else
			rc = put("xconn.ns", ns);
	}
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	PMIX_INFO_LOAD(&job, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	if (PMIx_Fence(&wild, 1, &job, 1) != PMIX_SUCCESS || rc) {
		PMIX_INFO_DESTRUCT(&job);
		return -1;
	}
	PMIX_INFO_DESTRUCT(&job);
	PMIX_LOAD_PROCID(&zero, me.nspace, 0);
	if (!(s = get_string(&zero, "xconn.ns", false, &rc)))
		return -1;
	snprintf(child, PMIX_MAX_NSLEN + 1, "%s", s);
	free(s);
	return 0;
}

/* PMIx_Get `key` of `ns` rank `rank` and say what came. */
static void show_get(const char *ns, pmix_rank_t rank, const char *key,
		     bool now)
{
	pmix_proc_t who;
	pmix_status_t rc;
	char *got;

	PMIX_LOAD_PROCID(&who, ns, rank);
	if ((got = get_string(&who, key, now, &rc)))
		printf(PROG ": %s rank %u: got %s=%s from %s rank %u\n", role,
		       me.rank, key, got, ns, rank);
	else
		printf(PROG ": %s rank %u: get %s from %s rank %u: rc=%d\n",
		       role, me.rank, key, ns, rank, (int)rc);
	free(got);
}

/* Connect, exchange, disconnect and fence across both steps. */
static void across(const char *parent, const char *child)
{
	const char *other = strcmp(role, "parent") ? parent : child;
	const char *okey =
		strcmp(role, "parent") ? "xconn.parent" : "xconn.child";
	pmix_proc_t both[2];
	pmix_info_t info[2];
	char key[32], val[32];
	pmix_status_t rc;
	uint32_t n = size_of(other), own = size_of(me.nspace);
	int secs = 20;
	double t0;

	PMIX_LOAD_PROCID(&both[0], parent, PMIX_RANK_WILDCARD);
	PMIX_LOAD_PROCID(&both[1], child, PMIX_RANK_WILDCARD);
	PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &secs, PMIX_INT);
	t0 = client_now();
	said("connect", PMIx_Connect(both, 2, info, 1), t0);
	if (die > 0) {
		PMIX_INFO_DESTRUCT(&info[0]);
		return;
	}
	snprintf(key, sizeof(key), "xconn.%s", role);
	snprintf(val, sizeof(val), "%s-%u", role, me.rank);
	if ((rc = put(key, val)) != PMIX_SUCCESS)
		printf(PROG ": %s rank %u: put rc=%d\n", role, me.rank,
		       (int)rc);
	PMIX_INFO_LOAD(&info[1], PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	t0 = client_now();
	said("fence", PMIx_Fence(both, 2, info, 2), t0);
	show_get(other, n ? me.rank % n : 0, okey, false);
	show_get(me.nspace, own ? (me.rank + 1) % own : 0, key, false);
	show_get(me.nspace, own ? (me.rank + 1) % own : 0, okey, true);
	t0 = client_now();
	said("disconnect", PMIx_Disconnect(both, 2, info, 1), t0);
	t0 = client_now();
	said("barrier", PMIx_Fence(both, 2, info, 1), t0);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
}

/*
 * A connect the children join late: the parents' (PMIX_TIMEOUT 2) fails
 * without them; then rank 0 publishes "xconn.go", which the children wait
 * for before they connect, and fail at once: their step heard of it.
 */
static void late_connect(const char *parent, const char *child)
{
	pmix_proc_t both[2];
	pmix_info_t info[2];
	pmix_pdata_t go;
	int secs = strcmp(role, "parent") ? 10 : 2;
	bool wait = true;
	double t0;

	PMIX_LOAD_PROCID(&both[0], parent, PMIX_RANK_WILDCARD);
	PMIX_LOAD_PROCID(&both[1], child, PMIX_RANK_WILDCARD);
	PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &secs, PMIX_INT);
	if (strcmp(role, "parent")) {
		PMIX_PDATA_CONSTRUCT(&go);
		PMIX_LOAD_KEY(go.key, "xconn.go");
		PMIX_INFO_LOAD(&info[1], PMIX_WAIT, &wait, PMIX_BOOL);
		if (PMIx_Lookup(&go, 1, info, 2) != PMIX_SUCCESS)
			printf(PROG ": child rank %u: no xconn.go\n", me.rank);
		PMIX_PDATA_DESTRUCT(&go);
		PMIX_INFO_DESTRUCT(&info[1]);
	}
	t0 = client_now();
	said("late connect", PMIx_Connect(both, 2, info, 1), t0);
	if (!strcmp(role, "parent") && me.rank == 0) {
		PMIX_INFO_LOAD(&info[1], "xconn.go", "1", PMIX_STRING);
		if (PMIx_Publish(&info[1], 1) != PMIX_SUCCESS)
			printf(PROG
			       ": parent rank 0: cannot publish xconn.go\n");
		PMIX_INFO_DESTRUCT(&info[1]);
	}
	PMIX_INFO_DESTRUCT(&info[0]);
}

int main(int argc, char **argv)
{
	const char *host;
	char parent[PMIX_MAX_NSLEN + 1] = "", child[PMIX_MAX_NSLEN + 1] = "";
	pmix_proc_t wild;
	pmix_value_t *v = NULL;
	pmix_status_t rc;
	bool spawned = false;
	int ok = 0;
	int st;

	if ((st = client_family_init(PROG, argc, argv, 60, &me, &host)))
		return st;
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	spawned = client_spawned(&me);
	role = spawned ? "child" : "parent";
	if (spawned) {
		snprintf(child, sizeof(child), "%s", me.nspace);
		if (PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &v) ==
			    PMIX_SUCCESS &&
		    v->type == PMIX_PROC)
			snprintf(parent, sizeof(parent), "%s",
				 v->data.proc->nspace);
		else
			ok = -1;
		if (v)
			PMIX_VALUE_RELEASE(v);
	} else {
		snprintf(parent, sizeof(parent), "%s", me.nspace);
		ok = spawn_children(argv[0], host, child);
	}
	die = client_env_long("XCONN_DIE"); /* -1: unset */
	if (die == 3 && spawned) {	    /* gone before any connect */
		PMIx_Finalize(NULL, 0);
		return 0;
	}
	watch_ends();
	if (ok == 0) {
		if (die <= 0)
			late_connect(parent, child);
		across(parent, child);
	} else {
		printf(PROG ": %s rank %u: no other step\n", role, me.rank);
	}
	rc = ends(&wild) < 0 ? PMIX_ERROR : PMIX_SUCCESS;
	PMIx_Finalize(NULL, 0);
	return rc == PMIX_SUCCESS && ok == 0 ? 0 : 1;
}
