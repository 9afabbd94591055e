/*
 * wireup/group.c - PMIx Groups, root's half (see group.h). Agent thread.
 */
#include "config.h"

#include "wireup/group.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/overlay.h"
#include "pmixd/chan.h"
#include "pmixev_group_rec.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_group.h"
#include "wireup/coll.h"
#include "wireup/fence_sig.h"
#include "wireup/group_root.h"

struct groups {
	struct step *s;
	struct pmixev_group_ids ids;
	bool ids_ok;	     /* the step id leaves room for ids */
	unsigned long given; /* context ids issued here */
	uint64_t idle;	     /* aborts that found no construct here */
};

/* A GROUP_ABORT as aborted_by reads it. */
struct abort_pick {
	const struct pmixev_taskmap *map;
	const struct pmixev_pmixd_group_abort *m;
};

/* A construct or destruct this node's pmix side asked for, until it ends
 * here; the members inline. */
struct group_call {
	struct chan *chan;
	uint64_t id;
	enum pmixev_pmixd_group_op op;
	uint8_t flags; /* its node's directives */
	bool all;
	uint32_t nranks;
	uint32_t ranks[];
};

static const char *op_name(enum pmixev_coll_kind kind)
{
	return kind == PMIXEV_COLL_GROUP_CONSTRUCT ? "group construct"
						   : "group destruct";
}

static void send_done(struct chan *l, const struct pmixev_pmixd_group_done *m)
{
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if (pmixev_pmixd_group_done_pack(&b, m) < 0 ||
	    chan_send(l, PMIXEV_PMIXD_GROUP_DONE, &b) < 0) {
		pmixev_buf_release(&b);
		if (chan_is_open(l))
			PMIXEV_ERROR(
				"group: cannot answer the pmix side's call "
				"%llu (out of memory)",
				(unsigned long long)m->id);
	}
}

static void send_failed(struct chan *l, uint64_t id, enum pmixev_result r)
{
	struct pmixev_pmixd_group_done m = {
		.id = id, .result = r, .leader = PMIXEV_PMIXD_NO_RANK};

	send_done(l, &m);
}

/* --- the tree root ---------------------------------------------------------
 */

/* The next context id, or why there is none. */
static enum pmixev_result issue(struct groups *g, const struct coll_id *id,
				uint64_t *ctxid)
{
	if (overlay_self(g->s->ov) != 0) {
		PMIXEV_ERROR("%s %s: no context id: the step's first node, "
			     "which issues them, is gone",
			     op_name(id->kind), id->sig);
		return PMIXEV_ERR_UNREACH;
	}
	if (!g->ids_ok || pmixev_group_ids_next(&g->ids, ctxid) < 0) {
		PMIXEV_ERROR("%s %s: no context id left for this step "
			     "(%lu issued)",
			     op_name(id->kind), id->sig, g->given);
		return PMIXEV_ERR_OVER_BUDGET;
	}
	g->given++;
	return PMIXEV_OK;
}

/*
 * Members ended (`res->failed`): a construct completes with the others
 * only when a member said PMIX_GROUP_OPTIONAL, a destruct is partly
 * successful (the pmix side tells the groups that asked to hear of ends
 * otherwise).
 */
static enum pmixev_result verdict(const struct coll_id *id,
				  const struct pmixev_group_result *res)
{
	bool construct = id->kind == PMIXEV_COLL_GROUP_CONSTRUCT;

	if (!res->nfailed ||
	    (construct && (res->flags & PMIXEV_PMIXD_GROUP_OPTIONAL))) {
		if (res->nfailed)
			PMIXEV_INFO("group construct %s: completes without "
				    "its %u member(s) that ended, first rank "
				    "%u (optional)",
				    id->sig, res->nfailed, res->failed[0]);
		return PMIXEV_OK;
	}
	if (!construct) {
		PMIXEV_INFO("group destruct %s: %u member(s) had ended, first "
			    "rank %u: partly successful",
			    id->sig, res->nfailed, res->failed[0]);
		return PMIXEV_ERR_PARTIAL;
	}
	PMIXEV_ERROR("group construct %s: %u member(s) ended, first rank %u, "
		     "and none asked for an optional group: aborted",
		     id->sig, res->nfailed, res->failed[0]);
	return PMIXEV_ERR_GROUP_ABORT;
}

/* Every member node's record is in `data`: merge them into the result,
 * with a context id when a member asked for one. */
static enum pmixev_result at_root(void *ctx, const struct coll_id *id,
				  struct pmixev_buf *data)
{
	struct groups *g = ctx;
	const struct layout *lay = &g->s->lay;
	struct pmixev_group_set set = {.map = &lay->map};
	struct pmixev_group_result res = {0};
	struct pmixev_buf endpt, out;
	enum pmixev_result rc = PMIXEV_ERR_BAD_DATA;
	uint32_t *ranks = NULL;

