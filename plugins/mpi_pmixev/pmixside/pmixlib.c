/*
 * pmixside/pmixlib.c - the OpenPMIx server library's life (see pmixlib.h).
 */
#include "config.h"

#include "pmixside/pmixlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>
#include <pmix.h>

#include "pmixbase/guard.h"
#include "pmixbase/nspace.h"
#include "pmixev_conf.h"
#include "pmixev_cpubind.h"
#include "pmixev_fsafe.h"
#include "pmixev_log.h"
#include "pmixside/module.h"

struct pmixlib {
	const struct layout *lay;
	struct pmix_gate *gate;
	const char *server_dir, *tmpdir, *nsdir;
	bool pmix_up;
	hwloc_topology_t topo;
	hwloc_bitmap_t cpuset;	   /* the step's CPUs here */
	hwloc_bitmap_t *task_cpus; /* [nlocal]: where each local task runs */
	unsigned event_cache;	   /* OpenPMIx's pmix_max_events */
	unsigned gds;		   /* PMIxevGds */
	char ***task_env;	   /* [nlocal] NULL-terminated, malloc'd */
	char ds_meta[24], ds_data[24]; /* ds21's segment sizes, or "" */
};

/* Wait on slurmstepd's main thread for a PMIx operation's callback. */
struct sync {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	pmix_status_t status;
};

#define SYNC_INIT                                                              \
	{                                                                      \
		PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false,    \
			PMIX_SUCCESS                                           \
	}

