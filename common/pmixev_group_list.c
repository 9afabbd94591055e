/*
 * pmixev_group_list.c - the step's live groups as node 0 lists them (see
 * pmixev_group_list.h).
 *
 * Wire layouts (pmixev_buf.h):
 *
 *   list         u8 partial (0/1), u32 n (<= 1024),
 *                n * { str grpid (1..255 bytes, no NUL),
 *                u32 nranks (1..ntasks), nranks * u32 rank (strictly
 *                increasing, < ntasks) }; the whole at most 1 MiB
 *   groups_req   u64 id
 *   groups_resp  u64 id, u8 result, [result OK: list]
 */
#include "config.h"

#include "pmixev_group_list.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The smallest entry: an id of one byte and one member. */
#define ENTRY_MIN (4 + 1 + 4 + 4)

static int invalid(void)
{
	errno = EINVAL;
	return -1;
}

size_t pmixev_group_list_size(size_t n, size_t idbytes, size_t total_ranks)
{
	return 1 + 4 + n * 8 + idbytes + total_ranks * 4;
}

static bool ranks_ok(const uint32_t *r, uint32_t n, uint32_t ntasks)
{
	if (!n || n > ntasks)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (r[i] >= ntasks || (i && r[i] <= r[i - 1]))
			return false;
	return true;
}

static bool entry_ok(const struct pmixev_group_entry *e, uint32_t ntasks)
{
	size_t len = strnlen(e->grpid, sizeof(e->grpid));

	return len && len < sizeof(e->grpid) && e->ranks &&
	       ranks_ok(e->ranks, e->nranks, ntasks);
}

int pmixev_group_list_pack(struct pmixev_buf *b,
			   const struct pmixev_group_list *l, uint32_t ntasks)
{
	size_t idbytes = 0, total = 0;

	if (l->n > PMIXEV_GROUP_LIST_MAX || (l->n && !l->e))
		return invalid();
	for (uint32_t i = 0; i < l->n; i++) {
		if (!entry_ok(&l->e[i], ntasks))
			return invalid();
		idbytes += strlen(l->e[i].grpid);
		total += l->e[i].nranks;
	}
	if (pmixev_group_list_size(l->n, idbytes, total) >
	    PMIXEV_GROUP_LIST_BYTES)
		return invalid();
	pmixev_buf_put_u8(b, l->partial ? 1 : 0);
	pmixev_buf_put_u32(b, l->n);
	for (uint32_t i = 0; i < l->n; i++) {
		pmixev_buf_put_str(b, l->e[i].grpid);
		pmixev_buf_put_u32(b, l->e[i].nranks);
		for (uint32_t k = 0; k < l->e[i].nranks; k++)
			pmixev_buf_put_u32(b, l->e[i].ranks[k]);
	}
	if (pmixev_buf_ok(b))
		return 0;
	errno = ENOMEM;
	return -1;
}

/* Entry `e` from `b`: 0, or -1 (e->ranks freed). */
static int get_entry(struct pmixev_buf *b, uint32_t ntasks,
		     struct pmixev_group_entry *e)
{
	pmixev_buf_get_str(b, e->grpid, sizeof(e->grpid));
	pmixev_buf_get_u32(b, &e->nranks);
	if (!pmixev_buf_ok(b) || !e->grpid[0] || !e->nranks ||
	    e->nranks > ntasks || e->nranks > pmixev_buf_remaining(b) / 4)
		return -1;
	if (!(e->ranks = malloc((size_t)e->nranks * sizeof(uint32_t))))
		return -1;
	for (uint32_t k = 0; k < e->nranks; k++)
		pmixev_buf_get_u32(b, &e->ranks[k]);
	if (pmixev_buf_ok(b) && ranks_ok(e->ranks, e->nranks, ntasks))
		return 0;
	free(e->ranks);
	e->ranks = NULL;
	return -1;
}

int pmixev_group_list_unpack(struct pmixev_buf *b, uint32_t ntasks,
			     struct pmixev_group_list *l)
{
	struct pmixev_group_list t = {0};
	uint8_t partial = 0;

	if (pmixev_buf_remaining(b) > PMIXEV_GROUP_LIST_BYTES)
		return -1;
	pmixev_buf_get_u8(b, &partial);
	pmixev_buf_get_u32(b, &t.n);
	if (!pmixev_buf_ok(b) || partial > 1 || t.n > PMIXEV_GROUP_LIST_MAX ||
	    t.n > pmixev_buf_remaining(b) / ENTRY_MIN)
		return -1;
	t.partial = partial;
	if (t.n && !(t.e = calloc(t.n, sizeof(*t.e))))
		return -1;
	for (uint32_t i = 0; i < t.n; i++)
		if (get_entry(b, ntasks, &t.e[i]) < 0) {
			t.n = i;
			goto bad;
		}
	if (pmixev_buf_remaining(b))
		goto bad;
	*l = t;
	return 0;
bad:
	pmixev_group_list_release(&t);
	return -1;
}

void pmixev_group_list_release(struct pmixev_group_list *l)
{
	if (!l)
		return;
	for (uint32_t i = 0; l->e && i < l->n; i++)
		free(l->e[i].ranks);
	free(l->e);
	*l = (struct pmixev_group_list){0};
}

int pmixev_groups_req_pack(struct pmixev_buf *b, uint64_t id)
{
	return pmixev_buf_put_u64(b, id);
}

int pmixev_groups_req_unpack(const uint8_t *p, size_t n, uint64_t *id)
{
	struct pmixev_buf b;

	pmixev_buf_reader(&b, p, n);
	pmixev_buf_get_u64(&b, id);
	return pmixev_buf_ok(&b) && !pmixev_buf_remaining(&b) ? 0 : -1;
}

int pmixev_groups_resp_pack(struct pmixev_buf *b,
			    const struct pmixev_groups_resp *m, uint32_t ntasks)
{
	if (!pmixev_result_valid(m->result) ||
	    (m->result != PMIXEV_OK && m->l.n))
		return invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u8(b, (uint8_t)m->result);
	if (m->result == PMIXEV_OK)
		return pmixev_group_list_pack(b, &m->l, ntasks);
	return pmixev_buf_ok(b) ? 0 : -1;
}

int pmixev_groups_resp_unpack(const uint8_t *p, size_t n, uint32_t ntasks,
			      struct pmixev_groups_resp *m)
{
	struct pmixev_buf b;
	uint8_t result = 0;

	*m = (struct pmixev_groups_resp){0};
	pmixev_buf_reader(&b, p, n);
	pmixev_buf_get_u64(&b, &m->id);
	pmixev_buf_get_u8(&b, &result);
	if (!pmixev_buf_ok(&b) || !pmixev_result_valid(result))
		return -1;
	m->result = (enum pmixev_result)result;
	if (m->result != PMIXEV_OK)
		return pmixev_buf_remaining(&b) ? -1 : 0;
	return pmixev_group_list_unpack(&b, ntasks, &m->l);
}
