/*
 * pmix_fence - PMIx_Fence semantics and timing.
 *
 * usage: pmix_fence --data
 *        pmix_fence --barrier LATE_RANK SECONDS
 *        pmix_fence --dmodex
 *        pmix_fence --loop N
 *
 * --data     every rank puts a string and a 1 KiB blob, fences with
 *            PMIX_COLLECT_DATA, and reads every peer's values with
 *            PMIX_IMMEDIATE (so they must have arrived with the fence, not
 *            through a direct modex).
 * --barrier  after a synchronising fence, LATE_RANK sleeps SECONDS, then
 *            every rank calls a data-less PMIx_Fence. Each rank measures the
 *            time from the synchronising fence to the end of its data-less
 *            fence and fails if it is below 0.9 * SECONDS: a fence must
 *            hold every rank until the last one arrives.
 * --dmodex   put and commit, data-less fence (no PMIX_COLLECT_DATA), then
 *            read every peer's values: remote ones by direct modex.
 * --loop N   N data-less fences, each timed; prints
 *            "pmix_fence: rank R of S on HOST: loop: fences N median_us X ok"
 *            (bench/run.sh reads it).
 *
 * Other modes print "pmix_fence: rank R of N on HOST: MODE: ok" (or
 * "FAILED" with one line per problem before it). Exit status 0 only when
 * every check passed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "client_util.h"

#define PROG	 "pmix_fence"
#define KEY_STR	 "fence.str" /* keys starting "pmix" are reserved */
#define KEY_BLOB "fence.blob"
#define BLOB_LEN 1024

static pmix_proc_t me, wild;
static uint32_t size;
static unsigned nbad;

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " --data | --barrier LATE_RANK SECONDS "
			"| --dmodex | --loop N\n");
	exit(2);
}

static void fail(const char *what, pmix_status_t rc)
{
	printf(PROG ": rank %u: %s: %s\n", me.rank, what,
	       PMIx_Error_string(rc));
	nbad++;
}

static void str_for(uint32_t rank, char *buf, size_t len)
{
	snprintf(buf, len, "fence value of rank %u in %s", rank, me.nspace);
}

static void blob_for(uint32_t rank, unsigned char *blob)
{
	for (size_t i = 0; i < BLOB_LEN; i++)
		blob[i] = (unsigned char)(rank * 131u + i * 7u);
}

static int put_values(void)
{
	unsigned char blob[BLOB_LEN];
	pmix_value_t val;
	pmix_status_t rc;
	char str[PMIX_MAX_NSLEN + 64];

	str_for(me.rank, str, sizeof(str));
	val.type = PMIX_STRING;
	val.data.string = str;
	if ((rc = PMIx_Put(PMIX_GLOBAL, KEY_STR, &val)) != PMIX_SUCCESS) {
		fail("PMIx_Put(" KEY_STR ")", rc);
		return -1;
	}
	blob_for(me.rank, blob);
	val.type = PMIX_BYTE_OBJECT;
	val.data.bo.bytes = (char *)blob;
	val.data.bo.size = BLOB_LEN;
	if ((rc = PMIx_Put(PMIX_GLOBAL, KEY_BLOB, &val)) != PMIX_SUCCESS) {
		fail("PMIx_Put(" KEY_BLOB ")", rc);
		return -1;
	}
	if ((rc = PMIx_Commit()) != PMIX_SUCCESS) {
		fail("PMIx_Commit", rc);
		return -1;
	}
	return 0;
}

/* Read and check every rank's values; IMMEDIATE forbids a direct modex. */
static void check_values(bool immediate)
{
	unsigned char blob[BLOB_LEN];
	char str[PMIX_MAX_NSLEN + 64];
	pmix_info_t info[2];
	size_t ninfo = 0;
	int timeout = 20;

	if (immediate)
		PMIX_INFO_LOAD(&info[ninfo++], PMIX_IMMEDIATE, NULL, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[ninfo++], PMIX_TIMEOUT, &timeout, PMIX_INT);
	for (uint32_t r = 0; r < size; r++) {
		pmix_value_t *v = NULL;
		pmix_proc_t peer;
		pmix_status_t rc;

		PMIX_LOAD_PROCID(&peer, me.nspace, r);
		rc = PMIx_Get(&peer, KEY_STR, info, ninfo, &v);
		str_for(r, str, sizeof(str));
		if (rc != PMIX_SUCCESS) {
			printf(PROG ": rank %u: get " KEY_STR " of rank %u: "
				    "%s\n",
			       me.rank, r, PMIx_Error_string(rc));
			nbad++;
		} else if (v->type != PMIX_STRING ||
			   strcmp(v->data.string, str)) {
			printf(PROG ": rank %u: " KEY_STR " of rank %u: got "
				    "'%s', expected '%s'\n",
			       me.rank, r,
			       v->type == PMIX_STRING ? v->data.string
						      : "(not a string)",
			       str);
			nbad++;
		}
		if (v)
			PMIX_VALUE_RELEASE(v);

		v = NULL;
		rc = PMIx_Get(&peer, KEY_BLOB, info, ninfo, &v);
		blob_for(r, blob);
		if (rc != PMIX_SUCCESS) {
			printf(PROG ": rank %u: get " KEY_BLOB " of rank %u: "
				    "%s\n",
			       me.rank, r, PMIx_Error_string(rc));
			nbad++;
		} else if (v->type != PMIX_BYTE_OBJECT ||
			   v->data.bo.size != BLOB_LEN ||
			   memcmp(v->data.bo.bytes, blob, BLOB_LEN)) {
			printf(PROG ": rank %u: " KEY_BLOB " of rank %u: "
				    "wrong type, size or contents\n",
			       me.rank, r);
			nbad++;
		}
		if (v)
			PMIX_VALUE_RELEASE(v);
	}
	for (size_t i = 0; i < ninfo; i++)
		PMIX_INFO_DESTRUCT(&info[i]);
}

