/*
 * pmixbase/values.h - the values of a client's directives that several
 * upcalls read alike: a count or a time as any integer type the client
 * chose, and a Slurm job id given as PMIX_ALLOC_ID's string. Pure code on
 * the PMIx progress thread (any thread would do).
 */
#ifndef PMIXEV_PMIXBASE_VALUES_H_
#define PMIXEV_PMIXBASE_VALUES_H_

#include <stdint.h>

#include <pmix_common.h>

/* A non-negative integer of any integer type into `*out`: 0, or -1. */
int values_uint(const pmix_value_t *v, uint64_t *out);

/*
 * A Slurm job id as PMIX_ALLOC_ID carries it: a string, decimal, no sign
 * or leading zero, below Slurm's special ids. 0, or -1.
 */
int values_job(const pmix_value_t *v, uint32_t *job);

#endif /* PMIXEV_PMIXBASE_VALUES_H_ */
