/*
 * pmixside/alloc_read.h - a PMIx_Allocation_request read into the ALLOC
 * frame root carries out (pmixev_pmixd_spawn.h): the directive, then the
 * data. Read: PMIX_ALLOC_NUM_NODES, _NUM_CPUS (any unsigned or positive
 * integer type), _MEM_SIZE (MiB: float, double or integer), _TIME (seconds
 * as an integer, OpenPMIx 4.x's uint32_t, or 5.x's
 * "[[[[months:]days:]hours:]minutes:]seconds" string), _QUEUE, _NODE_LIST,
 * _EXCLUDE (5.x), _ALLOC_ID (the Slurm job id), _REQ_ID, 5.x's _SHARE,
 * _NOSHELL, _CHILD_SEP, and PMIX_TIMEOUT. Refused with the key named: any
 * other PMIX_ALLOC_* key (fabric, CPU lists, images, lending, ...), any
 * other required key, a bad value. PMIx progress thread; no blocking.
 */
#ifndef PMIXEV_PMIXSIDE_ALLOC_READ_H_
#define PMIXEV_PMIXSIDE_ALLOC_READ_H_

#include <stddef.h>

#include <pmix_common.h>

#include "pmixev_pmixd_spawn.h"

/* A request being read. */
struct alloc_req {
	struct pmixev_pmixd_alloc m;   /* its id and rank: the caller's */
	char why[PMIXEV_MSG_TEXT_MAX]; /* why it is refused */
};

/*
 * Read `directive` and `data` into r->m. PMIX_SUCCESS, or why the request
 * is refused (PMIX_ERR_BAD_PARAM, PMIX_ERR_NOT_SUPPORTED), with the reason
 * in r->why.
 */
pmix_status_t alloc_read(struct alloc_req *r, unsigned directive,
			 const pmix_info_t data[], size_t ndata);

/* 5.x's PMIX_ALLOC_TIME text into seconds: 0, or -1 if malformed. */
int alloc_read_time(const char *s, uint32_t *sec);

#endif /* PMIXEV_PMIXSIDE_ALLOC_READ_H_ */
