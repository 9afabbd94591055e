/*
 * pmixside/group_pmix.c - PMIx Groups on the pmix side (see
 * group_pmix.h): group_upcall on the PMIx progress thread, root's answer
 * on the pmix side's agent.
 */
#include "config.h"

#include "pmixside/group_pmix.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "base/step.h"
#include "pmixbase/group_dirs.h"
#include "pmixbase/infos.h"
#include "pmixbase/procs.h"
#include "pmixbase/status.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_group.h"
#include "pmixside/calls.h"
#include "pmixside/group_watch.h"

/*
 * A construct or destruct sent to root, until root answered or the
 * channel closed; malloc'd whole (calls.h), its members inline.
 */
struct group_call {
	struct call call; /* first: see calls.h */
	enum pmixev_pmixd_group_op op;
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
	char grpid[PMIXEV_PMIXD_GROUP_ID_MAX];
	bool all;
	uint32_t nranks;
	uint32_t ranks[]; /* the members asked for, strictly increasing */
};

/* --- pmix side's agent ---------------------------------------------------- */

/*
 * The members that remain (asked for, not failed) as PMIX_GROUP_MEMBERSHIP:
 * always explicit ranks, as OpenPMIx 5.0's client allocates nothing for an
 * empty membership and then fails the construct.
 */
static pmix_status_t membership(const struct group_call *c,
				const struct pmixev_pmixd_group_done *d,
				const struct layout *lay, pmix_info_t *out)
{
	uint32_t n = c->all ? lay->step.ntasks : c->nranks, k = 0;
	pmix_data_array_t da;
	pmix_proc_t *procs;

	PMIX_DATA_ARRAY_CONSTRUCT(&da, n, PMIX_PROC);
	if (!(procs = da.array))
		return PMIX_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = c->all ? i : c->ranks[i];

		if (procs_in_set(d->failed, d->nfailed, r))
			continue;
		PMIX_LOAD_PROCID(&procs[k], lay->nspace, r);
		k++;
	}
	da.size = k;
	PMIX_INFO_LOAD(out, PMIX_GROUP_MEMBERSHIP, &da, PMIX_DATA_ARRAY);
	da.size = n;
	PMIX_DATA_ARRAY_DESTRUCT(&da);
	return PMIX_SUCCESS;
}

/* Answer a construct the collective completed: membership, context id,
 * the members' endpoint data. */
static void answer_built(const struct group_call *c,
			 const struct pmixev_pmixd_group_done *d,
			 const struct layout *lay)
{
	struct infos *a = infos_create(3);
	pmix_byte_object_t bo = {.bytes = (char *)d->endpt, .size = d->nendpt};
	size_t ctxid = (size_t)d->ctxid;
	pmix_status_t rc = PMIX_ERR_NOMEM;

	if (!a || (rc = membership(c, d, lay, &a->info[a->n])) != PMIX_SUCCESS)
		goto fail;
	a->n++;
	if (d->ctxid)
		PMIX_INFO_LOAD(&a->info[a->n++], PMIX_GROUP_CONTEXT_ID, &ctxid,
			       PMIX_SIZE);
	/* An empty one makes OpenPMIx 5.0 log an unpack error. */
	if (d->nendpt)
		PMIX_INFO_LOAD(&a->info[a->n++], PMIX_GROUP_ENDPT_DATA, &bo,
			       PMIX_BYTE_OBJECT);
	c->cbfunc(PMIX_SUCCESS, a->info, a->n, c->cbdata, infos_release, a);
	return;
fail:
	infos_release(a);
	c->cbfunc(rc, NULL, 0, c->cbdata, NULL, NULL);
}

/*
 * Answer `c` with root's `d` (NULL when root did not answer); watch a
 * constructed group (`p`, on a real answer), and forget a destructed one:
 * a destruct with a member that ended is a success for a group that asked
 * to hear of ends (PMIX_GROUP_NOTIFY_TERMINATION) or had optional members.
 */
static void answer(struct pmixside *p, struct group_call *c,
		   const struct pmixev_pmixd_group_done *d,
		   enum pmixev_result result)
{
	const struct layout *lay = &step_served()->lay;
	uint8_t had = 0;