static void sync_cb(pmix_status_t status, void *cbdata)
{
	struct sync *s = cbdata;

	pthread_mutex_lock(&s->lock);
	s->status = status;
	s->done = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static pmix_status_t sync_wait(struct sync *s, pmix_status_t rc)
{
	if (rc == PMIX_OPERATION_SUCCEEDED)
		return PMIX_SUCCESS;
	if (rc != PMIX_SUCCESS)
		return rc;
	pthread_mutex_lock(&s->lock);
	while (!s->done)
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
	return s->status;
}

/*
 * A copy of each of PMIx's rendezvous files (pmix.*, root's, in `srvfd`)
 * in directory `dst`, owned by uid:gid, mode 0600, naming the gate's port
 * (ports: the library's, the gate's). 0, or -1 with errno.
 */
static int copy_rendezvous(int srvfd, int dst, uid_t uid, gid_t gid,
			   uint16_t ports[2])
{
	struct dirent *e;
	DIR *d = fdopendir(dup(srvfd));
	int rc = 0;

	if (!d)
		return -1;
	rewinddir(
		d); /* a dup shares srvfd's offset: a second pass starts at 0 */
	while (rc == 0 && (e = readdir(d)))
		if (strncmp(e->d_name, "pmix.", 5) == 0)
			rc = pmixev_fsafe_copy_new_edited(
				srvfd, e->d_name, dst, e->d_name, uid, gid,
				0600, pmix_gate_repoint, ports);
	closedir(d);
	return rc < 0 ? -1 : 0;
}

int pmixlib_copy_rendezvous(const char *server_dir, int dst, uid_t uid,
			    gid_t gid, uint16_t ports[2])
{
	int srvfd = open(server_dir,
			 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC),
	    rc;

	if (srvfd < 0)
		return -1;
	rc = copy_rendezvous(srvfd, dst, uid, gid, ports);
	close(srvfd);
	return rc;
}

/*
 * Where local task `i` will run: the CPUs Slurm binds it to (`type`,
 * `list`), as far as they exist here, else the step's. False if Slurm's
 * list was unreadable.
 */
static bool task_cpus(struct pmixlib *srv, uint32_t type, const char *list,
		      uint32_t i, hwloc_bitmap_t set)
{
	struct pmixev_cpus cpus;
	int rc = pmixev_cpubind_task(type, list, i, &cpus);

	hwloc_bitmap_zero(set);
	for (unsigned cpu = 0; rc == 1 && cpu < PMIXEV_CPUBIND_MAX; cpu++)
		if (cpus.bits[cpu / 64] >> (cpu % 64) & 1)
			hwloc_bitmap_set(set, cpu);
	hwloc_bitmap_and(set, set,
			 hwloc_topology_get_complete_cpuset(srv->topo));
	if (rc != 1 || hwloc_bitmap_iszero(set))
		hwloc_bitmap_copy(set, srv->cpuset);
	return rc >= 0;
}

/*
 * The CPUs of the step's cores here (`cores` in Slurm's numbering: core i
 * is the node's i-th core, as task/cgroup maps them) into `set`; false when
 * there are none to tell (no list, or cores this machine does not have).
 */
static bool step_cpus(struct pmixlib *srv, const char *cores,
		      hwloc_bitmap_t set)
{
	struct pmixev_cpus c;

	hwloc_bitmap_zero(set);
	if (pmixev_cpubind_ranges(cores, &c) != 1)
		return false;
	for (unsigned i = 0; i < PMIXEV_CPUBIND_MAX; i++) {
		hwloc_obj_t core;

		if (!(c.bits[i / 64] >> (i % 64) & 1))
			continue;
		if (!(core = hwloc_get_obj_by_type(srv->topo, HWLOC_OBJ_CORE,
						   i)))
			return false;
		hwloc_bitmap_or(set, set, core->cpuset);
	}
	return !hwloc_bitmap_iszero(set);
}

static int load_topology(struct pmixlib *srv, uint32_t bind_type,
			 const char *bind_list, const char *cores)
{
	uint32_t nlocal = layout_nlocal(srv->lay);
	bool readable = true;

	if (hwloc_topology_init(&srv->topo) < 0 ||
	    hwloc_topology_load(srv->topo) < 0 ||
	    !(srv->cpuset = hwloc_bitmap_alloc()) ||
	    !(srv->task_cpus =
		      calloc(nlocal ? nlocal : 1, sizeof(*srv->task_cpus))))
		return -1;
	/* The CPUs of the step's cores (what task/cgroup confines it to);
	 * else those this process may use (task/none: the whole node). This
	 * process starts before task/cgroup makes the step's cgroups. */
	if (!step_cpus(srv, cores, srv->cpuset) &&
	    hwloc_get_cpubind(srv->topo, srv->cpuset, HWLOC_CPUBIND_PROCESS) <
		    0)
		hwloc_bitmap_copy(srv->cpuset,
				  hwloc_topology_get_allowed_cpuset(srv->topo));
	for (uint32_t i = 0; i < nlocal; i++) {
		if (!(srv->task_cpus[i] = hwloc_bitmap_alloc()))
			return -1;
		readable &= task_cpus(srv, bind_type, bind_list, i,
				      srv->task_cpus[i]);
	}
	if (!readable)
		PMIXEV_ERROR("cannot read Slurm's CPU binding \"%s\" (type "
			     "0x%x); the tasks' locality is the step's CPUs",
			     bind_list ? bind_list : "", (unsigned)bind_type);
	return 0;
}

/*
 * The library's data-store components for PMIxevGds, best first: the
 * shared-memory one of this OpenPMIx (4.x: ds21; 5.x and later: shmem2),
 * with hash for the namespaces and peers it does not serve. "auto" is
 * the faster at wire-up (bench/run.sh --stores, -N3 -n96 and -n192):
 * ds21 on 4.2, where each hash client asks the server for every peer;
 * hash on 5.0, whose shmem2 is no faster.
 */
static const char *gds_components(unsigned gds)
{
	if (gds == PMIXEV_GDS_HASH ||
	    (gds == PMIXEV_GDS_AUTO && PMIX_VERSION_MAJOR >= 5))
		return "hash";
	return PMIX_VERSION_MAJOR >= 5 ? "shmem2,hash" : "ds21,hash";
}

/*
 * ds21's segment sizes (OpenPMIx's common/dstore reads them with getenv,
 * in the server and again in each client, which must agree: a rank's data
 * is found at segment number offset / size). Each namespace gets a meta
 * segment (24 bytes per rank, indexed by rank) and a data segment, each
 * 4 MiB by default and zeroed whole when made (dstore_segment.c), so
 * resident at once: 8 MiB in pmixev-pmixd for any step. Meta: one
 * segment that holds the step's ranks. Data: 1 KiB per rank of the step
 * (-N3 -n96 stores 50 KB a node) in powers of two, 1 MiB to the
 * default 4 MiB; more segments are added when it fills. One value (a
 * PMIx_Put, a registered key) must fit in one data segment: a larger one
 * aborts the library (doc/admin-guide.md, Limitations).
 */
#define DS_META_RANK 24u /* sizeof(rank_meta_info) */
#define DS_DATA_MIN  (1u << 20)
#define DS_DATA_MAX  (4u << 20)

static void ds_seg_sizes(uint32_t ntasks, size_t *meta, size_t *data)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	/* the namespace's own entry first (rank + 1), a count before */
	*meta = sizeof(size_t) + ((size_t)ntasks + 1) * DS_META_RANK;
	*meta = (*meta + page - 1) / page * page;
	*data = DS_DATA_MIN;
	while (*data < DS_DATA_MAX && *data < (size_t)ntasks << 10)
		*data <<= 1;
}

