/*
 * pmix_group - PMIx Groups (RFC0033) across the nodes of a step.
 *
 * usage: pmix_group [--id ID] [--members LIST] [--wildcard] [--ctxid]
 *                   [--notify] [--optional] [--leader R] [--timeout S]
 *                   [--local-only] [--info] [--put] [--nb] [--sleep R:S]
 *                   [--die R] [--die-after R] [--kill] [--watch] [--hold S]
 *                   [--no-destruct] [--groups N] [--bench N]
 *
 * The ranks of LIST (default: every rank; "0-2,5"; --wildcard: the
 * namespace's wildcard) construct group ID (default "grp1") with the
 * directives asked: --ctxid PMIX_GROUP_ASSIGN_CONTEXT_ID, --notify
 * _NOTIFY_TERMINATION, --optional _OPTIONAL, --leader R: rank R passes
 * PMIX_GROUP_LEADER, --timeout PMIX_TIMEOUT, --local-only _LOCAL_ONLY,
 * --info PMIX_GROUP_INFO holding PMIX_GROUP_LOCAL_CID = 1000 + rank. --nb
 * uses PMIx_Group_construct_nb. --put: each rank puts "grp.key" = "rR"
 * (global) first, and after the construct reads a member's, the one half
 * the group away, without a fence; with --info also that member's
 * PMIX_GROUP_LOCAL_CID qualified by the group's context id. --sleep R:S:
 * rank R sleeps S seconds before constructing; --die R: rank R exits (3,
 * without finalizing) before; --die-after R: after (the others destruct
 * half a second later, 2 s with --watch); --kill: it kills itself
 * (SIGKILL) instead. --watch: each member prints the group events it gets
 * (PMIX_GROUP_MEMBER_FAILED, _LEADER_FAILED) as "event CODE group ID rank
 * P ctxid C". --hold S: the members wait S seconds after the construct.
 * Then the group is destructed (not with --no-destruct). Ranks not in
 * LIST only initialise and finalise.
 *
 * --groups N: instead, every rank constructs (non-blocking, at once) each
 * of N groups "g0".."gN-1" it is in (group i: every rank but i modulo the
 * size, with a context id), then destructs them. --bench N: N rounds of a
 * data-less fence over LIST, a fence collecting the data (64 bytes put per
 * rank before), a construct (with the directives asked) and a destruct.
 *
 * Prints, per member, "pmix_group: rank R on HOST: construct ID: STATUS in
 * T ms, N members [R ...], ctxid C" (or "ctxid none"), "... get grp.key of
 * rank P: 'rP'" or "... get ...: STATUS", "... local cid of rank P: V",
 * "... destruct ID: STATUS in T ms"; for --groups "... groups: K of N
 * constructed, K distinct ctxids, K destructed"; for --bench "... bench N:
 * fence median U us p90 U us, data fence median ..., construct median ...,
 * destruct median ...".
 * Exit status 0 when every call this rank made succeeded.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_group"
#include "client_util.h"
#include "list_formats.h"

#define KEY "grp.key"

static pmix_proc_t me;
static uint32_t size;
static int failures;

struct opts {
	const char *id, *members;
	bool wildcard, ctxid, notify, optional, local_only, info, put, nb;
	bool destruct, watch, kill;
	long leader, timeout, sleep_rank, sleep_sec, die, die_after, groups,
		bench, hold;
};

/* A construct's results. */
struct built {
	pmix_status_t status;
	double ms;
	size_t ctxid; /* SIZE_MAX: none */
	pmix_proc_t *procs;
	size_t nprocs;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: " PROG " [--id ID] [--members LIST] [--wildcard] "
		"[--ctxid] [--notify] [--optional] [--leader R] [--timeout S] "
		"[--local-only] [--info] [--put] [--nb] [--sleep R:S] "
		"[--die R] [--die-after R] [--no-destruct] [--groups N] "
		"[--bench N]\n");
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

/* --watch: a group event, printed. */
static void on_group_event(size_t id, pmix_status_t status,
			   const pmix_proc_t *source, pmix_info_t info[],
			   size_t ninfo, pmix_info_t *results, size_t nresults,
			   pmix_event_notification_cbfunc_fn_t cbfunc,
			   void *cbdata)
{
	const char *grp = "?";
	long rank = -1, ctxid = -1;

	for (size_t i = 0; i < ninfo; i++) {
		if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) &&
		    info[i].value.type == PMIX_STRING)
			grp = info[i].value.data.string;
		else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
			 info[i].value.type == PMIX_PROC)
			rank = (long)info[i].value.data.proc->rank;
		else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_CONTEXT_ID) &&
			 info[i].value.type == PMIX_SIZE)
			ctxid = (long)info[i].value.data.size;
	}
	say("event %s group %s rank %ld ctxid %ld", PMIx_Error_string(status),
	    grp, rank, ctxid);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* The directives of `o` for this rank into `info` (at least 8); count. */
