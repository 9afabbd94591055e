/*
 * wireup/pubsub_msg.h - the overlay messages between a node and its
 * step's publish/lookup directory on node 0 (PMIXEV_MSG_PUBSUB_REQ and
 * _RESP; pubsub_dir.h serves them), and the types they carry. Pure code:
 * values stay opaque.
 *
 *   req   u64 id, u8 op (1..3), u32 rank, u8 wait, u32 timeout_sec,
 *         u8 range, u8 persist (publish only, else 0), u32 n (0..1024),
 *         n * { str key, u32 rank, bytes value (publish only) }
 *   resp  u64 id, u8 result, u32 n (0..1024),
 *         n * { str key, u32 job, u32 step, u32 rank, bytes value }
 */
#ifndef PMIXEV_WIREUP_PUBSUB_MSG_H_
#define PMIXEV_WIREUP_PUBSUB_MSG_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "pmixev_buf.h"
#include "pmixev_result.h"

#define PUBSUB_MSG_ENTRIES_MAX 1024 /* keys in one request */

enum pubsub_op { PUBSUB_PUBLISH = 1, PUBSUB_LOOKUP, PUBSUB_UNPUBLISH };

/* One key, and for publish/lookup results its packed value. */
struct pubsub_entry {
	char key[PMIX_MAX_KEYLEN + 1];
	uint32_t job, step; /* publisher's step (answers only) */
	uint32_t rank;	    /* publisher */
	uint8_t *value;
	size_t nvalue;
};

/* What a request asks besides its keys. */
struct pubsub_how {
	bool wait;	      /* lookup: hold until every key is published */
	unsigned timeout_sec; /* 0: PMIxevTimeout */
	uint8_t range;	      /* pmixev_pmixd_range_ok */
	uint8_t persist;      /* publish only: PMIx's persistence */
};

/* A request as it travels to the directory. */
struct pubsub_req_msg {
	uint64_t id;
	uint8_t op; /* enum pubsub_op */
	uint32_t rank;
	struct pubsub_how how;
	size_t n;
	struct pubsub_entry *e; /* values point into the message */
};

/* Pack `r` into `b`: 0, or -1 when it cannot travel (bad op, range,
 * persistence or count; out of memory). */
int pubsub_req_pack(struct pmixev_buf *b, const struct pubsub_req_msg *r);

/* Unpack and check a request; r->e is allocated (free it), its values
 * point into `buf`. 0, or -1 for a malformed request. */
int pubsub_req_unpack(const uint8_t *buf, size_t len, struct pubsub_req_msg *r);

/* An answer to request `id`. */
int pubsub_resp_pack(struct pmixev_buf *b, uint64_t id,
		     enum pmixev_result result, const struct pubsub_entry *e,
		     size_t n);

/* Unpack an answer; *e is allocated (free it), its values point into
 * `buf`. 0, or -1 for a malformed answer. */
int pubsub_resp_unpack(const uint8_t *buf, size_t len, uint64_t *id,
		       enum pmixev_result *result, struct pubsub_entry **e,
		       size_t *n);

#endif /* PMIXEV_WIREUP_PUBSUB_MSG_H_ */
