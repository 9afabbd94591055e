/*
 * srun/rendezvous.h - srun's side of the overlay: the rendezvous where the
 * step's stepds learn each other's addresses, and where a client's abort
 * reaches the user.
 *
 * Runs its own agent thread in srun (as the job owner). Only the step's
 * nodes (their addresses in slurm.conf) may connect. Each stepd sends
 * RDV_HELLO (munge credential of root or SlurmdUser; job, step and node
 * id must match); once all have, srun answers each with RDV_TABLE under
 * its own credential. An ABORT from a stepd is printed, and the step is
 * sent SIGTERM, then SIGKILL after KillWait; its status becomes srun's
 * exit status (rdv_stop).
 */
#ifndef PMIXEV_SRUN_RENDEZVOUS_H_
#define PMIXEV_SRUN_RENDEZVOUS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <sys/types.h>

struct rdv;

struct rdv_cfg {
	uint32_t job_id;
	uint32_t step_id;
	uint32_t nnodes;
	const char *node_list; /* the step's nodes ("n[1-3]"), node i first */
	uid_t slurmd_uid;
	const char *authinfo; /* slurm.conf AuthInfo */
	uint16_t kill_wait;   /* seconds from SIGTERM to SIGKILL */
	uint32_t max_frame;
	/*
	 * The spawn family's part (srun/srun_step.c), on the agent thread:
	 * `setup` before it starts; every frame of a stepd the rendezvous
	 * does not serve itself (-1: malformed, the link goes, or unknown);
	 * a stepd's link that closed.
	 */
	void (*setup)(void *ctx, struct event_base *base);
	int (*on_frame)(void *ctx, uint32_t node, uint8_t type,
			const uint8_t *data, size_t len);
	void (*on_gone)(void *ctx, uint32_t node);
	void *ctx;
};

/* Start listening (port in *port) on a new agent thread. NULL on failure. */
struct rdv *rdv_create(const struct rdv_cfg *cfg, uint16_t *port);

/* Send node `node`'s stepd a frame (agent thread). 0, or -1 (gone). */
int rdv_send(struct rdv *rdv, uint32_t node, uint8_t type, const void *data,
	     size_t len);

/* Whether a rank called PMIx_Abort (any thread). */
bool rdv_aborted(const struct rdv *rdv);

/*
 * Stop the thread; returns the status of the first abort a client
 * requested, or 0.
 */
int rdv_stop(struct rdv *rdv);

/* Stop the thread and free everything. NULL-safe. */
void rdv_destroy(struct rdv *rdv);

#endif /* PMIXEV_SRUN_RENDEZVOUS_H_ */
