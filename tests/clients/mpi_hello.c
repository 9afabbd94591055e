/*
 * mpi_hello - minimal Open MPI program: MPI_Init, rank, size and host,
 * MPI_Barrier, MPI_Finalize.
 *
 * usage: mpi_hello [ARG | --wait FILE | --alive FILE]
 *
 * Prints "mpi_hello: rank R of N on HOST: ok", or with ARG (as given per
 * rank range in a --multi-prog file) "mpi_hello: rank R of N on HOST arg
 * ARG: ok". With --wait, each rank prints "mpi_hello: rank R: ready" after
 * the barrier, waits (up to 40 s) until FILE exists, then does a second
 * barrier before its ok line: the events a test sends meanwhile must not
 * end the process. --alive is the same without the second barrier (some
 * ranks may be gone by then): the line says "alive" instead of "ok".
 * Exit status 0 only when every call succeeded.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
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
	if (argc > 2 &&
	    (!strcmp(argv[1], "--wait") || !strcmp(argv[1], "--alive"))) {
		bool barrier = !strcmp(argv[1], "--wait");

		printf(PROG ": rank %d: ready\n", rank);
		fflush(stdout);
		for (int i = 0; i < 800 && access(argv[2], F_OK); i++)
			usleep(50000);
		if (rc == MPI_SUCCESS && barrier)
			rc = MPI_Barrier(MPI_COMM_WORLD);
		printf(PROG ": rank %d of %d on %s: %s\n", rank, size, host,
		       rc != MPI_SUCCESS ? "FAILED"
		       : barrier	 ? "ok"
					 : "alive");
	} else if (argc > 1)
		printf(PROG ": rank %d of %d on %s arg %s: %s\n", rank, size,
		       host, argv[1], rc == MPI_SUCCESS ? "ok" : "FAILED");
	else
		printf(PROG ": rank %d of %d on %s: %s\n", rank, size, host,
		       rc == MPI_SUCCESS ? "ok" : "FAILED");
	fflush(stdout);
	MPI_Finalize();
	return rc != MPI_SUCCESS;
}
