/*
 * pmixside/pmixlib.h - the OpenPMIx server library's life for one step on
 * one node, wherever it runs (inside slurmstepd today, or in the PMIx
 * server process as the job owner): the node's topology and each local
 * task's CPUs, PMIx_server_init in the gate's network, the namespace and
 * its local clients, each local task's PMIx environment (its server URI
 * made the gate's), and PMIx_server_finalize. Called from one thread (the
 * caller's), which waits there for PMIx's callbacks, never on the PMIx
 * progress thread.
 */
#ifndef PMIXEV_PMIXSIDE_PMIXLIB_H_
#define PMIXEV_PMIXSIDE_PMIXLIB_H_

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/layout.h"
#include "gate/gate.h"

struct pmixlib_cfg {
	const struct layout *lay;
	struct pmix_gate *gate; /* the library's network, the clients' port */
	const char *server_dir; /* PMIX_SERVER_TMPDIR: its rendezvous files */
	const char *tmpdir;	/* the tasks' PMIX_TMPDIR */
	const char *nsdir;	/* the tasks' PMIX_NSDIR */
	unsigned event_cache;	/* OpenPMIx's pmix_max_events */
	unsigned gds;		/* PMIxevGds: enum pmixev_gds */
	uint32_t bind_type;	/* Slurm's CPU binding (pmixev_cpubind.h) */
	const char *bind_list;
	const char *step_cores; /* the step's cores here ("0-3,8"), or "" */
};

struct pmixlib;

/*
 * Start the library for `cfg` (borrowed until pmixlib_stop) and let the
 * gate send clients to it: ports = {the library's, the gate's}. NULL on
 * failure (logged); the library is then finalized again.
 */
struct pmixlib *pmixlib_start(const struct pmixlib_cfg *cfg, uint16_t ports[2]);

/* Local task `i`'s PMIx variables ("NAME=value", NULL-terminated). */
char *const *pmixlib_task_env(const struct pmixlib *l, uint32_t i);

/* The server's URI as its clients get it (the gate's), or NULL. */
const char *pmixlib_uri(const struct pmixlib *l);

/*
 * A copy of each of the library's rendezvous files (pmix.* in
 * `server_dir`) in directory `dst`, owned by uid:gid, mode 0600, naming
 * the gate's port (ports as pmixlib_start gave). 0, or -1 with errno.
 */
int pmixlib_copy_rendezvous(const char *server_dir, int dst, uid_t uid,
			    gid_t gid, uint16_t ports[2]);

/* Finalize the library (no upcall runs after this) and free. NULL-safe. */
void pmixlib_stop(struct pmixlib *l);

#endif /* PMIXEV_PMIXSIDE_PMIXLIB_H_ */
