/*
 * pmixev_pmixd_spawn.h - the pmixd channel's dynamic-job messages (issue
 * 29, doc/spawn.md §6.1): SPAWN (O->R, a PMIx_Spawn), SPAWN_DONE (R->O,
 * its answer), NSPACE_ADD / NSPACE_DEL (R->O, a family member's namespace
 * to register or forget), NSPACE_ADDED (O->R, the acknowledgement), ALLOC
 * (O->R, a PMIx_Allocation_request) and ALLOC_DONE (R->O, its answer).
 * See pmixev_pmixd_msg.h for the rules all messages follow. The apps of a
 * SPAWN also travel alone, as the child step's SLURM_PMIXEV_SPAWN_APPS
 * (pmixev_spawn_cmd.h): the same codec, the same bounds.
 *
 * NSPACE_DEL is not sent yet (doc/spawn.md, "Status").
 */
#ifndef PMIXEV_PMIXD_SPAWN_H_
#define PMIXEV_PMIXD_SPAWN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_pmixd_msg.h"

/* SPAWN's bounds (doc/spawn.md §6.1). Strings: bytes without the NUL. */
#define PMIXEV_PMIXD_SPAWN_APPS	       64    /* apps per spawn */
#define PMIXEV_PMIXD_SPAWN_PROCS       65536 /* sum of their maxprocs */
#define PMIXEV_PMIXD_SPAWN_STR	       4096  /* any string, bytes */
#define PMIXEV_PMIXD_SPAWN_ARGV	       1024  /* argv entries per app */
#define PMIXEV_PMIXD_SPAWN_ENV	       1024  /* env entries per app, ops */
#define PMIXEV_PMIXD_SPAWN_BYTES       (256u << 10) /* a body (PMIxevSpawnBytes) */
#define PMIXEV_PMIXD_SPAWN_MS_MAX      (86400u * 1000u) /* timeout_ms */
#define PMIXEV_PMIXD_SPAWN_MINUTES_MAX 525600 /* job_minutes: a year */

/* SPAWN's flags: what the job directives asked for (§2.2). */
#define PMIXEV_PMIXD_SPAWN_OVERLAP     0x01 /* MAPBY :OVERSUBSCRIBE */
#define PMIXEV_PMIXD_SPAWN_NON_PMI     0x02 /* PMIX_NON_PMI */
#define PMIXEV_PMIXD_SPAWN_TOOL	       0x04 /* PMIX_SPAWN_TOOL */
#define PMIXEV_PMIXD_SPAWN_NOTIFY_DONE 0x08 /* PMIX_NOTIFY_COMPLETION */
#define PMIXEV_PMIXD_SPAWN_NOTIFY_JOB  0x10 /* PMIX_NOTIFY_JOB_EVENTS */
#define PMIXEV_PMIXD_SPAWN_FLAGS       0x1fu

/* The mapping (PMIX_MAPBY) and binding (PMIX_BINDTO) Slurm can give. */
enum pmixev_pmixd_spawn_dist {
	PMIXEV_PMIXD_DIST_DEFAULT = 0, /* none given */
	PMIXEV_PMIXD_DIST_BLOCK = 1,   /* slot, core, hwthread */
	PMIXEV_PMIXD_DIST_CYCLIC = 2,  /* node */
};
enum pmixev_pmixd_spawn_bind {
	PMIXEV_PMIXD_BIND_DEFAULT = 0, /* none given */
	PMIXEV_PMIXD_BIND_NONE = 1,
	PMIXEV_PMIXD_BIND_CORES = 2,
	PMIXEV_PMIXD_BIND_THREADS = 3,
	PMIXEV_PMIXD_BIND_SOCKETS = 4, /* package, socket */
};

