/*
 * Unit tests for common/pmixev_frame.c: exact header bytes, round trips
 * and every reason a header is rejected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_frame.h"

#define MAX_LEN 4096

/* Reference FNV-1a 32 over header bytes 0..19, as pmixev_frame.c states. */
static uint32_t ref_hcrc(const uint8_t *p)
{
	uint32_t h = 0x811c9dc5u;

	for (int i = 0; i < 20; i++) {
		h ^= p[i];
		h *= 0x01000193u;
	}
	return h;
}

/* Store a freshly computed checksum after editing header bytes. */
static void reseal(uint8_t *p)
{
	uint32_t h = ref_hcrc(p);

	p[20] = (uint8_t)(h >> 24);
	p[21] = (uint8_t)(h >> 16);
	p[22] = (uint8_t)(h >> 8);
	p[23] = (uint8_t)h;
}

static void encode(uint8_t type, uint16_t flags, uint32_t len, uint8_t *out)
{
	struct pmixev_frame_hdr h = {
		.type = type, .flags = flags, .src = 1, .dst = 2, .len = len};

	pmixev_frame_encode_hdr(&h, out);
}

/* Decoding `p` fails with exactly `reason`. */
static void assert_rejected(const uint8_t *p, const char *reason)
{
	struct pmixev_frame_hdr h;
	const char *why = NULL;

	assert_int_equal(pmixev_frame_decode_hdr(p, PMIXEV_FRAME_HDR_LEN,
						 MAX_LEN, &h, &why),
			 -1);
	assert_non_null(why);
	assert_string_equal(why, reason);
}

static void test_encode_exact_bytes(void **state)
{
	static const uint8_t want[PMIXEV_FRAME_HDR_LEN] = {
		'P',  'X',  'E',  'V',	/* magic */
		0x01,			/* version */
		0x05,			/* FENCE_UP */
		0x00, 0x00,		/* flags */
		0x00, 0x00, 0x00, 0x03, /* src */
		0xff, 0xff, 0xff, 0xff, /* dst ANY */
		0x01, 0x02, 0x03, 0x04, /* len */
		0xf6, 0x10, 0xe2, 0x89, /* FNV-1a of bytes 0..19 */
	};
	struct pmixev_frame_hdr h = {.type = PMIXEV_MSG_FENCE_UP,
				     .src = 3,
				     .dst = PMIXEV_NODE_ANY,
				     .len = 0x01020304};
	uint8_t out[PMIXEV_FRAME_HDR_LEN];

	pmixev_frame_encode_hdr(&h, out);
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(ref_hcrc(out), 0xf610e289u);
}

static void test_round_trip_all_types(void **state)
{
	uint8_t buf[PMIXEV_FRAME_HDR_LEN + 3];

	for (unsigned t = 1; t <= PMIXEV_MSG_TYPE_MAX; t++) {
		struct pmixev_frame_hdr in = {.type = (uint8_t)t,
					      .src = PMIXEV_NODE_SRUN,
					      .dst = t * 1000003u,
					      .len = MAX_LEN - t};
		struct pmixev_frame_hdr out;
		const char *why = "untouched";

		memset(&out, 0xa5, sizeof(out));
		pmixev_frame_encode_hdr(&in, buf);
		/* Bytes after the header (payload) do not matter. */
		memset(buf + PMIXEV_FRAME_HDR_LEN, 0xee, 3);
		assert_int_equal(pmixev_frame_decode_hdr(buf, sizeof(buf),
							 MAX_LEN, &out, &why),
				 1);
		assert_int_equal(out.type, t);
		assert_int_equal(out.flags, 0);
		assert_int_equal(out.src, PMIXEV_NODE_SRUN);
		assert_int_equal(out.dst, t * 1000003u);
		assert_int_equal(out.len, MAX_LEN - t);
		assert_string_equal(why, "untouched");
	}
}

static void test_incomplete(void **state)
{
	uint8_t buf[PMIXEV_FRAME_HDR_LEN];
	struct pmixev_frame_hdr h = {.type = 77};
	const char *why = NULL;

	encode(PMIXEV_MSG_ABORT, 0, 0, buf);
	for (size_t n = 0; n < PMIXEV_FRAME_HDR_LEN; n++) {
		assert_int_equal(
			pmixev_frame_decode_hdr(buf, n, MAX_LEN, &h, &why), 0);
		assert_int_equal(h.type, 77);
		assert_null(why);
	}
	/* Even garbage is "incomplete" until 24 bytes are there. */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(pmixev_frame_decode_hdr(buf, 23, MAX_LEN, &h, &why),
			 0);
}

