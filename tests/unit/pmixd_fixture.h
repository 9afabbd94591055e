/*
 * pmixd_fixture.h - the step the pmixd message tests check against: 2
 * nodes, 8 tasks in blocks ("0-3;4-7"), this node 0. Header-only (static):
 * each test is a single translation unit.
 */
#ifndef PMIXEV_PMIXD_FIXTURE_H_
#define PMIXEV_PMIXD_FIXTURE_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_pmixd_msg.h"
#include "pmixev_taskmap.h"

static struct pmixev_taskmap fx_map;
static struct pmixev_pmixd_bounds fx = {
	.map = &fx_map,
	.job = 7,
	.step = 0,
	.nodeid = 0,
	.nspace = "slurm.pmixev.7.0",
	.srv_nspace = "slurm.pmixev.7.0.srv",
	.event_max = 64,
	.publish_max = 16,
};

static int fx_setup(void **state)
{
	char err[128];

	(void)state;
	return pmixev_taskmap_parse(&fx_map, "0-3;4-7", 2, 8, err, sizeof(err));
}

static int fx_teardown(void **state)
{
	(void)state;
	pmixev_taskmap_free(&fx_map);
	return 0;
}

/* A reader over `w`'s bytes. */
static inline void fx_reader(struct pmixev_buf *r, const struct pmixev_buf *w)
{
	pmixev_buf_reader(r, w->data, w->len);
}

/* Each unpacker as proto_strict.h wants it (bounds: the fixture's). */
#define UNPACKER(name, type, call)                                             \
	static int name(const uint8_t *data, size_t len)                       \
	{                                                                      \
		struct pmixev_buf r;                                           \
		type m;                                                        \
		int rc;                                                        \
		memset(&m, 0, sizeof(m));                                      \
		pmixev_buf_reader(&r, data, len);                              \
		rc = call;                                                     \
		return rc;                                                     \
	}

#endif /* PMIXEV_PMIXD_FIXTURE_H_ */
