/*
 * pmixev_frame.c - encoding and validation of the 24-byte frame header.
 *
 * The header checksum (hcrc) is 32-bit FNV-1a over header bytes 0..19:
 * h = 0x811c9dc5; for each byte: h ^= byte, h *= 0x01000193 (mod 2^32).
 * It rejects random or misaligned bytes early; it is not authentication
 * (munge credentials in the handshake provide that).
 */
#include "config.h"

#include "pmixev_frame.h"

#define HCRC_OFFSET 20

static const char *const type_names[PMIXEV_MSG_TYPE_MAX + 1] = {
	[PMIXEV_MSG_RDV_HELLO] = "RDV_HELLO",
	[PMIXEV_MSG_RDV_TABLE] = "RDV_TABLE",
	[PMIXEV_MSG_PEER_HELLO] = "PEER_HELLO",
	[PMIXEV_MSG_PEER_WELCOME] = "PEER_WELCOME",
	[PMIXEV_MSG_FENCE_UP] = "FENCE_UP",
	[PMIXEV_MSG_FENCE_DOWN] = "FENCE_DOWN",
	[PMIXEV_MSG_DMDX_REQ] = "DMDX_REQ",
	[PMIXEV_MSG_DMDX_RESP] = "DMDX_RESP",
	[PMIXEV_MSG_ABORT] = "ABORT",
	[PMIXEV_MSG_PUBSUB_REQ] = "PUBSUB_REQ",
	[PMIXEV_MSG_PUBSUB_RESP] = "PUBSUB_RESP",
	[PMIXEV_MSG_BYE] = "BYE",
	[PMIXEV_MSG_EVENT] = "EVENT",
	[PMIXEV_MSG_NOTIFY] = "NOTIFY",
	[PMIXEV_MSG_HEARTBEAT] = "HEARTBEAT",
	[PMIXEV_MSG_GONE] = "GONE",
	[PMIXEV_MSG_NOTICE] = "NOTICE",
	[PMIXEV_MSG_JOBINFO_REQ] = "JOBINFO_REQ",
	[PMIXEV_MSG_JOBINFO_RESP] = "JOBINFO_RESP",
	[PMIXEV_MSG_PTABLE_REQ] = "PTABLE_REQ",
	[PMIXEV_MSG_PTABLE_RESP] = "PTABLE_RESP",
	[PMIXEV_MSG_LOG_GLOBAL] = "LOG_GLOBAL",
	[PMIXEV_MSG_TASKSIG_REQ] = "TASKSIG_REQ",
	[PMIXEV_MSG_TASKSIG_RESP] = "TASKSIG_RESP",
	[PMIXEV_MSG_CKPT_REQ] = "CKPT_REQ",
	[PMIXEV_MSG_CKPT_DONE] = "CKPT_DONE",
	[PMIXEV_MSG_CANCEL_REQ] = "CANCEL_REQ",
	[PMIXEV_MSG_CANCEL_RESP] = "CANCEL_RESP",
	[PMIXEV_MSG_PMIX_GONE] = "PMIX_GONE",
	[PMIXEV_MSG_GROUPS_REQ] = "GROUPS_REQ",
	[PMIXEV_MSG_GROUPS_RESP] = "GROUPS_RESP",
	[PMIXEV_MSG_XSTEP] = "XSTEP",
	[PMIXEV_MSG_HUB_HELLO] = "HUB_HELLO",
	[PMIXEV_MSG_HUB_JOIN] = "HUB_JOIN",
	[PMIXEV_MSG_HUB_LEAVE] = "HUB_LEAVE",
	[PMIXEV_MSG_SPAWN_REQ] = "SPAWN_REQ",
	[PMIXEV_MSG_SPAWN_CANCEL] = "SPAWN_CANCEL",
	[PMIXEV_MSG_SPAWN_STATUS] = "SPAWN_STATUS",
	[PMIXEV_MSG_FAMILY] = "FAMILY",
	[PMIXEV_MSG_ROOT_IS] = "ROOT_IS",
	[PMIXEV_MSG_NODE_READY] = "NODE_READY",
	[PMIXEV_MSG_NSPACE_ACK] = "NSPACE_ACK",
};

static uint32_t pmixev_frame_hcrc(const uint8_t *hdr)
{
	uint32_t h = 0x811c9dc5u;

	for (size_t i = 0; i < HCRC_OFFSET; i++) {
		h ^= hdr[i];
		h *= 0x01000193u;
	}
	return h;
}

void pmixev_frame_encode_hdr(const struct pmixev_frame_hdr *hdr,
			     uint8_t out[PMIXEV_FRAME_HDR_LEN])
{
	pmixev_put_be32(out, PMIXEV_FRAME_MAGIC);
	out[4] = PMIXEV_FRAME_VERSION;
	out[5] = hdr->type;
	out[6] = (uint8_t)(hdr->flags >> 8);
	out[7] = (uint8_t)hdr->flags;
	pmixev_put_be32(out + 8, hdr->src);
	pmixev_put_be32(out + 12, hdr->dst);
	pmixev_put_be32(out + 16, hdr->len);
	pmixev_put_be32(out + HCRC_OFFSET, pmixev_frame_hcrc(out));
}

int pmixev_frame_decode_hdr(const void *buf, size_t avail, uint32_t max_len,
			    struct pmixev_frame_hdr *hdr, const char **why)
{
	const uint8_t *p = buf;
	const char *reason = NULL;
	uint16_t flags;
	uint32_t len;

	if (avail < PMIXEV_FRAME_HDR_LEN)
		return 0;
	flags = (uint16_t)(p[6] << 8 | p[7]);
	len = pmixev_get_be32(p + 16);
	if (pmixev_get_be32(p) != PMIXEV_FRAME_MAGIC)
		reason = "bad magic";
	else if (p[4] != PMIXEV_FRAME_VERSION)
		reason = "unsupported version";
	else if (pmixev_get_be32(p + HCRC_OFFSET) != pmixev_frame_hcrc(p))
		reason = "bad header checksum";
	else if (p[5] == 0 || p[5] > PMIXEV_MSG_TYPE_MAX)
		reason = "unknown message type";
	else if (flags != 0)
		reason = "nonzero flags";
	else if (len > max_len)
		reason = "payload too long";
	if (reason) {
		if (why)
			*why = reason;
		return -1;
	}
	hdr->type = p[5];
	hdr->flags = flags;
	hdr->src = pmixev_get_be32(p + 8);
	hdr->dst = pmixev_get_be32(p + 12);
	hdr->len = len;
	return 1;
}

const char *pmixev_msg_type_name(unsigned type)
{
	return type && type <= PMIXEV_MSG_TYPE_MAX ? type_names[type] : "?";
}
