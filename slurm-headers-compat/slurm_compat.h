/*
 * slurm_compat.h - the only place in pmixev that knows Slurm-internal types
 * and ABI.
 *
 * Slurm installs no internal headers, yet the mpi plugin interface passes
 * internal types (hook arguments, the mpi.conf option table) and the plugin
 * calls a few libslurmfull functions that have no public prototype. Both are
 * declared here, per Slurm release, gated by SLURM_VERSION_NUMBER.
 *
 * Adding a release: add a row to the release table below (the PMIXEV_SLURM_*
 * feature macros, each 0 or 1) and, where a layout differs, a conditional
 * member keyed on one of those macros. Never fork code per release.
 * See slurm-headers-compat/README.md for what changes in 23.02 .. 25.11.
 */
#ifndef PMIXEV_SLURM_COMPAT_H_
#define PMIXEV_SLURM_COMPAT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_version.h>
#include <slurm/spank.h>

/*
 * Release table. One row per supported major.minor; the mpi plugin is
 * still built per micro release because Slurm checks its plugin_version
 * exactly (src/common/plugin.c, mask 0xffffff).
 *
 * PMIXEV_SLURM_SP_OPTIONS_PACK  s_p_options_t has pack/unpack members (23.02+)
 * PMIXEV_SLURM_TASK_INFO_SELF   mpi task info has a `self` address (< 23.11)
 * PMIXEV_SLURM_STEPD_CPU_BIND   offset of stepd_step_rec_t.cpu_bind_type;
 *                               cpu_bind (char *) follows 8 bytes later;
 *                               -1 until verified at run time for the
 *                               release (then taken as unbound)
 * PMIXEV_SLURM_HOSTLIST_PTR     hostlist_t is a pointer type (< 23.11;
 *                               then a struct, and the API takes a pointer)
 * PMIXEV_SLURM_KILL_STEP_FLAGS  slurm_kill_job_step() takes flags (23.11+)
 * PMIXEV_SLURM_KILL_STEP_ID     ... and a slurm_step_id_t * (26.05+);
 *                               in 26.05 also slurm_load_job() takes a
 *                               slurm_step_id_t, job_desc_msg_t names the
 *                               job by one, and so does
 *                               resource_allocation_response_msg_t;
 *                               slurm_free_ctl_conf() is
 *                               slurm_free_conf()
 * PMIXEV_SLURM_LIST_T           lists are list_t * (24.11+; `List` before)
 */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 5, 0) &&                     \
	SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 6, 0)
#define PMIXEV_SLURM_SP_OPTIONS_PACK 0
#define PMIXEV_SLURM_TASK_INFO_SELF  1
#define PMIXEV_SLURM_STEPD_CPU_BIND  296
#define PMIXEV_SLURM_HOSTLIST_PTR    1
#define PMIXEV_SLURM_KILL_STEP_FLAGS 0
#define PMIXEV_SLURM_KILL_STEP_ID    0
#define PMIXEV_SLURM_LIST_T	     0
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0) &&                  \
	SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 12, 0)
#define PMIXEV_SLURM_SP_OPTIONS_PACK 1
#define PMIXEV_SLURM_TASK_INFO_SELF  0
/* 24 bytes after 22.05's: slurm_step_id_t gained a sluid (+12), two
 * pointers (node_addrs, node_list) came, a padding hole went (offsetof on
 * slurm-24-11-5-1's slurmstepd_job.h, gcc x86_64; 22.05 gives 296 alike). */
#define PMIXEV_SLURM_STEPD_CPU_BIND  320
#define PMIXEV_SLURM_HOSTLIST_PTR    0
#define PMIXEV_SLURM_KILL_STEP_FLAGS 1
#define PMIXEV_SLURM_KILL_STEP_ID    0
#define PMIXEV_SLURM_LIST_T	     1
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0) &&                   \
	SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(26, 6, 0)
/* The hook types (src/interfaces/mpi.h) and s_p_options_t are 24.11's
 * (diff slurm-24-11-5-1..slurm-26-05-3-1). */
#define PMIXEV_SLURM_SP_OPTIONS_PACK 1
#define PMIXEV_SLURM_TASK_INFO_SELF  0
/* 8 bytes after 24.11's: het_job_step_task_cnts (a pointer) came after
 * het_job_step_cnt; nothing else before cpu_bind_type changed (same diff;
 * offsetof of a replica of the fields up to cpu_bind, gcc x86_64, which
 * gives 24.11's 320 alike). */
