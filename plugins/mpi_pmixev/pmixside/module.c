/*
 * pmixside/module.c - the PMIx server module: the table of upcalls libpmix
 * calls on its progress thread, each pointing at its feature's entry
 * (see module.h); nothing else.
 */
#include "config.h"

#include "pmixside/module.h"

#include <pmix.h>

#include "pmixside/alloc_pmix.h"
#include "pmixside/clients_pmix.h"
#include "pmixside/applog_pmix.h"
#include "pmixside/dmodex_pmix.h"
#include "pmixside/fence_pmix.h"
#include "pmixside/group_pmix.h"
#include "pmixside/jobctl_pmix.h"
#include "pmixside/monitor_pmix.h"
#include "pmixside/notify_pmix.h"
#include "pmixside/pubsub_pmix.h"
#include "pmixside/spawn_pmix.h"
#include "pmixside/tools_pmix.h"
#include "pmixside/query_pmix.h"
#include "pmixev_log.h"

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
	.job_control = jobctl_upcall,
	.log = applog_upcall,
	.monitor = monitor_upcall,
	.tool_connected = tools_upcall_connected,
	.group = group_upcall,
	.allocate = alloc_upcall,
	.spawn = spawn_upcall,
};

/* Per function, the PMIx attributes pmixev acts on (names from the
 * library's dictionary: an unknown one would hide the whole function). */