static size_t directives(const struct opts *o, pmix_info_t *info)
{
	size_t n = 0;
	int timeout = (int)o->timeout;

	if (o->ctxid)
		PMIX_INFO_LOAD(&info[n++], PMIX_GROUP_ASSIGN_CONTEXT_ID, NULL,
			       PMIX_BOOL);
	if (o->notify)
		PMIX_INFO_LOAD(&info[n++], PMIX_GROUP_NOTIFY_TERMINATION, NULL,
			       PMIX_BOOL);
	if (o->optional)
		PMIX_INFO_LOAD(&info[n++], PMIX_GROUP_OPTIONAL, NULL,
			       PMIX_BOOL);
	if (o->leader >= 0 && (long)me.rank == o->leader)
		PMIX_INFO_LOAD(&info[n++], PMIX_GROUP_LEADER, NULL, PMIX_BOOL);
	if (o->timeout > 0)
		PMIX_INFO_LOAD(&info[n++], PMIX_TIMEOUT, &timeout, PMIX_INT);
	if (o->local_only)
		PMIX_INFO_LOAD(&info[n++], PMIX_GROUP_LOCAL_ONLY, NULL,
			       PMIX_BOOL);
	if (o->info) {
		size_t cid = 1000 + me.rank;
		pmix_data_array_t grpinfo;
		pmix_info_t *in;

		PMIX_DATA_ARRAY_CONSTRUCT(&grpinfo, 1, PMIX_INFO);
		in = grpinfo.array;
		PMIX_INFO_LOAD(&in[0], PMIX_GROUP_LOCAL_CID, &cid, PMIX_SIZE);
		/* loaded as a copy */
		PMIX_INFO_LOAD(&info[n++], PMIX_GROUP_INFO, &grpinfo,
			       PMIX_DATA_ARRAY);
		PMIX_DATA_ARRAY_DESTRUCT(&grpinfo);
	}
	return n;
}

static void read_results(struct built *b, pmix_info_t *res, size_t nres)
{
	b->ctxid = SIZE_MAX;
	for (size_t i = 0; i < nres; i++) {
		const pmix_value_t *v = &res[i].value;

		if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_CONTEXT_ID) &&
		    v->type == PMIX_SIZE) {
			b->ctxid = v->data.size;
		} else if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_MEMBERSHIP) &&
			   v->type == PMIX_DATA_ARRAY && v->data.darray &&
			   v->data.darray->type == PMIX_PROC) {
			b->nprocs = v->data.darray->size;
			b->procs = calloc(b->nprocs ? b->nprocs : 1,
					  sizeof(*b->procs));
			if (b->procs)
				memcpy(b->procs, v->data.darray->array,
				       b->nprocs * sizeof(*b->procs));
		}
	}
}

/* construct_nb's answer. */
struct wait_built {
	struct built *b;
	volatile bool done;
};

static void on_built(pmix_status_t status, pmix_info_t *info, size_t ninfo,
		     void *cbdata, pmix_release_cbfunc_t release_fn,
		     void *release_cbdata)
{
	struct wait_built *w = cbdata;

	w->b->status = status;
	read_results(w->b, info, ninfo);
	if (release_fn)
		release_fn(release_cbdata);
	w->done = true;
}

static void construct(const char *id, const pmix_proc_t *procs, size_t n,
		      pmix_info_t *info, size_t ninfo, bool nb, struct built *b)
{
	double t0 = client_now();
	pmix_info_t *res = NULL;
	size_t nres = 0;

	*b = (struct built){.ctxid = SIZE_MAX};
	if (nb) {
		struct wait_built w = {b, false};
		pmix_status_t rc = PMIx_Group_construct_nb(id, procs, n, info,
							   ninfo, on_built, &w);

		/* the answer may come before the call returns */
		while (rc == PMIX_SUCCESS && !w.done)
			usleep(100);
		if (rc != PMIX_SUCCESS)
			b->status = rc;
	} else {
		b->status = PMIx_Group_construct(id, procs, n, info, ninfo,
						 &res, &nres);
		if (b->status == PMIX_SUCCESS)
			read_results(b, res, nres);
		if (res)
			PMIX_INFO_FREE(res, nres);
	}
	b->ms = (client_now() - t0) * 1e3;
}

