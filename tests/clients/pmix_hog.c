/*
 * pmix_hog - a job that tries to make the stepds hold a lot of memory.
 *
 * usage: pmix_hog publish COUNT KIB   the last rank publishes COUNT keys
 *                                     of KIB KiB each (they travel to the
 *                                     first node's stepd, which keeps
 *                                     them)
 *        pmix_hog notify KIB [COUNT]  rank 0 sends COUNT (default 1)
 *                                     events -3001, each carrying one info
 *                                     of KIB KiB, to the step; the other
 *                                     ranks count what reaches them
 *        pmix_hog wait COUNT          the last rank starts COUNT lookups
 *                                     of 1000 keys nobody publishes, each
 *                                     with PMIX_WAIT and PMIX_TIMEOUT 5
 *                                     (the first node's stepd holds them)
 *        pmix_hog fences COUNT KIB    each rank not on rank 0's node (block
 *                                     layout, as many ranks on each node)
 *                                     puts KIB KiB and starts a fence
 *                                     (PMIX_COLLECT_DATA, PMIX_TIMEOUT 5)
 *                                     over each of COUNT distinct sets of
 *                                     rank 0 and such ranks that holds it;
 *                                     rank 0 never joins, so the stepds
 *                                     hold them in flight (the other ranks
 *                                     wait them out before the last fence)
 *
 * Output, publish: "pmix_hog: published P of COUNT; then STATUS" (P before
 * the first failure, STATUS its status) and "pmix_hog: R refused" (of all)
 *         notify:  "pmix_hog: rank R on HOST: got G event(s)"
 *         wait:    "pmix_hog: lookups: H held, R refused, O other"
 *         fences:  "pmix_hog: rank R: F fence(s): P refused within 2 s,
 *                  T timed out, O other[, first STATUS]" (not on rank 0's
 *                  node)
 * Exit status 0 unless a PMIx call failed in an unexpected way.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_hog"
#include "client_util.h"

static int publish(const pmix_proc_t *me, long count, long kib)
{
	uint32_t last = client_job_size(me) - 1;
	size_t len = (size_t)kib << 10;
	char *blob = malloc(len);
	pmix_status_t rc = PMIX_SUCCESS, first = PMIX_SUCCESS;
	long i, done = 0, refused = 0;

	if (!blob)
		return 1;
	memset(blob, 'x', len);
	/* Every key is tried: the refusals after the first are counted. */
	for (i = 0; me->rank == last && i < count; i++) {
		pmix_byte_object_t bo = {.bytes = blob, .size = len};
		pmix_info_t info;
		char key[64];

		snprintf(key, sizeof(key), "pmixev.hog.%ld", i);
		PMIX_INFO_LOAD(&info, key, &bo, PMIX_BYTE_OBJECT);
		rc = PMIx_Publish(&info, 1);
		info.value.data.bo.bytes = NULL; /* blob is ours */
		PMIX_INFO_DESTRUCT(&info);
		if (rc == PMIX_SUCCESS && first == PMIX_SUCCESS)
			done++;
		else if (first == PMIX_SUCCESS)
			first = rc;
		refused += rc != PMIX_SUCCESS;
	}
	if (me->rank == last)
		printf(PROG ": published %ld of %ld; then %s\n" PROG
			    ": %ld refused\n",
		       done, count,
		       first == PMIX_SUCCESS ? "nothing"
					     : PMIx_Error_string(first),
		       refused);
	free(blob);
	return 0;
}

static int notify(const pmix_proc_t *me, long kib, long count)
{
	pmix_status_t code = -3001;
	size_t len = (size_t)kib << 10;
	char *blob = malloc(len);

	if (!blob || client_register(&code, 1, client_count_event) < 0 ||
	    client_sync(me, 1) != PMIX_SUCCESS)
		return 1;
	memset(blob, 'x', len);
	for (long i = 0; me->rank == 0 && i < count; i++) {
		pmix_byte_object_t bo = {.bytes = blob, .size = len};
		pmix_info_t info;

		PMIX_INFO_LOAD(&info, "pmixev.hog", &bo, PMIX_BYTE_OBJECT);
		PMIx_Notify_event(code, NULL, PMIX_RANGE_SESSION, &info, 1,
				  NULL, NULL);
		info.value.data.bo.bytes = NULL;
		PMIX_INFO_DESTRUCT(&info);
	}
	sleep(3);
	printf(PROG ": rank %u on %s: got %u event(s)\n", me->rank,
	       client_host(), client_counted(NULL));
	free(blob);
	return 0;
}

