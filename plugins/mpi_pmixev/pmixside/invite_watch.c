/*
 * pmixside/invite_watch.c - open group invitations, and the events their
 * processes' ends make (see invite_watch.h).
 */
#include "config.h"

#include "pmixside/invite_watch.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "pmixev_log.h"

/* One invitation: `waiting[i]` while invitees[i] has not answered. */
struct invitation {
	bool open;
	uint64_t seq; /* order of opening: joins answer the oldest */
	uint32_t inviter;
	char *id;
	uint32_t n;
	uint32_t *invitees;
	bool *waiting;
};

struct invite_watch {
	pthread_mutex_t lock; /* everything below */
	const struct layout *lay;
	struct invitation slot[INVITE_WATCH_MAX];
	uint64_t opened;
	uint32_t ranks; /* invitees in open invitations */
	uint64_t unwatched, undelivered;
};

/* A notification to make once the lock is released. */
struct notice {
	pmix_status_t code;
	pmix_info_t *info;
	size_t ninfo;
};

static void close_invitation(struct invite_watch *w, struct invitation *v)
{
	if (v->open)
		w->ranks -= v->n;
	free(v->id);
	free(v->invitees);
	free(v->waiting);
	memset(v, 0, sizeof(*v));
}

/* The procs of a PMIX_EVENT_CUSTOM_RANGE value; their number. */
static size_t range_procs(const pmix_value_t *v, const pmix_proc_t **procs)
{
	if (v->type == PMIX_PROC && v->data.proc) {
		*procs = v->data.proc;
		return 1;
	}
	if (v->type == PMIX_DATA_ARRAY && v->data.darray &&
	    v->data.darray->type == PMIX_PROC && v->data.darray->array) {
		*procs = v->data.darray->array;
		return v->data.darray->size;
	}
	return 0;
}

/* What an event names: its group id and custom range, if any. */
static void read_infos(const pmix_info_t info[], size_t ninfo, const char **id,
		       const pmix_proc_t **procs, size_t *nprocs)
{
	*id = NULL;
	*nprocs = 0;
	for (size_t i = 0; i < ninfo; i++) {
		if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) &&
		    info[i].value.type == PMIX_STRING)
			*id = info[i].value.data.string;
		else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_CUSTOM_RANGE))
			*nprocs = range_procs(&info[i].value, procs);
	}
}

static struct invitation *find(struct invite_watch *w, uint32_t inviter,
			       const char *id)
{
	for (size_t i = 0; i < INVITE_WATCH_MAX; i++)
		if (w->slot[i].open && w->slot[i].inviter == inviter &&
		    !strcmp(w->slot[i].id, id))
			return &w->slot[i];
	return NULL;
}

/* The step's ranks of `procs` but the inviter, once each, into `v`. */
static int fill_invitees(const struct layout *lay, struct invitation *v,
			 const pmix_proc_t *procs, size_t nprocs)
{
	uint32_t ntasks = lay->step.ntasks;
	bool *in = calloc(ntasks ? ntasks : 1, sizeof(*in));

	if (!in)
		return -1;
	for (size_t i = 0; i < nprocs; i++) {
		if (!PMIX_CHECK_NSPACE(procs[i].nspace, lay->nspace))
			continue;
		if (procs[i].rank == PMIX_RANK_WILDCARD)
			memset(in, 1, ntasks * sizeof(*in));
		else if (procs[i].rank < ntasks)
			in[procs[i].rank] = true;
	}
	in[v->inviter] = false;
	for (uint32_t r = 0; r < ntasks; r++)
		v->n += in[r];
	v->invitees = calloc(v->n ? v->n : 1, sizeof(*v->invitees));
	v->waiting = calloc(v->n ? v->n : 1, sizeof(*v->waiting));
	if (!v->invitees || !v->waiting) {
		free(in);
		return -1;
	}
	v->n = 0;
	for (uint32_t r = 0; r < ntasks; r++)
		if (in[r]) {
			v->invitees[v->n] = r;
			v->waiting[v->n++] = true;
		}
	free(in);
	return 0;
}

/* Why an invitation of `id` by rank `inviter` is not watched (static). */
static void unwatched(struct invite_watch *w, const char *id, uint32_t inviter,
		      const char *why)
{
	if (pmixev_log_worth(++w->unwatched))
		PMIXEV_ERROR("groups: the invitation to group %s by rank %u is "
			     "not watched (%s): an invitee that ends will not "
			     "fail it, nor its inviter's end reach the "
			     "invitees (%llu unwatched so far)",
			     id, inviter, why,
			     (unsigned long long)w->unwatched);
}

