/*
 * stepd/stepd.c - per-step setup and teardown in slurmstepd.
 */
#include "config.h"

#include "stepd/stepd.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/agent.h"
#include "base/layout.h"
#include "base/step.h"
#include "mpi_conf.h"
#include "overlay/auth.h"
#include "overlay/overlay.h"
#include "pmixd/carry.h"
#include "pmixd/chan.h"
#include "pmixd/nspaces.h"
#include "pmixd/proc.h"
#include "wireup/dmodex.h"
#include "events/events.h"
#include "wireup/coll.h"
#include "wireup/coll_xstep.h"
#include "wireup/fence.h"
#include "wireup/group.h"
#include "events/clients.h"
#include "events/inject.h"
#include "events/notify.h"
#include "wireup/group_ask.h"
#include "wireup/group_root.h"
#include "wireup/spawn.h"
#include "overlay/xstep.h"
#include "events/spawned.h"
#include "stepd/spawn_tool.h"
#include "wireup/pubsub.h"
#include "wireup/pubsub_dir.h"
#include "jobmgmt/applog.h"
#include "jobmgmt/ckpt.h"
#include "jobmgmt/ckpt_cancel.h"
#include "jobmgmt/alloc.h"
#include "jobmgmt/jobctl.h"
#include "jobmgmt/monitor.h"
#include "jobmgmt/tasksig.h"
#include "jobmgmt/ptable.h"
#include "jobmgmt/query.h"
#include "pmixev_spawn_cmd.h"
#include "pmixev_bridge.h"
#include "pmixev_conf.h"
#include "pmixev_log.h"
#include "pmixev_step.h"
#include "ownerhelper/helper.h"
#include "ownerhelper/jobinfo.h"
#include "events/watcher.h"
#include "stepd/gone.h"
#include "stepd/ompi_ft.h"
#include "stepd/site.h"

#define MAX_FRAME    (64u << 20) /* largest overlay payload: 64 MiB */
#define JOIN_WAIT_MS 2000	 /* at the end, for a parent link not yet up */

/*
 * Slurm's hooks carry no context and slurmstepd serves exactly one step,
 * so the step lives here, built by prefork, used by the task hook (in the
 * forked child) and torn down by fini.
 */
static struct {
	bool active;
	bool built; /* every part made (a refused step's tasks still run) */
	atomic_bool leaving; /* the step ends here (set by fini) */
	uint32_t exited;     /* local tasks that ended (agent thread) */
	atomic_uint reaped;  /* ... as Slurm reaped them (its thread) */
	bool fini_sent;	     /* the PMIx server process was told to end */
	struct gone gone;    /* ... its end, as root answers it */
	struct step step;
	/*
	 * Why this step is refused, or "". Slurm's srun exits 0 when a step
	 * fails in prefork, so a refusal is delivered through the tasks
	 * instead: each task prints the reason on its stderr (which srun
	 * shows) and exits 1.
	 */
	char refusal[640];
} st;

/* Who owns the step, as slurmstepd knows it (pmixev_bridge.h). */
static int find_owner(struct pmixev_step_owner *o, char *err, size_t len)
{
	pmixev_step_owner_fn fn = NULL;
	void *handle = pmixev_bridge_open(PMIXEV_SPANK_PLUGIN_FILE);
	int rc = -1;

	if (handle) {
		fn = (pmixev_step_owner_fn)(uintptr_t)dlsym(
			handle, PMIXEV_STEP_OWNER_SYMBOL);
		if (fn)
			rc = fn(o);
		/* Slurm keeps the plugin loaded until the step ends. */
		dlclose(handle);
	}
	if (rc < 0)
		snprintf(err, len,
			 "the step's owner is unknown: the SPANK plugin "
			 "spank_pmixev.so is not loaded in slurmstepd (add "
			 "'required spank_pmixev.so' to plugstack.conf)");
	return rc;
}

static void refuse(const char *what, const char *detail)
{
	snprintf(st.refusal, sizeof(st.refusal), "%s%s", what, detail);
	PMIXEV_ERROR("step refused: %s", st.refusal);
}

/* The overlay's report of a gone node, for every part that follows it. */
static void on_lost(void *ctx, uint32_t node, const char *why, bool ended)
{
	/* Once this node leaves, peers ending at the same time may drop
	 * their links before saying goodbye: the step's end, not a loss. */
	bool lost = !ended && !atomic_load(&st.leaving);

	step_node_gone(&st.step, node, lost);
}

