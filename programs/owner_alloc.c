/*
 * The owner helper's allocations (see owner_alloc.h).
 */
#include "config.h"

#include "owner_alloc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "owner_run.h"
#include "slurm_compat.h"

/* Slurm's error `rc` (errno after a failed call) and its text into `r`. */
static void failed(struct pmixev_control_result *r, int rc, const char *why)
{
	r->rc = rc ? rc : SLURM_ERROR;
	snprintf(r->reason, sizeof(r->reason), "%s",
		 why ? why : slurm_strerror(r->rc));
}

void owner_alloc_new(const struct pmixev_owner_alloc *a, uint32_t *job,
		     struct pmixev_control_result *r)
{
	resource_allocation_response_msg_t *resp = NULL;
	job_desc_msg_t d;
	char cwd[4096];

	*job = 0;
	slurm_init_job_desc_msg(&d);
	d.name = (char *)a->name;
	d.user_id = getuid();
	d.group_id = getgid();
	if (getcwd(cwd, sizeof(cwd)))
		d.work_dir = cwd;
	if (a->nnodes)
		d.min_nodes = d.max_nodes = a->nnodes;
	if (a->ncpus) {
		d.min_cpus = a->ncpus;
		d.num_tasks = a->ncpus;
	}
	if (a->mem_mb)
		d.pn_min_memory = a->mem_mb;
	if (a->minutes)
		d.time_limit = a->minutes;
	if (a->partition[0])
		d.partition = (char *)a->partition;
	if (a->nodes[0])
		d.req_nodes = (char *)a->nodes;
	if (a->exclude[0])
		d.exc_nodes = (char *)a->exclude;
	/* No alloc_resp_port, no other_port: slurmctld sends nothing and
	 * InactiveLimit never applies (doc/spawn.md §1.4). */
	errno = 0;
	if (slurm_allocate_resources(&d, &resp) != SLURM_SUCCESS || !resp) {
		failed(r, errno, NULL);
		return;
	}
	*job = pmixev_slurm_alloc_job(resp);
	r->rc = 0;
	r->reason[0] = '\0';
	slurm_free_resource_allocation_response_msg(resp);
}

static bool listed(char **names, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static void free_names(char **names, uint32_t n)
{
	for (uint32_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* Mark `want` of the job's nodes to go, from the end of the list, never
 * the batch host; those in `avoid` only when there are not enough others.
 * 0, or -1 when there are not enough. */
static int pick(char **node, uint32_t n, bool *go, uint32_t want,
		const char *batch, char **avoid, uint32_t navoid)
{
	for (int pass = 0; pass < 2 && want; pass++)
		for (uint32_t i = n; i-- > 0 && want;) {
			if (go[i] || (batch && !strcmp(node[i], batch)) ||
			    (!pass && listed(avoid, navoid, node[i])))
				continue;
			go[i] = true;
			want--;
		}
	return want ? -1 : 0;
}

/* The nodes for which `go` is (or is not) set, comma-separated. */
static char *joined(char **node, uint32_t n, const bool *go, bool which)
{
	size_t len = 1;
	char *s;

	for (uint32_t i = 0; i < n; i++)
		len += strlen(node[i]) + 1;
	if (!(s = calloc(1, len)))
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		if (go[i] == which) {
			if (*s)
				strcat(s, ",");
			strcat(s, node[i]);
		}
	return s;
}

/* Which of the job's nodes go: 0, or -1 with r filled. */
static int choose(const struct pmixev_owner_alloc *a, const job_info_t *job,
		  char **node, uint32_t n, bool *go,
		  struct pmixev_control_result *r)
{
	char **rel = NULL, **avoid = NULL;
	uint32_t nrel = 0, navoid = 0, count = 0;
	int rc = 0;

	if (a->nodes[0]) {
		if (pmixev_slurm_expand_nodelist(a->nodes, n, &rel, &nrel) <
		    0) {
			failed(r, ESLURM_INVALID_NODE_NAME,
			       "the nodes to release are not nodes of the job");
			return -1;
		}
		for (uint32_t i = 0; i < n; i++)
			if ((go[i] = listed(rel, nrel, node[i])))
				count++;
		if (count != nrel) {
			failed(r, ESLURM_INVALID_NODE_NAME,
			       "the nodes to release are not nodes of the job");
			rc = -1;
		}
		free_names(rel, nrel);
	} else {
		if (a->exclude[0] &&
		    pmixev_slurm_expand_nodelist(a->exclude, n, &avoid,
						 &navoid) < 0)
			navoid = 0;
		count = a->nnodes;
		if (count < n && pick(node, n, go, count, job->batch_host,
				      avoid, navoid) < 0)
			count = n;
		free_names(avoid, navoid);
	}
	if (!rc && count >= n) {
		failed(r, ESLURM_INVALID_NODE_COUNT,
		       "a job keeps at least one node (and its batch host): "
		       "release the whole job with its PMIX_ALLOC_ID instead");
		rc = -1;
	}
	return rc;
}

void owner_alloc_shrink(uint32_t job_id, const struct pmixev_owner_alloc *a,
			struct pmixev_control_result *r)
{
	job_info_msg_t *resp = NULL;
	char **node = NULL, *keep = NULL, *gone = NULL;
	uint32_t n = 0;
	bool *go = NULL;

	errno = 0;
	if (pmixev_slurm_load_job(&resp, job_id, SHOW_LOCAL) != SLURM_SUCCESS) {
		failed(r, errno, NULL);
		return;
	}
	if (resp->record_count < 1 || !resp->job_array[0].nodes) {
		failed(r, ESLURM_INVALID_JOB_ID, NULL);
		goto out;
	}
	if (pmixev_slurm_expand_nodelist(resp->job_array[0].nodes,
					 PMIXEV_OWNER_ALLOC_NODES_MAX, &node,
					 &n) < 0 ||
	    !(go = calloc(n, sizeof(*go)))) {
		failed(r, ENOMEM, "out of memory");
		goto out;
	}
	if (choose(a, &resp->job_array[0], node, n, go, r) < 0)
		goto out;
	if (!(keep = joined(node, n, go, false)) ||
	    !(gone = joined(node, n, go, true))) {
		failed(r, ENOMEM, "out of memory");
		goto out;
	}
	errno = 0;
	if (pmixev_slurm_set_nodes(job_id, keep) != SLURM_SUCCESS) {
		failed(r, errno, NULL);
		goto out;
	}
	r->rc = 0;
	snprintf(r->reason, sizeof(r->reason), "%s", gone);
out:
	free(keep);
	free(gone);
	free(go);
	free_names(node, n);
	slurm_free_job_info_msg(resp);
}

#define EXTEND_WAIT_MS 30000

void owner_alloc_extend(uint32_t job_id, const struct pmixev_owner_alloc *a,
			struct pmixev_control_result *r)
{
	char cmd[PMIXEV_OWNER_TEXT], job[16], minutes[16], nodes[16];
	char *argv[] = {cmd, job, minutes, nodes, NULL};

	snprintf(cmd, sizeof(cmd), "%s", a->cmd);
	snprintf(job, sizeof(job), "%u", job_id);
	snprintf(minutes, sizeof(minutes), "%u", a->minutes);
	snprintf(nodes, sizeof(nodes), "%u", a->nnodes);
	owner_run(argv, "", EXTEND_WAIT_MS, r);
}
