/*
 * pmix_keys - check the standard keys a PMIx host registers against what
 * Slurm tells the task in its environment.
 *
 * usage: pmix_keys [-v] [--appnum N] [--app-size N] [--app-rank N]
 *                  [--num-apps N] [--allow-missing KEY,...]
 *
 * Every rank reads the job, node, app and proc keys of the PMIx standard
 * (job size, ranks, node id, host name, local peers, directories, ...) and
 * compares each with SLURM_NTASKS, SLURM_PROCID, SLURM_LOCALID,
 * SLURM_NODEID, SLURM_STEP_TASKS_PER_NODE, SLURM_STEP_NUM_NODES,
 * SLURMD_NODENAME and SLURM_JOB_ID. Then every rank puts its own host name
 * and node id, fences with PMIX_COLLECT_DATA, and checks PMIX_HOSTNAME and
 * PMIX_NODEID of every peer against what that peer put (and PMIX_LOCAL_PEERS
 * against the peers that put the same host).
 *
 * Values must also have the data type the standard gives them (Open MPI
 * unpacks them by type).
 *
 * Output: one line per failed check,
 *   "pmix_keys: rank R: KEY: got X, expected Y"
 * and a summary per rank, "pmix_keys: rank R: N keys ok" (with
 * ", M FAILED" appended when any check failed). -v prints every check.
 * --appnum/--app-size/--app-rank/--num-apps give the expected PMIX_APPNUM
 * (default 0), PMIX_APP_SIZE (default SLURM_NTASKS), PMIX_APP_RANK (default
 * the rank) and PMIX_JOB_NUM_APPS (default 1) for MPMD steps. --allow-missing
 * lets the named keys (e.g. PMIX_NUM_NODES) be absent; it is announced by rank
 * 0 and every missing key it excuses is printed. Exit status 0 only when every
 * check passed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix.h>

#include "client_util.h"
#include "keys_check.h"
#include "list_formats.h"

#define KEY_HOST   "keys.host" /* keys starting "pmix" are reserved */
#define KEY_NODEID "keys.nodeid"

pmix_proc_t me, wild;
static unsigned nok, nbad;
static bool verbose;
static const char *allow_missing; /* comma list of key names, or NULL */

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " [-v] [--appnum N] [--app-size N] "
			"[--app-rank N] [--num-apps N] "
			"[--allow-missing KEY,...]\n");
	exit(2);
}

