/*
 * pmixev_pmixd_start.c - START and READY of the pmixd channel.
 *
 * Wire layouts (see pmixev_pmixd_msg.c):
 *
 *   start  u32 job_id, u32 step_id, u32 nnodes (1..65536),
 *          u32 ntasks (1..2^24), str node, str id, u32 nodeid (< nnodes),
 *          u32 napps (1..ntasks), u32 uid, u32 gid, str nspace,
 *          str srv_nspace, str server_dir, str task_dir, u32 event_cache,
 *          u32 timeout_sec (<= 86400), u32 event_kib, u32 debug (0..3),
 *          u32 event_cache_mib, u32 publish_mib, u32 log_rate,
 *          u32 gds (0..2), u32 spawn (0..1),
 *          u32 bind_type, str bind_list, str step_cores ([0-9,-]*),
 *          str parent (a step's nspace or ""), u32 parent_rank,
 *          nnodes * str node name,
 *          ntasks * u32 node (< nnodes), ntasks * u32 app (< napps)
 *   ready  u8 status, u16 gate_port, u8 lib_major, u32 nenv,
 *          nenv * { u32 rank, u32 count (<= 256), count * str var }
 *
 * Counts are checked against the bytes left before anything is
 * allocated, so a short body cannot make the reader allocate much.
 */
#include "config.h"

#include "pmixev_pmixd_int.h"
#include "pmixev_pmixd_spawn.h"
#include "pmixev_pmixd_start.h"

#include <stdlib.h>
#include <string.h>

/* A core list: "", or digits, ',' and '-' (in bounds: pmixd_text_ok). */
static bool cores_ok(const char *cores)
{
	return strspn(cores, "0123456789,-") == strlen(cores);
}

/* No parent, or a step's namespace and one of its ranks. */
static bool parent_ok(const struct pmixev_pmixd_start *m)
{
	if (!m->parent[0])
		return m->parent_rank == 0;
	return pmixd_text_ok(m->parent, sizeof(m->parent)) &&
	       pmixev_pmixd_step_nspace(m->parent, NULL, NULL) &&
	       m->parent_rank < PMIXEV_PMIXD_START_RANK_MAX;
}

static bool start_ok(const struct pmixev_pmixd_start *m)
{
	const struct pmixev_step *s = &m->step;

	return s->nnodes && s->nnodes <= PMIXEV_PMIXD_NODES_MAX && s->ntasks &&
	       s->ntasks <= PMIXEV_PMIXD_TASKS_MAX && m->nodeid < s->nnodes &&
	       m->napps && m->napps <= s->ntasks &&
	       m->timeout_sec <= PMIXEV_PMIXD_TIMEOUT_MAX &&
	       m->debug <= PMIXEV_PMIXD_DEBUG_MAX &&
	       m->gds <= PMIXEV_PMIXD_GDS_MAX && m->spawn <= 1 &&
	       pmixd_text_ok(s->node, sizeof(s->node)) &&
	       pmixd_text_ok(s->id, sizeof(s->id)) &&
	       pmixd_text_ok(m->nspace, sizeof(m->nspace)) &&
	       pmixd_text_ok(m->srv_nspace, sizeof(m->srv_nspace)) &&
	       pmixd_text_ok(m->server_dir, sizeof(m->server_dir)) &&
	       pmixd_text_ok(m->task_dir, sizeof(m->task_dir)) &&
	       pmixd_text_ok(m->bind_list, sizeof(m->bind_list)) &&
	       pmixd_text_ok(m->step_cores, sizeof(m->step_cores)) &&
	       cores_ok(m->step_cores) && parent_ok(m);
}

/* The arrays' contents a packer must check (unpack reads them so). */
static bool start_arrays_ok(const struct pmixev_pmixd_start *m)
{
	if (!m->nodes || !m->node_of || !m->app_of)
		return false;
	for (uint32_t i = 0; i < m->step.nnodes; i++)
		if (!m->nodes[i] ||
		    strlen(m->nodes[i]) >= PMIXEV_PMIXD_NAME_MAX)
			return false;
	for (uint32_t r = 0; r < m->step.ntasks; r++)
		if (m->node_of[r] >= m->step.nnodes || m->app_of[r] >= m->napps)
			return false;
	return true;
}

