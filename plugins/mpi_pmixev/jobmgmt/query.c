/*
 * jobmgmt/query.c - QUERY frames answered from Slurm and the tasks' table
 * (see query.h).
 */
#include "config.h"

#include "jobmgmt/query.h"

#include <stdlib.h>
#include <string.h>

#include <pmix_common.h>

#include "jobmgmt/ptable.h"
#include "ownerhelper/jobinfo.h"
#include "pmixd/carry.h"
#include "pmixd/chan.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_ctl.h"
#include "wireup/group_ask.h"

struct query_frame;

/* An item's answer to come, for the callbacks. */
struct slot {
	struct query_frame *q;
	uint32_t i;
};

/* A QUERY of the pmix side, until every item is answered. */
struct query_frame {
	struct chan *chan;
	struct pmixev_pmixd_budget *budget;
	unsigned outstanding; /* answers awaited, and one until all asked */
	struct slot slot[PMIXEV_PMIXD_ITEMS_MAX];
	struct pmixev_pmixd_query_done done; /* its resp and pt.e: ours */
};

/* Each answer of `d` becomes `result` alone, its data freed. */
static void fail_all(struct pmixev_pmixd_query_done *d,
		     enum pmixev_result result)
{
	for (uint32_t i = 0; i < d->n; i++) {
		free(d->a[i].resp);
		free(d->a[i].pt.e);
		pmixev_group_list_release(d->a[i].groups);
		free(d->a[i].groups);
		d->a[i] = (struct pmixev_pmixd_qanswer){.key = d->a[i].key,
							.result = result};
	}
}

/* Send `d` to the pmix side; when it cannot go as it is, every item
 * fails with PMIXEV_ERR_NOMEM instead. */
static void send_done(struct chan *l, struct pmixev_pmixd_query_done *d)
{
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if ((pmixev_pmixd_query_done_pack(&b, d) < 0 ||
	     chan_send(l, PMIXEV_PMIXD_QUERY_DONE, &b) < 0) &&
	    chan_is_open(l)) {
		pmixev_buf_release(&b);
		fail_all(d, PMIXEV_ERR_NOMEM);
		chan_frame_begin(&b);
		if (pmixev_pmixd_query_done_pack(&b, d) < 0 ||
		    chan_send(l, PMIXEV_PMIXD_QUERY_DONE, &b) < 0)
			PMIXEV_ERROR("query: cannot answer the pmix side's "
				     "query %llu (out of memory)",
				     (unsigned long long)d->id);
		else
			PMIXEV_ERROR("query: the answer to the pmix side's "
				     "query %llu is over the channel's 64 MiB "
				     "frame or memory is short; its %u item(s) "
				     "fail with PMIX_ERR_NOMEM",
				     (unsigned long long)d->id, (unsigned)d->n);
	}
	pmixev_buf_release(&b);
}

/* One more item is answered; the last one sends them all. */
static void settle(struct query_frame *q)
{
	if (--q->outstanding)
		return;
	send_done(q->chan, &q->done);
	pmixev_pmixd_query_done_release(&q->done);
	pmixev_pmixd_budget_give(q->budget, PMIXEV_PMIXD_QUERY);
	free(q);
}

/* Why jobinfo has no answer, in PMIx's terms (ownerhelper/jobinfo.h), as
 * the frame carries it: a pmixev result. */
static enum pmixev_result result_of(pmix_status_t st)
{
	switch (st) {
	case PMIX_ERR_NOT_FOUND:
		return PMIXEV_ERR_NOT_FOUND;
	case PMIX_ERR_NO_PERMISSIONS:
		return PMIXEV_ERR_NO_PERMISSIONS;
	case PMIX_ERR_NOT_SUPPORTED:
		return PMIXEV_ERR_NOT_SUPPORTED;
	case PMIX_ERR_UNREACH:
		return PMIXEV_ERR_UNREACH;
	case PMIX_ERR_TIMEOUT:
		return PMIXEV_ERR_TIMEOUT;
	case PMIX_ERR_OUT_OF_RESOURCE:
		return PMIXEV_ERR_OVER_BUDGET;
	case PMIX_ERR_NOMEM:
		return PMIXEV_ERR_NOMEM;
	default:
		return PMIXEV_ERR_FAILED;
	}
}