/* Set them for the server (before PMIx_server_init) when the library
 * runs ds21; pmixlib_task_env gives them to the clients. */
static int ds_seg_env(struct pmixlib *srv)
{
	size_t meta, data;

	if (strncmp(gds_components(srv->gds), "ds21", 4) != 0)
		return 0;
	ds_seg_sizes(srv->lay->step.ntasks, &meta, &data);
	snprintf(srv->ds_meta, sizeof(srv->ds_meta), "%zu", meta);
	snprintf(srv->ds_data, sizeof(srv->ds_data), "%zu", data);
	if (setenv("NS_META_SEG_SIZE", srv->ds_meta, 1) < 0 ||
	    setenv("NS_DATA_SEG_SIZE", srv->ds_data, 1) < 0) {
		PMIXEV_ERROR("cannot size PMIx's data store: %m");
		return -1;
	}
	PMIXEV_DEBUG(1, "pmixd: ds21 segments: meta %s, data %s bytes",
		     srv->ds_meta, srv->ds_data);
	return 0;
}

struct init_call {
	pmix_info_t *info;
	pmix_status_t rc;
};

/* In the gate's private network: the library's listener is made here. */
static int server_init(void *arg)
{
	struct init_call *c = arg;

	c->rc = PMIx_server_init(&module_upcalls, c->info, 8);
	return 0;
}

