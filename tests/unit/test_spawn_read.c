/*
 * Unit tests for plugins/mpi_pmixev/pmixside/spawn_read.c: a PMIx_Spawn
 * read into SPAWN (doc/spawn.md §2.2): every directive's mapping, job and
 * app level, the env directives in order, working directories, several
 * apps, what is refused and why (the key named), required or not, and a
 * result SPAWN's codec packs and unpacks to the same.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <pmix.h>

#include "pmixd_fixture.h"
#include "pmixside/spawn_read.h"

#define NIN 24

static struct spawn_req r;
static pmix_info_t in[NIN];
static size_t nin;
static pmix_app_t app[3];
static char *argv_a[] = {"a.out", "-x", NULL};
static char *env_a[] = {"OMPI_PARENT_PORT=1.2:3", "X=a=b", NULL};

/* Apps 0..2: "/bin/a.out -x" with env_a in /home/u, then "b" in /tmp. */
static void apps_reset(void)
{
	memset(app, 0, sizeof(app));
	app[0] = (pmix_app_t){.cmd = "/bin/a.out",
			      .argv = argv_a,
			      .env = env_a,
			      .cwd = "/home/u",
			      .maxprocs = 3};
	app[1] = (pmix_app_t){.cmd = "b", .cwd = "/tmp", .maxprocs = 1};
	app[2] = app[1];
}

static void infos_reset(void)
{
	for (size_t i = 0; i < nin; i++)
		PMIX_INFO_DESTRUCT(&in[i]);
	memset(in, 0, sizeof(in));
	nin = 0;
}

static pmix_info_t *add(const char *key, const void *v, pmix_data_type_t t)
{
	assert_true(nin < NIN);
	PMIX_INFO_LOAD(&in[nin], key, v, t);
	return &in[nin++];
}

static void add_str(const char *key, const char *v)
{
	add(key, v, PMIX_STRING);
}

static void add_true(const char *key)
{
	bool yes = true;

	add(key, &yes, PMIX_BOOL);
}

static void add_envar(const char *key, const char *name, const char *value,
		      char sep)
{
	pmix_envar_t e = {.envar = (char *)name,
			  .value = (char *)value,
			  .separator = sep};

	add(key, &e, PMIX_ENVAR);
}

/* Read the job infos `in` (or none) with the first `napps` apps. */
static pmix_status_t read_n(bool job, size_t napps)
{
	pmixev_pmixd_spawn_release(&r.m);
	memset(&r, 0, sizeof(r));
	r.m.rank = 2;
	return spawn_read(&r, job ? in : NULL, job ? nin : 0, app, napps);
}

static pmix_status_t read_job(void)
{
	return read_n(true, 1);
}

/* Refused with `st`, the reason naming `word`. */
static void refused(pmix_status_t got, pmix_status_t st, const char *word)
{
	assert_int_equal(got, st);
	if (!strstr(r.why, word))
		fail_msg("reason '%s' does not name '%s'", r.why, word);
}

static int setup(void **state)
{
	apps_reset();
	return fx_setup(state);
}

static int teardown(void **state)
{
	infos_reset();
	pmixev_pmixd_spawn_release(&r.m);
	return fx_teardown(state);
}

/* What was read packs, and unpacks to the same. */
static void round_trip(void)
{
	struct pmixev_pmixd_spawn u = {0};
	struct pmixev_buf w, rd;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_spawn_pack(&w, &r.m), 0);
	fx_reader(&rd, &w);
	assert_int_equal(pmixev_pmixd_spawn_unpack(
				 &rd, &fx, PMIXEV_PMIXD_SPAWN_BYTES, &u),
			 0);
	assert_int_equal(u.flags, r.m.flags);
	assert_int_equal(u.timeout_ms, r.m.timeout_ms);
	assert_int_equal(u.ntasks_per_node, r.m.ntasks_per_node);
	assert_int_equal(u.dist, r.m.dist);
	assert_string_equal(u.nodelist, r.m.nodelist);
	assert_int_equal(u.nops, r.m.nops);
	assert_int_equal(u.napps, r.m.napps);
	for (uint32_t i = 0; i < u.napps; i++) {
		assert_string_equal(u.apps[i].cmd, r.m.apps[i].cmd);
		assert_string_equal(u.apps[i].cwd, r.m.apps[i].cwd);
		assert_int_equal(u.apps[i].argc, r.m.apps[i].argc);
		assert_int_equal(u.apps[i].envc, r.m.apps[i].envc);
	}
	pmixev_pmixd_spawn_release(&u);
	pmixev_buf_release(&w);
}

