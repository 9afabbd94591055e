/*
 * base/layout_family.h - a step's layout as the other steps of its spawn
 * family get it (doc/spawn.md §4.1): the body of XSTEP LAYOUT
 * (pmixev_xstep.h), with only what is the whole step's (no node-local
 * field), the proc that spawned the step and the spawn's id.
 */
#ifndef PMIXEV_BASE_LAYOUT_FAMILY_H_
#define PMIXEV_BASE_LAYOUT_FAMILY_H_

#include "base/layout.h"
#include "pmixev_buf.h"

/* Append `lay`'s LAYOUT body to `b`. 0, or -1 (the codec refused it). */
int layout_family_pack(const struct layout *lay, struct pmixev_buf *b);

#endif /* PMIXEV_BASE_LAYOUT_FAMILY_H_ */
