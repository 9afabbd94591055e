/*
 * wireup/fence_sig.c - names of collectives (see fence_sig.h). Agent thread.
 */
#include "config.h"

#include "wireup/fence_sig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* "0-3,5" from `n` sorted, distinct ranks. 0, or -1 if it does not fit. */
static int format_ranges(const uint32_t *ranks, size_t n, char *sig, size_t len)
{
	size_t off = 0;

	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
			j++;
		off += (size_t)snprintf(sig + off, off < len ? len - off : 0,
					"%s%u", i ? "," : "", ranks[i]);
		if (j > i)
			off += (size_t)snprintf(sig + off,
						off < len ? len - off : 0,
						"-%u", ranks[j]);
		if (off >= len)
			return -1;
		i = j + 1;
	}
	return 0;
}

int fence_sig_format(bool all, const uint32_t *ranks, size_t nranks, char *sig,
		     size_t len)
{
	uint32_t *sorted = NULL;
	size_t n = 0;
	int rc = -1;

	if (all) {
		if (snprintf(sig, len, "*") < (int)len)
			return 0;
		errno = EINVAL;
		return -1;
	}
	if (!(sorted = malloc((nranks ? nranks : 1) * sizeof(*sorted)))) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(sorted, ranks, nranks * sizeof(*sorted));
	qsort(sorted, nranks, sizeof(*sorted), cmp_u32);
	for (size_t i = 0; i < nranks; i++)
		if (!n || sorted[n - 1] != sorted[i])
			sorted[n++] = sorted[i];
	if (n && format_ranges(sorted, n, sig, len) == 0)
		rc = 0;
	else
		errno = EINVAL;
	free(sorted);
	return rc;
}

