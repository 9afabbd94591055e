/*
 * pmixside/module.h - pmixev's PMIx server module: the table of functions
 * libpmix calls on its progress thread, each one in its feature's file
 * (server/clients.c, fence.c, dmodex.c, pubsub.c, notify.c, query.c,
 * tools.c). Each only copies its arguments and posts them to the agent
 * thread, which does the work and answers through PMIx's callback; none
 * blocks. They find the step with step_served() (base/step.h).
 */
#ifndef PMIXEV_PMIX_MODULE_H_
#define PMIXEV_PMIX_MODULE_H_

#include <pmix_server.h>

extern pmix_server_module_t module_upcalls;

/*
 * Tell the PMIx library (after PMIx_server_init) which functions pmixev
 * serves with which attributes, so PMIX_QUERY_ATTRIBUTE_SUPPORT with
 * PMIX_HOST_FUNCTIONS / PMIX_HOST_ATTRIBUTES answers truthfully. A failure
 * is logged; the step goes on.
 */
void module_register_attributes(void);

#endif /* PMIXEV_PMIX_MODULE_H_ */
