/*
 * pmixside/group_watch.c - constructed groups watched for their members'
 * ends (see group_watch.h). Agent thread.
 */
#include "config.h"

#include "pmixside/group_watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "pmixbase/procs.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_group.h"
#include "pmixev_step.h"

/* A watched group; its members (unless `all`) and failed ones inline. */
struct entry {
	struct entry *next;
	char id[PMIXEV_PMIXD_GROUP_ID_MAX];
	uint64_t ctxid;
	uint8_t flags;
	uint32_t leader;
	bool all;
	uint32_t nranks, nfailed;
	uint32_t *ranks;  /* [nranks], into `set` */
	uint32_t *failed; /* [nfailed], into `set` */
	uint32_t set[];
};

struct group_watch {
	const struct layout *lay;
	struct inject_pmix *in;
	struct entry *head;
	unsigned n;
	unsigned long unwatched; /* constructs beyond the bound */
	char counted_as[PMIXEV_NODENAME_MAX + 8];
};

static bool is_member(const struct entry *e, uint32_t rank)
{
	return (e->all || procs_in_set(e->ranks, e->nranks, rank)) &&
	       !procs_in_set(e->failed, e->nfailed, rank);
}

/*
 * Does a destruct over `all`/`ranks` name group `e`: its members as asked
 * at construct, or as constructed (the failed left out, as OpenPMIx 5's
 * client keeps them)?
 */
static bool same_members(const struct entry *e, uint32_t ntasks, bool all,
			 const uint32_t *ranks, uint32_t n)
{
	if (all && e->all)
		return true;
	if (!all && !e->all && n == e->nranks &&
	    !memcmp(e->ranks, ranks, n * sizeof(uint32_t)))
		return true;
	if (all || n != (e->all ? ntasks : e->nranks) - e->nfailed)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!is_member(e, ranks[i]))
			return false;
	return true;
}

struct group_watch *group_watch_create(const struct layout *lay,
				       struct inject_pmix *in)
{
	struct group_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->lay = lay;
	w->in = in;
	snprintf(w->counted_as, sizeof(w->counted_as), "groups@%s",
		 lay->nodes[lay->nodeid]);
	return w;
}

void group_watch_destroy(struct group_watch *w)
{
	if (!w)
		return;
	if (w->unwatched)
		PMIXEV_ERROR("groups: %lu group(s) constructed beyond the %u "
			     "watched on this node: their members' ends were "
			     "not told",
			     w->unwatched, PMIXEV_GROUP_WATCH_MAX);
	while (w->head) {
		struct entry *e = w->head;

		w->head = e->next;
		free(e);
	}
	free(w);
}

void group_watch_add(struct group_watch *w, const char *id, bool all,
		     const uint32_t *ranks, uint32_t nranks,
		     const uint32_t *failed, uint32_t nfailed, uint64_t ctxid,
		     uint8_t flags, uint32_t leader)
{
	size_t n = (all ? 0 : (size_t)nranks) + nfailed;
	struct entry *e = NULL;

	if (w->n < PMIXEV_GROUP_WATCH_MAX)
		e = malloc(sizeof(*e) + n * sizeof(uint32_t));
	if (!e) {
		if (w->unwatched++ == 0)
			PMIXEV_ERROR("groups: group %s is not watched for its "
				     "members' ends (%s); further ones are "
				     "counted",
				     id,
				     w->n < PMIXEV_GROUP_WATCH_MAX
					     ? "out of memory"
					     : "too many groups on this node");
		return;
	}
	*e = (struct entry){.ctxid = ctxid,
			    .flags = flags,
			    .leader = leader,
			    .all = all,
			    .nranks = all ? 0 : nranks,
			    .nfailed = nfailed};
	snprintf(e->id, sizeof(e->id), "%s", id);
	e->ranks = e->set;
	e->failed = e->set + e->nranks;
	if (e->nranks)
		memcpy(e->ranks, ranks, e->nranks * sizeof(uint32_t));
	if (nfailed)
		memcpy(e->failed, failed, nfailed * sizeof(uint32_t));
	e->next = w->head;
	w->head = e;
	w->n++;
}