int pmixev_pmixd_start_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_start *m)
{
	if (!start_ok(m) || !start_arrays_ok(m))
		return pmixd_invalid();
	pmixev_buf_put_u32(b, m->step.job_id);
	pmixev_buf_put_u32(b, m->step.step_id);
	pmixev_buf_put_u32(b, m->step.nnodes);
	pmixev_buf_put_u32(b, m->step.ntasks);
	pmixev_buf_put_str(b, m->step.node);
	pmixev_buf_put_str(b, m->step.id);
	pmixev_buf_put_u32(b, m->nodeid);
	pmixev_buf_put_u32(b, m->napps);
	pmixev_buf_put_u32(b, m->uid);
	pmixev_buf_put_u32(b, m->gid);
	pmixev_buf_put_str(b, m->nspace);
	pmixev_buf_put_str(b, m->srv_nspace);
	pmixev_buf_put_str(b, m->server_dir);
	pmixev_buf_put_str(b, m->task_dir);
	pmixev_buf_put_u32(b, m->event_cache);
	pmixev_buf_put_u32(b, m->timeout_sec);
	pmixev_buf_put_u32(b, m->event_kib);
	pmixev_buf_put_u32(b, m->debug);
	pmixev_buf_put_u32(b, m->event_cache_mib);
	pmixev_buf_put_u32(b, m->publish_mib);
	pmixev_buf_put_u32(b, m->log_rate);
	pmixev_buf_put_u32(b, m->gds);
	pmixev_buf_put_u32(b, m->spawn);
	pmixev_buf_put_u32(b, m->bind_type);
	pmixev_buf_put_str(b, m->bind_list);
	pmixev_buf_put_str(b, m->step_cores);
	pmixev_buf_put_str(b, m->parent);
	pmixev_buf_put_u32(b, m->parent_rank);
	for (uint32_t i = 0; i < m->step.nnodes; i++)
		pmixev_buf_put_str(b, m->nodes[i]);
	for (uint32_t r = 0; r < m->step.ntasks; r++)
		pmixev_buf_put_u32(b, m->node_of[r]);
	for (uint32_t r = 0; r < m->step.ntasks; r++)
		pmixev_buf_put_u32(b, m->app_of[r]);
	return pmixd_pack_done(b);
}

static void start_get_fixed(struct pmixev_buf *b, struct pmixev_pmixd_start *t)
{
	pmixev_buf_get_u32(b, &t->step.job_id);
	pmixev_buf_get_u32(b, &t->step.step_id);
	pmixev_buf_get_u32(b, &t->step.nnodes);
	pmixev_buf_get_u32(b, &t->step.ntasks);
	pmixev_buf_get_str(b, t->step.node, sizeof(t->step.node));
	pmixev_buf_get_str(b, t->step.id, sizeof(t->step.id));
	pmixev_buf_get_u32(b, &t->nodeid);
	pmixev_buf_get_u32(b, &t->napps);
	pmixev_buf_get_u32(b, &t->uid);
	pmixev_buf_get_u32(b, &t->gid);
	pmixev_buf_get_str(b, t->nspace, sizeof(t->nspace));
	pmixev_buf_get_str(b, t->srv_nspace, sizeof(t->srv_nspace));
	pmixev_buf_get_str(b, t->server_dir, sizeof(t->server_dir));
	pmixev_buf_get_str(b, t->task_dir, sizeof(t->task_dir));
	pmixev_buf_get_u32(b, &t->event_cache);
	pmixev_buf_get_u32(b, &t->timeout_sec);
	pmixev_buf_get_u32(b, &t->event_kib);
	pmixev_buf_get_u32(b, &t->debug);
	pmixev_buf_get_u32(b, &t->event_cache_mib);
	pmixev_buf_get_u32(b, &t->publish_mib);
	pmixev_buf_get_u32(b, &t->log_rate);
	pmixev_buf_get_u32(b, &t->gds);
	pmixev_buf_get_u32(b, &t->spawn);
	pmixev_buf_get_u32(b, &t->bind_type);
	pmixev_buf_get_str(b, t->bind_list, sizeof(t->bind_list));
	pmixev_buf_get_str(b, t->step_cores, sizeof(t->step_cores));
	pmixev_buf_get_str(b, t->parent, sizeof(t->parent));
	pmixev_buf_get_u32(b, &t->parent_rank);
}

/* `n` u32s each below `below`, into a new array. */
static uint32_t *get_indices(struct pmixev_buf *b, uint32_t n, uint32_t below)
{
	uint32_t *v = calloc(n, sizeof(*v));

	if (!v)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		if (pmixev_buf_get_u32(b, &v[i]) < 0 || v[i] >= below) {
			free(v);
			return NULL;
		}
	return v;
}

int pmixev_pmixd_start_unpack(struct pmixev_buf *b,
			      struct pmixev_pmixd_start *m)
{
	struct pmixev_pmixd_start *t = calloc(1, sizeof(*t));
	uint32_t nn, nt;
	int rc = -1;

	if (!t)
		return -1;
	start_get_fixed(b, t);
	nn = t->step.nnodes;
	nt = t->step.ntasks;
	/* A name takes 4 bytes at least, a rank 8 (node and app). */
	if (!pmixev_buf_ok(b) || !start_ok(t) ||
	    nn > pmixev_buf_remaining(b) / 4 ||
	    nt > (pmixev_buf_remaining(b) - 4 * (size_t)nn) / 8)
		goto out;
	t->nodes = calloc(nn, sizeof(*t->nodes));
	if (!t->nodes)
		goto out;
	for (uint32_t i = 0; i < nn; i++)
		if (pmixd_get_text(b, PMIXEV_PMIXD_NAME_MAX - 1, &t->nodes[i]) <
		    0)
			goto out;
	t->node_of = get_indices(b, nt, nn);
	t->app_of = t->node_of ? get_indices(b, nt, t->napps) : NULL;
	if (!t->app_of || pmixd_unpack_done(b) < 0)
		goto out;
	*m = *t;
	memset(t, 0, sizeof(*t));
	rc = 0;
out:
	pmixev_pmixd_start_release(t);
	free(t);
	return rc;
}