static void test_bad_magic_version(void **state)
{
	uint8_t buf[PMIXEV_FRAME_HDR_LEN];

	encode(PMIXEV_MSG_ABORT, 0, 0, buf);
	buf[3] = 'W';
	reseal(buf);
	assert_rejected(buf, "bad magic");

	encode(PMIXEV_MSG_ABORT, 0, 0, buf);
	buf[4] = 2;
	reseal(buf);
	assert_rejected(buf, "unsupported version");
	buf[4] = 0;
	reseal(buf);
	assert_rejected(buf, "unsupported version");
}

/* Flipping any bit of bytes 5..23 (after magic and version) fails hcrc. */
static void test_checksum(void **state)
{
	uint8_t buf[PMIXEV_FRAME_HDR_LEN];

	for (int i = 5; i < PMIXEV_FRAME_HDR_LEN; i++) {
		for (int bit = 0; bit < 8; bit++) {
			encode(PMIXEV_MSG_DMDX_REQ, 0, 10, buf);
			buf[i] ^= (uint8_t)(1u << bit);
			assert_rejected(buf, "bad header checksum");
		}
	}
	encode(PMIXEV_MSG_DMDX_REQ, 0, 10, buf);
	buf[4] ^= 1;
	assert_rejected(buf, "unsupported version");
}

static void test_bad_type(void **state)
{
	static const uint8_t bad[] = {0, PMIXEV_MSG_TYPE_MAX + 1, 0x80, 0xff};
	uint8_t buf[PMIXEV_FRAME_HDR_LEN];

	for (size_t i = 0; i < sizeof(bad); i++) {
		encode(bad[i], 0, 0, buf);
		assert_rejected(buf, "unknown message type");
	}
}

static void test_bad_flags(void **state)
{
	static const uint16_t bad[] = {1, 0x0100, 0x8000, 0xffff};
	uint8_t buf[PMIXEV_FRAME_HDR_LEN];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		encode(PMIXEV_MSG_FENCE_DOWN, bad[i], 0, buf);
		assert_rejected(buf, "nonzero flags");
	}
}

static void test_oversize(void **state)
{
	uint8_t buf[PMIXEV_FRAME_HDR_LEN];
	struct pmixev_frame_hdr h;

	encode(PMIXEV_MSG_FENCE_UP, 0, MAX_LEN, buf);
	assert_int_equal(
		pmixev_frame_decode_hdr(buf, sizeof(buf), MAX_LEN, &h, NULL),
		1);
	assert_int_equal(h.len, MAX_LEN);
	encode(PMIXEV_MSG_FENCE_UP, 0, MAX_LEN + 1, buf);
	assert_rejected(buf, "payload too long");
	encode(PMIXEV_MSG_FENCE_UP, 0, UINT32_MAX, buf);
	assert_rejected(buf, "payload too long");
	/* A NULL `why` is allowed. */
	assert_int_equal(
		pmixev_frame_decode_hdr(buf, sizeof(buf), MAX_LEN, &h, NULL),
		-1);
	encode(PMIXEV_MSG_FENCE_UP, 0, 0, buf);
	assert_int_equal(pmixev_frame_decode_hdr(buf, sizeof(buf), 0, &h, NULL),
			 1);
	encode(PMIXEV_MSG_FENCE_UP, 0, 1, buf);
	assert_int_equal(pmixev_frame_decode_hdr(buf, sizeof(buf), 0, &h, NULL),
			 -1);
}

static void test_type_names(void **state)
{
	assert_string_equal(pmixev_msg_type_name(PMIXEV_MSG_RDV_HELLO),
			    "RDV_HELLO");
	assert_string_equal(pmixev_msg_type_name(PMIXEV_MSG_FENCE_UP),
			    "FENCE_UP");
	assert_string_equal(pmixev_msg_type_name(PMIXEV_MSG_PUBSUB_RESP),
			    "PUBSUB_RESP");
	for (unsigned t = 1; t <= PMIXEV_MSG_TYPE_MAX; t++)
		assert_string_not_equal(pmixev_msg_type_name(t), "?");
	assert_string_equal(pmixev_msg_type_name(0), "?");
	assert_string_equal(pmixev_msg_type_name(PMIXEV_MSG_TYPE_MAX + 1), "?");
	assert_string_equal(pmixev_msg_type_name(~0u), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_exact_bytes),
		cmocka_unit_test(test_round_trip_all_types),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_bad_magic_version),
		cmocka_unit_test(test_checksum),
		cmocka_unit_test(test_bad_type),
		cmocka_unit_test(test_bad_flags),
		cmocka_unit_test(test_oversize),
		cmocka_unit_test(test_type_names),
	};

	return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