static void report(const char *id, const struct built *b)
{
	char list[1024] = "", ctx[32] = "none";
	size_t off = 0;

	for (size_t i = 0; i < b->nprocs && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%u",
					i ? " " : "", b->procs[i].rank);
	if (b->ctxid != SIZE_MAX)
		snprintf(ctx, sizeof(ctx), "%zu", b->ctxid);
	say("construct %s: %s in %.1f ms, %zu members [%s], ctxid %s", id,
	    PMIx_Error_string(b->status), b->ms, b->nprocs, list, ctx);
	failures += b->status != PMIX_SUCCESS;
}

/* The member half the group away from this rank reads back its put. */
static void read_peer(const struct opts *o, const struct built *b,
		      const pmix_proc_t *procs, size_t n)
{
	size_t mine = 0;
	pmix_proc_t peer;
	pmix_value_t *v = NULL;
	pmix_status_t rc;
	pmix_info_t q;

	for (size_t i = 0; i < n; i++)
		if (procs[i].rank == me.rank)
			mine = i;
	peer = procs[(mine + n / 2) % n];
	rc = PMIx_Get(&peer, KEY, NULL, 0, &v);
	if (rc == PMIX_SUCCESS && v->type == PMIX_STRING)
		say("get " KEY " of rank %u: '%s'", peer.rank, v->data.string);
	else
		say("get " KEY " of rank %u: %s", peer.rank,
		    PMIx_Error_string(rc));
	failures += rc != PMIX_SUCCESS;
	if (v)
		PMIX_VALUE_RELEASE(v);
	if (!o->info || b->ctxid == SIZE_MAX)
		return;
	v = NULL;
	/* as Open MPI 5 asks (ompi/communicator/comm_cid.c) */
	PMIX_INFO_LOAD(&q, PMIX_GROUP_CONTEXT_ID, &b->ctxid, PMIX_SIZE);
	PMIX_INFO_SET_QUALIFIER(&q);
	rc = PMIx_Get(&peer, PMIX_GROUP_LOCAL_CID, &q, 1, &v);
	if (rc == PMIX_SUCCESS && v->type == PMIX_SIZE)
		say("local cid of rank %u: %zu", peer.rank, v->data.size);
	else
		say("local cid of rank %u: %s", peer.rank,
		    PMIx_Error_string(rc));
	failures += rc != PMIX_SUCCESS;
	if (v)
		PMIX_VALUE_RELEASE(v);
	PMIX_INFO_DESTRUCT(&q);
}

static void destruct(const char *id)
{
	double t0 = client_now();
	pmix_status_t rc = PMIx_Group_destruct(id, NULL, 0);

	say("destruct %s: %s in %.1f ms", id, PMIx_Error_string(rc),
	    (client_now() - t0) * 1e3);
	failures += rc != PMIX_SUCCESS;
}

/* KEY = "rR", and with `pad` also 64 bytes more (the benchmark's). */
static int put_key(bool pad)
{
	char val[16], bytes[64];
	pmix_value_t v = {.type = PMIX_STRING, .data.string = val},
		     p = {.type = PMIX_BYTE_OBJECT,
			  .data.bo = {.bytes = bytes, .size = sizeof(bytes)}};

	snprintf(val, sizeof(val), "r%u", me.rank);
	memset(bytes, (int)me.rank, sizeof(bytes));
	if (PMIx_Put(PMIX_GLOBAL, KEY, &v) != PMIX_SUCCESS ||
	    (pad && PMIx_Put(PMIX_GLOBAL, "grp.pad", &p) != PMIX_SUCCESS) ||
	    PMIx_Commit() != PMIX_SUCCESS)
		return -1;
	return 0;
}

