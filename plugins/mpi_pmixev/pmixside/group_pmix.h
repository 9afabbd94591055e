/*
 * pmixside/group_pmix.h - PMIx Groups (PMIx_Group_construct/destruct) on
 * the pmix side. The library calls the host once a node's members have
 * all called; group_upcall (PMIx progress thread) checks the group id and
 * the members, reads the directives (pmixbase/group_dirs.h) and sends
 * them with the members' packed endpoint data to root as a GROUP frame.
 * Root runs the collective over the nodes hosting members
 * (wireup/group.c) and answers GROUP_DONE; the pmix side's agent then
 * hands the library the membership, the context id root issued (when
 * asked) and every node's endpoint data.
 */
#ifndef PMIXEV_PMIXSIDE_GROUP_PMIX_H_
#define PMIXEV_PMIXSIDE_GROUP_PMIX_H_

#include <pmix_server.h>

#include "pmixside/side.h"

/* Take root's GROUP_DONE answers on the pmix side's channel. */
void group_pmix_listen(struct pmixside *p);

/*
 * Local rank `source` notified PMIX_GROUP_CONSTRUCT_ABORT (any range but
 * PROC_LOCAL) with `info`: send root GROUP_ABORT for the PMIX_GROUP_ID it
 * names, after any construct it already handed up (the frames keep their
 * order), so that root fails those of its constructs that are in flight
 * (doc/groups.md §4). PMIx progress thread.
 */
void group_pmix_abort(struct pmixside *p, const pmix_proc_t *source,
		      pmix_data_range_t range, const pmix_info_t info[],
		      size_t ninfo);

/* The `group` upcall (pmix_server_grp_fn_t). */
pmix_status_t group_upcall(pmix_group_operation_t op, char grp[],
			   const pmix_proc_t procs[], size_t nprocs,
			   const pmix_info_t directives[], size_t ndirs,
			   pmix_info_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIXSIDE_GROUP_PMIX_H_ */
