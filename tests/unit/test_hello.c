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

#include "../clients/hello_msg.h"

#define UID 1000
#define GID 100

/* What an OpenPMIx client of `ver` sends for rank 3 of "slurm.7.0". */
static struct hello_msg client(const char *ver, const char *bfrops,
			       const char *gds)
{
	struct hello_msg m = {.n = 0};

	hello_str(&m, "native");
	hello_cred(&m, UID, GID);
	hello_u8(&m, PMIXEV_HELLO_CLIENT);
	hello_str(&m, "slurm.7.0");
	hello_u32(&m, 3);
	hello_str(&m, ver);
	hello_str(&m, bfrops);
	hello_u8(&m, 2);
	hello_str(&m, gds);
	return m;
}

/* A tool that needs an id (type 3), claiming uid:gid. */
static struct hello_msg tool(uint32_t uid, uint32_t gid)
{
	struct hello_msg m = {.n = 0};

	hello_str(&m, "native");
	hello_cred(&m, uid, gid);
	hello_u8(&m, 3);
	hello_u32(&m, uid);
	hello_u32(&m, gid);
	hello_str(&m, "5.0.7");
	hello_str(&m, "v41");
	hello_u8(&m, 2);
	hello_str(&m, "hash");
	hello_put(&m, "\x01\x02\x03", 3); /* its attributes */
	return m;
}

static int parse(const struct hello_msg *m, struct pmixev_hello *h)
{
	const char *why = NULL;
	int rc = pmixev_hello_parse(m->b, m->n, h, &why);

	assert_true(rc == 0 || why != NULL);
	return rc;
}

/* Against a server of `major` with the data stores `stores`. */
static int check_stores(const struct hello_msg *m, unsigned major,
			const char *stores, uid_t peer)
{
	struct pmixev_hello h;
	const char *why = NULL;

	if (parse(m, &h) < 0)
		return -1;
	return pmixev_hello_check(&h, major, stores, UID, GID, peer, &why);
}

/* ... that runs only "hash". */
static int check(const struct hello_msg *m, unsigned major, uid_t peer)
{
	return check_stores(m, major, "hash", peer);
}

static void test_clients(void **state)
{
	struct hello_msg m = client("4.2.2", "v41", "hash");
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

/* A client names the one data store it uses: the server must run it. */
static void test_stores(void **state)
{
	struct hello_msg m = client("4.2.2", "v41", "ds21");
	struct pmixev_hello h;
	char longer[80];

	assert_int_equal(check(&m, 4, UID), -1);
	assert_int_equal(check_stores(&m, 4, "ds21,hash", UID), 0);
	m = client("5.0.7", "v41", "shmem2");
	assert_int_equal(check_stores(&m, 5, "shmem2,hash", UID), 0);
	assert_int_equal(check_stores(&m, 5, "ds21,hash", UID), -1);
	m = client("5.0.7", "v41", "hash");
	assert_int_equal(check_stores(&m, 5, "shmem2,hash", UID), 0);
	/* elements, not prefixes or empty items */
	m = client("4.2.2", "v41", "ds2");
	assert_int_equal(check_stores(&m, 4, "ds21,hash", UID), -1);
	m = client("4.2.2", "v41", ",");
	assert_int_equal(check_stores(&m, 4, "ds21,hash", UID), -1);
	m = client("4.2.2", "v41", "ds12,hash");
	assert_int_equal(check_stores(&m, 4, "ds21,hash", UID), 0);
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	m = client("4.2.2", "v41", longer);
	assert_int_equal(parse(&m, &h), -1);
}

static void test_other_user(void **state)
{
	struct hello_msg m = client("5.0.7", "v41", "hash");

	assert_int_equal(check(&m, 5, UID + 1), -1);
}

/* What made the library free a rank's record twice. */
static void test_library_failures(void **state)
{
	struct hello_msg m = client("5.0.7", "v41", "hash");
	const struct {
		const char *from, *to;
	} swaps[] = {
		{"native", "munge"}, {"v41", "v99"},	 {"v41", "v12"},
		{"hash", "ds12"},    {"5.0.7", "5"},	 {"5.0.7", "5.0"},
		{"5.0.7", "x.0.7"},  {"5.0.7", "2.0.0"}, {"5.0.7", "5.300.1"},
	};
	struct pmixev_hello h;

	for (size_t i = 0; i < sizeof(swaps) / sizeof(swaps[0]); i++) {
		struct hello_msg b = {.n = 0};
		const uint8_t *at = memmem(m.b, m.n, swaps[i].from,
					   strlen(swaps[i].from) + 1);

		assert_non_null(at);
		hello_put(&b, m.b, (size_t)(at - m.b));
		hello_str(&b, swaps[i].to);
		hello_put(&b, at + strlen(swaps[i].from) + 1,
			  m.n - (size_t)(at - m.b) - strlen(swaps[i].from) - 1);
		assert_int_equal(check(&b, 5, UID), -1);
	}
	/* a credential of other ids than the job's */
	m.n = 0;
	hello_str(&m, "native");
	hello_cred(&m, UID, GID + 1);
	hello_u8(&m, 0);
	hello_str(&m, "slurm.7.0");
	hello_u32(&m, 0);
	hello_str(&m, "5.0.7");
	hello_str(&m, "v41");
	hello_u8(&m, 2);
	hello_str(&m, "hash");
	assert_int_equal(parse(&m, &h), 0);
	assert_int_equal(check(&m, 5, UID), -1);
}

static void test_truncated(void **state)
{
	struct hello_msg m = client("5.0.7", "v41", "hash");
	struct pmixev_hello h;

	/* every prefix is refused, never read past */
	for (size_t n = 0; n < m.n; n++) {
		struct hello_msg p = m;

		p.n = n;
		assert_int_equal(parse(&p, &h), -1);
	}
	assert_int_equal(parse(&m, &h), 0);
}

static void test_credential_length(void **state)
{
	struct hello_msg m = {.n = 0};
	struct pmixev_hello h;

	/* the recipe that crashed OpenPMIx 5.0.7: no credential */
	hello_str(&m, "native");
	hello_u32(&m, 0);
	hello_u8(&m, 0);
	hello_str(&m, "slurm.7.0");
	hello_u32(&m, 0);
	assert_int_equal(parse(&m, &h), -1);
	/* a length past the end (the library copies it unchecked) */
	m.n = 0;
	hello_str(&m, "native");
	hello_u32(&m, 0x7fffffff);
	hello_put(&m, "12345678", 8);
	assert_int_equal(parse(&m, &h), -1);
}

static void test_tools(void **state)
{
	struct hello_msg m = tool(UID, GID);
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
		cmocka_unit_test(test_stores),
		cmocka_unit_test(test_other_user),
		cmocka_unit_test(test_library_failures),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_credential_length),
		cmocka_unit_test(test_tools),
		cmocka_unit_test(test_body_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
