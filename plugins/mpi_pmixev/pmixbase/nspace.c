/*
 * pmixbase/nspace.c - namespace registration info.
 */
#include "config.h"

#include "pmixbase/nspace.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "base/psets.h"
#include "pmixbase/nspace_int.h"

/* Comma-separated ranks of one node ("0,1,2"); malloc'd. */
static char *peers_of(const struct layout *lay, uint32_t node)
{
	size_t cap = (size_t)lay->map.count[node] * 11 + 1, off = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (uint32_t i = 0; i < lay->map.count[node]; i++)
		off += (size_t)snprintf(s + off, cap - off, "%s%u",
					i ? "," : "", lay->map.ranks[node][i]);
	return s;
}

void nspace_maps_free(struct nspace_maps *m)
{
	free(m->nodes);
	free(m->procs);
	free(m->node_regex);
	free(m->proc_regex);
	free(m->anl);
}

int nspace_maps_build(const struct layout *lay, struct nspace_maps *m)
{
	size_t ncap = 1, pcap = 1, noff = 0, poff = 0;
	char *peers;

	*m = (struct nspace_maps){0};
	for (uint32_t i = 0; i < lay->step.nnodes; i++) {
		ncap += strlen(lay->nodes[i]) + 1;
		pcap += (size_t)lay->map.count[i] * 11 + 1;
	}
	if (!(m->nodes = calloc(1, ncap)) || !(m->procs = calloc(1, pcap)) ||
	    !(m->anl = pmixev_taskmap_anl(&lay->map)))
		goto fail;
	for (uint32_t i = 0; i < lay->step.nnodes; i++) {
		noff += (size_t)snprintf(m->nodes + noff, ncap - noff, "%s%s",
					 i ? "," : "", lay->nodes[i]);
		if (!(peers = peers_of(lay, i)))
			goto fail;
		poff += (size_t)snprintf(m->procs + poff, pcap - poff, "%s%s",
					 i ? ";" : "", peers);
		free(peers);
	}
	if (PMIx_generate_regex(m->nodes, &m->node_regex) != PMIX_SUCCESS ||
	    PMIx_generate_ppn(m->procs, &m->proc_regex) != PMIX_SUCCESS)
		goto fail;
	return 0;
fail:
	nspace_maps_free(m);
	return -1;
}

pmix_status_t nspace_add_array(void *list, const char *key, void *sub)
{
	pmix_data_array_t da;
	pmix_status_t rc = PMIx_Info_list_convert(sub, &da);

	PMIx_Info_list_release(sub);
	if (rc != PMIX_SUCCESS)
		return rc;
	rc = PMIx_Info_list_add(list, key, &da, PMIX_DATA_ARRAY);
	PMIX_DATA_ARRAY_DESTRUCT(&da);
	return rc;
}

/* PMIX_LOCAL_PROCS of `node` into `list`: its ranks as procs of the step
 * (only the step's: each step has its own PMIx server). None: nothing. */
static pmix_status_t local_procs(void *list, const struct layout *lay,
				 uint32_t node)
{
	uint32_t n = lay->map.count[node];
	pmix_data_array_t da;
	pmix_proc_t *procs;
	pmix_status_t rc;

	if (!n)
		return PMIX_SUCCESS;
	PMIX_DATA_ARRAY_CONSTRUCT(&da, n, PMIX_PROC);
	if (!(procs = da.array))
		return PMIX_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		PMIX_LOAD_PROCID(&procs[i], lay->nspace,
				 lay->map.ranks[node][i]);
	rc = PMIx_Info_list_add(list, PMIX_LOCAL_PROCS, &da, PMIX_DATA_ARRAY);
	PMIX_DATA_ARRAY_DESTRUCT(&da);
	return rc;
}

static pmix_status_t node_info(void *list, const struct layout *lay,
			       uint32_t node, uint64_t memory)
{
	void *sub = PMIx_Info_list_start();
	uint32_t size = lay->map.count[node];
	pmix_rank_t ldr = size ? lay->map.ranks[node][0] : PMIX_RANK_UNDEF;
	char *peers = peers_of(lay, node);
	pmix_status_t rc = PMIX_ERR_NOMEM;

	if (!sub || !peers)
		goto out;
	if ((rc = PMIx_Info_list_add(sub, PMIX_NODEID, &node, PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_HOSTNAME, lay->nodes[node],
				     PMIX_STRING)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_LOCAL_SIZE, &size,
				     PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_NODE_SIZE, &size,
				     PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_LOCAL_PEERS, peers,
				     PMIX_STRING)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_LOCALLDR, &ldr,
				     PMIX_PROC_RANK)) ||
	    (rc = local_procs(sub, lay, node)) ||
	    (node == lay->nodeid && memory &&
	     (rc = PMIx_Info_list_add(sub, PMIX_AVAIL_PHYS_MEMORY, &memory,
				      PMIX_UINT64))))
		goto out;
	rc = nspace_add_array(list, PMIX_NODE_INFO_ARRAY, sub);
	sub = NULL;