	pmixev_buf_init(&endpt);
	pmixev_buf_init(&out);
	if (fence_sig_ranks(&lay->map, id->sig, &set.all, &ranks, &set.nranks) <
	    0)
		goto out;
	set.ranks = ranks;
	if (pmixev_group_merge(data->data, data->len, &set,
			       coll_dead(g->s->coll), &endpt, &res) < 0) {
		rc = errno == ENOMEM ? PMIXEV_ERR_NOMEM : PMIXEV_ERR_BAD_DATA;
		PMIXEV_ERROR("%s %s: the nodes' records do not merge (%s)",
			     op_name(id->kind), id->sig,
			     rc == PMIXEV_ERR_NOMEM ? "out of memory"
						    : "malformed");
		goto out;
	}
	if ((rc = verdict(id, &res)) != PMIXEV_OK) {
		/* A destruct that a member's end made partial still ends
		 * the group. */
		if (id->kind == PMIXEV_COLL_GROUP_DESTRUCT)
			group_root_note(g->s->group_root, id->kind, id->sig, 0);
		goto out;
	}
	if (id->kind == PMIXEV_COLL_GROUP_CONSTRUCT &&
	    (res.flags & PMIXEV_PMIXD_GROUP_ASSIGN) &&
	    (rc = issue(g, id, &res.ctxid)) != PMIXEV_OK)
		goto out;
	rc = PMIXEV_ERR_NOMEM;
	if (pmixev_group_result_pack(&out, &res) < 0)
		goto out;
	pmixev_buf_release(data);
	*data = out;
	pmixev_buf_init(&out);
	group_root_note(g->s->group_root, id->kind, id->sig, res.ctxid);
	rc = PMIXEV_OK;
out:
	pmixev_group_result_release(&res);
	pmixev_buf_release(&endpt);
	pmixev_buf_release(&out);
	free(ranks);
	return rc;
}

/* --- every member's node ---------------------------------------------------
 */

/* The collective ended here: answer the pmix side (if it still listens). */
static void deliver(void *ctx, const struct coll_id *id,
		    enum pmixev_result result, const uint8_t *data,
		    size_t ndata, void *call)
{
	struct groups *g = ctx;
	struct group_call *c = call;
	struct pmixev_group_set set = {.map = &g->s->lay.map,
				       .all = c->all,
				       .ranks = c->ranks,
				       .nranks = c->nranks};
	struct pmixev_group_result res = {0};
	struct pmixev_pmixd_group_done m = {
		.id = c->id, .result = result, .leader = PMIXEV_PMIXD_NO_RANK};
	struct pmixev_buf b;

	if (result == PMIXEV_OK) {
		pmixev_buf_reader(&b, data, ndata);
		if (pmixev_group_result_unpack(&b, &set, &res) < 0) {
			PMIXEV_ERROR("%s %s: the root's result is malformed",
				     op_name(id->kind), id->sig);
			m.result = PMIXEV_ERR_BAD_DATA;
		} else {
			m.ctxid = res.ctxid;
			m.flags = res.flags;
			m.leader = res.leader;
			m.nfailed = res.nfailed;
			m.failed = res.failed;
			m.endpt = res.endpt;
			m.nendpt = res.nendpt;
		}
	}
	send_done(c->chan, &m);
	pmixev_group_result_release(&res);
	free(c);
}

/* This node's record of the call `m`. */
static int record(const struct layout *lay, const struct pmixev_pmixd_group *m,
		  struct pmixev_buf *out)
{
	struct pmixev_group_rec r = {.node = lay->nodeid,
				     .flags = m->flags,
				     .leader = m->leader,
				     .endpt = m->endpt,
				     .nendpt = m->nendpt};

	pmixev_buf_init(out);
	return pmixev_group_rec_pack(out, &r);
}