int fence_sig_format_group(bool all, const uint32_t *ranks, size_t nranks,
			   const char *grpid, char *sig, size_t len)
{
	size_t off;

	if (fence_sig_format(all, ranks, nranks, sig, len) < 0)
		return -1;
	off = strlen(sig);
	if (!*grpid ||
	    snprintf(sig + off, len - off, "#%s", grpid) >= (int)(len - off)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

const char *fence_sig_group_id(const char *sig)
{
	const char *hash = strchr(sig, '#');

	return hash ? hash + 1 : NULL;
}

/* The end of a signature's ranks: its NUL, a '#' and a group id, or the
 * '@' before another step's part. */
static bool ranks_end(const char *p)
{
	return *p == '\0' || *p == '@' || (*p == '#' && p[1] != '\0');
}

/* Write "job.step:" and the rank text of a part at `sig` + *off. */
static int format_part(uint32_t job, uint32_t step, bool all,
		       const uint32_t *ranks, size_t nranks, char *sig,
		       size_t len, size_t *off)
{
	int n;

	n = snprintf(sig + *off, len - *off, "%s%u.%u:", *off ? "@" : "", job,
		     step);
	if (n < 0 || (size_t)n >= len - *off) {
		errno = EINVAL;
		return -1;
	}
	*off += (size_t)n;
	if (fence_sig_format(all, ranks, nranks, sig + *off, len - *off) < 0)
		return -1;
	*off += strlen(sig + *off);
	return 0;
}

int fence_sig_format_parts(uint32_t job, uint32_t step, bool all,
			   const uint32_t *ranks, size_t nranks,
			   const struct pmixev_pmixd_part *parts,
			   uint32_t nparts, char *sig, size_t len)
{
	size_t off = 0;
	bool own_done = false;

	if (!nparts)
		return fence_sig_format(all, ranks, nranks, sig, len);
	for (uint32_t i = 0; i <= nparts; i++) {
		const struct pmixev_pmixd_part *p =
			i < nparts ? &parts[i] : NULL;

		if (!own_done &&
		    (!p || p->job > job || (p->job == job && p->step > step))) {
			if (format_part(job, step, all, ranks, nranks, sig, len,
					&off) < 0)
				return -1;
			own_done = true;
		}
		if (p && format_part(p->job, p->step, p->all, p->ranks,
				     p->nranks, sig, len, &off) < 0)
			return -1;
	}
	return 0;
}

/* "job.step:" at `p`: the ids, and the rank text after it in *rest. */
static bool part_head(const char *p, uint32_t *job, uint32_t *step,
		      const char **rest)
{
	unsigned long j, st;
	char *end;

	if (*p < '0' || *p > '9')
		return false;
	j = strtoul(p, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return false;
	st = strtoul(end + 1, &end, 10);
	if (*end != ':' || j > UINT32_MAX || st > UINT32_MAX)
		return false;
	*job = (uint32_t)j;
	*step = (uint32_t)st;
	*rest = end + 1;
	return true;
}

int fence_sig_steps(const char *sig, uint32_t *jobs, uint32_t *steps,
		    size_t max)
{
	const char *p = sig, *rest;
	size_t n = 0;
	uint32_t j, st;

	if (!part_head(sig, &j, &st, &rest))
		return 0;
	for (;;) {
		if (n == max || !part_head(p, &j, &st, &rest) ||
		    (n && (j < jobs[n - 1] ||
			   (j == jobs[n - 1] && st <= steps[n - 1]))))
			return -1;
		jobs[n] = j;
		steps[n++] = st;
		rest += strcspn(rest, "@");
		if (!*rest)
			return n >= 2 ? (int)n : -1;
		p = rest + 1;
	}
}

const char *fence_sig_part(const char *sig, uint32_t job, uint32_t step)
{
	const char *p = sig, *rest;
	uint32_t j, st;

	if (!part_head(sig, &j, &st, &rest))
		return sig;
	while (part_head(p, &j, &st, &rest)) {
		if (j == job && st == step)
			return rest;
		p = rest + strcspn(rest, "@");
		if (!*p++)
			break;
	}
	return NULL;
}

int fence_sig_nodes(const struct pmixev_taskmap *map, const char *sig,
		    bool *nodes)
{
	const char *p = sig;
	unsigned long a, b;
	char *end;

	if (*p == '*') {
		if (!ranks_end(p + 1))
			return -1;
		for (uint32_t i = 0; i < map->nnodes; i++)
			nodes[i] = map->count[i] > 0;
		return 0;
	}
	memset(nodes, 0, map->nnodes * sizeof(*nodes));
	for (;;) {
		if (*p < '0' || *p > '9')
			return -1;
		a = b = strtoul(p, &end, 10);
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return -1;
			b = strtoul(p, &end, 10);
		}
		if (b < a || b >= map->ntasks)
			return -1;
		for (unsigned long r = a; r <= b; r++)
			nodes[map->node_of[r]] = true;
		if (ranks_end(end))
			return 0;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
}

int fence_sig_ranks(const struct pmixev_taskmap *map, const char *sig,
		    bool *all, uint32_t **ranks, uint32_t *nranks)
{
	const char *p = sig;
	unsigned long a, b;
	uint32_t *r = NULL, n = 0;
	char *end;

	*all = false;
	*ranks = NULL;
	*nranks = 0;
	if (*p == '*') {
		*all = true;
		return ranks_end(p + 1) ? 0 : -1;
	}
	if (!(r = malloc((map->ntasks ? map->ntasks : 1) * sizeof(*r))))
		return -1;
	for (;;) {
		if (*p < '0' || *p > '9')
			goto fail;
		a = b = strtoul(p, &end, 10);
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				goto fail;
			b = strtoul(p, &end, 10);
		}
		/* strictly increasing, within the step */
		if (b < a || b >= map->ntasks || (n && a <= r[n - 1]))
			goto fail;
		for (unsigned long k = a; k <= b; k++)
			r[n++] = (uint32_t)k;
		if (ranks_end(end))
			break;
		if (*end != ',')
			goto fail;
		p = end + 1;
	}
	*ranks = r;
	*nranks = n;
	return 0;
fail:
	free(r);
	return -1;
}

struct fence_sig *fence_sig_find(const struct fence_sigs *l,
				 enum pmixev_coll_kind kind, const char *sig)
{
	for (struct fence_sig *ss = l->head; ss; ss = ss->next)
		if (ss->kind == kind && strcmp(ss->sig, sig) == 0)
			return ss;
	return NULL;
}

static void unlink_free(struct fence_sigs *l, struct fence_sig *ss)
{
	struct fence_sig **pp = &l->head;

	while (*pp != ss)
		pp = &(*pp)->next;
	*pp = ss->next;
	l->n--;
	free(ss);
}

/* Make room for one more name: forget the oldest not in flight. */
static int make_room(struct fence_sigs *l)
{
	struct fence_sig *old = NULL;

	if (l->n < l->max)
		return 0;
	for (struct fence_sig *ss = l->head; ss; ss = ss->next)
		if (!ss->live)
			old = ss;
	if (!old) {
		errno = ENOSPC;
		return -1;
	}
	unlink_free(l, old);
	return 0;
}

struct fence_sig *fence_sig_get(struct fence_sigs *l,
				enum pmixev_coll_kind kind, const char *sig)
{
	struct fence_sig *ss = fence_sig_find(l, kind, sig);

	if (ss)
		return ss;
	if (make_room(l) < 0)
		return NULL;
	if (!(ss = calloc(1, sizeof(*ss)))) {
		errno = ENOMEM;
		return NULL;
	}
	ss->kind = kind;
	snprintf(ss->sig, sizeof(ss->sig), "%s", sig);
	ss->listed = true;
	ss->next = l->head;
	l->head = ss;
	l->n++;
	return ss;
}

struct fence_sig *fence_sig_get_or(struct fence_sigs *l,
				   enum pmixev_coll_kind kind, const char *sig,
				   struct fence_sig *standin)
{
	struct fence_sig *ss = fence_sig_get(l, kind, sig);

	if (ss || errno != ENOSPC)
		return ss;
	*standin = (struct fence_sig){.kind = kind};
	snprintf(standin->sig, sizeof(standin->sig), "%s", sig);
	return standin;
}

bool fence_sig_over(const struct fence_sigs *l, const struct fence_sig *ss,
		    bool fresh)
{
	return !ss->listed || (fresh && !fence_sig_room(l));
}

bool fence_sig_room(const struct fence_sigs *l)
{
	return l->live < l->max;
}

void fence_sig_start(struct fence_sigs *l, struct fence_sig *ss)
{
	ss->live++;
	l->live++;
}

void fence_sig_end(struct fence_sigs *l, struct fence_sig *ss, uint64_t seq,
		   enum pmixev_result result)
{
	ss->live--;
	l->live--;
	if (seq > ss->done)
		ss->done = seq;
	ss->last = result;
	if (ss->listed && !ss->live && ss->last == PMIXEV_OK &&
	    ss->next_local <= ss->done)
		unlink_free(l, ss);
}

void fence_sig_free(struct fence_sigs *l)
{
	while (l->head) {
		struct fence_sig *next = l->head->next;

		free(l->head);
		l->head = next;
	}
	l->n = l->live = 0;
}

const char *fence_kind_name(enum pmixev_coll_kind kind)
{
	switch (kind) {
	case PMIXEV_COLL_FENCE:
		return "fence";
	case PMIXEV_COLL_CONNECT:
		return "connect";
	case PMIXEV_COLL_GROUP_CONSTRUCT:
		return "group construct";
	case PMIXEV_COLL_GROUP_DESTRUCT:
		return "group destruct";
	default:
		return "disconnect";
	}
}

bool fence_sig_group_has(const struct pmixev_taskmap *map, const char *sig,
			 const char *grpid, uint32_t rank)
{
	const char *id = fence_sig_group_id(sig);
	uint32_t *ranks = NULL, n = 0;
	bool all, in = false;

	if (!id || strcmp(id, grpid) ||
	    fence_sig_ranks(map, sig, &all, &ranks, &n) < 0)
		return false;
	in = all && rank < map->ntasks;
	for (uint32_t i = 0; !in && i < n && ranks[i] <= rank; i++)
		in = ranks[i] == rank;
	free(ranks);
	return in;
}
