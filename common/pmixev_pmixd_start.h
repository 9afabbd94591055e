/*
 * pmixev_pmixd_start.h - the pmixd channel's start: START (R->O) gives the
 * owner process the step, READY (O->R) answers with what root needs to
 * fork the tasks. See pmixev_pmixd_msg.h for the rules all messages
 * follow. Both own memory: unpack allocates, release frees.
 */
#ifndef PMIXEV_PMIXD_START_H_
#define PMIXEV_PMIXD_START_H_

#include <stdint.h>

#include "pmixev_pmixd_msg.h"
#include "pmixev_step.h"

#define PMIXEV_PMIXD_NAME_MAX	    256	       /* node name, nspace incl. NUL */
#define PMIXEV_PMIXD_PATH_MAX	    1024       /* a directory incl. NUL */
#define PMIXEV_PMIXD_BIND_MAX	    4096       /* --cpu-bind list incl. NUL */
#define PMIXEV_PMIXD_CORES_MAX	    1024       /* the step's cores incl. NUL */
#define PMIXEV_PMIXD_NODES_MAX	    65536      /* pmixev_proto.h's MAX_NODES */
#define PMIXEV_PMIXD_TASKS_MAX	    (1u << 24) /* tasks of one step */
#define PMIXEV_PMIXD_DEBUG_MAX	    3	       /* PMIxevDebug */
#define PMIXEV_PMIXD_GDS_MAX	    2	       /* PMIxevGds: enum pmixev_gds */
#define PMIXEV_PMIXD_START_RANK_MAX 0xffffffcdu /* PMIx's PMIX_RANK_VALID */

/*
 * START: base/layout.h's struct layout in wire form (the task maps as one
 * node, and one application, per rank), the directories, the conf subset
 * the server uses, the CPU binding (pmixev_cpubind.h) and the step's cores.
 */
struct pmixev_pmixd_start {
	struct pmixev_step step; /* ids, sizes, this node's name */
	uint32_t nodeid;	 /* < step.nnodes */
	char **nodes;		 /* [step.nnodes] node names */
	uint32_t *node_of;	 /* [step.ntasks] each rank's node */
	uint32_t napps;		 /* applications (--multi-prog lines) */
	uint32_t *app_of;	 /* [step.ntasks] each rank's application */
	uint32_t uid, gid;
	char nspace[PMIXEV_PMIXD_NAME_MAX];
	char srv_nspace[PMIXEV_PMIXD_NAME_MAX];
	char server_dir[PMIXEV_PMIXD_PATH_MAX]; /* PMIX_SERVER_TMPDIR */
	char task_dir[PMIXEV_PMIXD_PATH_MAX];	/* the tasks' rendezvous */
	uint32_t event_cache;			/* PMIxevEventCache */
	uint32_t timeout_sec;			/* PMIxevTimeout */
	uint32_t event_kib;			/* PMIxevEventMax */
	uint32_t debug;				/* PMIxevDebug, 0..3 */
	uint32_t event_cache_mib;		/* PMIxevEventCacheMax */
	uint32_t publish_mib;			/* PMIxevPublishMax */
	uint32_t log_rate;			/* PMIxevLogRate */
	uint32_t gds;				/* PMIxevGds */
	uint32_t spawn;				/* PMIxevSpawn, 0 or 1 */
	uint32_t bind_type;			/* Slurm's cpu_bind_type */
	char bind_list[PMIXEV_PMIXD_BIND_MAX];	/* Slurm's cpu_bind */
	/* The step's cores here in Slurm's numbering ("0-3,8"; digits, ','
	 * and '-' only), or "" (unknown). */
	char step_cores[PMIXEV_PMIXD_CORES_MAX];
	/* The proc whose PMIx_Spawn started this step: a step's namespace
	 * and a rank below START_RANK_MAX; "" and 0 when none. */
	char parent[PMIXEV_PMIXD_NAME_MAX];
	uint32_t parent_rank;
};
int pmixev_pmixd_start_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_start *m);
int pmixev_pmixd_start_unpack(struct pmixev_buf *b,
			      struct pmixev_pmixd_start *m);
/* Free what unpack allocated (NULL-safe); leaves `m` empty. */
void pmixev_pmixd_start_release(struct pmixev_pmixd_start *m);

/* READY's bounds on one rank's environment (doc §3c). */
#define PMIXEV_PMIXD_ENV_VARS  256	   /* variables per rank */
#define PMIXEV_PMIXD_ENV_BYTES (64u << 10) /* their "NAME=value" bytes */

/* One local rank's environment: "NAME=value" strings, NAME matching
 * [A-Z_][A-Z0-9_]*, values without NUL. */
struct pmixev_pmixd_env {
	uint32_t rank;
	uint32_t count;
	char **vars; /* [count] */
};

/*
 * READY: how the server's start went; when PMIXEV_OK, the gate's port,
 * the library's major version and one environment per local rank, in
 * the order of the task map's ranks of this node (exactly those ranks).
 * Otherwise no environments.
 */
struct pmixev_pmixd_ready {
	enum pmixev_result status;
	uint16_t gate_port;
	uint8_t lib_major;
	uint32_t nenv;
	struct pmixev_pmixd_env *env; /* [nenv] */
};
int pmixev_pmixd_ready_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_ready *m);
int pmixev_pmixd_ready_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      struct pmixev_pmixd_ready *m);
/* Free what unpack allocated (NULL-safe); leaves `m` empty. */
void pmixev_pmixd_ready_release(struct pmixev_pmixd_ready *m);

/* Whether `var` is "NAME=value" with a NAME as READY requires. */
bool pmixev_pmixd_env_var_ok(const char *var);

#endif /* PMIXEV_PMIXD_START_H_ */
