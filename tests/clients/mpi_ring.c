/*
 * mpi_ring - pass a token around MPI_COMM_WORLD ten times.
 *
 * The token starts at 0; every rank adds one and passes it to the next
 * rank. On lap L rank R > 0 must receive L * N + R, and rank 0 must get
 * (L + 1) * N back at the end of the lap (10 * N after the last).
 *
 * Prints "mpi_ring: rank R of N on HOST: 10 laps ok" (or a line per wrong
 * token and "FAILED"). Exit status 0 only when every token was right.
 */
#include <stdio.h>
#include <unistd.h>

#include <mpi.h>

#define PROG "mpi_ring"
#define LAPS 10

int main(int argc, char **argv)
{
	char host[MPI_MAX_PROCESSOR_NAME];
	int rank, size, len, next, prev, bad = 0;
	long token = 0, expect;

	alarm(60); /* never hang: SIGALRM ends the process */
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, PROG ": MPI_Init failed\n");
		return 1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(host, &len);
	next = (rank + 1) % size;
	prev = (rank + size - 1) % size;

	for (int lap = 0; lap < LAPS && size > 1; lap++) {
		if (rank == 0) {
			token++;
			MPI_Send(&token, 1, MPI_LONG, next, lap,
				 MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			expect = (long)(lap + 1) * size;
		} else {
			MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			expect = (long)lap * size + rank;
		}
		if (token != expect) {
			printf(PROG ": rank %d: lap %d: got token %ld, "
				    "expected %ld\n",
			       rank, lap, token, expect);
			bad = 1;
		}
		if (rank != 0) {
			token++;
			MPI_Send(&token, 1, MPI_LONG, next, lap,
				 MPI_COMM_WORLD);
		}
	}
	printf(PROG ": rank %d of %d on %s: %d laps %s\n", rank, size, host,
	       LAPS, bad ? "FAILED" : "ok");
	fflush(stdout);
	MPI_Finalize();
	return bad;
}