void pmixev_pmixd_start_release(struct pmixev_pmixd_start *m)
{
	if (!m)
		return;
	if (m->nodes)
		for (uint32_t i = 0; i < m->step.nnodes; i++)
			free(m->nodes[i]);
	free(m->nodes);
	free(m->node_of);
	free(m->app_of);
	memset(m, 0, sizeof(*m));
}

bool pmixev_pmixd_env_var_ok(const char *var)
{
	const char *p = var;

	if (!(*p >= 'A' && *p <= 'Z') && *p != '_')
		return false;
	for (p++; *p && *p != '='; p++)
		if (!(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9') &&
		    *p != '_')
			return false;
	return *p == '=';
}

/* One rank's environment within READY's bounds. */
static bool env_ok(const struct pmixev_pmixd_env *e)
{
	size_t bytes = 0;

	if (e->count > PMIXEV_PMIXD_ENV_VARS || (e->count && !e->vars))
		return false;
	for (uint32_t i = 0; i < e->count; i++) {
		if (!e->vars[i] || !pmixev_pmixd_env_var_ok(e->vars[i]))
			return false;
		bytes += strlen(e->vars[i]);
		if (bytes > PMIXEV_PMIXD_ENV_BYTES)
			return false;
	}
	return true;
}

int pmixev_pmixd_ready_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_ready *m)
{
	if (!pmixev_result_valid(m->status) ||
	    (m->status != PMIXEV_OK && m->nenv) || (m->nenv && !m->env) ||
	    m->nenv > PMIXEV_PMIXD_TASKS_MAX)
		return pmixd_invalid();
	for (uint32_t i = 0; i < m->nenv; i++)
		if (!env_ok(&m->env[i]))
			return pmixd_invalid();
	pmixev_buf_put_u8(b, (uint8_t)m->status);
	pmixev_buf_put_u16(b, m->gate_port);
	pmixev_buf_put_u8(b, m->lib_major);
	pmixev_buf_put_u32(b, m->nenv);
	for (uint32_t i = 0; i < m->nenv; i++) {
		pmixev_buf_put_u32(b, m->env[i].rank);
		pmixev_buf_put_u32(b, m->env[i].count);
		for (uint32_t v = 0; v < m->env[i].count; v++)
			pmixev_buf_put_str(b, m->env[i].vars[v]);
	}
	return pmixd_pack_done(b);
}

/* One rank's environment, which must be local rank `want`'s. */
static int get_env(struct pmixev_buf *b, uint32_t want,
		   struct pmixev_pmixd_env *e)
{
	pmixev_buf_get_u32(b, &e->rank);
	pmixev_buf_get_u32(b, &e->count);
	if (!pmixev_buf_ok(b) || e->rank != want ||
	    e->count > PMIXEV_PMIXD_ENV_VARS ||
	    e->count > pmixev_buf_remaining(b) / 4) {
		e->count = 0;
		return -1;
	}
	e->vars = calloc(e->count ? e->count : 1, sizeof(*e->vars));
	if (!e->vars) {
		e->count = 0;
		return -1;
	}
	for (uint32_t v = 0; v < e->count; v++)
		if (pmixd_get_text(b, PMIXEV_PMIXD_ENV_BYTES, &e->vars[v]) < 0)
			return -1;
	return env_ok(e) ? 0 : -1;
}

int pmixev_pmixd_ready_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      struct pmixev_pmixd_ready *m)
{
	struct pmixev_pmixd_ready t = {0};
	const uint32_t *local = lim->map->ranks[lim->nodeid];
	uint8_t status = 0;

	pmixev_buf_get_u8(b, &status);
	pmixev_buf_get_u16(b, &t.gate_port);
	pmixev_buf_get_u8(b, &t.lib_major);
	pmixev_buf_get_u32(b, &t.nenv);
	if (!pmixev_buf_ok(b) || !pmixev_result_valid(status) ||
	    t.nenv !=
		    (status == PMIXEV_OK ? lim->map->count[lim->nodeid] : 0) ||
	    t.nenv > pmixev_buf_remaining(b) / 8)
		goto fail;
	t.status = (enum pmixev_result)status;
	t.env = calloc(t.nenv ? t.nenv : 1, sizeof(*t.env));
	if (!t.env)
		goto fail;
	for (uint32_t i = 0; i < t.nenv; i++)
		if (get_env(b, local[i], &t.env[i]) < 0)
			goto fail;
	if (pmixd_unpack_done(b) < 0)
		goto fail;
	*m = t;
	return 0;
fail:
	pmixev_pmixd_ready_release(&t);
	return -1;
}

void pmixev_pmixd_ready_release(struct pmixev_pmixd_ready *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; m->env && i < m->nenv; i++) {
		for (uint32_t v = 0; m->env[i].vars && v < m->env[i].count; v++)
			free(m->env[i].vars[v]);
		free(m->env[i].vars);
	}
	free(m->env);
	memset(m, 0, sizeof(*m));
}
