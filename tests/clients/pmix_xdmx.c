/*
 * pmix_xdmx - PMIx_Get of another step's rank across a spawn family, by
 * direct modex (doc/spawn.md §5.2), with no fence across the steps.
 *
 * usage: pmix_xdmx [--host LIST]
 *
 * Every process PMIx_Put's "xdmx.key" = "NSPACE:RANK@HOST" (PMIX_REMOTE)
 * and commits. As a parent, rank 0 spawns two processes of itself (on the
 * hosts LIST, PMIX_HOST, if given) while the others ask for the job's
 * next step's PMIX_JOB_SIZE (see early: "pmix_xdmx: parent rank R: early
 * NSPACE job size N: STATUS in MS ms"); rank 0 gives the child namespace
 * to them by a fence of its own step; they wait up to 3 s for
 * the child's PMIX_JOB_SIZE ("pmix_xdmx: parent rank R: child job size N
 * after MS ms"). Then each process gets "xdmx.key" of a rank of the other
 * step on another node (see ask_other), with PMIX_TIMEOUT 10:
 *   "pmix_xdmx: parent|child rank R on HOST got NSPACE rank P: VALUE in
 *    MS ms" or "... get of NSPACE rank P: STATUS in MS ms".
 * Rank 0 of each side also gets "xdmx.key" of the rank just beyond the
 * other step's size ("... beyond: STATUS in MS ms") and "xdmx.none", which
 * nobody put, of the other step's rank 0 with PMIX_TIMEOUT 2 ("... none:
 * STATUS in MS ms"). The two steps keep each other alive until both are
 * done: each side's rank 0 publishes "xdmx.pdone" or "xdmx.cdone" after a
 * fence of its step and looks up the other's with PMIX_WAIT. Exit status
 * 0 unless PMIx failed at a step that is not under test.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "client_util.h"

#define PROG "pmix_xdmx"

static const char *side = "parent";

/* PMIX_JOB_SIZE of `ns`, or -1. */
static long job_size(const char *ns)
{
	pmix_proc_t wild;
	pmix_value_t *v = NULL;
	long n = -1;

	PMIX_LOAD_PROCID(&wild, ns, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) == PMIX_SUCCESS &&
	    v->type == PMIX_UINT32)
		n = (long)v->data.uint32;
	if (v)
		PMIX_VALUE_RELEASE(v);
	return n;
}

/* Get `key` of `ns` rank `r` within `secs`; print it as `what`. */
static void get_one(const pmix_proc_t *me, const char *what, const char *ns,
		    pmix_rank_t r, const char *key, int secs)
{
	pmix_proc_t p;
	pmix_info_t info;
	pmix_value_t *v = NULL;
	pmix_status_t rc;
	double t0 = client_now(), ms;

	PMIX_LOAD_PROCID(&p, ns, r);
	PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
	rc = PMIx_Get(&p, key, &info, 1, &v);
	ms = (client_now() - t0) * 1000;
	PMIX_INFO_DESTRUCT(&info);
	if (!what && rc == PMIX_SUCCESS && v->type == PMIX_STRING) {
		printf(PROG ": %s rank %u on %s got %s rank %u: %s in %.0f "
			    "ms\n",
		       side, me->rank, client_host(), ns, r, v->data.string,
		       ms);
	} else {
		printf(PROG ": %s rank %u %s of %s rank %u: %s in %.0f ms\n",
		       side, me->rank, what ? what : "get", ns, r,
		       rc == PMIX_SUCCESS ? "SUCCESS" : PMIx_Error_string(rc),
		       ms);
	}
	if (v)
		PMIX_VALUE_RELEASE(v);
}

/*
 * Every ask of the other step `ns` of `n` ranks: its rank `r` for the key.
 * With the parent on n1-n3 and the children on n2, n3 (--host n2,n3):
 * parent ranks 0, 1, 2 ask child 0, 1, 0; children 0, 1 ask parent 2, 0,
 * each on another node than the asker.
 */
static void ask_other(const pmix_proc_t *me, const char *ns, long n,
		      pmix_rank_t r)
{
	if (n > 0)
		r %= (pmix_rank_t)n;
	get_one(me, NULL, ns, r, "xdmx.key", 10);
	if (me->rank != 0)
		return;
	get_one(me, "beyond", ns, (pmix_rank_t)n, "xdmx.key", 10);
	get_one(me, "none", ns, 0, "xdmx.none", 2);
}

static pmix_status_t put_str(pmix_scope_t scope, const char *key, const char *s)
{
	pmix_value_t val = {.type = PMIX_STRING, .data.string = (char *)s};

	return PMIx_Put(scope, key, &val);
}

/* After a fence of our step, rank 0 publishes `mine` and waits for the
 * other step's `theirs`: neither step ends while the other asks. */
static void meet(const pmix_proc_t *me, const char *mine, const char *theirs)
{
	pmix_info_t info[3];
	pmix_pdata_t pd;
	bool t = true;
	int secs = 30;
	pmix_status_t rc;

	if (client_sync(me, 1) != PMIX_SUCCESS || me->rank != 0)
		return;
	PMIX_INFO_LOAD(&info[0], mine, "1", PMIX_STRING);
	if ((rc = PMIx_Publish(info, 1)) != PMIX_SUCCESS)
		printf(PROG ": %s rank 0: publish %s: %s\n", side, mine,
		       PMIx_Error_string(rc));
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_PDATA_CONSTRUCT(&pd);
	PMIX_LOAD_KEY(pd.key, theirs);
	PMIX_INFO_LOAD(&info[1], PMIX_WAIT, &t, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[2], PMIX_TIMEOUT, &secs, PMIX_INT);
	if ((rc = PMIx_Lookup(&pd, 1, &info[1], 2)) != PMIX_SUCCESS)
		printf(PROG ": %s rank 0: lookup %s: %s\n", side, theirs,
		       PMIx_Error_string(rc));
	PMIX_PDATA_DESTRUCT(&pd);
	PMIX_INFO_DESTRUCT(&info[1]);
	PMIX_INFO_DESTRUCT(&info[2]);
}