	if (p && c->op == PMIXEV_PMIXD_GROUP_DESTRUCT)
		had = group_watch_remove(pmixside_groups(p), c->grpid, c->all,
					 c->ranks, c->nranks);
	if (result == PMIXEV_ERR_PARTIAL &&
	    (had &
	     (PMIXEV_PMIXD_GROUP_NOTIFY_TERM | PMIXEV_PMIXD_GROUP_OPTIONAL)))
		result = PMIXEV_OK;
	if (result == PMIXEV_OK && c->op == PMIXEV_PMIXD_GROUP_CONSTRUCT) {
		if (p && d)
			group_watch_add(pmixside_groups(p), c->grpid, c->all,
					c->ranks, c->nranks, d->failed,
					d->nfailed, d->ctxid, d->flags,
					d->leader);
		answer_built(c, d, lay);
	} else {
		c->cbfunc(status_to_pmix(result), NULL, 0, c->cbdata, NULL,
			  NULL);
	}
}

/* The request `c` was, as the codec checks an answer against. */
static void request_of(const struct group_call *c,
		       struct pmixev_pmixd_group *req)
{
	*req = (struct pmixev_pmixd_group){.id = c->call.id,
					   .op = c->op,
					   .all = c->all,
					   .nranks = c->nranks,
					   .ranks = (uint32_t *)c->ranks};
}

static int on_done(void *ctx, struct pmixev_buf *body)
{
	struct pmixside *p = ctx;
	struct pmixev_pmixd_group_done m;
	struct pmixev_pmixd_group req;
	struct group_call *c;
	int rc = -1;

	if (pmixev_pmixd_group_done_unpack(
		    body, pmixside_layout(p)->step.ntasks, &m) < 0)
		return -1;
	c = (struct group_call *)calls_take(pmixside_calls(p), m.id,
					    PMIXEV_PMIXD_GROUP_DONE);
	if (!c)
		goto out;
	request_of(c, &req);
	if (!pmixev_pmixd_group_done_fits(&m, &req)) {
		answer(NULL, c, NULL, PMIXEV_ERR_BAD_DATA);
		free(c);
		goto out;
	}
	answer(p, c, &m, m.result);
	free(c);
	rc = 0;
out:
	pmixev_pmixd_group_done_release(&m);
	return rc;
}

/* The channel closed before root answered. */
static void answer_call(struct call *call, enum pmixev_result result,
			const uint8_t *data, size_t ndata)
{
	struct group_call *c = (struct group_call *)call;

	answer(NULL, c, NULL, result);
	free(c);
}

/* A request refused before it reached root, answered from here: the
 * library leaves the members waiting when the upcall itself fails. */
struct refusal {
	pmix_status_t status;
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
};

static void refuse_agent(void *arg)
{
	struct refusal *r = arg;

	r->cbfunc(r->status, NULL, 0, r->cbdata, NULL, NULL);
	free(r);
}

void group_pmix_listen(struct pmixside *p)
{
	chan_on(pmixside_chan(p), PMIXEV_PMIXD_GROUP_DONE, on_done, p);
}

/* --- PMIx progress thread ------------------------------------------------- */

/* The string value of PMIX_GROUP_ID in `info`, or NULL. */
static const char *group_id_of(const pmix_info_t info[], size_t ninfo)
{
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) &&
		    info[i].value.type == PMIX_STRING)
			return info[i].value.data.string;
	return NULL;
}

void group_pmix_abort(struct pmixside *p, const pmix_proc_t *source,
		      pmix_data_range_t range, const pmix_info_t info[],
		      size_t ninfo)
{
	const struct layout *lay = pmixside_layout(p);
	const struct pmixev_pmixd_bounds lim = {.map = &lay->map,
						.nodeid = lay->nodeid,
						.nspace = lay->nspace,
						.srv_nspace = lay->srv_nspace};
	struct pmixev_pmixd_group_abort m = {.rank = source->rank,
					     .why = PMIXEV_PMIXD_GROUP_ABORTED};
	const char *id = group_id_of(info, ninfo);
	struct pmixev_buf frame;

	if (range == PMIX_RANGE_PROC_LOCAL ||
	    !PMIX_CHECK_NSPACE(source->nspace, lay->nspace) ||
	    !layout_is_local(lay, source->rank))
		return;
	if (!id || !pmixev_pmixd_group_id_ok(id, &lim)) {
		PMIXEV_INFO(
			"group: rank %u notified PMIX_GROUP_CONSTRUCT_ABORT "
			"without a valid PMIX_GROUP_ID (%s): no construct "
			"aborted",
			source->rank, id ? id : "none");
		return;
	}
	strcpy(m.grpid, id);
	pmixev_buf_init(&frame);
	chan_frame_begin(&frame);
	if (pmixev_pmixd_group_abort_pack(&frame, &m) < 0 ||
	    chan_post_any(pmixside_chan(p), PMIXEV_PMIXD_GROUP_ABORT, &frame) <
		    0) {
		pmixev_buf_release(&frame);
		PMIXEV_ERROR("group %s: rank %u's abort of its construct not "
			     "sent (channel to root closed or out of memory)",
			     id, source->rank);
	}
}

