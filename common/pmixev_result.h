/*
 * pmixev_result.h - pmixev's own result codes: what its engines (tree
 * collectives, direct modex, the publish directory) report and what the
 * overlay messages carry (one byte on the wire). They are not PMIx
 * statuses: the mpi plugin turns them into PMIx statuses, and PMIx's
 * statuses into them, in one place only
 * (plugins/mpi_pmixev/pmixbase/status.c). Values are never reused.
 * Pure definitions; any thread.
 */
#ifndef PMIXEV_RESULT_H_
#define PMIXEV_RESULT_H_

#include <stdbool.h>

enum pmixev_result {
	PMIXEV_OK = 0,
	PMIXEV_ERR_FAILED = 1,	    /* any other failure */
	PMIXEV_ERR_TIMEOUT = 2,	    /* no answer before the deadline */
	PMIXEV_ERR_UNREACH = 3,	    /* a node it needs is lost or unreachable */
	PMIXEV_ERR_NOMEM = 4,	    /* out of memory */
	PMIXEV_ERR_BAD_REQUEST = 5, /* malformed or impossible request */
	PMIXEV_ERR_NOT_FOUND = 6,   /* no such key, rank or data */
	PMIXEV_ERR_EXISTS = 7,	    /* the key is already published */
	PMIXEV_ERR_OVER_BUDGET = 8, /* a configured bound would be passed */
	PMIXEV_ERR_NOT_SUPPORTED = 9, /* e.g. processes of another namespace */
	PMIXEV_ERR_BAD_DATA = 10,     /* data that does not unpack */
	PMIXEV_ERR_NOT_READY = 11,    /* the PMIx server is not initialised */
	PMIXEV_ERR_UNAVAILABLE = 12,  /* the PMIx server is stopping */
	PMIXEV_ERR_NO_PERMISSIONS = 13, /* refused to the job's owner (Slurm) */
	PMIXEV_ERR_GROUP_ABORT = 14,	/* a group's member ended: no group */
	PMIXEV_ERR_PARTIAL = 15,	/* done, but not with everyone */
	PMIXEV_RESULT_COUNT
};

/* Is `v` (as read from the wire) a result code? */
static inline bool pmixev_result_valid(unsigned v)
{
	return v < PMIXEV_RESULT_COUNT;
}

#endif /* PMIXEV_RESULT_H_ */
