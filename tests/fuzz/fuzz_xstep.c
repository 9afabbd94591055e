/*
 * fuzz_xstep.c - libFuzzer target for the cross-step frames
 * (common/pmixev_xstep.c, pmixev_xstep_ctl.c): what root reads from its
 * srun and sruns read from each other, all of it the job owner's bytes;
 * and the srun hub's family table (common/pmixev_hub_route.c) fed with
 * them.
 *
 * Input byte 0 picks what the rest is: an XSTEP payload (header, then
 * the inner body its header names), one of the control frames, or a
 * series of table operations { u8 op, u8 via, u8 len, len bytes of a
 * JOIN or LEAVE body }. Invariants: whatever reads packs back to the
 * same bytes; a header that reads is valid and its inner body is read
 * with the bounds root would give; the table stays sorted, bounded,
 * with one root at most, its own subtree closed under parents, and
 * routes every step it holds.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_hub_route.h"
#include "pmixev_xstep.h"
#include "pmixev_xstep_ctl.h"

#define MAX_DATA 4096
#define NTASKS	 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* `w` holds exactly `data`, else abort; releases `w`. */
static void same(struct pmixev_buf *w, int rc, const uint8_t *data, size_t len)
{
	if (rc < 0 || w->len != len || (len && memcmp(w->data, data, len)))
		abort();
	pmixev_buf_release(w);
}

/* The inner body at `b`'s cursor, packed back after `w`'s header. */
static void fuzz_inner(uint8_t inner, struct pmixev_buf *b,
		       struct pmixev_buf *w)
{
	union {
		struct pmixev_xstep_layout layout;
		struct pmixev_xstep_ready ready;
		struct pmixev_xstep_coll coll;
		struct pmixev_xstep_dmodex_req dreq;
		struct pmixev_xstep_dmodex_resp dresp;
		struct pmixev_xstep_pubsub ps;
		struct pmixev_xstep_pubsub_resp psr;
		struct pmixev_xstep_event ev;
	} *m = calloc(1, sizeof(*m));
	int rc = -2;

	if (!m)
		abort();
	switch (inner) {
	case PMIXEV_XSTEP_LAYOUT:
		if (pmixev_xstep_layout_unpack(b, 1u << 20, &m->layout) == 0) {
			rc = pmixev_xstep_layout_pack(w, &m->layout);
			pmixev_xstep_layout_release(&m->layout);
		}
		break;
	case PMIXEV_XSTEP_READY:
		if (pmixev_xstep_ready_unpack(b, &m->ready) == 0)
			rc = pmixev_xstep_ready_pack(w, &m->ready);
		break;
	case PMIXEV_XSTEP_COLL_PART:
	case PMIXEV_XSTEP_COLL_RESULT:
		if (pmixev_xstep_coll_unpack(b, MAX_DATA, &m->coll) == 0)
			rc = m->coll.ndata > MAX_DATA
				     ? -1
				     : pmixev_xstep_coll_pack(w, &m->coll);
		break;
	case PMIXEV_XSTEP_DMODEX_REQ:
		if (pmixev_xstep_dmodex_req_unpack(b, NTASKS, &m->dreq) == 0)
			rc = m->dreq.rank >= NTASKS
				     ? -1
				     : pmixev_xstep_dmodex_req_pack(w,
								    &m->dreq);
		break;
	case PMIXEV_XSTEP_DMODEX_RESP:
		if (pmixev_xstep_dmodex_resp_unpack(b, MAX_DATA, &m->dresp) ==
		    0)
			rc = pmixev_xstep_dmodex_resp_pack(w, &m->dresp);
		break;
	case PMIXEV_XSTEP_PUBSUB_REQ:
		if (pmixev_xstep_pubsub_unpack(b, MAX_DATA, &m->ps) == 0) {
			rc = pmixev_xstep_pubsub_pack(w, &m->ps);
			pmixev_xstep_pubsub_release(&m->ps);
		}
		break;
	case PMIXEV_XSTEP_PUBSUB_RESP:
		if (pmixev_xstep_pubsub_resp_unpack(b, MAX_DATA, &m->psr) ==
		    0) {
			rc = pmixev_xstep_pubsub_resp_pack(w, &m->psr);
			pmixev_xstep_pubsub_resp_release(&m->psr);
		}
		break;
	case PMIXEV_XSTEP_EVENT:
		if (pmixev_xstep_event_unpack(b, MAX_DATA, &m->ev) == 0)
			rc = pmixev_xstep_event_pack(w, &m->ev);
		break;
	case PMIXEV_XSTEP_LEFT: /* the header alone */
		if (b->pos == b->len)
			rc = 0;
		break;
	default:
		abort(); /* the header would not have read */
	}
	free(m);
	if (rc == -2) { /* refused: nothing to compare */
		pmixev_buf_release(w);
		return;
	}
	same(w, rc, b->data, b->len);
}

static void fuzz_xstep(const uint8_t *data, size_t len)
{
	struct pmixev_xstep_hdr h;
	struct pmixev_buf b, w;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_xstep_hdr_unpack(&b, &h) < 0)
		return;
	if (!pmixev_xstep_hdr_ok(&h) || b.pos != PMIXEV_XSTEP_HDR_LEN)
		abort();
	pmixev_buf_init(&w);
	if (pmixev_xstep_hdr_pack(&w, &h) < 0)
		abort();
	fuzz_inner(h.inner, &b, &w);
}

