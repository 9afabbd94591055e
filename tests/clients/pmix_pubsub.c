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
 * Output: "pmix_pubsub: rank R of N on HOST: ROLE: ok" (or "FAILED", with
 * a line per problem before it); ROLE is publisher, looker or bystander.
 * Exit status 0 only when every check passed.
 */
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
