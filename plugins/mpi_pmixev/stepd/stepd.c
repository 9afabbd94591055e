/*
 * stepd/stepd.c - per-step setup and teardown in slurmstepd.
 */
#include "config.h"

#include "stepd/stepd.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "overlay/auth.h"
#include "pmix/dmodex.h"
#include "pmix/events.h"
#include "pmix/fence.h"
#include "base/layout.h"
#include "mpi_conf.h"
#include "pmix/notify.h"
#include "overlay/overlay.h"
#include "pmixev_conf.h"
#include "pmixev_env.h"
#include "pmixev_log.h"
#include "pmix/gate.h"
#include "pmixev_step.h"
#include "pmix/pubsub_dir.h"
#include "pmix/server.h"
#include "stepd/site.h"
#include "slurmctld/watcher.h"

#define MAX_FRAME (64u << 20) /* largest overlay payload: 64 MiB */

/*
 * Slurm's hooks carry no context and slurmstepd serves exactly one step,
 * so the step's components live here, built by prefork, used by the task
 * hook (in the forked child) and torn down by fini.
 */
static struct {
	bool active;
	atomic_bool leaving; /* the step ends here (set by fini) */
	struct pmixev_conf conf;
	struct layout lay;
	struct agent *agent;
	struct auth *auth;
	struct overlay *ov;
	struct fence *fence;
	struct dmodex *dmodex;
	struct pubsub *pubsub;
	struct inject *inject;
	struct events *events;
	struct notify *notify;
	struct pmix_gate *gate;
	struct site *site;
	struct helper *owner;	 /* the tree's root only */
	struct watcher *watcher; /* the tree's root only */
	char slurm_conf[512];	 /* the job's SLURM_CONF, for the helper */
	struct server *srv;
	/*
	 * Why this step is refused, or "". Slurm's srun exits 0 when a step
	 * fails in prefork, so a refusal is delivered through the tasks
	 * instead: each task prints the reason on its stderr (which srun
	 * shows) and exits 1.
	 */
	char refusal[640];
} st;

static void refuse(const char *what, const char *detail)
{
	snprintf(st.refusal, sizeof(st.refusal), "%s%s", what, detail);
	PMIXEV_ERROR("step refused: %s", st.refusal);
}

static void take_over_watcher(uint32_t lost);

static void on_lost(void *ctx, uint32_t node, const char *why, bool ended)
{
	/* Once this node leaves, peers ending at the same time may drop
	 * their links before saying goodbye: the step's end, not a loss. */
	bool lost = !ended && !atomic_load(&st.leaving);

	if (lost)
		events_node_lost(st.events, node);
	fence_lost(st.fence, node);
	dmodex_lost(st.dmodex, node);
	pubsub_lost(st.pubsub, node);
	if (lost)
		take_over_watcher(node);
}

static void leave(void *arg)
{
	overlay_leave(st.ov);
}

static void start_overlay(void *arg)
{
	if (overlay_start(st.ov) < 0)
		PMIXEV_ERROR("overlay: bootstrap failed; collectives across "
			     "nodes will fail");
}

static void start_watcher(void *arg)
{
	watcher_start(st.watcher);
}

/* One watcher per step, on its first node: it talks to slurmctld. */
static int make_watcher(void)
{
	if (!(st.owner = helper_create(st.agent, &st.lay, st.slurm_conf)) ||
	    !(st.watcher =
		      watcher_create(st.agent, st.owner, st.events,
				     st.conf.watch_sec, st.conf.warn_sec,
				     st.conf.sched_events, st.conf.node_sec))) {
		PMIXEV_ERROR("cannot create the watcher: out of memory");
		return -1;
	}
	return 0;
}

static int build_watcher(char **env)
{
	const char *conf = pmixev_env_get(env, "SLURM_CONF");

	snprintf(st.slurm_conf, sizeof(st.slurm_conf), "%s", conf ? conf : "");
	if (st.lay.nodeid != 0)
		return 0;
	if (make_watcher() < 0)
		return -1;
	return agent_post(st.agent, start_watcher, NULL);
}

