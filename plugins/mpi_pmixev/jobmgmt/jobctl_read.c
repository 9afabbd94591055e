/*
 * jobmgmt/jobctl_read.c - a PMIx_Job_control request read (PMIx progress
 * thread).
 */
#include "config.h"

#include "jobmgmt/jobctl_call.h"

#include <stdio.h>
#include <string.h>

#include <pmix.h>

#include "base/step.h"
#include "jobmgmt/tasksig.h"
#include "pmixev_step.h"

static const char *const action_names[] = {
	[A_SIGNAL] = "signal",
	[A_TERMINATE] = "terminate",
	[A_KILL] = "kill",
	[A_RESTART] = "restart (requeue)",
	[A_PAUSE] = "pause",
	[A_RESUME] = "resume",
	[A_CHECKPOINT] = "checkpoint",
	[A_CANCEL] = "cancel",
	[A_PREEMPTIBLE] = "preemptible",
};

const char *jobctl_action_name(enum action a)
{
	return a > A_NONE && a <= A_PREEMPTIBLE ? action_names[a] : "?";
}

/* Directives the library handled itself, or added. */
static bool library_key(const pmix_info_t *in)
{
	return PMIX_CHECK_KEY(in, PMIX_REGISTER_CLEANUP) ||
	       PMIX_CHECK_KEY(in, PMIX_REGISTER_CLEANUP_DIR) ||
	       PMIX_CHECK_KEY(in, PMIX_CLEANUP_RECURSIVE) ||
	       PMIX_CHECK_KEY(in, PMIX_CLEANUP_IGNORE) ||
	       PMIX_CHECK_KEY(in, PMIX_CLEANUP_LEAVE_TOPDIR) ||
	       PMIX_CHECK_KEY(in, PMIX_USERID) ||
	       PMIX_CHECK_KEY(in, PMIX_GRPID) ||
	       PMIX_CHECK_KEY(in, PMIX_TIMEOUT);
}

/* A string directive into `buf`: 0, or -1 (not a string, too long). */
static int read_id(const pmix_info_t *in, char *buf, size_t len)
{
	if (in->value.type != PMIX_STRING || !in->value.data.string ||
	    strlen(in->value.data.string) >= len)
		return -1;
	snprintf(buf, len, "%s", in->value.data.string);
	return 0;
}

/* How a checkpoint reaches the ranks (a request's directives, or the
 * array of PMIX_JOB_CTRL_CHECKPOINT_METHOD, which holds no other): an
 * event (a bool, or the code as a status) unless a signal is given. 1 if
 * `in` said, 0 if it is not about it, -1 if it is bad. */
static int read_method(struct ctl_call *c, const pmix_info_t *in, bool inner)
{
	if (PMIX_CHECK_KEY(in, CKPT_SIGNAL_KEY)) {
		if (in->value.type != PMIX_INT || in->value.data.integer < 1 ||
		    in->value.data.integer > 64)
			return -1;
		c->ckpt.signo = in->value.data.integer;
		return 1;
	}
	if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_CHECKPOINT_EVENT))
		return 1;
	if (!PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_CHECKPOINT_METHOD))
		return 0;
	if (inner || in->value.type != PMIX_DATA_ARRAY ||
	    !in->value.data.darray || in->value.data.darray->type != PMIX_INFO)
		return -1;
	for (size_t i = 0; i < in->value.data.darray->size; i++)
		if (read_method(c,
				(pmix_info_t *)in->value.data.darray->array + i,
				true) < 0)
			return -1;
	return 1;
}

/* The request ids: PMIX_SUCCESS, 1 when `in` is not one, or why bad. */
static pmix_status_t read_ids(struct ctl_call *c, const pmix_info_t *in,
			      enum action *a)
{
	int m = read_method(c, in, false);

	if (m)
		return m > 0 ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
	if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_ID))
		return read_id(in, c->ctl_id, sizeof(c->ctl_id))
			       ? PMIX_ERR_BAD_PARAM
			       : PMIX_SUCCESS;
	if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_CHECKPOINT))
		*a = A_CHECKPOINT;
	else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_CANCEL))
		*a = A_CANCEL;
	else
		return 1;
	return read_id(in, *a == A_CHECKPOINT ? c->ckpt.id : c->ckpt.ctl_id,
		       sizeof(c->ckpt.id))
		       ? PMIX_ERR_BAD_PARAM
		       : PMIX_SUCCESS;
}

