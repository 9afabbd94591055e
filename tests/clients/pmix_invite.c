/*
 * pmix_invite - asynchronous PMIx group construction (PMIx_Group_invite,
 * PMIx_Group_join) across the nodes of a step.
 *
 * usage: pmix_invite --invite LIST [--id ID] [--ctxid] [--decline R]
 *                    [--kill R] [--exit R] [--kill-leader] [--wait S]
 *
 * Rank 0 invites the ranks of LIST ("2,4", "1-3") to group ID (default
 * "igrp") with PMIx_Group_invite (procs: itself first, then LIST; --ctxid
 * adds PMIX_GROUP_ASSIGN_CONTEXT_ID), in a thread of its own, and waits up
 * to S seconds (default 4) for the call to return or for a
 * PMIX_GROUP_INVITE_FAILED event. Every other rank registers for
 * PMIX_GROUP_INVITED, _CONSTRUCT_COMPLETE and _LEADER_FAILED first (a
 * barrier then lets rank 0 start). An invitee that is invited answers
 * with PMIx_Group_join(ACCEPT) to the inviter and waits for the complete;
 * --decline R: rank R declines; --kill R: rank R kills itself (SIGKILL)
 * instead of answering; --exit R: rank R finalizes and exits 0 instead;
 * --kill-leader: rank 0 kills itself a second after inviting, and the
 * invitees do not answer but wait for PMIX_GROUP_LEADER_FAILED. A rank not
 * in LIST waits S seconds and counts the invitations it got.
 *
 * Prints "pmix_invite: rank R on HOST: " followed by
 *   rank 0: "invite ID: STATUS in T ms, N results" or "invite ID: no
 *   answer in S s", and "invite failed: rank R of ID" per event;
 *   invitees: "invited to ID by rank L", "join ID: STATUS",
 *   "complete ID: members [R ...], ctxid C|none" or "no complete in S s",
 *   "leader failed: rank L of ID" or "no leader failed in S s";
 *   others: "invited: N".
 * Exit status 0 when every call this rank made succeeded.
 */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_invite"
#include "client_util.h"
#include "list_formats.h"

static pmix_proc_t me;
static uint32_t size;
static int failures;

struct opts {
	const char *id, *invite;
	bool ctxid, kill_leader;
	long decline, kill, exit, wait;
};

/* What the handlers saw, under `lock`; `cond` tells the main thread. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct seen {
	unsigned invited, completed, leader_failed, invite_failed;
	char invited_to[PMIX_MAX_KEYLEN + 64];
	pmix_rank_t inviter, affected;
	char members[1024];
	size_t ctxid;
	bool invite_returned;
	pmix_status_t invite_status;
	size_t nresults;
	double invite_ms;
} seen = {.ctxid = SIZE_MAX};

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " --invite LIST [--id ID] [--ctxid] "
			"[--decline R] [--kill R] [--exit R] [--kill-leader] "
			"[--wait S]\n");
	exit(2);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf(PROG ": rank %u on %s: %s\n", me.rank, client_host(), line);
}

/* The ranks of a PMIX_EVENT_CUSTOM_RANGE value, as "[R ...]". */
static void range_ranks(const pmix_value_t *v, char *buf, size_t len)
{
	const pmix_proc_t *p = NULL;
	size_t n = 0, used;

	if (v->type == PMIX_PROC) {
		p = v->data.proc;
		n = 1;
	} else if (v->type == PMIX_DATA_ARRAY && v->data.darray &&
		   v->data.darray->type == PMIX_PROC) {
		p = v->data.darray->array;
		n = v->data.darray->size;
	}
	used = (size_t)snprintf(buf, len, "[");
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u",
					 i ? " " : "", p[i].rank);
	if (used < len)
		snprintf(buf + used, len - used, "]");
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *src,
		     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		     size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	const char *grp = "?";
	pmix_status_t rc;

	(void)id;
	(void)rc;
	(void)results;
	(void)nresults;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < ninfo; i++) {
		if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) &&
		    info[i].value.type == PMIX_STRING)
			grp = info[i].value.data.string;
		else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
			 info[i].value.type == PMIX_PROC)
			seen.affected = info[i].value.data.proc->rank;
		else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_CUSTOM_RANGE) &&
			 status == PMIX_GROUP_CONSTRUCT_COMPLETE)
			range_ranks(&info[i].value, seen.members,
				    sizeof(seen.members));
		else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_CONTEXT_ID))
			PMIX_VALUE_GET_NUMBER(rc, &info[i].value, seen.ctxid,
					      size_t);
	}
	if (status == PMIX_GROUP_INVITED) {
		seen.invited++;
		seen.inviter = src->rank;
		snprintf(seen.invited_to, sizeof(seen.invited_to), "%s", grp);
	} else if (status == PMIX_GROUP_CONSTRUCT_COMPLETE) {
		seen.completed++;
	} else if (status == PMIX_GROUP_LEADER_FAILED) {
		seen.leader_failed++;
		snprintf(seen.invited_to, sizeof(seen.invited_to), "%s", grp);
	} else if (status == PMIX_GROUP_INVITE_FAILED) {
		seen.invite_failed++;
		snprintf(seen.invited_to, sizeof(seen.invited_to), "%s", grp);
	}
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* Wait up to `secs` for `*count` to reach 1; whether it did. */
static bool wait_for(const unsigned *count, long secs)
{
	struct timespec until;
	bool got;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += secs;
	pthread_mutex_lock(&lock);
	while (!*count && pthread_cond_timedwait(&cond, &lock, &until) == 0)
		;
	got = *count > 0;
	pthread_mutex_unlock(&lock);
	return got;
}