#define PMIXEV_SLURM_STEPD_CPU_BIND  328
#define PMIXEV_SLURM_HOSTLIST_PTR    0
#define PMIXEV_SLURM_KILL_STEP_FLAGS 1
#define PMIXEV_SLURM_KILL_STEP_ID    1
#define PMIXEV_SLURM_LIST_T	     1
#else
#error "pmixev: this Slurm release is not in slurm-headers-compat (supported: 22.05.x, 24.11.x; 26.05.x builds)"
#endif

/*
 * mpi plugin ids 101..108 belong to Slurm's own mpi plugins and new ones
 * are allocated upwards from there; ours is far outside that range
 * ("PMEX" in ASCII).
 */
#define PMIXEV_MPI_PLUGIN_ID 0x504d4558u

/* ---- mpi plugin hook argument types (src/common/slurm_mpi.h @ 22.05.8) ----
 */

/*
 * The step record (src/slurmd/slurmstepd/slurmstepd_job.h @ 22.05.8) is
 * opaque: pmixev reads the prefork env, and only the CPU binding by offset
 * (it is in no env before the tasks fork): cpu_bind_type (cpu_bind_type_t)
 * and cpu_bind, which task/affinity has already turned into one CPU mask
 * per local task in slurmd. Verified by tests/integration/18-locality.t.
 */
typedef struct stepd_step_rec stepd_step_rec_t;

static inline void pmixev_stepd_cpu_bind(const stepd_step_rec_t *job,
					 uint32_t *type, const char **list)
{
	const char *rec = (const char *)job;

	*type = 0;
	*list = NULL;
	if (PMIXEV_SLURM_STEPD_CPU_BIND < 0)
		return;
	memcpy(type, rec + PMIXEV_SLURM_STEPD_CPU_BIND, sizeof(*type));
	memcpy(list, rec + PMIXEV_SLURM_STEPD_CPU_BIND + 8, sizeof(*list));
}

typedef void mpi_plugin_client_state_t;

typedef struct {
	uint32_t het_job_id;
	uint32_t het_job_task_offset;
	slurm_step_id_t step_id;
	slurm_step_layout_t *step_layout;
} mpi_plugin_client_info_t;

typedef struct {
	slurm_addr_t *client;
	uint32_t gtaskid;
	int ltaskid;
	uint32_t ltasks;
	uint32_t nnodes;
	uint32_t nodeid;
	uint32_t ntasks;
#if PMIXEV_SLURM_TASK_INFO_SELF
	slurm_addr_t *self;
#endif
	slurm_step_id_t step_id;
} mpi_plugin_task_info_t;

/* ---- mpi.conf option tables (src/common/parse_config.h @ 22.05.8) ---- */

typedef struct s_p_hashtbl s_p_hashtbl_t;

/* slurm_parser_enum_t; pmixev parses every value itself, as a string. */
#define PMIXEV_S_P_STRING 1

typedef struct conf_file_options {
	char *key;
	int type;
	int (*handler)(void **data, int type, const char *key,
		       const char *value, const char *line, char **leftover);
	void (*destroy)(void *data);
	struct conf_file_options *line_options;
#if PMIXEV_SLURM_SP_OPTIONS_PACK
	void (*pack)(void *data, void *buffer);
	int (*unpack)(void **data, void *buffer);
#endif
} s_p_options_t;

/* A Slurm list (src/common/list.h; public API in slurm.h). */
#if PMIXEV_SLURM_LIST_T
typedef list_t *pmixev_slurm_list_t;
#else
typedef List pmixev_slurm_list_t;
#endif

/* Element of the list returned by mpi_p_conf_get_printable (xmalloc'd). */
typedef struct {
	char *name;
	char *value;
} config_key_pair_t;

/*
 * libslurmfull functions without a public prototype. They resolve at load
 * time against the libslurmfull already mapped into srun, slurmd,
 * slurmctld and slurmstepd; the plugins never link libslurm.
 */
extern void slurm_transfer_s_p_options(s_p_options_t **full_options,
				       s_p_options_t *options,
				       int *full_options_cnt);
extern s_p_hashtbl_t *slurm_s_p_hashtbl_create(const s_p_options_t options[]);
extern int slurm_s_p_get_string(char **str, const char *key,
				const s_p_hashtbl_t *hashtbl);
extern int slurm_s_p_parse_pair(s_p_hashtbl_t *hashtbl, const char *key,
				const char *value);
