/*
 * overlay/xstep.h - this stepd's XSTEP frames (doc/spawn.md §6.2): the
 * spawn family's traffic, to and from the step's srun, which routes it
 * to the other steps. Incoming frames are dispatched by inner type to
 * the feature that serves it (after their header's check); each feature
 * checks the body with its codec and the source as it needs. Agent
 * thread.
 */
#ifndef PMIXEV_OVERLAY_XSTEP_H_
#define PMIXEV_OVERLAY_XSTEP_H_

#include <stddef.h>
#include <stdint.h>

#include "base/step.h"
#include "pmixev_buf.h"
#include "pmixev_xstep.h"

struct xstep;

/* An incoming frame: its header, `body` reading the rest, and the whole
 * payload (header included, valid during the call). */
typedef void (*xstep_fn)(void *ctx, const struct pmixev_xstep_hdr *h,
			 struct pmixev_buf *body, const uint8_t *frame,
			 size_t len);

/* Serves step `s`'s XSTEP frames from its srun. NULL when out of memory. */
struct xstep *xstep_create(struct step *s);
void xstep_destroy(struct xstep *x);

/* `inner`'s frames go to `fn` (one per type, before the agent runs). */
int xstep_on(struct xstep *x, enum pmixev_xstep_inner inner, xstep_fn fn,
	     void *ctx);

/*
 * Send `body` as an `inner` frame from this node to node `dst_node`
 * (a node id, or PMIXEV_XSTEP_ROOT) of step (dst_job, dst_step), through
 * srun. PMIXEV_OK, PMIXEV_ERR_BAD_REQUEST (the header is not valid for
 * `inner`) or PMIXEV_ERR_UNREACH (srun is gone).
 */
enum pmixev_result xstep_send(struct xstep *x, uint32_t dst_job,
			      uint32_t dst_step, uint32_t dst_node,
			      enum pmixev_xstep_inner inner,
			      const uint8_t *body, size_t nbody);

#endif /* PMIXEV_OVERLAY_XSTEP_H_ */
