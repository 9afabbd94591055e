/*
 * pmix_spawn - PMIx_Spawn from rank 0, and the spawned children's view of
 * their parent (doc/spawn.md §2).
 *
 * usage: pmix_spawn [--n N] [--host LIST] [--wdir DIR] [--env NAME=V]
 *                   [--fail-cmd] [--apps K] [--child] [--cwd]
 *                   [--watch K] [--die R] [--alloc-id JOB] [--alloc-new]
 *                   [--from R] [--info] [--non-pmi]
 *                   [--cmd CMD | -- CMD ARGS...]
 *
 * As a parent, rank 0 spawns K apps (default 1), each N processes
 * (default 1) of CMD ARGS (argv[0] = CMD; --fail-cmd: a command that does
 * not exist instead), with the app env NAME=V and the app directive
 * PMIX_WDIR DIR as given, the job directive PMIX_HOST LIST if given, and
 * prints one line: "pmix_spawn: rank 0: spawned NSPACE in MS ms" or
 * "pmix_spawn: rank 0: spawn failed: STATUS".
 *
 * A process whose namespace has PMIX_SPAWNED true (or run with --child)
 * is a child: it prints "pmix_spawn: child rank R of NSPACE on HOST:
 * parent NSPACE_P rank RP spawned=1", then " env NAME=VALUE" for each
 * --env NAME[=V] (NAME's value in its environment, "(unset)" if none) and
 * " cwd DIR" with --cwd; it spawns nothing. Every process then fences
 * within its own namespace and finalizes. Exit status 0 unless PMIx
 * failed (PMIx_Init, the fence, or a child without PMIX_PARENT_ID).
 *
 * --non-pmi: the job directive PMIX_NON_PMI (CMD will not call
 * PMIx_Init); --tool: PMIX_SPAWN_TOOL (CMD is a PMIx tool), and the
 * spawner first prints "pmix_spawn: rank R: tools of NSPACE" (its own).
 *
 * --watch K: every process of the parent registers for the process-end
 * events, prints "pmix_spawn: rank R: event NAME from NSPACE rank C exit
 * E" for each one whose source is in another namespace, and waits (up to
 * 20 s) until it got K of them. --die R: child rank R kills itself
 * (SIGKILL) after its line. --cmd CMD: CMD without arguments (for
 * launchers that take "--" for themselves, as Open MPI's mpirun does).
 * --from R: rank R spawns (and watches) instead of rank 0, and says so
 * in its lines ("rank R: ..."). --alloc-id JOB spawns into that job
 * (PMIX_ALLOC_ID); --alloc-new first asks for a new job of one node
 * (PMIx_Allocation_request NEW, 2 minutes), prints "pmix_spawn: rank 0:
 * allocated JOB" (or "allocation failed: STATUS") and spawns into it.
 *
 * --info: the other namespace's job data. Each parent rank (the spawner
 * at once, the others right after a fence that brings them the child's
 * namespace, with PMIX_IMMEDIATE: their node must have it already, as the
 * spawner's answer comes once every node of its step registered the
 * child) prints "pmix_spawn: rank R
 * on HOST: NSPACE job size N spawned S parent NSPACE_P rank RP" from PMIx_Get
 * of the child namespace's PMIX_JOB_SIZE, PMIX_SPAWNED and PMIX_PARENT_ID ("-1"
 * and "none" for what it cannot get); each child prints "pmix_spawn: child rank
 * R: parent NSPACE_P job size N" from its parent namespace's.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_spawn"
#include "client_util.h"

#define ENV_MAX 8

struct opts {
	long n, apps, watch, die, from;
	const char *host, *wdir, *env[ENV_MAX];
	const char *alloc_id;
	bool alloc_new;
	int nenv;
	bool fail_cmd, child, cwd, info, non_pmi, tool;
	char **cmd;   /* CMD ARGS..., NULL-terminated */
	char *one[2]; /* --cmd CMD */
};