/* jobinfo's answer for the slot `arg`. */
static void on_slurm(void *arg, pmix_status_t st,
		     const struct jobinfo_answer *a)
{
	struct slot *sl = arg;
	struct pmixev_pmixd_qanswer *qa = &sl->q->done.a[sl->i];

	if (st != PMIX_SUCCESS) {
		qa->result = result_of(st);
	} else if (!a || !(qa->resp = calloc(1, sizeof(*qa->resp)))) {
		qa->result = a ? PMIXEV_ERR_NOMEM : PMIXEV_ERR_NOT_FOUND;
	} else {
		qa->age_ms = a->age_ms;
		qa->resp->op = a->op;
		qa->resp->job = a->job;
		qa->resp->parts = a->parts;
	}
	settle(sl->q);
}

/* The tasks' table for the slot `arg` (`e` valid during the call). */
static void on_tasks(void *arg, const struct pmixev_ptable_entry *e, size_t n,
		     bool complete)
{
	struct slot *sl = arg;
	struct pmixev_pmixd_qanswer *qa = &sl->q->done.a[sl->i];

	qa->result = PMIXEV_OK;
	if (n && !(qa->pt.e = malloc(n * sizeof(*e)))) {
		qa->result = PMIXEV_ERR_NOMEM;
	} else {
		if (n)
			memcpy(qa->pt.e, e, n * sizeof(*e));
		qa->pt.count = (uint32_t)n;
		qa->complete = complete;
	}
	settle(sl->q);
}

/* Node 0's list of the live groups for the slot `arg`. */
static void on_groups(enum pmixev_result result, struct pmixev_group_list *l,
		      void *arg)
{
	struct slot *sl = arg;
	struct pmixev_pmixd_qanswer *qa = &sl->q->done.a[sl->i];

	qa->result = result;
	if (result == PMIXEV_OK && !(qa->groups = malloc(sizeof(*l))))
		qa->result = PMIXEV_ERR_NOMEM;
	else if (result == PMIXEV_OK) {
		*qa->groups = *l;
		*l = (struct pmixev_group_list){0};
	}
	settle(sl->q);
}

static enum pmixev_owner_op owner_op(const struct pmixev_pmixd_qitem *it)
{
	if (it->key == PMIXEV_PMIXD_Q_PARTS)
		return PMIXEV_OWNER_PARTITIONS;
	return it->job ? PMIXEV_OWNER_OTHER_JOB : PMIXEV_OWNER_JOB_STATE;
}

/* Answer every item of `m` with `result`. */
static void refuse(struct chan *l, const struct pmixev_pmixd_query *m,
		   enum pmixev_result result)
{
	struct pmixev_pmixd_query_done no = {.id = m->id, .n = m->n};

	for (uint32_t i = 0; i < m->n; i++)
		no.a[i] = (struct pmixev_pmixd_qanswer){.key = m->item[i].key,
							.result = result};
	send_done(l, &no);
}

static int on_query(void *ctx, struct pmixev_buf *body)
{
	struct step *s = ctx;
	struct pmixev_pmixd_query m;
	struct query_frame *q;

	if (pmixev_pmixd_query_unpack(body, &m) < 0)
		return -1;
	if (!carry_take(&s->pmixd_budget, PMIXEV_PMIXD_QUERY)) {
		refuse(s->chan, &m, PMIXEV_ERR_OVER_BUDGET);
		return 0;
	}
	if (!(q = calloc(1, sizeof(*q)))) {
		pmixev_pmixd_budget_give(&s->pmixd_budget, PMIXEV_PMIXD_QUERY);
		refuse(s->chan, &m, PMIXEV_ERR_NOMEM);
		return 0;
	}
	q->chan = s->chan;
	q->budget = &s->pmixd_budget;
	q->done.id = m.id;
	q->done.n = m.n;
	q->outstanding = 1; /* until every item is under way */
	for (uint32_t i = 0; i < m.n; i++) {
		const struct pmixev_pmixd_qitem *it = &m.item[i];

		q->done.a[i].key = it->key;
		q->slot[i] = (struct slot){.q = q, .i = i};
		q->outstanding++;
		if (it->key == PMIXEV_PMIXD_Q_PTABLE)
			ptable_get(s->ptable, it->local, m.timeout_sec,
				   on_tasks, &q->slot[i]);
		else if (it->key == PMIXEV_PMIXD_Q_GROUPS)
			group_ask(s->group_ask, m.timeout_sec, on_groups,
				  &q->slot[i]);
		else
			jobinfo_get(s->jobinfo, owner_op(it), it->job,
				    m.refresh, on_slurm, &q->slot[i]);
	}
	settle(q);
	return 0;
}

void query_frames_listen(struct step *s)
{
	chan_on(s->chan, PMIXEV_PMIXD_QUERY, on_query, s);
}