static void test_plain(void **state)
{
	struct pmixev_pmixd_spawn_app *a;

	(void)state;
	assert_int_equal(read_n(false, 2), PMIX_SUCCESS);
	assert_int_equal(r.m.napps, 2);
	a = &r.m.apps[0];
	assert_int_equal(a->maxprocs, 3);
	assert_string_equal(a->cmd, "/bin/a.out");
	assert_int_equal(a->argc, 2);
	assert_string_equal(a->argv[1], "-x");
	assert_int_equal(a->envc, 2);
	assert_string_equal(a->env[0], "OMPI_PARENT_PORT=1.2:3");
	assert_string_equal(a->cwd, "/home/u");
	assert_int_equal(r.m.apps[1].argc, 0);
	assert_string_equal(r.m.wdir, "");
	assert_string_equal(r.m.nodelist, "");
	assert_int_equal(r.m.flags, 0);
	assert_int_equal(r.m.dist, PMIXEV_PMIXD_DIST_DEFAULT);
	assert_int_equal(r.m.bind, PMIXEV_PMIXD_BIND_DEFAULT);
	assert_int_equal(r.m.timeout_ms, 0);
	round_trip();
}

static void test_directives(void **state)
{
	uint16_t cpus = 2;
	int job_s = 61, spawn_s = 5, any_s = 9;

	(void)state;
	infos_reset();
	add_str(PMIX_HOST, "n[1-2],n4");
	add_str(PMIX_MAPBY, "node:OVERSUBSCRIBE,DISPLAY");
	add_str(PMIX_RANKBY, "NODE");
	add_str(PMIX_BINDTO, "core");
	add(PMIX_CPUS_PER_PROC, &cpus, PMIX_UINT16);
	add(PMIX_JOB_TIMEOUT, &job_s, PMIX_INT);
	add(PMIX_TIMEOUT, &any_s, PMIX_INT);
	add(PMIX_SPAWN_TIMEOUT, &spawn_s, PMIX_INT);
	add_true(PMIX_NOTIFY_COMPLETION);
	add_true(PMIX_NOTIFY_JOB_EVENTS);
	add_str(PMIX_ALLOC_ID, "1234");
	/* No effect. */
	add_str(PMIX_PERSONALITY, "ompi5");
	add_true(PMIX_DISPLAY_MAP);
	add_true(PMIX_ENVARS_HARVESTED);
	add_str(PMIX_PSET_NAME, "mine");
	add_true(PMIX_NO_OVERSUBSCRIBE);
	add_true(PMIX_FWD_STDOUT);
	add_true(PMIX_REQUESTOR_IS_CLIENT);
	add_str("x.site.key", "v");
	assert_int_equal(read_job(), PMIX_SUCCESS);
	assert_string_equal(r.m.nodelist, "n[1-2],n4");
	assert_int_equal(r.m.dist, PMIXEV_PMIXD_DIST_CYCLIC);
	assert_int_equal(r.m.bind, PMIXEV_PMIXD_BIND_CORES);
	assert_int_equal(r.m.cpus_per_task, 2);
	assert_int_equal(r.m.job_minutes, 2);
	assert_int_equal(r.m.timeout_ms, 5000);
	assert_int_equal(r.m.alloc_job, 1234);
	assert_int_equal(r.m.flags, PMIXEV_PMIXD_SPAWN_OVERLAP |
					    PMIXEV_PMIXD_SPAWN_NOTIFY_DONE |
					    PMIXEV_PMIXD_SPAWN_NOTIFY_JOB);
	assert_int_equal(r.m.ntasks_per_node, 0);
	round_trip();

	/* PMIX_ADD_HOST is a node list too; a false flag is no flag. */
	infos_reset();
	add_str(PMIX_ADD_HOST, "n3");
	add(PMIX_NON_PMI, &(bool){false}, PMIX_BOOL);
	assert_int_equal(read_job(), PMIX_SUCCESS);
	assert_string_equal(r.m.nodelist, "n3");
	assert_int_equal(r.m.flags, 0);

	/* A spawn without PMIx, of a tool: flags (a tool's hosts are settled
	 * where the step's layout is known, pmixside/spawn_pmix.c). */
	infos_reset();
	add_true(PMIX_NON_PMI);
	assert_int_equal(read_job(), PMIX_SUCCESS);
	assert_int_equal(r.m.flags, PMIXEV_PMIXD_SPAWN_NON_PMI);
	infos_reset();
	add_true(PMIX_SPAWN_TOOL);
	assert_int_equal(read_job(), PMIX_SUCCESS);
	assert_int_equal(r.m.flags, PMIXEV_PMIXD_SPAWN_TOOL);
}