/* PMIX_SET/ADD/UNSET/PREPEND/APPEND_ENVAR, in the order given. */
enum pmixev_pmixd_envop_kind {
	PMIXEV_PMIXD_ENV_SET = 1,
	PMIXEV_PMIXD_ENV_ADD = 2, /* set unless already set */
	PMIXEV_PMIXD_ENV_UNSET = 3,
	PMIXEV_PMIXD_ENV_PREPEND = 4,
	PMIXEV_PMIXD_ENV_APPEND = 5,
};
/*
 * name: 1..STR bytes of [A-Za-z0-9_], not starting with a digit. value:
 * 0..STR bytes, "" for UNSET. sep: a printable ASCII byte (0x21..0x7e)
 * for PREPEND and APPEND, else 0.
 */
struct pmixev_pmixd_envop {
	enum pmixev_pmixd_envop_kind op;
	char *name;
	char *value;
	char sep;
};

/* An envop's name, or the NAME of an app's env entry "NAME=value", as
 * SPAWN takes them (for a reader that names what it refuses). */
bool pmixev_pmixd_env_name_ok(const char *name);
bool pmixev_pmixd_env_entry_ok(const char *entry);

/*
 * One app. cmd: 1..STR bytes. argv: 0..ARGV entries of 0..STR bytes, as
 * PMIx gives them (argv[0] names the program; the child runs cmd with
 * argv[1..]). env: 0..ENV "NAME=value" entries, NAME as an envop's, value
 * 0..STR bytes in all. cwd: an absolute path (1..STR bytes, '/' first).
 */
struct pmixev_pmixd_spawn_app {
	uint32_t maxprocs; /* >= 1 */
	char *cmd;
	uint32_t argc;
	char **argv; /* [argc] */
	uint32_t envc;
	char **env; /* [envc] */
	char *cwd;
};

/*
 * SPAWN (O->R). rank: the requester, local, or PMIXEV_PMIXD_NO_RANK (a
 * tool). timeout_ms: 0 (the default) .. a day. alloc_job: 0 (this job) or
 * PMIX_ALLOC_ID's job. job_minutes: 0 (none) or PMIX_JOB_TIMEOUT rounded
 * up. ntasks_per_node, cpus_per_task: 0 when not given. wdir: "" or an
 * absolute path that overrides every app's cwd (a job-level PMIX_WDIR).
 * nodelist: "" or PMIX_HOST/ADD_HOST as Slurm hostlist text
 * ([A-Za-z0-9._,[]-]). Every string is NUL-free; all strings and arrays
 * are malloc'd: unpack allocates, release frees.
 */
struct pmixev_pmixd_spawn {
	uint64_t id;
	uint32_t rank;
	uint32_t flags; /* PMIXEV_PMIXD_SPAWN_* */
	uint32_t timeout_ms;
	uint32_t alloc_job;
	uint32_t job_minutes;
	uint16_t ntasks_per_node;
	uint16_t cpus_per_task;
	enum pmixev_pmixd_spawn_dist dist;
	enum pmixev_pmixd_spawn_bind bind;
	char *wdir;
	char *nodelist;
	uint32_t nops;
	struct pmixev_pmixd_envop *ops; /* [nops], at most ENV */
	uint32_t napps;			/* 1..APPS */
	struct pmixev_pmixd_spawn_app *apps;
};

/* The bytes pack would write for `m`, or 0 when it is not valid. */
size_t pmixev_pmixd_spawn_size(const struct pmixev_pmixd_spawn *m);
/* Refused also when the body would pass PMIXEV_PMIXD_SPAWN_BYTES. */
int pmixev_pmixd_spawn_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_spawn *m);
/*
 * Unpack a body of at most `max_bytes` (PMIxevSpawnBytes; at most
 * PMIXEV_PMIXD_SPAWN_BYTES) whose rank is local or NO_RANK.
 */
int pmixev_pmixd_spawn_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      size_t max_bytes, struct pmixev_pmixd_spawn *m);
/* Free what unpack allocated (NULL-safe); leaves `m` empty. */
void pmixev_pmixd_spawn_release(struct pmixev_pmixd_spawn *m);
/* The sum of the apps' maxprocs (the child step's size). */
uint32_t pmixev_pmixd_spawn_nprocs(const struct pmixev_pmixd_spawn *m);

