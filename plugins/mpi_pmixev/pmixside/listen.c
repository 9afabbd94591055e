/*
 * pmixside/listen.c - the pmix side's frame handlers (see listen.h).
 */
#include "config.h"

#include "pmixside/listen.h"

#include "pmixside/alloc_pmix.h"
#include "pmixside/applog_pmix.h"
#include "pmixside/clients_pmix.h"
#include "pmixside/dmodex_pmix.h"
#include "pmixside/group_pmix.h"
#include "pmixside/jobctl_pmix.h"
#include "pmixside/nspace_pmix.h"
#include "pmixside/pubsub_pmix.h"
#include "pmixside/query_pmix.h"
#include "pmixside/spawn_pmix.h"

void pmixside_listen_all(struct pmixside *p)
{
	dmodex_pmix_serve(p);
	pubsub_pmix_listen(p);
	clients_pmix_listen(p);
	applog_pmix_listen(p);
	jobctl_pmix_listen(p);
	alloc_pmix_listen(p);
	spawn_pmix_listen(p);
	nspace_pmix_listen(p);
	query_pmix_listen(p);
	group_pmix_listen(p);
}
