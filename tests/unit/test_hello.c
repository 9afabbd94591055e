/*
 * Unit tests for common/pmixev_hello.c: hellos as OpenPMIx 4.2, 5.0 and
 * 7.0 clients and tools send them, and the broken ones that crash or
 * mislead the library.
 */
#include "config.h"

#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_hello.h"

#define UID 1000
#define GID 100

struct msg {
	uint8_t b[512];
	size_t n;
};

static void put(struct msg *m, const void *p, size_t n)
{
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void str(struct msg *m, const char *s)
{
	put(m, s, strlen(s) + 1);
}

static void u32(struct msg *m, uint32_t v)
{
	v = htonl(v);
	put(m, &v, 4);
}

static void u8(struct msg *m, uint8_t v)
{
	put(m, &v, 1);
}

/* A "native" credential: uid and gid in host order. */
static void cred(struct msg *m, uint32_t uid, uint32_t gid)
{
	u32(m, 8);
	put(m, &uid, 4);
	put(m, &gid, 4);
}

/* What an OpenPMIx client of `ver` sends for rank 3 of "slurm.7.0". */
static struct msg client(const char *ver, const char *bfrops, const char *gds)
{
	struct msg m = {.n = 0};

	str(&m, "native");
	cred(&m, UID, GID);
	u8(&m, PMIXEV_HELLO_CLIENT);
	str(&m, "slurm.7.0");
	u32(&m, 3);
	str(&m, ver);
	str(&m, bfrops);
	u8(&m, 2);
	str(&m, gds);
	return m;
}

/* A tool that needs an id (type 3), claiming uid:gid. */
static struct msg tool(uint32_t uid, uint32_t gid)
{
	struct msg m = {.n = 0};

	str(&m, "native");
	cred(&m, uid, gid);
	u8(&m, 3);
	u32(&m, uid);
	u32(&m, gid);
	str(&m, "5.0.7");
	str(&m, "v41");
	u8(&m, 2);
	str(&m, "hash");
	put(&m, "\x01\x02\x03", 3); /* its attributes */
	return m;
}

static int parse(const struct msg *m, struct pmixev_hello *h)
{
	const char *why = NULL;
	int rc = pmixev_hello_parse(m->b, m->n, h, &why);

	assert_true(rc == 0 || why != NULL);
	return rc;
}

static int check(const struct msg *m, unsigned major, uid_t peer)
{
	struct pmixev_hello h;
	const char *why = NULL;

	if (parse(m, &h) < 0)
		return -1;
	return pmixev_hello_check(&h, major, UID, GID, peer, &why);
}

static void test_clients(void **state)
{
	struct msg m = client("4.2.2", "v41", "hash");
	struct pmixev_hello h;

	assert_int_equal(parse(&m, &h), 0);
	assert_int_equal(h.type, PMIXEV_HELLO_CLIENT);
	assert_true(h.has_proc);
	assert_string_equal(h.nspace, "slurm.7.0");
	assert_int_equal(h.rank, 3);
	assert_int_equal(h.cred_uid, UID);
	assert_int_equal(h.major, 4);
	assert_int_equal(check(&m, 4, UID), 0);
	assert_int_equal(check(&m, 4, 0), 0); /* root may connect */
	m = client("5.0.7", "v41", "ds21,hash");
	assert_int_equal(check(&m, 5, UID), 0);
	m = client("7.0.0rc1", "v61", "shmem3,hash");
	assert_int_equal(check(&m, 7, UID), 0);
	/* a 7.0 client's buffers: not on a 5.0 server */
	assert_int_equal(check(&m, 5, UID), -1);
}

static void test_other_user(void **state)
{
	struct msg m = client("5.0.7", "v41", "hash");

	assert_int_equal(check(&m, 5, UID + 1), -1);
}

/* What made the library free a rank's record twice. */
static void test_library_failures(void **state)
{
	struct msg m = client("5.0.7", "v41", "hash");
	const struct {
		const char *from, *to;
	} swaps[] = {
		{"native", "munge"}, {"v41", "v99"},	 {"v41", "v12"},
		{"hash", "ds12"},    {"5.0.7", "5"},	 {"5.0.7", "5.0"},
		{"5.0.7", "x.0.7"},  {"5.0.7", "2.0.0"}, {"5.0.7", "5.300.1"},
	};
	struct pmixev_hello h;

	for (size_t i = 0; i < sizeof(swaps) / sizeof(swaps[0]); i++) {
		struct msg b = {.n = 0};
		const uint8_t *at = memmem(m.b, m.n, swaps[i].from,
					   strlen(swaps[i].from) + 1);

		assert_non_null(at);
		put(&b, m.b, (size_t)(at - m.b));
		str(&b, swaps[i].to);
		put(&b, at + strlen(swaps[i].from) + 1,
		    m.n - (size_t)(at - m.b) - strlen(swaps[i].from) - 1);
		assert_int_equal(check(&b, 5, UID), -1);
	}
	/* a credential of other ids than the job's */
	m.n = 0;
	str(&m, "native");
	cred(&m, UID, GID + 1);
	u8(&m, 0);
	str(&m, "slurm.7.0");
	u32(&m, 0);
	str(&m, "5.0.7");
	str(&m, "v41");
	u8(&m, 2);
	str(&m, "hash");
	assert_int_equal(parse(&m, &h), 0);
	assert_int_equal(check(&m, 5, UID), -1);
}

static void test_truncated(void **state)
{
	struct msg m = client("5.0.7", "v41", "hash");
	struct pmixev_hello h;

	/* every prefix is refused, never read past */
	for (size_t n = 0; n < m.n; n++) {
		struct msg p = m;

		p.n = n;
		assert_int_equal(parse(&p, &h), -1);
	}
	assert_int_equal(parse(&m, &h), 0);
}

static void test_credential_length(void **state)
{
	struct msg m = {.n = 0};
	struct pmixev_hello h;

	/* the recipe that crashed OpenPMIx 5.0.7: no credential */
	str(&m, "native");
	u32(&m, 0);
	u8(&m, 0);
	str(&m, "slurm.7.0");
	u32(&m, 0);
	assert_int_equal(parse(&m, &h), -1);
	/* a length past the end (the library copies it unchecked) */
	m.n = 0;
	str(&m, "native");
	u32(&m, 0x7fffffff);
	put(&m, "12345678", 8);
	assert_int_equal(parse(&m, &h), -1);
}

static void test_tools(void **state)
{
	struct msg m = tool(UID, GID);
	struct pmixev_hello h;

	assert_int_equal(parse(&m, &h), 0);
	assert_true(h.has_ids);
	assert_false(h.has_proc);
	assert_int_equal(check(&m, 5, UID), 0);
	/* another user claiming the owner's uid */
	assert_int_equal(check(&m, 5, UID + 1), -1);
	/* the owner claiming another uid */
	m = tool(UID + 1, GID);
	assert_int_equal(check(&m, 5, UID), -1);
	/* root's tool */
	m = tool(0, 0);
	assert_int_equal(check(&m, 5, 0), 0);
	/* schedulers and unknown types */
	m.b[7 + 4 + 8] = 10;
	assert_int_equal(parse(&m, &h), -1);
}

static void test_body_len(void **state)
{
	uint8_t hdr[PMIXEV_HELLO_HDR] = {0};
	uint32_t n = 60;

	memcpy(hdr + 8, &n, 4);
	assert_int_equal(pmixev_hello_body_len(hdr), 60);
	n = PMIXEV_HELLO_MAX + 1;
	memcpy(hdr + 8, &n, 4);
	assert_int_equal(pmixev_hello_body_len(hdr), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clients),
		cmocka_unit_test(test_other_user),
		cmocka_unit_test(test_library_failures),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_credential_length),
		cmocka_unit_test(test_tools),
		cmocka_unit_test(test_body_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