/*
 * The apps alone: u32 napps, then each app as SPAWN carries it, with
 * SPAWN's bounds (the whole at most PMIXEV_PMIXD_SPAWN_BYTES). Unpack
 * allocates `*apps`; pmixev_pmixd_spawn_apps_free frees them.
 */
int pmixev_pmixd_spawn_apps_pack(struct pmixev_buf *b,
				 const struct pmixev_pmixd_spawn_app *apps,
				 uint32_t napps);
int pmixev_pmixd_spawn_apps_unpack(struct pmixev_buf *b,
				   struct pmixev_pmixd_spawn_app **apps,
				   uint32_t *napps);
void pmixev_pmixd_spawn_apps_free(struct pmixev_pmixd_spawn_app *apps,
				  uint32_t napps);

/*
 * A step's namespace "slurm.pmixev.<job>.<step>", both canonical decimal
 * u32 (no sign, no leading zero). true with *job and *step (either may be
 * NULL). A tool's ("<step's>.tool.<node>.<n>") is not one.
 */
bool pmixev_pmixd_step_nspace(const char *s, uint32_t *job, uint32_t *step);
/* A step's namespace or one of its tools'. */
bool pmixev_pmixd_family_nspace(const char *s);

/*
 * SPAWN_DONE (R->O). status: a pmix_status_t, 0 or negative. nspace: the
 * child step's (a step namespace) when status is 0, else "". reason: the
 * text for the user ("" when none).
 */
struct pmixev_pmixd_spawn_done {
	uint64_t id;
	int32_t status;
	char nspace[PMIXEV_NSPACE_MAX];
	char reason[PMIXEV_MSG_TEXT_MAX];
};
int pmixev_pmixd_spawn_done_pack(struct pmixev_buf *b,
				 const struct pmixev_pmixd_spawn_done *m);
int pmixev_pmixd_spawn_done_unpack(struct pmixev_buf *b,
				   struct pmixev_pmixd_spawn_done *m);

/* The largest layout NSPACE_ADD carries (the frame's cap). */
#define PMIXEV_PMIXD_LAYOUT_MAX (PMIXEV_PMIXD_FRAME_MAX - 1024)

/*
 * NSPACE_ADD (R->O): register a family member's namespace `nspace` (a
 * step namespace), spawned by `parent` (a family namespace and its rank),
 * or by nobody (parent "" and rank NO_RANK). `layout`: 1..LAYOUT_MAX
 * bytes, opaque here: the member's XSTEP LAYOUT body (pmixev_xstep.h),
 * which that codec checks on both sides (zero-copy into the reader's
 * data).
 */
struct pmixev_pmixd_nspace_add {
	char nspace[PMIXEV_NSPACE_MAX];
	char parent[PMIXEV_NSPACE_MAX];
	uint32_t parent_rank;
	const uint8_t *layout;
	size_t nlayout;
};
int pmixev_pmixd_nspace_add_pack(struct pmixev_buf *b,
				 const struct pmixev_pmixd_nspace_add *m);
int pmixev_pmixd_nspace_add_unpack(struct pmixev_buf *b,
				   struct pmixev_pmixd_nspace_add *m);

/* NSPACE_DEL (R->O): forget `nspace` (a step namespace). */
int pmixev_pmixd_nspace_del_pack(struct pmixev_buf *b, const char *nspace);
int pmixev_pmixd_nspace_del_unpack(struct pmixev_buf *b,
				   char nspace[PMIXEV_NSPACE_MAX]);

/* NSPACE_ADDED (O->R): how registering `nspace` went (0 or negative). */
struct pmixev_pmixd_nspace_added {
	char nspace[PMIXEV_NSPACE_MAX];
	int32_t status;
};
int pmixev_pmixd_nspace_added_pack(struct pmixev_buf *b,
				   const struct pmixev_pmixd_nspace_added *m);