/* The watcher's node was lost and the healed tree's root is here now. */
static void take_over_watcher(uint32_t lost)
{
	if (st.watcher || overlay_parent(st.ov) != PMIXEV_TREE_NONE)
		return;
	PMIXEV_INFO("watcher: taking over from lost node %u", lost);
	if (make_watcher() == 0)
		watcher_start(st.watcher);
}

static int build(const struct stepd_binding *bind)
{
	const struct layout *lay = &st.lay;
	struct overlay_cfg cfg = {
		.job_id = lay->step.job_id,
		.step_id = lay->step.step_id,
		.nodeid = lay->nodeid,
		.nnodes = lay->step.nnodes,
		.width = st.conf.tree_width ? st.conf.tree_width
					    : slurm_conf.tree_width,
		.job_uid = lay->uid,
		.slurmd_uid = slurm_conf.slurmd_user_id,
		.srun_host = lay->srun_host,
		.srun_port = lay->srun_port,
		.max_frame = MAX_FRAME,
		.max_queued = (size_t)st.conf.overlay_mib << 20,
		.timeout_sec = st.conf.timeout_sec,
		.heartbeat_ms = st.conf.heartbeat_ms,
	};
	struct upcall_deps deps;

	if (!(st.agent = agent_create()) ||
	    !(st.auth = auth_create(slurm_conf.authinfo, true)) ||
	    !(st.ov = overlay_create(st.agent, st.auth, &cfg)) ||
	    !(st.fence = fence_create(st.ov, lay, agent_base(st.agent),
				      st.conf.timeout_sec)) ||
	    !(st.dmodex = dmodex_create(st.ov, st.agent, lay,
					st.conf.timeout_sec)) ||
	    !(st.pubsub =
		      pubsub_create(st.ov, st.agent, lay, st.conf.timeout_sec,
				    (size_t)st.conf.publish_mib << 20)) ||
	    !(st.inject = inject_create(st.conf.event_cache)) ||
	    !(st.events = events_create(st.ov, lay, st.inject)) ||
	    !(st.notify = notify_create(st.ov, st.agent, lay, st.inject,
					(size_t)st.conf.event_kib << 10)) ||
	    !(st.gate = pmix_gate_create(st.agent, lay->uid))) {
		PMIXEV_ERROR("cannot create the step's agent (out of memory "
			     "or munge unavailable)");
		return -1;
	}
	overlay_on_lost(st.ov, on_lost, NULL);
	/* Without it the step runs, only site events do not reach it. */
	st.site = site_create(st.agent, st.events, lay);
	deps = (struct upcall_deps){.agent = st.agent,
				    .ov = st.ov,
				    .fence = st.fence,
				    .dmodex = st.dmodex,
				    .pubsub = st.pubsub,
				    .events = st.events,
				    .notify = st.notify,
				    .inject = st.inject,
				    .gate = st.gate,
				    .lay = lay};
	if (!(st.srv = server_create(lay, &deps, st.conf.event_cache,
				     bind->type, bind->list)))
		return -1;
	if (pmix_gate_start(st.gate) < 0 || agent_start(st.agent) < 0 ||
	    agent_post(st.agent, start_overlay, NULL) < 0) {
		PMIXEV_ERROR("cannot start the agent thread: %m");
		return -1;
	}
	return 0;
}

/* A job may lower a budget the site set, never raise it. */
static void keep_budget(unsigned *job, unsigned site, const char *key)
{
	if (*job <= site)
		return;
	PMIXEV_INFO("the job asked for %s=%u; the site's bound %u applies", key,
		    *job, site);
	*job = site;
}