/* The major version of the OpenPMIx library we run with. */
static int lib_major(void)
{
	static int major = -1;

	if (major < 0) {
		const char *v = PMIx_Get_version();
		const char *d = v ? strpbrk(v, "0123456789") : NULL;

		major = d ? atoi(d) : 0;
	}
	return major;
}

/*
 * The PMIX_TIMEOUT root enforces, in ms. OpenPMIx 4.2 arms a timer of
 * its own for the same time and corrupts its memory when it fires after
 * the host was called (fixed in 4.2.9): root answers half a second
 * sooner there.
 */
static uint32_t timeout_ms(unsigned sec)
{
	uint32_t ms = sec * 1000u;

	if (!sec)
		return 0;
	if (lib_major() == 4)
		ms = ms > 750 ? ms - 500 : 250;
	return ms;
}

/*
 * Is this the library's second call for one destruct? OpenPMIx 5.0.0 to
 * 5.0.9 call the host twice, back to back with the same tracker, for a
 * destruct they find node-local (pmix_server_grpdestruct goes on from its
 * local branch into the global one: a return is missing), and answering
 * both frees the tracker twice: the second answer then consumes whatever
 * took its memory, another group's members hang. Such a destruct carries
 * PMIX_GROUP_LOCAL_ONLY; its second call is the next group call on this
 * thread. It is taken and never answered. PMIx progress thread only.
 */
static bool second_call(pmix_group_operation_t op, const pmix_info_t dirs[],
			size_t ndirs, void *cbdata)
{
	static void *first;
	bool second = false, local = false;

	for (size_t i = 0; i < ndirs; i++)
		local |= PMIX_CHECK_KEY(&dirs[i], PMIX_GROUP_LOCAL_ONLY);
	if (op == PMIX_GROUP_DESTRUCT && local && lib_major() == 5) {
		second = first == cbdata;
		first = second ? NULL : cbdata;
	} else {
		first = NULL;
	}
	return second;
}

/* This node's members of `m` (all: every local rank); one into *one. */
static uint32_t local_members(const struct layout *lay,
			      const struct pmixev_pmixd_group *m, uint32_t *one)
{
	uint32_t n = 0;

	if (m->all) {
		n = layout_nlocal(lay);
		if (n)
			*one = lay->map.ranks[lay->nodeid][0];
		return n;
	}
	for (uint32_t i = 0; i < m->nranks; i++) {
		if (layout_is_local(lay, m->ranks[i])) {
			*one = m->ranks[i];
			n++;
		}
	}
	return n;
}

/* The frame's flags, leader and timeout from the directives. */
static void apply_dirs(const struct layout *lay, const struct group_dirs *d,
		       struct pmixev_pmixd_group *m)
{
	uint32_t leader = PMIXEV_PMIXD_NO_RANK;

	m->leader = PMIXEV_PMIXD_NO_RANK;
	m->timeout_ms = timeout_ms(d->timeout_sec);
	if (d->local_only)
		m->flags |= PMIXEV_PMIXD_GROUP_LOCAL_ONLY;
	if (m->op != PMIXEV_PMIXD_GROUP_CONSTRUCT)
		return;
	m->flags |= (d->assign_ctxid ? PMIXEV_PMIXD_GROUP_ASSIGN : 0) |
		    (d->notify_term ? PMIXEV_PMIXD_GROUP_NOTIFY_TERM : 0) |
		    (d->optional ? PMIXEV_PMIXD_GROUP_OPTIONAL : 0);
	/* Which caller leads, the library does not say: known only when
	 * this node hosts one member. */
	if (d->leader && local_members(lay, m, &leader) == 1) {
		m->flags |= PMIXEV_PMIXD_GROUP_LEADER_HERE;
		m->leader = leader;
	}
	m->endpt = d->endpt;
	m->nendpt = d->nendpt;
}

/* Pack `m` and send it as `c`'s request; owns c. */
static pmix_status_t send_call(struct pmixside *p, struct group_call *c,
			       struct pmixev_pmixd_group *m)
{
	struct pmixev_buf frame;