int pmixev_pmixd_nspace_added_unpack(struct pmixev_buf *b,
				     struct pmixev_pmixd_nspace_added *m);

/* ALLOC's bounds (§6.1), with the NUL. */
#define PMIXEV_PMIXD_ALLOC_STR	 1025 /* nodes, exclude, queue */
#define PMIXEV_PMIXD_ALLOC_REQID 65   /* PMIX_ALLOC_REQ_ID */
#define PMIXEV_PMIXD_ALLOC_NODES 4097 /* ALLOC_DONE's granted nodes */

/* PMIx's allocation directives (pmix_alloc_directive_t). */
enum pmixev_pmixd_alloc_dir {
	PMIXEV_PMIXD_ALLOC_NEW = 1,
	PMIXEV_PMIXD_ALLOC_EXTEND = 2,
	PMIXEV_PMIXD_ALLOC_RELEASE = 3,
	PMIXEV_PMIXD_ALLOC_REAQUIRE = 4,
	PMIXEV_PMIXD_ALLOC_CANCEL = 5, /* 5.x PMIX_ALLOC_REQ_CANCEL */
};
/* ALLOC's flags: the boolean 5.x keys. */
#define PMIXEV_PMIXD_ALLOC_SHARE     0x01 /* PMIX_ALLOC_SHARE */
#define PMIXEV_PMIXD_ALLOC_NOSHELL   0x02 /* PMIX_ALLOC_NOSHELL */
#define PMIXEV_PMIXD_ALLOC_CHILD_SEP 0x04 /* PMIX_ALLOC_CHILD_SEP */
#define PMIXEV_PMIXD_ALLOC_FLAGS     0x07u

/*
 * ALLOC (O->R). rank: local, or NO_RANK (a tool). job: 0 (this job) or
 * PMIX_ALLOC_ID's. nodes, exclude: "" or Slurm hostlist text. queue,
 * reqid: NUL-free text. timeout_ms: at most a day.
 */
struct pmixev_pmixd_alloc {
	uint64_t id;
	uint32_t rank;
	enum pmixev_pmixd_alloc_dir directive;
	uint32_t job;
	uint32_t nnodes, ncpus;
	uint64_t mem_mb;
	uint32_t seconds; /* PMIX_ALLOC_TIME, 0: none */
	char nodes[PMIXEV_PMIXD_ALLOC_STR];
	char exclude[PMIXEV_PMIXD_ALLOC_STR];
	char queue[PMIXEV_PMIXD_ALLOC_STR];
	char reqid[PMIXEV_PMIXD_ALLOC_REQID];
	uint8_t flags; /* PMIXEV_PMIXD_ALLOC_* */
	uint32_t timeout_ms;
};
int pmixev_pmixd_alloc_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_alloc *m);
int pmixev_pmixd_alloc_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      struct pmixev_pmixd_alloc *m);

/*
 * ALLOC_DONE (R->O). status: 0 or negative. job: the job granted or
 * acted on (0: none). nodes: "" or hostlist text.
 */
struct pmixev_pmixd_alloc_done {
	uint64_t id;
	int32_t status;
	uint32_t job;
	char nodes[PMIXEV_PMIXD_ALLOC_NODES];
	uint32_t nnodes, ncpus, seconds;
	char queue[PMIXEV_PMIXD_ALLOC_STR];
	char reason[PMIXEV_MSG_TEXT_MAX];
};
int pmixev_pmixd_alloc_done_pack(struct pmixev_buf *b,
				 const struct pmixev_pmixd_alloc_done *m);
int pmixev_pmixd_alloc_done_unpack(struct pmixev_buf *b,
				   struct pmixev_pmixd_alloc_done *m);

/* Slurm hostlist text: [A-Za-z0-9._,[]-]* (in bounds: NUL-terminated). */
bool pmixev_pmixd_hostlist_ok(const char *s);

#endif /* PMIXEV_PMIXD_SPAWN_H_ */
