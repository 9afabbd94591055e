/*
 * ulfm_survivor - an MPI job that outlives one of its ranks (Open MPI 5's
 * fault tolerance, ULFM).
 *
 *   OMPI_MCA_mpi_ft_enable=1 srun --mpi=pmixev --no-kill -K0 -N3 -n6 \
 *       ./ulfm_survivor 5
 *
 * The ranks sum a value in 100 rounds of MPI_Allreduce. The rank named on
 * the command line (none by default) dies by SIGKILL in round 30, as a
 * crashed process would. -K0 keeps the step going when a task dies
 * (--no-kill: when a node is lost), and pmixev tells every survivor through
 * PMIx, which is how Open MPI learns of the failure: the survivors'
 * MPI_Allreduce returns MPIX_ERR_PROC_FAILED (or MPIX_ERR_REVOKED). They
 * revoke the communicator, so that every survivor stops using it, shrink
 * it to the live ranks, agree on the round to go on from, and finish.
 * srun reports the killed task and exits non-zero; the survivors exit 0.
 * Build with an Open MPI that has ULFM (5.0: mpi-ext.h has MPIX_Comm_shrink).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>
#include <mpi-ext.h> /* MPIX_Comm_revoke, MPIX_Comm_shrink */

#define ROUNDS	    100
#define DEATH_ROUND 30

/* Whether an MPI error means "a process failed" (ULFM's error classes). */
static int process_failed(int err)
{
	int cls;

	MPI_Error_class(err, &cls);
	return cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_REVOKED;
}

int main(int argc, char **argv)
{
	int me, size, victim = argc > 1 ? atoi(argv[1]) : -1;
	int round = 0, one = 1, sum = 0, err;
	MPI_Comm comm = MPI_COMM_WORLD, smaller;

	setvbuf(stdout, NULL, _IOLBF, 0); /* lines show as they come */
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	/* Errors come back as return codes instead of aborting the job. */
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

	while (round < ROUNDS) {
		if (me == victim && round == DEATH_ROUND) {
			printf("rank %d: dying in round %d\n", me, round);
			raise(SIGKILL);
		}
		err = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
		if (err == MPI_SUCCESS) {
			round++;
			usleep(20000); /* the real work of a round */
			continue;
		}
		if (!process_failed(err)) {
			fprintf(stderr, "rank %d: MPI error %d\n", me, err);
			MPI_Abort(comm, 1);
		}
		/* Make sure every survivor leaves the old communicator (one
		 * that got no error yet would wait in it), then build one
		 * without the dead. */
		MPIX_Comm_revoke(comm);
		if (MPIX_Comm_shrink(comm, &smaller) != MPI_SUCCESS)
			MPI_Abort(comm, 1);
		if (comm != MPI_COMM_WORLD)
			MPI_Comm_free(&comm);
		comm = smaller;
		MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
		/* Some survivors may have finished the interrupted round and
		 * others not: all go on from the earliest. */
		MPI_Allreduce(MPI_IN_PLACE, &round, 1, MPI_INT, MPI_MIN, comm);
		MPI_Comm_size(comm, &size);
		printf("rank %d: a rank failed; %d ranks go on from round %d\n",
		       me, size, round);
	}
	MPI_Comm_size(comm, &size);
	printf("rank %d: %d rounds done, sum %d on %d ranks\n", me, ROUNDS, sum,
	       size);
	if (comm != MPI_COMM_WORLD)
		MPI_Comm_free(&comm);
	MPI_Finalize();
	return 0;
}