static int init_pmix(struct pmixlib *srv)
{
	struct init_call init;
	int inside;
	const struct layout *lay = srv->lay;
	pmix_topology_t topo = {.source = "hwloc", .topology = srv->topo};
	uint32_t uid = lay->uid, gid = lay->gid;
	pmix_rank_t rank = lay->nodeid;
	char cache[16];
	bool yes = true;
	pmix_info_t info[8];
	pmix_status_t rc;

	PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, srv->server_dir,
		       PMIX_STRING);
	PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, srv->server_dir,
		       PMIX_STRING);
	PMIX_INFO_LOAD(&info[2], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[3], PMIX_USERID, &uid, PMIX_UINT32);
	PMIX_INFO_LOAD(&info[4], PMIX_GRPID, &gid, PMIX_UINT32);
	PMIX_INFO_LOAD(&info[5], PMIX_SERVER_NSPACE, lay->srv_nspace,
		       PMIX_STRING);
	PMIX_INFO_LOAD(&info[6], PMIX_SERVER_RANK, &rank, PMIX_PROC_RANK);
	PMIX_INFO_LOAD(&info[7], PMIX_TOPOLOGY2, &topo, PMIX_TOPO);
	/* The cache size has no attribute in OpenPMIx 4.2, only this MCA
	 * parameter, read from the environment by PMIx_server_init. */
	snprintf(cache, sizeof(cache), "%u", srv->event_cache);
	if (setenv("PMIX_MCA_pmix_max_events", cache, 1) < 0)
		PMIXEV_ERROR("cannot set the event cache size: %m");
	/* The data store PMIxevGds names (the library, as the job owner,
	 * makes a shared-memory store's files in its own directories). */
	if (setenv("PMIX_MCA_gds", gds_components(srv->gds), 1) < 0) {
		PMIXEV_ERROR("cannot choose PMIx's data store: %m");
		return -1;
	}
	PMIXEV_DEBUG(1, "pmixd: data stores %s (PMIxevGds=%s)",
		     gds_components(srv->gds), pmixev_gds_name(srv->gds));
	if (ds_seg_env(srv) < 0)
		return -1;
	/* PMIx_Log: only the plugin that hands requests to pmixev
	 * (jobmgmt/applog.h); the library's own would syslog as well. */
	if (setenv("PMIX_MCA_plog", "default", 1) < 0) {
		PMIXEV_ERROR("cannot hand PMIx_Log to pmixev: %m");
		return -1;
	}
	/* The library's monitors sample on its progress thread, which works
	 * with the owner's file identity (pmixside/monitor_pmix.h), not on a
	 * thread of their own. */
	if (setenv("PMIX_MCA_psensor_base_use_separate_thread", "0", 1) < 0) {
		PMIXEV_ERROR("cannot keep PMIx's monitors on its progress "
			     "thread: %m");
		return -1;
	}
	/* Logged if it cannot be: the step runs without it. */
	guard_load();
	init.info = info;
	init.rc = PMIX_ERROR;
	/* -1 (logged): this thread could not get in, or back out. */
	inside = pmix_gate_run_inside(srv->gate, server_init, &init);
	rc = init.rc;
	/* Not info[7]: destructing a PMIX_TOPO value destroys the topology,
	 * which PMIx keeps using; it is ours to destroy after finalize. */
	for (size_t i = 0; i < 7; i++)
		PMIX_INFO_DESTRUCT(&info[i]);
	if (rc != PMIX_SUCCESS) {
		PMIXEV_ERROR("PMIx_server_init: %s", PMIx_Error_string(rc));
		return -1;
	}
	srv->pmix_up = true;
	module_register_attributes();
	return inside < 0 ? -1 : 0;
}

static int register_nspace(struct pmixlib *srv)
{
	const struct layout *lay = srv->lay;
	struct nspace_host host = {srv->tmpdir, srv->nsdir,
				   hwloc_get_root_obj(srv->topo)->total_memory};
	struct sync w = SYNC_INIT;
	pmix_info_t *info = NULL;
	size_t ninfo = 0;
	pmix_status_t rc;
	char err[256];

	if (nspace_info_build(lay, &host,
			      (const hwloc_const_cpuset_t *)srv->task_cpus,
			      &info, &ninfo, err, sizeof(err)) < 0) {
		PMIXEV_ERROR("namespace %s: %s", lay->nspace, err);
		return -1;
	}
	rc = sync_wait(&w, PMIx_server_register_nspace(
				   lay->nspace, (int)layout_nlocal(lay), info,
				   ninfo, sync_cb, &w));
	PMIX_INFO_FREE(info, ninfo);
	if (rc != PMIX_SUCCESS) {
		PMIXEV_ERROR("PMIx_server_register_nspace(%s): %s", lay->nspace,
			     PMIx_Error_string(rc));
		return -1;
	}
	return 0;
}

static int register_clients(struct pmixlib *srv)
{
	const struct layout *lay = srv->lay;
	uint32_t n = layout_nlocal(lay);
	pmix_status_t rc;

	if (n && !(srv->task_env = calloc(n, sizeof(*srv->task_env))))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct sync s = SYNC_INIT;
		pmix_proc_t proc;

		PMIX_LOAD_PROCID(&proc, lay->nspace,
				 lay->map.ranks[lay->nodeid][i]);
		rc = sync_wait(&s, PMIx_server_register_client(&proc, lay->uid,
							       lay->gid, NULL,
							       sync_cb, &s));
		if (rc == PMIX_SUCCESS)
			rc = PMIx_server_setup_fork(&proc, &srv->task_env[i]);
		if (rc == PMIX_SUCCESS && srv->ds_meta[0])
			PMIX_SETENV(rc, "NS_META_SEG_SIZE", srv->ds_meta,
				    &srv->task_env[i]);
		if (rc == PMIX_SUCCESS && srv->ds_data[0])
			PMIX_SETENV(rc, "NS_DATA_SEG_SIZE", srv->ds_data,
				    &srv->task_env[i]);
		if (rc != PMIX_SUCCESS) {
			PMIXEV_ERROR("registering rank %u: %s", proc.rank,
				     PMIx_Error_string(rc));
			return -1;
		}
	}
	return 0;
}