static void test_mapping(void **state)
{
	static const char *block[] = {"slot", "core", "HWTHREAD", "slot:PE=1"};

	(void)state;
	infos_reset();
	add_str(PMIX_PPR, "2:node");
	add_str(PMIX_MAPBY, "PPR:2:NODE:oversubscribe");
	assert_int_equal(read_job(), PMIX_SUCCESS);
	assert_int_equal(r.m.ntasks_per_node, 2);
	assert_int_equal(r.m.dist, PMIXEV_PMIXD_DIST_DEFAULT);
	assert_int_equal(r.m.flags, PMIXEV_PMIXD_SPAWN_OVERLAP);

	for (int i = 0; i < 3; i++) {
		infos_reset();
		add_str(PMIX_MAPBY, block[i]);
		assert_int_equal(read_job(), PMIX_SUCCESS);
		assert_int_equal(r.m.dist, PMIXEV_PMIXD_DIST_BLOCK);
	}
	/* Open MPI's display_map alone: no mapping. */
	infos_reset();
	add_str(PMIX_MAPBY, ":DISPLAY");
	add_str(PMIX_MAPBY, "slot:NOOVERSUBSCRIBE");
	assert_int_equal(read_job(), PMIX_SUCCESS);
	assert_int_equal(r.m.flags, 0);

	infos_reset();
	add_str(PMIX_MAPBY, block[3]);
	refused(read_job(), PMIX_ERR_NOT_SUPPORTED, "'PE=1'");
	assert_non_null(strstr(r.why, PMIX_MAPBY));
	infos_reset();
	add_str(PMIX_MAPBY, "package");
	refused(read_job(), PMIX_ERR_NOT_SUPPORTED, PMIX_MAPBY);
	infos_reset();
	add_str(PMIX_MAPBY, "ppr:2:socket");
	refused(read_job(), PMIX_ERR_NOT_SUPPORTED, "socket");
	infos_reset();
	add_str(PMIX_PPR, "0:node");
	refused(read_job(), PMIX_ERR_BAD_PARAM, PMIX_PPR);
	infos_reset();
	add_str(PMIX_PPR, "2:node:x");
	refused(read_job(), PMIX_ERR_BAD_PARAM, PMIX_PPR);
	/* Two different mappings. */
	infos_reset();
	add_str(PMIX_PPR, "2:node");
	add_str(PMIX_MAPBY, "ppr:3:node");
	refused(read_job(), PMIX_ERR_NOT_SUPPORTED, PMIX_MAPBY);
}

static void test_rankby_bindto(void **state)
{
	static const struct {
		const char *word;
		enum pmixev_pmixd_spawn_bind bind;
	} binds[] = {
		{"none", PMIXEV_PMIXD_BIND_NONE},
		{"core", PMIXEV_PMIXD_BIND_CORES},
		{"hwthread", PMIXEV_PMIXD_BIND_THREADS},
		{"package", PMIXEV_PMIXD_BIND_SOCKETS},
		{"Socket", PMIXEV_PMIXD_BIND_SOCKETS},
	};

	(void)state;
	/* Ranked as mapped: by default in blocks. */
	infos_reset();
	add_str(PMIX_RANKBY, "slot");
	assert_int_equal(read_job(), PMIX_SUCCESS);
	infos_reset();
	add_str(PMIX_RANKBY, "node");
	refused(read_job(), PMIX_ERR_NOT_SUPPORTED, PMIX_RANKBY);
	infos_reset();
	add_str(PMIX_RANKBY, "node");
	add_str(PMIX_MAPBY, "slot");
	refused(read_job(), PMIX_ERR_NOT_SUPPORTED, PMIX_RANKBY);
	infos_reset();
	add_str(PMIX_RANKBY, "fill");
	refused(read_job(), PMIX_ERR_NOT_SUPPORTED, "fill");

	for (size_t i = 0; i < sizeof(binds) / sizeof(binds[0]); i++) {
		infos_reset();
		add_str(PMIX_BINDTO, binds[i].word);
		assert_int_equal(read_job(), PMIX_SUCCESS);
		assert_int_equal(r.m.bind, binds[i].bind);
	}
	infos_reset();
	add_str(PMIX_BINDTO, "l3cache");
	refused(read_job(), PMIX_ERR_NOT_SUPPORTED, PMIX_BINDTO);
	infos_reset();
	add_str(PMIX_BINDTO, "core:overload-allowed");
	refused(read_job(), PMIX_ERR_NOT_SUPPORTED, PMIX_BINDTO);
}