/* Agent thread: the PMIx server process finalizes and ends (once). */
static void send_fini(void *arg)
{
	struct pmixev_buf fini;

	if (!st.step.pmixd || st.fini_sent)
		return;
	st.fini_sent = true;
	pmixev_buf_init(&fini);
	chan_frame_begin(&fini);
	chan_send(st.step.chan, PMIXEV_PMIXD_FINI, &fini);
	pmixev_buf_release(&fini);
}

static void leave(void *arg)
{
	/* The last exits: the pmix side's claims came long before. */
	clients_pmix_gone(st.step.clients);
	overlay_leave(st.step.ov);
	send_fini(NULL);
}

static void start_overlay(void *arg)
{
	if (overlay_start(st.step.ov) < 0)
		PMIXEV_ERROR("overlay: bootstrap failed; collectives across "
			     "nodes will fail");
}

static void start_watcher(void *arg)
{
	watcher_start(st.step.watcher);
}

/* One watcher per step, on its first node: it talks to slurmctld. */
static int make_watcher(struct step *s)
{
	if (!(s->watcher = watcher_create(s))) {
		PMIXEV_ERROR("cannot create the watcher: out of memory");
		return -1;
	}
	return 0;
}

/* The watcher's node was lost and the healed tree's root is here now. */
static void take_over_watcher(void *ctx, uint32_t node, bool lost)
{
	struct step *s = ctx;

	if (!lost || s->watcher || overlay_parent(s->ov) != PMIXEV_TREE_NONE)
		return;
	PMIXEV_INFO("watcher: taking over from lost node %u", node);
	if (make_watcher(s) == 0)
		watcher_start(s->watcher);
}

static int build_watcher(struct step *s)
{
	if (step_on_node_gone(s, take_over_watcher, s) < 0)
		return -1;
	if (s->lay.nodeid != 0)
		return 0;
	if (make_watcher(s) < 0)
		return -1;
	return agent_post(s->agent, start_watcher, NULL);
}

/* Agent thread: root's end of the channel to the PMIx server process
 * closed. Expected once root sent FINI, or once Slurm reaped every task
 * here (its process tracking ends what is left of the step). */
static void pmix_side_gone(void *ctx, const char *why)
{
	struct step *s = ctx;
	bool early = !st.fini_sent &&
		     atomic_load(&st.reaped) < layout_nlocal(&s->lay);

	gone_handle(&st.gone, s, why, early);
}

/*
 * The PMIx server process of the job owner (PMIxevServer=owner), started
 * now; root's end of the channel to it. 0, or -1 (the step is refused
 * with the cause).
 */
static int start_pmixd(struct step *s, const struct stepd_binding *bind)
{
	char why[512];
	int fd = -1;

	if (!(s->pmixd = pmixd_proc_create(s))) {
		refuse("", "out of memory");
		return -1;
	}
	if (pmixd_proc_start(s->pmixd, bind->type, bind->list, &fd, why,
			     sizeof(why)) < 0) {
		refuse("the PMIx server process did not start: ", why);
		return -1;
	}
	s->chan = chan_create(agent_base(s->agent), fd, PMIXEV_PMIXD_FROM_OWNER,
			      pmix_side_gone, s);
	if (!s->chan)
		return -1;
	chan_set_max_queued(s->chan, (size_t)s->conf.overlay_mib << 20);
	return 0;
}

/* The bounds root checks the PMIx server process's messages against. */
static void set_bounds(struct step *s)
{
	s->pmixd_lim = (struct pmixev_pmixd_bounds){
		.map = &s->lay.map,
		.job = s->lay.step.job_id,
		.step = s->lay.step.step_id,
		.nodeid = s->lay.nodeid,
		.nspace = s->lay.nspace,
		.srv_nspace = s->lay.srv_nspace,
		.event_max = (size_t)s->conf.event_kib << 10,
		.publish_max = (size_t)s->conf.publish_mib << 20,
	};
}

