/*
 * pmix_pubsub - PMIx_Publish / PMIx_Lookup / PMIx_Unpublish across nodes.
 *
 * usage: pmix_pubsub
 *
 * Rank 0 publishes "pmixev.test.<SLURM_JOB_ID>" one second after a
 * synchronising fence; meanwhile the last rank looks it up with PMIX_WAIT
 * and PMIX_TIMEOUT 20, so the lookup must wait for the publish, and checks
 * the value and the publishing proc. After another fence rank 0 unpublishes
 * the key; after a third the last rank looks it up again without waiting,
 * which must fail with PMIX_ERR_NOT_FOUND. The phases are ordered by
 * data-collecting fences (client_sync), which are barriers on every host.
 *
 * Then range and persistence (6 ranks, two per node in block layout:
 * ranks 0 and 1 on the first node, 5 on the last): rank 0 publishes a
 * PMIX_PERSIST_FIRST_READ key, a PMIX_RANGE_SESSION key, a
 * PMIX_RANGE_LOCAL key and a PMIX_RANGE_PROC_LOCAL key (one in
 * PMIX_RANGE_RM is refused), and half a second later a second FIRST_READ
 * key that rank 3 waits for (PMIX_WAIT). After
 * a fence rank 5 finds the first FIRST_READ key and the SESSION key but
 * neither local one, rank 1 finds the LOCAL key but not the PROC_LOCAL
 * one, rank 0 its PROC_LOCAL key. After another, rank 2 no longer finds
 * the FIRST_READ key and finds the SESSION key again, rank 4 no longer
 * finds the waited-for key. After a third, rank 0's unpublish of the
 * SESSION key in PMIX_RANGE_LOCAL finds nothing, in the default range
 * removes it.
 *
 * Output: "pmix_pubsub: rank R of N on HOST: ROLE: ok" (or "FAILED", with
 * a line per problem before it); ROLE is publisher, looker or bystander;
 * each range check passed: "pmix_pubsub: rank R on HOST: scope: WHAT: ok".
 * Exit status 0 only when every check passed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "client_util.h"

#define PROG "pmix_pubsub"

static pmix_proc_t me;
static unsigned nbad;

static void fail(const char *what, pmix_status_t rc)
{
	printf(PROG ": rank %u: %s: %s\n", me.rank, what,
	       PMIx_Error_string(rc));
	nbad++;
}

static void publish(const char *key, const char *value)
{
	pmix_info_t info;
	pmix_status_t rc;

	PMIX_INFO_LOAD(&info, key, value, PMIX_STRING);
	rc = PMIx_Publish(&info, 1);
	PMIX_INFO_DESTRUCT(&info);
	if (rc != PMIX_SUCCESS)
		fail("PMIx_Publish", rc);
	else
		printf(PROG ": rank %u on %s: published %s\n", me.rank,
		       client_host(), key);
}

static void unpublish(char *key)
{
	char *keys[] = {key, NULL};
	pmix_status_t rc;

	rc = PMIx_Unpublish(keys, NULL, 0);
	if (rc != PMIX_SUCCESS)
		fail("PMIx_Unpublish", rc);
	else
		printf(PROG ": rank %u on %s: unpublished %s\n", me.rank,
		       client_host(), key);
}

/* First lookup: wait for the key, then check value and publisher. */
static void lookup_wait(const char *key, const char *value)
{
	int timeout = 20, wait = 0;
	pmix_info_t info[2];
	pmix_pdata_t pdata;
	pmix_status_t rc;
	double t0;

	PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &wait, PMIX_INT);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
	PMIX_PDATA_CONSTRUCT(&pdata);
	PMIX_LOAD_KEY(pdata.key, key);
	t0 = client_now();
	rc = PMIx_Lookup(&pdata, 1, info, 2);
	if (rc != PMIX_SUCCESS) {
		fail("PMIx_Lookup with PMIX_WAIT", rc);
	} else if (pdata.value.type != PMIX_STRING ||
		   strcmp(pdata.value.data.string, value)) {
		printf(PROG ": rank %u: PMIx_Lookup(%s): got %s '%s', "
			    "expected '%s'\n",
		       me.rank, key, PMIx_Data_type_string(pdata.value.type),
		       pdata.value.type == PMIX_STRING ? pdata.value.data.string
						       : "",
		       value);
		nbad++;
	} else if (!PMIX_CHECK_NSPACE(pdata.proc.nspace, me.nspace) ||
		   pdata.proc.rank != 0) {
		printf(PROG ": rank %u: PMIx_Lookup(%s): published by %s:%u, "
			    "expected %s:0\n",
		       me.rank, key, pdata.proc.nspace, pdata.proc.rank,
		       me.nspace);
		nbad++;
	} else {
		printf(PROG ": rank %u on %s: looked up %s with PMIX_WAIT "
			    "after %.3f s: ok\n",
		       me.rank, client_host(), key, client_now() - t0);
	}
	PMIX_PDATA_DESTRUCT(&pdata);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
}