int stepd_prefork(char **env, const struct stepd_binding *bind)
{
	struct pmixev_step step;
	struct pmixev_conf site;
	char err[512];

	if (pmixev_step_from_env(&step, env, err, sizeof(err)) < 0) {
		PMIXEV_ERROR("prefork: cannot identify the step: %s", err);
		return SLURM_ERROR;
	}
	pmixev_log_set_step(step.id, step.node);
	if (mpi_conf_effective(&st.conf, err, sizeof(err)) < 0) {
		refuse("invalid mpi.conf entry ", err);
		return SLURM_SUCCESS;
	}
	site = st.conf; /* the job may not change the site's bounds */
	if (pmixev_conf_apply_env(&st.conf, env, err, sizeof(err)) < 0) {
		refuse("invalid job environment ", err);
		return SLURM_SUCCESS;
	}
	st.conf.watch_min = site.watch_min;
	keep_budget(&st.conf.event_kib, site.event_kib, "PMIxevEventMax");
	keep_budget(&st.conf.publish_mib, site.publish_mib, "PMIxevPublishMax");
	keep_budget(&st.conf.overlay_mib, site.overlay_mib, "PMIxevOverlayMax");
	if (st.conf.watch_sec < site.watch_min) {
		PMIXEV_INFO("the job asked to watch slurmctld every %u s; the "
			    "site's minimum is PMIxevWatchIntervalMin=%u",
			    st.conf.watch_sec, site.watch_min);
		st.conf.watch_sec = site.watch_min;
	}
	pmixev_log_set_debug(st.conf.debug);
	if (layout_from_env(&st.lay, env, err, sizeof(err)) < 0) {
		refuse("", err);
		return SLURM_SUCCESS;
	}
	st.active = true;
	if (build(bind) < 0 || build_watcher(env) < 0) {
		refuse("", "the PMIx server could not start (see the slurmd "
			   "log)");
		return SLURM_SUCCESS;
	}
	PMIXEV_INFO("serving %u of %u task(s), node %u of %u, namespace %s "
		    "(PMIxevDebug=%u PMIxevTimeout=%u PMIxevEventCache=%u)",
		    layout_nlocal(&st.lay), step.ntasks, st.lay.nodeid,
		    step.nnodes, st.lay.nspace, st.conf.debug,
		    st.conf.timeout_sec, st.conf.event_cache);
	return SLURM_SUCCESS;
}

int stepd_task(const mpi_plugin_task_info_t *task, char ***env)
{
	if (st.refusal[0]) {
		fprintf(stderr, "mpi/pmixev: step %u.%u refused: %s\n",
			task->step_id.job_id, task->step_id.step_id,
			st.refusal);
		return SLURM_ERROR;
	}
	PMIXEV_DEBUG(2, "task %u (local %d of %u) starting", task->gtaskid,
		     task->ltaskid, task->ltasks);
	if (server_task_env(st.srv, task->gtaskid, env) < 0) {
		fprintf(stderr,
			"mpi/pmixev: rank %u is not in this step's "
			"task map\n",
			task->gtaskid);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

struct task_exit {
	uint32_t rank;
	int status;
};

static void task_exit_work(void *arg)
{
	struct task_exit *t = arg;

	events_task_exit(st.events, t->rank, t->status);
	free(t);
}

void stepd_task_exit(uint32_t rank, int status)
{
	struct task_exit *t;

	if (!st.active || !st.agent || !(t = malloc(sizeof(*t))))
		return;
	t->rank = rank;
	t->status = status;
	if (agent_post(st.agent, task_exit_work, t) < 0)
		free(t);
}

void stepd_fini(void)
{
	if (!st.active)
		return;
	PMIXEV_DEBUG(1, "step ended here: shutting down");
	atomic_store(&st.leaving, true);
	/* Say goodbye and drain the agent while PMIx still accepts
	 * callbacks, then stop it. */
	if (st.agent) {
		agent_post(st.agent, leave, NULL);
		agent_stop(st.agent);
	}
	server_destroy(st.srv);
	watcher_destroy(st.watcher);
	helper_destroy(st.owner);
	site_destroy(st.site);
	pmix_gate_destroy(st.gate);
	notify_destroy(st.notify);
	events_destroy(st.events);
	inject_destroy(st.inject);
	pubsub_destroy(st.pubsub);
	dmodex_destroy(st.dmodex);
	fence_destroy(st.fence);
	overlay_destroy(st.ov);
	agent_destroy(st.agent);
	auth_destroy(st.auth);
	layout_free(&st.lay);
	st.active = false;
}
