/*
 * gate/gate_tally.c - the gate's refusals, summed up in the log (see the
 * header).
 */
#include "config.h"

#include "gate/gate_tally.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmixev_log.h"

#define UIDS_MAX 8	       /* distinct uids named in a summary */
#ifndef GATE_TALLY_INTERVAL_MS /* the unit test's is shorter */
#define GATE_TALLY_INTERVAL_MS 10000
#endif
/* The interval in the log, in whole seconds. */
#define INTERVAL_S ((GATE_TALLY_INTERVAL_MS + 999) / 1000)

struct gate_tally {
	int64_t due;	     /* monotonic ms the interval ends; 0: quiet */
	unsigned long count; /* refusals since the interval began */
	uid_t uids[UIDS_MAX];
	unsigned nuids;
	bool more_uids, unknown_uid;
	char last[256]; /* the last one: "PEER: cause" */
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct gate_tally *gate_tally_create(void)
{
	return calloc(1, sizeof(struct gate_tally));
}

static void note_uid(struct gate_tally *t, uid_t uid)
{
	if (uid == (uid_t)-1) {
		t->unknown_uid = true;
		return;
	}
	for (unsigned i = 0; i < t->nuids; i++)
		if (t->uids[i] == uid)
			return;
	if (t->nuids < UIDS_MAX)
		t->uids[t->nuids++] = uid;
	else
		t->more_uids = true;
}

/* Log the refusals counted since the interval began, and begin another. */
static void summary(struct gate_tally *t, int64_t now)
{
	char uids[UIDS_MAX * 12 + 32] = "";
	size_t n = 0;

	for (unsigned i = 0; i < t->nuids; i++)
		n += (size_t)snprintf(uids + n, sizeof(uids) - n, "%s%u",
				      i ? ", " : "", (unsigned)t->uids[i]);
	if (t->more_uids || t->unknown_uid)
		snprintf(uids + n, sizeof(uids) - n, "%s%s", n ? ", " : "",
			 t->more_uids ? "and others" : "unknown");
	PMIXEV_INFO("pmix gate: %lu connection(s) refused in the last %d s, "
		    "from uid(s) %s; the last from %s",
		    t->count, INTERVAL_S, uids, t->last);
	t->count = 0;
	t->nuids = 0;
	t->more_uids = t->unknown_uid = false;
	t->due = now + GATE_TALLY_INTERVAL_MS;
}

void gate_tally_refused(struct gate_tally *t, uid_t uid, const char *peer,
			const char *fmt, ...)
{
	char cause[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	if (!t->due) {
		PMIXEV_INFO("pmix gate: refusing a PMIx connection from %s: "
			    "%s (more refusals are summed up every %d s)",
			    peer, cause, INTERVAL_S);
		t->due = now_ms() + GATE_TALLY_INTERVAL_MS;
		return;
	}
	t->count++;
	note_uid(t, uid);
	snprintf(t->last, sizeof(t->last), "%s: %s", peer, cause);
}

int gate_tally_wait_ms(const struct gate_tally *t)
{
	int64_t now;

	if (!t->due)
		return -1;
	now = now_ms();
	return t->due <= now ? 0 : (int)(t->due - now);
}

void gate_tally_tick(struct gate_tally *t)
{
	int64_t now;

	if (!t->due || (now = now_ms()) < t->due)
		return;
	if (t->count)
		summary(t, now);
	else
		t->due = 0; /* quiet: the next refusal is logged at once */
}

void gate_tally_destroy(struct gate_tally *t)
{
	if (!t)
		return;
	if (t->count)
		summary(t, now_ms());
	free(t);
}
