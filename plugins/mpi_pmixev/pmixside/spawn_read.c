/*
 * pmixside/spawn_read.c - a PMIx_Spawn read (see spawn_read.h). PMIx
 * progress thread.
 */
#include "config.h"

#include "pmixside/spawn_read.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "pmixbase/values.h"
#include "pmixside/spawn_map.h"

#define STR_MAX	  PMIXEV_PMIXD_SPAWN_STR
#define JOB_LEVEL UINT32_MAX /* reading the job's directives, not an app's */

/* The settings a step has one of (the strings apart). */
enum setting { S_PPN, S_DIST, S_RANK, S_BIND, S_CPUS, S_MINUTES, S_ALLOC, S_N };

/* A spawn being read. */
struct rd {
	struct spawn_req *r;
	uint32_t app; /* whose directives: an app's index, or JOB_LEVEL */
	bool got[S_N];
	uint32_t val[S_N];
	uint64_t timeout_s; /* the shortest positive timeout, 0: none */
	uint32_t ops_alloc; /* r->m.ops allocated */
};

__attribute__((format(printf, 3, 4))) static pmix_status_t
refuse(struct rd *d, pmix_status_t status, const char *fmt, ...)
{
	char *w = d->r->why;
	size_t len = sizeof(d->r->why);
	int n = 0;
	va_list ap;

	if (d->app != JOB_LEVEL)
		n = snprintf(w, len, "app %u: ", d->app);
	va_start(ap, fmt);
	vsnprintf(w + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return status;
}

static pmix_status_t bad(struct rd *d, const pmix_info_t *in, const char *what)
{
	return refuse(d, PMIX_ERR_BAD_PARAM, "bad %.*s: %s", PMIX_MAX_KEYLEN,
		      in->key, what);
}

static pmix_status_t no_memory(struct rd *d)
{
	return refuse(d, PMIX_ERR_NOMEM, "out of memory");
}

/* `in`'s string (at most STR_MAX bytes) into *s. */
static pmix_status_t get_str(struct rd *d, const pmix_info_t *in,
			     const char **s)
{
	const pmix_value_t *v = &in->value;

	if (v->type != PMIX_STRING || !v->data.string ||
	    strlen(v->data.string) > STR_MAX)
		return bad(d, in, "not a string of at most 4096 bytes");
	*s = v->data.string;
	return PMIX_SUCCESS;
}

/* Setting `s` is `v`: the same each time it is given. */
static pmix_status_t set_once(struct rd *d, const pmix_info_t *in,
			      enum setting s, uint32_t v)
{
	if (d->got[s] && d->val[s] != v)
		return refuse(d, PMIX_ERR_NOT_SUPPORTED,
			      "%.*s differs from the one given before (a "
			      "Slurm step has one)",
			      PMIX_MAX_KEYLEN, in->key);
	d->got[s] = true;
	d->val[s] = v;
	return PMIX_SUCCESS;
}

/* PMIX_PPR (`mapby` 0) or PMIX_MAPBY (1). */
static pmix_status_t read_map(struct rd *d, const pmix_info_t *in,
			      uint32_t mapby)
{
	struct spawn_map mm = {.dist = -1};
	char why[PMIXEV_MSG_TEXT_MAX];
	const char *s = NULL;
	pmix_status_t st;

	if ((st = get_str(d, in, &s)))
		return st;
	if ((st = spawn_map_read(in->key, s, mapby, &mm, why, sizeof(why))))
		return refuse(d, st, "%s", why);
	if (mm.overlap)
		d->r->m.flags |= PMIXEV_PMIXD_SPAWN_OVERLAP;
	if (mm.ppn && (st = set_once(d, in, S_PPN, mm.ppn)))
		return st;
	return mm.dist < 0 ? PMIX_SUCCESS
			   : set_once(d, in, S_DIST, (uint32_t)mm.dist);
}

/* PMIX_RANKBY (`bind` 0) or PMIX_BINDTO (1). */
static pmix_status_t read_policy(struct rd *d, const pmix_info_t *in,
				 uint32_t bind)
{
	const char *s = NULL;
	pmix_status_t st;
	int v;

	if ((st = get_str(d, in, &s)))
		return st;
	if ((v = bind ? spawn_map_bindto(s) : spawn_map_rankby(s)) < 0)
		return refuse(d, PMIX_ERR_NOT_SUPPORTED,
			      "%.*s: %s is not one Slurm can give",
			      PMIX_MAX_KEYLEN, in->key, s);
	return set_once(d, in, bind ? S_BIND : S_RANK, (uint32_t)v);
}

static pmix_status_t read_cpus(struct rd *d, const pmix_info_t *in,
			       uint32_t arg)
{
	uint64_t n;

	(void)arg;
	if (values_uint(&in->value, &n) < 0 || !n || n > UINT16_MAX)
		return bad(d, in, "not an integer in 1..65535");
	return set_once(d, in, S_CPUS, (uint32_t)n);
}

static pmix_status_t read_host(struct rd *d, const pmix_info_t *in,
			       uint32_t arg)
{
	struct pmixev_pmixd_spawn *m = &d->r->m;
	const char *s = NULL;
	pmix_status_t st;

	(void)arg;
	if ((st = get_str(d, in, &s)))
		return st;
	if (!s[0] || !pmixev_pmixd_hostlist_ok(s))
		return bad(d, in, "not a list of host names");
	if (m->nodelist && strcmp(m->nodelist, s))
		return refuse(d, PMIX_ERR_NOT_SUPPORTED,
			      "%.*s differs from the hosts given before (a "
			      "Slurm step has one node list)",
			      PMIX_MAX_KEYLEN, in->key);
	if (!m->nodelist && !(m->nodelist = strdup(s)))
		return no_memory(d);
	return PMIX_SUCCESS;
}

/* The job's working directory, or app `d->app`'s (relative: under its
 * cwd). */
static pmix_status_t read_wdir(struct rd *d, const pmix_info_t *in,
			       uint32_t arg)
{
	struct pmixev_pmixd_spawn *m = &d->r->m;
	const char *s = NULL, *cwd = NULL;
	char **dst, *dir = NULL;
	pmix_status_t st;

	(void)arg;
	if ((st = get_str(d, in, &s)))
		return st;
	if (d->app == JOB_LEVEL) {
		if (s[0] != '/')
			return bad(d, in, "not an absolute path");
		if (m->wdir && strcmp(m->wdir, s))
			return refuse(d, PMIX_ERR_NOT_SUPPORTED,
				      "%.*s given twice, differently",
				      PMIX_MAX_KEYLEN, in->key);
		dst = &m->wdir;
		dir = strdup(s);
	} else {
		dst = &m->apps[d->app].cwd;
		cwd = *dst;
		if (s[0] != '/' && (!cwd || cwd[0] != '/'))
			return bad(d, in, "relative, and the app has no cwd");
		if (s[0] == '/')
			dir = strdup(s);
		else if (asprintf(&dir, "%s/%s", cwd, s) < 0)
			dir = NULL;
	}
	if (!dir)
		return no_memory(d);
	if (strlen(dir) > STR_MAX) {
		free(dir);
		return bad(d, in, "longer than 4096 bytes");
	}
	free(*dst);
	*dst = dir;
	return PMIX_SUCCESS;
}

/* Append op `op` on `name` (value, separator) to the ops. */
static pmix_status_t add_op(struct rd *d, const pmix_info_t *in,
			    enum pmixev_pmixd_envop_kind op, const char *name,
			    const char *value, char sep)
{
	struct pmixev_pmixd_spawn *m = &d->r->m;
	struct pmixev_pmixd_envop *o;
	bool with_sep =
		op == PMIXEV_PMIXD_ENV_PREPEND || op == PMIXEV_PMIXD_ENV_APPEND;

	if (!pmixev_pmixd_env_name_ok(name))
		return bad(d, in, "not a variable name [A-Za-z_][A-Za-z0-9_]*");
	if (!value || strlen(value) > STR_MAX)
		return bad(d, in, "no value, or one longer than 4096 bytes");
	if (with_sep && (sep < 0x21 || sep > 0x7e))
		return bad(d, in, "its separator is not a printable character");
	if (m->nops == PMIXEV_PMIXD_SPAWN_ENV)
		return refuse(d, PMIX_ERR_BAD_PARAM,
			      "more than %u environment directives",
			      PMIXEV_PMIXD_SPAWN_ENV);
	if (m->nops == d->ops_alloc) {
		uint32_t n = d->ops_alloc ? 2 * d->ops_alloc : 8;
		void *ops = realloc(m->ops, n * sizeof(*m->ops));

		if (!ops)
			return no_memory(d);
		m->ops = ops;
		d->ops_alloc = n;
	}
	o = &m->ops[m->nops];
	o->op = op;
	o->name = strdup(name);
	o->value = strdup(value);
	o->sep = with_sep ? sep : 0;
	m->nops++; /* release frees what is there */
	return o->name && o->value ? PMIX_SUCCESS : no_memory(d);
}

static pmix_status_t read_envar(struct rd *d, const pmix_info_t *in,
				uint32_t op)
{
	const pmix_value_t *v = &in->value;

	if (d->app != JOB_LEVEL && d->r->m.napps > 1)
		return refuse(d, PMIX_ERR_NOT_SUPPORTED,
			      "%.*s for one app of several: a Slurm step "
			      "has one environment (give it in the app's env)",
			      PMIX_MAX_KEYLEN, in->key);
	if (op == PMIXEV_PMIXD_ENV_UNSET && v->type == PMIX_STRING)
		return add_op(d, in, op, v->data.string, "", 0);
	if (v->type != PMIX_ENVAR)
		return bad(d, in, "not a pmix_envar_t");
	return add_op(d, in, op, v->data.envar.envar,
		      op == PMIXEV_PMIXD_ENV_UNSET ? "" : v->data.envar.value,
		      v->data.envar.separator);
}

static pmix_status_t read_job_timeout(struct rd *d, const pmix_info_t *in,
				      uint32_t arg)
{
	uint64_t s;

	(void)arg;
	if (values_uint(&in->value, &s) < 0 ||
	    s > (uint64_t)PMIXEV_PMIXD_SPAWN_MINUTES_MAX * 60)
		return bad(d, in, "not seconds in 0..a year");
	return set_once(d, in, S_MINUTES, (uint32_t)((s + 59) / 60));
}

static pmix_status_t read_timeout(struct rd *d, const pmix_info_t *in,
				  uint32_t arg)
{
	uint64_t s;

	(void)arg;
	if (values_uint(&in->value, &s) < 0)
		return bad(d, in, "not a number of seconds");
	if (s && (!d->timeout_s || s < d->timeout_s))
		d->timeout_s = s;
	return PMIX_SUCCESS;
}

static pmix_status_t read_flag(struct rd *d, const pmix_info_t *in,
			       uint32_t flag)
{
	if (!PMIX_CHECK_BOOL(&in->value))
		return bad(d, in, "not a boolean");
	if (PMIX_INFO_TRUE(in))
		d->r->m.flags |= flag;
	return PMIX_SUCCESS;
}

static pmix_status_t read_alloc(struct rd *d, const pmix_info_t *in,
				uint32_t arg)
{
	uint32_t job;

	(void)arg;
	if (values_job(&in->value, &job) < 0)
		return bad(d, in, "not a Slurm job id");
	return set_once(d, in, S_ALLOC, job);
}

/* PMIX_FWD_STDOUT/STDERR/STDDIAG. */
static pmix_status_t read_fwd(struct rd *d, const pmix_info_t *in, uint32_t arg)
{
	(void)arg;
	if (!PMIX_INFO_IS_REQUIRED(in))
		return PMIX_SUCCESS;
	return refuse(d, PMIX_ERR_NOT_SUPPORTED,
		      "%.*s required: pmixev forwards no output to the "
		      "requester (the children's goes to the parent's srun)",
		      PMIX_MAX_KEYLEN, in->key);
}

/* What Slurm cannot give, required or not; a boolean only when true. */
static pmix_status_t read_refused(struct rd *d, const pmix_info_t *in,
				  uint32_t arg)
{
	(void)arg;
	if (in->value.type == PMIX_BOOL && !in->value.data.flag)
		return PMIX_SUCCESS;
	return refuse(d, PMIX_ERR_NOT_SUPPORTED,
		      "%.*s is not supported under Slurm", PMIX_MAX_KEYLEN,
		      in->key);
}

typedef pmix_status_t (*read_fn)(struct rd *d, const pmix_info_t *in,
				 uint32_t arg);

/* The keys read (no `read`: accepted, no effect); `served`: listed in
 * PMIX_QUERY_SPAWN_SUPPORT. */
static const struct key {
	const char *key;
	read_fn read;
	uint32_t arg;
	bool served;
} keys[] = {
	{PMIX_HOST, read_host, 0, true},
	{PMIX_ADD_HOST, read_host, 0, true},
	{PMIX_PPR, read_map, 0, true},
	{PMIX_MAPBY, read_map, 1, true},
	{PMIX_RANKBY, read_policy, 0, true},
	{PMIX_BINDTO, read_policy, 1, true},
	{PMIX_CPUS_PER_PROC, read_cpus, 0, true},
	{PMIX_WDIR, read_wdir, 0, true},
	{PMIX_SET_ENVAR, read_envar, PMIXEV_PMIXD_ENV_SET, true},
	{PMIX_ADD_ENVAR, read_envar, PMIXEV_PMIXD_ENV_ADD, true},
	{PMIX_UNSET_ENVAR, read_envar, PMIXEV_PMIXD_ENV_UNSET, true},
	{PMIX_PREPEND_ENVAR, read_envar, PMIXEV_PMIXD_ENV_PREPEND, true},
	{PMIX_APPEND_ENVAR, read_envar, PMIXEV_PMIXD_ENV_APPEND, true},
	{PMIX_JOB_TIMEOUT, read_job_timeout, 0, true},
	{PMIX_SPAWN_TIMEOUT, read_timeout, 0, true},
	{PMIX_TIMEOUT, read_timeout, 0, true},
	{PMIX_ALLOC_ID, read_alloc, 0, true},
	/* The spawner gets PMIX_EVENT_JOB_END (root: wireup/spawn.c);
	 * JOB_EVENTS asks for the start events too: not served. */
	{PMIX_NOTIFY_COMPLETION, read_flag, PMIXEV_PMIXD_SPAWN_NOTIFY_DONE,
	 true},
	{PMIX_NOTIFY_JOB_EVENTS, read_flag, PMIXEV_PMIXD_SPAWN_NOTIFY_JOB,
	 false},
	/* The child step is up once launched (events/spawned.c). */
	{PMIX_NON_PMI, read_flag, PMIXEV_PMIXD_SPAWN_NON_PMI, true},
	/* Tools of this step's server on its nodes (spawn_pmix.c). */
	{PMIX_SPAWN_TOOL, read_flag, PMIXEV_PMIXD_SPAWN_TOOL, true},
	{PMIX_PERSONALITY, NULL, 0, false},
	{PMIX_DISPLAY_MAP, NULL, 0, false},
	{PMIX_ENVARS_HARVESTED, NULL, 0, false},
	{PMIX_PSET_NAME, NULL, 0, false},
	{PMIX_NO_OVERSUBSCRIBE, NULL, 0, false},
	{PMIX_FWD_STDOUT, read_fwd, 0, false},
	{PMIX_FWD_STDERR, read_fwd, 0, false},
	{PMIX_FWD_STDDIAG, read_fwd, 0, false},
	{PMIX_HOSTFILE, read_refused, 0, false},
	{PMIX_ADD_HOSTFILE, read_refused, 0, false},
	{PMIX_PREFIX, read_refused, 0, false},
	{PMIX_PRELOAD_BIN, read_refused, 0, false},
	{PMIX_PRELOAD_FILES, read_refused, 0, false},
	{PMIX_STDIN_TGT, read_refused, 0, false},
	{PMIX_FWD_STDIN, read_refused, 0, false},
	{PMIX_INDEX_ARGV, read_refused, 0, false},
	{PMIX_DEBUGGER_DAEMONS, read_refused, 0, false},
	{PMIX_COSPAWN_APP, read_refused, 0, false},
	{PMIX_MAPPER, read_refused, 0, false},
	{PMIX_JOB_RECOVERABLE, read_refused, 0, false},
	{PMIX_MAX_RESTARTS, read_refused, 0, false},
#ifdef PMIX_SPAWN_CHILD_SEP /* OpenPMIx 5.x */
	{PMIX_SPAWN_CHILD_SEP, read_refused, 0, false},
#endif
};

/* The PMIX_DEBUG_* keys ("pmix.dbg.*"): refused. */
#define DEBUG_PREFIX "pmix.dbg."

static pmix_status_t read_info(struct rd *d, const pmix_info_t *in)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (PMIX_CHECK_KEY(in, keys[i].key))
			return keys[i].read ? keys[i].read(d, in, keys[i].arg)
					    : PMIX_SUCCESS;
	if (!strncmp(in->key, DEBUG_PREFIX, strlen(DEBUG_PREFIX)))
		return read_refused(d, in, 0);
	if (PMIX_INFO_IS_REQUIRED(in))
		return refuse(d, PMIX_ERR_NOT_SUPPORTED,
			      "%.*s is required and not supported under Slurm",
			      PMIX_MAX_KEYLEN, in->key);
	return PMIX_SUCCESS;
}

