/*
 * pmixev_nodewatch.h - which of the job's nodes Slurm took out of service
 * since the last look: the node-offline events pmixev announces.
 *
 * Fed with each answer to PMIXEV_OWNER_NODE_STATE (the job's nodes that
 * are drained, failing or down, with the reason), it says which nodes are
 * newly out of service or changed state or reason (one event each) and
 * which came back (logged only). The first look announces every node
 * already out of service. Pure code, unit-tested.
 */
#ifndef PMIXEV_NODEWATCH_H_
#define PMIXEV_NODEWATCH_H_

#include <stdbool.h>
#include <stddef.h>

#include "pmixev_helper_msg.h"

struct pmixev_nodeev {
	struct pmixev_node_state node; /* avail UP: it is back in service */
	char text[PMIXEV_OWNER_TEXT + PMIXEV_OWNER_NAME + 48];
};

/* Most changes one look can give: every node out, every node back. */
#define PMIXEV_NODEEV_MAX (2 * PMIXEV_OWNER_NODES_MAX)

struct pmixev_nodewatch {
	size_t n;
	struct pmixev_node_state out[PMIXEV_OWNER_NODES_MAX];
};

void pmixev_nodewatch_init(struct pmixev_nodewatch *w);

/* The changes answer `s` (rc 0) gives; fills ev[PMIXEV_NODEEV_MAX]. */
size_t pmixev_nodewatch_update(struct pmixev_nodewatch *w,
			       const struct pmixev_nodes_state *s,
			       struct pmixev_nodeev ev[PMIXEV_NODEEV_MAX]);

/* "up", "drain", "fail", "down" (the slurm.pmixev.node.state values). */
const char *pmixev_node_avail_name(unsigned avail);

#endif /* PMIXEV_NODEWATCH_H_ */