extern char *slurm_get_extra_conf_path(const char *conf_name);
extern void slurm_destroy_config_key_pair(void *object);
extern char *slurm_xstrdup(const char *str);
extern void *slurm_xcalloc(size_t count, size_t size, bool clear, bool try_,
			   const char *file, int line, const char *func);
extern void slurm_xfree(void **item);

/*
 * The mpi plugin symbols (src/common/slurm_mpi.c syms[] @ 22.05.8; same
 * names and shapes through 25.11). Declared here so their definitions are
 * checked against the Slurm release being built for.
 */
extern const char plugin_name[];
extern const char plugin_type[];
extern const uint32_t plugin_id;
extern const uint32_t plugin_version;
extern int init(void);
extern int fini(void);
extern int mpi_p_slurmstepd_prefork(const stepd_step_rec_t *job, char ***env);
extern int mpi_p_slurmstepd_task(const mpi_plugin_task_info_t *job,
				 char ***env);
extern mpi_plugin_client_state_t *
mpi_p_client_prelaunch(const mpi_plugin_client_info_t *job, char ***env);
extern int mpi_p_client_fini(mpi_plugin_client_state_t *state);
extern void mpi_p_conf_options(s_p_options_t **full_options, int *full_opt_cnt);
extern void mpi_p_conf_set(s_p_hashtbl_t *tbl);
extern s_p_hashtbl_t *mpi_p_conf_get(void);
extern pmixev_slurm_list_t mpi_p_conf_get_printable(void);

/*
 * Slurm's configuration in the current process (srun, slurmstepd): the
 * public slurm_conf_t, whose global instance is declared only in
 * src/common/read_config.h.
 */
extern slurm_conf_t slurm_conf;

/*
 * src/common/read_config.h: the address Slurm (slurmd, srun) uses for
 * NodeName `node_name` (NodeAddr, resolved and cached); SLURM_SUCCESS or
 * SLURM_ERROR (not a node of slurm.conf). `flags` 0: no BcastAddr. Same
 * shape in 22.05 and 24.11.
 */
extern int slurm_conf_get_addr(const char *node_name, slurm_addr_t *address,
			       uint16_t flags);

/*
 * The slurm.conf this process runs with, for a program it starts (the
 * owner helper), or NULL (libslurm's default, /etc/slurm/slurm.conf). In
 * slurmstepd: slurm_conf.slurm_conf, which read_config sets from the file
 * slurmd read (22.05.8: slurmstepd's job_container/tmpfs hands the same
 * value to its init script; 24.11 alike), else SLURM_CONF in slurmstepd's
 * own environment, which is slurmd's (slurmd exports its -f file there).
 * Never the job's environment: the job's user writes that.
 */
static inline const char *pmixev_slurm_conf_path(void)
{
	const char *env = getenv("SLURM_CONF");

	if (slurm_conf.slurm_conf && slurm_conf.slurm_conf[0] == '/')
		return slurm_conf.slurm_conf;
	return env && env[0] == '/' ? env : NULL;
}

/* src/common/env.h: set NAME=VALUE in a Slurm (xmalloc'd) env array. */
extern int slurm_env_array_overwrite(char ***array_ptr, const char *name,
				     const char *value);
/* ... and remove NAME from one. */
extern void slurm_unsetenvp(char **env, const char *name);

/* Signal a whole step (slurm.h; gains a flags argument in 23.11 and takes
 * a slurm_step_id_t in 26.05). */
static inline int pmixev_slurm_signal_step(uint32_t job_id, uint32_t step_id,
					   uint16_t signal)
{
#if PMIXEV_SLURM_KILL_STEP_ID
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	id.step_id = step_id;
	return slurm_kill_job_step(&id, signal, 0);
#elif PMIXEV_SLURM_KILL_STEP_FLAGS
	return slurm_kill_job_step(job_id, step_id, signal, 0);
#else
	return slurm_kill_job_step(job_id, step_id, signal);
#endif
}

/* Send a signal to every task of a step, which goes on (slurm.h; by
 * slurm_step_id_t * in 26.05). */
static inline int pmixev_slurm_signal_tasks(uint32_t job_id, uint32_t step_id,
					    uint32_t signal)
{
#if PMIXEV_SLURM_KILL_STEP_ID
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	id.step_id = step_id;
	return slurm_signal_job_step(&id, signal);
#else
	return slurm_signal_job_step(job_id, step_id, signal);
#endif
}

/* The job slurm_allocate_resources made (slurm.h; named by a
 * slurm_step_id_t in 26.05). */
