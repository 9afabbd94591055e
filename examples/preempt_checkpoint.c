/*
 * preempt_checkpoint - save your work inside Slurm's preemption grace time.
 *
 *   srun --mpi=pmixev -N2 -n4 ./preempt_checkpoint [PREFIX]
 *
 * Each rank works through 6000 steps (ten a second), from its checkpoint
 * file PREFIX.RANK (default ckpt.RANK) if there is one. When Slurm preempts the
 * job (a job of a higher-priority partition needs the nodes) it sends SIGTERM,
 * and kills the tasks the partition's GraceTime later; pmixev tells every rank
 * at once with the PMIx event PMIX_JCTRL_PREEMPT_ALERT: the seconds left
 * (PMIX_TIME_REMAINING) and what Slurm will do (cancel or requeue). The
 * rank writes its checkpoint and exits 0 well before the kill. scancel is
 * handled alike (PMIX_ERR_JOB_CANCELED; Slurm's KillWait is left). Run
 * again, the program goes on from its checkpoints.
 * Slurm requeues a batch job in a REQUEUE partition only if it still runs
 * when the grace time is over: here rank 0 asks for the requeue
 * (PMIX_JOB_CTRL_RESTART) once all ranks have saved their checkpoints.
 */
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmixev_events.h> /* PMIXEV_PREEMPT_MODE */

#define STEPS 6000

/* Set by the event handler, read by the main loop. */
static atomic_int stop_code;	 /* the event that asks us to stop, or 0 */
static atomic_uint seconds_left; /* its PMIX_TIME_REMAINING */
static char mode[16] = "-";	 /* cancel or requeue, set before stop_code */

/* Runs in PMIx's progress thread: note what happened, return at once. */
static void on_stop(size_t id, pmix_status_t code, const pmix_proc_t *source,
		    pmix_info_t info[], size_t ninfo, pmix_info_t results[],
		    size_t nresults, pmix_event_notification_cbfunc_fn_t done,
		    void *cbdata)
{
	for (size_t i = 0; i < ninfo; i++) {
		if (PMIX_CHECK_KEY(&info[i], PMIX_TIME_REMAINING))
			atomic_store(&seconds_left, info[i].value.data.uint32);
		else if (PMIX_CHECK_KEY(&info[i], PMIXEV_PREEMPT_MODE))
			snprintf(mode, sizeof(mode), "%s",
				 info[i].value.data.string);
	}
	atomic_store(&stop_code, code);
	if (done) /* let other handlers for the event run too */
		done(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Into a new file, then renamed: a kill in the middle leaves the old one. */
static int save_checkpoint(const char *path, long step)
{
	char tmp[PATH_MAX + sizeof(".new")];
	FILE *f;
	int bad;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	if (!(f = fopen(tmp, "w")))
		return -1;
	bad = fprintf(f, "%ld\n", step) < 0;
	if (fclose(f) != 0 || bad)
		return -1;
	return rename(tmp, path);
}

/* Rank 0, once every rank has saved: Slurm, requeue this (batch) job. */
static void requeue_job(const pmix_proc_t *me, const char *checkpoint)
{
	pmix_info_t restart;
	pmix_status_t rc;

	if (PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS || me->rank != 0)
		return;
	PMIX_INFO_LOAD(&restart, PMIX_JOB_CTRL_RESTART, checkpoint,
		       PMIX_STRING);
	rc = PMIx_Job_control(NULL, 0, &restart, 1, NULL, NULL);
	printf("rank 0: requeue: %s\n", PMIx_Error_string(rc));
	PMIX_INFO_DESTRUCT(&restart);
}

int main(int argc, char **argv)
{
	pmix_status_t codes[] = {PMIX_JCTRL_PREEMPT_ALERT,
				 PMIX_ERR_JOB_CANCELED};
	char path[PATH_MAX];
	long step = 0;
	pmix_proc_t me;
	int failed = 0;
	FILE *f;

	setvbuf(stdout, NULL, _IOLBF, 0); /* lines show as they come */
	/* Slurm's SIGTERM would end us at once; the event says what comes. */
	signal(SIGTERM, SIG_IGN);
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	/* Job events are not sent to catch-all handlers: name the codes.
	 * Without a callback the registration waits and returns an id >= 0. */
	if (PMIx_Register_event_handler(codes, 2, NULL, 0, on_stop, NULL,
					NULL) < 0) {
		fprintf(stderr, "rank %u: cannot register\n", me.rank);
		PMIx_Finalize(NULL, 0);
		return 1;
	}
	snprintf(path, sizeof(path), "%s.%u", argc > 1 ? argv[1] : "ckpt",
		 me.rank);
	if ((f = fopen(path, "r")) && fscanf(f, "%ld", &step) != 1)
		step = 0;
	if (f)
		fclose(f);
	printf("rank %u: starting at step %ld\n", me.rank, step);

	for (; step < STEPS && !atomic_load(&stop_code); step++)
		usleep(100000); /* one step of real work */

	if (atomic_load(&stop_code) == PMIX_JCTRL_PREEMPT_ALERT)
		printf("rank %u: preempted (%s), %u s of grace time left\n",
		       me.rank, mode, atomic_load(&seconds_left));
	else if (atomic_load(&stop_code) == PMIX_ERR_JOB_CANCELED)
		printf("rank %u: the job was cancelled\n", me.rank);
	if (step == STEPS) /* all done: the next run starts afresh */
		remove(path);
	else if ((failed = save_checkpoint(path, step) != 0))
		perror(path);
	else
		printf("rank %u: checkpoint %s written at step %ld\n", me.rank,
		       path, step);
	if (!strcmp(mode, "requeue"))
		requeue_job(&me, path);
	PMIx_Finalize(NULL, 0);
	return failed;
}
