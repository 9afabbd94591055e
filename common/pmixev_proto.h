/*
 * pmixev_proto.h - bodies of the overlay messages (see pmixev_frame.h for
 * the frame around them), packed with pmixev_buf.
 *
 * Each message has a C struct, a pack function (appends to a writer) and
 * an unpack function (reads a whole body; fails on short, malformed or
 * trailing data, or on counts above the limits below). Unpacked byte
 * strings point into the reader's data (zero-copy) unless noted.
 * Pure code: unit-tested and fuzzed.
 */
#ifndef PMIXEV_PROTO_H_
#define PMIXEV_PROTO_H_

#include <stddef.h>
#include <stdint.h>

#include "pmixev_buf.h"
#include "pmixev_result.h"

#define PMIXEV_HOST_MAX	    256	  /* host text incl. NUL */
#define PMIXEV_NSPACE_MAX   256	  /* PMIx nspace incl. NUL (PMIX_MAX_NSLEN+1) */
#define PMIXEV_SIG_MAX	    4096  /* fence signature text incl. NUL */
#define PMIXEV_MSG_TEXT_MAX 1024  /* abort message incl. NUL */
#define PMIXEV_MAX_NODES    65536 /* table entries */

/*
 * Identity a stepd or srun vouches for inside a munge credential: the
 * credential's payload is a packed pmixev_ident. RDV_HELLO, PEER_HELLO and
 * PEER_WELCOME bodies are just { bytes cred }.
 */
struct pmixev_ident {
	uint32_t job_id;
	uint32_t step_id;
	uint32_t from; /* sender node id, or PMIXEV_NODE_SRUN */
	uint32_t to;   /* intended receiver node id, or PMIXEV_NODE_SRUN */
	char host[PMIXEV_HOST_MAX]; /* sender's overlay address (RDV_HELLO) */
	uint16_t port;	/* sender's overlay port (RDV_HELLO), else 0 */
	uint64_t nonce; /* echoed in the reply (PEER_WELCOME) */
};
int pmixev_ident_pack(struct pmixev_buf *b, const struct pmixev_ident *m);
int pmixev_ident_unpack(struct pmixev_buf *b, struct pmixev_ident *m);

/* { bytes cred } - RDV_HELLO, PEER_HELLO, PEER_WELCOME. */
int pmixev_cred_pack(struct pmixev_buf *b, const void *cred, size_t len);
int pmixev_cred_unpack(struct pmixev_buf *b, const uint8_t **cred, size_t *len);

/*
 * RDV_TABLE: { bytes cred } where the credential's payload is the packed
 * table below (so the table itself is authenticated).
 */
struct pmixev_table_entry {
	char host[PMIXEV_HOST_MAX];
	uint16_t port;
};
struct pmixev_table {
	uint32_t job_id;
	uint32_t step_id;
	uint32_t nnodes;		  /* entries, 1..PMIXEV_MAX_NODES */
	struct pmixev_table_entry *nodes; /* unpack: malloc'd, caller frees */
};
int pmixev_table_pack(struct pmixev_buf *b, const struct pmixev_table *m);
int pmixev_table_unpack(struct pmixev_buf *b, struct pmixev_table *m);

/*
 * What a collective is for: each kind counts its fences apart. The group
 * kinds' signatures name the group too (wireup/fence_sig.h).
 */
enum pmixev_coll_kind {
	PMIXEV_COLL_FENCE = 1,		 /* PMIx_Fence */
	PMIXEV_COLL_CONNECT = 2,	 /* PMIx_Connect */
	PMIXEV_COLL_DISCONNECT = 3,	 /* PMIx_Disconnect */
	PMIXEV_COLL_GROUP_CONSTRUCT = 4, /* PMIx_Group_construct */
	PMIXEV_COLL_GROUP_DESTRUCT = 5,	 /* PMIx_Group_destruct */
};

/* FENCE_UP and FENCE_DOWN. */
struct pmixev_fence_msg {
	char sig[PMIXEV_SIG_MAX];   /* canonical participant set */
	enum pmixev_coll_kind kind; /* with sig, names the collective */
	uint64_t seq;		    /* per kind and signature fence number */
	enum pmixev_result result;  /* DOWN: the collective's; UP: PMIXEV_OK,
				       or the error that ended it below */
	uint8_t collect;	    /* PMIX_COLLECT_DATA requested */
	const uint8_t *data;	    /* concatenated contributions */
	size_t ndata;
};
int pmixev_fence_pack(struct pmixev_buf *b, const struct pmixev_fence_msg *m);
int pmixev_fence_unpack(struct pmixev_buf *b, struct pmixev_fence_msg *m);

