/*
 * pmixside/jobctl_read.c - a PMIx_Job_control request read (see
 * jobctl_read.h). PMIx progress thread.
 */
#include "config.h"

#include "pmixside/jobctl_read.h"

#include <stdio.h>
#include <string.h>

#include <pmix.h>

#include "pmixev_step.h"
#include "pmixside/side.h"

/* The checkpoint signal's key: OpenPMIx's headers give
 * PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT the same string, so it is read as the
 * signal (the timeout is PMIX_TIMEOUT). */
#define CKPT_SIGNAL_KEY PMIX_JOB_CTRL_CHECKPOINT_SIGNAL

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
static int read_method(struct pmixev_pmixd_jobctl *m, const pmix_info_t *in,
		       bool inner)
{
	if (PMIX_CHECK_KEY(in, CKPT_SIGNAL_KEY)) {
		if (in->value.type != PMIX_INT || in->value.data.integer < 1 ||
		    in->value.data.integer > 64)
			return -1;
		m->ckpt.signo = (uint32_t)in->value.data.integer;
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
		if (read_method(m,
				(pmix_info_t *)in->value.data.darray->array + i,
				true) < 0)
			return -1;
	return 1;
}

/* The request ids: PMIX_SUCCESS, 1 when `in` is not one, or why bad. */
static pmix_status_t read_ids(struct pmixev_pmixd_jobctl *m,
			      const pmix_info_t *in,
			      enum pmixev_pmixd_action *a)
{
	int how = read_method(m, in, false);

	if (how)
		return how > 0 ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
	if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_ID))
		return read_id(in, m->ctl_id, sizeof(m->ctl_id))
			       ? PMIX_ERR_BAD_PARAM
			       : PMIX_SUCCESS;
	if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_CHECKPOINT))
		*a = PMIXEV_PMIXD_CHECKPOINT;
	else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_CANCEL))
		*a = PMIXEV_PMIXD_CANCEL;
	else
		return 1;
	return read_id(in,
		       *a == PMIXEV_PMIXD_CHECKPOINT ? m->ckpt.id
						     : m->ckpt.ctl_id,
		       sizeof(m->ckpt.id))
		       ? PMIX_ERR_BAD_PARAM
		       : PMIX_SUCCESS;
}

/* The action `in` asks for, if any: PMIX_SUCCESS, or why it is refused. */
static pmix_status_t read_one(struct jobctl_req *r, const pmix_info_t *in,
			      enum pmixev_pmixd_action *a)
{
	struct pmixev_pmixd_jobctl *m = &r->m;
	pmix_status_t rc = read_ids(m, in, a);

	if (rc != 1) {
		if (rc != PMIX_SUCCESS)
			snprintf(r->why, sizeof(r->why),
				 "bad %s (a string of less than %d bytes; a "
				 "signal 1..64)",
				 in->key, PMIXEV_PMIXD_ID_MAX);
		return rc;
	}
	if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_SIGNAL)) {
		if (in->value.type != PMIX_INT || in->value.data.integer < 1 ||
		    in->value.data.integer > 64)
			return PMIX_ERR_BAD_PARAM;
		*a = PMIXEV_PMIXD_SIGNAL;
		m->signo = (uint32_t)in->value.data.integer;
	} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_TERMINATE) &&
		   PMIX_INFO_TRUE(in)) {
		*a = PMIXEV_PMIXD_TERMINATE;
	} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_KILL) &&
		   PMIX_INFO_TRUE(in)) {
		*a = PMIXEV_PMIXD_KILL;
	} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_RESTART)) {
		*a = PMIXEV_PMIXD_RESTART;
	} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_PAUSE) &&
		   PMIX_INFO_TRUE(in)) {
		*a = PMIXEV_PMIXD_PAUSE;
	} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_PREEMPTIBLE) &&
		   in->value.type == PMIX_BOOL) {
		*a = PMIXEV_PMIXD_PREEMPTIBLE;
		m->preemptible = in->value.data.flag;
	} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_RESUME) &&
		   PMIX_INFO_TRUE(in)) {
		*a = PMIXEV_PMIXD_RESUME;
	} else if (!strncmp(in->key, "pmix.jctrl.", 11)) {
		snprintf(r->why, sizeof(r->why), "%s is not supported",
			 in->key);
		return PMIX_ERR_NOT_SUPPORTED;
	}
	return PMIX_SUCCESS;
}

/* The one action asked: PMIX_SUCCESS, or why it is refused. */
static pmix_status_t read_action(struct jobctl_req *r, const pmix_info_t *dirs,
				 size_t n)
{
	struct pmixev_pmixd_jobctl *m = &r->m;

	for (size_t i = 0; i < n; i++) {
		const pmix_info_t *in = &dirs[i];
		enum pmixev_pmixd_action a = 0;
		pmix_status_t rc;

		if (PMIX_CHECK_KEY(in, PMIX_TIMEOUT) &&
		    in->value.type == PMIX_INT && in->value.data.integer > 0)
			m->timeout_sec = pmixside_frame_timeout(
				(unsigned)in->value.data.integer);
		if (library_key(in))
			continue;
		if ((rc = read_one(r, in, &a)) != PMIX_SUCCESS)
			return rc;
		if (a && m->action) {
			snprintf(r->why, sizeof(r->why),
				 "more than one action");
			return PMIX_ERR_BAD_PARAM;
		}
		if (a)
			m->action = a;
	}
	if (m->action)
		return PMIX_SUCCESS;
	snprintf(r->why, sizeof(r->why), "no action (or a bad signal)");
	return PMIX_ERR_BAD_PARAM;
}