static int on_group(void *ctx, struct pmixev_buf *body)
{
	struct groups *g = ctx;
	struct step *s = g->s;
	struct pmixev_pmixd_group m;
	enum pmixev_coll_kind kind;
	char sig[PMIXEV_SIG_MAX];
	struct group_call *c = NULL;
	struct pmixev_buf rec;

	pmixev_buf_init(&rec);
	if (pmixev_pmixd_group_unpack(body, &s->pmixd_lim, &m) < 0)
		return -1;
	kind = m.op == PMIXEV_PMIXD_GROUP_CONSTRUCT
		       ? PMIXEV_COLL_GROUP_CONSTRUCT
		       : PMIXEV_COLL_GROUP_DESTRUCT;
	if (fence_sig_format_group(m.all, m.ranks, m.nranks, m.grpid, sig,
				   sizeof(sig)) < 0) {
		PMIXEV_ERROR("%s %s: %s", op_name(kind), m.grpid,
			     errno == ENOMEM ? "out of memory"
					     : "member set and id too long");
		send_failed(s->chan, m.id,
			    errno == ENOMEM ? PMIXEV_ERR_NOMEM
					    : PMIXEV_ERR_BAD_REQUEST);
		goto out;
	}
	c = malloc(sizeof(*c) + (size_t)m.nranks * sizeof(uint32_t));
	if (!c || record(&s->lay, &m, &rec) < 0) {
		send_failed(s->chan, m.id, PMIXEV_ERR_NOMEM);
		free(c);
		goto out;
	}
	*c = (struct group_call){.chan = s->chan,
				 .id = m.id,
				 .op = m.op,
				 .flags = m.flags,
				 .all = m.all,
				 .nranks = m.nranks};
	if (m.nranks)
		memcpy(c->ranks, m.ranks, (size_t)m.nranks * sizeof(uint32_t));
	coll_local(s->coll, kind, sig, true, m.timeout_ms, rec.data, rec.len,
		   c);
out:
	pmixev_buf_release(&rec);
	pmixev_pmixd_group_release(&m);
	return 0;
}

/* Does the construct named `sig` hold the member that aborts `arg`? */
static bool aborted_by(const char *sig, void *arg)
{
	const struct abort_pick *a = arg;

	return fence_sig_group_has(a->map, sig, a->m->grpid, a->m->rank);
}

/*
 * A local member notified PMIX_GROUP_CONSTRUCT_ABORT for a group: its
 * constructs in flight here fail, and with them on every node. Nothing to
 * answer; one that finds none is only logged (at the 1st, 2nd, 4th, ...).
 */
static int on_abort(void *ctx, struct pmixev_buf *body)
{
	struct groups *g = ctx;
	struct step *s = g->s;
	struct pmixev_pmixd_group_abort m;
	struct abort_pick a = {.map = &s->lay.map, .m = &m};
	char why[64];

	if (pmixev_pmixd_group_abort_unpack(body, &s->pmixd_lim, &m) < 0)
		return -1;
	snprintf(why, sizeof(why), "its member rank %u aborted it", m.rank);
	if (coll_fail_where(s->coll, PMIXEV_COLL_GROUP_CONSTRUCT, aborted_by,
			    &a, PMIXEV_ERR_GROUP_ABORT, why) == 0 &&
	    pmixev_log_worth(++g->idle))
		PMIXEV_DEBUG(1,
			     "group construct %s: rank %u aborted it, but no "
			     "construct of it with that member is in flight "
			     "on this node: nothing to do (%llu such abort(s))",
			     m.grpid, m.rank, (unsigned long long)g->idle);
	return 0;
}

/*
 * A member ended: a construct goes on without it where its node's members
 * asked for an optional group, else is aborted on every node at once; a
 * node without a call yet has no word (its members' directives are not
 * known).
 */
static enum pmixev_result
construct_on_death(void *ctx, const struct coll_id *id, void *call)
{
	const struct group_call *c = call;

	(void)ctx;
	(void)id;
	return !c || (c->flags & PMIXEV_PMIXD_GROUP_OPTIONAL)
		       ? PMIXEV_OK
		       : PMIXEV_ERR_GROUP_ABORT;
}

/* A destruct ends when its living members have called. */
static enum pmixev_result destruct_on_death(void *ctx, const struct coll_id *id,
					    void *call)
{
	(void)ctx;
	(void)id;
	(void)call;
	return PMIXEV_OK;
}

struct groups *groups_create(struct step *s)
{
	static const struct coll_kind construct = {.at_root = at_root,
						   .deliver = deliver,
						   .on_death =
							   construct_on_death};
	static const struct coll_kind destruct = {.at_root = at_root,
						  .deliver = deliver,
						  .on_death =
							  destruct_on_death};
	struct groups *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->s = s;
	g->ids_ok = pmixev_group_ids_init(&g->ids, s->lay.step.step_id) == 0;
	if (coll_kind_set(s->coll, PMIXEV_COLL_GROUP_CONSTRUCT, &construct, g) <
		    0 ||
	    coll_kind_set(s->coll, PMIXEV_COLL_GROUP_DESTRUCT, &destruct, g) <
		    0) {
		free(g);
		return NULL;
	}
	chan_on(s->chan, PMIXEV_PMIXD_GROUP, on_group, g);
	chan_on(s->chan, PMIXEV_PMIXD_GROUP_ABORT, on_abort, g);
	return g;
}

void groups_destroy(struct groups *g)
{
	free(g);
}
