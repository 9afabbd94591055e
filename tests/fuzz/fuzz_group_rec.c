/*
 * fuzz_group_rec.c - libFuzzer target for a group collective's records
 * (common/pmixev_group_rec.c): what a tree root reads from the stepds
 * below it, whose fields come from the owner processes' GROUP frames.
 *
 * The step: 8 ranks on 4 nodes ("0-2;3,4;;5-7"). Input byte 0 picks the
 * group (its set bits are the member ranks; 0: every rank), byte 1 the
 * ranks the step saw die, bytes 2-6 a step id and a context-id counter;
 * the rest is read as concatenated records, merged, and read as a result
 * record. Invariants: what reads packs back to the same bytes; a merge
 * succeeds only when every record reads, and gives members only, every
 * member seen dead among the failed, and a result record that reads back
 * to itself; context ids carry their step and are never 0 nor all ones.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_group_rec.h"

#define HEAD 7

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pmixev_taskmap map;

static bool in_set(const struct pmixev_group_set *set, uint32_t r)
{
	for (uint32_t i = 0; i < set->nranks; i++)
		if (set->ranks[i] == r)
			return true;
	return set->all && r < map.ntasks;
}

/* Each record that reads packs back to the bytes it was read from. 1
 * when all of `data` reads. */
static int fuzz_records(const uint8_t *data, size_t len,
			const struct pmixev_group_set *set)
{
	struct pmixev_group_rec r;
	struct pmixev_buf b, w;
	size_t at = 0;
	int rc;

	pmixev_buf_reader(&b, data, len);
	while ((rc = pmixev_group_rec_next(&b, set, &r)) == 1) {
		pmixev_buf_init(&w);
		if (pmixev_group_rec_pack(&w, &r) < 0 || w.len != b.pos - at ||
		    memcmp(w.data, data + at, w.len))
			abort();
		for (uint32_t i = 0; i < r.ndead; i++)
			if (!in_set(set, r.dead[i]) ||
			    map.node_of[r.dead[i]] != r.node)
				abort();
		at = b.pos;
		pmixev_buf_release(&w);
		pmixev_group_rec_release(&r);
	}
	return rc == 0;
}

/* A result record `r` packs, and reads back to the same bytes. */
static void fuzz_result_trip(const struct pmixev_group_result *r,
			     const struct pmixev_group_set *set)
{
	struct pmixev_group_result got;
	struct pmixev_buf w, b, again;

	pmixev_buf_init(&w);
	if (pmixev_group_result_pack(&w, r) < 0)
		abort();
	pmixev_buf_reader(&b, w.data, w.len);
	if (pmixev_group_result_unpack(&b, set, &got) < 0)
		abort();
	pmixev_buf_init(&again);
	if (pmixev_group_result_pack(&again, &got) < 0 || again.len != w.len ||
	    memcmp(again.data, w.data, w.len))
		abort();
	pmixev_buf_release(&again);
	pmixev_group_result_release(&got);
	pmixev_buf_release(&w);
}

static void fuzz_merge(const uint8_t *data, size_t len,
		       const struct pmixev_group_set *set, const uint8_t *dead)
{
	struct pmixev_group_result out;
	struct pmixev_buf endpt;
	int all_read = fuzz_records(data, len, set);

	pmixev_buf_init(&endpt);
	if (pmixev_group_merge(data, len, set, dead, &endpt, &out) == 0) {
		uint32_t k = 0;

		if (!all_read || out.ctxid || out.nendpt > len ||
		    (out.leader != PMIXEV_PMIXD_NO_RANK &&
		     !in_set(set, out.leader)))
			abort();
		for (uint32_t i = 0; i < out.nfailed; i++)
			if (!in_set(set, out.failed[i]) ||
			    (i && out.failed[i] <= out.failed[i - 1]))
				abort();
		for (uint32_t r = 0; r < map.ntasks; r++)
			if (in_set(set, r) && (*dead >> r & 1))
				k++;
		if (out.nfailed < k)
			abort();
		fuzz_result_trip(&out, set);
		pmixev_group_result_release(&out);
	}
	pmixev_buf_release(&endpt);
}

static void fuzz_result(const uint8_t *data, size_t len,
			const struct pmixev_group_set *set)
{
	struct pmixev_group_result r;
	struct pmixev_buf b, w;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_group_result_unpack(&b, set, &r) < 0)
		return;
	pmixev_buf_init(&w);
	if (pmixev_group_result_pack(&w, &r) < 0 || w.len != len ||
	    memcmp(w.data, data, len))
		abort();
	pmixev_buf_release(&w);
	pmixev_group_result_release(&r);
}

static void fuzz_ids(const uint8_t *p)
{
	uint32_t step = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			(uint32_t)p[2] << 8 | p[3];
	struct pmixev_group_ids ids;
	uint64_t id;

	if (pmixev_group_ids_init(&ids, step) < 0) {
		if (step < PMIXEV_GROUP_STEP_LIMIT)
			abort();
		return;
	}
	ids.last = 0xffffffffu - p[4]; /* near the end, or at it */
	for (int i = 0; i < 2; i++) {
		if (pmixev_group_ids_next(&ids, &id) < 0) {
			if (ids.last != 0xfffffffeu && ids.last != 0xffffffffu)
				abort();
			continue;
		}
		if (!id || !pmixev_pmixd_group_ctxid_ok(id) ||
		    id >> 32 != (uint64_t)step + 1 || (uint32_t)id != ids.last)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t ranks[8], n = 0;
	struct pmixev_group_set set = {.map = &map, .ranks = ranks};
	char err[64];

	if (!map.ntasks && pmixev_taskmap_parse(&map, "0-2;3,4;;5-7", 4, 8, err,
						sizeof(err)) < 0)
		abort();
	if (size < HEAD)
		return 0;
	for (uint32_t r = 0; r < 8; r++)
		if (data[0] >> r & 1)
			ranks[n++] = r;
	set.nranks = n;
	set.all = !n;
	fuzz_merge(data + HEAD, size - HEAD, &set, &data[1]);
	fuzz_result(data + HEAD, size - HEAD, &set);
	fuzz_ids(data + 2);
	return 0;
}