/* --groups N: N groups at once, then their destructs. */
static void many(long ngroups)
{
	struct built *b = calloc((size_t)ngroups, sizeof(*b));
	struct wait_built *w = calloc((size_t)ngroups, sizeof(*w));
	pmix_proc_t *procs = calloc(size, sizeof(*procs));
	pmix_info_t info;
	long built = 0, distinct = 0, gone = 0, mine = 0;
	pmix_status_t rc;
	char id[32];

	if (!b || !w || !procs)
		exit(1);
	PMIX_INFO_LOAD(&info, PMIX_GROUP_ASSIGN_CONTEXT_ID, NULL, PMIX_BOOL);
	for (long g = 0; g < ngroups; g++) {
		uint32_t n = 0, out = (uint32_t)(g % size);

		if (size > 1 && me.rank == out)
			continue;
		for (uint32_t r = 0; r < size; r++) {
			if (size > 1 && r == out)
				continue;
			/* the macro names its argument more than once */
			PMIX_LOAD_PROCID(&procs[n], me.nspace, r);
			n++;
		}
		snprintf(id, sizeof(id), "g%ld", g);
		w[g] = (struct wait_built){&b[g], false};
		rc = PMIx_Group_construct_nb(id, procs, n, &info, 1, on_built,
					     &w[g]);
		mine++;
		if (rc != PMIX_SUCCESS) {
			b[g].status = rc;
			w[g].done = true;
		}
	}
	for (long g = 0; g < ngroups; g++)
		while (w[g].b && !w[g].done)
			usleep(100);
	for (long g = 0; g < ngroups; g++) {
		bool again = false;

		if (!w[g].b || b[g].status != PMIX_SUCCESS)
			continue;
		built++;
		for (long h = 0; h < g; h++)
			again |= w[h].b && b[h].status == PMIX_SUCCESS &&
				 b[h].ctxid == b[g].ctxid;
		distinct += !again && b[g].ctxid != SIZE_MAX;
	}
	for (long g = 0; g < ngroups; g++) {
		if (!w[g].b || b[g].status != PMIX_SUCCESS)
			continue;
		snprintf(id, sizeof(id), "g%ld", g);
		gone += PMIx_Group_destruct(id, NULL, 0) == PMIX_SUCCESS;
	}
	say("groups: %ld of %ld constructed, %ld distinct ctxids, %ld "
	    "destructed",
	    built, mine, distinct, gone);
	failures += built != mine || gone != mine;
	for (long g = 0; g < ngroups; g++)
		free(b[g].procs);
	free(b);
	free(w);
	free(procs);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* "median U us p90 U us" of t[n] (sorted here). */
static void stats(double *t, long n, char *out, size_t len)
{
	qsort(t, (size_t)n, sizeof(*t), by_value);
	snprintf(out, len, "median %.0f us p90 %.0f us", t[n / 2] * 1e6,
		 t[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1] * 1e6);
}

/* --bench N over `procs`. */
static void bench(const struct opts *o, const pmix_proc_t *procs, size_t n)
{
	double *t[4];
	char s[4][64];
	pmix_info_t info[8], collect;
	size_t ninfo = directives(o, info);

	PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	for (int k = 0; k < 4; k++)
		if (!(t[k] = calloc((size_t)o->bench, sizeof(double))))
			exit(1);
	for (long i = 0; i < o->bench; i++) {
		struct built b;
		double t0 = client_now();
		char id[32];

		snprintf(id, sizeof(id), "bench%ld", i);
		if (PMIx_Fence(procs, n, NULL, 0) != PMIX_SUCCESS)
			failures++;
		t[0][i] = client_now() - t0;
		t0 = client_now();
		if (PMIx_Fence(procs, n, &collect, 1) != PMIX_SUCCESS)
			failures++;
		t[1][i] = client_now() - t0;
		construct(id, procs, n, info, ninfo, false, &b);
		t[2][i] = b.ms / 1e3;
		failures += b.status != PMIX_SUCCESS;
		free(b.procs);
		t0 = client_now();
		failures += PMIx_Group_destruct(id, NULL, 0) != PMIX_SUCCESS;
		t[3][i] = client_now() - t0;
	}
	for (int k = 0; k < 4; k++) {
		stats(t[k], o->bench, s[k], sizeof(s[k]));
		free(t[k]);
	}
	say("bench %ld: fence %s, data fence %s, construct %s, destruct %s%s",
	    o->bench, s[0], s[1], s[2], s[3],
	    failures ? " (with failures)" : "");
}

/* --die, --die-after: end without PMIx_Finalize. */
static void end_now(const struct opts *o)
{
	if (o->kill)
		raise(SIGKILL);
	_exit(3);
}

static void parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){.id = "grp1",
			   .destruct = true,
			   .leader = -1,
			   .sleep_rank = -1,
			   .die = -1,
			   .die_after = -1};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool used = true;

		if (!strcmp(a, "--id") && v)
			o->id = v;
		else if (!strcmp(a, "--members") && v)
			o->members = v;
		else if (!strcmp(a, "--leader") && v)
			o->leader = atol(v);
		else if (!strcmp(a, "--timeout") && v)
			o->timeout = atol(v);
		else if (!strcmp(a, "--die") && v)
			o->die = atol(v);
		else if (!strcmp(a, "--die-after") && v)
			o->die_after = atol(v);
		else if (!strcmp(a, "--groups") && v)
			o->groups = atol(v);
		else if (!strcmp(a, "--bench") && v)
			o->bench = atol(v);
		else if (!strcmp(a, "--hold") && v)
			o->hold = atol(v);
		else if (!strcmp(a, "--sleep") && v &&
			 sscanf(v, "%ld:%ld", &o->sleep_rank, &o->sleep_sec) ==
				 2)
			;
		else
			used = false;
		if (used) {
			i++;
			continue;
		}
		if (!strcmp(a, "--wildcard"))
			o->wildcard = true;
		else if (!strcmp(a, "--ctxid"))
			o->ctxid = true;
		else if (!strcmp(a, "--notify"))
			o->notify = true;
		else if (!strcmp(a, "--optional"))
			o->optional = true;
		else if (!strcmp(a, "--local-only"))
			o->local_only = true;
		else if (!strcmp(a, "--info"))
			o->info = true;
		else if (!strcmp(a, "--put"))
			o->put = true;
		else if (!strcmp(a, "--nb"))
			o->nb = true;
		else if (!strcmp(a, "--no-destruct"))
			o->destruct = false;
		else if (!strcmp(a, "--watch"))
			o->watch = true;
		else if (!strcmp(a, "--kill"))
			o->kill = true;
		else
			usage();
	}
}

