/*
 * srun/spawn.h - the parent step's srun starts the child steps of its
 * ranks' PMIx_Spawn calls (doc/spawn.md §2.1): a stepd passes a SPAWN its
 * root checked (SPAWN_REQ); srun checks it again as a plain program,
 * starts `srun --jobid ... --mpi=pmixev` with the spawn's command line and
 * environment (common/pmixev_spawn_cmd.h), no shell, with one end of a
 * socketpair (the hub link: the child srun's HUB_HELLO, then its step's
 * READY), and answers the stepd SPAWN_STATUS: LAUNCHED, then READY when
 * every child rank registered and every node of this step registered the
 * child's namespace (NSPACE_ACK; srun/spawn_link.h), or why not (the
 * child srun's last error lines: Slurm's own words).
 *
 * The child srun writes its output where this srun writes its own; its
 * error lines are copied to this srun's stderr as they come. It runs in
 * this srun's process group (a Ctrl-C reaches both). At the end, this
 * srun waits for its child steps to end; when its own step was aborted it
 * ends them (SIGTERM, then SIGKILL after KillWait).
 *
 * Everything but spawns_wait runs on the rendezvous' agent thread.
 */
#ifndef PMIXEV_SRUN_SPAWN_H_
#define PMIXEV_SRUN_SPAWN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "srun/spawn_cfg.h"

struct spawns;

/* NULL when out of memory. */
struct spawns *spawns_create(struct event_base *base,
			     const struct spawns_cfg *cfg);

/* A SPAWN_REQ payload from node `node`. 0, or -1 when it is malformed
 * (logged: the link goes). */
int spawns_request(struct spawns *sp, uint32_t node, const uint8_t *data,
		   size_t len);

/* The child srun of spawn request `id` of node `node` is ended. */
int spawns_cancel(struct spawns *sp, uint32_t node, const uint8_t *data,
		  size_t len);

/* An NSPACE_ACK payload from node `node`: it registered a child step's
 * namespace, whose READY may wait for it. 0, or -1 when it is malformed
 * (logged: the link goes); an ack nothing waits for is ignored. */
int spawns_nspace_ack(struct spawns *sp, uint32_t node, const uint8_t *data,
		      size_t len);

/* Node `node`'s link closed: no READY waits for it. NULL-safe. */
void spawns_node_gone(struct spawns *sp, uint32_t node);

/* An XSTEP payload for step (job, step) to the child srun toward it: a
 * child step, or a step whose frames came up through that child. 0, or
 * -1 (the caller logs) when no child srun leads there. */
int spawns_pass_down(struct spawns *sp, uint32_t job, uint32_t step,
		     const uint8_t *data, size_t len);

/*
 * srun's step ended (main thread): end the child steps when `abort`, then
 * wait until every child srun exited.
 */
void spawns_wait(struct spawns *sp, bool abort);

/* Agent thread stopped first. NULL-safe. */
void spawns_destroy(struct spawns *sp);

#endif /* PMIXEV_SRUN_SPAWN_H_ */