static int build(struct step *s, const struct stepd_binding *bind)
{
	const struct layout *lay = &s->lay;
	struct overlay_cfg cfg = {
		.job_id = lay->step.job_id,
		.step_id = lay->step.step_id,
		.nodeid = lay->nodeid,
		.nnodes = lay->step.nnodes,
		.nodes = lay->nodes,
		.width = s->conf.tree_width ? s->conf.tree_width
					    : slurm_conf.tree_width,
		.job_uid = lay->uid,
		.slurmd_uid = slurm_conf.slurmd_user_id,
		.srun_host = lay->srun_host,
		.srun_port = lay->srun_port,
		.max_frame = MAX_FRAME,
		.max_queued = (size_t)s->conf.overlay_mib << 20,
		.timeout_sec = s->conf.timeout_sec,
		.heartbeat_ms = s->conf.heartbeat_ms,
	};

	if (!(s->agent = agent_create()) ||
	    !(s->auth = auth_create(slurm_conf.authinfo, true)) ||
	    !(s->ov = overlay_create(s->agent, s->auth, &cfg))) {
		PMIXEV_ERROR("cannot create the step's agent (out of memory "
			     "or munge unavailable)");
		return -1;
	}
	set_bounds(s);
	if (start_pmixd(s, bind) < 0)
		return -1;
	if (!(s->xstep = xstep_create(s)) || !(s->coll = coll_create(s)) ||
	    !(s->dmodex = dmodex_create(s)) ||
	    !(s->pubsub = pubsub_create(s)) ||
	    !(s->helper = helper_create(s)) ||
	    !(s->jobinfo = jobinfo_create(s)) ||
	    !(s->jobctl = jobctl_create(s)) ||
	    !(s->allocs = allocs_create(s)) ||
	    !(s->ptable = ptable_create(s)) ||
	    pmixd_proc_watch(s->pmixd, ptable_stop_ends, s->ptable) < 0 ||
	    !(s->applog = applog_create(s)) ||
	    !(s->tasksig = tasksig_create(s)) ||
	    !(s->ckpt_cancel = ckpt_cancel_create(s)) ||
	    !(s->ckpt = ckpt_create(s)) || !(s->monitor = monitor_create(s)) ||
	    !(s->inject = inject_create(s)) ||
	    !(s->events = events_create(s)) ||
	    !(s->clients = clients_create(s)) ||
	    !(s->notify = notify_create(s))) {
		PMIXEV_ERROR("cannot create the step's agent (out of memory "
			     "or munge unavailable)");
		return -1;
	}
	if (fence_listen(s) < 0 ||
	    !(s->group_root = group_root_create(&s->lay)) ||
	    !(s->groups = groups_create(s)) ||
	    !(s->group_ask = group_ask_create(s)) ||
	    !(s->nspaces = nspaces_create(s)) ||
	    !(s->spawn = spawn_create(s)) || !(s->spawned = spawned_create(s)))
		return -1;
	pubsub_frames_listen(s);
	query_frames_listen(s);
	overlay_on_lost(s->ov, on_lost, NULL);
	/* Without it the step runs, only site events do not reach it. */
	s->site = site_create(s);
	if (agent_start(s->agent) < 0 ||
	    agent_post(s->agent, start_overlay, NULL) < 0) {
		PMIXEV_ERROR("cannot start the agent thread: %m");
		return -1;
	}
	return 0;
}

/* A job's value that the option's rule refuses (pmixev_conf_bound). */
static void refused(size_t idx, const char *asked, const char *site, void *arg)
{
	static const char *const why[] = {
		[PMIXEV_RULE_LOWER] = "is a maximum a job may only lower",
		[PMIXEV_RULE_RAISE] = "is a minimum a job may only raise",
		[PMIXEV_RULE_SITE] = "is the site's alone",
	};

	PMIXEV_ERROR("the job's %s=%s is refused: the site's %s=%s %s; it "
		     "stays",
		     pmixev_conf_env(idx) ? pmixev_conf_env(idx) : "?", asked,
		     pmixev_conf_key(idx), site, why[pmixev_conf_rule(idx)]);
}

