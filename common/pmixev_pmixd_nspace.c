/*
 * pmixev_pmixd_nspace.c - the namespaces of a spawn family, SPAWN_DONE
 * and the NSPACE messages of the pmixd channel (declared in
 * pmixev_pmixd_spawn.h).
 *
 * Wire layouts (see pmixev_pmixd_msg.c):
 *
 *   spawn_done    u64 id, i32 status, str nspace, str reason
 *   nspace_add    str nspace, str parent, u32 parent_rank, bytes layout
 *   nspace_del    str nspace
 *   nspace_added  str nspace, i32 status
 *
 * Fixed-size fields and a zero-copy layout: nothing is allocated.
 */
#include "config.h"

#include "pmixev_pmixd_int.h"
#include "pmixev_pmixd_spawn.h"

#include <string.h>

#define STEP_PREFIX "slurm.pmixev."
#define TOOL_TAG    ".tool."

/* A canonical decimal u32 at *s, ending at `end` (or NUL): advances *s. */
static bool get_dec(const char **s, char end, uint32_t *v)
{
	const char *p = *s;
	uint64_t n = 0;

	if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (uint64_t)(*p - '0');
		if (n > UINT32_MAX)
			return false;
	}
	if (*p != end)
		return false;
	*s = p;
	if (v)
		*v = (uint32_t)n;
	return true;
}

/* "<job>.<step>" then `end`; advances *s. */
static bool get_ids(const char **s, char end, uint32_t *job, uint32_t *step)
{
	if (!get_dec(s, '.', job))
		return false;
	(*s)++;
	return get_dec(s, end, step);
}

bool pmixev_pmixd_step_nspace(const char *s, uint32_t *job, uint32_t *step)
{
	if (strncmp(s, STEP_PREFIX, strlen(STEP_PREFIX)) ||
	    strlen(s) >= PMIXEV_NSPACE_MAX)
		return false;
	s += strlen(STEP_PREFIX);
	return get_ids(&s, '\0', job, step);
}

bool pmixev_pmixd_family_nspace(const char *s)
{
	const char *p = s;

	if (pmixev_pmixd_step_nspace(s, NULL, NULL))
		return true;
	if (strncmp(s, STEP_PREFIX, strlen(STEP_PREFIX)) ||
	    strlen(s) >= PMIXEV_NSPACE_MAX)
		return false;
	p += strlen(STEP_PREFIX);
	if (!get_ids(&p, '.', NULL, NULL) ||
	    strncmp(p, TOOL_TAG, strlen(TOOL_TAG)))
		return false;
	p += strlen(TOOL_TAG);
	return get_ids(&p, '\0', NULL, NULL);
}

static bool spawn_done_ok(const struct pmixev_pmixd_spawn_done *m)
{
	if (m->status > 0 || !pmixd_text_ok(m->nspace, sizeof(m->nspace)) ||
	    !pmixd_text_ok(m->reason, sizeof(m->reason)))
		return false;
	return m->status ? !m->nspace[0]
			 : pmixev_pmixd_step_nspace(m->nspace, NULL, NULL);
}

int pmixev_pmixd_spawn_done_pack(struct pmixev_buf *b,
				 const struct pmixev_pmixd_spawn_done *m)
{
	if (!spawn_done_ok(m))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_i32(b, m->status);
	pmixev_buf_put_str(b, m->nspace);
	pmixev_buf_put_str(b, m->reason);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_spawn_done_unpack(struct pmixev_buf *b,
				   struct pmixev_pmixd_spawn_done *m)
{
	struct pmixev_pmixd_spawn_done t;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_i32(b, &t.status);
	pmixev_buf_get_str(b, t.nspace, sizeof(t.nspace));
	pmixev_buf_get_str(b, t.reason, sizeof(t.reason));
	if (pmixd_unpack_done(b) < 0 || !spawn_done_ok(&t))
		return -1;
	*m = t;
	return 0;
}

static bool nspace_add_ok(const struct pmixev_pmixd_nspace_add *m)
{
	if (!pmixd_text_ok(m->nspace, sizeof(m->nspace)) ||
	    !pmixd_text_ok(m->parent, sizeof(m->parent)) ||
	    !pmixev_pmixd_step_nspace(m->nspace, NULL, NULL) || !m->nlayout ||
	    m->nlayout > PMIXEV_PMIXD_LAYOUT_MAX || !m->layout)
		return false;
	if (!m->parent[0])
		return m->parent_rank == PMIXEV_PMIXD_NO_RANK;
	return m->parent_rank != PMIXEV_PMIXD_NO_RANK &&
	       pmixev_pmixd_family_nspace(m->parent);
}

int pmixev_pmixd_nspace_add_pack(struct pmixev_buf *b,
				 const struct pmixev_pmixd_nspace_add *m)
{
	if (!nspace_add_ok(m))
		return pmixd_invalid();
	pmixev_buf_put_str(b, m->nspace);
	pmixev_buf_put_str(b, m->parent);
	pmixev_buf_put_u32(b, m->parent_rank);
	pmixev_buf_put_bytes(b, m->layout, m->nlayout);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_nspace_add_unpack(struct pmixev_buf *b,
				   struct pmixev_pmixd_nspace_add *m)
{
	struct pmixev_pmixd_nspace_add t;

	pmixev_buf_get_str(b, t.nspace, sizeof(t.nspace));
	pmixev_buf_get_str(b, t.parent, sizeof(t.parent));
	pmixev_buf_get_u32(b, &t.parent_rank);
	pmixev_buf_get_bytes(b, &t.layout, &t.nlayout);
	if (pmixd_unpack_done(b) < 0 || !nspace_add_ok(&t))
		return -1;
	*m = t;
	return 0;
}

int pmixev_pmixd_nspace_del_pack(struct pmixev_buf *b, const char *nspace)
{
	if (!pmixd_text_ok(nspace, PMIXEV_NSPACE_MAX) ||
	    !pmixev_pmixd_step_nspace(nspace, NULL, NULL))
		return pmixd_invalid();
	pmixev_buf_put_str(b, nspace);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_nspace_del_unpack(struct pmixev_buf *b,
				   char nspace[PMIXEV_NSPACE_MAX])
{
	char t[PMIXEV_NSPACE_MAX];

	pmixev_buf_get_str(b, t, sizeof(t));
	if (pmixd_unpack_done(b) < 0 ||
	    !pmixev_pmixd_step_nspace(t, NULL, NULL))
		return -1;
	memcpy(nspace, t, sizeof(t));
	return 0;
}

static bool nspace_added_ok(const struct pmixev_pmixd_nspace_added *m)
{
	return m->status <= 0 && pmixd_text_ok(m->nspace, sizeof(m->nspace)) &&
	       pmixev_pmixd_step_nspace(m->nspace, NULL, NULL);
}

int pmixev_pmixd_nspace_added_pack(struct pmixev_buf *b,
				   const struct pmixev_pmixd_nspace_added *m)
{
	if (!nspace_added_ok(m))
		return pmixd_invalid();
	pmixev_buf_put_str(b, m->nspace);
	pmixev_buf_put_i32(b, m->status);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_nspace_added_unpack(struct pmixev_buf *b,
				     struct pmixev_pmixd_nspace_added *m)
{
	struct pmixev_pmixd_nspace_added t;

	pmixev_buf_get_str(b, t.nspace, sizeof(t.nspace));
	pmixev_buf_get_i32(b, &t.status);
	if (pmixd_unpack_done(b) < 0 || !nspace_added_ok(&t))
		return -1;
	*m = t;
	return 0;
}
