/*
 * pmixev_pmixd_spawn.c - SPAWN of the pmixd channel, and its apps alone
 * (SPAWN_DONE and the NSPACE messages: pmixev_pmixd_nspace.c; ALLOC and
 * ALLOC_DONE: pmixev_pmixd_alloc.c; all declared in pmixev_pmixd_spawn.h).
 *
 * Wire layouts (see pmixev_pmixd_msg.c):
 *
 *   spawn         u64 id, u32 rank, u32 flags, u32 timeout_ms,
 *                 u32 alloc_job, u32 job_minutes, u16 ntasks_per_node,
 *                 u16 cpus_per_task, u8 dist (0..2), u8 bind (0..4),
 *                 str wdir, str nodelist,
 *                 u32 nops, nops * { u8 op (1..5), str name, str value,
 *                                    u8 sep },
 *                 apps
 *   apps          u32 napps (1..64), napps * { u32 maxprocs, str cmd,
 *                 u32 argc, argc * str, u32 envc, envc * str, str cwd }
 *
 * A SPAWN body is checked against its byte cap before anything is read,
 * and every count against the bytes left before its array is allocated.
 */
#include "config.h"

#include "pmixev_pmixd_int.h"
#include "pmixev_pmixd_spawn.h"

#include <stdlib.h>
#include <string.h>

#define SPAWN_FIXED 34 /* spawn's scalars, bytes */
#define OP_MIN	    10 /* an op with empty strings */
#define APP_MIN	    20 /* an app with no strings */

/* A name: [A-Za-z_][A-Za-z0-9_]*, `n` bytes (1..). */
static bool name_ok(const char *s, size_t n)
{
	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= 'a' && s[i] <= 'z') &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '_')
			return false;
	return true;
}

/* A NUL-terminated string of lo..hi bytes (NULL: not one). */
static bool len_ok(const char *s, size_t lo, size_t hi)
{
	size_t n;

	if (!s)
		return false;
	n = strlen(s);
	return n >= lo && n <= hi;
}

static bool abs_path_ok(const char *s)
{
	return len_ok(s, 1, PMIXEV_PMIXD_SPAWN_STR) && s[0] == '/';
}

/* "NAME=value" within SPAWN's string bound. */
static bool env_entry_ok(const char *s)
{
	const char *eq;

	if (!len_ok(s, 2, PMIXEV_PMIXD_SPAWN_STR))
		return false;
	eq = strchr(s, '=');
	return eq && name_ok(s, (size_t)(eq - s));
}

bool pmixev_pmixd_env_name_ok(const char *name)
{
	return len_ok(name, 1, PMIXEV_PMIXD_SPAWN_STR) &&
	       name_ok(name, strlen(name));
}

bool pmixev_pmixd_env_entry_ok(const char *entry)
{
	return env_entry_ok(entry);
}

static bool envop_ok(const struct pmixev_pmixd_envop *o)
{
	bool sep = o->op == PMIXEV_PMIXD_ENV_PREPEND ||
		   o->op == PMIXEV_PMIXD_ENV_APPEND;

	if (o->op < PMIXEV_PMIXD_ENV_SET || o->op > PMIXEV_PMIXD_ENV_APPEND ||
	    !len_ok(o->name, 1, PMIXEV_PMIXD_SPAWN_STR) ||
	    !name_ok(o->name, strlen(o->name)) ||
	    !len_ok(o->value, 0, PMIXEV_PMIXD_SPAWN_STR))
		return false;
	if (o->op == PMIXEV_PMIXD_ENV_UNSET && o->value[0])
		return false;
	return sep ? o->sep >= 0x21 && o->sep <= 0x7e : o->sep == 0;
}

static bool app_ok(const struct pmixev_pmixd_spawn_app *a)
{
	if (!a->maxprocs || a->maxprocs > PMIXEV_PMIXD_SPAWN_PROCS ||
	    !len_ok(a->cmd, 1, PMIXEV_PMIXD_SPAWN_STR) ||
	    a->argc > PMIXEV_PMIXD_SPAWN_ARGV || (a->argc && !a->argv) ||
	    a->envc > PMIXEV_PMIXD_SPAWN_ENV || (a->envc && !a->env) ||
	    !abs_path_ok(a->cwd))
		return false;
	for (uint32_t i = 0; i < a->argc; i++)
		if (!len_ok(a->argv[i], 0, PMIXEV_PMIXD_SPAWN_STR))
			return false;
	for (uint32_t i = 0; i < a->envc; i++)
		if (!env_entry_ok(a->env[i]))
			return false;
	return true;
}

