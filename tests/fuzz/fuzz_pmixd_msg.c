/*
 * fuzz_pmixd_msg.c - libFuzzer target for the pmixd channel's codec
 * (common/pmixev_pmixd_*.c): what root decodes from the owner process.
 *
 * The input is decoded as a pmixd frame header from either side and, as a
 * whole and from byte 12 on (a frame's body), by every unpack function,
 * with the bounds of a 2-node, 8-task step seen from node 0. Invariants:
 * a header that decodes re-encodes to the same 12 bytes, a body that
 * unpacks packs back to the same bytes (the encoding is canonical), a
 * GROUP_DONE fits a request exactly when its ranks are the request's,
 * and a SPAWN that unpacks packs to the size pmixev_pmixd_spawn_size
 * says.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_pmixd_coll.h"
#include "pmixev_pmixd_ctl.h"
#include "pmixev_pmixd_group.h"
#include "pmixev_pmixd_msg.h"
#include "pmixev_pmixd_spawn.h"
#include "pmixev_pmixd_start.h"

#define FUZZ_MAX_LEN 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pmixev_taskmap map;
static struct pmixev_pmixd_bounds lim = {
	.map = &map,
	.job = 7,
	.step = 0,
	.nspace = "slurm.pmixev.7.0",
	.srv_nspace = "slurm.pmixev.7.0.srv",
	.event_max = 1024,
	.publish_max = 1024,
};

/* The pack into `w` (result `rc`) reproduced `data` exactly. */
static void assert_repacked(struct pmixev_buf *w, int rc, const uint8_t *data,
			    size_t len)
{
	if (rc < 0 || w->len != len || memcmp(w->data, data, len) != 0)
		abort();
	pmixev_buf_release(w);
}

/* Unpack `data` with `unpack` into `m`; on success, repack with `pack`. */
#define ROUND(unpack_call, pack_call, release)                                 \
	do {                                                                   \
		pmixev_buf_reader(&r, data, len);                              \
		if ((unpack_call) == 0) {                                      \
			pmixev_buf_init(&w);                                   \
			assert_repacked(&w, (pack_call), data, len);           \
			release;                                               \
		}                                                              \
	} while (0)

static void fuzz_header(const uint8_t *data, size_t size)
{
	uint8_t again[PMIXEV_PMIXD_HDR_LEN], type;
	const char *why = NULL;
	uint32_t len;
	int rc;

	for (int side = 0; side < 2; side++) {
		rc = pmixev_pmixd_hdr_decode(data, size, FUZZ_MAX_LEN,
					     (enum pmixev_pmixd_side)side,
					     &type, &len, &why);
		if ((rc < 0 && !why) ||
		    (rc == 0 && size >= PMIXEV_PMIXD_HDR_LEN))
			abort();
		if (rc == 1) {
			pmixev_pmixd_hdr_encode(type, len, again);
			if (memcmp(again, data, sizeof(again)) != 0 ||
			    len > FUZZ_MAX_LEN)
				abort();
			pmixev_pmixd_type_name(type);
		}
	}
}