int stepd_prefork(char **env, const struct stepd_binding *bind)
{
	struct pmixev_step_owner owner;
	struct pmixev_step step;
	struct pmixev_conf site;
	char err[512];

	if (pmixev_step_from_env(&step, env, err, sizeof(err)) < 0) {
		PMIXEV_ERROR("prefork: cannot identify the step: %s", err);
		return SLURM_ERROR;
	}
	pmixev_log_set_step(step.id, step.node);
	if (mpi_conf_effective(&st.step.conf, err, sizeof(err)) < 0) {
		refuse("invalid mpi.conf entry ", err);
		return SLURM_SUCCESS;
	}
	site = st.step.conf; /* the job may not change the site's bounds */
	if (pmixev_conf_apply_env(&st.step.conf, env, err, sizeof(err)) < 0) {
		refuse("invalid job environment ", err);
		return SLURM_SUCCESS;
	}
	if (pmixev_conf_monitor_check(&st.step.conf, err, sizeof(err)) < 0) {
		refuse("", err);
		return SLURM_SUCCESS;
	}
	pmixev_conf_bound(&st.step.conf, &site, refused, NULL);
	if (st.step.conf.watch_sec < site.watch_min) {
		PMIXEV_INFO("the job asked to watch slurmctld every %u s; the "
			    "site's minimum is PMIxevWatchIntervalMin=%u",
			    st.step.conf.watch_sec, site.watch_min);
		st.step.conf.watch_sec = site.watch_min;
	}
	pmixev_log_set_debug(st.step.conf.debug, st.step.conf.log_rate);
	if (find_owner(&owner, err, sizeof(err)) < 0 ||
	    layout_from_env(&st.step.lay, env, &owner, err, sizeof(err)) < 0) {
		refuse("", err);
		return SLURM_SUCCESS;
	}
	st.active = true;
	if (build(&st.step, bind) < 0 || build_watcher(&st.step) < 0) {
		if (!st.refusal[0])
			refuse("", "the PMIx server could not start (see the "
				   "slurmd log)");
		return SLURM_SUCCESS;
	}
	st.built = true;
	PMIXEV_INFO("serving %u of %u task(s), node %u of %u, namespace %s "
		    "(slurmstepd pid %ld, PMIxevDebug=%u PMIxevTimeout=%u "
		    "PMIxevEventCache=%u PMIxevEventCacheMax=%u "
		    "PMIxevMonitorPolicy=%s PMIxevGds=%s; %u event slot(s))",
		    layout_nlocal(&st.step.lay), step.ntasks,
		    st.step.lay.nodeid, step.nnodes, st.step.lay.nspace,
		    (long)getpid(), st.step.conf.debug,
		    st.step.conf.timeout_sec, st.step.conf.event_cache,
		    st.step.conf.event_cache_mib,
		    pmixev_monitor_policy_name(st.step.conf.monitor_policy),
		    pmixev_gds_name(st.step.conf.gds),
		    pmixev_conf_event_slots(&st.step.conf));
	return SLURM_SUCCESS;
}

/* The PMIx server process's variables for task `rank`, into its Slurm
 * env array (in the forked task). 0, or -1 (not a local rank). */
static int task_vars(uint32_t rank, char ***env)
{
	char **vars;

	if (pmixd_proc_task_vars(st.step.pmixd, rank, &vars) < 0)
		return -1;
	for (char **e = vars; *e; e++) {
		char *eq = strchr(*e, '='), name[256];
		size_t n = eq ? (size_t)(eq - *e) : 0;

		if (!n || n >= sizeof(name))
			continue;
		memcpy(name, *e, n);
		name[n] = '\0';
		slurm_env_array_overwrite(env, name, eq + 1);
	}
	return 0;
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
	if (st.step.lay.spawn_tool) {
		spawn_tool_task(&st.step.lay, task, env);
	} else if (task_vars(task->gtaskid, env) < 0) {
		fprintf(stderr,
			"mpi/pmixev: rank %u is not in this step's "
			"task map\n",
			task->gtaskid);
		return SLURM_ERROR;
	}
	/* The spawn variables are the stepds' (read in prefork): the
	 * parent's layout alone may pass the 128 KiB a variable may take at
	 * exec. pmixev-exec reads SLURM_PMIXEV_SPAWN_APPS itself. */
	slurm_unsetenvp(*env, PMIXEV_SPAWN_PARENT_ENV);
	slurm_unsetenvp(*env, PMIXEV_SPAWN_ID_ENV);
	slurm_unsetenvp(*env, PMIXEV_SPAWN_LAYOUT_ENV);
	slurm_unsetenvp(*env, PMIXEV_SPAWN_NONPMI_ENV);
	ompi_ft_task(task, env);
	return SLURM_SUCCESS;
}

