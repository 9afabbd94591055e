/*
 * mpi_sessions - MPI-4 Sessions under srun: communicators built from
 * process sets, without MPI_Init (Open MPI 5 builds each with a PMIx group
 * construct that asks its host for a context id).
 *
 *   mpi_sessions --have-sessions   exit 0 when this MPI has Sessions
 *   mpi_sessions [--pset NAME] [--bench N]
 *
 * MPI_Session_init, the session's process sets (printed), then a group
 * from NAME (default "mpi://WORLD") and MPI_Comm_create_from_group; an
 * allreduce of the ranks over it (must be N(N-1)/2). Then the group's two
 * halves (ranks below N/2 and the rest) each get a communicator, and
 * MPI_Intercomm_create_from_groups joins them; an allreduce over the
 * intercommunicator gives each half the other half's sum.
 *
 * --bench N (bench/sessions.sh): the world communicator and its allreduce
 * as above (no halves), then N rounds of MPI_Comm_create_from_group from
 * the same group, each with a tag of its own ("bench.I"), and
 * MPI_Comm_free; each create is timed with MPI_Wtime. Rank 0 prints the
 * median, the 90th percentile and the fastest over the rounds.
 *
 * Prints "mpi_sessions: rank R of N on HOST: psets P1,P2,...", "...: world
 * sum S ok", "...: intercomm sum S ok" (or FAILED with the numbers); with
 * --bench, rank 0 "...: bench N: median U us p90 U us min U us" ("bench N: K
 * creates FAILED" on any rank where one failed). Exit status 0 only when
 * all is right.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define PROG "mpi_sessions"

/* Open MPI 5 has Sessions but still says MPI 3.1. */
#if MPI_VERSION >= 4 || defined(MPI_SESSION_NULL)

static char host[MPI_MAX_PROCESSOR_NAME];

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* "P1,P2" of the session's process sets into buf. */
static void pset_list(MPI_Session s, char *buf, size_t len)
{
	int n = 0;
	size_t off = 0;

	buf[0] = '\0';
	MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
	for (int i = 0; i < n && off < len; i++) {
		char name[256];
		int nlen = sizeof(name);

		if (MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &nlen,
					     name) != MPI_SUCCESS)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? "," : "", name);
	}
}

/* Communicators from `g`'s halves, joined; 0 when the sums are right. */
static int halves(MPI_Group g, int rank, int size)
{
	int lo_n = size / 2, mine = rank < lo_n, bad = 0;
	int range[1][3] = {{mine ? 0 : lo_n, mine ? lo_n - 1 : size - 1, 1}},
	    other[1][3] = {{mine ? lo_n : 0, mine ? size - 1 : lo_n - 1, 1}};
	long sum = rank, got = -1, want = 0;
	MPI_Group local, remote;
	MPI_Comm lc, ic;

	for (int r = other[0][0]; r <= other[0][1]; r++)
		want += r;
	MPI_Group_range_incl(g, 1, range, &local);
	MPI_Group_range_incl(g, 1, other, &remote);
	if (MPI_Comm_create_from_group(local, mine ? "half.lo" : "half.hi",
				       MPI_INFO_NULL, MPI_ERRORS_RETURN,
				       &lc) != MPI_SUCCESS ||
	    MPI_Intercomm_create_from_groups(local, 0, remote, 0, "halves",
					     MPI_INFO_NULL, MPI_ERRORS_RETURN,
					     &ic) != MPI_SUCCESS) {
		printf(PROG
		       ": rank %d of %d on %s: intercomm FAILED to build\n",
		       rank, size, host);
		return 1;
	}
	MPI_Allreduce(&sum, &got, 1, MPI_LONG, MPI_SUM, ic);
	bad = got != want;
	printf(PROG ": rank %d of %d on %s: intercomm sum %ld %s\n", rank, size,
	       host, got, bad ? "FAILED" : "ok");
	MPI_Comm_free(&ic);
	MPI_Comm_free(&lc);
	MPI_Group_free(&local);
	MPI_Group_free(&remote);
	return bad;
}

/* n rounds of create + free from `g`, each create timed; 0 when all of
 * them built a communicator. */