static int parse(int argc, char **argv, struct opts *o)
{
	int i = 1;

	*o = (struct opts){.n = 1, .apps = 1, .die = -1};
	for (; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--fail-cmd"))
			o->fail_cmd = true;
		else if (!strcmp(a, "--alloc-new"))
			o->alloc_new = true;
		else if (!strcmp(a, "--child"))
			o->child = true;
		else if (!strcmp(a, "--cwd"))
			o->cwd = true;
		else if (!strcmp(a, "--info"))
			o->info = true;
		else if (!strcmp(a, "--non-pmi"))
			o->non_pmi = true;
		else if (!strcmp(a, "--tool"))
			o->tool = true;
		else if (!v)
			return -1;
		else if (!strcmp(a, "--n") &&
			 !client_parse_long(v, 1, 4096, &o->n))
			i++;
		else if (!strcmp(a, "--apps") &&
			 !client_parse_long(v, 1, 64, &o->apps))
			i++;
		else if (!strcmp(a, "--watch") &&
			 !client_parse_long(v, 1, 4096, &o->watch))
			i++;
		else if (!strcmp(a, "--die") &&
			 !client_parse_long(v, 0, 4096, &o->die))
			i++;
		else if (!strcmp(a, "--from") &&
			 !client_parse_long(v, 0, 4096, &o->from))
			i++;
		else if (!strcmp(a, "--host"))
			o->host = argv[++i];
		else if (!strcmp(a, "--alloc-id"))
			o->alloc_id = argv[++i];
		else if (!strcmp(a, "--cmd"))
			o->one[0] = argv[++i];
		else if (!strcmp(a, "--wdir"))
			o->wdir = argv[++i];
		else if (!strcmp(a, "--env") && o->nenv < ENV_MAX)
			o->env[o->nenv++] = argv[++i];
		else
			return -1;
	}
	o->cmd = i + 1 < argc ? &argv[i + 1] : o->one[0] ? o->one : NULL;
	return 0;
}

/* 1 if `me` was spawned (its parent into *parent), 0 if not, -1 if it
 * was but has no parent. */
static int spawned(const pmix_proc_t *me, pmix_proc_t *parent)
{
	pmix_proc_t wild;
	pmix_value_t *v = NULL;
	pmix_info_t opt;
	int how = 0;

	PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
	PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, NULL, PMIX_BOOL);
	if (PMIx_Get(&wild, PMIX_SPAWNED, &opt, 1, &v) == PMIX_SUCCESS &&
	    v->type == PMIX_BOOL && v->data.flag)
		how = -1;
	if (v)
		PMIX_VALUE_RELEASE(v);
	v = NULL;
	if (how &&
	    PMIx_Get(&wild, PMIX_PARENT_ID, &opt, 1, &v) == PMIX_SUCCESS &&
	    v->type == PMIX_PROC && v->data.proc) {
		*parent = *v->data.proc;
		how = 1;
	}
	if (v)
		PMIX_VALUE_RELEASE(v);
	PMIX_INFO_DESTRUCT(&opt);
	return how;
}

static void child_report(const pmix_proc_t *me, const pmix_proc_t *parent,
			 const struct opts *o)
{
	char line[4096], dir[1024];
	size_t n;

	n = (size_t)snprintf(line, sizeof(line),
			     PROG ": child rank %u of %s on %s: parent %s "
				  "rank %u spawned=1",
			     me->rank, me->nspace, client_host(),
			     parent->nspace, parent->rank);
	for (int i = 0; i < o->nenv && n < sizeof(line); i++) {
		int len = (int)strcspn(o->env[i], "=");
		char name[256];
		const char *val;

		snprintf(name, sizeof(name), "%.*s", len, o->env[i]);
		val = getenv(name);
		n += (size_t)snprintf(line + n, sizeof(line) - n, " env %s=%s",
				      name, val ? val : "(unset)");
	}
	if (o->cwd && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, " cwd %s",
			 getcwd(dir, sizeof(dir)) ? dir : "?");
	printf("%s\n", line);
}

