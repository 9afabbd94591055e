/*
 * pmixside/query_procs.c - process tables and memory usage as query answers.
 */
#include "config.h"

#include "pmixside/query_procs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "pmixev_events.h"

static const char *node_name(const struct layout *lay, uint32_t rank)
{
	return rank < lay->map.ntasks && lay->map.node_of[rank] < lay->nnames
		       ? lay->nodes[lay->map.node_of[rank]]
		       : "";
}

static int exit_code(const struct pmixev_ptable_entry *e)
{
	if (e->run != PMIXEV_PROC_EXITED)
		return 0;
	if (WIFSIGNALED(e->status))
		return 128 + WTERMSIG(e->status);
	return WEXITSTATUS(e->status);
}

pmix_status_t qprocs_table(const struct layout *lay, const char *key,
			   const struct pmixev_ptable_entry *e, size_t n,
			   pmix_info_t *out)
{
	static const pmix_proc_state_t states[] = {
		[PMIXEV_PROC_STARTING] = PMIX_PROC_STATE_LAUNCH_UNDERWAY,
		[PMIXEV_PROC_RUNNING] = PMIX_PROC_STATE_RUNNING,
		[PMIXEV_PROC_EXITED] = PMIX_PROC_STATE_TERMINATED,
	};
	pmix_proc_info_t *pi = NULL;
	pmix_data_array_t da;

	if (!n)
		return PMIX_ERR_NOT_FOUND;
	PMIX_PROC_INFO_CREATE(pi, n);
	if (!pi)
		return PMIX_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		PMIX_LOAD_PROCID(&pi[i].proc, lay->nspace, e[i].rank);
		pi[i].hostname = strdup(node_name(lay, e[i].rank));
		pi[i].executable_name = strdup(e[i].name);
		pi[i].pid = (pid_t)e[i].pid;
		pi[i].exit_code = exit_code(&e[i]);
		pi[i].state = states[e[i].run];
	}
	da = (pmix_data_array_t){
		.type = PMIX_PROC_INFO, .size = n, .array = pi};
	PMIX_INFO_LOAD(out, key, &da, PMIX_DATA_ARRAY);
	PMIX_PROC_INFO_FREE(pi, n);
	return PMIX_SUCCESS;
}

/* The report directives' answer: average and/or extremes, in MiB. */
static pmix_status_t summary(const float *mib, size_t n, bool avg, bool minmax,
			     pmix_info_t *out)
{
	float sum = 0, lo = mib[0], hi = mib[0], *ext = NULL;
	pmix_info_t *info = NULL;
	pmix_data_array_t da;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		sum += mib[i];
		lo = mib[i] < lo ? mib[i] : lo;
		hi = mib[i] > hi ? mib[i] : hi;
	}
	PMIX_INFO_CREATE(info, 2);
	if (!info || !(ext = malloc(2 * sizeof(*ext)))) {
		PMIX_INFO_FREE(info, 2);
		return PMIX_ERR_NOMEM;
	}
	if (avg) {
		float a = sum / (float)n;

		PMIX_INFO_LOAD(&info[k++], PMIX_QUERY_REPORT_AVG, &a,
			       PMIX_FLOAT);
	}
	if (minmax) {
		ext[0] = lo;
		ext[1] = hi;
		da = (pmix_data_array_t){
			.type = PMIX_FLOAT, .size = 2, .array = ext};
		PMIX_INFO_LOAD(&info[k++], PMIX_QUERY_REPORT_MINMAX, &da,
			       PMIX_DATA_ARRAY);
	}
	free(ext);
	da = (pmix_data_array_t){.type = PMIX_INFO, .size = k, .array = info};
	PMIX_INFO_LOAD(out, PMIX_QUERY_MEMORY_USAGE, &da, PMIX_DATA_ARRAY);
	PMIX_INFO_FREE(info, 2);
	return PMIX_SUCCESS;
}

/* One task's entry: PMIX_PROCID, PMIX_HOSTNAME, PMIX_PROC_PID, PMIXEV_MEM_RSS.
 */
static pmix_status_t task_memory(const struct layout *lay,
				 const struct pmixev_ptable_entry *e, float mib,
				 pmix_info_t *out)
{
	pmix_info_t *info = NULL;
	pmix_data_array_t da;
	pmix_proc_t proc;
	pid_t pid = (pid_t)e->pid;

	PMIX_INFO_CREATE(info, 4);
	if (!info)
		return PMIX_ERR_NOMEM;
	PMIX_LOAD_PROCID(&proc, lay->nspace, e->rank);
	PMIX_INFO_LOAD(&info[0], PMIX_PROCID, &proc, PMIX_PROC);
	PMIX_INFO_LOAD(&info[1], PMIX_HOSTNAME, node_name(lay, e->rank),
		       PMIX_STRING);
	PMIX_INFO_LOAD(&info[2], PMIX_PROC_PID, &pid, PMIX_PID);
	PMIX_INFO_LOAD(&info[3], PMIXEV_MEM_RSS, &mib, PMIX_FLOAT);
	da = (pmix_data_array_t){.type = PMIX_INFO, .size = 4, .array = info};
	PMIX_INFO_LOAD(out, PMIX_PROCID, &da, PMIX_DATA_ARRAY);
	PMIX_INFO_FREE(info, 4);
	return PMIX_SUCCESS;
}

pmix_status_t qprocs_memory(const struct layout *lay,
			    const struct pmixev_ptable_entry *e, size_t n,
			    pmix_rank_t rank, bool avg, bool minmax,
			    pmix_info_t *out)
{
	pmix_info_t *tasks = NULL;
	float *mib = calloc(n + 1, sizeof(*mib));
	pmix_status_t rc = PMIX_ERR_NOMEM;
	pmix_data_array_t da;
	size_t k = 0;

	PMIX_INFO_CREATE(tasks, n + 1);
	if (!mib || !tasks)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (e[i].run != PMIXEV_PROC_RUNNING || !e[i].rss_kb ||
		    (rank != PMIX_RANK_WILDCARD && e[i].rank != rank))
			continue;
		mib[k] = (float)e[i].rss_kb / 1024.0f;
		if ((rc = task_memory(lay, &e[i], mib[k], &tasks[k])) !=
		    PMIX_SUCCESS)
			goto out;
		k++;
	}
	rc = PMIX_ERR_NOT_FOUND;
	if (!k)
		goto out;
	if (avg || minmax) {
		rc = summary(mib, k, avg, minmax, out);
		goto out;
	}
	da = (pmix_data_array_t){.type = PMIX_INFO, .size = k, .array = tasks};
	PMIX_INFO_LOAD(out, PMIX_QUERY_MEMORY_USAGE, &da, PMIX_DATA_ARRAY);
	rc = PMIX_SUCCESS;
out:
	if (tasks)
		PMIX_INFO_FREE(tasks, n + 1);
	free(mib);
	return rc;
}