static const struct {
	const char *fn;
	const char *const *attrs;
} served[] = {
	{"PMIx_Fence",
	 (const char *const[]){"PMIX_COLLECT_DATA", "PMIX_TIMEOUT", NULL}},
	{"PMIx_Get", (const char *const[]){"PMIX_TIMEOUT", NULL}},
	{"PMIx_Publish", (const char *const[]){"PMIX_TIMEOUT", NULL}},
	{"PMIx_Lookup",
	 (const char *const[]){"PMIX_WAIT", "PMIX_TIMEOUT", NULL}},
	{"PMIx_Unpublish", (const char *const[]){NULL}},
	{"PMIx_Connect", (const char *const[]){"PMIX_TIMEOUT", NULL}},
	{"PMIx_Disconnect", (const char *const[]){"PMIX_TIMEOUT", NULL}},
	{"PMIx_Abort", (const char *const[]){NULL}},
	{"PMIx_Group_construct",
	 (const char *const[]){"PMIX_GROUP_ASSIGN_CONTEXT_ID",
			       "PMIX_GROUP_LOCAL_ONLY", "PMIX_GROUP_OPTIONAL",
			       "PMIX_GROUP_NOTIFY_TERMINATION",
			       "PMIX_GROUP_LEADER", "PMIX_TIMEOUT", NULL}},
	{"PMIx_Group_destruct", (const char *const[]){"PMIX_TIMEOUT", NULL}},
	{"PMIx_Notify_event", (const char *const[]){"PMIX_RANGE", NULL}},
	{"PMIx_Register_event_handler", (const char *const[]){NULL}},
	{"PMIx_Query_info", (const char *const[]){"PMIX_QUERY_REFRESH_CACHE",
						  "PMIX_NSPACE",
						  "PMIX_PROCID",
						  "PMIX_RANK",
						  "PMIX_JOBID",
						  "PMIX_ALLOC_ID",
						  "PMIX_ALLOC_QUEUE",
						  "PMIX_TIMEOUT",
						  "PMIX_QUERY_NAMESPACES",
						  "PMIX_QUERY_NAMESPACE_INFO",
						  "PMIX_QUERY_SPAWN_SUPPORT",
						  "PMIX_QUERY_DEBUG_SUPPORT",
						  "PMIX_SERVER_URI",
						  "PMIX_QUERY_NUM_PSETS",
						  "PMIX_QUERY_PSET_NAMES",
						  "PMIX_QUERY_PSET_MEMBERSHIP",
						  "PMIX_PSET_NAME",
						  "PMIX_QUERY_NUM_GROUPS",
						  "PMIX_QUERY_GROUP_NAMES",
						  "PMIX_QUERY_GROUP_MEMBERSHIP",
						  "PMIX_GROUP_ID",
						  "PMIX_RANGE",
						  "PMIX_QUERY_PROC_TABLE",
						  "PMIX_QUERY_LOCAL_PROC_TABLE",
						  "PMIX_QUERY_MEMORY_USAGE",
						  "PMIX_QUERY_REPORT_AVG",
						  "PMIX_QUERY_REPORT_MINMAX",
						  "PMIX_QUERY_JOB_STATUS",
						  "PMIX_TIME_REMAINING",
						  "PMIX_QUERY_ALLOC_STATUS",
						  "PMIX_QUERY_QUEUE_LIST",
						  "PMIX_QUERY_QUEUE_STATUS",
						  "PMIX_JOB_CTRL_PREEMPTIBLE",
						  NULL}},
	{"PMIx_tool_connect_to_server", (const char *const[]){NULL}},
	{"PMIx_Job_control",
	 (const char *const[]){
		 "PMIX_JOB_CTRL_SIGNAL", "PMIX_JOB_CTRL_TERMINATE",
		 "PMIX_JOB_CTRL_KILL", "PMIX_JOB_CTRL_RESTART",
		 "PMIX_JOB_CTRL_PAUSE", "PMIX_JOB_CTRL_RESUME",
		 "PMIX_JOB_CTRL_CHECKPOINT", "PMIX_JOB_CTRL_CHECKPOINT_EVENT",
		 "PMIX_JOB_CTRL_CHECKPOINT_SIGNAL",
		 "PMIX_JOB_CTRL_CHECKPOINT_METHOD", "PMIX_JOB_CTRL_ID",
		 "PMIX_JOB_CTRL_CANCEL", "PMIX_JOB_CTRL_PREEMPTIBLE",
		 "PMIX_TIMEOUT", NULL}},
	{"PMIx_Log",
	 (const char *const[]){
		 "PMIX_LOG_STDOUT", "PMIX_LOG_STDERR", "PMIX_LOG_SYSLOG",
		 "PMIX_LOG_LOCAL_SYSLOG", "PMIX_LOG_GLOBAL_SYSLOG",
		 "PMIX_LOG_SYSLOG_PRI", "PMIX_LOG_JOB_RECORD", "PMIX_LOG_ONCE",
		 "PMIX_LOG_TAG_OUTPUT", "PMIX_LOG_TIMESTAMP_OUTPUT",
		 "PMIX_LOG_TIMESTAMP", "PMIX_LOG_GENERATE_TIMESTAMP",
		 "PMIX_LOG_EMAIL", "PMIX_LOG_EMAIL_ADDR",
		 "PMIX_LOG_EMAIL_SUBJECT", "PMIX_LOG_EMAIL_MSG", NULL}},
	{"PMIx_Allocation_request",
	 (const char *const[]){"PMIX_ALLOC_NUM_NODES", "PMIX_ALLOC_NUM_CPUS",
			       "PMIX_ALLOC_MEM_SIZE", "PMIX_ALLOC_TIME",
			       "PMIX_ALLOC_QUEUE", "PMIX_ALLOC_NODE_LIST",
			       "PMIX_ALLOC_ID", "PMIX_ALLOC_REQ_ID",
			       "PMIX_TIMEOUT", NULL}},
	{"PMIx_Process_monitor",
	 (const char *const[]){
		 "PMIX_MONITOR_HEARTBEAT", "PMIX_MONITOR_HEARTBEAT_TIME",
		 "PMIX_MONITOR_HEARTBEAT_DROPS", "PMIX_MONITOR_FILE",
		 "PMIX_MONITOR_FILE_SIZE", "PMIX_MONITOR_FILE_ACCESS",
		 "PMIX_MONITOR_FILE_MODIFY", "PMIX_MONITOR_FILE_DROPS",
		 "PMIX_MONITOR_FILE_CHECK_TIME", NULL}},
};

void module_register_attributes(void)
{
	for (size_t i = 0; i < sizeof(served) / sizeof(served[0]); i++) {
		pmix_status_t rc = PMIx_Register_attributes(
			(char *)served[i].fn, (char **)served[i].attrs);

		if (rc != PMIX_SUCCESS)
			PMIXEV_ERROR("PMIx_Register_attributes(%s): %s; "
				     "attribute queries will not list it",
				     served[i].fn, PMIx_Error_string(rc));
	}
}
