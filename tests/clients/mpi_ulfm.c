/*
 * mpi_ulfm - fault-tolerant MPI (ULFM): survivors of a failed process
 * recover and go on.
 *
 *   mpi_ulfm --have-ulfm      exit 0 when built with ULFM (MPIX_*), else 1;
 *                             no MPI_Init
 *   mpi_ulfm VICTIM [ITERS]   every rank runs MPI_Allreduce on
 *                             MPI_COMM_WORLD (errors returned) in a loop;
 *                             rank VICTIM (-1: none, the test kills a node)
 *                             SIGKILLs itself after ITERS (default 200)
 *                             rounds. A survivor that sees
 *                             MPIX_ERR_PROC_FAILED (or MPIX_ERR_REVOKED)
 *                             revokes the communicator, shrinks it, and
 *                             runs MPI_Allreduce on the shrunk one, whose
 *                             sum must be its size.
 *
 * Prints "mpi_ulfm: rank R: ready" once the loop runs,
 * "mpi_ulfm: rank R of N on HOST: killing myself at T" (the victim), and
 * "mpi_ulfm: rank R of N on HOST: failure seen at T1, shrunk to S,
 * allreduce S at T2: ok" from each survivor before MPI_Finalize (T: wall
 * clock, seconds). Exit status 0 only after a recovery.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#define PROG "mpi_ulfm"

#if defined(OMPI_HAVE_MPI_EXT_FTMPI) && OMPI_HAVE_MPI_EXT_FTMPI
#define HAVE_ULFM 1
#else
#define HAVE_ULFM 0
#endif

#if HAVE_ULFM
static double wall(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static int failed(int rc)
{
	int cls = MPI_SUCCESS;

	if (rc == MPI_SUCCESS)
		return 0;
	MPI_Error_class(rc, &cls);
	return cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_REVOKED;
}

static int run(int victim, long iters)
{
	char host[MPI_MAX_PROCESSOR_NAME];
	int rank, size, len, one = 1, sum = 0, rc = MPI_SUCCESS, nsize = 0;
	MPI_Comm shrunk = MPI_COMM_NULL;
	double seen, done;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(host, &len);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	printf(PROG ": rank %d: ready\n", rank);
	for (long i = 0; !failed(rc); i++) {
		if (rank == victim && i == iters) {
			printf(PROG ": rank %d of %d on %s: killing myself at "
				    "%.6f\n",
			       rank, size, host, wall());
			fflush(stdout);
			raise(SIGKILL);
		}
		rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM,
				   MPI_COMM_WORLD);
		if (rc != MPI_SUCCESS && !failed(rc)) {
			printf(PROG ": rank %d of %d on %s: allreduce failed "
				    "with error %d, not a process failure: "
				    "FAILED\n",
			       rank, size, host, rc);
			return 1;
		}
		if (rc == MPI_SUCCESS && sum != size) {
			printf(PROG ": rank %d of %d on %s: sum %d: FAILED\n",
			       rank, size, host, sum);
			return 1;
		}
		if (rank == 0 && i % 64 == 0)
			usleep(1000); /* pace the loop on an oversubscribed node
				       */
	}
	seen = wall();
	MPIX_Comm_revoke(MPI_COMM_WORLD);
	rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk);
	if (rc != MPI_SUCCESS) {
		printf(PROG ": rank %d of %d on %s: shrink failed with error "
			    "%d: FAILED\n",
		       rank, size, host, rc);
		return 1;
	}
	MPI_Comm_size(shrunk, &nsize);
	MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
	rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, shrunk);
	done = wall();
	printf(PROG ": rank %d of %d on %s: failure seen at %.6f, shrunk to "
		    "%d, allreduce %d at %.6f: %s\n",
	       rank, size, host, seen, nsize, rc == MPI_SUCCESS ? sum : -1,
	       done, rc == MPI_SUCCESS && sum == nsize ? "ok" : "FAILED");
	fflush(stdout);
	MPI_Comm_free(&shrunk);
	return rc == MPI_SUCCESS && sum == nsize ? 0 : 1;
}
#else
static int run(int victim, long iters)
{
	(void)victim;
	(void)iters;
	fprintf(stderr,
		PROG ": this Open MPI has no ULFM (MPIX_Comm_shrink)\n");
	return 1;
}
#endif

int main(int argc, char **argv)
{
	int victim, ret;
	long iters = 200;

	if (argc == 2 && strcmp(argv[1], "--have-ulfm") == 0)
		return HAVE_ULFM ? 0 : 1;
	if (argc < 2 || argc > 3) {
		fprintf(stderr,
			"usage: " PROG " --have-ulfm | VICTIM [ITERS]\n");
		return 2;
	}
	victim = atoi(argv[1]);
	if (argc == 3)
		iters = atol(argv[2]);
	alarm(60); /* never hang: SIGALRM ends the process */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, PROG ": MPI_Init failed\n");
		return 1;
	}
	ret = run(victim, iters);
	MPI_Finalize();
	return ret;
}
