/*
 * keys_check.h - the checks pmix_keys.c makes, shared with keys_more.c
 * (the keys beyond sizes and ranks: maps, local procs, memory, process
 * sets).
 */
#ifndef PMIXEV_KEYS_CHECK_H_
#define PMIXEV_KEYS_CHECK_H_

#include <stdbool.h>

#include <pmix.h>

#define PROG "pmix_keys"

extern pmix_proc_t me, wild;

/* A failed check: "pmix_keys: rank R: NAME: got GOT, expected ...". */
void bad(const char *name, const char *got, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A passed check (printed with -v). */
void good(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * PMIx_Get WHO's KEY with `ninfo` qualifiers (NAME is how messages call
 * it) and check its type; NULL after reporting a failure (or an allowed
 * absence).
 */
pmix_value_t *fetch_q(const pmix_proc_t *who, const char *name, const char *key,
		      const pmix_info_t *info, size_t ninfo,
		      pmix_data_type_t type, const char *expected);

/* What the task knows from Slurm, for the checks of keys_more.c. */
struct keys_env {
	long ntasks, nnodes, nodeid, ntasks_here, appnum;
	const char *jobid, *nodename;
	const bool *local; /* [ntasks]: ranks on this node, or NULL */
};

/* Check the offset, maps, local procs, memory and process-set keys. */
void check_more_keys(const struct keys_env *e);

#endif /* PMIXEV_KEYS_CHECK_H_ */
