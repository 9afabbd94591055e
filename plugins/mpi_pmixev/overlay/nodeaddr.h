/*
 * overlay/nodeaddr.h - the addresses of a step's nodes as Slurm knows
 * them (slurm.conf NodeAddr, as slurmd and srun resolve it), for the doors
 * and the check of srun's table (addrs.h). Resolves names: call it before
 * the agent thread starts (srun's prelaunch, slurmstepd's prefork), never
 * on it.
 */
#ifndef PMIXEV_OVERLAY_NODEADDR_H_
#define PMIXEV_OVERLAY_NODEADDR_H_

#include <stddef.h>
#include <stdint.h>

#include "overlay/addrs.h"

/* Node i is `names[i]` (NodeName). NULL with the reason in `err`. */
struct addrs *nodeaddr_resolve(char *const *names, uint32_t n, char *err,
			       size_t errlen);

/* Same for a Slurm node list ("n[1-3]"), in its order. */
struct addrs *nodeaddr_resolve_list(const char *list, char *err, size_t errlen);

#endif /* PMIXEV_OVERLAY_NODEADDR_H_ */
