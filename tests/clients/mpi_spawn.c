/*
 * mpi_spawn - MPI_Comm_spawn: every rank of the parent job spawns N
 * children of this program, and both sides talk over the
 * intercommunicator.
 *
 *   mpi_spawn [--n N] [--multiple] [--bench K] [--timeout S]
 *
 * The parent (all ranks) calls MPI_Comm_spawn of N copies of this program
 * (default 2), or with --multiple MPI_Comm_spawn_multiple of two commands
 * (this program with "--app a" and "--app b", N/2 and N - N/2 copies).
 * Parent rank 0 sends each child a token (1000 + its rank); each child
 * replies with the token plus 1000. Then both sides merge the
 * intercommunicator (the parent low) and allreduce 1 over it: the sum is
 * the parents plus the children. All disconnect and finalize.
 *
 * Prints, on each parent rank, "mpi_spawn: parent rank R of P on HOST:
 * N children, replies ok, merged sum M ok", and on each child "mpi_spawn:
 * child rank R of N (app A) on HOST: token T from parent, merged sum M
 * ok" (FAILED with the numbers otherwise). Exit status 0 only when all is
 * right.
 *
 * --bench K: K spawns one after the other, each timed on parent rank 0
 * from the call to the end of the first message round trip with child 0
 * (a working intercommunicator); rank 0 prints "mpi_spawn: bench K
 * spawns of N: median U ms min U ms max U ms".
 *
 * Never hangs: after S seconds (default 60; the children get the same)
 * a rank prints "mpi_spawn: ROLE rank R: timed out after S s in PHASE"
 * and exits 3. Errors are returned (MPI_ERRORS_RETURN), printed with
 * Open MPI's words, exit 1.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define PROG	  "mpi_spawn"
#define TAG_TOKEN 1
#define TAG_REPLY 2

static char host[MPI_MAX_PROCESSOR_NAME];
static char alarm_msg[128];
static volatile const char *phase = "MPI_Init";

static void on_alarm(int sig)
{
	size_t len = strlen(alarm_msg);
	const char *p = (const char *)phase;

	(void)sig;
	if (write(STDOUT_FILENO, alarm_msg, len) < 0 ||
	    write(STDOUT_FILENO, p, strlen(p)) < 0 ||
	    write(STDOUT_FILENO, "\n", 1) < 0)
		_exit(3);
	_exit(3);
}

static void arm(const char *role, int rank, unsigned int secs)
{
	snprintf(alarm_msg, sizeof(alarm_msg),
		 PROG ": %s rank %d: timed out after %u s in ", role, rank,
		 secs);
	signal(SIGALRM, on_alarm);
	alarm(secs);
}

static int failed(const char *role, int rank, const char *what, int rc)
{
	char err[MPI_MAX_ERROR_STRING] = "";
	int len = 0;

	MPI_Error_string(rc, err, &len);
	printf(PROG ": %s rank %d on %s: %s FAILED: %s\n", role, rank, host,
	       what, err);
	fflush(stdout);
	return 1;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Merge `inter` (the parent side low) and allreduce 1 over it; the sum
 * into *sum. */
static int merged_sum(MPI_Comm inter, int high, int *sum)
{
	MPI_Comm merged;
	int one = 1, rc;

	phase = "MPI_Intercomm_merge";
	rc = MPI_Intercomm_merge(inter, high, &merged);
	if (rc != MPI_SUCCESS)
		return rc;
	phase = "MPI_Allreduce over the merged communicator";
	rc = MPI_Allreduce(&one, sum, 1, MPI_INT, MPI_SUM, merged);
	MPI_Comm_free(&merged);
	return rc;
}

/* One spawn of n children from all ranks of the world; the
 * intercommunicator into *inter. */
static int spawn(const char *self, int n, int multiple, unsigned int secs,
		 MPI_Comm *inter)
{
	char tbuf[16];
	char *args[] = {"--child", "--timeout", tbuf, NULL};
	char *args_a[] = {"--child", "--timeout", tbuf, "--app", "a", NULL};
	char *args_b[] = {"--child", "--timeout", tbuf, "--app", "b", NULL};
	char *cmds[2] = {(char *)self, (char *)self};
	char **argvs[2] = {args_a, args_b};
	int counts[2] = {n / 2, n - n / 2};
	MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};

	snprintf(tbuf, sizeof(tbuf), "%u", secs);
	if (!multiple) {
		phase = "MPI_Comm_spawn";
		return MPI_Comm_spawn(self, args, n, MPI_INFO_NULL, 0,
				      MPI_COMM_WORLD, inter,
				      MPI_ERRCODES_IGNORE);
	}
	phase = "MPI_Comm_spawn_multiple";
	return MPI_Comm_spawn_multiple(2, cmds, argvs, counts, infos, 0,
				       MPI_COMM_WORLD, inter,
				       MPI_ERRCODES_IGNORE);
}

/* Parent rank 0: a token to each child, then each one's reply; the
 * number of right replies. */
static int tokens(MPI_Comm inter, int n)
{
	int right = 0;

	phase = "the token exchange with the children";
	for (int c = 0; c < n; c++) {
		int token = 1000 + c;

		if (MPI_Send(&token, 1, MPI_INT, c, TAG_TOKEN, inter) !=
		    MPI_SUCCESS)
			return right;
	}
	for (int c = 0; c < n; c++) {
		int reply = -1;

		if (MPI_Recv(&reply, 1, MPI_INT, c, TAG_REPLY, inter,
			     MPI_STATUS_IGNORE) == MPI_SUCCESS &&
		    reply == 2000 + c)
			right++;
	}
	return right;
}

