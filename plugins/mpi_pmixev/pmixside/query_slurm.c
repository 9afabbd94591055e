/*
 * pmixside/query_slurm.c - Slurm's job and partition states as query answers.
 */
#include "config.h"

#include "pmixside/query_slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "pmixev_events.h"

static const struct {
	uint32_t base;
	const char *name;
	pmix_status_t status;
} states[] = {
	{JOB_PENDING, "PENDING", PMIXEV_JOB_PENDING},
	{JOB_RUNNING, "RUNNING", PMIX_SUCCESS},
	{JOB_SUSPENDED, "SUSPENDED", PMIXEV_EVENT_JOB_SUSPENDED},
	{JOB_COMPLETE, "COMPLETED", PMIX_EVENT_JOB_END},
	{JOB_CANCELLED, "CANCELLED", PMIX_ERR_JOB_CANCELED},
	{JOB_FAILED, "FAILED", PMIX_ERR_JOB_NON_ZERO_TERM},
	{JOB_TIMEOUT, "TIMEOUT", PMIX_ERR_TIMEOUT},
	{JOB_NODE_FAIL, "NODE_FAIL", PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT},
	{JOB_PREEMPTED, "PREEMPTED", PMIX_JCTRL_PREEMPT_ALERT},
	{JOB_BOOT_FAIL, "BOOT_FAIL", PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT},
	{JOB_DEADLINE, "DEADLINE", PMIX_ERR_TIMEOUT},
	{JOB_OOM, "OUT_OF_MEMORY", PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED},
};

static int state_index(const struct pmixev_job_state *j)
{
	uint32_t base = j->state & JOB_STATE_BASE;

	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (states[i].base == base)
			return (int)i;
	return -1;
}

pmix_status_t qslurm_job_status(const struct pmixev_job_state *j,
				pmix_info_t *out)
{
	int i = state_index(j);

	if (i < 0)
		return PMIX_ERR_NOT_FOUND;
	PMIX_INFO_LOAD(out, PMIX_QUERY_JOB_STATUS, &states[i].status,
		       PMIX_STATUS);
	return PMIX_SUCCESS;
}

/* "RUNNING", "PENDING (reason)", "COMPLETED, completing" into buf. */
static const char *state_text(const struct pmixev_job_state *j, char *buf,
			      size_t len)
{
	int i = state_index(j);

	snprintf(buf, len, "%s%s%s%s%s", i < 0 ? "UNKNOWN" : states[i].name,
		 (j->state & JOB_COMPLETING) ? ", completing" : "",
		 (j->state & JOB_REQUEUE) ? ", requeueing" : "",
		 j->reason[0] ? ": " : "", j->reason);
	return buf;
}

pmix_status_t qslurm_job_state(const struct pmixev_job_state *j,
			       pmix_info_t *out)
{
	char text[PMIXEV_OWNER_TEXT + 64];

	PMIX_INFO_LOAD(out, PMIXEV_QUERY_JOB_STATE,
		       state_text(j, text, sizeof(text)), PMIX_STRING);
	return PMIX_SUCCESS;
}

pmix_status_t qslurm_time_remaining(const struct pmixev_job_state *j,
				    time_t now, pmix_info_t *out)
{
	uint32_t base = j->state & JOB_STATE_BASE, left = UINT32_MAX;

	if ((base != JOB_RUNNING && base != JOB_SUSPENDED) ||
	    (j->state & JOB_COMPLETING))
		return PMIX_ERR_NOT_FOUND;
	if (j->time_limit != INFINITE && j->time_limit != NO_VAL) {
		if (j->end_time <= 0)
			return PMIX_ERR_NOT_FOUND;
		left = j->end_time > (int64_t)now
			       ? (uint32_t)(j->end_time - (int64_t)now)
			       : 0;
	}
	PMIX_INFO_LOAD(out, PMIX_TIME_REMAINING, &left, PMIX_UINT32);
	return PMIX_SUCCESS;
}

pmix_status_t qslurm_preemptible(const struct pmixev_job_state *j,
				 pmix_info_t *out)
{
	bool yes = j->preemptible != 0;

	PMIX_INFO_LOAD(out, PMIX_JOB_CTRL_PREEMPTIBLE, &yes, PMIX_BOOL);
	return PMIX_SUCCESS;
}

pmix_status_t qslurm_alloc_status(uint32_t job_id,
				  const struct pmixev_job_state *j,
				  pmix_info_t *out)
{
	char text[2 * PMIXEV_OWNER_TEXT + 160], state[PMIXEV_OWNER_TEXT + 64],
		limit[32];

	if (j->time_limit == INFINITE || j->time_limit == NO_VAL)
		snprintf(limit, sizeof(limit), "none");
	else
		snprintf(limit, sizeof(limit), "%u min",
			 (unsigned)j->time_limit);
	snprintf(text, sizeof(text), "job %u: %s%s%s, time limit %s",
		 (unsigned)job_id, state_text(j, state, sizeof(state)),
		 j->nodes[0] ? " on " : "", j->nodes, limit);
	PMIX_INFO_LOAD(out, PMIX_QUERY_ALLOC_STATUS, text, PMIX_STRING);
	return PMIX_SUCCESS;
}

pmix_status_t qslurm_queue_list(const struct pmixev_parts_state *p,
				pmix_info_t *out)
{
	char *list = calloc(p->count + 1, PMIXEV_OWNER_NAME + 1);
	size_t off = 0;

	if (!list)
		return PMIX_ERR_NOMEM;
	for (uint32_t i = 0; i < p->count; i++)
		off += (size_t)sprintf(list + off, "%s%s", i ? "," : "",
				       p->part[i].name);
	PMIX_INFO_LOAD(out, PMIX_QUERY_QUEUE_LIST, list, PMIX_STRING);
	free(list);
	return PMIX_SUCCESS;
}

static const char *const avail_names[] = {
	[PMIXEV_PART_UP] = "up",
	[PMIXEV_PART_DOWN] = "down",
	[PMIXEV_PART_DRAIN] = "drain",
	[PMIXEV_PART_INACTIVE] = "inactive",
};

pmix_status_t qslurm_queue_status(const struct pmixev_parts_state *p,
				  const char *name, pmix_info_t *out)
{
	pmix_info_t *arr = NULL;
	pmix_data_array_t da;
	size_t n = 0;

	PMIX_INFO_CREATE(arr, p->count ? p->count : 1);
	if (!arr)
		return PMIX_ERR_NOMEM;
	for (uint32_t i = 0; i < p->count; i++) {
		const struct pmixev_part_state *q = &p->part[i];

		if (name && strcmp(name, q->name))
			continue;
		PMIX_INFO_LOAD(&arr[n], q->name, avail_names[q->avail],
			       PMIX_STRING);
		n++;
	}
	if (!n) {
		PMIX_INFO_FREE(arr, p->count ? p->count : 1);
		return PMIX_ERR_NOT_FOUND;
	}
	da = (pmix_data_array_t){.type = PMIX_INFO, .size = n, .array = arr};
	PMIX_INFO_LOAD(out, PMIX_QUERY_QUEUE_STATUS, &da, PMIX_DATA_ARRAY);
	PMIX_INFO_FREE(arr, p->count ? p->count : 1);
	return PMIX_SUCCESS;
}