static int bench(MPI_Group g, int rank, int size, int n)
{
	double *t = calloc((size_t)n, sizeof(*t));
	int failed = 0;

	if (!t)
		exit(1);
	for (int i = 0; i < n; i++) {
		char tag[32];
		double t0;
		MPI_Comm c = MPI_COMM_NULL;
		int rc;

		snprintf(tag, sizeof(tag), "bench.%d", i);
		t0 = MPI_Wtime();
		rc = MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL,
						MPI_ERRORS_RETURN, &c);
		t[i] = MPI_Wtime() - t0;
		if (rc != MPI_SUCCESS || c == MPI_COMM_NULL) {
			failed++;
			continue;
		}
		MPI_Comm_free(&c);
	}
	qsort(t, (size_t)n, sizeof(*t), by_value);
	if (failed)
		printf(PROG ": rank %d of %d on %s: bench %d: %d creates "
			    "FAILED\n",
		       rank, size, host, n, failed);
	else if (rank == 0)
		printf(PROG ": rank %d of %d on %s: bench %d: median %.0f us "
			    "p90 %.0f us min %.0f us\n",
		       rank, size, host, n, t[(n - 1) / 2] * 1e6,
		       t[(n * 9 - 1) / 10] * 1e6, t[0] * 1e6);
	free(t);
	return failed != 0;
}

int main(int argc, char **argv)
{
	const char *pset = "mpi://WORLD";
	char list[1024];
	int rank = -1, size = 0, len, bad = 0, nbench = 0, rc = MPI_SUCCESS;
	long sum, got = -1;
	MPI_Session s;
	MPI_Group g;
	MPI_Comm c;

	if (argc == 2 && !strcmp(argv[1], "--have-sessions"))
		return 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pset") && i + 1 < argc) {
			pset = argv[++i];
		} else if (!strcmp(argv[i], "--bench") && i + 1 < argc) {
			nbench = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: " PROG " [--have-sessions] "
					"[--pset NAME] [--bench N]\n");
			return 2;
		}
	}
	/* never hang: SIGALRM ends the process (a create may take 0.2 s at
	 * -n24 once OpenPMIx holds many groups' info: see bench/README.md) */
	alarm(120 + (unsigned int)(nbench > 0 ? nbench : 0));
	if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) !=
	    MPI_SUCCESS) {
		printf(PROG ": MPI_Session_init FAILED\n");
		return 1;
	}
	pset_list(s, list, sizeof(list));
	if (MPI_Group_from_session_pset(s, pset, &g) != MPI_SUCCESS ||
	    MPI_Group_size(g, &size) != MPI_SUCCESS || size < 1 ||
	    (rc = MPI_Comm_create_from_group(g, "world", MPI_INFO_NULL,
					     MPI_ERRORS_RETURN, &c)) !=
		    MPI_SUCCESS ||
	    c == MPI_COMM_NULL) {
		char err[MPI_MAX_ERROR_STRING] = "";
		int cls = rc;

		/* which error class (stock mpi/pmix: UNSUPPORTED_OPERATION) */
		if (rc != MPI_SUCCESS) {
			MPI_Error_class(rc, &cls);
			MPI_Error_string(cls, err, &len);
		}
		printf(PROG ": a communicator from %s FAILED to build (a "
			    "group of %d; psets %s)%s%s\n",
		       pset, size, list, *err ? ": " : "", err);
		return 1;
	}
	MPI_Comm_rank(c, &rank);
	MPI_Comm_size(c, &size);
	MPI_Get_processor_name(host, &len);
	printf(PROG ": rank %d of %d on %s: psets %s\n", rank, size, host,
	       list);
	sum = rank;
	MPI_Allreduce(&sum, &got, 1, MPI_LONG, MPI_SUM, c);
	bad = got != (long)size * (size - 1) / 2;
	printf(PROG ": rank %d of %d on %s: world sum %ld %s\n", rank, size,
	       host, got, bad ? "FAILED" : "ok");
	if (nbench > 0)
		bad |= bench(g, rank, size, nbench);
	else if (size > 1)
		bad |= halves(g, rank, size);
	MPI_Comm_free(&c);
	MPI_Group_free(&g);
	MPI_Session_finalize(&s);
	return bad;
}

#else /* no MPI-4 Sessions */

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, PROG ": this MPI (MPI %d.%d) has no Sessions\n",
		MPI_VERSION, MPI_SUBVERSION);
	return 1;
}

#endif