static pmix_status_t read_infos(struct rd *d, const pmix_info_t *info, size_t n)
{
	pmix_status_t st = PMIX_SUCCESS;

	for (size_t i = 0; i < n && st == PMIX_SUCCESS; i++)
		st = read_info(d, &info[i]);
	return st;
}

/* A NULL-terminated array of at most `max` strings into *dst, *n. */
static pmix_status_t copy_strs(struct rd *d, char *const *src, uint32_t max,
			       const char *what, char ***dst, uint32_t *n)
{
	size_t count = 0;

	while (src && src[count])
		count++;
	if (count > max)
		return refuse(d, PMIX_ERR_BAD_PARAM, "more than %u %s entries",
			      max, what);
	if (!count)
		return PMIX_SUCCESS;
	if (!(*dst = calloc(count, sizeof(**dst))))
		return no_memory(d);
	*n = (uint32_t)count;
	for (size_t i = 0; i < count; i++) {
		if (strlen(src[i]) > STR_MAX)
			return refuse(d, PMIX_ERR_BAD_PARAM,
				      "%s entry %zu is longer than 4096 bytes",
				      what, i);
		if (!((*dst)[i] = strdup(src[i])))
			return no_memory(d);
	}
	return PMIX_SUCCESS;
}

static pmix_status_t read_app(struct rd *d, const pmix_app_t *in)
{
	struct pmixev_pmixd_spawn_app *a = &d->r->m.apps[d->app];
	pmix_status_t st;

	if (!in->cmd || !in->cmd[0] || strlen(in->cmd) > STR_MAX)
		return refuse(d, PMIX_ERR_BAD_PARAM,
			      "no command, or one longer than 4096 bytes");
	if (in->maxprocs < 1 || in->maxprocs > PMIXEV_PMIXD_SPAWN_PROCS)
		return refuse(d, PMIX_ERR_BAD_PARAM,
			      "%d processes asked, not 1..%u", in->maxprocs,
			      PMIXEV_PMIXD_SPAWN_PROCS);
	a->maxprocs = (uint32_t)in->maxprocs;
	if (!(a->cmd = strdup(in->cmd)) ||
	    (in->cwd && in->cwd[0] && !(a->cwd = strdup(in->cwd))))
		return no_memory(d);
	if ((st = copy_strs(d, in->argv, PMIXEV_PMIXD_SPAWN_ARGV, "argv",
			    &a->argv, &a->argc)) ||
	    (st = copy_strs(d, in->env, PMIXEV_PMIXD_SPAWN_ENV, "env", &a->env,
			    &a->envc)))
		return st;
	for (uint32_t i = 0; i < a->envc; i++)
		if (!pmixev_pmixd_env_entry_ok(a->env[i]))
			return refuse(d, PMIX_ERR_BAD_PARAM,
				      "env entry %u is not NAME=value", i);
	return read_infos(d, in->info, in->ninfo);
}

