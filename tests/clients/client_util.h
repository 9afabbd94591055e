/*
 * client_util.h - helpers shared by the PMIx test clients: a watchdog so a
 * client never hangs, wall-clock timing, strict number parsing, and a
 * fence that is a true barrier on every host.
 *
 * Header-only (static inline): each client is a single translation unit.
 */
#ifndef PMIXEV_CLIENT_UTIL_H_
#define PMIXEV_CLIENT_UTIL_H_

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

/* Default watchdog in seconds; PMIXEV_CLIENT_TIMEOUT overrides it. */
#define CLIENT_TIMEOUT_DEFAULT 60

static const char *client_prog = "client";
static unsigned client_watchdog_secs;

static inline void client_on_alarm(int sig)
{
	char msg[160];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg),
		     "%s: pid %ld: watchdog: no result after %u s, giving up\n",
		     client_prog, (long)getpid(), client_watchdog_secs);
	if (n > 0)
		(void)!write(STDERR_FILENO, msg, (size_t)n);
	_exit(124);
}

/*
 * client_watchdog PROG EXTRA: exit 124 with a message if the client is still
 * running after PMIXEV_CLIENT_TIMEOUT (default 60; 0: never) + EXTRA
 * seconds. Also makes stdout line-buffered, so that the lines printed before
 * a hang are not lost.
 */
static inline void client_watchdog(const char *prog, unsigned extra)
{
	const char *s = getenv("PMIXEV_CLIENT_TIMEOUT");
	unsigned secs = CLIENT_TIMEOUT_DEFAULT;

	setvbuf(stdout, NULL, _IOLBF, 0);
	client_prog = prog;
	if (s && *s)
		secs = (unsigned)strtoul(s, NULL, 10);
	if (secs == 0)
		return;
	client_watchdog_secs = secs + extra;
	signal(SIGALRM, client_on_alarm);
	alarm(client_watchdog_secs);
}

/* Seconds on the monotonic clock. */
static inline double client_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Parse a whole decimal number in [min, max]; 0 on success, -1 otherwise. */
static inline int client_parse_long(const char *s, long min, long max,
				    long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* The number in environment variable NAME, or -1 when unset or invalid. */
static inline long client_env_long(const char *name)
{
	long v;

	if (client_parse_long(getenv(name), 0, 0x7fffffffL, &v))
		return -1;
	return v;
}

/* A host name for messages: SLURMD_NODENAME, else gethostname(). */
static inline const char *client_host(void)
{
	static char host[256];
	const char *s = getenv("SLURMD_NODENAME");

	if (s && *s)
		return s;
	if (gethostname(host, sizeof(host)))
		return "?";
	host[sizeof(host) - 1] = '\0';
	return host;
}

/*
 * client_sync ME TAG: a fence that every host must implement as a true
 * barrier: each rank contributes a fresh key (TAG makes it unique per call)
 * and the fence collects data. Tests use it to order phases without relying
 * on a data-less PMIx_Fence being a barrier (Slurm's stock mpi/pmix makes
 * that only node-local; pmix_fence --barrier tests it separately).
 */
static inline pmix_status_t client_sync(const pmix_proc_t *me, unsigned tag)
{
	pmix_proc_t wild;
	pmix_value_t val;
	pmix_info_t info;
	pmix_status_t rc;
	char key[32];

	snprintf(key, sizeof(key), "client.sync.%u", tag);
	val.type = PMIX_UINT32;
	val.data.uint32 = me->rank;
	if ((rc = PMIx_Put(PMIX_GLOBAL, key, &val)) != PMIX_SUCCESS)
		return rc;
	if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
		return rc;
	PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
	PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	rc = PMIx_Fence(&wild, 1, &info, 1);
	PMIX_INFO_DESTRUCT(&info);
	return rc;
}

/* PMIX_JOB_SIZE of ME's namespace, or 0 after printing why not. */
static inline uint32_t client_job_size(const pmix_proc_t *me)
{
	pmix_proc_t wild;
	pmix_value_t *v = NULL;
	pmix_status_t rc;
	uint32_t size = 0;

	PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
	rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
	if (rc != PMIX_SUCCESS) {
		fprintf(stderr, "%s: rank %u: PMIx_Get(PMIX_JOB_SIZE): %s\n",
			client_prog, me->rank, PMIx_Error_string(rc));
		return 0;
	}
	if (v->type == PMIX_UINT32)
		size = v->data.uint32;
	else
		fprintf(stderr, "%s: rank %u: PMIX_JOB_SIZE has type %s\n",
			client_prog, me->rank, PMIx_Data_type_string(v->type));
	PMIX_VALUE_RELEASE(v);
	return size;
}

/*
 * The start of the spawn family's clients ("PROG [--host LIST]"): the
 * watchdog of `secs`, the arguments (*host: LIST or NULL), PMIx_Init
 * into *me. 0, or the exit status to return: 2 (usage, on stderr) or 1
 * (PMIx_Init failed, on stdout).
 */
static inline int client_family_init(const char *prog, int argc, char **argv,
				     unsigned secs, pmix_proc_t *me,
				     const char **host)
{
	pmix_status_t rc;

	*host = argc == 3 && !strcmp(argv[1], "--host") ? argv[2] : NULL;
	client_watchdog(prog, secs);
	if (argc != 1 && !*host) {
		fprintf(stderr, "usage: %s [--host LIST]\n", prog);
		return 2;
	}
	if ((rc = PMIx_Init(me, NULL, 0)) != PMIX_SUCCESS) {
		printf("%s: PMIx_Init: %s\n", prog, PMIx_Error_string(rc));
		return 1;
	}
	return 0;
}

/* Whether a PMIx_Spawn started this process's namespace (PMIX_SPAWNED). */
static inline bool client_spawned(const pmix_proc_t *me)
{
	pmix_proc_t wild;
	pmix_value_t *v = NULL;
	bool spawned = false;

	PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_SPAWNED, NULL, 0, &v) == PMIX_SUCCESS) {
		spawned = v->type == PMIX_BOOL && v->data.flag;
		PMIX_VALUE_RELEASE(v);
	}
	return spawned;
}

