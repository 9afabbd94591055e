/*
 * pmixd/nspaces.c - family members' namespaces for the pmix side (agent
 * thread; see nspaces.h).
 */
#include "config.h"

#include "pmixd/nspaces.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmixd/chan.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_spawn.h"

struct entry {
	char nspace[PMIXEV_NSPACE_MAX];
	bool answered;
	int32_t status; /* the pmix side's, once answered */
	uint32_t job, step, ntasks;
	uint32_t *node_of; /* [ntasks]: each rank's node in its step */
};

#define SUBSCRIBERS 3

struct nspaces {
	struct step *s;
	struct {
		nspaces_added_fn fn;
		void *ctx;
	} sub[SUBSCRIBERS];
	unsigned nsub;
	struct entry *tab; /* [NSPACES_MAX], from the first namespace */
	unsigned n;
	uint64_t refused;
};

static struct entry *find(const struct nspaces *ns, const char *nspace)
{
	for (unsigned i = 0; i < ns->n; i++)
		if (!strcmp(ns->tab[i].nspace, nspace))
			return &ns->tab[i];
	return NULL;
}

enum nspaces_state nspaces_state(const struct nspaces *ns, const char *nspace)
{
	const struct entry *e = find(ns, nspace);

	if (!e)
		return NSPACES_UNKNOWN;
	return e->answered ? NSPACES_DONE : NSPACES_SENT;
}

void nspaces_each(const struct nspaces *ns,
		  void (*fn)(void *ctx, uint32_t job, uint32_t step), void *ctx)
{
	uint32_t job, step;

	for (unsigned i = 0; ns && i < ns->n; i++)
		if (ns->tab[i].answered &&
		    pmixev_pmixd_step_nspace(ns->tab[i].nspace, &job, &step))
			fn(ctx, job, step);
}

uint32_t nspaces_ntasks(const struct nspaces *ns, uint32_t job, uint32_t step)
{
	for (unsigned i = 0; ns && i < ns->n; i++)
		if (ns->tab[i].job == job && ns->tab[i].step == step)
			return ns->tab[i].answered && !ns->tab[i].status
				       ? ns->tab[i].ntasks
				       : 0;
	return 0;
}

static int refuse(struct nspaces *ns, const char *why)
{
	if (pmixev_log_worth(++ns->refused))
		PMIXEV_ERROR("spawn: step %s: a family member's layout "
			     "dropped: %s (%llu so far)",
			     ns->s->lay.step.id, why,
			     (unsigned long long)ns->refused);
	return -1;
}

/* Whether `m` is the layout of this step's child or of its parent. */
static bool related(const struct layout *lay,
		    const struct pmixev_xstep_layout *m)
{
	if (strcmp(m->start.parent, m->parent_nspace))
		return false;
	return !strcmp(m->parent_nspace, lay->nspace) ||
	       (lay->parent[0] && !strcmp(m->start.nspace, lay->parent));
}

/* NSPACE_ADD of the checked `m`, whose LAYOUT body is `body`. */
static int send_add(struct nspaces *ns, const struct pmixev_xstep_layout *m,
		    const uint8_t *body, size_t len)
{
	const struct layout *lay = &ns->s->lay;
	struct pmixev_pmixd_nspace_add add = {.layout = body, .nlayout = len};
	struct pmixev_buf b;
	struct entry *e;
	int rc = -1;

	if (find(ns, m->start.nspace))
		return 0; /* known already */
	if (ns->n == NSPACES_MAX)
		return refuse(ns, "the step knows too many namespaces already");
	/* Most steps never meet another: the table comes with the first. */
	if (!ns->tab && !(ns->tab = calloc(NSPACES_MAX, sizeof(*ns->tab))))
		return refuse(ns, "out of memory");
	e = &ns->tab[ns->n];
	if (!(e->node_of = malloc(
		      sizeof(*e->node_of) *
		      (m->start.step.ntasks ? m->start.step.ntasks : 1))))
		return refuse(ns, "out of memory");
	memcpy(e->node_of, m->start.node_of,
	       sizeof(*e->node_of) * m->start.step.ntasks);
	e->job = m->start.step.job_id;
	e->step = m->start.step.step_id;
	e->ntasks = m->start.step.ntasks;
	snprintf(add.nspace, sizeof(add.nspace), "%s", m->start.nspace);
	snprintf(add.parent, sizeof(add.parent), "%s", m->parent_nspace);
	add.parent_rank = m->parent_rank;
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if (pmixev_pmixd_nspace_add_pack(&b, &add) < 0 ||
	    chan_send(ns->s->chan, PMIXEV_PMIXD_NSPACE_ADD, &b) < 0) {
		PMIXEV_ERROR("spawn: step %s: cannot ask the pmix side to "
			     "register %s",
			     lay->step.id, add.nspace);
		free(e->node_of);
		e->node_of = NULL;
	} else {
		ns->n++;
		snprintf(e->nspace, sizeof(e->nspace), "%s", add.nspace);
		PMIXEV_DEBUG(1, "spawn: step %s: registering %s (%u ranks)",
			     lay->step.id, add.nspace, m->start.step.ntasks);
		rc = 0;
	}
	pmixev_buf_release(&b);
	return rc;
}