static inline uint32_t
pmixev_slurm_alloc_job(const resource_allocation_response_msg_t *r)
{
#if PMIXEV_SLURM_KILL_STEP_ID
	return r->step_id.job_id;
#else
	return r->job_id;
#endif
}

/* Signal every step of a job, or (SIGKILL) cancel it (slurm.h; by
 * slurm_step_id_t in 26.05). */
static inline int pmixev_slurm_kill_job(uint32_t job_id, uint16_t signal)
{
#if PMIXEV_SLURM_KILL_STEP_ID
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	return slurm_kill_job(id, signal, 0);
#else
	return slurm_kill_job(job_id, signal, 0);
#endif
}

/* Requeue a job (slurm.h; by slurm_step_id_t in 26.05). */
static inline int pmixev_slurm_requeue(uint32_t job_id)
{
#if PMIXEV_SLURM_KILL_STEP_ID
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	return slurm_requeue(id, 0);
#else
	return slurm_requeue(job_id, 0);
#endif
}

/* An update of job `job_id` that changes nothing yet (slurm.h; the job
 * named by a slurm_step_id_t in 26.05). */
static inline void pmixev_slurm_job_update(job_desc_msg_t *desc,
					   uint32_t job_id)
{
	slurm_init_job_desc_msg(desc);
#if PMIXEV_SLURM_KILL_STEP_ID
	desc->step_id.job_id = job_id;
#else
	desc->job_id = job_id;
#endif
}

/* Set a job's comment, as its owner may. */
static inline int pmixev_slurm_set_comment(uint32_t job_id, const char *comment)
{
	job_desc_msg_t desc;

	pmixev_slurm_job_update(&desc, job_id);
	desc.comment = (char *)comment;
	return slurm_update_job(&desc);
}

/* Shrink a job to the nodes `nodes` (a comma list), as its owner may. */
static inline int pmixev_slurm_set_nodes(uint32_t job_id, const char *nodes)
{
	job_desc_msg_t desc;

	pmixev_slurm_job_update(&desc, job_id);
	desc.req_nodes = (char *)nodes;
	return slurm_update_job(&desc);
}

/* One job's record from slurmctld (slurm.h; by slurm_step_id_t in 26.05). */
static inline int pmixev_slurm_load_job(job_info_msg_t **resp, uint32_t job_id,
					uint16_t show_flags)
{
#if PMIXEV_SLURM_KILL_STEP_ID
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	return slurm_load_job(resp, id, show_flags);
#else
	return slurm_load_job(resp, job_id, show_flags);
#endif
}

/* Free what slurm_load_ctl_conf() returned (renamed in 26.05). */
static inline void pmixev_slurm_free_conf(slurm_conf_t *conf)
{
#if PMIXEV_SLURM_KILL_STEP_ID
	slurm_free_conf(conf);
#else
	slurm_free_ctl_conf(conf);
#endif
}

/*
 * Expand a Slurm node list ("n[1-3]") into `*names` (malloc'd array of
 * malloc'd strings, *count entries). Returns 0, or -1 (also when it has
 * more than `max` nodes: counted before anything is expanded; a short list
 * can name millions). (hostlist_t becomes
 * a struct in 23.11 and the API takes hostlist_t *.)
 */
static inline int pmixev_slurm_expand_nodelist(const char *list, uint32_t max,
					       char ***names, uint32_t *count)
{
#if PMIXEV_SLURM_HOSTLIST_PTR
	hostlist_t hl = slurm_hostlist_create(list);
#else
	hostlist_t *hl = slurm_hostlist_create(list);
#endif
	char **out = NULL, *name;
	int n, i = 0;

	if (!hl)
		return -1;
	n = slurm_hostlist_count(hl);
	if (n <= 0 || (uint32_t)n > max ||
	    !(out = calloc((size_t)n, sizeof(*out)))) {
		slurm_hostlist_destroy(hl);
		return -1;
	}
	while (i < n && (name = slurm_hostlist_shift(hl))) {
		out[i] = strdup(name);
		free(name);
		if (!out[i++])
			break;
	}
	slurm_hostlist_destroy(hl);
	if (i != n || !out[n - 1]) {
		while (i > 0)
			free(out[--i]);
		free(out);
		return -1;
	}
	*names = out;
	*count = (uint32_t)n;
	return 0;
}

#define pmixev_xmalloc(size)                                                   \
	slurm_xcalloc(1, (size), true, false, __FILE__, __LINE__, __func__)
#define pmixev_xfree(ptr) slurm_xfree((void **)&(ptr))

#endif /* PMIXEV_SLURM_COMPAT_H_ */
