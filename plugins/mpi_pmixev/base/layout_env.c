/*
 * base/layout_env.c - the step's layout from the prefork environment, in
 * slurmstepd (see layout.h).
 */
#include "config.h"

#include "base/layout.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm_compat.h"

#include "pmixev_cpubind.h"
#include "pmixev_env.h"
#include "pmixev_multiprog.h"
#include "pmixev_spawn_cmd.h"
#include "pmixev_xstep.h"

/* The owner slurmstepd knows (never the environment's word), for the
 * step the environment names, of the size slurmstepd launches: what root
 * allocates per node and per task follows the environment's sizes. */
static int owner(struct layout *lay, const struct pmixev_step_owner *o,
		 char *err, size_t errlen)
{
	struct passwd pw, *res = NULL;
	struct pmixev_cpus cores;
	char buf[4096];

	if (o->job_id != lay->step.job_id || o->step_id != lay->step.step_id) {
		snprintf(err, errlen,
			 "the step's environment names step %u.%u, slurmstepd "
			 "serves %u.%u",
			 lay->step.job_id, lay->step.step_id, o->job_id,
			 o->step_id);
		return -1;
	}
	if (o->nnodes != lay->step.nnodes || o->ntasks != lay->step.ntasks) {
		snprintf(
			err, errlen,
			"the step's environment gives it %u node(s) and %u "
			"task(s) (SLURM_STEP_NUM_NODES, SLURM_STEP_NUM_TASKS), "
			"slurmstepd launches %u and %u",
			lay->step.nnodes, lay->step.ntasks, o->nnodes,
			o->ntasks);
		return -1;
	}
	if (getpwuid_r((uid_t)o->uid, &pw, buf, sizeof(buf), &res) != 0 ||
	    !res) {
		snprintf(err, errlen, "unknown job owner uid %u", o->uid);
		return -1;
	}
	lay->uid = (uid_t)o->uid;
	lay->gid = (gid_t)o->gid;
	/* Slurm's own core list; anything else is not passed on. */
	if (memchr(o->step_cores, '\0', sizeof(lay->step_cores)) &&
	    pmixev_cpubind_ranges(o->step_cores, &cores) >= 0)
		snprintf(lay->step_cores, sizeof(lay->step_cores), "%s",
			 o->step_cores);
	return 0;
}

static int srun_address(struct layout *lay, char **env, char *err,
			size_t errlen)
{
	const char *host = pmixev_env_get(env, "SLURM_SRUN_COMM_HOST");
	uint32_t port;

	if (!host || !*host || strlen(host) >= sizeof(lay->srun_host)) {
		snprintf(err, errlen, "SLURM_SRUN_COMM_HOST is missing");
		return -1;
	}
	if (pmixev_env_get_u32(env, PMIXEV_RDV_PORT_ENV, &port) < 0 ||
	    port == 0 || port > 65535) {
		snprintf(err, errlen,
			 "%s is missing or invalid (was the step launched by "
			 "an srun with mpi/pmixev?)",
			 PMIXEV_RDV_PORT_ENV);
		return -1;
	}
	strcpy(lay->srun_host, host);
	lay->srun_port = (uint16_t)port;
	return 0;
}

static int find_node(struct layout *lay, char **env, char *err, size_t errlen)
{
	const char *list = pmixev_env_get(env, "SLURM_STEP_NODELIST");
	uint32_t n = 0;

	if (!list ||
	    pmixev_slurm_expand_nodelist(list, lay->step.nnodes, &lay->nodes,
					 &lay->nnames) < 0) {
		snprintf(err, errlen,
			 "SLURM_STEP_NODELIST is missing, invalid or has "
			 "more than SLURM_STEP_NUM_NODES=%u nodes",
			 lay->step.nnodes);
		return -1;
	}
	n = lay->nnames;
	if (n != lay->step.nnodes) {
		snprintf(err, errlen,
			 "SLURM_STEP_NODELIST has %u nodes, "
			 "SLURM_STEP_NUM_NODES says %u",
			 n, lay->step.nnodes);
		return -1;
	}
	for (lay->nodeid = 0; lay->nodeid < n; lay->nodeid++)
		if (strcmp(lay->nodes[lay->nodeid], lay->step.node) == 0)
			return 0;
	snprintf(err, errlen, "node %s is not in SLURM_STEP_NODELIST=%s",
		 lay->step.node, list);
	return -1;
}

