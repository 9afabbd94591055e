/*
 * pmixev_hub_route.h - an srun's table of its spawn family (doc/spawn.md
 * §3.2): every step of the family it heard of, the step that spawned
 * it, and the next hop toward it: this srun itself (its own step), its
 * parent srun (the inherited socketpair), or one of its child sruns (a
 * socketpair it made, numbered by the caller).
 *
 * Steps join and leave in batches, as HUB_JOIN and HUB_LEAVE carry them
 * (pmixev_xstep_ctl.h), each batch whole or not at all. A child link may
 * only announce steps of its own subtree: each step's parent is this
 * srun's step or a step already (or in the same batch) reached through
 * that link. The parent link may announce any other step, and at most
 * one step of the family may lack a parent. Steps leave only through the
 * link that announced them, together with every step they spawned.
 * The table answers routing (next hop for a step), FAMILY (the whole
 * table) and the JOIN a child srun sends up (its own subtree).
 * Pure data structure: no sockets, no threads; unit-tested.
 */
#ifndef PMIXEV_HUB_ROUTE_H_
#define PMIXEV_HUB_ROUTE_H_

#include <stdint.h>

#include "pmixev_xstep_ctl.h"

#define PMIXEV_HUB_NONE	     0xffffffffu /* no route */
#define PMIXEV_HUB_SELF	     0xfffffffeu /* this srun's step */
#define PMIXEV_HUB_PARENT    0xfffffffdu /* the parent srun */
#define PMIXEV_HUB_LINKS_MAX 4096	 /* child links: 0..MAX-1 */

struct pmixev_hub_route;

/*
 * The table of the srun of step (job, step), spawned by step
 * (parent_job, parent_step), or NONE, NONE when it has no parent srun.
 * NULL with errno EINVAL or ENOMEM.
 */
struct pmixev_hub_route *pmixev_hub_route_create(uint32_t job, uint32_t step,
						 uint32_t parent_job,
						 uint32_t parent_step);
void pmixev_hub_route_destroy(struct pmixev_hub_route *rt);

/*
 * Steps `m` (a valid JOIN) announced by link `via` (PARENT or a child
 * link). 0, or -1 with errno: EINVAL (a link this srun has not, or a
 * batch the rules above refuse), EEXIST (a step already known), ENOSPC
 * (the family would pass PMIXEV_XSTEP_FAMILY_MAX), ENOMEM.
 */
int pmixev_hub_route_join(struct pmixev_hub_route *rt, uint32_t via,
			  const struct pmixev_xstep_members *m);

/*
 * Steps `l` (a valid LEAVE) left, said by link `via`. 0, or -1 with
 * errno: ENOENT (a step not known through `via`), EINVAL (a step it
 * spawned stays).
 */
int pmixev_hub_route_leave(struct pmixev_hub_route *rt, uint32_t via,
			   const struct pmixev_hub_leave *l);

/*
 * Link `via` closed (EOF): every step known through it leaves. Their ids
 * in *gone (n = 0 when none; the caller releases), for the HUB_LEAVE to
 * pass on. 0, or -1 with errno ENOMEM (the table is then unchanged).
 */
int pmixev_hub_route_drop(struct pmixev_hub_route *rt, uint32_t via,
			  struct pmixev_hub_leave *gone);

/* The next hop toward step (job, step): SELF, PARENT, a child link, or
 * NONE for a step not in the table. */
uint32_t pmixev_hub_route_next(const struct pmixev_hub_route *rt, uint32_t job,
			       uint32_t step);

/* Steps in the table, this srun's included. */
uint32_t pmixev_hub_route_count(const struct pmixev_hub_route *rt);

/*
 * A copy of the table (*out, sorted; the caller releases): with `subtree`
 * only this srun's step and those reached through child links (the JOIN
 * to send up), else all of them (FAMILY, once the root step is known:
 * pmixev_xstep_family_ok). 0, or -1 with errno ENOMEM.
 */
int pmixev_hub_route_members(const struct pmixev_hub_route *rt, bool subtree,
			     struct pmixev_xstep_members *out);

#endif /* PMIXEV_HUB_ROUTE_H_ */
