/*
 * mpi_hello - minimal Open MPI program: MPI_Init, rank, size and host,
 * MPI_Barrier, MPI_Finalize.
 *
 * usage: mpi_hello [ARG]
 *
 * Prints "mpi_hello: rank R of N on HOST: ok", or with ARG (as given per
 * rank range in a --multi-prog file) "mpi_hello: rank R of N on HOST arg
 * ARG: ok". Exit status 0 only when every call succeeded.
 */
#include <stdio.h>
#include <unistd.h>

#include <mpi.h>

#define PROG "mpi_hello"

int main(int argc, char **argv)
{
	char host[MPI_MAX_PROCESSOR_NAME];
	int rank = -1, size = 0, len = 0, rc;

	alarm(60); /* never hang: SIGALRM ends the process */
	if ((rc = MPI_Init(&argc, &argv)) != MPI_SUCCESS) {
		fprintf(stderr, PROG ": MPI_Init failed (%d)\n", rc);
		return 1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(host, &len);
	rc = MPI_Barrier(MPI_COMM_WORLD);
	if (argc > 1)
		printf(PROG ": rank %d of %d on %s arg %s: %s\n", rank, size,
		       host, argv[1], rc == MPI_SUCCESS ? "ok" : "FAILED");
	else
		printf(PROG ": rank %d of %d on %s: %s\n", rank, size, host,
		       rc == MPI_SUCCESS ? "ok" : "FAILED");
	fflush(stdout);
	MPI_Finalize();
	return rc != MPI_SUCCESS;
}