static void test_wdir(void **state)
{
	pmix_info_t ai;

	(void)state;
	/* The job's overrides; an app without cwd takes it. */
	infos_reset();
	add_str(PMIX_WDIR, "/w");
	app[1].cwd = NULL;
	assert_int_equal(read_n(true, 2), PMIX_SUCCESS);
	assert_string_equal(r.m.wdir, "/w");
	assert_string_equal(r.m.apps[0].cwd, "/home/u");
	assert_string_equal(r.m.apps[1].cwd, "/w");
	round_trip();
	refused(read_n(false, 2), PMIX_ERR_BAD_PARAM, "app 1: no working");
	app[1].cwd = "rel";
	refused(read_n(false, 2), PMIX_ERR_BAD_PARAM, "app 1: cwd");
	apps_reset();
	infos_reset();
	add_str(PMIX_WDIR, "w");
	refused(read_job(), PMIX_ERR_BAD_PARAM, PMIX_WDIR);

	/* An app's own: relative under its cwd, or absolute. */
	PMIX_INFO_LOAD(&ai, PMIX_WDIR, "sub/dir", PMIX_STRING);
	app[0].info = &ai;
	app[0].ninfo = 1;
	assert_int_equal(read_n(false, 1), PMIX_SUCCESS);
	assert_string_equal(r.m.apps[0].cwd, "/home/u/sub/dir");
	assert_string_equal(r.m.wdir, "");
	PMIX_INFO_DESTRUCT(&ai);
	PMIX_INFO_LOAD(&ai, PMIX_WDIR, "/abs", PMIX_STRING);
	app[0].cwd = NULL;
	assert_int_equal(read_n(false, 1), PMIX_SUCCESS);
	assert_string_equal(r.m.apps[0].cwd, "/abs");
	PMIX_INFO_DESTRUCT(&ai);
	apps_reset();
}

static void test_env_ops(void **state)
{
	pmix_info_t ai;
	const struct pmixev_pmixd_envop *o;

	(void)state;
	infos_reset();
	add_envar(PMIX_SET_ENVAR, "FOO", "bar", 0);
	add_str(PMIX_UNSET_ENVAR, "GONE");
	add_envar(PMIX_PREPEND_ENVAR, "PATH", "/opt/bin", ':');
	add_envar(PMIX_APPEND_ENVAR, "LD_LIBRARY_PATH", "/opt/lib", ';');
	add_envar(PMIX_ADD_ENVAR, "HOME", "/nowhere", ':');
	add_envar(PMIX_UNSET_ENVAR, "ALSO_GONE", "ignored", 0);
	PMIX_INFO_LOAD(&ai, PMIX_SET_ENVAR, (&(pmix_envar_t){"LAST", "1", 0}),
		       PMIX_ENVAR);
	app[0].info = &ai;
	app[0].ninfo = 1;
	assert_int_equal(read_job(), PMIX_SUCCESS);
	assert_int_equal(r.m.nops, 7);
	o = r.m.ops;
	assert_int_equal(o[0].op, PMIXEV_PMIXD_ENV_SET);
	assert_string_equal(o[0].name, "FOO");
	assert_string_equal(o[0].value, "bar");
	assert_int_equal(o[1].op, PMIXEV_PMIXD_ENV_UNSET);
	assert_string_equal(o[1].name, "GONE");
	assert_string_equal(o[1].value, "");
	assert_int_equal(o[2].op, PMIXEV_PMIXD_ENV_PREPEND);
	assert_int_equal(o[2].sep, ':');
	assert_int_equal(o[3].op, PMIXEV_PMIXD_ENV_APPEND);
	assert_int_equal(o[3].sep, ';');
	assert_int_equal(o[4].op, PMIXEV_PMIXD_ENV_ADD);
	assert_int_equal(o[4].sep, 0);
	assert_string_equal(o[5].value, "");
	assert_string_equal(o[6].name, "LAST");
	round_trip();
	/* An app's own, with several apps: the step has one environment. */
	refused(read_n(false, 2), PMIX_ERR_NOT_SUPPORTED,
		"app 0: " PMIX_SET_ENVAR);
	PMIX_INFO_DESTRUCT(&ai);
	apps_reset();

	infos_reset();
	add_envar(PMIX_SET_ENVAR, "1X", "v", 0);
	refused(read_job(), PMIX_ERR_BAD_PARAM, PMIX_SET_ENVAR);
	infos_reset();
	add_envar(PMIX_PREPEND_ENVAR, "PATH", "/x", 0);
	refused(read_job(), PMIX_ERR_BAD_PARAM, "separator");
	infos_reset();
	add_str(PMIX_SET_ENVAR, "FOO=bar");
	refused(read_job(), PMIX_ERR_BAD_PARAM, PMIX_SET_ENVAR);
	/* The apps' env entries are NAME=value. */
	infos_reset();
	app[1].env = (char *[]){"A=1", "NOEQUALS", NULL};
	refused(read_n(false, 2), PMIX_ERR_BAD_PARAM, "app 1: env entry 1");
	apps_reset();
}

