/*
 * pmix_site - who gets an environment event about a node: a site event
 * (pmixev-notify), or Slurm taking the node out of service.
 *
 * usage: pmix_site CODE HOST TEXT FLAGFILE [KEY=VALUE...]
 *
 * Even ranks register a handler for CODE at once; rank 1 registers only
 * after FLAGFILE appears (the test creates it once the event was sent, so
 * it must come from PMIx's cache); the other odd ranks register a default
 * handler (no codes), which must never see the (non-default) event. After
 * the flag appears everyone waits 3 s and prints
 *   "pmix_site: rank R of N on HOST: ROLE: got G (D deliveries): ok"
 * where an early or late registrant needs exactly one event naming HOST
 * (PMIX_HOSTNAME) with TEXT (and a string info KEY = VALUE for each
 * KEY=VALUE argument), and a default handler none. Events are told
 * apart by pmixev's source and sequence: OpenPMIx 4.2 hands its cached
 * events again to every registered process of a node when one more
 * registers, and applications drop such repeats the same way. Every rank prints
 * "pmix_site: rank R: ready" once it is set up.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_site"
#include "client_util.h"

static const char *want_host, *want_text;
static char **want_kv; /* KEY=VALUE, NULL-terminated */

/* The event carries every string info want_kv asks for. */
static bool has_kv(const pmix_info_t info[], size_t ninfo)
{
	for (char **kv = want_kv; *kv; kv++) {
		size_t klen = strcspn(*kv, "=");
		bool found = false;

		for (size_t i = 0; i < ninfo && !found; i++)
			found = strlen(info[i].key) == klen &&
				!strncmp(info[i].key, *kv, klen) &&
				info[i].value.type == PMIX_STRING &&
				!strcmp(info[i].value.data.string,
					*kv + klen + 1);
		if (!found)
			return false;
	}
	return true;
}
/* Distinct events (by pmixev's source and sequence), and how many of
 * them were right; plus every delivery, repeats included. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char seen[16][96];
static unsigned got, good, deliveries;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *src,
		     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		     size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	bool host = false, text = false, repeat = false;
	const char *from = "?";
	uint64_t seq = 0;
	char key[96];

	for (size_t i = 0; i < ninfo; i++) {
		if (PMIX_CHECK_KEY(&info[i], "slurm.pmixev.evsrc"))
			from = info[i].value.data.string;
		if (PMIX_CHECK_KEY(&info[i], "slurm.pmixev.evseq"))
			seq = info[i].value.data.uint64;
		if (PMIX_CHECK_KEY(&info[i], PMIX_HOSTNAME) &&
		    !strcmp(info[i].value.data.string, want_host))
			host = true;
		if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_TEXT_MESSAGE) &&
		    !strcmp(info[i].value.data.string, want_text))
			text = true;
	}
	snprintf(key, sizeof(key), "%s#%llu", from, (unsigned long long)seq);
	pthread_mutex_lock(&lock);
	deliveries++;
	for (unsigned i = 0; i < got && i < 16; i++)
		repeat |= !strcmp(seen[i], key);
	if (!repeat && got < 16) {
		snprintf(seen[got++], sizeof(seen[0]), "%s", key);
		good += host && text && has_kv(info, ninfo);
	}
	pthread_mutex_unlock(&lock);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

int main(int argc, char **argv)
{
	pmix_status_t code;
	const char *role;
	pmix_proc_t me;
	uint32_t size;
	bool ok;
	long v;

	if (argc < 5 ||
	    client_parse_long(argv[1], -2147483647L, 2147483647L, &v)) {
		fprintf(stderr, "usage: " PROG
				" CODE HOST TEXT FLAGFILE [KEY=VALUE...]\n");
		return 2;
	}
	code = (pmix_status_t)v;
	want_host = argv[2];
	want_text = argv[3];
	want_kv = argv + 5;
	for (char **kv = want_kv; *kv; kv++)
		if (!strchr(*kv, '=')) {
			fprintf(stderr, PROG ": not KEY=VALUE: %s\n", *kv);
			return 2;
		}
	client_watchdog(PROG, 0);
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	size = client_job_size(&me);
	role = me.rank % 2 == 0 ? "early" : me.rank == 1 ? "late" : "none";
	if ((me.rank % 2 == 0 && client_register(&code, 1, on_event) < 0) ||
	    (me.rank % 2 && me.rank != 1 &&
	     client_register(NULL, 0, on_event) < 0) ||
	    client_sync(&me, 1) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: setup failed\n", me.rank);
		return 1;
	}
	printf(PROG ": rank %u: ready\n", me.rank);
	while (access(argv[4], F_OK) != 0)
		usleep(10000);
	if (me.rank == 1 && client_register(&code, 1, on_event) < 0)
		return 1;
	sleep(3);
	ok = strcmp(role, "none") ? got == 1 && good == 1 : got == 0;
	printf(PROG ": rank %u of %u on %s: %s: got %u (%u deliveries): %s\n",
	       me.rank, size, client_host(), role, got, deliveries,
	       ok ? "ok" : "FAILED");
	client_sync(&me, 2);
	PMIx_Finalize(NULL, 0);
	return ok ? 0 : 1;
}
