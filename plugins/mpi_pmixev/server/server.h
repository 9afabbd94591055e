/*
 * server/server.h - the embedded OpenPMIx server of one step on one node:
 * initialisation (tool support on, tmpdirs owned by the job user), the
 * namespace and its local clients, each task's PMIx environment, and
 * finalisation. Called from slurmstepd's main thread (prefork, fini);
 * waits for PMIx's callbacks there, never on the PMIx progress thread.
 */
#ifndef PMIXEV_PMIX_SERVER_H_
#define PMIXEV_PMIX_SERVER_H_

#include <stdint.h>

#include "base/step.h"

struct server;

/*
 * Start PMIx serving step `s` (its upcalls find it with step_served())
 * with an event cache of PMIxevEventCache events, register the namespace (each
 * local rank's CPU set and locality from Slurm's binding `bind_type`,
 * `bind_list`, see common/pmixev_cpubind.h) and the local clients, and prepare
 * each local task's environment; the step's pmix_uri names the server.
 * NULL on failure (logged).
 */
struct server *server_create(struct step *s, uint32_t bind_type,
			     const char *bind_list);

/*
 * Add task `rank`'s PMIx variables to `env` (a Slurm env array). Runs in
 * the forked task: only copies what server_create prepared.
 * 0, or -1 (unknown rank).
 */
int server_task_env(const struct server *srv, uint32_t rank, char ***env);

/* Add the "NAME=value" `vars` (NULL-terminated) to `env`, a Slurm env
 * array (in the forked task). */
void server_env_apply(char *const *vars, char ***env);

/* Finalize PMIx (no upcall runs after this) and remove the tmpdirs. */
void server_destroy(struct server *srv);

#endif /* PMIXEV_PMIX_SERVER_H_ */