/* The one action asked: PMIX_SUCCESS, or why it is refused. */
static pmix_status_t read_action(struct ctl_call *c, const pmix_info_t *dirs,
				 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const pmix_info_t *in = &dirs[i];
		enum action a = A_NONE;
		pmix_status_t rc;

		if (PMIX_CHECK_KEY(in, PMIX_TIMEOUT) &&
		    in->value.type == PMIX_INT && in->value.data.integer > 0)
			c->timeout_sec = (unsigned)in->value.data.integer;
		if (library_key(in))
			continue;
		if ((rc = read_ids(c, in, &a)) != 1) {
			if (rc != PMIX_SUCCESS) {
				snprintf(c->reason, sizeof(c->reason),
					 "bad %s (a string of less than %d "
					 "bytes; a signal 1..64)",
					 in->key, CKPT_ID_MAX);
				return rc;
			}
		} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_SIGNAL)) {
			if (in->value.type != PMIX_INT ||
			    in->value.data.integer < 1 ||
			    in->value.data.integer > 64)
				return PMIX_ERR_BAD_PARAM;
			a = A_SIGNAL;
			c->signo = in->value.data.integer;
		} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_TERMINATE) &&
			   PMIX_INFO_TRUE(in)) {
			a = A_TERMINATE;
		} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_KILL) &&
			   PMIX_INFO_TRUE(in)) {
			a = A_KILL;
		} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_RESTART)) {
			a = A_RESTART;
		} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_PAUSE) &&
			   PMIX_INFO_TRUE(in)) {
			a = A_PAUSE;
		} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_PREEMPTIBLE) &&
			   in->value.type == PMIX_BOOL) {
			a = A_PREEMPTIBLE;
			c->preemptible = in->value.data.flag;
		} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_RESUME) &&
			   PMIX_INFO_TRUE(in)) {
			a = A_RESUME;
		} else if (!strncmp(in->key, "pmix.jctrl.", 11)) {
			snprintf(c->reason, sizeof(c->reason),
				 "%s is not supported", in->key);
			return PMIX_ERR_NOT_SUPPORTED;
		}
		if (a != A_NONE && c->action != A_NONE) {
			snprintf(c->reason, sizeof(c->reason),
				 "more than one action");
			return PMIX_ERR_BAD_PARAM;
		}
		if (a != A_NONE)
			c->action = a;
	}
	if (c->action != A_NONE)
		return PMIX_SUCCESS;
	snprintf(c->reason, sizeof(c->reason), "no action (or a bad signal)");
	return PMIX_ERR_BAD_PARAM;
}

/* Whether the signal goes to the own step's tasks by the stepds (single
 * ranks; pause and resume), not through Slurm. PMIX_SUCCESS, or why not. */
static pmix_status_t task_route(struct ctl_call *c, struct target *t,
				pmix_rank_t rank)
{
	const struct step *s = step_served();
	bool own =
		t->job == s->lay.step.job_id && t->step == s->lay.step.step_id;
	/* The own step's tasks are paused by the stepds; another step or job
	 * is stopped and continued through Slurm, as signals. */
	bool stepds = c->action == A_CHECKPOINT ||
		      (own && (c->action == A_PAUSE || c->action == A_RESUME));

	if (rank == PMIX_RANK_WILDCARD && !stepds)
		return PMIX_SUCCESS;
	if (c->action == A_PREEMPTIBLE) {
		snprintf(c->reason, sizeof(c->reason),
			 "preemptible: a whole job (or step) as target, not a "
			 "rank");
		return PMIX_ERR_BAD_PARAM;
	}
	if (!own || c->action == A_RESTART) {
		snprintf(c->reason, sizeof(c->reason),
			 "%s: the own step's processes only (a whole other "
			 "step or job: signal, terminate, kill, restart, "
			 "pause, resume)",
			 rank == PMIX_RANK_WILDCARD
				 ? jobctl_action_name(c->action)
				 : "single ranks");
		return PMIX_ERR_NOT_SUPPORTED;
	}
	if (rank != PMIX_RANK_WILDCARD && rank >= s->lay.map.ntasks) {
		snprintf(c->reason, sizeof(c->reason),
			 "no rank %u in this step", rank);
		return PMIX_ERR_BAD_PARAM;
	}
	t->tasks = true;
	t->rank = rank == PMIX_RANK_WILDCARD ? TASKSIG_ALL : rank;
	return PMIX_SUCCESS;
}

/* One target: a whole step or job, or tasks of the own step.
 * PMIX_SUCCESS, or why not. */
static pmix_status_t add_target(struct ctl_call *c, const pmix_proc_t *p)
{
	struct target t = {.c = c};
	pmix_status_t rc;

	if (pmixev_job_ref_parse(p->nspace, &t.job, &t.step) < 0) {
		snprintf(c->reason, sizeof(c->reason),
			 "%.*s names no Slurm job or step", PMIX_MAX_NSLEN,
			 p->nspace);
		return PMIX_ERR_NOT_FOUND;
	}
	if ((rc = task_route(c, &t, p->rank)) != PMIX_SUCCESS)
		return rc;
	for (size_t i = 0; i < c->nt; i++)
		if (c->t[i].job == t.job && c->t[i].step == t.step &&
		    c->t[i].tasks == t.tasks && c->t[i].rank == t.rank)
			return PMIX_SUCCESS;
	if (c->nt == TARGETS_MAX) {
		snprintf(c->reason, sizeof(c->reason), "more than %d targets",
			 TARGETS_MAX);
		return PMIX_ERR_BAD_PARAM;
	}
	c->t[c->nt++] = t;
	return PMIX_SUCCESS;
}

pmix_status_t jobctl_read(struct ctl_call *c, const char *own,
			  const pmix_proc_t targets[], size_t ntargets,
			  const pmix_info_t dirs[], size_t ndirs)
{
	pmix_status_t rc = read_action(c, dirs, ndirs);
	pmix_proc_t self;

	if (rc != PMIX_SUCCESS || c->action == A_CANCEL)
		return rc; /* a cancel's target is a request */
	if (!targets || !ntargets) {
		PMIX_LOAD_PROCID(&self, own, PMIX_RANK_WILDCARD);
		return add_target(c, &self);
	}
	for (size_t i = 0; rc == PMIX_SUCCESS && i < ntargets; i++)
		rc = add_target(c, &targets[i]);
	return rc;
}
