/*
 * pmixside/side.h - the pmix side of slurmstepd: the thread that stands
 * for the PMIx server process of doc/pmix-server-as-owner.md (slice 2: in
 * the same process, no split yet). It has its own agent (base/agent.h)
 * and its end of the pmixd channel to root's agent; everything it asks of
 * root, and everything root asks of the PMIx library, crosses that channel
 * as frames of pmixev_pmixd_msg.h.
 *
 * Three threads meet here. The PMIx progress thread runs the upcalls
 * (fence_pmix.c, dmodex_pmix.c): each makes a call with its frame and
 * sends it itself (pmixside_call_send), never blocking: what the socket
 * does not take at once is written by the pmix side's agent. The agent
 * reads root's answers and answers PMIx through the call's callback; it
 * also runs what root asks of the library. Root's agent only reads and
 * writes frames.
 */
#ifndef PMIXEV_PMIXSIDE_SIDE_H_
#define PMIXEV_PMIXSIDE_SIDE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "base/agent.h"
#include "base/layout.h"
#include "pmixd/chan.h"
#include "pmixev_buf.h"
#include "pmixev_conf.h"
#include "pmixev_result.h"
#include "pmixside/calls.h"

struct pmixside;
struct group_watch;
struct inject_pmix;
struct xlinks_note;

/*
 * The pmix side of the step laid out in `lay`, configured by `conf` (both
 * borrowed), on channel socket `fd` (taken, also on failure). Stopped; NULL
 * when out of memory.
 */
struct pmixside *pmixside_create(const struct layout *lay,
				 const struct pmixev_conf *conf, int fd);

/* Start its agent thread. 0, or -1 (errno set). */
int pmixside_start(struct pmixside *p);

/*
 * Block until the step ends here: root sends FINI, or the channel to root
 * closes (the PMIx server process's main thread).
 */
void pmixside_wait_end(struct pmixside *p);

/*
 * Stop its agent (work already posted runs first); before the PMIx
 * server is finalized: nothing may call into the library after it.
 */
void pmixside_stop(struct pmixside *p);

/* Stop, then free everything without answering PMIx. NULL-safe. */
void pmixside_destroy(struct pmixside *p);

/*
 * Its agent, its end of the channel and the calls waiting on it, its
 * step's layout, its event counts, PMIxevEventMax and PMIxevPublishMax in
 * bytes (for its parts).
 */
struct agent *pmixside_agent(struct pmixside *p);
struct chan *pmixside_chan(struct pmixside *p);
struct calls *pmixside_calls(struct pmixside *p);
size_t pmixside_publish_max(const struct pmixside *p);
const struct layout *pmixside_layout(const struct pmixside *p);
struct inject_pmix *pmixside_inject(struct pmixside *p);
/* The groups constructed here, watched for their members' ends. */
struct group_watch *pmixside_groups(struct pmixside *p);
size_t pmixside_event_max(const struct pmixside *p);
/* Whether the step serves PMIx_Spawn (PMIxevSpawn). */
bool pmixside_spawns(const struct pmixside *p);

/*
 * An upcall's request to root, answered through its PMIx callback: a
 * modex callback (fence, direct modex: with data) or an op callback
 * (connect, disconnect).
 */
struct pmixside_call {
	struct call call; /* first: see calls.h */
	struct pmixside *p;
	uint8_t type; /* PMIXEV_PMIXD_FENCE or _DMODEX */
	struct pmixev_buf frame;
	pmix_modex_cbfunc_t modex_cb;
	pmix_op_cbfunc_t op_cb;
	void *cbdata;
	struct xlinks_note *note; /* a cross-step (dis)connect's, or NULL */
};

/*
 * PMIx thread: a call of `type` with a fresh id and its frame begun
 * (chan_frame_begin): pack the body into `frame`. NULL: out of memory.
 */
struct pmixside_call *pmixside_call_new(struct pmixside *p, uint8_t type);

/* Free a call not posted. NULL-safe. */
void pmixside_call_free(struct pmixside_call *c);

/*
 * PMIx thread: send the packed call to root; the agent answers PMIx when
 * root does. PMIXEV_OK, or PMIXEV_ERR_UNREACH when the channel is closed
 * (`c` is freed: the upcall fails, PMIx answers).
 */
enum pmixev_result pmixside_call_send(struct pmixside_call *c);

/* A client's PMIX_TIMEOUT as a frame carries it: at most a day. */
uint32_t pmixside_frame_timeout(unsigned timeout_sec);

/*
 * Whether the ranks' checkpoint completions are watched (ckpt_pmix.h):
 * set once after the PMIx server is up, read by the job control upcall
 * (any thread).
 */
void pmixside_set_ckpt_watched(struct pmixside *p, bool on);
bool pmixside_ckpt_watched(struct pmixside *p);

#endif /* PMIXEV_PMIXSIDE_SIDE_H_ */
