/*
 * pmixev_pmixd_msg.h - the channel between the root slurmstepd ("R") and
 * the step's PMIx server process running as the job owner (pmixev-pmixd,
 * "O"): its frame header, its message types, the bounds root applies to
 * what O sends, and the small messages. The bigger ones are in
 * pmixev_pmixd_start.h (START, READY), pmixev_pmixd_coll.h (fence, direct
 * modex, publish), pmixev_pmixd_ctl.h (query, job control, log) and
 * pmixev_pmixd_group.h (PMIx Groups), pmixev_pmixd_spawn.h (spawn,
 * foreign namespaces, allocation).
 * See doc/pmix-server-as-owner.md §3b and §3c.
 *
 * O runs libpmix for the user, so everything it sends is hostile: root
 * decodes it only with these bounds-checked functions, never with
 * libpmix. Every unpack of an O->R message takes the step's bounds and
 * refuses, besides short, trailing or malformed bodies: ranks outside the
 * step (or off this node where a local rank is due), unknown enums,
 * out-of-range scalars, text without a NUL inside its cap, and counts or
 * sizes above the limits, before anything is allocated. Pack functions
 * refuse (-1, errno EINVAL, nothing written) what unpack would reject,
 * and the encoding is canonical (what unpacks packs back to the same
 * bytes). Byte strings unpack zero-copy into the reader's data unless
 * noted. The codec needs no libpmix: PMIx constants it bounds are
 * restated below. Pure code: unit-tested and fuzzed.
 */
#ifndef PMIXEV_PMIXD_MSG_H_
#define PMIXEV_PMIXD_MSG_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_buf.h"
#include "pmixev_proto.h"
#include "pmixev_result.h"
#include "pmixev_taskmap.h"

/*
 * Frame header, 12 bytes, big-endian:
 *   0 u32 magic "PXPD", 4 u8 version, 5 u8 type, 6 u16 flags (0),
 *   8 u32 len (payload bytes that follow).
 * Its own header rather than pmixev_frame's, so the overlay's type space
 * (and what stepds accept from each other) stays as it is.
 */
#define PMIXEV_PMIXD_MAGIC     0x50585044u
#define PMIXEV_PMIXD_VERSION   3
#define PMIXEV_PMIXD_HDR_LEN   12
#define PMIXEV_PMIXD_FRAME_MAX (64u << 20) /* stepd.c's MAX_FRAME */

enum pmixev_pmixd_type {
	PMIXEV_PMIXD_START = 1,	    /* R->O */
	PMIXEV_PMIXD_READY,	    /* O->R */
	PMIXEV_PMIXD_FENCE,	    /* O->R */
	PMIXEV_PMIXD_FENCE_DONE,    /* R->O */
	PMIXEV_PMIXD_DMODEX,	    /* O->R */
	PMIXEV_PMIXD_DMODEX_DONE,   /* R->O */
	PMIXEV_PMIXD_DMODEX_SERVE,  /* R->O */
	PMIXEV_PMIXD_DMODEX_SERVED, /* O->R */
	PMIXEV_PMIXD_PUBSUB,	    /* O->R */
	PMIXEV_PMIXD_PUBSUB_DONE,   /* R->O */
	PMIXEV_PMIXD_ABORT,	    /* O->R */
	PMIXEV_PMIXD_ABORT_DONE,    /* R->O */
	PMIXEV_PMIXD_CLIENT_STATE,  /* O->R */
	PMIXEV_PMIXD_NOTIFY,	    /* O->R */
	PMIXEV_PMIXD_INJECT,	    /* R->O */
	PMIXEV_PMIXD_QUERY,	    /* O->R */
	PMIXEV_PMIXD_QUERY_DONE,    /* R->O */
	PMIXEV_PMIXD_JOBCTL,	    /* O->R */
	PMIXEV_PMIXD_JOBCTL_DONE,   /* R->O */
	PMIXEV_PMIXD_LOG,	    /* O->R */
	PMIXEV_PMIXD_LOG_DONE,	    /* R->O */
	PMIXEV_PMIXD_MONITOR_ALERT, /* O->R */
	PMIXEV_PMIXD_CKPT_COMPLETE, /* O->R */
	PMIXEV_PMIXD_LOG_LINE,	    /* O->R */
	PMIXEV_PMIXD_SYNC,	    /* R->O */
	PMIXEV_PMIXD_SYNC_ECHO,	    /* O->R */
	PMIXEV_PMIXD_FINI,	    /* R->O, empty body */
	PMIXEV_PMIXD_GROUP,	    /* O->R */
	PMIXEV_PMIXD_GROUP_DONE,    /* R->O */
	PMIXEV_PMIXD_GROUP_ABORT,   /* O->R */
	PMIXEV_PMIXD_SPAWN,	    /* O->R, pmixev_pmixd_spawn.h */
	PMIXEV_PMIXD_SPAWN_DONE,    /* R->O */
	PMIXEV_PMIXD_NSPACE_ADD,    /* R->O */
	PMIXEV_PMIXD_NSPACE_DEL,    /* R->O */
	PMIXEV_PMIXD_NSPACE_ADDED,  /* O->R */
	PMIXEV_PMIXD_ALLOC,	    /* O->R */
	PMIXEV_PMIXD_ALLOC_DONE,    /* R->O */
	PMIXEV_PMIXD_TYPE_MAX = PMIXEV_PMIXD_ALLOC_DONE
};