out:
	if (sub)
		PMIx_Info_list_release(sub);
	free(peers);
	return rc;
}

/* Where a local rank runs, as PMIx strings (free both). */
struct where {
	char *locality, *cpuset;
};

static void where_of(hwloc_const_cpuset_t cpus, struct where *w)
{
	pmix_cpuset_t cs = {.source = "hwloc", .bitmap = (void *)cpus};

	if (PMIx_server_generate_locality_string(&cs, &w->locality) !=
	    PMIX_SUCCESS)
		w->locality = NULL;
	if (PMIx_server_generate_cpuset_string(&cs, &w->cpuset) != PMIX_SUCCESS)
		w->cpuset = NULL;
}

static pmix_status_t proc_info(void *list, const struct layout *lay,
			       pmix_rank_t rank, const struct where *w)
{
	void *sub = PMIx_Info_list_start();
	uint32_t node = lay->map.node_of[rank],
		 appnum = lay->apps.node_of[rank];
	pmix_rank_t app_rank = lay->apps.local_of[rank];
	uint16_t local = (uint16_t)lay->map.local_of[rank];
	pmix_status_t rc = PMIX_ERR_NOMEM;
	char pset[PSETS_NAME_MAX], *psetp = pset;
	pmix_data_array_t psets = {
		.type = PMIX_STRING, .size = 1, .array = &psetp};

	if (!sub)
		return rc;
	psets_name(appnum, pset);
	if ((rc = PMIx_Info_list_add(sub, PMIX_RANK, &rank, PMIX_PROC_RANK)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_GLOBAL_RANK, &rank,
				     PMIX_PROC_RANK)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_APP_RANK, &app_rank,
				     PMIX_PROC_RANK)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_APPNUM, &appnum, PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_LOCAL_RANK, &local,
				     PMIX_UINT16)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_NODE_RANK, &local,
				     PMIX_UINT16)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_NODEID, &node, PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_HOSTNAME, lay->nodes[node],
				     PMIX_STRING)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_PSET_NAME, pset, PMIX_STRING)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_PSET_NAMES, &psets,
				     PMIX_DATA_ARRAY)) ||
	    (w->locality &&
	     (rc = PMIx_Info_list_add(sub, PMIX_LOCALITY_STRING, w->locality,
				      PMIX_STRING))) ||
	    (w->cpuset && (rc = PMIx_Info_list_add(sub, PMIX_CPUSET, w->cpuset,
						   PMIX_STRING)))) {
		PMIx_Info_list_release(sub);
		return rc;
	}
	return nspace_add_array(list, PMIX_PROC_INFO_ARRAY, sub);
}

pmix_status_t nspace_app_keys(void *sub, const struct layout *lay,
			      uint32_t appnum)
{
	uint32_t size = lay->apps.count[appnum];
	pmix_rank_t ldr = lay->apps.ranks[appnum][0];
	pmix_status_t rc;

	if ((rc = PMIx_Info_list_add(sub, PMIX_APPNUM, &appnum, PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_APP_SIZE, &size, PMIX_UINT32)))
		return rc;
	return PMIx_Info_list_add(sub, PMIX_APPLDR, &ldr, PMIX_PROC_RANK);
}

static pmix_status_t app_info(void *list, const struct layout *lay,
			      uint32_t appnum)
{
	void *sub = PMIx_Info_list_start();
	char pset[PSETS_NAME_MAX];
	pmix_status_t rc;

	if (!sub)
		return PMIX_ERR_NOMEM;
	psets_name(appnum, pset);
	if ((rc = nspace_app_keys(sub, lay, appnum)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_PSET_NAME, pset, PMIX_STRING))) {
		PMIx_Info_list_release(sub);
		return rc;
	}
	return nspace_add_array(list, PMIX_APP_INFO_ARRAY, sub);
}

pmix_status_t nspace_spawned(void *list, const struct layout *lay)
{
	bool is = lay->parent[0] != '\0';
	pmix_proc_t parent;
	pmix_status_t rc;

	rc = PMIx_Info_list_add(list, PMIX_SPAWNED, &is, PMIX_BOOL);
	if (rc != PMIX_SUCCESS || !is)
		return rc;
	PMIX_LOAD_PROCID(&parent, lay->parent, lay->parent_rank);
	return PMIx_Info_list_add(list, PMIX_PARENT_ID, &parent, PMIX_PROC);
}

