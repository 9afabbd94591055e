/*
 * base/layout.h - the shape of a step as one slurmstepd sees it at prefork:
 * identity, node names, which ranks run where, the job owner, and the
 * PMIx namespace name. Read from the step environment (slurmstepd's own
 * variables plus SLURM_PMIXEV_TASKMAP from srun), except the owner, which
 * comes from slurmstepd through the SPANK plugin.
 */
#ifndef PMIXEV_BASE_LAYOUT_H_
#define PMIXEV_BASE_LAYOUT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmixev_bridge.h"
#include "pmixev_step.h"
#include "pmixev_pmixd_start.h"
#include "pmixev_taskmap.h"

#define PMIXEV_TASKMAP_ENV  "SLURM_PMIXEV_TASKMAP"
#define PMIXEV_RDV_PORT_ENV "SLURM_PMIXEV_RDV_PORT"

struct layout {
	struct pmixev_step step; /* ids, sizes, this node's name */
	uint32_t nodeid;	 /* index of this node in `nodes` */
	char **nodes;		 /* [nnames] node names */
	uint32_t nnames;	 /* == step.nnodes once valid */
	struct pmixev_taskmap map;
	/*
	 * PMIx applications: one per --multi-prog line, else one. In the
	 * task-map form with a group per application: apps.nnodes is the
	 * number of applications, apps.node_of[r] rank r's application,
	 * apps.local_of[r] its rank within it.
	 */
	struct pmixev_taskmap apps;
	uid_t uid;
	gid_t gid;
	char nspace[256]; /* "slurm.pmixev.JOB.STEP" */
	/* The stepds' own namespace, "NSPACE.srv"; node i's stepd is rank i.
	 * Events the stepds inject about a node come from it. */
	char srv_nspace[256];
	char srun_host[256];
	uint16_t srun_port;
	/* The step's cores here in Slurm's numbering ("0-3,8"), from
	 * slurmstepd through the SPANK plugin, or "" (unknown). */
	char step_cores[PMIXEV_PMIXD_CORES_MAX];
	/* The proc whose PMIx_Spawn started this step (PMIX_PARENT_ID), ""
	 * when none, and the spawn's id (0: none); from the spawn variables
	 * (common/pmixev_spawn_cmd.h), in the step's environment. */
	char parent[256];
	uint32_t parent_rank;
	uint64_t spawn_id;
	/* PMIX_NON_PMI: the spawned processes will not call PMIx_Init, the
	 * step is up once launched (SLURM_PMIXEV_SPAWN_NONPMI). */
	bool spawn_nonpmi;
	/* PMIX_SPAWN_TOOL (also spawn_nonpmi): the processes are tools of
	 * the parent step's PMIx server on their node ("tool"). */
	bool spawn_tool;
	/* The parent step's XSTEP LAYOUT body (malloc'd; NULL: none), from
	 * SLURM_PMIXEV_SPAWN_LAYOUT, its codec's word that it is the
	 * parent's: for this step's PMIx servers to register the parent. */
	uint8_t *parent_layout;
	size_t nparent_layout;
};

/*
 * Fill `lay` from the step env, with the owner slurmstepd knows (`o`, from
 * the SPANK plugin: common/pmixev_bridge.h), which must be of the step the
 * env names. 0, or -1 with the reason in `err`.
 */
int layout_from_env(struct layout *lay, char **env,
		    const struct pmixev_step_owner *o, char *err,
		    size_t errlen);

/* Local ranks of this node: lay->map.ranks[lay->nodeid]. */
static inline uint32_t layout_nlocal(const struct layout *lay)
{
	return lay->map.count[lay->nodeid];
}

/* Whether `rank` is a rank of the step that runs on this node. */
static inline bool layout_is_local(const struct layout *lay, uint32_t rank)
{
	return rank < lay->map.ntasks && lay->map.node_of[rank] == lay->nodeid;
}

void layout_free(struct layout *lay);

/*
 * The layout fields of `m` from `lay` (arrays borrowed from `lay`: valid
 * while it is).
 */
void layout_to_start(const struct layout *lay, struct pmixev_pmixd_start *m);

/*
 * Fill `lay` from START `m` (copied; free with layout_free). 0, or -1 with
 * the reason in `err` (the maps do not hold, or no memory).
 */
int layout_from_start(struct layout *lay, const struct pmixev_pmixd_start *m,
		      char *err, size_t errlen);

#endif /* PMIXEV_BASE_LAYOUT_H_ */