struct invite_call {
	const struct opts *o;
	pmix_proc_t *procs;
	size_t nprocs;
};

/* The blocking invite, in its own thread: it may never return. */
static void *invite_thread(void *arg)
{
	struct invite_call *c = arg;
	pmix_info_t *results = NULL, info;
	size_t nresults = 0, ninfo = 0;
	double t0 = client_now();
	pmix_status_t rc;

	if (c->o->ctxid)
		PMIX_INFO_LOAD(&info, PMIX_GROUP_ASSIGN_CONTEXT_ID, NULL,
			       PMIX_BOOL);
	ninfo = c->o->ctxid ? 1 : 0;
	rc = PMIx_Group_invite(c->o->id, c->procs, c->nprocs,
			       ninfo ? &info : NULL, ninfo, &results,
			       &nresults);
	pthread_mutex_lock(&lock);
	seen.invite_returned = true;
	seen.invite_status = rc;
	seen.nresults = nresults;
	seen.invite_ms = (client_now() - t0) * 1e3;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	if (results)
		PMIX_INFO_FREE(results, nresults);
	return NULL;
}

static void inviter(const struct opts *o, const bool *in)
{
	static struct invite_call c;
	struct timespec until;
	pthread_t t;

	c.o = o;
	PMIX_PROC_CREATE(c.procs, size);
	/* (PMIX_LOAD_PROCID names its argument more than once) */
	PMIX_LOAD_PROCID(&c.procs[0], me.nspace, me.rank);
	c.nprocs = 1;
	for (uint32_t r = 0; r < size; r++) {
		if (!in[r] || r == me.rank)
			continue;
		PMIX_LOAD_PROCID(&c.procs[c.nprocs], me.nspace, r);
		c.nprocs++;
	}
	pthread_create(&t, NULL, invite_thread, &c);
	if (o->kill_leader) {
		sleep(1);
		raise(SIGKILL);
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += o->wait;
	pthread_mutex_lock(&lock);
	while (!seen.invite_returned && !seen.invite_failed &&
	       pthread_cond_timedwait(&cond, &lock, &until) == 0)
		;
	/* An INVITE_FAILED may come with more: give the others a moment. */
	if (seen.invite_failed && !seen.invite_returned) {
		until.tv_sec = time(NULL) + 1;
		pthread_cond_timedwait(&cond, &lock, &until);
	}
	if (seen.invite_failed)
		say("invite failed: rank %u of %s (%u event(s))", seen.affected,
		    seen.invited_to, seen.invite_failed);
	if (seen.invite_returned)
		say("invite %s: %s in %.1f ms, %zu results", o->id,
		    PMIx_Error_string(seen.invite_status), seen.invite_ms,
		    seen.nresults);
	else
		say("invite %s: no answer in %ld s", o->id, o->wait);
	failures += !seen.invite_returned || seen.invite_status != PMIX_SUCCESS;
	pthread_mutex_unlock(&lock);
}

static void invitee(const struct opts *o)
{
	pmix_proc_t leader;
	pmix_status_t rc;

	if (!wait_for(&seen.invited, o->wait)) {
		say("no invitation in %ld s", o->wait);
		failures++;
		return;
	}
	say("invited to %s by rank %u", seen.invited_to, seen.inviter);
	if (o->kill == (long)me.rank)
		raise(SIGKILL);
	if (o->exit == (long)me.rank) {
		PMIx_Finalize(NULL, 0);
		exit(0);
	}
	if (o->kill_leader) {
		if (wait_for(&seen.leader_failed, o->wait))
			say("leader failed: rank %u of %s", seen.affected,
			    seen.invited_to);
		else
			say("no leader failed in %ld s", o->wait);
		return;
	}
	PMIX_LOAD_PROCID(&leader, me.nspace, seen.inviter);
	rc = PMIx_Group_join(seen.invited_to, &leader,
			     o->decline == (long)me.rank ? PMIX_GROUP_DECLINE
							 : PMIX_GROUP_ACCEPT,
			     NULL, 0, NULL, NULL);
	say("join %s: %s", seen.invited_to, PMIx_Error_string(rc));
	failures += rc != PMIX_SUCCESS;
	if (o->decline == (long)me.rank)
		return;
	if (!wait_for(&seen.completed, o->wait)) {
		say("no complete in %ld s", o->wait);
		failures++;
		return;
	}
	if (seen.ctxid == SIZE_MAX)
		say("complete %s: members %s, ctxid none", seen.invited_to,
		    seen.members);
	else
		say("complete %s: members %s, ctxid %zu", seen.invited_to,
		    seen.members, seen.ctxid);
}

static void parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){
		.id = "igrp", .decline = -1, .kill = -1, .exit = -1, .wait = 4};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long *num = NULL;

		if (!strcmp(a, "--ctxid"))
			o->ctxid = true;
		else if (!strcmp(a, "--kill-leader"))
			o->kill_leader = true;
		else if (!strcmp(a, "--id") && v)
			o->id = argv[++i];
		else if (!strcmp(a, "--invite") && v)
			o->invite = argv[++i];
		else if (!strcmp(a, "--decline"))
			num = &o->decline;
		else if (!strcmp(a, "--kill"))
			num = &o->kill;
		else if (!strcmp(a, "--exit"))
			num = &o->exit;
		else if (!strcmp(a, "--wait"))
			num = &o->wait;
		else
			usage();
		if (num &&
		    (!v || client_parse_long(argv[++i], 0, 1 << 20, num) < 0))
			usage();
	}
	if (!o->invite)
		usage();
}

