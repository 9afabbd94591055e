/*
 * overlay/xstep.c - this stepd's XSTEP frames (see xstep.h). Agent thread.
 */
#include "config.h"

#include "overlay/xstep.h"

#include <stdlib.h>

#include "overlay/overlay.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"

struct xstep {
	struct step *s;
	struct {
		xstep_fn fn;
		void *ctx;
	} on[PMIXEV_XSTEP_INNER_MAX + 1];
	uint64_t dropped; /* frames nobody here serves */
};

static void on_frame(void *ctx, uint32_t src, const uint8_t *data, size_t len)
{
	struct xstep *x = ctx;
	struct pmixev_xstep_hdr h;
	struct pmixev_buf b;

	(void)src; /* the overlay takes XSTEP from srun's link only */
	pmixev_buf_reader(&b, data, len);
	if (pmixev_xstep_hdr_unpack(&b, &h) == 0 && x->on[h.inner].fn) {
		x->on[h.inner].fn(x->on[h.inner].ctx, &h, &b, data, len);
		return;
	}
	if (pmixev_log_worth(++x->dropped))
		PMIXEV_ERROR("step %s: dropping a frame of another step from "
			     "srun: %s (%llu dropped so far)",
			     x->s->lay.step.id,
			     len < PMIXEV_XSTEP_HDR_LEN ? "too short"
							: "not one served here",
			     (unsigned long long)x->dropped);
}

struct xstep *xstep_create(struct step *s)
{
	struct xstep *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->s = s;
	overlay_on(s->ov, PMIXEV_MSG_XSTEP, on_frame, x);
	return x;
}

void xstep_destroy(struct xstep *x)
{
	if (!x)
		return;
	if (x->dropped)
		PMIXEV_INFO("step %s: %llu frame(s) of other steps dropped",
			    x->s->lay.step.id, (unsigned long long)x->dropped);
	free(x);
}

int xstep_on(struct xstep *x, enum pmixev_xstep_inner inner, xstep_fn fn,
	     void *ctx)
{
	if (inner < 1 || inner > PMIXEV_XSTEP_INNER_MAX || x->on[inner].fn)
		return -1;
	x->on[inner].fn = fn;
	x->on[inner].ctx = ctx;
	return 0;
}

enum pmixev_result xstep_send(struct xstep *x, uint32_t dst_job,
			      uint32_t dst_step, uint32_t dst_node,
			      enum pmixev_xstep_inner inner,
			      const uint8_t *body, size_t nbody)
{
	const struct layout *lay = &x->s->lay;
	struct pmixev_xstep_hdr h = {.src_job = lay->step.job_id,
				     .src_step = lay->step.step_id,
				     .src_node = lay->nodeid,
				     .dst_job = dst_job,
				     .dst_step = dst_step,
				     .dst_node = dst_node,
				     .inner = (uint8_t)inner};
	enum pmixev_result rc = PMIXEV_OK;
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	if (pmixev_xstep_hdr_pack(&b, &h) < 0)
		rc = PMIXEV_ERR_BAD_REQUEST;
	pmixev_buf_put_raw(&b, body, nbody);
	if (rc == PMIXEV_OK && !pmixev_buf_ok(&b))
		rc = PMIXEV_ERR_NOMEM;
	if (rc == PMIXEV_OK &&
	    overlay_send(x->s->ov, PMIXEV_NODE_SRUN, PMIXEV_MSG_XSTEP, b.data,
			 b.len) < 0)
		rc = PMIXEV_ERR_UNREACH;
	pmixev_buf_release(&b);
	return rc;
}