/* Every app's working directory: the job's, else its own (absolute). */
static pmix_status_t settle_cwds(struct rd *d)
{
	struct pmixev_pmixd_spawn *m = &d->r->m;

	for (d->app = 0; d->app < m->napps; d->app++) {
		struct pmixev_pmixd_spawn_app *a = &m->apps[d->app];

		if (m->wdir[0] && (!a->cwd || a->cwd[0] != '/')) {
			free(a->cwd);
			if (!(a->cwd = strdup(m->wdir)))
				return no_memory(d);
		}
		if (!a->cwd)
			return refuse(d, PMIX_ERR_BAD_PARAM,
				      "no working directory (no cwd, no "
				      "PMIX_WDIR)");
		if (a->cwd[0] != '/' || strlen(a->cwd) > STR_MAX)
			return refuse(d, PMIX_ERR_BAD_PARAM,
				      "cwd is not an absolute path of at most "
				      "4096 bytes");
	}
	d->app = JOB_LEVEL;
	return PMIX_SUCCESS;
}

/* The settings into r->m, and what only the whole shows. */
static pmix_status_t settle(struct rd *d)
{
	struct pmixev_pmixd_spawn *m = &d->r->m;
	uint32_t map;
	size_t z;
	pmix_status_t st;

	m->ntasks_per_node = (uint16_t)d->val[S_PPN];
	m->cpus_per_task = (uint16_t)d->val[S_CPUS];
	m->dist = (enum pmixev_pmixd_spawn_dist)d->val[S_DIST];
	m->bind = (enum pmixev_pmixd_spawn_bind)d->val[S_BIND];
	m->job_minutes = d->val[S_MINUTES];
	m->alloc_job = d->val[S_ALLOC];
	m->timeout_ms = d->timeout_s > PMIXEV_PMIXD_SPAWN_MS_MAX / 1000
				? PMIXEV_PMIXD_SPAWN_MS_MAX
				: (uint32_t)d->timeout_s * 1000;
	/* Slurm ranks as it maps, by default in blocks. */
	map = d->got[S_DIST] ? d->val[S_DIST] : PMIXEV_PMIXD_DIST_BLOCK;
	if (d->got[S_RANK] && d->val[S_RANK] != map)
		return refuse(d, PMIX_ERR_NOT_SUPPORTED,
			      "%s differs from the mapping: Slurm ranks "
			      "processes in the order it places them",
			      PMIX_RANKBY);
	if ((!m->wdir && !(m->wdir = strdup(""))) ||
	    (!m->nodelist && !(m->nodelist = strdup(""))))
		return no_memory(d);
	if ((st = settle_cwds(d)))
		return st;
	if (pmixev_pmixd_spawn_nprocs(m) > PMIXEV_PMIXD_SPAWN_PROCS)
		return refuse(d, PMIX_ERR_BAD_PARAM,
			      "%u processes in all, more than %u",
			      pmixev_pmixd_spawn_nprocs(m),
			      PMIXEV_PMIXD_SPAWN_PROCS);
	z = pmixev_pmixd_spawn_size(m);
	if (!z)
		return refuse(d, PMIX_ERR_BAD_PARAM,
			      "the request does not fit SPAWN's bounds");
	if (z > PMIXEV_PMIXD_SPAWN_BYTES)
		return refuse(d, PMIX_ERR_BAD_PARAM,
			      "the request takes %zu bytes, more than %u", z,
			      PMIXEV_PMIXD_SPAWN_BYTES);
	return PMIX_SUCCESS;
}

