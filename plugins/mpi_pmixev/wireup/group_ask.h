/*
 * wireup/group_ask.h - the group queries' way to the registry of live
 * groups (wireup/group_root.h) on node 0: a node asks with GROUPS_REQ over
 * the overlay, routed as publish/lookup requests are, and node 0 answers
 * with GROUPS_RESP, the list (common/pmixev_group_list.h) its validating
 * unpack checked. Node 0 answers its own requests directly. A request
 * fails with PMIXEV_ERR_UNREACH when node 0 is or gets lost, and with
 * PMIXEV_ERR_TIMEOUT after its timeout. Agent thread.
 */
#ifndef PMIXEV_WIREUP_GROUP_ASK_H_
#define PMIXEV_WIREUP_GROUP_ASK_H_

#include "base/step.h"
#include "pmixev_group_list.h"

struct group_ask;

/* The answer: *l (only with PMIXEV_OK) is the callee's to keep or
 * release, and empty after the call if kept. */
typedef void (*group_ask_fn)(enum pmixev_result result,
			     struct pmixev_group_list *l, void *arg);

/* Serve and send requests on `s->ov`, answered from `s->group_root` on
 * node 0. Before the agent runs. NULL: out of memory. */
struct group_ask *group_ask_create(struct step *s);

/* Ask node 0 for the step's live groups within `timeout_sec` (0: the
 * step's PMIxevTimeout). `done` runs exactly once, maybe before this
 * returns. */
void group_ask(struct group_ask *ga, unsigned timeout_sec, group_ask_fn done,
	       void *arg);

/* Free everything without calling any `done`. NULL-safe. */
void group_ask_destroy(struct group_ask *ga);

#endif /* PMIXEV_WIREUP_GROUP_ASK_H_ */