static void fuzz_small(const uint8_t *data, size_t len)
{
	struct pmixev_pmixd_abort ab;
	struct pmixev_pmixd_done dn;
	struct pmixev_pmixd_client_state cs;
	struct pmixev_pmixd_alert_msg al;
	struct pmixev_pmixd_ckpt_done ck;
	struct pmixev_pmixd_log_line ll;
	struct pmixev_notify_msg nt;
	static struct pmixev_pmixd_inject in;
	struct pmixev_pmixd_status st;
	struct pmixev_pmixd_query q;
	struct pmixev_pmixd_jobctl jc;
	struct pmixev_pmixd_group_abort ga;
	static struct pmixev_pmixd_spawn_done sd;
	static struct pmixev_pmixd_nspace_add na;
	struct pmixev_pmixd_nspace_added nd;
	static struct pmixev_pmixd_alloc ac;
	static struct pmixev_pmixd_alloc_done ad;
	char ns[PMIXEV_NSPACE_MAX];
	struct pmixev_buf r, w;
	uint64_t seq;

	ROUND(pmixev_pmixd_abort_unpack(&r, &lim, &ab),
	      pmixev_pmixd_abort_pack(&w, &ab), (void)0);
	ROUND(pmixev_pmixd_done_unpack(&r, &dn),
	      pmixev_pmixd_done_pack(&w, &dn), (void)0);
	ROUND(pmixev_pmixd_client_state_unpack(&r, &lim, &cs),
	      pmixev_pmixd_client_state_pack(&w, &cs), (void)0);
	ROUND(pmixev_pmixd_alert_unpack(&r, &lim, &al),
	      pmixev_pmixd_alert_pack(&w, &al), (void)0);
	ROUND(pmixev_pmixd_ckpt_done_unpack(&r, &lim, &ck),
	      pmixev_pmixd_ckpt_done_pack(&w, &ck), (void)0);
	ROUND(pmixev_pmixd_log_line_unpack(&r, &ll),
	      pmixev_pmixd_log_line_pack(&w, &ll), (void)0);
	ROUND(pmixev_pmixd_seq_unpack(&r, &seq), pmixev_pmixd_seq_pack(&w, seq),
	      (void)0);
	ROUND(pmixev_pmixd_notify_unpack(&r, &lim, &nt),
	      pmixev_pmixd_notify_pack(&w, &nt), (void)0);
	ROUND(pmixev_pmixd_inject_unpack(&r, &in),
	      pmixev_pmixd_inject_pack(&w, &in), (void)0);
	ROUND(pmixev_pmixd_status_unpack(&r, &st),
	      pmixev_pmixd_status_pack(&w, &st), (void)0);
	ROUND(pmixev_pmixd_query_unpack(&r, &q),
	      pmixev_pmixd_query_pack(&w, &q), (void)0);
	ROUND(pmixev_pmixd_jobctl_unpack(&r, &lim, &jc),
	      pmixev_pmixd_jobctl_pack(&w, &jc), (void)0);
	ROUND(pmixev_pmixd_group_abort_unpack(&r, &lim, &ga),
	      pmixev_pmixd_group_abort_pack(&w, &ga), (void)0);
	ROUND(pmixev_pmixd_spawn_done_unpack(&r, &sd),
	      pmixev_pmixd_spawn_done_pack(&w, &sd), (void)0);
	ROUND(pmixev_pmixd_nspace_add_unpack(&r, &na),
	      pmixev_pmixd_nspace_add_pack(&w, &na), (void)0);
	ROUND(pmixev_pmixd_nspace_del_unpack(&r, ns),
	      pmixev_pmixd_nspace_del_pack(&w, ns), (void)0);
	ROUND(pmixev_pmixd_nspace_added_unpack(&r, &nd),
	      pmixev_pmixd_nspace_added_pack(&w, &nd), (void)0);
	ROUND(pmixev_pmixd_alloc_unpack(&r, &lim, &ac),
	      pmixev_pmixd_alloc_pack(&w, &ac), (void)0);
	ROUND(pmixev_pmixd_alloc_done_unpack(&r, &ad),
	      pmixev_pmixd_alloc_done_pack(&w, &ad), (void)0);
}

/* A SPAWN that decoded: its size is what it packs to, its procs add up. */
static void fuzz_spawn_sizes(const struct pmixev_pmixd_spawn *m, size_t len)
{
	uint64_t procs = 0;

	for (uint32_t i = 0; i < m->napps; i++)
		procs += m->apps[i].maxprocs;
	if (pmixev_pmixd_spawn_size(m) != len || !procs ||
	    procs > PMIXEV_PMIXD_SPAWN_PROCS ||
	    procs != pmixev_pmixd_spawn_nprocs(m))
		abort();
}

static bool in_135(uint32_t rank)
{
	return rank == 1 || rank == 3 || rank == 5;
}

/*
 * A GROUP_DONE that decoded, against a construct and a destruct of ranks
 * 1, 3 and 5: it fits what a plain scan says it fits.
 */
static void fuzz_fits(const struct pmixev_pmixd_group_done *d)
{
	static uint32_t ranks[3] = {1, 3, 5};
	struct pmixev_pmixd_group req = {.nranks = 3, .ranks = ranks};
	bool members = d->leader == PMIXEV_PMIXD_NO_RANK || in_135(d->leader);

	for (uint32_t i = 0; i < d->nfailed; i++)
		members = members && in_135(d->failed[i]);
	req.op = PMIXEV_PMIXD_GROUP_CONSTRUCT;
	if (pmixev_pmixd_group_done_fits(d, &req) != members)
		abort();
	req.op = PMIXEV_PMIXD_GROUP_DESTRUCT;
	if (pmixev_pmixd_group_done_fits(d, &req) !=
	    (members && !d->ctxid && !d->nendpt))
		abort();
}

