/*
 * pmixev_frame.h - the overlay's wire frame.
 *
 * Every message between stepds (and between a stepd and srun) is one frame:
 * a fixed 24-byte header followed by `len` payload bytes.
 *
 *   offset size field
 *        0    4 magic    "PXEV" (0x50584556)
 *        4    1 version  PMIXEV_FRAME_VERSION
 *        5    1 type     enum pmixev_msg_type
 *        6    2 flags    0 (reserved, must be 0)
 *        8    4 src      sender node id (PMIXEV_NODE_SRUN for srun)
 *       12    4 dst      destination node id (routing), or PMIXEV_NODE_ANY
 *       16    4 len      payload length
 *       20    4 hcrc     FNV-1a (32 bit) of bytes 0..19
 *
 * All fields big-endian. A frame whose header is wrong in any way (magic,
 * version, unknown type, flags, checksum, or len above the receiver's
 * limit) is rejected; the receiver drops the connection and logs why.
 * Pure code: unit-tested and fuzzed.
 */
#ifndef PMIXEV_FRAME_H_
#define PMIXEV_FRAME_H_

#include <stddef.h>
#include <stdint.h>

#define PMIXEV_FRAME_MAGIC   0x50584556u
#define PMIXEV_FRAME_VERSION 1
#define PMIXEV_FRAME_HDR_LEN 24
#define PMIXEV_NODE_SRUN     0xfffffffeu
#define PMIXEV_NODE_ANY	     0xffffffffu

enum pmixev_msg_type {
	PMIXEV_MSG_RDV_HELLO = 1,  /* stepd -> srun: authenticated hello */
	PMIXEV_MSG_RDV_TABLE = 2,  /* srun -> stepd: addresses of all stepds */
	PMIXEV_MSG_PEER_HELLO = 3, /* child -> parent: authenticated hello */
	PMIXEV_MSG_PEER_WELCOME = 4,  /* parent -> child: authenticated reply */
	PMIXEV_MSG_FENCE_UP = 5,      /* contribution toward the root */
	PMIXEV_MSG_FENCE_DOWN = 6,    /* result (or error) from the root */
	PMIXEV_MSG_DMDX_REQ = 7,      /* direct modex request, routed */
	PMIXEV_MSG_DMDX_RESP = 8,     /* direct modex response, routed */
	PMIXEV_MSG_ABORT = 9,	      /* stepd -> srun: a client called abort */
	PMIXEV_MSG_PUBSUB_REQ = 10,   /* publish/lookup/unpublish -> root */
	PMIXEV_MSG_PUBSUB_RESP = 11,  /* root -> requester */
	PMIXEV_MSG_BYE = 12,	      /* neighbour: my part of the step ended */
	PMIXEV_MSG_EVENT = 13,	      /* an observed event, to every node */
	PMIXEV_MSG_NOTIFY = 14,	      /* a client's event, to every node */
	PMIXEV_MSG_HEARTBEAT = 15,    /* neighbour: I am alive */
	PMIXEV_MSG_GONE = 16,	      /* to every node: a node left the tree */
	PMIXEV_MSG_NOTICE = 17,	      /* stepd -> srun: a line for the user */
	PMIXEV_MSG_JOBINFO_REQ = 18,  /* Slurm's answer wanted -> root */
	PMIXEV_MSG_JOBINFO_RESP = 19, /* root -> requester */
	PMIXEV_MSG_PTABLE_REQ = 20,   /* a node's tasks wanted */
	PMIXEV_MSG_PTABLE_RESP = 21,  /* ... and given */
	PMIXEV_MSG_LOG_GLOBAL = 22,   /* a PMIx_Log line for syslog -> root */
	PMIXEV_MSG_TASKSIG_REQ = 23,  /* signal a node's task(s) */
	PMIXEV_MSG_TASKSIG_RESP = 24, /* ... and how it went */
	PMIXEV_MSG_CKPT_REQ = 25,     /* checkpoint a node's task(s) */
	PMIXEV_MSG_CKPT_DONE = 26,    /* a rank completed one -> requester */
	PMIXEV_MSG_CANCEL_REQ = 27,   /* end the requests with this id */
	PMIXEV_MSG_CANCEL_RESP = 28,  /* ... how many there were */
	PMIXEV_MSG_PMIX_GONE = 29,    /* to every node: my PMIx server ended */
	PMIXEV_MSG_GROUPS_REQ = 30,   /* the live groups wanted -> node 0 */
	PMIXEV_MSG_GROUPS_RESP = 31,  /* node 0 -> requester */
	/* The spawn family's frames (doc/spawn.md §3, §6.2): they travel on
	 * a stepd's srun link and between sruns only, never on the tree. */
	PMIXEV_MSG_XSTEP = 32,	      /* stepd <-> srun <-> srun: XSTEP */
	PMIXEV_MSG_HUB_HELLO = 33,    /* child srun -> parent srun */
	PMIXEV_MSG_HUB_JOIN = 34,     /* srun <-> srun: steps joined */
	PMIXEV_MSG_HUB_LEAVE = 35,    /* srun <-> srun: steps left */
	PMIXEV_MSG_SPAWN_REQ = 36,    /* requesting stepd -> own srun */
	PMIXEV_MSG_SPAWN_CANCEL = 37, /* requesting stepd -> own srun */
	PMIXEV_MSG_SPAWN_STATUS = 38, /* srun -> the requesting stepd */
	PMIXEV_MSG_FAMILY = 39,	      /* srun -> own stepds */
	PMIXEV_MSG_ROOT_IS = 40,      /* the step's tree root -> own srun */
	PMIXEV_MSG_NODE_READY = 41,   /* a spawned step's stepd -> own srun */
	PMIXEV_MSG_NSPACE_ACK = 42, /* stepd -> own srun: a layout registered */
	PMIXEV_MSG_TYPE_MAX = 42
};

struct pmixev_frame_hdr {
	uint8_t type;
	uint16_t flags;
	uint32_t src;
	uint32_t dst;
	uint32_t len;
};

/* A 32-bit number in network order at `p` (the frame headers' fields). */
static inline void pmixev_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline uint32_t pmixev_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Write the 24 header bytes for `hdr` (magic, version, checksum filled in). */
void pmixev_frame_encode_hdr(const struct pmixev_frame_hdr *hdr,
			     uint8_t out[PMIXEV_FRAME_HDR_LEN]);

/*
 * Decode a header from the first `avail` bytes of `buf`.
 * Returns 1 with *hdr filled when the header is complete and valid,
 * 0 when fewer than PMIXEV_FRAME_HDR_LEN bytes are available,
 * -1 when invalid, with a static reason in *why.
 * `max_len` is the largest payload the receiver accepts.
 */
int pmixev_frame_decode_hdr(const void *buf, size_t avail, uint32_t max_len,
			    struct pmixev_frame_hdr *hdr, const char **why);

/* Name of a message type for log lines ("FENCE_UP"), "?" if unknown. */
const char *pmixev_msg_type_name(unsigned type);

#endif /* PMIXEV_FRAME_H_ */