static bool apps_ok(const struct pmixev_pmixd_spawn_app *apps, uint32_t n)
{
	uint64_t procs = 0;

	if (!n || n > PMIXEV_PMIXD_SPAWN_APPS || !apps)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		if (!app_ok(&apps[i]))
			return false;
		procs += apps[i].maxprocs;
	}
	return procs <= PMIXEV_PMIXD_SPAWN_PROCS;
}

/* SPAWN's scalars, checked before anything is allocated. */
static bool scalars_ok(const struct pmixev_pmixd_spawn *m, unsigned dist,
		       unsigned bind)
{
	return !(m->flags & ~PMIXEV_PMIXD_SPAWN_FLAGS) &&
	       m->timeout_ms <= PMIXEV_PMIXD_SPAWN_MS_MAX &&
	       m->job_minutes <= PMIXEV_PMIXD_SPAWN_MINUTES_MAX &&
	       dist <= PMIXEV_PMIXD_DIST_CYCLIC &&
	       bind <= PMIXEV_PMIXD_BIND_SOCKETS;
}

static bool spawn_ok(const struct pmixev_pmixd_spawn *m)
{
	if (!scalars_ok(m, m->dist, m->bind) ||
	    !len_ok(m->wdir, 0, PMIXEV_PMIXD_SPAWN_STR) ||
	    (m->wdir[0] && m->wdir[0] != '/') ||
	    !len_ok(m->nodelist, 0, PMIXEV_PMIXD_SPAWN_STR) ||
	    !pmixev_pmixd_hostlist_ok(m->nodelist) ||
	    m->nops > PMIXEV_PMIXD_SPAWN_ENV || (m->nops && !m->ops))
		return false;
	for (uint32_t i = 0; i < m->nops; i++)
		if (!envop_ok(&m->ops[i]))
			return false;
	return apps_ok(m->apps, m->napps);
}

static size_t str_size(const char *s)
{
	return 4 + strlen(s);
}

static size_t apps_size(const struct pmixev_pmixd_spawn_app *apps, uint32_t n)
{
	size_t z = 4;

	for (uint32_t i = 0; i < n; i++) {
		const struct pmixev_pmixd_spawn_app *a = &apps[i];

		z += 12 + str_size(a->cmd) + str_size(a->cwd);
		for (uint32_t v = 0; v < a->argc; v++)
			z += str_size(a->argv[v]);
		for (uint32_t v = 0; v < a->envc; v++)
			z += str_size(a->env[v]);
	}
	return z;
}

size_t pmixev_pmixd_spawn_size(const struct pmixev_pmixd_spawn *m)
{
	size_t z;

	if (!spawn_ok(m))
		return 0;
	z = SPAWN_FIXED + str_size(m->wdir) + str_size(m->nodelist) + 4;
	for (uint32_t i = 0; i < m->nops; i++)
		z += 2 + str_size(m->ops[i].name) + str_size(m->ops[i].value);
	return z + apps_size(m->apps, m->napps);
}

uint32_t pmixev_pmixd_spawn_nprocs(const struct pmixev_pmixd_spawn *m)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < m->napps; i++)
		n += m->apps[i].maxprocs;
	return n;
}

static void put_apps(struct pmixev_buf *b,
		     const struct pmixev_pmixd_spawn_app *apps, uint32_t n)
{
	pmixev_buf_put_u32(b, n);
	for (uint32_t i = 0; i < n; i++) {
		const struct pmixev_pmixd_spawn_app *a = &apps[i];

		pmixev_buf_put_u32(b, a->maxprocs);
		pmixev_buf_put_str(b, a->cmd);
		pmixev_buf_put_u32(b, a->argc);
		for (uint32_t v = 0; v < a->argc; v++)
			pmixev_buf_put_str(b, a->argv[v]);
		pmixev_buf_put_u32(b, a->envc);
		for (uint32_t v = 0; v < a->envc; v++)
			pmixev_buf_put_str(b, a->env[v]);
		pmixev_buf_put_str(b, a->cwd);
	}
}

