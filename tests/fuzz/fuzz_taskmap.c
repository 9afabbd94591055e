/*
 * fuzz_taskmap.c - libFuzzer target for pmixev_taskmap_parse.
 *
 * Input: byte 0 gives nnodes (0..64), bytes 1-2 (big-endian) give ntasks
 * (0..4096), the rest is the map text. An accepted map must be a
 * consistent partition of the ranks, and its formatted text must parse
 * back to the same map.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_taskmap.h"

#define FUZZ_MAX_NODES 64
#define FUZZ_MAX_TASKS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every rank sits once on one node, in increasing order per node. */
static void check_map(const struct pmixev_taskmap *m, uint32_t nnodes,
		      uint32_t ntasks)
{
	uint64_t total = 0;

	if (m->nnodes != nnodes || m->ntasks != ntasks)
		abort();
	for (uint32_t n = 0; n < nnodes; n++) {
		total += m->count[n];
		for (uint32_t i = 0; i < m->count[n]; i++) {
			uint32_t r = m->ranks[n][i];

			if (r >= ntasks || m->node_of[r] != n ||
			    m->local_of[r] != i ||
			    (i > 0 && m->ranks[n][i - 1] >= r))
				abort();
		}
	}
	if (total != ntasks)
		abort();
}

/* Formatting `m` and parsing the text again gives the same placement. */
static void check_format(const struct pmixev_taskmap *m)
{
	uint16_t count[FUZZ_MAX_NODES];
	struct pmixev_taskmap again;
	char err[128];
	char *text;

	for (uint32_t n = 0; n < m->nnodes; n++)
		count[n] = (uint16_t)m->count[n];
	text = pmixev_taskmap_format(m->nnodes, count, m->ranks);
	if (!text)
		abort();
	if (pmixev_taskmap_parse(&again, text, m->nnodes, m->ntasks, err,
				 sizeof(err)) < 0)
		abort();
	for (uint32_t r = 0; r < m->ntasks; r++)
		if (again.node_of[r] != m->node_of[r])
			abort();
	pmixev_taskmap_free(&again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmixev_taskmap map;
	uint32_t nnodes, ntasks;
	char err[128];
	char *text;

	if (size < 3)
		return 0;
	nnodes = data[0] % (FUZZ_MAX_NODES + 1);
	ntasks = ((uint32_t)data[1] << 8 | data[2]) % (FUZZ_MAX_TASKS + 1);
	text = malloc(size - 3 + 1);
	if (!text)
		return 0;
	memcpy(text, data + 3, size - 3);
	text[size - 3] = '\0';
	if (pmixev_taskmap_parse(&map, text, nnodes, ntasks, err,
				 sizeof(err)) == 0) {
		check_map(&map, nnodes, ntasks);
		check_format(&map);
		pmixev_taskmap_free(&map);
	}
	free(text);
	return 0;
}
