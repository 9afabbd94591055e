/*
 * fuzz_frame.c - libFuzzer target for the frame header and message bodies.
 *
 * The input is decoded as a frame header and, as a whole and from byte 24
 * on (the body of a frame), by every unpack function (and as a whole as
 * an owner helper message, and its writer's). Invariants checked:
 * a header that decodes re-encodes to the same 24 bytes, and a body that
 * unpacks packs back to the same bytes (the encoding is canonical).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_frame.h"
#include "pmixev_helper_msg.h"
#include "pmixev_owner_write.h"
#include "pmixev_ptable.h"
#include "pmixev_proto.h"

#define FUZZ_MAX_LEN 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The pack into `w` (result `rc`) reproduced `data` exactly. */
static void assert_repacked(struct pmixev_buf *w, int rc, const uint8_t *data,
			    size_t len)
{
	if (rc < 0 || w->len != len || memcmp(w->data, data, len) != 0)
		abort();
	pmixev_buf_release(w);
}

static void fuzz_header(const uint8_t *data, size_t size)
{
	uint8_t again[PMIXEV_FRAME_HDR_LEN];
	struct pmixev_frame_hdr hdr;
	const char *why = NULL;
	int rc;

	rc = pmixev_frame_decode_hdr(data, size, FUZZ_MAX_LEN, &hdr, &why);
	if (rc < 0 && !why)
		abort();
	if (rc == 0 && size >= PMIXEV_FRAME_HDR_LEN)
		abort();
	if (rc == 1) {
		pmixev_frame_encode_hdr(&hdr, again);
		if (memcmp(again, data, sizeof(again)) != 0 ||
		    hdr.len > FUZZ_MAX_LEN)
			abort();
		pmixev_msg_type_name(hdr.type);
	}
}

static void fuzz_ident_cred_table(const uint8_t *data, size_t len)
{
	struct pmixev_ident ident;
	struct pmixev_table table;
	struct pmixev_buf r, w;
	const uint8_t *cred;
	size_t ncred;

	pmixev_buf_reader(&r, data, len);
	if (pmixev_ident_unpack(&r, &ident) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_ident_pack(&w, &ident), data, len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_cred_unpack(&r, &cred, &ncred) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_cred_pack(&w, cred, ncred), data,
				len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_table_unpack(&r, &table) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_table_pack(&w, &table), data, len);
		free(table.nodes);
	}
}

static void fuzz_fence_dmdx_abort(const uint8_t *data, size_t len)
{
	struct pmixev_fence_msg fence;
	struct pmixev_dmdx_req req;
	struct pmixev_dmdx_resp resp;
	struct pmixev_abort_msg abrt;
	struct pmixev_notice_msg notice;
	struct pmixev_event_msg ev;
	struct pmixev_notify_msg nt;
	struct pmixev_buf r, w;

	pmixev_buf_reader(&r, data, len);
	if (pmixev_fence_unpack(&r, &fence) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_fence_pack(&w, &fence), data, len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_dmdx_req_unpack(&r, &req) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_dmdx_req_pack(&w, &req), data, len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_dmdx_resp_unpack(&r, &resp) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_dmdx_resp_pack(&w, &resp), data,
				len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_abort_unpack(&r, &abrt) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_abort_pack(&w, &abrt), data, len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_notice_unpack(&r, &notice) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_notice_pack(&w, &notice), data, len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_event_unpack(&r, &ev) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_event_pack(&w, &ev), data, len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_notify_unpack(&r, &nt) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_notify_pack(&w, &nt), data, len);
	}
}

/* The owner helper's messages (a SOCK_SEQPACKET message each), and the
 * nodes' questions to the root about them. */
static void fuzz_owner(const uint8_t *data, size_t len)
{
	struct pmixev_owner_req req;
	static struct pmixev_owner_resp resp;
	static struct pmixev_jobinfo_resp jresp;
	struct pmixev_jobinfo_req jreq;
	struct pmixev_owner_written written;
	struct pmixev_owner_write wreq;
	struct pmixev_ptable_msg pt;
	struct pmixev_buf r, w;

	pmixev_buf_reader(&r, data, len);
	if (pmixev_owner_req_unpack(&r, &req) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_owner_req_pack(&w, &req), data, len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_owner_resp_unpack(&r, &resp) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_owner_resp_pack(&w, &resp), data,
				len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_jobinfo_req_unpack(&r, &jreq) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_jobinfo_req_pack(&w, &jreq), data,
				len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_jobinfo_resp_unpack(&r, &jresp) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_jobinfo_resp_pack(&w, &jresp), data,
				len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_owner_written_unpack(&r, &written) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_owner_written_pack(&w, &written),
				data, len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_owner_write_unpack(&r, &wreq) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_owner_write_pack(&w, &wreq), data,
				len);
	}
	pmixev_buf_reader(&r, data, len);
	if (pmixev_ptable_unpack(&r, &pt) == 0) {
		pmixev_buf_init(&w);
		assert_repacked(&w, pmixev_ptable_pack(&w, &pt), data, len);
		free(pt.e);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_owner(data, size);
	fuzz_header(data, size);
	fuzz_ident_cred_table(data, size);
	fuzz_fence_dmdx_abort(data, size);
	if (size >= PMIXEV_FRAME_HDR_LEN) {
		fuzz_ident_cred_table(data + PMIXEV_FRAME_HDR_LEN,
				      size - PMIXEV_FRAME_HDR_LEN);
		fuzz_fence_dmdx_abort(data + PMIXEV_FRAME_HDR_LEN,
				      size - PMIXEV_FRAME_HDR_LEN);
	}
	return 0;
}