pmix_status_t nspace_job_keys(void *list, const struct layout *lay,
			      const char *jobid, const struct nspace_maps *m)
{
	uint32_t ntasks = lay->step.ntasks, nnodes = lay->step.nnodes,
		 napps = lay->apps.nnodes;
	pmix_rank_t offset = 0;
	pmix_status_t rc;

	if ((rc = PMIx_Info_list_add(list, PMIX_JOBID, jobid, PMIX_STRING)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_NPROC_OFFSET, &offset,
				     PMIX_PROC_RANK)) ||
	    (rc = nspace_spawned(list, lay)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_JOB_SIZE, &ntasks,
				     PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_MAX_PROCS, &ntasks,
				     PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_NUM_NODES, &nnodes,
				     PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_JOB_NUM_APPS, &napps,
				     PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_NODE_LIST, m->nodes,
				     PMIX_STRING)) ||
	    !m->node_regex)
		return rc;
	if ((rc = PMIx_Info_list_add(list, PMIX_NODE_MAP, m->node_regex,
				     PMIX_STRING)))
		return rc;
	return PMIx_Info_list_add(list, PMIX_PROC_MAP, m->proc_regex,
				  PMIX_STRING);
}

static pmix_status_t job_info(void *list, const struct layout *lay,
			      const struct nspace_host *host)
{
	uint32_t ntasks = lay->step.ntasks, napps = lay->apps.nnodes;
	uint32_t nlocal = layout_nlocal(lay);
	pmix_rank_t ldr =
		nlocal ? lay->map.ranks[lay->nodeid][0] : PMIX_RANK_UNDEF;
	struct nspace_maps m = {0};
	char *peers = NULL;
	bool yes = true;
	pmix_status_t rc = PMIX_ERR_NOMEM;

	if (nspace_maps_build(lay, &m) < 0 ||
	    !(peers = peers_of(lay, lay->nodeid)))
		goto out;
	if ((rc = nspace_job_keys(list, lay, lay->step.id, &m)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_UNIV_SIZE, &ntasks,
				     PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_NODE_MAP_RAW, m.nodes,
				     PMIX_STRING)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_PROC_MAP_RAW, m.procs,
				     PMIX_STRING)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_ANL_MAP, m.anl, PMIX_STRING)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_TMPDIR, host->tmpdir,
				     PMIX_STRING)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_NSDIR, host->nsdir,
				     PMIX_STRING)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_TDIR_RMCLEAN, &yes,
				     PMIX_BOOL)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_LOCAL_SIZE, &nlocal,
				     PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_NODE_SIZE, &nlocal,
				     PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_LOCAL_PEERS, peers,
				     PMIX_STRING)) ||
	    (rc = local_procs(list, lay, lay->nodeid)) ||
	    (rc = PMIx_Info_list_add(list, PMIX_LOCALLDR, &ldr,
				     PMIX_PROC_RANK)))
		goto out;
	for (uint32_t a = 0; a < napps && rc == PMIX_SUCCESS; a++)
		rc = app_info(list, lay, a);
out:
	nspace_maps_free(&m);
	free(peers);
	return rc;
}

int nspace_info_build(const struct layout *lay, const struct nspace_host *host,
		      const hwloc_const_cpuset_t *task_cpus, pmix_info_t **info,
		      size_t *ninfo, char *err, size_t errlen)
{
	void *list = PMIx_Info_list_start();
	pmix_data_array_t da = {0};
	pmix_status_t rc = PMIX_ERR_NOMEM;
	const char *what = "job info";

	if (!list)
		goto fail;
	if ((rc = job_info(list, lay, host)) != PMIX_SUCCESS)
		goto fail;
	what = "node info";
	for (uint32_t n = 0; n < lay->step.nnodes; n++)
		if ((rc = node_info(list, lay, n, host->memory)) !=
		    PMIX_SUCCESS)
			goto fail;
	what = "proc info";
	for (pmix_rank_t r = 0; r < lay->step.ntasks; r++) {
		struct where w = {NULL, NULL};

		if (lay->map.node_of[r] == lay->nodeid)
			where_of(task_cpus[lay->map.local_of[r]], &w);
		rc = proc_info(list, lay, r, &w);
		free(w.locality);
		free(w.cpuset);
		if (rc != PMIX_SUCCESS)
			goto fail;
	}
	what = "info list";
	if ((rc = PMIx_Info_list_convert(list, &da)) != PMIX_SUCCESS)
		goto fail;
	PMIx_Info_list_release(list);
	*info = da.array;
	*ninfo = da.size;
	return 0;
fail:
	if (list)
		PMIx_Info_list_release(list);
	snprintf(err, errlen, "cannot build %s: %s", what,
		 PMIx_Error_string(rc));
	return -1;
}