/* Whether the signal goes to the own step's tasks by the stepds (single
 * ranks; pause and resume), not through Slurm. PMIX_SUCCESS, or why not. */
static pmix_status_t task_route(struct jobctl_req *r,
				struct pmixev_pmixd_target *t, pmix_rank_t rank)
{
	const struct layout *lay = r->lay;
	enum pmixev_pmixd_action a = r->m.action;
	bool own = t->job == lay->step.job_id && t->step == lay->step.step_id;
	/* The own step's tasks are paused by the stepds; another step or job
	 * is stopped and continued through Slurm, as signals. */
	bool stepds =
		a == PMIXEV_PMIXD_CHECKPOINT ||
		(own && (a == PMIXEV_PMIXD_PAUSE || a == PMIXEV_PMIXD_RESUME));

	if (rank == PMIX_RANK_WILDCARD && !stepds)
		return PMIX_SUCCESS;
	if (a == PMIXEV_PMIXD_PREEMPTIBLE) {
		snprintf(r->why, sizeof(r->why),
			 "preemptible: a whole job (or step) as target, not a "
			 "rank");
		return PMIX_ERR_BAD_PARAM;
	}
	if (!own || a == PMIXEV_PMIXD_RESTART) {
		snprintf(r->why, sizeof(r->why),
			 "%s: the own step's processes only (a whole other "
			 "step or job: signal, terminate, kill, restart, "
			 "pause, resume)",
			 rank == PMIX_RANK_WILDCARD
				 ? pmixev_pmixd_action_name(a)
				 : "single ranks");
		return PMIX_ERR_NOT_SUPPORTED;
	}
	if (rank != PMIX_RANK_WILDCARD && rank >= lay->map.ntasks) {
		snprintf(r->why, sizeof(r->why), "no rank %u in this step",
			 rank);
		return PMIX_ERR_BAD_PARAM;
	}
	t->tasks = true;
	t->rank = rank == PMIX_RANK_WILDCARD ? PMIXEV_PMIXD_ALL : rank;
	return PMIX_SUCCESS;
}

/* One target: a whole step or job, or tasks of the own step.
 * PMIX_SUCCESS, or why not. */
static pmix_status_t add_target(struct jobctl_req *r, const pmix_proc_t *p)
{
	struct pmixev_pmixd_jobctl *m = &r->m;
	struct pmixev_pmixd_target t = {0};
	pmix_status_t rc;

	if (pmixev_job_ref_parse(p->nspace, &t.job, &t.step) < 0) {
		snprintf(r->why, sizeof(r->why),
			 "%.*s names no Slurm job or step", PMIX_MAX_NSLEN,
			 p->nspace);
		return PMIX_ERR_NOT_FOUND;
	}
	if ((rc = task_route(r, &t, p->rank)) != PMIX_SUCCESS)
		return rc;
	for (uint32_t i = 0; i < m->nt; i++)
		if (m->t[i].job == t.job && m->t[i].step == t.step &&
		    m->t[i].tasks == t.tasks && m->t[i].rank == t.rank)
			return PMIX_SUCCESS;
	if (m->nt == PMIXEV_PMIXD_TARGETS_MAX) {
		snprintf(r->why, sizeof(r->why), "more than %d targets",
			 PMIXEV_PMIXD_TARGETS_MAX);
		return PMIX_ERR_BAD_PARAM;
	}
	m->t[m->nt++] = t;
	return PMIX_SUCCESS;
}

pmix_status_t jobctl_read(struct jobctl_req *r, const pmix_proc_t targets[],
			  size_t ntargets, const pmix_info_t dirs[],
			  size_t ndirs)
{
	pmix_status_t rc = read_action(r, dirs, ndirs);
	pmix_proc_t self;

	/* Root sets a checkpoint's rank and time per target. */
	r->m.ckpt.rank = PMIXEV_PMIXD_ALL;
	r->m.ckpt.timeout_sec = r->m.timeout_sec;
	if (rc != PMIX_SUCCESS || r->m.action == PMIXEV_PMIXD_CANCEL)
		return rc; /* a cancel's target is a request */
	if (!targets || !ntargets) {
		PMIX_LOAD_PROCID(&self, r->lay->nspace, PMIX_RANK_WILDCARD);
		return add_target(r, &self);
	}
	for (size_t i = 0; rc == PMIX_SUCCESS && i < ntargets; i++)
		rc = add_target(r, &targets[i]);
	return rc;
}
