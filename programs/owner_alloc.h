/*
 * The owner helper's allocations: PMIx_Allocation_request's NEW (a new job
 * of the owner, slurm_allocate_resources without response ports, so no
 * InactiveLimit and no message to a port nobody listens on) and RELEASE
 * (the owner's job shrunk: slurm_update_job with the nodes it keeps).
 * slurmctld applies the owner's rights to both.
 */
#ifndef PMIXEV_OWNER_ALLOC_H_
#define PMIXEV_OWNER_ALLOC_H_

#include <stdint.h>

#include "pmixev_helper_msg.h"

/* A new job for `a`: its id into `*job` (pending or running), or Slurm's
 * error and text into `r`. */
void owner_alloc_new(const struct pmixev_owner_alloc *a, uint32_t *job,
		     struct pmixev_control_result *r);

/* Job `job_id` gives back what `a` says (pmixev_helper_msg.h); on success
 * r->reason names the nodes released. */
void owner_alloc_shrink(uint32_t job_id, const struct pmixev_owner_alloc *a,
			struct pmixev_control_result *r);

#endif /* PMIXEV_OWNER_ALLOC_H_ */