const char *pmixlib_uri(const struct pmixlib *srv)
{
	for (char **e = srv->task_env ? srv->task_env[0] : NULL; e && *e; e++)
		if (strncmp(*e, "PMIX_SERVER_URI", 15) == 0 && strchr(*e, '='))
			return strchr(*e, '=') + 1;
	return NULL;
}

/*
 * Send the clients and tools to the gate: ports = {the library's port
 * (from its clients' environment), the gate's}; the clients' URIs are
 * made the gate's.
 */
static int open_gate(struct pmixlib *srv, uint16_t ports[2])
{
	const char *uri = pmixlib_uri(srv);

	ports[0] = uri ? pmix_gate_uri_port(uri) : 0;
	ports[1] = pmix_gate_port(srv->gate);
	if (!ports[0]) {
		PMIXEV_ERROR("cannot find the PMIx server's port in its "
			     "clients' environment");
		return -1;
	}
	for (uint32_t i = 0; i < layout_nlocal(srv->lay); i++)
		for (char **e = srv->task_env[i]; e && *e; e++) {
			size_t len;
			char *to;

			if (strncmp(*e, "PMIX_SERVER_URI", 15) != 0)
				continue;
			if (!(to = pmix_gate_repoint(*e, strlen(*e), &len,
						     ports)))
				return -1;
			free(*e);
			*e = to;
		}
	return pmix_gate_open(srv->gate, ports[0], (unsigned)PMIX_VERSION_MAJOR,
			      gds_components(srv->gds));
}

struct pmixlib *pmixlib_start(const struct pmixlib_cfg *cfg, uint16_t ports[2])
{
	struct pmixlib *srv = calloc(1, sizeof(*srv));

	if (!srv)
		return NULL;
	srv->lay = cfg->lay;
	srv->gate = cfg->gate;
	srv->server_dir = cfg->server_dir;
	srv->tmpdir = cfg->tmpdir;
	srv->nsdir = cfg->nsdir;
	srv->event_cache = cfg->event_cache;
	srv->gds = cfg->gds;
	if (load_topology(srv, cfg->bind_type, cfg->bind_list,
			  cfg->step_cores) < 0) {
		PMIXEV_ERROR("cannot load the node topology (hwloc)");
		goto fail;
	}
	if (init_pmix(srv) < 0 || register_nspace(srv) < 0 ||
	    register_clients(srv) < 0 || open_gate(srv, ports) < 0)
		goto fail;
	return srv;
fail:
	pmixlib_stop(srv);
	return NULL;
}

char *const *pmixlib_task_env(const struct pmixlib *l, uint32_t i)
{
	return l->task_env && i < layout_nlocal(l->lay) ? l->task_env[i] : NULL;
}

static void finalize(struct pmixlib *srv)
{
	pmix_status_t rc = PMIx_server_finalize();

	if (rc != PMIX_SUCCESS)
		PMIXEV_ERROR("PMIx_server_finalize: %s", PMIx_Error_string(rc));
}

void pmixlib_stop(struct pmixlib *srv)
{
	if (!srv)
		return;
	if (srv->pmix_up)
		finalize(srv);
	guard_report();
	for (uint32_t i = 0; srv->task_env && i < layout_nlocal(srv->lay);
	     i++) {
		for (char **e = srv->task_env[i]; e && *e; e++)
			free(*e);
		free(srv->task_env[i]);
	}
	free(srv->task_env);
	if (srv->cpuset)
		hwloc_bitmap_free(srv->cpuset);
	for (uint32_t i = 0; srv->task_cpus && i < layout_nlocal(srv->lay); i++)
		if (srv->task_cpus[i])
			hwloc_bitmap_free(srv->task_cpus[i]);
	free(srv->task_cpus);
	if (srv->topo)
		hwloc_topology_destroy(srv->topo);
	free(srv);
}