static void fuzz_owning(const uint8_t *data, size_t len)
{
	static struct pmixev_pmixd_start sta;
	static struct pmixev_pmixd_query_done qd;
	static struct pmixev_pmixd_log lg;
	struct pmixev_pmixd_ready rd;
	struct pmixev_pmixd_fence fe;
	struct pmixev_pmixd_data da;
	struct pmixev_pmixd_dmodex dm;
	struct pmixev_pmixd_serve sv;
	struct pmixev_pmixd_pubsub ps;
	struct pmixev_pmixd_pubsub_done pd;
	static struct pmixev_pmixd_group gr;
	struct pmixev_pmixd_group_done gd;
	struct pmixev_pmixd_spawn sp;
	struct pmixev_pmixd_spawn_app *apps;
	uint32_t napps;
	struct pmixev_buf r, w;

	ROUND(pmixev_pmixd_start_unpack(&r, &sta),
	      pmixev_pmixd_start_pack(&w, &sta),
	      pmixev_pmixd_start_release(&sta));
	ROUND(pmixev_pmixd_ready_unpack(&r, &lim, &rd),
	      pmixev_pmixd_ready_pack(&w, &rd),
	      pmixev_pmixd_ready_release(&rd));
	ROUND(pmixev_pmixd_fence_unpack(&r, &lim, &fe),
	      pmixev_pmixd_fence_pack(&w, &fe),
	      pmixev_pmixd_fence_release(&fe));
	ROUND(pmixev_pmixd_data_unpack(&r, &da),
	      pmixev_pmixd_data_pack(&w, &da), (void)0);
	ROUND(pmixev_pmixd_dmodex_unpack(&r, &lim, &dm),
	      pmixev_pmixd_dmodex_pack(&w, &dm), (void)0);
	ROUND(pmixev_pmixd_serve_unpack(&r, &sv),
	      pmixev_pmixd_serve_pack(&w, &sv), (void)0);
	ROUND(pmixev_pmixd_pubsub_unpack(&r, &lim, &ps),
	      pmixev_pmixd_pubsub_pack(&w, &ps),
	      pmixev_pmixd_entries_release(&ps.e, &ps.n));
	ROUND(pmixev_pmixd_pubsub_done_unpack(&r, &pd),
	      pmixev_pmixd_pubsub_done_pack(&w, &pd),
	      pmixev_pmixd_entries_release(&pd.e, &pd.n));
	ROUND(pmixev_pmixd_query_done_unpack(&r, &qd),
	      pmixev_pmixd_query_done_pack(&w, &qd),
	      pmixev_pmixd_query_done_release(&qd));
	ROUND(pmixev_pmixd_log_unpack(&r, &lim, &lg),
	      pmixev_pmixd_log_pack(&w, &lg), pmixev_pmixd_log_release(&lg));
	ROUND(pmixev_pmixd_group_unpack(&r, &lim, &gr),
	      pmixev_pmixd_group_pack(&w, &gr),
	      pmixev_pmixd_group_release(&gr));
	ROUND(pmixev_pmixd_group_done_unpack(&r, map.ntasks, &gd),
	      pmixev_pmixd_group_done_pack(&w, &gd),
	      (fuzz_fits(&gd), pmixev_pmixd_group_done_release(&gd)));
	ROUND(pmixev_pmixd_spawn_unpack(&r, &lim, PMIXEV_PMIXD_SPAWN_BYTES,
					&sp),
	      pmixev_pmixd_spawn_pack(&w, &sp),
	      (fuzz_spawn_sizes(&sp, len), pmixev_pmixd_spawn_release(&sp)));
	ROUND(pmixev_pmixd_spawn_apps_unpack(&r, &apps, &napps),
	      pmixev_pmixd_spawn_apps_pack(&w, apps, napps),
	      pmixev_pmixd_spawn_apps_free(apps, napps));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[64];

	if (!map.ntasks &&
	    pmixev_taskmap_parse(&map, "0-3;4-7", 2, 8, err, sizeof(err)) < 0)
		abort();
	fuzz_header(data, size);
	fuzz_small(data, size);
	fuzz_owning(data, size);
	if (size >= PMIXEV_PMIXD_HDR_LEN) {
		fuzz_small(data + PMIXEV_PMIXD_HDR_LEN,
			   size - PMIXEV_PMIXD_HDR_LEN);
		fuzz_owning(data + PMIXEV_PMIXD_HDR_LEN,
			    size - PMIXEV_PMIXD_HDR_LEN);
	}
	return 0;
}