void bad(const char *name, const char *got, const char *fmt, ...)
{
	char expected[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(expected, sizeof(expected), fmt, ap);
	va_end(ap);
	printf(PROG ": rank %u: %s: got %s, expected %s\n", me.rank, name, got,
	       expected);
	nbad++;
}

void good(const char *name, const char *fmt, ...)
{
	char got[512];
	va_list ap;

	nok++;
	if (!verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(got, sizeof(got), fmt, ap);
	va_end(ap);
	printf(PROG ": rank %u: %s: %s ok\n", me.rank, name, got);
}

static bool is_allowed_missing(const char *name)
{
	size_t len = strlen(name);
	const char *p = allow_missing;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == len && !strncmp(p, name, n))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

pmix_value_t *fetch_q(const pmix_proc_t *who, const char *name, const char *key,
		      const pmix_info_t *info, size_t ninfo,
		      pmix_data_type_t type, const char *expected)
{
	pmix_value_t *v = NULL;
	char got[128];
	pmix_status_t rc;

	rc = PMIx_Get(who, key, info, ninfo, &v);
	if (rc != PMIX_SUCCESS) {
		if (is_allowed_missing(name)) {
			printf(PROG ": rank %u: %s: missing (%s), "
				    "allowed by --allow-missing\n",
			       me.rank, name, PMIx_Error_string(rc));
			return NULL;
		}
		bad(name, PMIx_Error_string(rc), "%s", expected);
		return NULL;
	}
	if (!v || v->type != type) {
		snprintf(got, sizeof(got), "a value of type %s",
			 v ? PMIx_Data_type_string(v->type) : "(none)");
		bad(name, got, "%s of type %s", expected,
		    PMIx_Data_type_string(type));
		if (v)
			PMIX_VALUE_RELEASE(v);
		return NULL;
	}
	return v;
}

/*
 * fetch WHO NAME KEY TYPE EXPECTED...: PMIx_Get WHO's KEY (NAME is how
 * messages call it) and check its type; NULL after reporting a failure (or
 * an allowed absence).
 */
static pmix_value_t *fetch(const pmix_proc_t *who, const char *name,
			   const char *key, pmix_data_type_t type,
			   const char *fmt, ...)
{
	char expected[512];
	va_list ap;
	pmix_info_t by_rank;
	/*
	 * OpenPMIx 4.2.x sends a plain get of a node-level key (PMIX_NODEID)
	 * for a rank on another node to that node's info list, where the
	 * library itself never files the node id (gds/hash keeps it aside),
	 * so it answers NOT-FOUND whatever the host registered. PMIX_JOB_INFO
	 * makes it read the per-rank value the host did register.
	 */
	bool node_key = strcmp(key, PMIX_NODEID) == 0;

	PMIX_INFO_LOAD(&by_rank, PMIX_JOB_INFO, NULL, PMIX_BOOL);
	va_start(ap, fmt);
	vsnprintf(expected, sizeof(expected), fmt, ap);
	va_end(ap);
	return fetch_q(who, name, key, node_key ? &by_rank : NULL, node_key,
		       type, expected);
}

static uint64_t number(const pmix_value_t *v)
{
	switch (v->type) {
	case PMIX_UINT16:
		return v->data.uint16;
	case PMIX_UINT32:
		return v->data.uint32;
	case PMIX_PROC_RANK:
		return v->data.rank;
	default:
		return UINT64_MAX;
	}
}

/* check_num WHO NAME KEY TYPE EXPECT: WHO's KEY is the number EXPECT. */
static void check_num(const pmix_proc_t *who, const char *name, const char *key,
		      pmix_data_type_t type, long expect)
{
	pmix_value_t *v = fetch(who, name, key, type, "%ld", expect);
	char got[32];

	if (!v)
		return;
	if (number(v) == (uint64_t)expect) {
		good(name, "%ld", expect);
	} else {
		snprintf(got, sizeof(got), "%llu",
			 (unsigned long long)number(v));
		bad(name, got, "%ld", expect);
	}
	PMIX_VALUE_RELEASE(v);
}

/* A copy of WHO's string KEY, or NULL after reporting a failure. */
static char *fetch_str(const pmix_proc_t *who, const char *name,
		       const char *key, const char *expected)
{
	pmix_value_t *v = fetch(who, name, key, PMIX_STRING, "%s", expected);
	char *s;

	if (!v)
		return NULL;
	s = strdup(v->data.string ? v->data.string : "");
	PMIX_VALUE_RELEASE(v);
	return s;
}

static void check_dir(const pmix_proc_t *who, const char *name, const char *key)
{
	char *dir = fetch_str(who, name, key, "an existing directory");
	char got[600];
	struct stat st;

	if (!dir)
		return;
	if (stat(dir, &st)) {
		snprintf(got, sizeof(got), "%s (%s)", dir, strerror(errno));
		bad(name, got, "an existing directory");
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(got, sizeof(got), "%s (not a directory)", dir);
		bad(name, got, "an existing directory");
	} else {
		good(name, "%s (a directory)", dir);
	}
	free(dir);
}

/* Required environment variable NAME as a number (exits if missing). */
static long need_env(const char *name)
{
	long v = client_env_long(name);

	if (v < 0) {
		fprintf(stderr,
			PROG ": %s is not set or not a number "
			     "(run me under srun)\n",
			name);
		exit(2);
	}
	return v;
}

static int put_identity(const char *host, uint32_t nodeid)
{
	pmix_value_t val;
	pmix_status_t rc;

	val.type = PMIX_STRING;
	val.data.string = (char *)host;
	if ((rc = PMIx_Put(PMIX_GLOBAL, KEY_HOST, &val)) != PMIX_SUCCESS)
		goto fail;
	val.type = PMIX_UINT32;
	val.data.uint32 = nodeid;
	if ((rc = PMIx_Put(PMIX_GLOBAL, KEY_NODEID, &val)) != PMIX_SUCCESS)
		goto fail;
	if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
		goto fail;
	return 0;
fail:
	printf(PROG ": rank %u: PMIx_Put/Commit of own host and node id: %s\n",
	       me.rank, PMIx_Error_string(rc));
	nbad++;
	return -1;
}

int main(int argc, char **argv)
{
	long ntasks, procid, localid, nodeid, nnodes, ntasks_here;
	long appnum = 0, app_size = -1, app_rank = -1, num_apps = 1;
	const char *nodename, *tpn, *jobid_env;
	char hostname[256], name[64], got[600], *s;
	const char *myhost = NULL;
	bool *local = NULL, *same_host = NULL;
	pmix_value_t *v;
	pmix_status_t rc;
	pmix_info_t info, app_info[2];
	pmix_proc_t self;
	uint32_t size, app;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			verbose = true;
		} else if (!strcmp(argv[i], "--appnum") && i + 1 < argc) {
			if (client_parse_long(argv[++i], 0, 0xffffffffL,
					      &appnum))
				usage();
		} else if (!strcmp(argv[i], "--app-size") && i + 1 < argc) {
			if (client_parse_long(argv[++i], 1, 0xffffffffL,
					      &app_size))
				usage();
		} else if (!strcmp(argv[i], "--app-rank") && i + 1 < argc) {
			if (client_parse_long(argv[++i], 0, 0xffffffffL,
					      &app_rank))
				usage();
		} else if (!strcmp(argv[i], "--num-apps") && i + 1 < argc) {
			if (client_parse_long(argv[++i], 1, 0xffffffffL,
					      &num_apps))
				usage();
		} else if (!strcmp(argv[i], "--allow-missing") &&
			   i + 1 < argc) {
			allow_missing = argv[++i];
		} else {
			usage();
		}
	}
	client_watchdog(PROG, 0);

	ntasks = need_env("SLURM_NTASKS");
	procid = need_env("SLURM_PROCID");
	localid = need_env("SLURM_LOCALID");
	nodeid = need_env("SLURM_NODEID");
	nnodes = need_env("SLURM_STEP_NUM_NODES");
	tpn = getenv("SLURM_STEP_TASKS_PER_NODE");
	ntasks_here = tpn ? tasks_on_node(tpn, nodeid) : -1;
	if (ntasks_here < 1) {
		fprintf(stderr,
			PROG ": cannot find node %ld in "
			     "SLURM_STEP_TASKS_PER_NODE=%s\n",
			nodeid, tpn ? tpn : "(unset)");
		return 2;
	}
	jobid_env = getenv("SLURM_JOB_ID");
	if (!jobid_env || !*jobid_env) {
		fprintf(stderr, PROG ": SLURM_JOB_ID is not set\n");
		return 2;
	}
	if (app_size < 0)
		app_size = ntasks;
	if (gethostname(hostname, sizeof(hostname)))
		strcpy(hostname, "?");
	hostname[sizeof(hostname) - 1] = '\0';
	nodename = getenv("SLURMD_NODENAME");
	if (!nodename || !*nodename)
		nodename = hostname;

	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": SLURM_PROCID %ld: PMIx_Init: %s\n", procid,
		       PMIx_Error_string(rc));
		return 1;
	}
	if (allow_missing && me.rank == 0)
		printf(PROG ": rank 0: --allow-missing %s: these keys are "
			    "NOT checked when missing\n",
		       allow_missing);
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (me.rank == (pmix_rank_t)procid) {
		good("PMIx_Init rank", "%ld", procid);
	} else {
		snprintf(got, sizeof(got), "%u", me.rank);
		bad("PMIx_Init rank", got, "%ld (SLURM_PROCID)", procid);
	}

	/* job level */
	check_num(&wild, "PMIX_JOB_SIZE", PMIX_JOB_SIZE, PMIX_UINT32, ntasks);
	check_num(&wild, "PMIX_UNIV_SIZE", PMIX_UNIV_SIZE, PMIX_UINT32, ntasks);
	check_num(&wild, "PMIX_MAX_PROCS", PMIX_MAX_PROCS, PMIX_UINT32, ntasks);
	check_num(&wild, "PMIX_NUM_NODES", PMIX_NUM_NODES, PMIX_UINT32, nnodes);
	s = fetch_str(&wild, "PMIX_JOBID", PMIX_JOBID, jobid_env);
	if (s && has_number(s, jobid_env)) {
		good("PMIX_JOBID", "%s (contains %s)", s, jobid_env);
	} else if (s) {
		bad("PMIX_JOBID", s, "a string containing the job id %s",
		    jobid_env);
	}
	free(s);
	check_dir(&wild, "PMIX_TMPDIR", PMIX_TMPDIR);
	check_dir(&wild, "PMIX_NSDIR", PMIX_NSDIR);

	/* app level: the app this rank belongs to (PMIX_APP_INFO_ARRAY) */
	app = (uint32_t)appnum;
	PMIX_INFO_LOAD(&app_info[0], PMIX_APP_INFO, NULL, PMIX_BOOL);
	PMIX_INFO_LOAD(&app_info[1], PMIX_APPNUM, &app, PMIX_UINT32);
	v = NULL;
	rc = PMIx_Get(&wild, PMIX_APP_SIZE, app_info, 2, &v);
	PMIX_INFO_DESTRUCT(&app_info[0]);
	PMIX_INFO_DESTRUCT(&app_info[1]);
	if (rc != PMIX_SUCCESS && is_allowed_missing("PMIX_APP_SIZE")) {
		printf(PROG ": rank %u: PMIX_APP_SIZE: missing (%s), allowed "
			    "by --allow-missing\n",
		       me.rank, PMIx_Error_string(rc));
	} else if (rc != PMIX_SUCCESS) {
		bad("PMIX_APP_SIZE", PMIx_Error_string(rc), "%ld", app_size);
	} else if (v->type != PMIX_UINT32 || v->data.uint32 != app_size) {
		snprintf(got, sizeof(got), "%llu (type %s)",
			 (unsigned long long)number(v),
			 PMIx_Data_type_string(v->type));
		bad("PMIX_APP_SIZE", got, "%ld of type PMIX_UINT32", app_size);
	} else {
		good("PMIX_APP_SIZE", "%ld", app_size);
	}
	if (v)
		PMIX_VALUE_RELEASE(v);

	/* node level: this node */
	check_num(&wild, "PMIX_LOCAL_SIZE", PMIX_LOCAL_SIZE, PMIX_UINT32,
		  ntasks_here);
	check_num(&wild, "PMIX_NODE_SIZE", PMIX_NODE_SIZE, PMIX_UINT32,
		  ntasks_here);

	/* proc level: this rank */
	/* OpenPMIx answers PMIX_RANK for (own nspace, PMIX_RANK_INVALID) */
	PMIX_LOAD_PROCID(&self, me.nspace, PMIX_RANK_INVALID);
	check_num(&self, "PMIX_RANK", PMIX_RANK, PMIX_PROC_RANK, procid);
	check_num(&me, "PMIX_GLOBAL_RANK", PMIX_GLOBAL_RANK, PMIX_PROC_RANK,
		  procid);
	check_num(&me, "PMIX_LOCAL_RANK", PMIX_LOCAL_RANK, PMIX_UINT16,
		  localid);
	check_num(&me, "PMIX_NODE_RANK", PMIX_NODE_RANK, PMIX_UINT16, localid);
	check_num(&me, "PMIX_NODEID", PMIX_NODEID, PMIX_UINT32, nodeid);
	check_num(&me, "PMIX_APPNUM", PMIX_APPNUM, PMIX_UINT32, appnum);
	check_num(&me, "PMIX_APP_RANK", PMIX_APP_RANK, PMIX_PROC_RANK,
		  app_rank < 0 ? (long)procid : app_rank);
	check_num(&wild, "PMIX_JOB_NUM_APPS", PMIX_JOB_NUM_APPS, PMIX_UINT32,
		  num_apps);
	s = fetch_str(&me, "PMIX_HOSTNAME", PMIX_HOSTNAME, nodename);
	if (s && (!strcmp(s, nodename) || !strcmp(s, hostname))) {
		good("PMIX_HOSTNAME", "%s", s);
		myhost = !strcmp(s, nodename) ? nodename : hostname;
	} else if (s) {
		if (strcmp(nodename, hostname))
			bad("PMIX_HOSTNAME", s,
			    "%s (SLURMD_NODENAME) or %s "
			    "(gethostname)",
			    nodename, hostname);
		else
			bad("PMIX_HOSTNAME", s, "%s", hostname);
	}
	free(s);
	if (!myhost)
		myhost = nodename;
	s = fetch_str(&me, "PMIX_LOCALITY_STRING", PMIX_LOCALITY_STRING,
		      "a locality string");
	if (s && *s) {
		good("PMIX_LOCALITY_STRING", "%s", s);
	} else if (s) {
		bad("PMIX_LOCALITY_STRING", "an empty string",
		    "a locality string");
	}
	free(s);

	/* the peers: exchange host names and node ids, check PMIx's view */
	size = client_job_size(&me);
	if (size == 0 || size != (uint32_t)ntasks) {
		printf(PROG ": rank %u: cannot check peers without a valid "
			    "job size\n",
		       me.rank);
		nbad++;
		goto done;
	}
	local = calloc(size, sizeof(*local));
	same_host = calloc(size, sizeof(*same_host));
	if (!local || !same_host) {
		perror(PROG);
		return 1;
	}
	s = fetch_str(&wild, "PMIX_LOCAL_PEERS", PMIX_LOCAL_PEERS,
		      "a list of the ranks on this node");
	if (s) {
		long n = parse_peers(s, local, size);

		if (n != ntasks_here || !local[me.rank]) {
			bad("PMIX_LOCAL_PEERS", s,
			    "%ld distinct ranks below %u, including %u",
			    ntasks_here, size, me.rank);
			free(s);
			s = NULL;
		} else {
			good("PMIX_LOCAL_PEERS", "%s", s);
		}
	}
	check_more_keys(&(struct keys_env){.ntasks = ntasks,
					   .nnodes = nnodes,
					   .nodeid = nodeid,
					   .ntasks_here = ntasks_here,
					   .appnum = appnum,
					   .jobid = jobid_env,
					   .nodename = myhost,
					   .local = s ? local : NULL});

	if (put_identity(myhost, (uint32_t)nodeid))
		goto done;
	PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	rc = PMIx_Fence(&wild, 1, &info, 1);
	PMIX_INFO_DESTRUCT(&info);
	if (rc != PMIX_SUCCESS) {
		printf(PROG ": rank %u: PMIx_Fence(PMIX_COLLECT_DATA): %s\n",
		       me.rank, PMIx_Error_string(rc));
		nbad++;
		free(s);
		goto done;
	}
	for (uint32_t r = 0; r < size; r++) {
		pmix_proc_t peer;
		char *put_host, *pmix_host;
		pmix_value_t *pv;
		uint32_t put_id;

		PMIX_LOAD_PROCID(&peer, me.nspace, r);
		snprintf(name, sizeof(name), "%s of rank %u", KEY_HOST, r);
		put_host = fetch_str(&peer, name, KEY_HOST, "the peer's host");
		snprintf(name, sizeof(name), "%s of rank %u", KEY_NODEID, r);
		pv = fetch(&peer, name, KEY_NODEID, PMIX_UINT32,
			   "the peer's node id");
		if (!put_host || !pv) {
			free(put_host);
			if (pv)
				PMIX_VALUE_RELEASE(pv);
			continue;
		}
		put_id = pv->data.uint32;
		PMIX_VALUE_RELEASE(pv);
		same_host[r] = !strcmp(put_host, myhost);

		snprintf(name, sizeof(name), "PMIX_HOSTNAME of rank %u", r);
		pmix_host = fetch_str(&peer, name, PMIX_HOSTNAME, put_host);
		if (pmix_host && !strcmp(pmix_host, put_host))
			good(name, "%s", pmix_host);
		else if (pmix_host)
			bad(name, pmix_host, "%s (what rank %u put)", put_host,
			    r);
		free(pmix_host);
		free(put_host);
		snprintf(name, sizeof(name), "PMIX_NODEID of rank %u", r);
		check_num(&peer, name, PMIX_NODEID, PMIX_UINT32, put_id);
	}
	if (s) {
		uint32_t r;

		for (r = 0; r < size && local[r] == same_host[r]; r++)
			;
		if (r == size) {
			good("PMIX_LOCAL_PEERS vs peers' hosts", "%s", s);
		} else {
			snprintf(got, sizeof(got), "%s", s);
			bad("PMIX_LOCAL_PEERS vs peers' hosts", got,
			    "exactly the ranks that put host %s (rank %u %s)",
			    myhost, r,
			    same_host[r] ? "put this host but is missing"
					 : "is listed but put another host");
		}
		free(s);
	}

done:
	free(local);
	free(same_host);
	if (nbad)
		printf(PROG ": rank %u: %u keys ok, %u FAILED\n", me.rank, nok,
		       nbad);
	else
		printf(PROG ": rank %u: %u keys ok\n", me.rank, nok);
	fflush(stdout);
	rc = PMIx_Finalize(NULL, 0);
	if (rc != PMIX_SUCCESS) {
		printf(PROG ": rank %u: PMIx_Finalize: %s\n", me.rank,
		       PMIx_Error_string(rc));
		return 1;
	}
	return nbad ? 1 : 0;
}
