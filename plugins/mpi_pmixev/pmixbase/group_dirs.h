/*
 * pmixbase/group_dirs.h - what the library's infos ask of a group
 * construct or destruct (the `group` upcall): context id, failure
 * notification, optional members, a leader, node-local only, the timeout,
 * the members' endpoint data and whether a local member was already lost.
 *
 * OpenPMIx 5.0 hands the host every local caller's directives one after
 * another (duplicates included), 4.2 only the first caller's: a flag is
 * set when any copy sets it, and the shortest timeout wins. Values of the
 * wrong type are refused, as is a directive marked required that pmixev
 * does not serve. Pure code on the PMIx progress thread.
 */
#ifndef PMIXEV_PMIX_GROUP_DIRS_H_
#define PMIXEV_PMIX_GROUP_DIRS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

/* The longest PMIX_TIMEOUT a group may ask (longer ones are cut). */
#define GROUP_DIRS_TIMEOUT_MAX_SEC 86400u

struct group_dirs {
	bool assign_ctxid; /* PMIX_GROUP_ASSIGN_CONTEXT_ID */
	bool notify_term;  /* PMIX_GROUP_NOTIFY_TERMINATION */
	bool optional;	   /* PMIX_GROUP_OPTIONAL */
	bool leader;	   /* PMIX_GROUP_LEADER: some local caller leads */
	bool local_only;   /* PMIX_GROUP_LOCAL_ONLY */
	bool lost_local;   /* PMIX_LOCAL_COLLECTIVE_STATUS: partial success */
	unsigned timeout_sec; /* the shortest positive PMIX_TIMEOUT, or 0 */
	/* PMIX_GROUP_ENDPT_DATA: the library's packed bytes (borrowed from
	 * the infos), or NULL, 0. */
	const uint8_t *endpt;
	size_t nendpt;
};

/*
 * Read `info` into `d`. PMIX_SUCCESS; PMIX_ERR_BAD_PARAM (a flag not a
 * bool, a timeout not a number, endpoint data not a byte object) or
 * PMIX_ERR_NOT_SUPPORTED (a required directive pmixev does not serve, e.g.
 * PMIX_GROUP_ADD_MEMBERS), with the key in *why.
 */
pmix_status_t group_dirs_read(const pmix_info_t info[], size_t ninfo,
			      struct group_dirs *d, const char **why);

#endif /* PMIXEV_PMIX_GROUP_DIRS_H_ */
