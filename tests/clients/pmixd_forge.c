/*
 * pmixd_forge - a hostile stand-in for pmixev-pmixd, the step's PMIx
 * server process (tests/integration/40-pmixd-forge.t). The test puts it in
 * the real program's place beside mpi_pmixev.so, where only root writes:
 * a job cannot choose it. slurmstepd starts it as the job owner like the
 * real one (descriptors of programs/pmixev-pmixd.c); it answers START with
 * a READY root accepts (no PMIx library: the tasks get no PMIx variables),
 * then makes one attack on root: forge.plan beside it names one per node
 * (its first line's Nth word for node N; the last word for the others):
 *   garbage    a frame header with a bad magic
 *   oversize   a QUERY header announcing 4 GiB
 *   wrongside  a START, which only root sends
 *   badrank    a CLIENT_STATE for a rank outside the step
 *   count      a QUERY whose item count is a million
 *   othertasks a JOBCTL killing the tasks of another step
 *   floodquery 4000 QUERYs of every node's task table at once
 *   floodctl   1000 JOBCTLs signalling the step's own tasks at once
 *   floodnotify 4000 NOTIFYs of 60 KiB each for every node
 *   floodmodex 6000 DMODEXs for a rank of node 0 (node 1 on node 0),
 *              whose stand-in never answers root's DMODEX_SERVE, 2 s
 *              timeout each
 *   badgroup   a GROUP whose group id names another step's namespace
 *   floodabort 100000 GROUP_ABORTs by this node's first rank, of ids
 *              "g1".."g4000" in turn (floodgroup's), answered by nothing
 *   floodgroup 4000 GROUP constructs over the ranks of nodes 0 and 1
 *              (run it on one of them), each with its own id and 4 KiB
 *              of endpoint data, that the other never joins (2 s each)
 *   floodspawn 200 SPAWNs of 65536 processes (more than any test job
 *              holds) by this node's first rank
 *   unasked    an NSPACE_ADDED for a namespace root never asked to add
 *   idle       nothing
 *   crash      dies of SIGSEGV after START, before READY
 * It counts the answers and says them on stderr (root's log of it), e.g.
 * "forge: floodctl: 1000 sent, 1000 answered, 936 over budget",
 * answers root's SYNCs, and ends at FINI or when root closes the channel.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pmixev_buf.h"
#include "pmixev_pmixd_coll.h"
#include "pmixev_pmixd_ctl.h"
#include "pmixev_pmixd_group.h"
#include "pmixev_pmixd_msg.h"
#include "pmixev_pmixd_spawn.h"
#include "pmixev_pmixd_start.h"

#define CHAN	     3
#define GATE	     4
#define WAIT_MS	     20000
#define PMIX_ERR_OOR (-29) /* PMIX_ERR_OUT_OF_RESOURCE */