/* DMDX_REQ: the requester is the frame's src node. */
struct pmixev_dmdx_req {
	uint64_t id;
	char nspace[PMIXEV_NSPACE_MAX];
	uint32_t rank;
	uint32_t timeout_sec; /* 0: the server's default */
};
int pmixev_dmdx_req_pack(struct pmixev_buf *b, const struct pmixev_dmdx_req *m);
int pmixev_dmdx_req_unpack(struct pmixev_buf *b, struct pmixev_dmdx_req *m);

/* DMDX_RESP. */
struct pmixev_dmdx_resp {
	uint64_t id;
	enum pmixev_result result;
	const uint8_t *data;
	size_t ndata;
};
int pmixev_dmdx_resp_pack(struct pmixev_buf *b,
			  const struct pmixev_dmdx_resp *m);
int pmixev_dmdx_resp_unpack(struct pmixev_buf *b, struct pmixev_dmdx_resp *m);

/* NOTICE: what a stepd wants the user to know (srun prints it). */
struct pmixev_notice_msg {
	char text[PMIXEV_MSG_TEXT_MAX];
};

int pmixev_notice_pack(struct pmixev_buf *b, const struct pmixev_notice_msg *m);
int pmixev_notice_unpack(struct pmixev_buf *b, struct pmixev_notice_msg *m);

/* ABORT: a client asked to abort the step. */
struct pmixev_abort_msg {
	int32_t status;
	uint32_t rank;
	char text[PMIXEV_MSG_TEXT_MAX];
};
int pmixev_abort_pack(struct pmixev_buf *b, const struct pmixev_abort_msg *m);
int pmixev_abort_unpack(struct pmixev_buf *b, struct pmixev_abort_msg *m);

/*
 * EVENT: something a stepd observed (a task exit, ...), sent to every node
 * of the step along the tree (frame dst PMIXEV_NODE_ANY; the frame's src
 * is the observing node).
 */
#define PMIXEV_EVENT_NON_DEFAULT 0x1 /* not for catch-all handlers */
#define PMIXEV_EVENT_SITE	 0x2 /* from the site (pmixev-notify) */
#define PMIXEV_EVENT_JOB	 0x4 /* about the job (from slurmctld) */
#define PMIXEV_EVENT_FLAGS	 0x7
#define PMIXEV_EVENT_NO_RANK	 UINT32_MAX
#define PMIXEV_EVENT_HOST_MAX	 64  /* incl. NUL */
#define PMIXEV_EVENT_REASON_MAX	 256 /* incl. NUL */

struct pmixev_event_msg {
	int32_t code;	   /* PMIx status code of the event */
	uint32_t rank;	   /* affected rank, or PMIXEV_EVENT_NO_RANK */
	uint32_t node;	   /* affected node (node events) */
	int32_t exit_code; /* PMIX_EXIT_CODE: exit status or signal */
	uint8_t flags;	   /* PMIXEV_EVENT_* */
	int64_t value;	   /* job events: seconds left */
	uint32_t detail;   /* job events: what follows (PMIXEV_AFTER_*);
			      node offline: enum pmixev_node_avail */
	uint64_t seq;	   /* per observing node, from 1 */
	uint64_t time;	   /* when it was observed, seconds since the epoch */
	char text[PMIXEV_MSG_TEXT_MAX];
	char host[PMIXEV_EVENT_HOST_MAX];     /* node offline: which, or "" */
	char reason[PMIXEV_EVENT_REASON_MAX]; /* node offline: Slurm's, or "" */
};
int pmixev_event_pack(struct pmixev_buf *b, const struct pmixev_event_msg *m);
int pmixev_event_unpack(struct pmixev_buf *b, struct pmixev_event_msg *m);

/*
 * NOTIFY: a client's PMIx_Notify_event, relayed to the other nodes along
 * the tree (frame dst PMIXEV_NODE_ANY). `info` is the event's pmix_info_t
 * array as PMIx packs it (opaque here).
 */
struct pmixev_notify_msg {
	char nspace[PMIXEV_NSPACE_MAX]; /* the notifying process */
	uint32_t rank;
	int32_t code;
	uint8_t range; /* pmix_data_range_t */
	const uint8_t *info;
	size_t ninfo; /* bytes */
};
int pmixev_notify_pack(struct pmixev_buf *b, const struct pmixev_notify_msg *m);
int pmixev_notify_unpack(struct pmixev_buf *b, struct pmixev_notify_msg *m);

#endif /* PMIXEV_PROTO_H_ */
