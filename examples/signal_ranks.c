/*
 * signal_ranks - one rank signals the others through PMIx; each says so in
 * syslog.
 *
 *   srun --mpi=pmixev -N3 -n3 ./signal_ranks
 *
 * Rank 0 sends SIGUSR1 to every other rank of the step with
 * PMIx_Job_control (PMIX_JOB_CTRL_SIGNAL). The targets are single ranks,
 * wherever they run: the stepd of each target's node signals that task,
 * and only that one. (PMIX_JOB_CTRL_TERMINATE or _KILL instead end the
 * targets; PMIX_RANK_WILDCARD as the rank means the whole step.)
 * Each worker, told by the signal to stop, logs a line with PMIx_Log to
 * the syslog of its node (PMIX_LOG_SYSLOG, here at LOG_NOTICE), and rank 0
 * logs the outcome to the syslog of the step's first node
 * (PMIX_LOG_GLOBAL_SYSLOG). pmixev writes them as
 *   pmixev[PID]: step JOB.STEP rank R (uid U): TEXT
 * into the syslog the site names (mpi.conf PMIxevLogSyslog).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <pmix.h>

static volatile sig_atomic_t stop_asked;

static void on_sigusr1(int sig)
{
	stop_asked = 1;
}

/* One line into syslog through the PMIx server; channel: a PMIX_LOG_ key. */
static pmix_status_t log_line(const char *channel, const char *text)
{
	pmix_info_t data, priority;
	int notice = LOG_NOTICE;
	pmix_status_t rc;

	PMIX_INFO_LOAD(&data, channel, text, PMIX_STRING);
	PMIX_INFO_LOAD(&priority, PMIX_LOG_SYSLOG_PRI, &notice, PMIX_INT);
	rc = PMIx_Log(&data, 1, &priority, 1);
	PMIX_INFO_DESTRUCT(&data);
	PMIX_INFO_DESTRUCT(&priority);
	return rc;
}

/* Rank 0: SIGUSR1 to ranks 1..size-1 in one request (no targets at all
 * would mean the whole step); PMIX_SUCCESS when all got it. */
static pmix_status_t signal_workers(const pmix_proc_t *me, uint32_t size)
{
	pmix_proc_t *workers;
	pmix_info_t signal_dir, *results = NULL;
	size_t nresults = 0;
	int signo = SIGUSR1;
	pmix_status_t rc;
	char text[128];

	if (size < 2)
		return PMIX_SUCCESS;
	PMIX_PROC_CREATE(workers, size - 1);
	for (uint32_t r = 1; r < size; r++)
		PMIX_LOAD_PROCID(&workers[r - 1], me->nspace, r);
	PMIX_INFO_LOAD(&signal_dir, PMIX_JOB_CTRL_SIGNAL, &signo, PMIX_INT);
	rc = PMIx_Job_control(workers, size - 1, &signal_dir, 1, &results,
			      &nresults);
	snprintf(text, sizeof(text), "signalled %u worker(s) to stop: %s",
		 size - 1, PMIx_Error_string(rc));
	printf("rank 0: %s\n", text);
	log_line(PMIX_LOG_GLOBAL_SYSLOG, text);
	PMIX_INFO_FREE(results, nresults);
	PMIX_INFO_DESTRUCT(&signal_dir);
	PMIX_PROC_FREE(workers, size - 1);
	return rc;
}

/* A worker: work until SIGUSR1 comes, then say so in the node's syslog. */
static pmix_status_t work_until_signalled(const pmix_proc_t *me)
{
	char host[64] = "?", text[160];

	while (!stop_asked)
		usleep(100000); /* one step of real work */
	gethostname(host, sizeof(host) - 1);
	snprintf(text, sizeof(text), "rank %u on %s: got SIGUSR1, stopping",
		 me->rank, host);
	printf("%s\n", text);
	return log_line(PMIX_LOG_SYSLOG, text);
}

int main(void)
{
	pmix_proc_t me, wildcard;
	pmix_value_t *size = NULL;
	pmix_status_t rc;

	signal(SIGUSR1, on_sigusr1);
	setvbuf(stdout, NULL, _IOLBF, 0); /* lines show as they come */
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	PMIX_LOAD_PROCID(&wildcard, me.nspace, PMIX_RANK_WILDCARD);
	rc = PMIx_Get(&wildcard, PMIX_JOB_SIZE, NULL, 0, &size);
	/* Every rank has its handler in place before rank 0 signals. */
	if (rc == PMIX_SUCCESS)
		rc = PMIx_Fence(NULL, 0, NULL, 0);
	if (rc == PMIX_SUCCESS && me.rank == 0)
		rc = signal_workers(&me, size->data.uint32);
	else if (rc == PMIX_SUCCESS)
		rc = work_until_signalled(&me);
	if (rc != PMIX_SUCCESS)
		fprintf(stderr, "rank %u: %s\n", me.rank,
			PMIx_Error_string(rc));
	if (size)
		PMIX_VALUE_RELEASE(size);
	PMIx_Finalize(NULL, 0);
	return rc != PMIX_SUCCESS;
}