static struct pmixev_pmixd_start start;
static unsigned answered, over;
static int closed;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	fputs("forge: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Write all of `p` (blocking). */
static int put(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n) {
		ssize_t w = write(CHAN, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int get(void *p, size_t n)
{
	unsigned char *c = p;

	while (n) {
		ssize_t r = read(CHAN, c, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Send the frame of `type` whose body is in `b` after chan_frame room. */
static int send_frame(uint8_t type, struct pmixev_buf *b)
{
	int rc;

	pmixev_pmixd_hdr_encode(type, (uint32_t)(b->len - PMIXEV_PMIXD_HDR_LEN),
				b->data);
	rc = put(b->data, b->len);
	pmixev_buf_release(b);
	return rc;
}

static void begin(struct pmixev_buf *b)
{
	static const uint8_t room[PMIXEV_PMIXD_HDR_LEN];

	pmixev_buf_init(b);
	pmixev_buf_put_raw(b, room, sizeof(room));
}

/* Count one answer: over budget, or another. */
static void count(int over_budget)
{
	answered++;
	over += over_budget != 0;
}

/* Handle one frame from root. 0, or -1 when the channel is over. */
static int one_frame(void)
{
	uint8_t hdr[PMIXEV_PMIXD_HDR_LEN], type, *body = NULL;
	struct pmixev_buf r, b;
	const char *why;
	uint32_t len;
	int rc = 0;

	if (get(hdr, sizeof(hdr)) < 0 ||
	    pmixev_pmixd_hdr_decode(hdr, sizeof(hdr), PMIXEV_PMIXD_FRAME_MAX,
				    PMIXEV_PMIXD_FROM_ROOT, &type, &len,
				    &why) != 1 ||
	    (len && !(body = malloc(len))) || get(body, len) < 0) {
		free(body);
		closed = 1;
		return -1;
	}
	pmixev_buf_reader(&r, body, len);
	if (type == PMIXEV_PMIXD_QUERY_DONE) {
		struct pmixev_pmixd_query_done d;

		if (pmixev_pmixd_query_done_unpack(&r, &d) == 0) {
			count(d.n && d.a[0].result == PMIXEV_ERR_OVER_BUDGET);
			pmixev_pmixd_query_done_release(&d);
		}
	} else if (type == PMIXEV_PMIXD_JOBCTL_DONE) {
		struct pmixev_pmixd_status s;

		if (pmixev_pmixd_status_unpack(&r, &s) == 0) {
			count(s.status == PMIX_ERR_OOR);
			if (s.status != PMIX_ERR_OOR && s.why[0])
				say("JOBCTL answered %d: %s", (int)s.status,
				    s.why);
		}
	} else if (type == PMIXEV_PMIXD_DMODEX_DONE) {
		struct pmixev_pmixd_data d;

		if (pmixev_pmixd_data_unpack(&r, &d) == 0)
			count(d.result == PMIXEV_ERR_OVER_BUDGET);
	} else if (type == PMIXEV_PMIXD_GROUP_DONE) {
		struct pmixev_pmixd_group_done d;

		if (pmixev_pmixd_group_done_unpack(&r, start.step.ntasks, &d) ==
		    0) {
			count(d.result == PMIXEV_ERR_OVER_BUDGET);
			pmixev_pmixd_group_done_release(&d);
		}
	} else if (type == PMIXEV_PMIXD_SPAWN_DONE) {
		struct pmixev_pmixd_spawn_done d;

		if (pmixev_pmixd_spawn_done_unpack(&r, &d) == 0)
			count(d.status == PMIX_ERR_OOR &&
			      strstr(d.reason, "in flight"));
	} else if (type == PMIXEV_PMIXD_SYNC) {
		uint64_t seq;

		if (pmixev_pmixd_seq_unpack(&r, &seq) == 0) {
			begin(&b);
			pmixev_pmixd_seq_pack(&b, seq);
			rc = send_frame(PMIXEV_PMIXD_SYNC_ECHO, &b);
		}
	} else if (type == PMIXEV_PMIXD_FINI) {
		rc = -1;
	}
	free(body);
	return rc;
}

/* Handle root's frames for up to `ms`, or until `want` answers came. */
static void drain(int ms, unsigned want)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!closed && (!want || answered < want)) {
		struct pollfd pfd = {.fd = CHAN, .events = POLLIN};
		long left;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = ms - ((t.tv_sec - t0.tv_sec) * 1000 +
			     (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return;
		if (one_frame() < 0)
			return;
	}
}

/* The START root sends first. */
static int read_start(void)
{
	uint8_t hdr[PMIXEV_PMIXD_HDR_LEN], type, *body;
	struct pmixev_buf r;
	const char *why;
	uint32_t len;
	int rc;

	if (get(hdr, sizeof(hdr)) < 0 ||
	    pmixev_pmixd_hdr_decode(hdr, sizeof(hdr), PMIXEV_PMIXD_FRAME_MAX,
				    PMIXEV_PMIXD_FROM_ROOT, &type, &len,
				    &why) != 1 ||
	    type != PMIXEV_PMIXD_START || !(body = malloc(len ? len : 1)))
		return -1;
	rc = get(body, len);
	pmixev_buf_reader(&r, body, len);
	if (rc == 0)
		rc = pmixev_pmixd_start_unpack(&r, &start);
	free(body);
	return rc;
}

/* READY: each local rank with no variables, the gate's port. */
static int send_ready(void)
{
	struct pmixev_pmixd_ready m = {.status = PMIXEV_OK, .lib_major = 4};
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	struct pmixev_buf b;
	int rc = -1;

	if (getsockname(GATE, (struct sockaddr *)&sin, &sl) == 0)
		m.gate_port = ntohs(sin.sin_port);
	if (!(m.env = calloc(start.step.ntasks, sizeof(*m.env))))
		return -1;
	for (uint32_t r = 0; r < start.step.ntasks; r++)
		if (start.node_of[r] == start.nodeid)
			m.env[m.nenv++] = (struct pmixev_pmixd_env){.rank = r};
	begin(&b);
	if (pmixev_pmixd_ready_pack(&b, &m) == 0)
		rc = send_frame(PMIXEV_PMIXD_READY, &b);
	else
		pmixev_buf_release(&b);
	free(m.env);
	return rc;
}

/* A local rank of this node (the first). */
static uint32_t local_rank(void)
{
	for (uint32_t r = 0; r < start.step.ntasks; r++)
		if (start.node_of[r] == start.nodeid)
			return r;
	return 0;
}

static void send_query(uint64_t id, uint32_t patch_n)
{
	struct pmixev_pmixd_query q = {
		.id = id,
		.timeout_sec = 30,
		.n = 1,
		.item[0] = {.key = PMIXEV_PMIXD_Q_PTABLE}};
	struct pmixev_buf b;

	begin(&b);
	pmixev_pmixd_query_pack(&b, &q);
	if (patch_n) /* id u64, refresh u8, timeout u32, then n u32 */
		memcpy(b.data + PMIXEV_PMIXD_HDR_LEN + 13,
		       (uint8_t[]){patch_n >> 24, patch_n >> 16, patch_n >> 8,
				   patch_n},
		       4);
	send_frame(PMIXEV_PMIXD_QUERY, &b);
}

static void send_jobctl(uint64_t id, uint32_t job, uint32_t signo)
{
	struct pmixev_pmixd_jobctl m = {
		.id = id,
		.rank = local_rank(),
		.action = signo == 9 ? PMIXEV_PMIXD_KILL : PMIXEV_PMIXD_SIGNAL,
		.signo = signo == 9 ? 0 : signo,
		.nt = 1,
		.t[0] = {.job = job,
			 .step = start.step.step_id,
			 .tasks = true,
			 .rank = PMIXEV_PMIXD_ALL},
		.timeout_sec = 30};
	struct pmixev_buf b;

	begin(&b);
	if (pmixev_pmixd_jobctl_pack(&b, &m) < 0)
		say("JOBCTL does not pack");
	send_frame(PMIXEV_PMIXD_JOBCTL, &b);
}

static void send_notify(void)
{
	static uint8_t info[60 << 10];
	struct pmixev_notify_msg m = {.rank = local_rank(),
				      .code = -1000,
				      .range = 1,
				      .info = info,
				      .ninfo = sizeof(info)};
	struct pmixev_buf b;

	snprintf(m.nspace, sizeof(m.nspace), "%s", start.nspace);
	begin(&b);
	if (pmixev_pmixd_notify_pack(&b, &m) < 0)
		say("NOTIFY does not pack");
	send_frame(PMIXEV_PMIXD_NOTIFY, &b);
}

/* Flood with `n` requests made by `one`, reading answers as they come. */
static void flood(const char *what, unsigned n, void (*one)(uint64_t))
{
	for (unsigned i = 0; i < n && !closed; i++) {
		one(i + 1);
		drain(0, 0);
	}
	drain(WAIT_MS, n);
	say("%s: %u sent, %u answered, %u over budget", what, n, answered,
	    over);
}

static void q_one(uint64_t id)
{
	send_query(id, 0);
}
static void ctl_one(uint64_t id)
{
	send_jobctl(id, start.step.job_id, 18);
}
static void notify_one(uint64_t id)
{
	(void)id;
	send_notify();
}

/* A SPAWN of 65536 processes of /bin/true by this node's first rank. */
static void spawn_one(uint64_t id)
{
	static char cmd[] = "/bin/true", cwd[] = "/tmp", empty[] = "";
	static char *argv[] = {cmd};
	struct pmixev_pmixd_spawn_app app = {.maxprocs = 65536,
					     .cmd = cmd,
					     .argc = 1,
					     .argv = argv,
					     .cwd = cwd};
	struct pmixev_pmixd_spawn m = {.id = id,
				       .wdir = empty,
				       .nodelist = empty,
				       .napps = 1,
				       .apps = &app};
	struct pmixev_buf b;

	while (m.rank < start.step.ntasks &&
	       start.node_of[m.rank] != start.nodeid)
		m.rank++;
	begin(&b);
	pmixev_pmixd_spawn_pack(&b, &m);
	send_frame(PMIXEV_PMIXD_SPAWN, &b);
}

/* NSPACE_ADDED of the next step's namespace, which root never sent. */
static void unasked(void)
{
	struct pmixev_pmixd_nspace_added m = {.status = 0};
	struct pmixev_buf b;

	snprintf(m.nspace, sizeof(m.nspace), "slurm.pmixev.%u.%u",
		 start.step.job_id, start.step.step_id + 1);
	begin(&b);
	pmixev_pmixd_nspace_added_pack(&b, &m);
	send_frame(PMIXEV_PMIXD_NSPACE_ADDED, &b);
}

/* A construct with id "gID" over the ranks of nodes 0 and 1 (this one
 * among them), 4 KiB of endpoint data, 2 s. */
static void group_one(uint64_t id)
{
	static uint8_t endpt[4096];
	static uint32_t ranks[1024];
	struct pmixev_pmixd_group m = {.id = id,
				       .op = PMIXEV_PMIXD_GROUP_CONSTRUCT,
				       .ranks = ranks,
				       .leader = PMIXEV_PMIXD_NO_RANK,
				       .timeout_ms = 2000,
				       .endpt = endpt,
				       .nendpt = sizeof(endpt)};
	struct pmixev_buf b;

	for (uint32_t r = 0; r < start.step.ntasks && m.nranks < 1024; r++)
		if (start.node_of[r] < 2)
			ranks[m.nranks++] = r;
	snprintf(m.grpid, sizeof(m.grpid), "g%llu", (unsigned long long)id);
	snprintf(m.nspace, sizeof(m.nspace), "%s", start.nspace);
	begin(&b);
	pmixev_pmixd_group_pack(&b, &m);
	send_frame(PMIXEV_PMIXD_GROUP, &b);
}

/* A member's abort of group "gN", N cycling through floodgroup's ids. */
static void abort_one(uint64_t id)
{
	struct pmixev_pmixd_group_abort m = {.rank = local_rank(),
					     .why = PMIXEV_PMIXD_GROUP_ABORTED};
	struct pmixev_buf b;

	snprintf(m.grpid, sizeof(m.grpid), "g%llu",
		 (unsigned long long)(id % 4000 + 1));
	begin(&b);
	if (pmixev_pmixd_group_abort_pack(&b, &m) < 0)
		say("GROUP_ABORT does not pack");
	send_frame(PMIXEV_PMIXD_GROUP_ABORT, &b);
}

/* A GROUP naming another step's namespace as its id: the codec's own
 * pack refuses that, so a valid id of the same length is packed and
 * patched. */
static void bad_group(void)
{
	static const char fake[] = "slurm_pmixev_0_9",
			  real[] = "slurm.pmixev.0.9";
	struct pmixev_pmixd_group m = {.id = 1,
				       .op = PMIXEV_PMIXD_GROUP_CONSTRUCT,
				       .all = true,
				       .leader = PMIXEV_PMIXD_NO_RANK};
	struct pmixev_buf b;

	snprintf(m.grpid, sizeof(m.grpid), "%s", fake);
	snprintf(m.nspace, sizeof(m.nspace), "%s", start.nspace);
	begin(&b);
	pmixev_pmixd_group_pack(&b, &m);
	for (size_t i = 0; i + sizeof(fake) - 1 <= b.len; i++)
		if (!memcmp(b.data + i, fake, sizeof(fake) - 1)) {
			memcpy(b.data + i, real, sizeof(real) - 1);
			break;
		}
	send_frame(PMIXEV_PMIXD_GROUP, &b);
}

/* A DMODEX for the first rank of node 0, or node 1's on node 0. */
static void modex_one(uint64_t id)
{
	uint32_t next = start.nodeid ? 0 : 1, rank = 0;
	struct pmixev_pmixd_dmodex m = {.id = id, .timeout_sec = 2};
	struct pmixev_buf b;

	while (rank < start.step.ntasks && start.node_of[rank] != next)
		rank++;
	m.rank = rank;
	begin(&b);
	pmixev_pmixd_dmodex_pack(&b, &m);
	send_frame(PMIXEV_PMIXD_DMODEX, &b);
}

static void attack(const char *a)
{
	uint8_t hdr[PMIXEV_PMIXD_HDR_LEN];
	struct pmixev_pmixd_client_state cs = {.rank = start.step.ntasks + 5,
					       .state = PMIXEV_PMIXD_FINALIZED};
	struct pmixev_buf b;

	if (!strcmp(a, "garbage")) {
		memset(hdr, 'x', sizeof(hdr));
		put(hdr, sizeof(hdr));
	} else if (!strcmp(a, "oversize")) {
		pmixev_pmixd_hdr_encode(PMIXEV_PMIXD_QUERY, 0xfffffff0u, hdr);
		put(hdr, sizeof(hdr));
	} else if (!strcmp(a, "wrongside")) {
		pmixev_pmixd_hdr_encode(PMIXEV_PMIXD_START, 0, hdr);
		put(hdr, sizeof(hdr));
	} else if (!strcmp(a, "badrank")) {
		begin(&b);
		pmixev_pmixd_client_state_pack(&b, &cs);
		send_frame(PMIXEV_PMIXD_CLIENT_STATE, &b);
	} else if (!strcmp(a, "count")) {
		send_query(1, 1000000);
	} else if (!strcmp(a, "othertasks")) {
		send_jobctl(1, start.step.job_id + 1, 9);
		drain(WAIT_MS, 1);
	} else if (!strcmp(a, "floodquery")) {
		flood(a, 4000, q_one);
	} else if (!strcmp(a, "floodctl")) {
		flood(a, 1000, ctl_one);
	} else if (!strcmp(a, "floodnotify")) {
		flood(a, 4000, notify_one);
	} else if (!strcmp(a, "floodmodex")) {
		flood(a, 6000, modex_one);
	} else if (!strcmp(a, "badgroup")) {
		bad_group();
	} else if (!strcmp(a, "floodgroup")) {
		flood(a, 4000, group_one);
	} else if (!strcmp(a, "floodabort")) {
		for (unsigned i = 0; i < 100000 && !closed; i++) {
			abort_one(i);
			drain(0, 0);
		}
		say("floodabort: 100000 sent");
	} else if (!strcmp(a, "floodspawn")) {
		flood(a, 200, spawn_one);
	} else if (!strcmp(a, "unasked")) {
		unasked();
	} else if (strcmp(a, "idle")) {
		say("unknown attack '%s'", a);
	}
}

/* This node's attack, named in forge.plan beside this program. */
static void plan(char *a, size_t len)
{
	char exe[PATH_MAX], path[PATH_MAX + 16], line[512], *slash, *w,
		*save = NULL;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;

	snprintf(a, len, "idle");
	if (n <= 0)
		return;
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')))
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/forge.plan", exe);
	if (!(f = fopen(path, "r")))
		return;
	if (fgets(line, sizeof(line), f)) {
		w = strtok_r(line, " \t\n", &save);
		for (uint32_t i = 0; w; i++) {
			snprintf(a, len, "%s", w);
			if (i == start.nodeid)
				break;
			w = strtok_r(NULL, " \t\n", &save);
		}
	}
	fclose(f);
}

int main(void)
{
	char a[64];

	signal(SIGPIPE, SIG_IGN);
	fcntl(CHAN, F_SETFL, fcntl(CHAN, F_GETFL) & ~O_NONBLOCK);
	if (read_start() < 0) {
		say("no START");
		return 1;
	}
	plan(a, sizeof(a));
	if (strcmp(a, "crash") && send_ready() < 0) {
		say("READY not sent");
		return 1;
	}
	/* The default action, also in a sanitizer build (whose runtime
	 * would catch it, report it and abort). */
	if (!strcmp(a, "crash")) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	}
	say("node %u of step %u.%u: %s", (unsigned)start.nodeid,
	    (unsigned)start.step.job_id, (unsigned)start.step.step_id, a);
	usleep(500000); /* ASan: slurmstepd's task fork before a flood */
	attack(a);
	while (!closed && one_frame() == 0)
		;
	say("%s: the channel is over", a);
	return 0;
}