pmix_status_t spawn_read(struct spawn_req *r, const pmix_info_t job_info[],
			 size_t ninfo, const pmix_app_t apps[], size_t napps)
{
	struct rd d = {.r = r, .app = JOB_LEVEL};
	struct pmixev_pmixd_spawn *m = &r->m;
	pmix_status_t st;

	if (!napps || napps > PMIXEV_PMIXD_SPAWN_APPS)
		return refuse(&d, PMIX_ERR_BAD_PARAM, "%zu apps, not 1..%u",
			      napps, PMIXEV_PMIXD_SPAWN_APPS);
	if (!(m->apps = calloc(napps, sizeof(*m->apps))))
		return no_memory(&d);
	m->napps = (uint32_t)napps;
	if ((st = read_infos(&d, job_info, ninfo)))
		return st;
	for (d.app = 0; d.app < m->napps; d.app++)
		if ((st = read_app(&d, &apps[d.app])))
			return st;
	d.app = JOB_LEVEL;
	return settle(&d);
}

char *spawn_read_support(void)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].served)
			len += strlen(keys[i].key) + 1;
	if (!(s = calloc(1, len)))
		return NULL;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!keys[i].served)
			continue;
		if (s[0])
			strcat(s, ",");
		strcat(s, keys[i].key);
	}
	return s;
}
