/*
 * pmix_flood - client notify fan-out rate: rank 0 sends COUNT events to
 * its namespace as fast as PMIx_Notify_event returns; every other rank
 * counts them.
 *
 * usage: pmix_flood COUNT [LINGER_MS]
 *
 * Every rank registers for CODE and synchronises; then rank 0 sends,
 * with at most WINDOW events not yet acknowledged by its server. Each
 * receiving rank waits until it has COUNT events (or 30 s without a new
 * one) and prints
 *   "pmix_flood: rank R of N on HOST: got G of C in T ms: ok"
 * where T runs from the end of the synchronising fence to the last event
 * (FAILED when G < C), then "pmix_flood: rank R: cpu U ms" - the CPU
 * time (user + system, all threads) the process spent over T, nearly all
 * of it in its PMIx library and the kernel receiving events. Rank 0
 * prints "pmix_flood: rank 0: sent C in T ms, cpu U ms". Every rank idles
 * LINGER_MS (default 0) before registering for the flood and again before
 * the closing fence, so that an observer sampling the processes'
 * threads sees the flood's work apart from start-up and exit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_flood"
#include "client_util.h"

#define CODE (PMIX_EXTERNAL_ERR_BASE - 21)
/* Events in flight from the sender: OpenPMIx 4.2's client matches each
 * server reply against all its pending requests, so an unbounded burst
 * makes the sender's own library quadratic. */
#define WINDOW 64

static volatile unsigned long got;
static volatile double last_at;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *src,
		     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		     size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)status, (void)src, (void)info, (void)ninfo;
	(void)results, (void)nresults;
	last_at = client_now();
	__atomic_add_fetch(&got, 1, __ATOMIC_SEQ_CST);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Events sent and not yet acknowledged by the server; the first error.
 * The sender sleeps on `acked` while the window is full: polling would
 * take the CPU the servers need. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t acked = PTHREAD_COND_INITIALIZER;
static long in_flight;
static pmix_status_t send_rc = PMIX_SUCCESS;

static void on_sent(pmix_status_t status, void *cbdata)
{
	(void)cbdata;
	pthread_mutex_lock(&lock);
	if (status != PMIX_SUCCESS && send_rc == PMIX_SUCCESS)
		send_rc = status;
	in_flight--;
	pthread_cond_signal(&acked);
	pthread_mutex_unlock(&lock);
}

/* CPU time this process has used so far, in ms. */
static double cpu_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* Wait until at most `most` events are in flight; the first error. */
static pmix_status_t wait_window(long most)
{
	pmix_status_t rc;

	pthread_mutex_lock(&lock);
	while (in_flight > most)
		pthread_cond_wait(&acked, &lock);
	rc = send_rc;
	pthread_mutex_unlock(&lock);
	return rc;
}

int main(int argc, char **argv)
{
	pmix_status_t code = CODE, rc = PMIX_SUCCESS;
	unsigned long seen = 0;
	double t0, cpu0, idle_since;
	pmix_proc_t me;
	uint32_t size;
	long count, linger = 0;

	if (argc < 2 || argc > 3 ||
	    client_parse_long(argv[1], 1, 10000000, &count) ||
	    (argc == 3 && client_parse_long(argv[2], 0, 10000, &linger))) {
		fprintf(stderr, "usage: " PROG " COUNT [LINGER_MS]\n");
		return 2;
	}
	client_watchdog(PROG, 60);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	size = client_job_size(&me);
	usleep((useconds_t)linger * 1000);
	if (client_register(&code, 1, on_event) < 0 ||
	    client_sync(&me, 1) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: setup failed\n", me.rank);
		return 1;
	}
	t0 = client_now();
	cpu0 = cpu_ms();
	if (me.rank == 0) {
		for (long i = 0; i < count && rc == PMIX_SUCCESS; i++) {
			if ((rc = wait_window(WINDOW - 1)) != PMIX_SUCCESS)
				break;
			pthread_mutex_lock(&lock);
			in_flight++;
			pthread_mutex_unlock(&lock);
			rc = PMIx_Notify_event(CODE, &me, PMIX_RANGE_NAMESPACE,
					       NULL, 0, on_sent, NULL);
			if (rc == PMIX_OPERATION_SUCCEEDED)
				on_sent(PMIX_SUCCESS, NULL);
			if (rc == PMIX_OPERATION_SUCCEEDED)
				rc = PMIX_SUCCESS;
			else if (rc != PMIX_SUCCESS)
				on_sent(rc, NULL);
		}
		if (rc == PMIX_SUCCESS)
			rc = wait_window(0);
		else
			wait_window(0);
		printf(PROG ": rank 0: sent %ld in %.0f ms, cpu %.0f ms%s%s\n",
		       count, (client_now() - t0) * 1e3, cpu_ms() - cpu0,
		       rc ? ": " : "", rc ? PMIx_Error_string(rc) : "");
	} else {
		idle_since = t0;
		while (got < (unsigned long)count &&
		       client_now() - idle_since < 30) {
			if (got != seen) {
				seen = got;
				idle_since = client_now();
			}
			usleep(1000);
		}
		printf(PROG ": rank %u of %u on %s: got %lu of %ld in %.0f "
			    "ms: %s\n",
		       me.rank, size, client_host(), got, count,
		       ((got ? last_at : client_now()) - t0) * 1e3,
		       got == (unsigned long)count ? "ok" : "FAILED");
		printf(PROG ": rank %u: cpu %.0f ms\n", me.rank,
		       cpu_ms() - cpu0);
	}
	usleep((useconds_t)linger * 1000);
	client_sync(&me, 2);
	PMIx_Finalize(NULL, 0);
	return rc != PMIX_SUCCESS || (me.rank && got != (unsigned long)count);
}