/* Who may send a type: the receiver refuses a frame from the wrong side. */
enum pmixev_pmixd_side { PMIXEV_PMIXD_FROM_ROOT, PMIXEV_PMIXD_FROM_OWNER };

void pmixev_pmixd_hdr_encode(uint8_t type, uint32_t len,
			     uint8_t out[PMIXEV_PMIXD_HDR_LEN]);
/*
 * Decode the header in the first `avail` bytes of `buf`, sent by `from`.
 * 1 with *type and *len, 0 when fewer than PMIXEV_PMIXD_HDR_LEN bytes are
 * there, -1 with a static reason in *why (bad magic or version, unknown
 * type or one the other side sends, flags, len above `max_len`).
 */
int pmixev_pmixd_hdr_decode(const void *buf, size_t avail, uint32_t max_len,
			    enum pmixev_pmixd_side from, uint8_t *type,
			    uint32_t *len, const char **why);
/* "FENCE_DONE", or "?" for an unknown type. */
const char *pmixev_pmixd_type_name(unsigned type);

/* Restated PMIx limits (the codec does not include pmix_common.h). */
#define PMIXEV_PMIXD_KEY_MAX	 512   /* PMIX_MAX_KEYLEN + 1 */
#define PMIXEV_PMIXD_RANGE_MAX	 7     /* PMIX_RANGE_PROC_LOCAL */
#define PMIXEV_PMIXD_TIMEOUT_MAX 86400 /* seconds, any request */
#define PMIXEV_PMIXD_LEVEL_MAX	 7     /* syslog levels 0..7 */
#define PMIXEV_PMIXD_SIGNO_MAX	 64
#define PMIXEV_PMIXD_JOB_END	 (-145) /* PMIX_EVENT_JOB_END */
#define PMIXEV_PMIXD_ID_MAX	 64   /* checkpoint ids (ckpt.h CKPT_ID_MAX) */
#define PMIXEV_PMIXD_LINE_MAX	 1024 /* LOG_LINE text incl. NUL */
#define PMIXEV_PMIXD_NO_RANK	 UINT32_MAX /* a tool, not a task */

/*
 * What root checks O's messages against: the step's task map and this
 * node (local ranks), its namespaces (NOTIFY sources), and the configured
 * byte limits. Borrowed, not copied.
 */
struct pmixev_pmixd_bounds {
	const struct pmixev_taskmap *map;
	uint32_t job, step; /* the step's ids */
	uint32_t nodeid;
	const char *nspace;	/* the step's namespace */
	const char *srv_nspace; /* the stepds' own: never O's */
	size_t event_max;	/* NOTIFY infos bytes (PMIxevEventMax) */
	size_t publish_max;	/* PUBSUB values bytes (PMIxevPublishMax) */
};

/* ABORT (O->R): a local client called PMIx_Abort. */
struct pmixev_pmixd_abort {
	uint64_t id;
	uint32_t rank; /* local */
	int32_t status;
	char text[PMIXEV_MSG_TEXT_MAX];
};
int pmixev_pmixd_abort_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_abort *m);
int pmixev_pmixd_abort_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      struct pmixev_pmixd_abort *m);

/* ABORT_DONE, FENCE/DMODEX answers' common shape without data. */
struct pmixev_pmixd_done {
	uint64_t id;
	enum pmixev_result result;
};
int pmixev_pmixd_done_pack(struct pmixev_buf *b,
			   const struct pmixev_pmixd_done *m);
int pmixev_pmixd_done_unpack(struct pmixev_buf *b, struct pmixev_pmixd_done *m);

/* CLIENT_STATE (O->R): what a local client did. A claim. */
enum pmixev_pmixd_client {
	PMIXEV_PMIXD_CONNECTED = 1,
	PMIXEV_PMIXD_FINALIZED = 2,
};
struct pmixev_pmixd_client_state {
	uint32_t rank; /* local */
	enum pmixev_pmixd_client state;
};
int pmixev_pmixd_client_state_pack(struct pmixev_buf *b,
				   const struct pmixev_pmixd_client_state *m);
int pmixev_pmixd_client_state_unpack(struct pmixev_buf *b,
				     const struct pmixev_pmixd_bounds *lim,
				     struct pmixev_pmixd_client_state *m);

/*
 * MONITOR_ALERT (O->R): the library raised a monitor alert about a local
 * rank, or O refused a request for a monitor Slurm does not offer (OTHER:
 * root counts it).
 */
