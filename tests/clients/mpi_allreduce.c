/*
 * mpi_allreduce - MPI_Allreduce of the ranks (must be N(N-1)/2) and of a
 * 1 MiB vector (element i of rank R is R + i, so the sum is
 * N(N-1)/2 + N * i).
 *
 * Prints "mpi_allreduce: rank R of N on HOST: sum S ok, 1 MiB ok" (or the
 * first wrong element and "FAILED"). Exit status 0 only when both sums are
 * right.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>

#define PROG   "mpi_allreduce"
#define NELEMS ((1 << 20) / sizeof(int64_t)) /* 1 MiB */

int main(int argc, char **argv)
{
	char host[MPI_MAX_PROCESSOR_NAME];
	int rank, size, len, bad = 0;
	int64_t *in, *out, sum = -1, base, n;

	alarm(60); /* never hang: SIGALRM ends the process */
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, PROG ": MPI_Init failed\n");
		return 1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(host, &len);
	n = size;
	base = n * (n - 1) / 2;

	int64_t mine = rank;
	MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (sum != base) {
		printf(PROG ": rank %d: sum of ranks: got %lld, expected "
			    "%lld\n",
		       rank, (long long)sum, (long long)base);
		bad = 1;
	}

	in = malloc(NELEMS * sizeof(*in));
	out = malloc(NELEMS * sizeof(*out));
	if (!in || !out) {
		perror(PROG);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (size_t i = 0; i < NELEMS; i++)
		in[i] = rank + (int64_t)i;
	MPI_Allreduce(in, out, (int)NELEMS, MPI_INT64_T, MPI_SUM,
		      MPI_COMM_WORLD);
	for (size_t i = 0; i < NELEMS; i++) {
		if (out[i] != base + n * (int64_t)i) {
			printf(PROG ": rank %d: 1 MiB vector: element %zu: "
				    "got %lld, expected %lld\n",
			       rank, i, (long long)out[i],
			       (long long)(base + n * (int64_t)i));
			bad = 1;
			break;
		}
	}
	printf(PROG ": rank %d of %d on %s: sum %lld, 1 MiB: %s\n", rank, size,
	       host, (long long)sum, bad ? "FAILED" : "ok");
	fflush(stdout);
	free(in);
	free(out);
	MPI_Finalize();
	return bad;
}