static void test_apps(void **state)
{
	pmix_info_t h[2];

	(void)state;
	/* A node list per app: the same for all, else refused. */
	PMIX_INFO_LOAD(&h[0], PMIX_HOST, "n1,n2", PMIX_STRING);
	PMIX_INFO_LOAD(&h[1], PMIX_HOST, "n1,n2", PMIX_STRING);
	for (int i = 0; i < 3; i++) {
		app[i].info = &h[i % 2];
		app[i].ninfo = 1;
	}
	assert_int_equal(read_n(false, 3), PMIX_SUCCESS);
	assert_string_equal(r.m.nodelist, "n1,n2");
	assert_int_equal(pmixev_pmixd_spawn_nprocs(&r.m), 5);
	round_trip();
	PMIX_INFO_DESTRUCT(&h[1]);
	PMIX_INFO_LOAD(&h[1], PMIX_HOST, "n3", PMIX_STRING);
	refused(read_n(false, 2), PMIX_ERR_NOT_SUPPORTED, "app 1: " PMIX_HOST);
	PMIX_INFO_DESTRUCT(&h[1]);
	PMIX_INFO_LOAD(&h[1], PMIX_MAPBY, "slot", PMIX_STRING);
	PMIX_INFO_DESTRUCT(&h[0]);
	PMIX_INFO_LOAD(&h[0], PMIX_MAPBY, "node", PMIX_STRING);
	refused(read_n(false, 2), PMIX_ERR_NOT_SUPPORTED, PMIX_MAPBY);
	PMIX_INFO_DESTRUCT(&h[0]);
	PMIX_INFO_DESTRUCT(&h[1]);
	apps_reset();

	app[1].maxprocs = 0;
	refused(read_n(false, 2), PMIX_ERR_BAD_PARAM, "app 1: 0 processes");
	app[1].maxprocs = 65536;
	refused(read_n(false, 2), PMIX_ERR_BAD_PARAM, "65539 processes");
	app[1].maxprocs = 1;
	app[1].cmd = "";
	refused(read_n(false, 2), PMIX_ERR_BAD_PARAM, "app 1: no command");
	apps_reset();
	refused(read_n(false, 0), PMIX_ERR_BAD_PARAM, "0 apps");
	refused(read_n(false, PMIXEV_PMIXD_SPAWN_APPS + 1), PMIX_ERR_BAD_PARAM,
		"65 apps");
}

