/*
 * pmix/module.c - the PMIx server module: the table of upcalls libpmix
 * calls on its progress thread, each pointing at its feature's entry
 * (see module.h); nothing else.
 */
#include "config.h"

#include "pmix/module.h"

#include "pmix/clients.h"
#include "pmix/dmodex.h"
#include "pmix/fence.h"
#include "pmix/notify.h"
#include "pmix/pubsub.h"
#include "pmix/query.h"
#include "pmix/tools.h"

pmix_server_module_t module_upcalls = {
	.client_connected = clients_upcall_connected,
	.client_finalized = clients_upcall_finalized,
	.abort = clients_upcall_abort,
	.fence_nb = fence_upcall_fence_nb,
	.direct_modex = dmodex_upcall_direct_modex,
	.publish = pubsub_upcall_publish,
	.lookup = pubsub_upcall_lookup,
	.unpublish = pubsub_upcall_unpublish,
	.connect = fence_upcall_connect,
	.disconnect = fence_upcall_disconnect,
	.register_events = notify_upcall_register,
	.deregister_events = notify_upcall_deregister,
	.notify_event = notify_upcall_event,
	.query = query_upcall,
	.tool_connected = tools_upcall_connected,
};