/*
 * A spawned step's applications: each app's maxprocs ranks in turn, from
 * SLURM_PMIXEV_SPAWN_APPS, into "0-3;4-5" (NAPPS:MAP's map). 0, or -1.
 */
static int spawn_apps_map(const char *v, uint32_t ntasks, char *map, size_t len,
			  uint32_t *napps_out)
{
	struct pmixev_pmixd_spawn_app *apps = NULL;
	uint32_t napps = 0, first = 0;
	size_t off = 0;
	int rc = -1;

	if (pmixev_spawn_apps_decode(v, &apps, &napps) < 0)
		return -1;
	for (uint32_t a = 0; a < napps && first < ntasks; a++) {
		uint32_t last = apps[a].maxprocs > ntasks - first
					? ntasks - 1
					: first + apps[a].maxprocs - 1;

		off += (size_t)snprintf(map + off, len > off ? len - off : 0,
					"%s%u-%u", a ? ";" : "", first, last);
		first = last + 1;
		*napps_out = a + 1;
	}
	if (first == ntasks && off < len)
		rc = 0;
	pmixev_pmixd_spawn_apps_free(apps, napps);
	return rc;
}

/* The spawn variables: none, or the parent and the spawn's id (and "1"
 * when the processes will not call PMIx_Init, "tool" when they are tools
 * of the parent step). */
static int spawn_vars(struct layout *lay, char **env, char *err, size_t errlen)
{
	const char *parent = pmixev_env_get(env, PMIXEV_SPAWN_PARENT_ENV);
	const char *id = pmixev_env_get(env, PMIXEV_SPAWN_ID_ENV);
	const char *nonpmi = pmixev_env_get(env, PMIXEV_SPAWN_NONPMI_ENV);

	if (!parent && !id)
		return 0;
	if (!parent || !id ||
	    pmixev_spawn_parent_parse(parent, lay->parent, &lay->parent_rank) <
		    0 ||
	    !pmixev_pmixd_step_nspace(lay->parent, NULL, NULL) ||
	    pmixev_spawn_id_parse(id, &lay->spawn_id) < 0) {
		snprintf(err, errlen, "%s or %s is missing or malformed",
			 PMIXEV_SPAWN_PARENT_ENV, PMIXEV_SPAWN_ID_ENV);
		lay->parent[0] = '\0';
		return -1;
	}
	if (nonpmi && strcmp(nonpmi, "1") && strcmp(nonpmi, "tool")) {
		snprintf(err, errlen, "%s is neither 1 nor tool",
			 PMIXEV_SPAWN_NONPMI_ENV);
		lay->parent[0] = '\0';
		return -1;
	}
	lay->spawn_nonpmi = nonpmi != NULL;
	lay->spawn_tool = nonpmi && !strcmp(nonpmi, "tool");
	return 0;
}

/* SLURM_PMIXEV_SPAWN_LAYOUT, when the parent srun gave it: the parent
 * step's layout, which must be the parent's. */