static void mode_data(void)
{
	pmix_info_t info;
	pmix_status_t rc;

	if (put_values())
		return;
	PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	rc = PMIx_Fence(&wild, 1, &info, 1);
	PMIX_INFO_DESTRUCT(&info);
	if (rc != PMIX_SUCCESS) {
		fail("PMIx_Fence(PMIX_COLLECT_DATA)", rc);
		return;
	}
	check_values(true);
}

static void mode_dmodex(void)
{
	pmix_status_t rc;

	if (put_values())
		return;
	if ((rc = PMIx_Fence(&wild, 1, NULL, 0)) != PMIX_SUCCESS) {
		fail("PMIx_Fence (no data)", rc);
		return;
	}
	check_values(false);
	/*
	 * A rank's data is served by its node's server: nobody leaves (and
	 * takes its node's server along) before every peer has read it.
	 */
	if ((rc = PMIx_Fence(&wild, 1, NULL, 0)) != PMIX_SUCCESS)
		fail("final PMIx_Fence (no data)", rc);
}

static void mode_barrier(long late, double secs)
{
	pmix_status_t rc;
	double t0, held;

	if ((rc = client_sync(&me, 1)) != PMIX_SUCCESS) {
		fail("synchronising PMIx_Fence(PMIX_COLLECT_DATA)", rc);
		return;
	}
	t0 = client_now();
	if (me.rank == (pmix_rank_t)late)
		usleep((useconds_t)(secs * 1e6));
	if ((rc = PMIx_Fence(&wild, 1, NULL, 0)) != PMIX_SUCCESS) {
		fail("PMIx_Fence (no data)", rc);
		return;
	}
	held = client_now() - t0;
	printf(PROG ": rank %u: barrier held %.3f s (rank %ld was %.3f s "
		    "late)%s\n",
	       me.rank, held, late, secs,
	       held < 0.9 * secs ? ": TOO SHORT, not a barrier" : "");
	if (held < 0.9 * secs)
		nbad++;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void mode_loop(long n)
{
	double *t = calloc((size_t)n, sizeof(*t)), med;
	pmix_status_t rc;

	if (!t) {
		perror(PROG);
		exit(1);
	}
	for (long i = 0; i < n; i++) {
		double t0 = client_now();

		if ((rc = PMIx_Fence(&wild, 1, NULL, 0)) != PMIX_SUCCESS) {
			fail("PMIx_Fence (no data)", rc);
			free(t);
			return;
		}
		t[i] = client_now() - t0;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	printf(PROG ": rank %u of %u on %s: loop: fences %ld median_us %.0f "
		    "ok\n",
	       me.rank, size, client_host(), n, med * 1e6);
	free(t);
}

int main(int argc, char **argv)
{
	enum { DATA, BARRIER, DMODEX, LOOP } mode;
	const char *mode_name;
	long late = 0, n = 0;
	double secs = 0;
	pmix_status_t rc;

	if (argc == 2 && !strcmp(argv[1], "--data")) {
		mode = DATA;
	} else if (argc == 2 && !strcmp(argv[1], "--dmodex")) {
		mode = DMODEX;
	} else if (argc == 3 && !strcmp(argv[1], "--loop")) {
		mode = LOOP;
		if (client_parse_long(argv[2], 1, 10000000, &n))
			usage();
	} else if (argc == 4 && !strcmp(argv[1], "--barrier")) {
		char *end;

		mode = BARRIER;
		if (client_parse_long(argv[2], 0, 0x7fffffffL, &late))
			usage();
		secs = strtod(argv[3], &end);
		if (*end || !(secs > 0 && secs <= 600))
			usage();
	} else {
		usage();
	}
	mode_name = argv[1] + 2;
	client_watchdog(PROG, (unsigned)secs);

	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	size = client_job_size(&me);
	if (size == 0) {
		nbad++;
		goto out;
	}
	if (mode == BARRIER && late >= (long)size) {
		printf(PROG ": rank %u: LATE_RANK %ld is not below the job "
			    "size %u\n",
		       me.rank, late, size);
		nbad++;
		goto out;
	}

	switch (mode) {
	case DATA:
		mode_data();
		break;
	case DMODEX:
		mode_dmodex();
		break;
	case BARRIER:
		mode_barrier(late, secs);
		break;
	case LOOP:
		mode_loop(n);
		break;
	}
out:
	if (mode != LOOP || nbad)
		printf(PROG ": rank %u of %u on %s: %s: %s\n", me.rank, size,
		       client_host(), mode_name, nbad ? "FAILED" : "ok");
	fflush(stdout);
	if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: PMIx_Finalize: %s\n", me.rank,
		       PMIx_Error_string(rc));
		return 1;
	}
	return nbad ? 1 : 0;
}