static int parent(const char *self, int n, int multiple, int nbench,
		  unsigned int secs)
{
	int rank, size, rounds = nbench > 0 ? nbench : 1, bad = 0;
	double *t = calloc((size_t)rounds, sizeof(*t));

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	arm("parent", rank, secs);
	if (!t)
		return 1;
	for (int i = 0; i < rounds && !bad; i++) {
		MPI_Comm inter;
		int rc, sum = 0, right = n, remote = 0;
		double t0;

		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		rc = spawn(self, n, multiple, secs, &inter);
		if (rc != MPI_SUCCESS) {
			bad = failed("parent", rank, (const char *)phase, rc);
			break;
		}
		MPI_Comm_remote_size(inter, &remote);
		if (rank == 0)
			right = tokens(inter, remote);
		t[i] = MPI_Wtime() - t0;
		rc = merged_sum(inter, 0, &sum);
		if (rc != MPI_SUCCESS) {
			bad = failed("parent", rank, (const char *)phase, rc);
			break;
		}
		bad = remote != n || right != n || sum != size + n;
		if (!nbench)
			printf(PROG ": parent rank %d of %d on %s: %d "
				    "children, replies %s, merged sum %d %s\n",
			       rank, size, host, remote,
			       right == n ? "ok" : "FAILED", sum,
			       sum == size + n ? "ok" : "FAILED");
		phase = "MPI_Comm_disconnect";
		MPI_Comm_disconnect(&inter);
	}
	qsort(t, (size_t)rounds, sizeof(*t), by_value);
	if (nbench && !bad && rank == 0)
		printf(PROG ": bench %d spawns of %d: median %.0f ms min %.0f "
			    "ms max %.0f ms\n",
		       nbench, n, t[(rounds - 1) / 2] * 1e3, t[0] * 1e3,
		       t[rounds - 1] * 1e3);
	free(t);
	return bad;
}

static int child(MPI_Comm inter, const char *app, unsigned int secs)
{
	int rank, size, psize = 0, token = -1, sum = 0, rc, bad;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	arm("child", rank, secs);
	MPI_Comm_remote_size(inter, &psize);
	phase = "the token from parent rank 0";
	rc = MPI_Recv(&token, 1, MPI_INT, 0, TAG_TOKEN, inter,
		      MPI_STATUS_IGNORE);
	if (rc != MPI_SUCCESS)
		return failed("child", rank, (const char *)phase, rc);
	token += 1000;
	phase = "the reply to parent rank 0";
	rc = MPI_Send(&token, 1, MPI_INT, 0, TAG_REPLY, inter);
	if (rc != MPI_SUCCESS)
		return failed("child", rank, (const char *)phase, rc);
	rc = merged_sum(inter, 1, &sum);
	if (rc != MPI_SUCCESS)
		return failed("child", rank, (const char *)phase, rc);
	bad = token != 2000 + rank || sum != psize + size;
	printf(PROG ": child rank %d of %d (app %s) on %s: token %d from "
		    "parent %s, merged sum %d %s\n",
	       rank, size, app, host, token - 1000,
	       token == 2000 + rank ? "ok" : "FAILED", sum,
	       sum == psize + size ? "ok" : "FAILED");
	phase = "MPI_Comm_disconnect";
	MPI_Comm_disconnect(&inter);
	return bad;
}

int main(int argc, char **argv)
{
	const char *app = "-";
	int n = 2, multiple = 0, nbench = 0, is_child = 0, len, bad;
	unsigned int secs = 60;
	MPI_Comm inter;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--n") && i + 1 < argc) {
			n = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--multiple")) {
			multiple = 1;
		} else if (!strcmp(argv[i], "--bench") && i + 1 < argc) {
			nbench = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			secs = (unsigned int)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--child")) {
			is_child = 1;
		} else if (!strcmp(argv[i], "--app") && i + 1 < argc) {
			app = argv[++i];
		} else {
			fprintf(stderr, "usage: " PROG " [--n N] [--multiple] "
					"[--bench K] [--timeout S]\n");
			return 2;
		}
	}
	if (n < 1 || (multiple && n < 2) || secs < 1) {
		fprintf(stderr, PROG ": --n must be at least 1 (2 with "
				     "--multiple), --timeout at least 1\n");
		return 2;
	}
	/* the rank before MPI_Init: the PMIx server gives it to its clients */
	arm(is_child ? "child" : "parent",
	    getenv("PMIX_RANK") ? atoi(getenv("PMIX_RANK")) : -1, secs);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		printf(PROG ": MPI_Init FAILED\n");
		return 1;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Get_processor_name(host, &len);
	MPI_Comm_get_parent(&inter);
	if (is_child && inter == MPI_COMM_NULL) {
		printf(PROG ": child on %s: no parent (MPI_Comm_get_parent)\n",
		       host);
		bad = 1;
	} else if (is_child) {
		MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
		bad = child(inter, app, secs);
	} else {
		bad = parent(argv[0], n, multiple, nbench, secs);
	}
	phase = "MPI_Finalize";
	MPI_Finalize();
	return bad;
}
