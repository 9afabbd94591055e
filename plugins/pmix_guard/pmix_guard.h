/*
 * pmix_guard.h - pmixev_pmix_guard.so: PMIx_Query_info_nb as the PMIx
 * server library inside slurmstepd calls it for a client's or tool's
 * query, kept safe.
 *
 * OpenPMIx 4.2 (4.2.0 to 4.2.9) hands a query it received to
 * PMIx_Query_info_nb, through its procedure linkage table, and answers
 * PMIX_QUERY_ATTRIBUTE_SUPPORT itself - with its own caddy as the callback
 * data instead of the caller's (pmix_attributes.c, `release:`): the
 * server's reply callback then takes that caddy for another kind of
 * object. A tool's `pattrs --host PMIx_Query_info` made slurmstepd (root)
 * crash in libpmix; a client's query was never answered. It also reads
 * keys[0] of every query without looking whether there is one.
 *
 * This small library defines PMIx_Query_info_nb and nothing else of
 * PMIx's. The mpi plugin loads it, hands it the library's function
 * (pmixev_guard_arm), and puts it into the global scope before it starts
 * the PMIx server (pmixbase/guard.h), so the library's own calls find it
 * before the library's definition (libpmix loads its components
 * RTLD_GLOBAL, which puts libpmix itself into the global scope, ahead of
 * the plugin: the plugin cannot define it). It calls the library's in
 * turn: a query without keys is PMIX_ERR_BAD_PARAM; an attribute-support
 * query gets a callback of this library's, which hands the answer to the
 * caller's callback with the caller's data; other queries pass unchanged.
 * OpenPMIx 5 and later answer a client's query without this function; it
 * then sees none. Any thread.
 */
#ifndef PMIXEV_PMIX_GUARD_H_
#define PMIXEV_PMIX_GUARD_H_

#include <pmix_common.h>

#define PMIXEV_PMIX_GUARD_FILE	   "pmixev_pmix_guard.so"
#define PMIXEV_GUARD_ARM_SYMBOL	   "pmixev_guard_arm"
#define PMIXEV_GUARD_COUNTS_SYMBOL "pmixev_guard_counts"

typedef pmix_status_t (*pmixev_query_nb_fn)(pmix_query_t queries[],
					    size_t nqueries,
					    pmix_info_cbfunc_t cbfunc,
					    void *cbdata);

/* The PMIx library's PMIx_Query_info_nb, which the guard calls: before it
 * is given, every query is PMIX_ERR_NOT_SUPPORTED. */
typedef void (*pmixev_guard_arm_fn)(pmixev_query_nb_fn library_fn);

void pmixev_guard_arm(pmixev_query_nb_fn library_fn);

/* How many attribute-support queries the guard carried, and how many of
 * their answers came with the library's data instead of the caller's. */
typedef void (*pmixev_guard_counts_fn)(unsigned long *carried,
				       unsigned long *mended);

void pmixev_guard_counts(unsigned long *carried, unsigned long *mended);

#endif /* PMIXEV_PMIX_GUARD_H_ */