#define WAIT_KEYS 1000

struct waits {
	pthread_mutex_t lock;
	long done, held, refused;
};

static void on_lookup(pmix_status_t status, pmix_pdata_t data[], size_t n,
		      void *arg)
{
	struct waits *w = arg;

	(void)data;
	(void)n;
	pthread_mutex_lock(&w->lock);
	w->done++;
	if (status == PMIX_ERR_NOT_FOUND || status == PMIX_ERR_TIMEOUT)
		w->held++;
	else if (status == PMIX_ERR_OUT_OF_RESOURCE)
		w->refused++;
	pthread_mutex_unlock(&w->lock);
}

static int wait_lookups(const pmix_proc_t *me, long count)
{
	struct waits w = {.lock = PTHREAD_MUTEX_INITIALIZER};
	char **keys = calloc(WAIT_KEYS + 1, sizeof(*keys));
	int timeout = 5, wait = 0, rc = 0;
	pmix_info_t info[2];
	long started = 0, done = 0;

	if (!keys || me->rank != client_job_size(me) - 1)
		goto out;
	for (long k = 0; k < WAIT_KEYS; k++)
		if (!(keys[k] = malloc(32))) {
			rc = 1;
			goto out;
		} else {
			snprintf(keys[k], 32, "pmixev.absent.%ld", k);
		}
	PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &wait, PMIX_INT);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
	for (; started < count; started++)
		if (PMIx_Lookup_nb(keys, info, 2, on_lookup, &w) !=
		    PMIX_SUCCESS)
			break;
	for (int i = 0; i < 300 && done < started; i++) {
		usleep(100000);
		pthread_mutex_lock(&w.lock);
		done = w.done;
		pthread_mutex_unlock(&w.lock);
	}
	pthread_mutex_lock(&w.lock);
	printf(PROG ": lookups: %ld held, %ld refused, %ld other\n", w.held,
	       w.refused, count - w.held - w.refused);
	pthread_mutex_unlock(&w.lock);
out:
	for (long k = 0; keys && k < WAIT_KEYS; k++)
		free(keys[k]);
	free(keys);
	return rc;
}

struct fences {
	pthread_mutex_t lock;
	long done, refused, timedout;
	pmix_status_t other; /* the first other status */
};

struct fence_call {
	struct fences *all;
	double start;
};

static void on_fence(pmix_status_t status, void *arg)
{
	struct fence_call *c = arg;
	struct fences *w = c->all;

	pthread_mutex_lock(&w->lock);
	w->done++;
	if (status == PMIX_ERR_OUT_OF_RESOURCE && client_now() - c->start < 2)
		w->refused++;
	else if (status == PMIX_ERR_TIMEOUT)
		w->timedout++;
	else if (!w->other)
		w->other = status;
	pthread_mutex_unlock(&w->lock);
	free(c);
}

/* The mask of set number `i` (from 1, below 2^bits): odd multiples are
 * distinct modulo a power of 2, and spread over every bit. */
static long fence_mask(long i, uint32_t bits)
{
	return (i * 1103) & ((1L << bits) - 1);
}

/* Rank 0 and each rank `first` + b with bit b of `mask`. */
static size_t fence_set(const pmix_proc_t *me, long mask, uint32_t first,
			uint32_t bits, pmix_proc_t *procs)
{
	size_t n = 1;

	/* PMIX_LOAD_PROCID evaluates its first argument twice. */
	PMIX_LOAD_PROCID(&procs[0], me->nspace, 0);
	for (uint32_t b = 0; b < bits; b++)
		if (mask & (1L << b)) {
			PMIX_LOAD_PROCID(&procs[n], me->nspace, first + b);
			n++;
		}
	return n;
}

