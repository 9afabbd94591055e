/*
 * wireup/group_root.c - the registry of the step's live groups on the
 * tree root (see group_root.h). Agent thread.
 */
#include "config.h"

#include "wireup/group_root.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_log.h"
#include "wireup/fence_sig.h"

#define GROUPS_MAX (16384u)
#define TEXT_MAX   ((size_t)64 << 20)

/* A live group: its signature (rank text as a destruct names it) and
 * context id (0: none). */
struct reg {
	char *sig;
	uint64_t ctxid;
};

struct group_root {
	const struct layout *lay;
	struct reg *g; /* oldest first */
	size_t n, cap;
	size_t text;	       /* bytes of the signatures held */
	unsigned long refused; /* constructs not registered: over the bounds */
};

/*
 * `sig` as the registry keeps it: every rank of the step as its range, so
 * that a group constructed with the wildcard and destructed with its
 * members (OpenPMIx 5 sends them back) is one entry. malloc'd, or NULL.
 */
static char *canon(const struct group_root *r, const char *sig)
{
	uint32_t last = r->lay->map.ntasks ? r->lay->map.ntasks - 1 : 0;
	char *out;
	int n;

	if (sig[0] != '*')
		return strdup(sig);
	if (last)
		n = asprintf(&out, "0-%u%s", last, sig + 1);
	else
		n = asprintf(&out, "0%s", sig + 1);
	return n < 0 ? NULL : out;
}

static struct reg *find(const struct group_root *r, const char *sig)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->g[i].sig, sig))
			return &r->g[i];
	return NULL;
}

/* Register `sig` (owned on success). */
static bool add(struct group_root *r, char *sig, uint64_t ctxid)
{
	size_t len = strlen(sig);
	struct reg *g;

	if (r->n == GROUPS_MAX || len > TEXT_MAX - r->text) {
		if (!r->refused++)
			PMIXEV_ERROR("group registry: group %s not registered: "
				     "it holds %zu groups (at most %u) and "
				     "%zu bytes of members (at most 64 MiB); "
				     "the group queries will not list it "
				     "(further ones are counted)",
				     sig, r->n, GROUPS_MAX, r->text);
		return false;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;

		if (!(g = realloc(r->g, cap * sizeof(*g))))
			return false;
		r->g = g;
		r->cap = cap;
	}
	r->g[r->n++] = (struct reg){.sig = sig, .ctxid = ctxid};
	r->text += len;
	return true;
}

static void drop(struct group_root *r, struct reg *g)
{
	r->text -= strlen(g->sig);
	free(g->sig);
	memmove(g, g + 1, (size_t)(r->g + r->n - (g + 1)) * sizeof(*g));
	r->n--;
}

void group_root_note(struct group_root *r, enum pmixev_coll_kind kind,
		     const char *sig, uint64_t ctxid)
{
	char *key;
	struct reg *g;

	if (kind != PMIXEV_COLL_GROUP_CONSTRUCT &&
	    kind != PMIXEV_COLL_GROUP_DESTRUCT)
		return;
	if (!(key = canon(r, sig))) {
		PMIXEV_ERROR("group registry: group %s not %s: out of memory; "
			     "the group queries may be wrong about it",
			     sig,
			     kind == PMIXEV_COLL_GROUP_CONSTRUCT ? "registered"
								 : "removed");
		return;
	}
	g = find(r, key);
	if (kind == PMIXEV_COLL_GROUP_DESTRUCT) {
		if (g)
			drop(r, g);
		free(key);
		return;
	}
	if (g) { /* constructed again without a destruct */
		g->ctxid = ctxid;
		free(key);
		return;
	}
	if (!add(r, key, ctxid))
		free(key);
}

/* Entry `e` from signature `sig`: 0, or -1 (malformed or no memory). */
static int entry_of(const struct group_root *r, const char *sig,
		    struct pmixev_group_entry *e)
{
	const char *id = fence_sig_group_id(sig);
	bool all;

	if (!id || strlen(id) >= sizeof(e->grpid) ||
	    fence_sig_ranks(&r->lay->map, sig, &all, &e->ranks, &e->nranks) <
		    0 ||
	    all) /* canon() leaves no wildcard */
		return -1;
	strcpy(e->grpid, id);
	return 0;
}

enum pmixev_result group_root_list(const struct group_root *r,
				   struct pmixev_group_list *out)
{
	size_t idbytes = 0, total = 0;
	struct pmixev_group_list l = {0};

	*out = l;
	if (r->n &&
	    !(l.e = calloc(r->n < PMIXEV_GROUP_LIST_MAX ? r->n
							: PMIXEV_GROUP_LIST_MAX,
			   sizeof(*l.e))))
		return PMIXEV_ERR_NOMEM;
	for (size_t i = 0; i < r->n; i++) {
		struct pmixev_group_entry *e = &l.e[l.n];

		if (l.n == PMIXEV_GROUP_LIST_MAX) {
			l.partial = true;
			break;
		}
		if (entry_of(r, r->g[i].sig, e) < 0) {
			pmixev_group_list_release(&l);
			return PMIXEV_ERR_NOMEM;
		}
		if (pmixev_group_list_size(l.n + 1, idbytes + strlen(e->grpid),
					   total + e->nranks) >
		    PMIXEV_GROUP_LIST_BYTES) {
			free(e->ranks);
			e->ranks = NULL;
			l.partial = true;
			break;
		}
		idbytes += strlen(e->grpid);
		total += e->nranks;
		l.n++;
	}
	*out = l;
	return PMIXEV_OK;
}

struct group_root *group_root_create(const struct layout *lay)
{
	struct group_root *r = calloc(1, sizeof(*r));

	if (r)
		r->lay = lay;
	return r;
}

void group_root_destroy(struct group_root *r)
{
	if (!r)
		return;
	if (r->refused > 1)
		PMIXEV_ERROR("group registry: %lu group(s) in all were not "
			     "registered: over 16384 groups or 64 MiB; the "
			     "group queries did not list them",
			     r->refused);
	for (size_t i = 0; i < r->n; i++)
		free(r->g[i].sig);
	free(r->g);
	free(r);
}
