/*
 * pmix_hello - minimal PMIx wire-up client: PMIx_Init, put a value, fence
 * with data collection, read every peer's value, PMIx_Finalize.
 *
 * Prints one line per rank: "pmix_hello: rank R of N on HOST: ok".
 * Exit status 0 only when every step and every peer value checked out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define KEY "hello.rank" /* keys starting "pmix" are reserved */

static int fail(const char *what, pmix_status_t rc)
{
	fprintf(stderr, "pmix_hello: %s failed: %s\n", what,
		PMIx_Error_string(rc));
	return 1;
}

int main(void)
{
	pmix_proc_t me, peer, wild;
	pmix_value_t val, *got = NULL;
	pmix_info_t collect;
	uint32_t size = 0;
	char host[256];
	pmix_status_t rc;
	int bad = 0;

	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS)
		return fail("PMIx_Init", rc);
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if ((rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &got)) !=
	    PMIX_SUCCESS)
		return fail("PMIx_Get(PMIX_JOB_SIZE)", rc);
	size = got->data.uint32;
	PMIX_VALUE_RELEASE(got);

	val.type = PMIX_UINT32;
	val.data.uint32 = me.rank;
	if ((rc = PMIx_Put(PMIX_GLOBAL, KEY, &val)) != PMIX_SUCCESS)
		return fail("PMIx_Put", rc);
	if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
		return fail("PMIx_Commit", rc);
	PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	if ((rc = PMIx_Fence(&wild, 1, &collect, 1)) != PMIX_SUCCESS)
		return fail("PMIx_Fence", rc);

	for (uint32_t r = 0; r < size; r++) {
		PMIX_LOAD_PROCID(&peer, me.nspace, r);
		if ((rc = PMIx_Get(&peer, KEY, NULL, 0, &got)) !=
		    PMIX_SUCCESS) {
			fprintf(stderr,
				"pmix_hello: rank %u: get rank %u: %s\n",
				me.rank, r, PMIx_Error_string(rc));
			bad = 1;
			continue;
		}
		if (got->type != PMIX_UINT32 || got->data.uint32 != r) {
			fprintf(stderr,
				"pmix_hello: rank %u: wrong value from "
				"rank %u\n",
				me.rank, r);
			bad = 1;
		}
		PMIX_VALUE_RELEASE(got);
	}
	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	printf("pmix_hello: rank %u of %u on %s: %s\n", me.rank, size, host,
	       bad ? "FAILED" : "ok");
	if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS)
		return fail("PMIx_Finalize", rc);
	return bad;
}