int main(int argc, char **argv)
{
	pmix_status_t codes[] = {
		PMIX_GROUP_INVITED, PMIX_GROUP_CONSTRUCT_COMPLETE,
		PMIX_GROUP_LEADER_FAILED, PMIX_GROUP_INVITE_FAILED};
	struct opts o;
	bool *in;
	pmix_status_t rc;

	parse(argc, argv, &o);
	client_watchdog(PROG, (unsigned)o.wait * 3);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		fprintf(stderr, PROG ": PMIx_Init: %s\n",
			PMIx_Error_string(rc));
		return 1;
	}
	if (!(size = client_job_size(&me)) || !(in = calloc(size, 1)) ||
	    parse_peers(o.invite, in, size) < 0) {
		fprintf(stderr, PROG ": rank %u: bad --invite '%s'\n", me.rank,
			o.invite);
		PMIx_Finalize(NULL, 0);
		return 2;
	}
	if (client_register(codes, 4, on_event) < 0 ||
	    (rc = client_sync(&me, 1)) != PMIX_SUCCESS) {
		fprintf(stderr, PROG ": rank %u: setup failed\n", me.rank);
		PMIx_Finalize(NULL, 0);
		return 1;
	}
	if (me.rank == 0)
		inviter(&o, in);
	else if (in[me.rank])
		invitee(&o);
	else {
		sleep((unsigned)o.wait);
		pthread_mutex_lock(&lock);
		say("invited: %u", seen.invited);
		failures += seen.invited != 0;
		pthread_mutex_unlock(&lock);
	}
	fflush(stdout);
	/* A rank 0 whose invite never returned cannot finalize cleanly. */
	if (me.rank == 0 && !seen.invite_returned)
		_exit(failures ? 1 : 0);
	PMIx_Finalize(NULL, 0);
	free(in);
	return failures ? 1 : 0;
}