int main(int argc, char **argv)
{
	struct opts o;
	pmix_proc_t *procs;
	pmix_info_t info[8];
	size_t n = 0, ninfo;
	bool *in;
	struct built b;
	pmix_status_t rc;

	parse(argc, argv, &o);
	client_watchdog(PROG, (unsigned)(o.timeout + o.sleep_sec + o.hold));
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	size = client_job_size(&me);
	in = calloc(size ? size : 1, sizeof(*in));
	procs = calloc(size ? size : 1, sizeof(*procs));
	if (!size || !in || !procs)
		return 1;
	if (o.members && parse_peers(o.members, in, size) < 0)
		usage();
	for (uint32_t r = 0; r < size; r++) {
		if (o.members && !in[r])
			continue;
		/* the macro names its argument more than once */
		PMIX_LOAD_PROCID(&procs[n], me.nspace, r);
		n++;
	}
	if ((o.put || o.bench) && put_key(o.bench > 0) < 0)
		failures++;
	if (o.groups) {
		many(o.groups);
		goto out;
	}
	if (o.members && !in[me.rank])
		goto out;
	if (o.bench) {
		bench(&o, procs, n);
		goto out;
	}
	if ((long)me.rank == o.sleep_rank)
		sleep((unsigned)o.sleep_sec);
	if ((long)me.rank == o.die)
		end_now(&o);
	if (o.watch) {
		pmix_status_t codes[] = {PMIX_GROUP_MEMBER_FAILED,
					 PMIX_GROUP_LEADER_FAILED};

		if (client_register(codes, 2, on_group_event) < 0)
			failures++;
	}
	ninfo = directives(&o, info);
	if (o.wildcard) {
		PMIX_LOAD_PROCID(&procs[0], me.nspace, PMIX_RANK_WILDCARD);
		n = 1;
	}
	construct(o.id, procs, n, info, ninfo, o.nb, &b);
	report(o.id, &b);
	if (b.status == PMIX_SUCCESS && o.put && !o.wildcard)
		read_peer(&o, &b, procs, n);
	if (o.hold > 0)
		sleep((unsigned)o.hold);
	if (o.die_after >= 0) {
		if ((long)me.rank == o.die_after)
			end_now(&o);
		/* its end (and its events) reach every node first */
		usleep(o.watch ? 2000000 : 500000);
	}
	if (b.status == PMIX_SUCCESS && o.destruct)
		destruct(o.id);
	free(b.procs);
out:
	free(in);
	free(procs);
	rc = PMIx_Finalize(NULL, 0);
	return failures || rc != PMIX_SUCCESS;
}