/* Second lookup, after the unpublish: must be PMIX_ERR_NOT_FOUND. */
static void lookup_gone(const char *key)
{
	pmix_pdata_t pdata;
	pmix_status_t rc;

	PMIX_PDATA_CONSTRUCT(&pdata);
	PMIX_LOAD_KEY(pdata.key, key);
	rc = PMIx_Lookup(&pdata, 1, NULL, 0);
	if (rc == PMIX_ERR_NOT_FOUND) {
		printf(PROG ": rank %u on %s: %s is gone after the unpublish: "
			    "ok\n",
		       me.rank, client_host(), key);
	} else {
		printf(PROG ": rank %u: PMIx_Lookup(%s) after the unpublish: "
			    "got %s, expected %s\n",
		       me.rank, key, PMIx_Error_string(rc),
		       PMIx_Error_string(PMIX_ERR_NOT_FOUND));
		nbad++;
	}
	PMIX_PDATA_DESTRUCT(&pdata);
}

/* Rank 0's value of `key`. */
static void value_of(const char *key, char *value, size_t size)
{
	snprintf(value, size, "%s published by rank 0 of %s", key, me.nspace);
}

static void scope_ok(const char *what)
{
	printf(PROG ": rank %u on %s: scope: %s: ok\n", me.rank, client_host(),
	       what);
}

static void scope_bad(const char *what, const char *why, pmix_status_t rc)
{
	printf(PROG ": rank %u: scope: %s: %s%s\n", me.rank, what, why,
	       PMIx_Error_string(rc));
	nbad++;
}

/* Publish `key` in `range` with `persist` (UNDEF/INDEF: not given),
 * expecting `want`. */
static void publish_scoped(const char *key, pmix_data_range_t range,
			   pmix_persistence_t persist, pmix_status_t want)
{
	char value[PMIX_MAX_NSLEN + 2 * PMIX_MAX_KEYLEN];
	pmix_info_t info[3];
	size_t n = 1;
	pmix_status_t rc;

	value_of(key, value, sizeof(value));
	PMIX_INFO_LOAD(&info[0], key, value, PMIX_STRING);
	if (range != PMIX_RANGE_UNDEF)
		PMIX_INFO_LOAD(&info[n++], PMIX_RANGE, &range, PMIX_DATA_RANGE);
	if (persist != PMIX_PERSIST_INDEF)
		PMIX_INFO_LOAD(&info[n++], PMIX_PERSISTENCE, &persist,
			       PMIX_PERSIST);
	rc = PMIx_Publish(info, n);
	for (size_t i = 0; i < n; i++)
		PMIX_INFO_DESTRUCT(&info[i]);
	if (rc != want)
		scope_bad(key, "PMIx_Publish: ", rc);
	else if (want != PMIX_SUCCESS)
		scope_ok("publish in range rm refused");
}

/*
 * Look `key` up (waiting 20 s when `wait`; in `range` unless UNDEF):
 * `want` is PMIX_SUCCESS with rank 0's value, or the error expected.
 */