/* A task's start (value: its pid) or exit (value: its wait status). */
struct task_note {
	uint32_t rank;
	int value;
};

static void task_exit_work(void *arg)
{
	struct task_note *t = arg;

	ptable_exited(st.step.ptable, t->rank, t->value);
	st.step.tasks_ended = ++st.exited >= layout_nlocal(&st.step.lay);
	if (st.step.tasks_ended) {
		overlay_tasks_ended(st.step.ov);
		allocs_step_ended(st.step.allocs);
		helper_tasks_ended(st.step.helper);
	}
	clients_task_exit(st.step.clients, t->rank, t->value);
	free(t);
}

static void task_start_work(void *arg)
{
	struct task_note *t = arg;

	ptable_started(st.step.ptable, t->rank, t->value);
	free(t);
}

/* Hand a task's start or exit to the agent thread's `work`. */
static void post_task(agent_fn_t work, uint32_t rank, int value)
{
	struct task_note *t;

	if (!st.built || !(t = malloc(sizeof(*t))))
		return;
	t->rank = rank;
	t->value = value;
	if (agent_post(st.step.agent, work, t) < 0)
		free(t);
}

void stepd_task_start(uint32_t rank, int32_t pid)
{
	post_task(task_start_work, rank, pid);
}

void stepd_task_exit(uint32_t rank, int status)
{
	if (st.built)
		gone_wait_said(&st.gone, &st.step);
	post_task(task_exit_work, rank, status);
	/*
	 * Slurm's process tracking kills what is left of the step once its
	 * tasks ended, the PMIx server process too: let it finalize (and
	 * sum up) first, after the last task's exit is handed over.
	 */
	if (st.built &&
	    atomic_fetch_add(&st.reaped, 1) + 1 ==
		    layout_nlocal(&st.step.lay) &&
	    agent_post(st.step.agent, send_fini, NULL) == 0)
		pmixd_proc_wait_end(st.step.pmixd);
}

void stepd_fini(void)
{
	struct step *s = &st.step;

	if (!st.active)
		return;
	PMIXEV_DEBUG(1, "step ended here: shutting down");
	atomic_store(&st.leaving, true);
	/* Tasks that all ended at once may end before this node joined the
	 * tree: give its parent link a moment, so that their ends (queued
	 * for it) and this node's goodbye reach the others. */
	for (int i = 0;
	     st.built && s->ov && !overlay_joined(s->ov) && i < JOIN_WAIT_MS;
	     i++)
		usleep(1000);
	/* Say goodbye and drain the agent, then the pmix side, while PMIx
	 * still accepts callbacks, then stop them. */
	if (s->agent) {
		if (st.built)
			agent_post(s->agent, leave, NULL);
		agent_stop(s->agent);
	}
	monitor_destroy(s->monitor);
	ckpt_destroy(s->ckpt);
	watcher_destroy(s->watcher);
	helper_destroy(s->helper);
	jobinfo_destroy(s->jobinfo);
	jobctl_destroy(s->jobctl);
	allocs_destroy(s->allocs);
	spawn_destroy(s->spawn);
	spawned_destroy(s->spawned);
	nspaces_destroy(s->nspaces);
	applog_destroy(s->applog);
	tasksig_destroy(s->tasksig);
	ckpt_cancel_destroy(s->ckpt_cancel);
	ptable_destroy(s->ptable);
	site_destroy(s->site);
	notify_destroy(s->notify);
	clients_destroy(s->clients);
	events_destroy(s->events);
	inject_destroy(s->inject);
	pubsub_destroy(s->pubsub);
	dmodex_destroy(s->dmodex);
	coll_xstep_destroy(s->collx);
	coll_destroy(s->coll);
	xstep_destroy(s->xstep);
	groups_destroy(s->groups);
	group_ask_destroy(s->group_ask);
	group_root_destroy(s->group_root);
	carry_report(&s->pmixd_budget);
	chan_destroy(s->chan);
	pmixd_proc_destroy(s->pmixd);
	overlay_destroy(s->ov);
	agent_destroy(s->agent);
	auth_destroy(s->auth);
	layout_free(&s->lay);
	pmixev_log_flush();
	st.active = st.built = false;
}
