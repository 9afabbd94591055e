/*
 * server/clients.h - the upcalls about the step's local processes: a client
 * connected (let in by the gate, gate/gate.h), finalized, or
 * called PMIx_Abort (logged, remembered for its exit event, and forwarded
 * to srun, which ends the step). PMIx progress thread; none blocks.
 */
#ifndef PMIXEV_PMIX_CLIENTS_H_
#define PMIXEV_PMIX_CLIENTS_H_

#include <pmix_server.h>

pmix_status_t clients_upcall_connected(const pmix_proc_t *proc,
				       void *server_object,
				       pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t clients_upcall_finalized(const pmix_proc_t *proc,
				       void *server_object,
				       pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t clients_upcall_abort(const pmix_proc_t *proc, void *server_object,
				   int status, const char msg[],
				   pmix_proc_t procs[], size_t nprocs,
				   pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIX_CLIENTS_H_ */