/* `ns`'s PMIX_JOB_SIZE (PMIx_Get with `opt`), or -1. */
static long job_size_with(const char *ns, const pmix_info_t *opt, size_t nopt)
{
	pmix_proc_t wild;
	pmix_value_t *v = NULL;
	long n = -1;

	PMIX_LOAD_PROCID(&wild, ns, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_JOB_SIZE, opt, nopt, &v) == PMIX_SUCCESS &&
	    v->type == PMIX_UINT32)
		n = (long)v->data.uint32;
	if (v)
		PMIX_VALUE_RELEASE(v);
	return n;
}

static long job_size(const char *ns)
{
	return job_size_with(ns, NULL, 0);
}

/*
 * --info of a parent rank: the child namespace `ns`'s job data; `now`:
 * PMIX_IMMEDIATE, only what this node's PMIx server has already (it
 * neither waits for the namespace nor asks the host).
 */
static void child_info(const pmix_proc_t *me, const char *ns, bool now)
{
	pmix_proc_t wild = {0}, parent = {0};
	pmix_value_t *v = NULL;
	pmix_info_t opt;
	size_t nopt = now ? 1 : 0;
	int spawned_ = -1;

	PMIX_INFO_LOAD(&opt, PMIX_IMMEDIATE, &now, PMIX_BOOL);
	snprintf(parent.nspace, sizeof(parent.nspace), "none");
	PMIX_LOAD_PROCID(&wild, ns, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_SPAWNED, &opt, nopt, &v) == PMIX_SUCCESS &&
	    v->type == PMIX_BOOL)
		spawned_ = v->data.flag;
	if (v)
		PMIX_VALUE_RELEASE(v);
	v = NULL;
	if (PMIx_Get(&wild, PMIX_PARENT_ID, &opt, nopt, &v) == PMIX_SUCCESS &&
	    v->type == PMIX_PROC && v->data.proc)
		parent = *v->data.proc;
	if (v)
		PMIX_VALUE_RELEASE(v);
	printf(PROG ": rank %u on %s: %s job size %ld spawned %d parent %s "
		    "rank %u\n",
	       me->rank, client_host(), ns, job_size_with(ns, &opt, nopt),
	       spawned_, parent.nspace, parent.rank);
	PMIX_INFO_DESTRUCT(&opt);
}

/* --info of the parent ranks that did not spawn: the spawner's child
 * namespace (its key "spawn.child"), then its job data. */
static void others_info(const pmix_proc_t *me, const struct opts *o)
{
	pmix_proc_t wild, from;
	pmix_info_t collect;
	pmix_value_t *v = NULL;
	pmix_status_t rc;
	bool yes = true;

	PMIx_Commit();
	PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
	PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
	if (PMIx_Fence(&wild, 1, &collect, 1) != PMIX_SUCCESS)
		printf(PROG ": rank %u: the --info fence failed\n", me->rank);
	PMIX_INFO_DESTRUCT(&collect);
	if (me->rank == (pmix_rank_t)o->from)
		return;
	PMIX_LOAD_PROCID(&from, me->nspace, (pmix_rank_t)o->from);
	rc = PMIx_Get(&from, "spawn.child", NULL, 0, &v);
	if (rc == PMIX_SUCCESS && v->type == PMIX_STRING)
		child_info(me, v->data.string, true);
	else
		printf(PROG ": rank %u: no child namespace from rank %ld: %s\n",
		       me->rank, o->from, PMIx_Error_string(rc));
	if (v)
		PMIX_VALUE_RELEASE(v);
}

/* The process-end events from other namespaces (--watch). */
static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static long ev_seen;
static pmix_proc_t ev_me;