static void lookup_scoped(const char *what, const char *key, bool wait,
			  pmix_data_range_t range, pmix_status_t want)
{
	char value[PMIX_MAX_NSLEN + 2 * PMIX_MAX_KEYLEN];
	int timeout = 20, flag = 0;
	pmix_info_t info[3];
	pmix_pdata_t pdata;
	pmix_status_t rc;
	size_t n = 0;

	if (wait) {
		PMIX_INFO_LOAD(&info[n++], PMIX_WAIT, &flag, PMIX_INT);
		PMIX_INFO_LOAD(&info[n++], PMIX_TIMEOUT, &timeout, PMIX_INT);
	}
	if (range != PMIX_RANGE_UNDEF)
		PMIX_INFO_LOAD(&info[n++], PMIX_RANGE, &range, PMIX_DATA_RANGE);
	PMIX_PDATA_CONSTRUCT(&pdata);
	PMIX_LOAD_KEY(pdata.key, key);
	rc = PMIx_Lookup(&pdata, 1, n ? info : NULL, n);
	value_of(key, value, sizeof(value));
	if (rc != want)
		scope_bad(what,
			  want == PMIX_SUCCESS ? "" : "not refused: ", rc);
	else if (rc == PMIX_SUCCESS &&
		 (pdata.value.type != PMIX_STRING ||
		  strcmp(pdata.value.data.string, value) != 0 ||
		  pdata.proc.rank != 0))
		scope_bad(what, "wrong value or publisher: ", rc);
	else
		scope_ok(what);
	PMIX_PDATA_DESTRUCT(&pdata);
	for (size_t i = 0; i < n; i++)
		PMIX_INFO_DESTRUCT(&info[i]);
}

/* Unpublish `key` (in `range` unless UNDEF), expecting `want`. */
static void unpublish_scoped(const char *what, char *key,
			     pmix_data_range_t range, pmix_status_t want)
{
	char *keys[] = {key, NULL};
	pmix_info_t info;
	pmix_status_t rc;

	PMIX_INFO_LOAD(&info, PMIX_RANGE, &range, PMIX_DATA_RANGE);
	rc = PMIx_Unpublish(keys, range != PMIX_RANGE_UNDEF ? &info : NULL,
			    range != PMIX_RANGE_UNDEF ? 1 : 0);
	PMIX_INFO_DESTRUCT(&info);
	if (rc != want)
		scope_bad(what, "PMIx_Unpublish: ", rc);
	else
		scope_ok(what);
}

/* The range and persistence phases (see the top of this file). */
static void scopes(const char *jobid)
{
	char fr[PMIX_MAX_KEYLEN + 1], fw[PMIX_MAX_KEYLEN + 1],
		ss[PMIX_MAX_KEYLEN + 1], lo[PMIX_MAX_KEYLEN + 1],
		pl[PMIX_MAX_KEYLEN + 1], rm[PMIX_MAX_KEYLEN + 1];
	pmix_status_t rc;

	snprintf(fr, sizeof(fr), "pmixev.fr.%s", jobid);
	snprintf(fw, sizeof(fw), "pmixev.fw.%s", jobid);
	snprintf(ss, sizeof(ss), "pmixev.ss.%s", jobid);
	snprintf(lo, sizeof(lo), "pmixev.lo.%s", jobid);
	snprintf(pl, sizeof(pl), "pmixev.pl.%s", jobid);
	snprintf(rm, sizeof(rm), "pmixev.rm.%s", jobid);
	if (me.rank == 0) {
		publish_scoped(fr, PMIX_RANGE_UNDEF, PMIX_PERSIST_FIRST_READ,
			       PMIX_SUCCESS);
		publish_scoped(ss, PMIX_RANGE_SESSION, PMIX_PERSIST_INDEF,
			       PMIX_SUCCESS);
		publish_scoped(lo, PMIX_RANGE_LOCAL, PMIX_PERSIST_INDEF,
			       PMIX_SUCCESS);
		publish_scoped(pl, PMIX_RANGE_PROC_LOCAL, PMIX_PERSIST_INDEF,
			       PMIX_SUCCESS);
		publish_scoped(rm, PMIX_RANGE_RM, PMIX_PERSIST_INDEF,
			       PMIX_ERR_NOT_SUPPORTED);
		usleep(500000); /* let rank 3's lookup wait */
		publish_scoped(fw, PMIX_RANGE_UNDEF, PMIX_PERSIST_FIRST_READ,
			       PMIX_SUCCESS);
	} else if (me.rank == 3) {
		lookup_scoped("first-read key found by a waiting lookup", fw,
			      true, PMIX_RANGE_UNDEF, PMIX_SUCCESS);
	}
	if ((rc = client_sync(&me, 4)) != PMIX_SUCCESS) {
		fail("fence after the scoped publishes", rc);
		return;
	}
	if (me.rank == 5) {
		lookup_scoped("first-read key found", fr, false,
			      PMIX_RANGE_UNDEF, PMIX_SUCCESS);
		lookup_scoped("session key found", ss, false, PMIX_RANGE_UNDEF,
			      PMIX_SUCCESS);
		lookup_scoped("local key not found off its node", lo, false,
			      PMIX_RANGE_UNDEF, PMIX_ERR_NOT_FOUND);
		lookup_scoped("proc-local key not found by another rank", pl,
			      false, PMIX_RANGE_UNDEF, PMIX_ERR_NOT_FOUND);
	} else if (me.rank == 1) {
		lookup_scoped("local key found on its node", lo, false,
			      PMIX_RANGE_UNDEF, PMIX_SUCCESS);
		lookup_scoped("proc-local key not found by another rank", pl,
			      false, PMIX_RANGE_UNDEF, PMIX_ERR_NOT_FOUND);
	} else if (me.rank == 0) {
		lookup_scoped("proc-local key found by its publisher", pl,
			      false, PMIX_RANGE_UNDEF, PMIX_SUCCESS);
	}
	if ((rc = client_sync(&me, 5)) != PMIX_SUCCESS) {
		fail("fence after the scoped lookups", rc);
		return;
	}
	if (me.rank == 2) {
		lookup_scoped("first-read key gone after its first read", fr,
			      false, PMIX_RANGE_UNDEF, PMIX_ERR_NOT_FOUND);
		lookup_scoped("session key found again", ss, false,
			      PMIX_RANGE_UNDEF, PMIX_SUCCESS);
	} else if (me.rank == 4) {
		lookup_scoped("waited-for first-read key gone", fw, false,
			      PMIX_RANGE_UNDEF, PMIX_ERR_NOT_FOUND);
	}
	if ((rc = client_sync(&me, 6)) != PMIX_SUCCESS) {
		fail("fence after the second lookups", rc);
		return;
	}
	if (me.rank == 0) {
		unpublish_scoped("unpublish in range local leaves the session "
				 "key",
				 ss, PMIX_RANGE_LOCAL, PMIX_ERR_NOT_FOUND);
		unpublish_scoped("unpublish in the default range removes it",
				 ss, PMIX_RANGE_UNDEF, PMIX_SUCCESS);
	}
}