/* PMIX_LOCAL_SIZE of ME's node, or 0. */
static uint32_t local_size(const pmix_proc_t *me)
{
	pmix_value_t *v = NULL;
	pmix_proc_t wild;
	uint32_t n = 0;

	PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_LOCAL_SIZE, NULL, 0, &v) == PMIX_SUCCESS &&
	    v->type == PMIX_UINT32)
		n = v->data.uint32;
	if (v)
		PMIX_VALUE_RELEASE(v);
	return n;
}

static int fences(const pmix_proc_t *me, long count, long kib)
{
	struct fences w = {.lock = PTHREAD_MUTEX_INITIALIZER};
	uint32_t size = client_job_size(me), first = local_size(me), bits;
	size_t len = (size_t)kib << 10;
	pmix_proc_t *procs = calloc(size ? size : 1, sizeof(*procs));
	char *blob = malloc(len);
	pmix_info_t info[2];
	int timeout = 5, rc = 1;
	long started = 0;
	pmix_value_t val;

	bits = size - first;
	if (!procs || !blob || !first || size <= first || bits > 30 ||
	    count >= (1L << bits))
		goto out;
	memset(blob, 'x', len);
	val.type = PMIX_BYTE_OBJECT;
	val.data.bo.bytes = blob;
	val.data.bo.size = len;
	if (PMIx_Put(PMIX_REMOTE, "pmixev.hog", &val) != PMIX_SUCCESS ||
	    PMIx_Commit() != PMIX_SUCCESS)
		goto out;
	rc = 0;
	if (me->rank < first) {
		/* The step's last fence must not meet the others in flight. */
		sleep((unsigned)timeout + 3);
		goto out;
	}
	PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
	for (long i = 1; i <= count; i++) {
		long mask = fence_mask(i, bits);
		struct fence_call *c;

		if (!(mask & (1L << (me->rank - first))))
			continue;
		if (!(c = malloc(sizeof(*c))))
			break;
		c->all = &w;
		c->start = client_now();
		if (PMIx_Fence_nb(procs,
				  fence_set(me, mask, first, bits, procs), info,
				  2, on_fence, c) != PMIX_SUCCESS) {
			free(c);
			break;
		}
		started++;
	}
	for (int t = 0; t < 300; t++) {
		long done;

		pthread_mutex_lock(&w.lock);
		done = w.done;
		pthread_mutex_unlock(&w.lock);
		if (done >= started)
			break;
		usleep(100000);
	}
	pthread_mutex_lock(&w.lock);
	printf(PROG ": rank %u: %ld fence(s): %ld refused within 2 s, %ld "
		    "timed out, %ld other%s%s\n",
	       me->rank, started, w.refused, w.timedout,
	       started - w.refused - w.timedout, w.other ? ", first " : "",
	       w.other ? PMIx_Error_string(w.other) : "");
	pthread_mutex_unlock(&w.lock);
	sleep(2); /* until they have ended on every node */
out:
	free(blob);
	free(procs);
	return rc;
}

int main(int argc, char **argv)
{
	long a = 0, b = 0;
	pmix_proc_t me;
	int rc = 2;

	client_watchdog(PROG, 0);
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	if (argc == 4 && !strcmp(argv[1], "publish") &&
	    !client_parse_long(argv[2], 1, 100000, &a) &&
	    !client_parse_long(argv[3], 1, 1 << 20, &b))
		rc = publish(&me, a, b);
	else if ((argc == 3 || argc == 4) && !strcmp(argv[1], "notify") &&
		 !client_parse_long(argv[2], 1, 1 << 20, &a) &&
		 (argc == 3 || !client_parse_long(argv[3], 1, 100000, &b)))
		rc = notify(&me, a, argc == 4 ? b : 1);
	else if (argc == 3 && !strcmp(argv[1], "wait") &&
		 !client_parse_long(argv[2], 1, 1000, &a))
		rc = wait_lookups(&me, a);
	else if (argc == 4 && !strcmp(argv[1], "fences") &&
		 !client_parse_long(argv[2], 1, 100000, &a) &&
		 !client_parse_long(argv[3], 1, 1 << 20, &b))
		rc = fences(&me, a, b);
	else
		fprintf(stderr, "usage: " PROG
				" publish COUNT KIB | notify KIB [COUNT] | "
				"wait COUNT | fences COUNT KIB\n");
	client_sync(&me, 2);
	PMIx_Finalize(NULL, 0);
	return rc;
}
