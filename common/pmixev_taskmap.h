/*
 * pmixev_taskmap.h - which global ranks run on which node of a step.
 *
 * srun knows the exact layout (step_layout->tids) and passes it to every
 * stepd in SLURM_PMIXEV_TASKMAP; stepds need it before any task is forked.
 * Text form: one group per node, in node-id order, separated by ';'; each
 * group is a ','-separated list of ranks or inclusive ranges "a-b" in
 * increasing order, e.g. block 6 tasks on 3 nodes: "0-3;4;5", cyclic:
 * "0,3;1,4;2,5". Every rank 0..ntasks-1 appears exactly once; a node may
 * host no task ("" group). Pure code: unit-tested and fuzzed.
 */
#ifndef PMIXEV_TASKMAP_H_
#define PMIXEV_TASKMAP_H_

#include <stddef.h>
#include <stdint.h>

struct pmixev_taskmap {
	uint32_t nnodes;
	uint32_t ntasks;
	uint32_t *node_of;  /* [ntasks]: node id of each rank */
	uint32_t *local_of; /* [ntasks]: index of the rank on its node */
	uint32_t *count;    /* [nnodes]: tasks per node */
	uint32_t **ranks;   /* [nnodes][count]: ranks of each node, sorted */
};

/*
 * Parse `text` for a step of `nnodes` nodes and `ntasks` tasks. Returns 0,
 * or -1 with a reason in `err` (map untouched). Free with
 * pmixev_taskmap_free.
 */
int pmixev_taskmap_parse(struct pmixev_taskmap *map, const char *text,
			 uint32_t nnodes, uint32_t ntasks, char *err,
			 size_t errlen);

/*
 * Build the text form from per-node rank lists (as srun's step layout
 * gives them; each list sorted increasing). Returns a malloc'd string, or
 * NULL on allocation failure.
 */
char *pmixev_taskmap_format(uint32_t nnodes, const uint16_t *count,
			    uint32_t *const *ranks);

/*
 * The map in the ANL (PMI-2 "process mapping") notation PMIX_ANL_MAP
 * carries: "(vector,(N,C,P),...)", each triple giving P consecutive ranks
 * to each of the C nodes N, N+1, ..., the triples in rank order (block
 * 6 on 3 nodes as 2 each: "(vector,(0,3,2))"; cyclic: "(vector,(0,3,1),
 * (0,3,1))"). A malloc'd string, or NULL (no memory, or no tasks).
 */
char *pmixev_taskmap_anl(const struct pmixev_taskmap *map);

void pmixev_taskmap_free(struct pmixev_taskmap *map);

#endif /* PMIXEV_TASKMAP_H_ */