int main(void)
{
	char key[PMIX_MAX_KEYLEN + 1], value[PMIX_MAX_NSLEN + 64];
	const char *jobid = getenv("SLURM_JOB_ID"), *role = "?";
	pmix_status_t rc;
	uint32_t size, last;

	client_watchdog(PROG, 0);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	size = client_job_size(&me);
	if (size < 2) {
		printf(PROG ": rank %u: needs at least two ranks\n", me.rank);
		nbad++;
		goto out;
	}
	last = size - 1;
	role = me.rank == 0	 ? "publisher"
	       : me.rank == last ? "looker"
				 : "bystander";
	snprintf(key, sizeof(key), "pmixev.test.%s",
		 jobid && *jobid ? jobid : me.nspace);
	snprintf(value, sizeof(value), "published by rank 0 of %s", me.nspace);

	if ((rc = client_sync(&me, 1)) != PMIX_SUCCESS) {
		fail("fence before the publish", rc);
		goto out;
	}
	if (me.rank == 0) {
		sleep(1); /* let the lookup arrive first: it must wait */
		publish(key, value);
	} else if (me.rank == last) {
		lookup_wait(key, value);
	}
	if ((rc = client_sync(&me, 2)) != PMIX_SUCCESS) {
		fail("fence after the publish", rc);
		goto out;
	}
	if (me.rank == 0)
		unpublish(key);
	if ((rc = client_sync(&me, 3)) != PMIX_SUCCESS) {
		fail("fence after the unpublish", rc);
		goto out;
	}
	if (me.rank == last)
		lookup_gone(key);
	if (size == 6)
		scopes(jobid && *jobid ? jobid : "0");
out:
	printf(PROG ": rank %u of %u on %s: %s: %s\n", me.rank, size,
	       client_host(), role, nbad ? "FAILED" : "ok");
	fflush(stdout);
	if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: PMIx_Finalize: %s\n", me.rank,
		       PMIx_Error_string(rc));
		return 1;
	}
	return nbad ? 1 : 0;
}