/*
 * Before rank 0's spawn is known: PMIX_JOB_SIZE of the job's next step,
 * the child-to-be when no other step starts meanwhile, with PMIX_TIMEOUT
 * 10. OpenPMIx 4.2.2 asks the host for a namespace it does not know.
 */
static void early(const pmix_proc_t *me)
{
	pmix_proc_t wild;
	pmix_info_t info;
	pmix_value_t *v = NULL;
	pmix_status_t rc;
	unsigned job = 0, step = 0;
	int secs = 10;
	double t0 = client_now();
	long n = -1;

	if (sscanf(me->nspace, "slurm.pmixev.%u.%u", &job, &step) != 2)
		return;
	snprintf(wild.nspace, sizeof(wild.nspace), "slurm.pmixev.%u.%u", job,
		 step + 1);
	wild.rank = PMIX_RANK_WILDCARD;
	PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
	rc = PMIx_Get(&wild, PMIX_JOB_SIZE, &info, 1, &v);
	if (rc == PMIX_SUCCESS && v->type == PMIX_UINT32)
		n = (long)v->data.uint32;
	printf(PROG ": parent rank %u: early %s job size %ld: %s in %.0f ms\n",
	       me->rank, wild.nspace, n,
	       rc == PMIX_SUCCESS ? "SUCCESS" : PMIx_Error_string(rc),
	       (client_now() - t0) * 1000);
	PMIX_INFO_DESTRUCT(&info);
	if (v)
		PMIX_VALUE_RELEASE(v);
}

/* Rank 0 spawns; every rank learns the child namespace into `ns`. */
static int spawn_child(const pmix_proc_t *me, const char *self,
		       const char *host, char ns[PMIX_MAX_NSLEN + 1])
{
	pmix_proc_t wild, zero;
	pmix_app_t *app = NULL;
	pmix_info_t job, collect;
	pmix_value_t *v = NULL;
	pmix_status_t rc = PMIX_SUCCESS;
	double t0;
	bool yes = true;

	if (me->rank == 0) {
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
		else if ((rc = put_str(PMIX_GLOBAL, "xdmx.child", ns)) ==
			 PMIX_SUCCESS)
			rc = PMIx_Commit();
		if (host)
			PMIX_INFO_DESTRUCT(&job);
		PMIX_APP_FREE(app, 1);
	} else {
		early(me);
	}
	PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
	PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
	if (PMIx_Fence(&wild, 1, &collect, 1) != PMIX_SUCCESS)
		rc = PMIX_ERROR;
	PMIX_INFO_DESTRUCT(&collect);
	if (rc != PMIX_SUCCESS)
		return -1;
	if (me->rank == 0)
		return 0;
	PMIX_LOAD_PROCID(&zero, me->nspace, 0);
	if (PMIx_Get(&zero, "xdmx.child", NULL, 0, &v) != PMIX_SUCCESS ||
	    v->type != PMIX_STRING) {
		printf(PROG ": parent rank %u: no child namespace\n", me->rank);
		return -1;
	}
	snprintf(ns, PMIX_MAX_NSLEN + 1, "%s", v->data.string);
	PMIX_VALUE_RELEASE(v);
	t0 = client_now();
	for (int t = 0; t < 60 && job_size(ns) < 0; t++)
		usleep(50000);
	printf(PROG ": parent rank %u: child job size %ld after %.0f ms\n",
	       me->rank, job_size(ns), (client_now() - t0) * 1000);
	return 0;
}

int main(int argc, char **argv)
{
	const char *host;
	char other[PMIX_MAX_NSLEN + 1] = "", val[PMIX_MAX_NSLEN + 300];
	pmix_proc_t me, wild;
	pmix_value_t *v = NULL;
	pmix_status_t rc = PMIX_SUCCESS;
	bool spawned = false;
	int st;

	if ((st = client_family_init(PROG, argc, argv, 60, &me, &host)))
		return st;
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	spawned = client_spawned(&me);
	snprintf(val, sizeof(val), "%s:%u@%s", me.nspace, me.rank,
		 client_host());
	if (put_str(PMIX_REMOTE, "xdmx.key", val) != PMIX_SUCCESS ||
	    PMIx_Commit() != PMIX_SUCCESS) {
		printf(PROG ": rank %u: cannot put xdmx.key\n", me.rank);
		rc = PMIX_ERROR;
	} else if (spawned) {
		side = "child";
		if (PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &v) ==
			    PMIX_SUCCESS &&
		    v->type == PMIX_PROC) {
			snprintf(other, sizeof(other), "%s",
				 v->data.proc->nspace);
			PMIX_VALUE_RELEASE(v);
			ask_other(&me, other, job_size(other),
				  me.rank == 0 ? 2 : 0);
		}
		meet(&me, "xdmx.cdone", "xdmx.pdone");
	} else if (spawn_child(&me, argv[0], host, other) == 0) {
		ask_other(&me, other, job_size(other), me.rank == 1 ? 1 : 0);
		meet(&me, "xdmx.pdone", "xdmx.cdone");
	} else {
		rc = PMIX_ERROR;
	}
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		rc = PMIX_ERROR;
	PMIx_Finalize(NULL, 0);
	return rc == PMIX_SUCCESS ? 0 : 1;
}