static void test_refused_keys(void **state)
{
	static const char *always[] = {
		PMIX_HOSTFILE,	   PMIX_ADD_HOSTFILE,
		PMIX_PREFIX,	   PMIX_PRELOAD_FILES,
		PMIX_MAPPER,	   PMIX_DEBUG_TARGET,
		PMIX_MAX_RESTARTS, PMIX_DEBUG_STOP_IN_INIT};
	static const char *bools[] = {
		PMIX_PRELOAD_BIN,      PMIX_FWD_STDIN,	 PMIX_INDEX_ARGV,
		PMIX_DEBUGGER_DAEMONS, PMIX_COSPAWN_APP, PMIX_JOB_RECOVERABLE,
#ifdef PMIX_SPAWN_CHILD_SEP
		PMIX_SPAWN_CHILD_SEP,
#endif
	};
	int neg = -1, zero = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
		infos_reset();
		add_str(always[i], "x");
		refused(read_job(), PMIX_ERR_NOT_SUPPORTED, always[i]);
	}
	for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		infos_reset();
		add(bools[i], &(bool){false}, PMIX_BOOL);
		assert_int_equal(read_job(), PMIX_SUCCESS);
		add_true(bools[i]);
		refused(read_job(), PMIX_ERR_NOT_SUPPORTED, bools[i]);
	}
	/* Output forwarding and unknown keys: refused when required. */
	infos_reset();
	PMIX_INFO_REQUIRED(add(PMIX_FWD_STDERR, &(bool){true}, PMIX_BOOL));
	refused(read_job(), PMIX_ERR_NOT_SUPPORTED, PMIX_FWD_STDERR);
	infos_reset();
	PMIX_INFO_REQUIRED(add("x.site.key", "v", PMIX_STRING));
	refused(read_job(), PMIX_ERR_NOT_SUPPORTED, "x.site.key");

	/* Malformed values. */
	infos_reset();
	add_str(PMIX_ALLOC_ID, "12x");
	refused(read_job(), PMIX_ERR_BAD_PARAM, PMIX_ALLOC_ID);
	infos_reset();
	add(PMIX_CPUS_PER_PROC, &zero, PMIX_INT);
	refused(read_job(), PMIX_ERR_BAD_PARAM, PMIX_CPUS_PER_PROC);
	infos_reset();
	add(PMIX_JOB_TIMEOUT, &neg, PMIX_INT);
	refused(read_job(), PMIX_ERR_BAD_PARAM, PMIX_JOB_TIMEOUT);
	infos_reset();
	add_str(PMIX_HOST, "n1;rm -rf");
	refused(read_job(), PMIX_ERR_BAD_PARAM, PMIX_HOST);
	infos_reset();
	add(PMIX_NOTIFY_COMPLETION, &zero, PMIX_INT);
	refused(read_job(), PMIX_ERR_BAD_PARAM, PMIX_NOTIFY_COMPLETION);
	infos_reset();
	add(PMIX_BINDTO, &zero, PMIX_INT);
	refused(read_job(), PMIX_ERR_BAD_PARAM, PMIX_BINDTO);
	infos_reset();
}

/* A request past SPAWN's 256 KiB: refused before it reaches the codec. */
static void test_too_big(void **state)
{
	static char arg[4098], *argv[PMIXEV_PMIXD_SPAWN_ARGV + 2];

	(void)state;
	memset(arg, 'a', 4000);
	for (int i = 0; i < 70; i++)
		argv[i] = arg;
	app[0].argv = argv;
	refused(read_n(false, 1), PMIX_ERR_BAD_PARAM, "bytes");
	memset(arg, 'a', 4097);
	refused(read_n(false, 1), PMIX_ERR_BAD_PARAM, "argv entry 0");
	for (int i = 0; i < PMIXEV_PMIXD_SPAWN_ARGV + 1; i++)
		argv[i] = "x";
	refused(read_n(false, 1), PMIX_ERR_BAD_PARAM, "more than 1024 argv");
	apps_reset();
}

static void test_support(void **state)
{
	char *s = spawn_read_support();

	(void)state;
	assert_non_null(s);
	assert_non_null(strstr(s, PMIX_HOST ","));
	assert_non_null(strstr(s, "," PMIX_WDIR ","));
	assert_non_null(strstr(s, "," PMIX_MAPBY ","));
	assert_null(strstr(s, PMIX_HOSTFILE));
	assert_null(strstr(s, PMIX_PREFIX));
	assert_non_null(strstr(s, PMIX_NON_PMI));
	assert_non_null(strstr(s, PMIX_SPAWN_TOOL));
	assert_non_null(strstr(s, PMIX_NOTIFY_COMPLETION));
	assert_null(strstr(s, PMIX_NOTIFY_JOB_EVENTS));
	assert_true(s[strlen(s) - 1] != ',');
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_directives),
		cmocka_unit_test(test_mapping),
		cmocka_unit_test(test_rankby_bindto),
		cmocka_unit_test(test_wdir),
		cmocka_unit_test(test_env_ops),
		cmocka_unit_test(test_apps),
		cmocka_unit_test(test_refused_keys),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_support),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
