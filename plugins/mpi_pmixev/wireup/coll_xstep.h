/*
 * wireup/coll_xstep.h - collectives across the steps of a spawn family
 * (doc/spawn.md §5.1): connect, disconnect and fence whose signature
 * names several steps (wireup/fence_sig.h). Each step gathers its own
 * part over its tree as usual; at its tree root the kind's at_root hands
 * it here. The coordinator is the part with the lowest (job, step): the
 * other steps' roots send it their part (XSTEP COLL_PART, through srun)
 * and wait; once it has its own and every other part it sends each of
 * them COLL_RESULT, and every root delivers its own step's data down its
 * own tree. The steps' data is not joined: OpenPMIx files a fence's data
 * under the namespaces with local processes only, so another step's would
 * be taken for this step's ranks; it comes by direct modex. A failure at
 * any root goes the same ways at once; every wait is bounded by the
 * collective's deadline at each root (the engine's). Agent thread.
 */
#ifndef PMIXEV_WIREUP_COLL_XSTEP_H_
#define PMIXEV_WIREUP_COLL_XSTEP_H_

#include <stdbool.h>

#include "base/step.h"
#include "pmixev_buf.h"
#include "pmixev_result.h"
#include "wireup/coll.h"

struct coll_xstep;

/*
 * Serve step `s`'s COLL_PART and COLL_RESULT frames (s->xstep) for its
 * collectives (s->coll); stashed parts are bounded by PMIxevFenceMax
 * collectives and PMIxevOverlayMax bytes. NULL when out of memory.
 */
struct coll_xstep *coll_xstep_create(struct step *s);
void coll_xstep_destroy(struct coll_xstep *x);

/* Does `sig` name other steps than this one? */
bool coll_xstep_is(const char *sig);

/*
 * A kind's at_root for cross-step signatures: `data` holds this step's
 * part. COLL_LATER (the answer comes by coll_root_finish), PMIXEV_OK
 * (every other part was in: `data` goes down), or an error.
 */
enum pmixev_result coll_xstep_at_root(struct coll_xstep *x,
				      const struct coll_id *id,
				      struct pmixev_buf *data);

/* A kind's root_failed for cross-step signatures: tell the other steps. */
void coll_xstep_root_failed(struct coll_xstep *x, const struct coll_id *id,
			    enum pmixev_result result);

#endif /* PMIXEV_WIREUP_COLL_XSTEP_H_ */