/* One control frame of kind `k`. */
static void fuzz_ctl(uint8_t k, const uint8_t *data, size_t len)
{
	struct pmixev_xstep_members ms;
	struct pmixev_hub_leave l;
	struct pmixev_hub_hello hello;
	struct pmixev_spawn_req req;
	struct pmixev_spawn_status st;
	struct pmixev_nspace_ack ack;
	struct pmixev_buf b, w;
	uint64_t id;
	uint32_t node;

	pmixev_buf_reader(&b, data, len);
	pmixev_buf_init(&w);
	switch (k % 9) {
	case 0:
		if (pmixev_hub_hello_unpack(&b, &hello) == 0)
			same(&w, pmixev_hub_hello_pack(&w, &hello), data, len);
		break;
	case 1:
	case 2:
		if ((k % 9 == 1 ? pmixev_hub_join_unpack(&b, &ms)
				: pmixev_family_unpack(&b, &ms)) < 0)
			break;
		if (k % 9 == 2 && !pmixev_xstep_family_root(&ms))
			abort();
		same(&w,
		     k % 9 == 1 ? pmixev_hub_join_pack(&w, &ms)
				: pmixev_family_pack(&w, &ms),
		     data, len);
		pmixev_xstep_members_release(&ms);
		break;
	case 3:
		if (pmixev_hub_leave_unpack(&b, &l) == 0) {
			same(&w, pmixev_hub_leave_pack(&w, &l), data, len);
			pmixev_hub_leave_release(&l);
		}
		break;
	case 4:
		if (pmixev_spawn_req_unpack(&b, MAX_DATA, &req) == 0)
			same(&w, pmixev_spawn_req_pack(&w, &req), data, len);
		break;
	case 5:
		if (pmixev_spawn_cancel_unpack(&b, &id) == 0)
			same(&w, pmixev_spawn_cancel_pack(&w, id), data, len);
		break;
	case 6:
		if (pmixev_spawn_status_unpack(&b, &st) == 0)
			same(&w, pmixev_spawn_status_pack(&w, &st), data, len);
		break;
	case 8:
		if (pmixev_nspace_ack_unpack(&b, &ack) == 0)
			same(&w, pmixev_nspace_ack_pack(&w, &ack), data, len);
		break;
	default:
		if (pmixev_root_is_unpack(&b, &node) == 0)
			same(&w, pmixev_root_is_pack(&w, node), data, len);
		break;
	}
	pmixev_buf_release(&w);
}

/* The table's invariants (see the file's comment). */
static void check_table(const struct pmixev_hub_route *rt)
{
	struct pmixev_xstep_members all, sub;
	uint32_t roots = 0;

	if (pmixev_hub_route_members(rt, false, &all) < 0)
		abort();
	if (pmixev_hub_route_members(rt, true, &sub) < 0)
		abort();
	if (all.n != pmixev_hub_route_count(rt) ||
	    all.n > PMIXEV_XSTEP_FAMILY_MAX || !pmixev_hub_join_ok(&all) ||
	    !pmixev_hub_join_ok(&sub) ||
	    pmixev_hub_route_next(rt, 7, 1) != PMIXEV_HUB_SELF)
		abort();
	for (uint32_t i = 0; i < all.n; i++) {
		roots += all.m[i].parent_job == PMIXEV_XSTEP_NONE;
		if (pmixev_hub_route_next(rt, all.m[i].job, all.m[i].step) ==
		    PMIXEV_HUB_NONE)
			abort();
	}
	/* Below this srun, every parent is in the subtree. */
	for (uint32_t i = 0; i < sub.n; i++)
		if (!(sub.m[i].job == 7 && sub.m[i].step == 1) &&
		    !pmixev_xstep_family_find(&sub, sub.m[i].parent_job,
					      sub.m[i].parent_step))
			abort();
	if (roots > 1)
		abort();
	pmixev_xstep_members_release(&all);
	pmixev_xstep_members_release(&sub);
}

/* Table operations: the srun of 7.1, spawned by 7.0, with links 0-3. */
static void fuzz_route(const uint8_t *data, size_t len)
{
	struct pmixev_hub_route *rt = pmixev_hub_route_create(7, 1, 7, 0);
	size_t at = 0;

	if (!rt)
		abort();
	while (len - at >= 3 && len - at - 3 >= data[at + 2]) {
		uint8_t op = data[at], n = data[at + 2];
		uint32_t via =
			data[at + 1] & 4 ? PMIXEV_HUB_PARENT : data[at + 1] & 3;
		struct pmixev_xstep_members ms;
		struct pmixev_hub_leave l;
		struct pmixev_buf b;

		pmixev_buf_reader(&b, data + at + 3, n);
		if (op % 3 == 0 && pmixev_hub_join_unpack(&b, &ms) == 0) {
			pmixev_hub_route_join(rt, via, &ms);
			pmixev_xstep_members_release(&ms);
		} else if (op % 3 == 1 &&
			   pmixev_hub_leave_unpack(&b, &l) == 0) {
			pmixev_hub_route_leave(rt, via, &l);
			pmixev_hub_leave_release(&l);
		} else if (op % 3 == 2) {
			uint32_t before = pmixev_hub_route_count(rt);

			if (pmixev_hub_route_drop(rt, via, &l) < 0 ||
			    !(l.n ? pmixev_hub_leave_ok(&l) : !l.ids) ||
			    pmixev_hub_route_count(rt) != before - l.n)
				abort();
			pmixev_hub_leave_release(&l);
		}
		check_table(rt);
		at += 3 + (size_t)n;
	}
	pmixev_hub_route_destroy(rt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] < 0x40)
		fuzz_xstep(data + 1, size - 1);
	else if (data[0] < 0xc0)
		fuzz_ctl((uint8_t)(data[0] - 0x40), data + 1, size - 1);
	else
		fuzz_route(data + 1, size - 1);
	return 0;
}