static void opened(struct invite_watch *w, uint32_t inviter, const char *id,
		   const pmix_proc_t *procs, size_t nprocs)
{
	struct invitation *v = find(w, inviter, id), fresh = {0};
	size_t i;

	/* Invited again: from the start. */
	if (v)
		close_invitation(w, v);
	for (i = 0; i < INVITE_WATCH_MAX && w->slot[i].open; i++)
		;
	if (i == INVITE_WATCH_MAX) {
		unwatched(w, id, inviter,
			  "INVITE_WATCH_MAX invitations open on this node");
		return;
	}
	fresh.inviter = inviter;
	if (!(fresh.id = strdup(id)) ||
	    fill_invitees(w->lay, &fresh, procs, nprocs) < 0) {
		close_invitation(w, &fresh);
		unwatched(w, id, inviter, "out of memory");
		return;
	}
	/* Only the inviter itself: nobody to wait for. */
	if (!fresh.n) {
		close_invitation(w, &fresh);
		return;
	}
	if (fresh.n > INVITE_WATCH_RANKS - w->ranks) {
		close_invitation(w, &fresh);
		unwatched(w, id, inviter,
			  "INVITE_WATCH_RANKS invitees watched on this node");
		return;
	}
	fresh.open = true;
	fresh.seq = ++w->opened;
	w->ranks += fresh.n;
	w->slot[i] = fresh;
}

/* Rank `who` answered the oldest invitation of `leader` (any: NULL) still
 * waiting for it. */
static void answered(struct invite_watch *w, uint32_t who,
		     const pmix_proc_t *leader)
{
	bool *oldest = NULL;
	uint64_t seq = UINT64_MAX;

	for (size_t i = 0; i < INVITE_WATCH_MAX; i++) {
		struct invitation *v = &w->slot[i];

		if (!v->open || v->seq > seq ||
		    (leader &&
		     (v->inviter != leader->rank ||
		      !PMIX_CHECK_NSPACE(leader->nspace, w->lay->nspace))))
			continue;
		for (uint32_t k = 0; k < v->n; k++)
			if (v->invitees[k] == who && v->waiting[k]) {
				oldest = &v->waiting[k];
				seq = v->seq;
			}
	}
	if (oldest)
		*oldest = false;
}

void invite_watch_event(struct invite_watch *w, pmix_status_t code,
			const pmix_proc_t *source, const pmix_info_t info[],
			size_t ninfo)
{
	const pmix_proc_t *procs = NULL;
	struct invitation *v;
	const char *id;
	size_t nprocs;

	if ((code != PMIX_GROUP_INVITED && code != PMIX_GROUP_INVITE_ACCEPTED &&
	     code != PMIX_GROUP_INVITE_DECLINED &&
	     code != PMIX_GROUP_CONSTRUCT_COMPLETE) ||
	    !PMIX_CHECK_NSPACE(source->nspace, w->lay->nspace) ||
	    source->rank >= w->lay->step.ntasks)
		return;
	read_infos(info, ninfo, &id, &procs, &nprocs);
	pthread_mutex_lock(&w->lock);
	if (code == PMIX_GROUP_INVITED && id && nprocs)
		opened(w, source->rank, id, procs, nprocs);
	else if (code == PMIX_GROUP_INVITE_ACCEPTED ||
		 code == PMIX_GROUP_INVITE_DECLINED)
		answered(w, source->rank, nprocs ? procs : NULL);
	else if (code == PMIX_GROUP_CONSTRUCT_COMPLETE && id &&
		 (v = find(w, source->rank, id)))
		close_invitation(w, v);
	pthread_mutex_unlock(&w->lock);
}

/* `code` about rank `affected` in group `id` for `targets`, with `text`. */
static int make_notice(const struct layout *lay, struct notice *n,
		       pmix_status_t code, uint32_t affected, const char *id,
		       pmix_proc_t *targets, size_t ntargets, const char *text)
{
	pmix_data_array_t range = {
		.type = PMIX_PROC, .size = ntargets, .array = targets};
	pmix_proc_t who;
	bool yes = true;

	PMIX_INFO_CREATE(n->info, 6);
	if (!n->info)
		return -1;
	n->code = code;
	n->ninfo = 6;
	PMIX_LOAD_PROCID(&who, lay->nspace, affected);
	PMIX_INFO_LOAD(&n->info[0], PMIX_EVENT_CUSTOM_RANGE, &range,
		       PMIX_DATA_ARRAY);
	PMIX_INFO_LOAD(&n->info[1], PMIX_EVENT_AFFECTED_PROC, &who, PMIX_PROC);
	PMIX_INFO_LOAD(&n->info[2], PMIX_GROUP_ID, id, PMIX_STRING);
	PMIX_INFO_LOAD(&n->info[3], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&n->info[4], PMIX_EVENT_DO_NOT_CACHE, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&n->info[5], PMIX_EVENT_TEXT_MESSAGE, text, PMIX_STRING);
	return 0;
}

/* What the end of `rank` means for invitation `v`: a notice in `n`
 * (1), or none (0); -1 when out of memory. */