static void on_end(size_t id, pmix_status_t code, const pmix_proc_t *src,
		   pmix_info_t info[], size_t ninfo, pmix_info_t *results,
		   size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
		   void *cbdata)
{
	int exit_code = 0;

	(void)id;
	(void)results;
	(void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE) &&
		    info[i].value.type == PMIX_INT)
			exit_code = info[i].value.data.integer;
	if (src && !PMIX_CHECK_NSPACE(src->nspace, ev_me.nspace)) {
		printf(PROG ": rank %u: event %s from %s rank %u exit %d\n",
		       ev_me.rank, PMIx_Error_string(code), src->nspace,
		       src->rank, exit_code);
		fflush(stdout);
		pthread_mutex_lock(&ev_lock);
		ev_seen++;
		pthread_mutex_unlock(&ev_lock);
	}
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void watch(void)
{
	pmix_status_t codes[] = {
		PMIX_EVENT_PROC_TERMINATED, PMIX_ERR_PROC_ABORTED_BY_SIG,
		PMIX_ERR_EXIT_NONZERO_TERM, PMIX_ERR_PROC_TERM_WO_SYNC};

	PMIx_Register_event_handler(codes, 4, NULL, 0, on_end, NULL, NULL);
}

/* Wait until `k` events came, 20 s at most. */
static void wait_events(long k)
{
	for (int i = 0; i < 200; i++) {
		long n;

		pthread_mutex_lock(&ev_lock);
		n = ev_seen;
		pthread_mutex_unlock(&ev_lock);
		if (n >= k)
			return;
		nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
	}
}

/* A new job of one node for 2 minutes: its id into `job`, or false. */
static bool alloc_new(char *job, size_t len)
{
	pmix_info_t info[2], *res = NULL;
	uint64_t one = 1;
	size_t nres = 0;
	pmix_status_t rc;
	bool got = false;
#if PMIX_VERSION_MAJOR >= 5
	PMIX_INFO_LOAD(&info[1], PMIX_ALLOC_TIME, "2:00", PMIX_STRING);
#else
	uint32_t sec = 120;

	PMIX_INFO_LOAD(&info[1], PMIX_ALLOC_TIME, &sec, PMIX_UINT32);
#endif
	PMIX_INFO_LOAD(&info[0], PMIX_ALLOC_NUM_NODES, &one, PMIX_UINT64);
	rc = PMIx_Allocation_request(PMIX_ALLOC_NEW, info, 2, &res, &nres);
	for (size_t k = 0; rc == PMIX_SUCCESS && k < nres; k++)
		if (PMIX_CHECK_KEY(&res[k], PMIX_ALLOC_ID) &&
		    res[k].value.type == PMIX_STRING) {
			snprintf(job, len, "%s", res[k].value.data.string);
			got = true;
		}
	if (got)
		printf(PROG ": rank %u: allocated %s\n", ev_me.rank, job);
	else
		printf(PROG ": rank %u: allocation failed: %s\n", ev_me.rank,
		       PMIx_Error_string(rc));
	if (res)
		PMIX_INFO_FREE(res, nres);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
	return got;
}