	c->call.id = calls_new_id(pmixside_calls(p));
	c->call.done_type = PMIXEV_PMIXD_GROUP_DONE;
	c->call.answer = answer_call;
	m->id = c->call.id;
	pmixev_buf_init(&frame);
	chan_frame_begin(&frame);
	if (pmixev_pmixd_group_pack(&frame, m) < 0) {
		pmixev_buf_release(&frame);
		free(c);
		return status_to_pmix(PMIXEV_ERR_BAD_REQUEST);
	}
	if (calls_send(pmixside_calls(p), &c->call, PMIXEV_PMIXD_GROUP,
		       &frame) < 0) {
		free(c);
		return status_to_pmix(PMIXEV_ERR_UNREACH);
	}
	return PMIX_SUCCESS;
}

/* The members as a strictly increasing set into `m` (m->ranks
 * malloc'd, or NULL for all). */
static pmix_status_t read_members(const struct layout *lay,
				  const pmix_proc_t procs[], size_t nprocs,
				  struct pmixev_pmixd_group *m)
{
	enum pmixev_result rc;
	uint32_t one;

	rc = procs_to_ranks(lay, procs, nprocs, &m->all, &m->ranks);
	if (rc != PMIXEV_OK)
		return status_to_pmix(rc);
	if (m->all) {
		free(m->ranks);
		m->ranks = NULL;
	} else {
		m->nranks = procs_sort_unique(m->ranks, nprocs);
	}
	return local_members(lay, m, &one) ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
}

/* Answer `rc` through the agent (the upcall itself succeeds). */
static pmix_status_t refuse(struct pmixside *p, pmix_status_t rc,
			    pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	struct refusal *r = malloc(sizeof(*r));

	if (!r)
		return PMIX_ERR_NOMEM;
	*r = (struct refusal){rc, cbfunc, cbdata};
	if (agent_post(pmixside_agent(p), refuse_agent, r) < 0) {
		free(r);
		return rc;
	}
	return PMIX_SUCCESS;
}

pmix_status_t group_upcall(pmix_group_operation_t op, char grp[],
			   const pmix_proc_t procs[], size_t nprocs,
			   const pmix_info_t directives[], size_t ndirs,
			   pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	const struct step *s = step_served();
	const struct layout *lay = &s->lay;
	const struct pmixev_pmixd_bounds lim = {.map = &lay->map,
						.nodeid = lay->nodeid,
						.nspace = lay->nspace,
						.srv_nspace = lay->srv_nspace};
	struct pmixev_pmixd_group m = {0};
	struct group_call *c = NULL;
	struct group_dirs d;
	const char *why = NULL;
	pmix_status_t rc;

	if (op != PMIX_GROUP_CONSTRUCT && op != PMIX_GROUP_DESTRUCT)
		return PMIX_ERR_NOT_SUPPORTED;
	if (second_call(op, directives, ndirs, cbdata))
		return PMIX_SUCCESS;
	m.op = op == PMIX_GROUP_CONSTRUCT ? PMIXEV_PMIXD_GROUP_CONSTRUCT
					  : PMIXEV_PMIXD_GROUP_DESTRUCT;
	if (!grp || !pmixev_pmixd_group_id_ok(grp, &lim)) {
		rc = PMIX_ERR_BAD_PARAM;
		why = "a group id that is empty, too long or a namespace";
		goto out;
	}
	if ((rc = read_members(lay, procs, nprocs, &m)) != PMIX_SUCCESS) {
		why = "members beyond the step or none on this node";
		goto out;
	}
	if ((rc = group_dirs_read(directives, ndirs, &d, &why)) != PMIX_SUCCESS)
		goto out;
	strcpy(m.grpid, grp);
	strcpy(m.nspace, lay->nspace);
	apply_dirs(lay, &d, &m);
	rc = PMIX_ERR_NOMEM;
	c = calloc(1, sizeof(*c) + (size_t)m.nranks * sizeof(uint32_t));
	if (!c)
		goto out;
	*c = (struct group_call){.op = m.op,
				 .cbfunc = cbfunc,
				 .cbdata = cbdata,
				 .all = m.all,
				 .nranks = m.nranks};
	strcpy(c->grpid, grp);
	if (m.nranks)
		memcpy(c->ranks, m.ranks, (size_t)m.nranks * sizeof(uint32_t));
	rc = send_call(s->pside, c, &m);
out:
	if (why)
		PMIXEV_ERROR("group %s: %s refused: %s (%s)",
			     op == PMIX_GROUP_CONSTRUCT ? "construct"
							: "destruct",
			     grp ? grp : "(none)", why, PMIx_Error_string(rc));
	free(m.ranks);
	return rc == PMIX_SUCCESS ? rc : refuse(s->pside, rc, cbfunc, cbdata);
}