static int parent_layout(struct layout *lay, char **env, char *err,
			 size_t errlen)
{
	const char *v = pmixev_env_get(env, PMIXEV_SPAWN_LAYOUT_ENV);
	struct pmixev_xstep_layout m;
	struct pmixev_buf b;
	bool parents = false;

	if (!v || !lay->parent[0])
		return 0;
	if (pmixev_spawn_layout_decode(v, &lay->parent_layout,
				       &lay->nparent_layout) == 0) {
		pmixev_buf_reader(&b, lay->parent_layout, lay->nparent_layout);
		if (pmixev_xstep_layout_unpack(&b, PMIXEV_SPAWN_APPS_MAX, &m) ==
		    0) {
			parents = !strcmp(m.start.nspace, lay->parent);
			pmixev_xstep_layout_release(&m);
		}
	}
	if (parents)
		return 0;
	snprintf(err, errlen, "%s is not the layout of the parent step %s",
		 PMIXEV_SPAWN_LAYOUT_ENV, lay->parent);
	return -1;
}

/* SLURM_PMIXEV_APPS "NAPPS:MAP" from srun, or "" / absent: one app. */
static int applications(struct layout *lay, char **env, char *err,
			size_t errlen)
{
	const char *v = pmixev_env_get(env, PMIXEV_APPS_ENV);
	const char *spawned = pmixev_env_get(env, PMIXEV_SPAWN_APPS_ENV);
	char one[32], why[256], *map = NULL, *owned = NULL;
	unsigned long napps = 1;
	uint32_t n = 0;
	int rc = -1;

	if (spawned && lay->parent[0]) {
		size_t len = (size_t)lay->step.ntasks * 24 + 16;

		if (!(owned = malloc(len)) ||
		    spawn_apps_map(spawned, lay->step.ntasks, owned, len, &n) <
			    0) {
			snprintf(err, errlen, "%s is invalid",
				 PMIXEV_SPAWN_APPS_ENV);
			goto out;
		}
		napps = n;
		v = owned;
	} else if (v && *v) {
		napps = strtoul(v, &map, 10);
		if (!map || *map != ':' || !napps || napps > lay->step.ntasks) {
			snprintf(err, errlen, "%s='%.64s' is invalid",
				 PMIXEV_APPS_ENV, v);
			goto out;
		}
		v = map + 1;
	} else {
		if (lay->step.ntasks > 1)
			snprintf(one, sizeof(one), "0-%u",
				 lay->step.ntasks - 1);
		else
			snprintf(one, sizeof(one), "0");
		v = one;
	}
	if (pmixev_taskmap_parse(&lay->apps, v, (uint32_t)napps,
				 lay->step.ntasks, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s is invalid: %s",
			 owned ? PMIXEV_SPAWN_APPS_ENV : PMIXEV_APPS_ENV, why);
		goto out;
	}
	rc = 0;
out:
	free(owned);
	return rc;
}

int layout_from_env(struct layout *lay, char **env,
		    const struct pmixev_step_owner *o, char *err, size_t errlen)
{
	const char *map;
	char why[256];

	memset(lay, 0, sizeof(*lay));
	if (pmixev_step_from_env(&lay->step, env, err, errlen) < 0 ||
	    owner(lay, o, err, errlen) < 0 ||
	    srun_address(lay, env, err, errlen) < 0 ||
	    find_node(lay, env, err, errlen) < 0 ||
	    spawn_vars(lay, env, err, errlen) < 0 ||
	    parent_layout(lay, env, err, errlen) < 0)
		goto fail;
	map = pmixev_env_get(env, PMIXEV_TASKMAP_ENV);
	if (!map) {
		snprintf(err, errlen, "%s is missing", PMIXEV_TASKMAP_ENV);
		goto fail;
	}
	if (pmixev_taskmap_parse(&lay->map, map, lay->step.nnodes,
				 lay->step.ntasks, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s is invalid: %s", PMIXEV_TASKMAP_ENV,
			 why);
		goto fail;
	}
	if (applications(lay, env, err, errlen) < 0)
		goto fail;
	snprintf(lay->nspace, sizeof(lay->nspace), "slurm.pmixev.%s",
		 lay->step.id);
	snprintf(lay->srv_nspace, sizeof(lay->srv_nspace), "%.200s.srv",
		 lay->nspace);
	return 0;
fail:
	layout_free(lay);
	return -1;
}