/* Rank 0's spawn of `o`'s apps, reported in one line. */
static void spawn(const struct opts *o)
{
	pmix_app_t *apps = NULL;
	pmix_info_t job_info[4];
	size_t njob = 0;
	pmix_nspace_t ns;
	pmix_status_t rc;
	char *bad[] = {"/nonexistent/pmix_spawn_no_such_cmd", NULL};
	char **cmd = o->fail_cmd ? bad : o->cmd;
	char job[32];
	double t0;

	if (o->alloc_new && !alloc_new(job, sizeof(job)))
		return;
	PMIX_APP_CREATE(apps, (size_t)o->apps);
	for (long i = 0; i < o->apps; i++) {
		pmix_app_t *a = &apps[i];

		a->cmd = strdup(cmd[0]);
		for (int k = 0; cmd[k]; k++)
			PMIX_ARGV_APPEND(rc, a->argv, cmd[k]);
		for (int k = 0; k < o->nenv; k++)
			PMIX_ARGV_APPEND(rc, a->env, o->env[k]);
		a->maxprocs = (int)o->n;
		if (o->wdir) {
			PMIX_INFO_CREATE(a->info, 1);
			a->ninfo = 1;
			PMIX_INFO_LOAD(&a->info[0], PMIX_WDIR, o->wdir,
				       PMIX_STRING);
		}
	}
	if (o->host)
		PMIX_INFO_LOAD(&job_info[njob++], PMIX_HOST, o->host,
			       PMIX_STRING);
	if (o->alloc_id || o->alloc_new)
		PMIX_INFO_LOAD(&job_info[njob++], PMIX_ALLOC_ID,
			       o->alloc_id ? o->alloc_id : job, PMIX_STRING);
	if (o->non_pmi)
		PMIX_INFO_LOAD(&job_info[njob++], PMIX_NON_PMI, &o->non_pmi,
			       PMIX_BOOL);
	if (o->tool) {
		PMIX_INFO_LOAD(&job_info[njob++], PMIX_SPAWN_TOOL, &o->tool,
			       PMIX_BOOL);
		printf(PROG ": rank %u: tools of %s\n", ev_me.rank,
		       ev_me.nspace);
	}
	t0 = client_now();
	rc = PMIx_Spawn(njob ? job_info : NULL, njob, apps, (size_t)o->apps,
			ns);
	if (rc == PMIX_SUCCESS) {
		printf(PROG ": rank %u: spawned %s in %.0f ms\n", ev_me.rank,
		       ns, (client_now() - t0) * 1000);
		if (o->info) {
			pmix_value_t val = {.type = PMIX_STRING,
					    .data.string = ns};

			child_info(&ev_me, ns, false);
			if (PMIx_Put(PMIX_GLOBAL, "spawn.child", &val) !=
			    PMIX_SUCCESS)
				printf(PROG ": rank %u: cannot put the child "
					    "namespace\n",
				       ev_me.rank);
		}
	} else
		printf(PROG ": rank %u: spawn failed: %s\n", ev_me.rank,
		       PMIx_Error_string(rc));
	for (size_t k = 0; k < njob; k++)
		PMIX_INFO_DESTRUCT(&job_info[k]);
	PMIX_APP_FREE(apps, (size_t)o->apps);
}

int main(int argc, char **argv)
{
	struct opts o;
	pmix_proc_t me, parent, wild;
	pmix_status_t rc;
	int child;

	client_watchdog(PROG, 120);
	if (parse(argc, argv, &o) < 0) {
		fprintf(stderr,
			"usage: " PROG " [--n N] [--host LIST] [--wdir DIR] "
			"[--env NAME=V] [--fail-cmd] [--apps K] [--child] "
			"[--cwd] [--info] [-- CMD ARGS...]\n");
		return 2;
	}
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	child = spawned(&me, &parent);
	ev_me = me;
	if (!child && o.watch)
		watch();
	if (child > 0)
		child_report(&me, &parent, &o);
	if (child > 0 && o.info)
		printf(PROG ": child rank %u: parent %s job size %ld\n",
		       me.rank, parent.nspace, job_size(parent.nspace));
	else if (child < 0)
		printf(PROG ": rank %u: PMIX_SPAWNED without PMIX_PARENT_ID\n",
		       me.rank);
	else if (o.child)
		printf(PROG ": rank %u: --child, but not spawned\n", me.rank);
	else if (me.rank == (pmix_rank_t)o.from && !o.cmd && !o.fail_cmd)
		printf(PROG ": rank %u: nothing to spawn (no -- CMD)\n",
		       me.rank);
	else if (me.rank == (pmix_rank_t)o.from)
		spawn(&o);
	if (!child && o.info)
		others_info(&me, &o);
	if (!child && o.watch && me.rank == (pmix_rank_t)o.from)
		wait_events(o.watch);
	if (child > 0 && me.rank == (pmix_rank_t)o.die) {
		fflush(stdout);
		raise(SIGKILL);
	}
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if ((rc = PMIx_Fence(&wild, 1, NULL, 0)) != PMIX_SUCCESS)
		printf(PROG ": rank %u: fence: %s\n", me.rank,
		       PMIx_Error_string(rc));
	PMIx_Finalize(NULL, 0);
	return rc == PMIX_SUCCESS && child >= 0 && (child || !o.child) ? 0 : 1;
}