enum pmixev_pmixd_alert {
	PMIXEV_PMIXD_HEARTBEAT = 1,
	PMIXEV_PMIXD_FILE = 2,
	PMIXEV_PMIXD_MONITOR_OTHER = 3,
};
struct pmixev_pmixd_alert_msg {
	uint32_t rank; /* HEARTBEAT, FILE: local; OTHER: the requester's as
			  claimed, < ntasks or PMIXEV_PMIXD_NO_RANK */
	enum pmixev_pmixd_alert code;
	char key[PMIXEV_PMIXD_KEY_MAX]; /* OTHER: the monitor asked; else "" */
};
int pmixev_pmixd_alert_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_alert_msg *m);
int pmixev_pmixd_alert_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      struct pmixev_pmixd_alert_msg *m);

/* CKPT_COMPLETE (O->R): a local rank completed checkpoint `id`, or any
 * checkpoint it was asked for (no id). Root matches it against its own
 * watches (ckpt.c). */
struct pmixev_pmixd_ckpt_done {
	uint32_t rank; /* local */
	bool has_id;
	char id[PMIXEV_PMIXD_ID_MAX]; /* "" unless has_id */
};
int pmixev_pmixd_ckpt_done_pack(struct pmixev_buf *b,
				const struct pmixev_pmixd_ckpt_done *m);
int pmixev_pmixd_ckpt_done_unpack(struct pmixev_buf *b,
				  const struct pmixev_pmixd_bounds *lim,
				  struct pmixev_pmixd_ckpt_done *m);

/* LOG_LINE (O->R): a line for the slurmd log, marked untrusted there.
 * Root still cleans it (pmixev_logline) before it logs it. */
struct pmixev_pmixd_log_line {
	uint8_t level; /* 0..7 */
	char text[PMIXEV_PMIXD_LINE_MAX];
};
int pmixev_pmixd_log_line_pack(struct pmixev_buf *b,
			       const struct pmixev_pmixd_log_line *m);
int pmixev_pmixd_log_line_unpack(struct pmixev_buf *b,
				 struct pmixev_pmixd_log_line *m);

/* SYNC (R->O) and SYNC_ECHO (O->R): { u64 seq }. FINI: empty. */
int pmixev_pmixd_seq_pack(struct pmixev_buf *b, uint64_t seq);
int pmixev_pmixd_seq_unpack(struct pmixev_buf *b, uint64_t *seq);
int pmixev_pmixd_empty_unpack(struct pmixev_buf *b);

/*
 * NOTIFY (O->R): a client's PMIx_Notify_event, in the overlay's form
 * (pmixev_proto.h). The infos stay opaque: O counted them (at most
 * notify.c's MAX_INFO) and root never unpacks them. Refused: a range above
 * PMIX_RANGE_PROC_LOCAL, infos above lim->event_max, a source that is not
 * the step's namespace (then rank < ntasks) or one of its tools
 * ("NSPACE.tool.*").
 */
int pmixev_pmixd_notify_pack(struct pmixev_buf *b,
			     const struct pmixev_notify_msg *m);
int pmixev_pmixd_notify_unpack(struct pmixev_buf *b,
			       const struct pmixev_pmixd_bounds *lim,
			       struct pmixev_notify_msg *m);

/*
 * INJECT (R->O): an event for O to deliver to its clients, from the stepd
 * of node `origin` (which observed it, relayed it, or asks for the
 * checkpoint). O checks origin, ranks and nodes against its layout.
 */
enum pmixev_pmixd_inject_kind {
	PMIXEV_PMIXD_INJECT_EVENT = 1,	/* a stepd-observed event */
	PMIXEV_PMIXD_INJECT_NOTIFY = 2, /* a relayed client event */
	PMIXEV_PMIXD_INJECT_CKPT = 3,	/* PMIX_JCTRL_CHECKPOINT: ev.rank (or
					   PMIXEV_EVENT_NO_RANK: all), id in
					   ev.text */
	PMIXEV_PMIXD_INJECT_CHILD = 4,	/* a rank of spawned step `child`
					   ended, or the whole step (code
					   PMIX_EVENT_JOB_END, no rank,
					   value its PMIX_JOB_TERM_STATUS):
					   ev, for rank `to_rank` (the
					   spawner) and the ranks connected
					   to `child`; a rank's end may
					   have PMIXEV_PMIXD_NO_RANK: those
					   only */
};
struct pmixev_pmixd_inject {
	enum pmixev_pmixd_inject_kind kind;
	uint32_t origin;
	struct pmixev_event_msg ev;    /* _EVENT, _CKPT, _CHILD */
	struct pmixev_notify_msg nt;   /* _NOTIFY */
	char child[PMIXEV_NSPACE_MAX]; /* _CHILD: the spawned step's */
	uint32_t to_rank;	       /* _CHILD: the spawner, or NO_RANK */
};
int pmixev_pmixd_inject_pack(struct pmixev_buf *b,
			     const struct pmixev_pmixd_inject *m);
int pmixev_pmixd_inject_unpack(struct pmixev_buf *b,
			       struct pmixev_pmixd_inject *m);

#endif /* PMIXEV_PMIXD_MSG_H_ */
