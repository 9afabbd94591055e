/*
 * pmixside/alloc_read.c - a PMIx_Allocation_request read (see
 * alloc_read.h). PMIx progress thread.
 */
#include "config.h"

#include "pmixside/alloc_read.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "pmixbase/values.h"

/* 5.x keys, by their strings where 4.x has no macro. */
#define KEY_EXCLUDE   "pmix.alloc.exclude"
#define KEY_SHARE     "pmix.alloc.share"
#define KEY_NOSHELL   "pmix.alloc.noshell"
#define KEY_CHILD_SEP "pmix.alloc.sep"

int alloc_read_time(const char *s, uint32_t *sec)
{
	/* From the right: seconds, minutes, hours, days, months (30 days). */
	static const uint64_t unit[] = {1, 60, 3600, 86400, 2592000};
	uint64_t total = 0, field[5];
	int n = 0;

	if (!s || !*s)
		return -1;
	for (const char *p = s;; p++) {
		char *end;
		unsigned long long v;

		if (*p < '0' || *p > '9' || n == 5)
			return -1;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || v > UINT32_MAX)
			return -1;
		field[n++] = v;
		p = end;
		if (!*p)
			break;
		if (*p != ':')
			return -1;
	}
	for (int i = 0; i < n; i++)
		total += field[n - 1 - i] * unit[i];
	if (total > UINT32_MAX)
		return -1;
	*sec = (uint32_t)total;
	return 0;
}

/* A string value of at most `len - 1` bytes into `buf`: 0, or -1. */
static int read_str(const pmix_value_t *v, char *buf, size_t len)
{
	if (v->type != PMIX_STRING || !v->data.string ||
	    strlen(v->data.string) >= len)
		return -1;
	snprintf(buf, len, "%s", v->data.string);
	return 0;
}

static int read_count(const pmix_value_t *v, uint32_t *out)
{
	uint64_t n;

	if (values_uint(v, &n) < 0 || n > 65536)
		return -1;
	*out = (uint32_t)n;
	return 0;
}

static int read_mem(const pmix_value_t *v, uint64_t *mb)
{
	double d;

	if (v->type == PMIX_FLOAT || v->type == PMIX_DOUBLE) {
		d = v->type == PMIX_FLOAT ? v->data.fval : v->data.dval;
		if (!(d >= 0) || d > 1e15)
			return -1;
		*mb = (uint64_t)(d + 0.999999);
		return 0;
	}
	return values_uint(v, mb);
}

static int read_time(const pmix_value_t *v, uint32_t *sec)
{
	uint64_t n;

	if (v->type == PMIX_STRING)
		return alloc_read_time(v->data.string, sec);
	if (values_uint(v, &n) < 0 || n > UINT32_MAX)
		return -1;
	*sec = (uint32_t)n;
	return 0;
}

static int read_flag(const pmix_info_t *in, uint8_t *flags, uint8_t flag)
{
	if (in->value.type != PMIX_BOOL)
		return -1;
	if (PMIX_INFO_TRUE(in))
		*flags |= flag;
	return 0;
}