uint8_t group_watch_remove(struct group_watch *w, const char *id, bool all,
			   const uint32_t *ranks, uint32_t nranks)
{
	for (struct entry **pe = &w->head; *pe; pe = &(*pe)->next) {
		struct entry *e = *pe;
		uint8_t flags = e->flags;

		if (strcmp(e->id, id) ||
		    !same_members(e, w->lay->step.ntasks, all, ranks, nranks))
			continue;
		*pe = e->next;
		free(e);
		w->n--;
		return flags;
	}
	return 0;
}

/* Tell `code` about `rank` of group `e` to this node's members that
 * `tell` picks (rank itself never). */
static void tell(struct group_watch *w, const struct entry *e,
		 pmix_status_t code, uint32_t rank, bool leader_only)
{
	const struct layout *lay = w->lay;
	uint32_t nlocal = layout_nlocal(lay), k = 0;
	pmix_proc_t *to = calloc(nlocal ? nlocal : 1, sizeof(*to)), source,
		    gone;
	pmix_data_array_t range = {.type = PMIX_PROC, .array = to};
	size_t ctxid = (size_t)e->ctxid, n = 0;
	pmix_info_t *info = NULL;
	char text[PMIXEV_PMIXD_GROUP_ID_MAX + 64];
	bool yes = true;

	for (uint32_t i = 0; to && i < nlocal; i++) {
		uint32_t r = lay->map.ranks[lay->nodeid][i];

		if (r == rank || !is_member(e, r) ||
		    (leader_only && r != e->leader))
			continue;
		/* the macro names its argument more than once */
		PMIX_LOAD_PROCID(&to[k], lay->nspace, r);
		k++;
	}
	if (to && !k)
		goto out;
	range.size = k;
	PMIX_INFO_CREATE(info, 6);
	if (!to || !info) {
		inject_pmix_undelivered(w->in, w->counted_as, "out of memory");
		goto out;
	}
	PMIX_LOAD_PROCID(&source, lay->srv_nspace, lay->nodeid);
	PMIX_LOAD_PROCID(&gone, lay->nspace, rank);
	snprintf(text, sizeof(text), "%s %u of group %s ended",
		 code == PMIX_GROUP_LEADER_FAILED ? "the leader, rank"
						  : "member rank",
		 rank, e->id);
	PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_CUSTOM_RANGE, &range,
		       PMIX_DATA_ARRAY);
	PMIX_INFO_LOAD(&info[n++], PMIX_GROUP_ID, e->id, PMIX_STRING);
	PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_AFFECTED_PROC, &gone, PMIX_PROC);
	PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_TEXT_MESSAGE, text, PMIX_STRING);
	if (e->ctxid)
		PMIX_INFO_LOAD(&info[n++], PMIX_GROUP_CONTEXT_ID, &ctxid,
			       PMIX_SIZE);
	PMIXEV_DEBUG(1, "groups: %s: told to %u member(s) here", text, k);
	inject_pmix_event(w->in, w->counted_as, code, &source,
			  PMIX_RANGE_CUSTOM, info, 6, n);
out:
	free(to);
}

void group_watch_rank_end(void *ctx, uint32_t rank)
{
	struct group_watch *w = ctx;

	for (const struct entry *e = w->head; e; e = e->next) {
		bool led = e->leader != PMIXEV_PMIXD_NO_RANK;

		if (!is_member(e, rank))
			continue;
		if (led && rank == e->leader)
			tell(w, e, PMIX_GROUP_LEADER_FAILED, rank, false);
		else if (e->flags & PMIXEV_PMIXD_GROUP_NOTIFY_TERM)
			tell(w, e, PMIX_GROUP_MEMBER_FAILED, rank, led);
	}
}