int nspaces_layout(struct nspaces *ns, const struct pmixev_xstep_hdr *h,
		   const uint8_t *body, size_t len)
{
	struct pmixev_xstep_layout m;
	struct pmixev_buf b;
	int rc;

	pmixev_buf_reader(&b, body, len);
	if (pmixev_xstep_layout_unpack(&b, PMIXEV_PMIXD_LAYOUT_MAX, &m) < 0)
		return refuse(ns, "malformed");
	if (!pmixev_xstep_layout_from(h, &m) || !related(&ns->s->lay, &m))
		rc = refuse(ns, "neither this step's child nor its parent");
	else
		rc = send_add(ns, &m, body, len);
	pmixev_xstep_layout_release(&m);
	return rc;
}

int nspaces_add_parent(struct nspaces *ns)
{
	const struct layout *lay = &ns->s->lay;
	struct pmixev_xstep_layout m;
	struct pmixev_buf b;
	int rc;

	if (!lay->parent_layout)
		return 0;
	pmixev_buf_reader(&b, lay->parent_layout, lay->nparent_layout);
	if (pmixev_xstep_layout_unpack(&b, PMIXEV_PMIXD_LAYOUT_MAX, &m) < 0)
		return refuse(ns, "the parent's, from the environment, is "
				  "malformed");
	if (!related(lay, &m))
		rc = refuse(ns, "the environment's is not the parent's");
	else
		rc = send_add(ns, &m, lay->parent_layout, lay->nparent_layout);
	pmixev_xstep_layout_release(&m);
	return rc;
}

/* The pmix side's NSPACE_ADDED: for a namespace root asked for, once. */
static int on_added(void *ctx, struct pmixev_buf *body)
{
	struct nspaces *ns = ctx;
	struct pmixev_pmixd_nspace_added m;
	struct entry *e;

	if (pmixev_pmixd_nspace_added_unpack(body, &m) < 0 ||
	    !(e = find(ns, m.nspace)) || e->answered)
		return -1;
	e->answered = true;
	e->status = m.status;
	if (m.status)
		PMIXEV_ERROR("spawn: step %s: the pmix side could not register "
			     "%s (PMIx status %d)",
			     ns->s->lay.step.id, m.nspace, (int)m.status);
	for (unsigned i = 0; i < ns->nsub; i++)
		ns->sub[i].fn(ns->sub[i].ctx, m.nspace, m.status);
	return 0;
}

static const struct entry *member(const struct nspaces *ns, uint32_t job,
				  uint32_t step)
{
	for (unsigned i = 0; i < ns->n; i++)
		if (ns->tab[i].job == job && ns->tab[i].step == step)
			return &ns->tab[i];
	return NULL;
}

bool nspaces_member(const struct nspaces *ns, uint32_t job, uint32_t step)
{
	return member(ns, job, step) != NULL;
}

enum pmixev_result nspaces_node_of(const struct nspaces *ns, uint32_t job,
				   uint32_t step, uint32_t rank, uint32_t *node)
{
	const struct entry *e = member(ns, job, step);

	if (!e)
		return PMIXEV_ERR_NOT_FOUND;
	if (rank >= e->ntasks)
		return PMIXEV_ERR_BAD_REQUEST;
	*node = e->node_of[rank];
	return PMIXEV_OK;
}

int nspaces_on_added(struct nspaces *ns, nspaces_added_fn fn, void *ctx)
{
	if (ns->nsub == SUBSCRIBERS)
		return -1;
	ns->sub[ns->nsub].fn = fn;
	ns->sub[ns->nsub++].ctx = ctx;
	return 0;
}

struct nspaces *nspaces_create(struct step *s)
{
	struct nspaces *ns = calloc(1, sizeof(*ns));

	if (!ns)
		return NULL;
	ns->s = s;
	chan_on(s->chan, PMIXEV_PMIXD_NSPACE_ADDED, on_added, ns);
	return ns;
}

void nspaces_destroy(struct nspaces *ns)
{
	if (!ns)
		return;
	if (ns->n || ns->refused)
		PMIXEV_DEBUG(1,
			     "spawn: step %s: %u family namespace(s) "
			     "registered, %llu layout(s) dropped",
			     ns->s->lay.step.id, ns->n,
			     (unsigned long long)ns->refused);
	for (unsigned i = 0; i < ns->n; i++)
		free(ns->tab[i].node_of);
	free(ns->tab);
	free(ns);
}
