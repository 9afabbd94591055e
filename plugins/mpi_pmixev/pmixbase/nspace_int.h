/*
 * pmixbase/nspace_int.h - what the step's own registration (nspace.c) and
 * a family member's (nspace_foreign.c) share.
 */
#ifndef PMIXEV_PMIX_NSPACE_INT_H_
#define PMIXEV_PMIX_NSPACE_INT_H_

#include <pmix.h>

#include "base/layout.h"

/* The maps in every form: the raw node list "n1,n2,n3" and ranks per node
 * "0,1;2;3" (PMIX_NODE_LIST, PMIX_*_MAP_RAW), PMIx's regex forms of both,
 * and the ANL notation. */
struct nspace_maps {
	char *nodes, *procs, *node_regex, *proc_regex, *anl;
};

/* 0, or -1 (out of memory, or PMIx refused a map). */
int nspace_maps_build(const struct layout *lay, struct nspace_maps *m);
void nspace_maps_free(struct nspace_maps *m);

/* Add a nested info array built in `sub` under `key`; releases `sub`. */
pmix_status_t nspace_add_array(void *list, const char *key, void *sub);

/* PMIX_SPAWNED, and PMIX_PARENT_ID when a PMIx_Spawn started the step. */
pmix_status_t nspace_spawned(void *list, const struct layout *lay);

/* The job keys every registration of `lay` has, the step's own or a
 * family member's: JOBID (`jobid`), NPROC_OFFSET, SPAWNED/PARENT_ID,
 * JOB_SIZE, MAX_PROCS, NUM_NODES, JOB_NUM_APPS, NODE_LIST and, when
 * m->node_regex is set, the node and proc maps. */
pmix_status_t nspace_job_keys(void *list, const struct layout *lay,
			      const char *jobid, const struct nspace_maps *m);

/* APPNUM, APP_SIZE and APPLDR of application `appnum`, into `sub`. */
pmix_status_t nspace_app_keys(void *sub, const struct layout *lay,
			      uint32_t appnum);

#endif /* PMIXEV_PMIX_NSPACE_INT_H_ */