/* One datum: 1 if read, 0 if not ours, -1 if bad. */
static int read_one(struct pmixev_pmixd_alloc *m, const pmix_info_t *in)
{
	const pmix_value_t *v = &in->value;
	uint64_t ms;

	if (PMIX_CHECK_KEY(in, PMIX_ALLOC_NUM_NODES))
		return read_count(v, &m->nnodes) ? -1 : 1;
	if (PMIX_CHECK_KEY(in, PMIX_ALLOC_NUM_CPUS))
		return read_count(v, &m->ncpus) ? -1 : 1;
	if (PMIX_CHECK_KEY(in, PMIX_ALLOC_MEM_SIZE))
		return read_mem(v, &m->mem_mb) ? -1 : 1;
	if (PMIX_CHECK_KEY(in, PMIX_ALLOC_TIME))
		return read_time(v, &m->seconds) ? -1 : 1;
	if (PMIX_CHECK_KEY(in, PMIX_ALLOC_QUEUE))
		return read_str(v, m->queue, sizeof(m->queue)) ? -1 : 1;
	if (PMIX_CHECK_KEY(in, PMIX_ALLOC_NODE_LIST))
		return read_str(v, m->nodes, sizeof(m->nodes)) ||
				       !pmixev_pmixd_hostlist_ok(m->nodes)
			       ? -1
			       : 1;
	if (PMIX_CHECK_KEY(in, KEY_EXCLUDE))
		return read_str(v, m->exclude, sizeof(m->exclude)) ||
				       !pmixev_pmixd_hostlist_ok(m->exclude)
			       ? -1
			       : 1;
	if (PMIX_CHECK_KEY(in, PMIX_ALLOC_ID))
		return values_job(v, &m->job) ? -1 : 1;
	if (PMIX_CHECK_KEY(in, PMIX_ALLOC_REQ_ID))
		return read_str(v, m->reqid, sizeof(m->reqid)) ? -1 : 1;
	if (PMIX_CHECK_KEY(in, KEY_SHARE))
		return read_flag(in, &m->flags, PMIXEV_PMIXD_ALLOC_SHARE) ? -1
									  : 1;
	if (PMIX_CHECK_KEY(in, KEY_NOSHELL))
		return read_flag(in, &m->flags, PMIXEV_PMIXD_ALLOC_NOSHELL) ? -1
									    : 1;
	if (PMIX_CHECK_KEY(in, KEY_CHILD_SEP))
		return read_flag(in, &m->flags, PMIXEV_PMIXD_ALLOC_CHILD_SEP)
			       ? -1
			       : 1;
	if (PMIX_CHECK_KEY(in, PMIX_TIMEOUT)) {
		if (values_uint(v, &ms) < 0)
			return -1;
		m->timeout_ms = ms > PMIXEV_PMIXD_SPAWN_MS_MAX / 1000
					? PMIXEV_PMIXD_SPAWN_MS_MAX
					: (uint32_t)ms * 1000;
		return 1;
	}
	return 0;
}

/* Keys the library or the client library adds by itself. */
static bool library_key(const pmix_info_t *in)
{
	return PMIX_CHECK_KEY(in, PMIX_USERID) ||
	       PMIX_CHECK_KEY(in, PMIX_GRPID);
}

pmix_status_t alloc_read(struct alloc_req *r, unsigned directive,
			 const pmix_info_t data[], size_t ndata)
{
	struct pmixev_pmixd_alloc *m = &r->m;

	if (directive < PMIXEV_PMIXD_ALLOC_NEW ||
	    directive > PMIXEV_PMIXD_ALLOC_CANCEL) {
		snprintf(r->why, sizeof(r->why),
			 "allocation directive %u is not one Slurm can serve",
			 directive);
		return PMIX_ERR_NOT_SUPPORTED;
	}
	m->directive = (enum pmixev_pmixd_alloc_dir)directive;
	for (size_t i = 0; i < ndata; i++) {
		const pmix_info_t *in = &data[i];
		int how = read_one(m, in);

		if (how < 0) {
			snprintf(r->why, sizeof(r->why),
				 "bad %.*s (its type or value)",
				 PMIX_MAX_KEYLEN, in->key);
			return PMIX_ERR_BAD_PARAM;
		}
		if (how || library_key(in))
			continue;
		if (!strncmp(in->key, "pmix.alloc.", 11) ||
		    PMIX_INFO_IS_REQUIRED(in)) {
			snprintf(r->why, sizeof(r->why),
				 "%.*s is not supported under Slurm",
				 PMIX_MAX_KEYLEN, in->key);
			return PMIX_ERR_NOT_SUPPORTED;
		}
	}
	if (m->directive == PMIXEV_PMIXD_ALLOC_CANCEL && !m->reqid[0]) {
		snprintf(r->why, sizeof(r->why),
			 "a cancel names its request by PMIX_ALLOC_REQ_ID");
		return PMIX_ERR_BAD_PARAM;
	}
	return PMIX_SUCCESS;
}