/* The namespace of PMIX_PARENT_ID into `ns` ("" when there is none). */
static inline void client_parent_ns(const pmix_proc_t *me,
				    char ns[PMIX_MAX_NSLEN + 1])
{
	pmix_proc_t wild;
	pmix_value_t *v = NULL;

	ns[0] = '\0';
	PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &v) != PMIX_SUCCESS)
		return;
	if (v->type == PMIX_PROC && v->data.proc)
		PMIX_LOAD_NSPACE(ns, v->data.proc->nspace);
	PMIX_VALUE_RELEASE(v);
}

static inline void client_on_registered(pmix_status_t status, size_t id,
					void *cbdata)
{
	volatile int *done = cbdata;

	(void)id;
	*done = status == PMIX_SUCCESS ? 1 : -1;
}

/*
 * client_register CODES NCODES FN: register FN for the NCODES codes
 * (NULL, 0: a default handler) and wait for the library's answer. 0 on
 * success, -1 when the registration was refused.
 */
static inline int client_register(pmix_status_t *codes, size_t ncodes,
				  pmix_notification_fn_t fn)
{
	volatile int done = 0;

	PMIx_Register_event_handler(codes, ncodes, NULL, 0, fn,
				    client_on_registered, (void *)&done);
	while (!done)
		usleep(1000);
	return done > 0 ? 0 : -1;
}

/*
 * client_count_event: an event handler that counts what it gets and keeps
 * the source namespace of the last event; client_counted reads both.
 */
static pthread_mutex_t client_count_lock __attribute__((unused)) =
	PTHREAD_MUTEX_INITIALIZER;
static unsigned client_count __attribute__((unused));
static char client_count_from[PMIX_MAX_NSLEN + 1] __attribute__((unused)) =
	"none";

static inline void
client_count_event(size_t id, pmix_status_t status, const pmix_proc_t *src,
		   pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		   size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
		   void *cbdata)
{
	pthread_mutex_lock(&client_count_lock);
	client_count++;
	if (src)
		PMIX_LOAD_NSPACE(client_count_from, src->nspace);
	pthread_mutex_unlock(&client_count_lock);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* How many events client_count_event got; the last source into `from`. */
static inline unsigned client_counted(char from[PMIX_MAX_NSLEN + 1])
{
	unsigned n;

	pthread_mutex_lock(&client_count_lock);
	n = client_count;
	if (from)
		PMIX_LOAD_NSPACE(from, client_count_from);
	pthread_mutex_unlock(&client_count_lock);
	return n;
}

#endif /* PMIXEV_CLIENT_UTIL_H_ */