int pmixev_pmixd_spawn_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_spawn *m)
{
	size_t z = pmixev_pmixd_spawn_size(m);

	if (!z || z > PMIXEV_PMIXD_SPAWN_BYTES)
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_u32(b, m->flags);
	pmixev_buf_put_u32(b, m->timeout_ms);
	pmixev_buf_put_u32(b, m->alloc_job);
	pmixev_buf_put_u32(b, m->job_minutes);
	pmixev_buf_put_u16(b, m->ntasks_per_node);
	pmixev_buf_put_u16(b, m->cpus_per_task);
	pmixev_buf_put_u8(b, (uint8_t)m->dist);
	pmixev_buf_put_u8(b, (uint8_t)m->bind);
	pmixev_buf_put_str(b, m->wdir);
	pmixev_buf_put_str(b, m->nodelist);
	pmixev_buf_put_u32(b, m->nops);
	for (uint32_t i = 0; i < m->nops; i++) {
		pmixev_buf_put_u8(b, (uint8_t)m->ops[i].op);
		pmixev_buf_put_str(b, m->ops[i].name);
		pmixev_buf_put_str(b, m->ops[i].value);
		pmixev_buf_put_u8(b, (uint8_t)m->ops[i].sep);
	}
	put_apps(b, m->apps, m->napps);
	return pmixd_pack_done(b);
}

/* `n` strings (n checked against the bytes left), malloc'd into *out. */
static int get_strs(struct pmixev_buf *b, uint32_t n, char ***out)
{
	*out = NULL;
	if (n > pmixev_buf_remaining(b) / 4) {
		b->err = true;
		return -1;
	}
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out) {
		b->err = true;
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		if (pmixd_get_text(b, PMIXEV_PMIXD_SPAWN_STR, &(*out)[i]) < 0)
			return -1;
	return 0;
}

