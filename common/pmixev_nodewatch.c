/*
 * pmixev_nodewatch.c - node-offline events from successive node states.
 */
#include "config.h"

#include "pmixev_nodewatch.h"

#include <stdio.h>
#include <string.h>

static const char *const names[] = {
	[PMIXEV_NODE_UP] = "up",
	[PMIXEV_NODE_DRAIN] = "drain",
	[PMIXEV_NODE_FAIL] = "fail",
	[PMIXEV_NODE_DOWN] = "down",
};

static const char *const phrases[] = {
	[PMIXEV_NODE_UP] = "is back in service",
	[PMIXEV_NODE_DRAIN] = "is drained (no new work)",
	[PMIXEV_NODE_FAIL] = "is expected to fail (no new work)",
	[PMIXEV_NODE_DOWN] = "is down",
};

const char *pmixev_node_avail_name(unsigned avail)
{
	return avail <= PMIXEV_NODE_AVAIL_MAX ? names[avail] : "?";
}

void pmixev_nodewatch_init(struct pmixev_nodewatch *w)
{
	memset(w, 0, sizeof(*w));
}

static const struct pmixev_node_state *find(const struct pmixev_node_state *set,
					    size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(set[i].name, name))
			return &set[i];
	return NULL;
}

/* Out of service in `set`: entries with an unknown state do not count. */
static bool is_out(const struct pmixev_node_state *n)
{
	return n->avail != PMIXEV_NODE_UP && n->avail <= PMIXEV_NODE_AVAIL_MAX;
}

static const struct pmixev_node_state *
find_out(const struct pmixev_node_state *set, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (is_out(&set[i]) && !strcmp(set[i].name, name))
			return &set[i];
	return NULL;
}

static void describe(struct pmixev_nodeev *e,
		     const struct pmixev_node_state *node)
{
	e->node = *node;
	if (node->avail == PMIXEV_NODE_UP || !node->reason[0])
		snprintf(e->text, sizeof(e->text), "node %s %s", node->name,
			 phrases[node->avail]);
	else
		snprintf(e->text, sizeof(e->text), "node %s %s: %s", node->name,
			 phrases[node->avail], node->reason);
}

size_t pmixev_nodewatch_update(struct pmixev_nodewatch *w,
			       const struct pmixev_nodes_state *s,
			       struct pmixev_nodeev ev[PMIXEV_NODEEV_MAX])
{
	size_t n = 0, count = s->count;

	if (s->rc)
		return 0;
	if (count > PMIXEV_OWNER_NODES_MAX)
		count = PMIXEV_OWNER_NODES_MAX;
	for (size_t i = 0; i < count; i++) {
		const struct pmixev_node_state *now = &s->node[i];
		const struct pmixev_node_state *was =
			find(w->out, w->n, now->name);

		if (!is_out(now) || find_out(s->node, i, now->name))
			continue;
		if (!was || was->avail != now->avail ||
		    strcmp(was->reason, now->reason))
			describe(&ev[n++], now);
	}
	for (size_t i = 0; i < w->n; i++)
		if (!find_out(s->node, count, w->out[i].name)) {
			struct pmixev_node_state back = w->out[i];

			back.avail = PMIXEV_NODE_UP;
			back.reason[0] = '\0';
			describe(&ev[n++], &back);
		}
	w->n = 0;
	for (size_t i = 0; i < count; i++)
		if (is_out(&s->node[i]) && !find(w->out, w->n, s->node[i].name))
			w->out[w->n++] = s->node[i];
	return n;
}
