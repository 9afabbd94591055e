/*
 * Unit tests for plugins/mpi_pmixev/overlay/addrs.c: which source a door
 * admits and which address srun's table may give a node.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <errno.h>
#include <netinet/in.h>

#include "overlay/addrs.h"

static struct sockaddr_in v4(const char *text)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(7)};

	inet_pton(AF_INET, text, &sin.sin_addr);
	return sin;
}

static struct sockaddr_in6 v6(const char *text)
{
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6};

	inet_pton(AF_INET6, text, &sin6.sin6_addr);
	return sin6;
}

static void node_addresses_only(void **state)
{
	struct addrs *a = addrs_create(3);
	struct sockaddr_in n1 = v4("10.213.9.2"), n3 = v4("10.213.9.4"),
			   ctl = v4("10.213.9.1");
	struct sockaddr_in6 n3v6 = v6("fd00::4"),
			    mapped = v6("::ffff:10.213.9.2");

	assert_non_null(a);
	assert_int_equal(addrs_add(a, 0, (struct sockaddr *)&n1), 0);
	assert_int_equal(addrs_add_text(a, 2, "10.213.9.4"), 0);
	assert_int_equal(addrs_add(a, 2, (struct sockaddr *)&n3v6), 0);
	assert_true(addrs_any_has(a, (struct sockaddr *)&n1));
	assert_true(addrs_any_has(a, (struct sockaddr *)&n3));
	assert_true(addrs_any_has(a, (struct sockaddr *)&n3v6));
	/* the same IPv4 address seen on an IPv6 socket */
	assert_true(addrs_any_has(a, (struct sockaddr *)&mapped));
	assert_false(addrs_any_has(a, (struct sockaddr *)&ctl));
	addrs_destroy(a);
}

static void table_entry_must_be_its_nodes(void **state)
{
	struct addrs *a = addrs_create(2);
	char buf[64];

	assert_int_equal(addrs_add_text(a, 0, "10.0.0.1"), 0);
	assert_int_equal(addrs_add_text(a, 1, "10.0.0.2"), 0);
	assert_int_equal(addrs_add_text(a, 1, "10.0.0.2"), 0); /* once */
	assert_true(addrs_node_has_text(a, 0, "10.0.0.1"));
	assert_true(addrs_node_has_text(a, 1, "::ffff:10.0.0.2"));
	/* another node's address, a foreign one, junk, a bad node id */
	assert_false(addrs_node_has_text(a, 0, "10.0.0.2"));
	assert_false(addrs_node_has_text(a, 1, "127.0.0.1"));
	assert_false(addrs_node_has_text(a, 1, "n2"));
	assert_false(addrs_node_has_text(a, 1, ""));
	assert_false(addrs_node_has_text(a, 2, "10.0.0.2"));
	assert_string_equal(addrs_node_text(a, 1, buf, sizeof(buf)),
			    "10.0.0.2");
	addrs_destroy(a);
}

static void bad_input(void **state)
{
	struct addrs *a = addrs_create(1);
	struct sockaddr sa = {.sa_family = AF_UNIX};
	char buf[8];

	errno = 0;
	assert_int_equal(addrs_add_text(a, 0, "not-an-address"), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(addrs_add_text(a, 1, "10.0.0.1"), -1);
	assert_int_equal(addrs_add(a, 0, &sa), -1);
	assert_false(addrs_any_has(a, &sa));
	assert_string_equal(addrs_node_text(a, 0, buf, sizeof(buf)), "none");
	assert_int_equal(addrs_add_text(a, 0, "fe80::1"), 0);
	assert_int_equal(addrs_add_text(a, 0, "10.200.300.1"), -1);
	/* truncated, never overflowing */
	addrs_node_text(a, 0, buf, 4);
	addrs_destroy(a);
	addrs_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(node_addresses_only),
		cmocka_unit_test(table_entry_must_be_its_nodes),
		cmocka_unit_test(bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