static void free_strs(char **v, uint32_t n)
{
	for (uint32_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* One app; on failure what it holds is left for the caller to free. */
static int get_app(struct pmixev_buf *b, struct pmixev_pmixd_spawn_app *a)
{
	uint32_t n = 0;

	pmixev_buf_get_u32(b, &a->maxprocs);
	if (!pmixev_buf_ok(b) || !a->maxprocs ||
	    a->maxprocs > PMIXEV_PMIXD_SPAWN_PROCS ||
	    pmixd_get_text(b, PMIXEV_PMIXD_SPAWN_STR, &a->cmd) < 0 ||
	    pmixev_buf_get_u32(b, &n) < 0 || n > PMIXEV_PMIXD_SPAWN_ARGV)
		return -1;
	a->argc = n;
	if (get_strs(b, n, &a->argv) < 0 || pmixev_buf_get_u32(b, &n) < 0 ||
	    n > PMIXEV_PMIXD_SPAWN_ENV)
		return -1;
	a->envc = n;
	if (get_strs(b, n, &a->env) < 0 ||
	    pmixd_get_text(b, PMIXEV_PMIXD_SPAWN_STR, &a->cwd) < 0)
		return -1;
	return app_ok(a) ? 0 : -1;
}

/* The apps into *apps (NULL on failure, everything freed). */
static int get_apps(struct pmixev_buf *b, struct pmixev_pmixd_spawn_app **apps,
		    uint32_t *napps)
{
	struct pmixev_pmixd_spawn_app *v = NULL;
	uint32_t n = 0;

	*apps = NULL;
	*napps = 0;
	if (pmixev_buf_get_u32(b, &n) < 0 || !n ||
	    n > PMIXEV_PMIXD_SPAWN_APPS ||
	    n > pmixev_buf_remaining(b) / APP_MIN)
		return -1;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		if (get_app(b, &v[i]) < 0) {
			pmixev_pmixd_spawn_apps_free(v, n);
			return -1;
		}
	if (!apps_ok(v, n)) {
		pmixev_pmixd_spawn_apps_free(v, n);
		return -1;
	}
	*apps = v;
	*napps = n;
	return 0;
}

void pmixev_pmixd_spawn_apps_free(struct pmixev_pmixd_spawn_app *apps,
				  uint32_t napps)
{
	for (uint32_t i = 0; apps && i < napps; i++) {
		free(apps[i].cmd);
		free_strs(apps[i].argv, apps[i].argc);
		free_strs(apps[i].env, apps[i].envc);
		free(apps[i].cwd);
	}
	free(apps);
}

static int get_ops(struct pmixev_buf *b, struct pmixev_pmixd_spawn *t)
{
	uint32_t n = 0;

	if (pmixev_buf_get_u32(b, &n) < 0 || n > PMIXEV_PMIXD_SPAWN_ENV ||
	    n > pmixev_buf_remaining(b) / OP_MIN)
		return -1;
	if (!n)
		return 0;
	t->ops = calloc(n, sizeof(*t->ops));
	if (!t->ops)
		return -1;
	t->nops = n;
	for (uint32_t i = 0; i < n; i++) {
		struct pmixev_pmixd_envop *o = &t->ops[i];
		uint8_t op = 0, sep = 0;

		pmixev_buf_get_u8(b, &op);
		pmixd_get_text(b, PMIXEV_PMIXD_SPAWN_STR, &o->name);
		pmixd_get_text(b, PMIXEV_PMIXD_SPAWN_STR, &o->value);
		pmixev_buf_get_u8(b, &sep);
		o->op = (enum pmixev_pmixd_envop_kind)op;
		o->sep = (char)sep;
		if (!pmixev_buf_ok(b) || !envop_ok(o))
			return -1;
	}
	return 0;
}

int pmixev_pmixd_spawn_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      size_t max_bytes, struct pmixev_pmixd_spawn *m)
{
	struct pmixev_pmixd_spawn t = {0};
	uint8_t dist = 0, bind = 0;

	if (max_bytes > PMIXEV_PMIXD_SPAWN_BYTES)
		max_bytes = PMIXEV_PMIXD_SPAWN_BYTES;
	if (pmixev_buf_remaining(b) > max_bytes)
		return -1;
	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_u32(b, &t.flags);
	pmixev_buf_get_u32(b, &t.timeout_ms);
	pmixev_buf_get_u32(b, &t.alloc_job);
	pmixev_buf_get_u32(b, &t.job_minutes);
	pmixev_buf_get_u16(b, &t.ntasks_per_node);
	pmixev_buf_get_u16(b, &t.cpus_per_task);
	pmixev_buf_get_u8(b, &dist);
	pmixev_buf_get_u8(b, &bind);
	if (!pmixev_buf_ok(b) || !scalars_ok(&t, dist, bind) ||
	    (t.rank != PMIXEV_PMIXD_NO_RANK && !pmixd_rank_local(lim, t.rank)))
		return -1;
	t.dist = (enum pmixev_pmixd_spawn_dist)dist;
	t.bind = (enum pmixev_pmixd_spawn_bind)bind;
	if (pmixd_get_text(b, PMIXEV_PMIXD_SPAWN_STR, &t.wdir) < 0 ||
	    pmixd_get_text(b, PMIXEV_PMIXD_SPAWN_STR, &t.nodelist) < 0 ||
	    get_ops(b, &t) < 0 || get_apps(b, &t.apps, &t.napps) < 0 ||
	    pmixd_unpack_done(b) < 0 || !spawn_ok(&t))
		goto fail;
	*m = t;
	return 0;
fail:
	pmixev_pmixd_spawn_release(&t);
	return -1;
}

void pmixev_pmixd_spawn_release(struct pmixev_pmixd_spawn *m)
{
	if (!m)
		return;
	free(m->wdir);
	free(m->nodelist);
	for (uint32_t i = 0; m->ops && i < m->nops; i++) {
		free(m->ops[i].name);
		free(m->ops[i].value);
	}
	free(m->ops);
	pmixev_pmixd_spawn_apps_free(m->apps, m->napps);
	memset(m, 0, sizeof(*m));
}

int pmixev_pmixd_spawn_apps_pack(struct pmixev_buf *b,
				 const struct pmixev_pmixd_spawn_app *apps,
				 uint32_t napps)
{
	if (!apps_ok(apps, napps) ||
	    apps_size(apps, napps) > PMIXEV_PMIXD_SPAWN_BYTES)
		return pmixd_invalid();
	put_apps(b, apps, napps);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_spawn_apps_unpack(struct pmixev_buf *b,
				   struct pmixev_pmixd_spawn_app **apps,
				   uint32_t *napps)
{
	*apps = NULL;
	*napps = 0;
	if (pmixev_buf_remaining(b) > PMIXEV_PMIXD_SPAWN_BYTES ||
	    get_apps(b, apps, napps) < 0)
		return -1;
	if (pmixd_unpack_done(b) < 0) {
		pmixev_pmixd_spawn_apps_free(*apps, *napps);
		*apps = NULL;
		*napps = 0;
		return -1;
	}
	return 0;
}
