/*
 * pmixev_step.c - step identity from the prefork environment.
 */
#include "config.h"

#include "pmixev_step.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <slurm/slurm.h>

#include "pmixev_env.h"

void pmixev_step_id_format(uint32_t job_id, uint32_t step_id, char *buf,
			   size_t len)
{
	switch (step_id) {
	case SLURM_BATCH_SCRIPT:
		snprintf(buf, len, "%u.batch", job_id);
		break;
	case SLURM_EXTERN_CONT:
		snprintf(buf, len, "%u.extern", job_id);
		break;
	case SLURM_INTERACTIVE_STEP:
		snprintf(buf, len, "%u.interactive", job_id);
		break;
	default:
		snprintf(buf, len, "%u.%u", job_id, step_id);
		break;
	}
}

int pmixev_step_dir_name(char *buf, size_t len, const char *cluster,
			 uint32_t job_id, uint32_t step_id, const char *node)
{
	char id[32];

	pmixev_step_id_format(job_id, step_id, id, sizeof(id));
	return snprintf(buf, len, "%s.%s.%s", cluster, id, node) < (int)len
		       ? 0
		       : -1;
}

/* A decimal id of at most 10 digits below UINT32_MAX - 255 (Slurm's
 * special ids stay out), ending at `end`: 0, or -1. */
static int id_part(const char *s, const char *end, uint32_t *out)
{
	uint64_t v = 0;

	if (s == end || end - s > 10)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v >= 0xffffff00u)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int pmixev_job_ref_parse(const char *s, uint32_t *job_id, uint32_t *step_id)
{
	static const char *const prefixes[] = {"slurm.pmixev.", "slurm.pmix."};
	const char *dot;
	uint32_t job, step = PMIXEV_STEP_ANY;
	bool nspace = false;

	if (!s)
		return -1;
	for (size_t i = 0; i < 2; i++)
		if (!strncmp(s, prefixes[i], strlen(prefixes[i]))) {
			s += strlen(prefixes[i]);
			nspace = true;
			break;
		}
	dot = strchr(s, '.');
	if ((nspace && !dot) || id_part(s, dot ? dot : s + strlen(s), &job) ||
	    (dot && id_part(dot + 1, dot + 1 + strlen(dot + 1), &step)))
		return -1;
	*job_id = job;
	*step_id = step;
	return 0;
}

const char *pmixev_topology_node(const char *topology_addr)
{
	const char *dot = strrchr(topology_addr, '.');

	return dot ? dot + 1 : topology_addr;
}

int pmixev_step_from_env(struct pmixev_step *step, char *const *env, char *err,
			 size_t errlen)
{
	static const struct {
		const char *name;
		size_t offset;
	} u32s[] = {
		{"SLURM_JOB_ID", offsetof(struct pmixev_step, job_id)},
		{"SLURM_STEP_ID", offsetof(struct pmixev_step, step_id)},
		{"SLURM_STEP_NUM_NODES", offsetof(struct pmixev_step, nnodes)},
		{"SLURM_STEP_NUM_TASKS", offsetof(struct pmixev_step, ntasks)},
	};
	const char *topo, *node;

	memset(step, 0, sizeof(*step));
	for (size_t i = 0; i < sizeof(u32s) / sizeof(u32s[0]); i++) {
		uint32_t *dst = (uint32_t *)((char *)step + u32s[i].offset);
		int rc = pmixev_env_get_u32(env, u32s[i].name, dst);

		if (rc < 0) {
			snprintf(err, errlen, "%s is %s", u32s[i].name,
				 rc == -1 ? "not set" : "not a number");
			return -1;
		}
	}
	topo = pmixev_env_get(env, "SLURM_TOPOLOGY_ADDR");
	if (!topo || !*topo) {
		snprintf(err, errlen, "SLURM_TOPOLOGY_ADDR is not set");
		return -1;
	}
	node = pmixev_topology_node(topo);
	if (!*node || strlen(node) >= sizeof(step->node)) {
		snprintf(err, errlen, "SLURM_TOPOLOGY_ADDR='%s' names no node",
			 topo);
		return -1;
	}
	strcpy(step->node, node);
	pmixev_step_id_format(step->job_id, step->step_id, step->id,
			      sizeof(step->id));
	return 0;
}