static int ended_in(struct invite_watch *w, struct invitation *v, uint32_t rank,
		    struct notice *n)
{
	const struct layout *lay = w->lay;
	pmix_proc_t *to;
	size_t nto = 0;
	char text[256];
	int rc;

	if (v->inviter == rank) {
		if (!(to = calloc(v->n ? v->n : 1, sizeof(*to))))
			return -1;
		for (uint32_t k = 0; k < v->n; k++) {
			if (!v->waiting[k] ||
			    !layout_is_local(lay, v->invitees[k]))
				continue;
			/* (the macro names its first argument twice) */
			PMIX_LOAD_PROCID(&to[nto], lay->nspace, v->invitees[k]);
			nto++;
		}
		snprintf(text, sizeof(text),
			 "rank %u, which invited this process to group %s, "
			 "ended before the group was complete",
			 rank, v->id);
		rc = nto ? make_notice(lay, n, PMIX_GROUP_LEADER_FAILED, rank,
				       v->id, to, nto, text)
			 : 0;
		free(to);
		close_invitation(w, v);
		return rc < 0 ? -1 : nto > 0;
	}
	for (uint32_t k = 0; k < v->n; k++) {
		pmix_proc_t inviter;

		if (v->invitees[k] != rank || !v->waiting[k])
			continue;
		v->waiting[k] = false;
		if (!layout_is_local(lay, v->inviter))
			return 0;
		PMIX_LOAD_PROCID(&inviter, lay->nspace, v->inviter);
		snprintf(text, sizeof(text),
			 "rank %u, invited to group %s, ended without "
			 "answering",
			 rank, v->id);
		return make_notice(lay, n, PMIX_GROUP_INVITE_FAILED, rank,
				   v->id, &inviter, 1, text) < 0
			       ? -1
			       : 1;
	}
	return 0;
}

static void notified(pmix_status_t status, void *cbdata)
{
	struct notice *n = cbdata;

	(void)status;
	PMIX_INFO_FREE(n->info, n->ninfo);
	free(n);
}

/* Hand `n` (taken over) to the local server. */
static void notify(struct invite_watch *w, struct notice *n)
{
	pmix_proc_t me;
	uint64_t lost;
	pmix_status_t rc;
	struct notice *keep = malloc(sizeof(*keep));

	if (keep) {
		*keep = *n;
		PMIX_LOAD_PROCID(&me, w->lay->srv_nspace, w->lay->nodeid);
		rc = PMIx_Notify_event(n->code, &me, PMIX_RANGE_CUSTOM,
				       keep->info, keep->ninfo, notified, keep);
		if (rc == PMIX_SUCCESS)
			return;
		if (rc == PMIX_OPERATION_SUCCEEDED) {
			notified(rc, keep);
			return;
		}
		notified(rc, keep);
	} else {
		PMIX_INFO_FREE(n->info, n->ninfo);
		rc = PMIX_ERR_NOMEM;
	}
	pthread_mutex_lock(&w->lock);
	lost = ++w->undelivered;
	pthread_mutex_unlock(&w->lock);
	if (pmixev_log_worth(lost))
		PMIXEV_ERROR("groups: a %s for an invitation was not delivered "
			     "on this node: %s (%llu so far)",
			     PMIx_Error_string(n->code), PMIx_Error_string(rc),
			     (unsigned long long)lost);
}

void invite_watch_ended(struct invite_watch *w, uint32_t rank)
{
	struct notice *n = NULL;
	size_t nn = 0, lost = 0;

	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; i < INVITE_WATCH_MAX; i++) {
		struct notice one;
		int rc;

		if (!w->slot[i].open)
			continue;
		if (!n && !(n = calloc(INVITE_WATCH_MAX, sizeof(*n)))) {
			lost++;
			break;
		}
		rc = ended_in(w, &w->slot[i], rank, &one);
		if (rc > 0)
			n[nn++] = one;
		lost += rc < 0;
	}
	w->undelivered += lost;
	pthread_mutex_unlock(&w->lock);
	if (lost)
		PMIXEV_ERROR("groups: rank %u ended, and %zu of the events "
			     "this makes for group invitations are lost: out "
			     "of memory",
			     rank, lost);
	for (size_t i = 0; i < nn; i++)
		notify(w, &n[i]);
	free(n);
}

struct invite_watch *invite_watch_create(const struct layout *lay)
{
	struct invite_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	w->lay = lay;
	return w;
}

void invite_watch_destroy(struct invite_watch *w)
{
	if (!w)
		return;
	if (w->unwatched || w->undelivered)
		PMIXEV_INFO("groups: %llu invitation(s) not watched, %llu "
			    "event(s) for invitations not delivered on this "
			    "node",
			    (unsigned long long)w->unwatched,
			    (unsigned long long)w->undelivered);
	for (size_t i = 0; i < INVITE_WATCH_MAX; i++)
		if (w->slot[i].open)
			close_invitation(w, &w->slot[i]);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
