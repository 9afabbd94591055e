/*
 * fuzz_group_list.c - libFuzzer target for the list of a step's live
 * groups (common/pmixev_group_list.c): what a node's root reads from node
 * 0 (GROUPS_RESP) and passes on to its pmix side inside QUERY_DONE.
 *
 * Input byte 0 is the step's size (1..256 ranks); the rest is read as a
 * GROUPS_RESP body and, on its own, as a list. Invariants: what reads
 * packs back to the same bytes; a list holds at most 1024 groups, each
 * with a non-empty id and members strictly increasing below the size,
 * and never more than 1 MiB.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_group_list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct pmixev_group_list *l, uint32_t ntasks)
{
	if (l->n > PMIXEV_GROUP_LIST_MAX)
		abort();
	for (uint32_t i = 0; i < l->n; i++) {
		const struct pmixev_group_entry *e = &l->e[i];

		if (!e->grpid[0] || !e->nranks || e->nranks > ntasks)
			abort();
		for (uint32_t k = 0; k < e->nranks; k++)
			if (e->ranks[k] >= ntasks ||
			    (k && e->ranks[k] <= e->ranks[k - 1]))
				abort();
	}
}

static void fuzz_list(const uint8_t *data, size_t size, uint32_t ntasks)
{
	struct pmixev_group_list l;
	struct pmixev_buf b, w;

	pmixev_buf_reader(&b, data, size);
	if (pmixev_group_list_unpack(&b, ntasks, &l) < 0)
		return;
	check(&l, ntasks);
	pmixev_buf_init(&w);
	if (pmixev_group_list_pack(&w, &l, ntasks) < 0 || w.len != size ||
	    memcmp(w.data, data, size) || w.len > PMIXEV_GROUP_LIST_BYTES)
		abort();
	pmixev_buf_release(&w);
	pmixev_group_list_release(&l);
}

static void fuzz_resp(const uint8_t *data, size_t size, uint32_t ntasks)
{
	struct pmixev_groups_resp m;
	struct pmixev_buf w;

	if (pmixev_groups_resp_unpack(data, size, ntasks, &m) < 0)
		return;
	check(&m.l, ntasks);
	if (m.result != PMIXEV_OK && (m.l.n || m.l.partial))
		abort();
	pmixev_buf_init(&w);
	if (pmixev_groups_resp_pack(&w, &m, ntasks) < 0 || w.len != size ||
	    memcmp(w.data, data, size))
		abort();
	pmixev_buf_release(&w);
	pmixev_group_list_release(&m.l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t ntasks;

	if (size < 1)
		return 0;
	ntasks = (uint32_t)data[0] + 1;
	fuzz_resp(data + 1, size - 1, ntasks);
	fuzz_list(data + 1, size - 1, ntasks);
	return 0;
}
