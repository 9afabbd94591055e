/*
 * keys_more.c - pmix_keys' checks of the keys beyond sizes and ranks
 * (keys_check.h): the rank offset is 0, the node list and the raw,
 * ANL and local-procs forms of the task map agree with what Slurm told the
 * task, the node's memory is known, and each rank's process set is its
 * application's, "slurm://app/N".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys_check.h"
#include "list_formats.h"

static pmix_value_t *get(const pmix_proc_t *who, const char *name,
			 const char *key, pmix_data_type_t type,
			 const char *expected)
{
	return fetch_q(who, name, key, NULL, 0, type, expected);
}

/* The n-th of the `sep`-separated fields of `s` (malloc'd), or NULL; the
 * number of fields into *count. */
static char *field(const char *s, char sep, long n, long *count)
{
	const char *start = s;
	char *out = NULL;

	*count = 0;
	for (const char *p = s;; p++) {
		if (*p != sep && *p)
			continue;
		if (*count == n)
			out = strndup(start, (size_t)(p - start));
		(*count)++;
		if (!*p)
			break;
		start = p + 1;
	}
	return out;
}

static void check_offset(void)
{
	pmix_value_t *v = get(&wild, "PMIX_NPROC_OFFSET", PMIX_NPROC_OFFSET,
			      PMIX_PROC_RANK, "0");

	if (v && v->data.rank == 0)
		good("PMIX_NPROC_OFFSET", "0");
	else if (v)
		bad("PMIX_NPROC_OFFSET", "not 0", "0");
	if (v)
		PMIX_VALUE_RELEASE(v);
}

/* NAME (a comma list of node names) has nnodes names, ours at nodeid. */
static void check_node_list(const struct keys_env *e, const char *name,
			    const char *key)
{
	pmix_value_t *v =
		get(&wild, name, key, PMIX_STRING, "the step's node names");
	char *mine;
	long n;

	if (!v)
		return;
	mine = field(v->data.string, ',', e->nodeid, &n);
	if (n == e->nnodes && mine && !strcmp(mine, e->nodename))
		good(name, "%s", v->data.string);
	else
		bad(name, v->data.string, "%ld names, %s at %ld", e->nnodes,
		    e->nodename, e->nodeid);
	free(mine);
	PMIX_VALUE_RELEASE(v);
}

static void check_proc_map_raw(const struct keys_env *e)
{
	pmix_value_t *v = get(&wild, "PMIX_PROC_MAP_RAW", PMIX_PROC_MAP_RAW,
			      PMIX_STRING, "the ranks of each node");
	bool *in = calloc((size_t)e->ntasks, sizeof(*in));
	char *mine;
	long n, got = -1;

	if (!v || !in)
		goto out;
	mine = field(v->data.string, ';', e->nodeid, &n);
	if (mine)
		got = parse_peers(mine, in, (uint32_t)e->ntasks);
	if (n == e->nnodes && got == e->ntasks_here && in[me.rank] &&
	    (!e->local ||
	     !memcmp(in, e->local, (size_t)e->ntasks * sizeof(*in))))
		good("PMIX_PROC_MAP_RAW", "%s", v->data.string);
	else
		bad("PMIX_PROC_MAP_RAW", v->data.string,
		    "%ld groups, group %ld the local peers", e->nnodes,
		    e->nodeid);
	free(mine);
out:
	free(in);
	if (v)
		PMIX_VALUE_RELEASE(v);
}

/* Expand "(vector,(N,C,P),...)": the node of every rank into node_of;
 * the number of ranks, or -1. */
static long anl_expand(const char *s, long *node_of, long max)
{
	long r = 0;

	if (strncmp(s, "(vector", 7))
		return -1;
	s += 7;
	while (*s == ',') {
		long node, count, per;
		int len;

		if (sscanf(s, ",(%ld,%ld,%ld)%n", &node, &count, &per, &len) !=
			    3 ||
		    node < 0 || count < 1 || per < 1)
			return -1;
		s += len;
		for (long k = 0; k < count; k++)
			for (long i = 0; i < per; i++, r++)
				if (r < max)
					node_of[r] = node + k;
	}
	return strcmp(s, ")") ? -1 : r;
}

static void check_anl(const struct keys_env *e)
{
	pmix_value_t *v = get(&wild, "PMIX_ANL_MAP", PMIX_ANL_MAP, PMIX_STRING,
			      "the task map in ANL notation");
	long *node_of = calloc((size_t)e->ntasks, sizeof(*node_of)), here = 0;
	bool ok;

	if (!v || !node_of)
		goto out;
	ok = anl_expand(v->data.string, node_of, e->ntasks) == e->ntasks &&
	     node_of[me.rank] == e->nodeid;
	for (long r = 0; ok && r < e->ntasks; r++) {
		here += node_of[r] == e->nodeid;
		if (e->local && e->local[r] != (node_of[r] == e->nodeid))
			ok = false;
	}
	if (ok && here == e->ntasks_here)
		good("PMIX_ANL_MAP", "%s", v->data.string);
	else
		bad("PMIX_ANL_MAP", v->data.string,
		    "%ld ranks, %ld on node %ld, rank %u among them", e->ntasks,
		    e->ntasks_here, e->nodeid, me.rank);
out:
	free(node_of);
	if (v)
		PMIX_VALUE_RELEASE(v);
}

/* The major version of the OpenPMIx library ("OpenPMIx 4.2.2, ..."). */
static int lib_major(void)
{
	const char *v = PMIx_Get_version(),
		   *d = v ? strpbrk(v, "0123456789") : NULL;

	return d ? atoi(d) : 0;
}

/*
 * PMIX_LOCAL_PROCS, asked as the 5.0.7 client example does: for the job
 * and for this rank, the same array of this node's ranks. OpenPMIx 4
 * looks a key asked for a rank up among that rank's keys only, so there it
 * is asked for the job alone.
 */
static void check_local_procs(const struct keys_env *e)
{
	bool per_rank = lib_major() >= 5;
	pmix_value_t *v = get(&wild, "PMIX_LOCAL_PROCS", PMIX_LOCAL_PROCS,
			      PMIX_DATA_ARRAY, "this node's ranks"),
		     *v2 = per_rank ? get(&me, "PMIX_LOCAL_PROCS of this rank",
					  PMIX_LOCAL_PROCS, PMIX_DATA_ARRAY,
					  "this node's ranks")
				    : NULL;
	const pmix_data_array_t *da;
	const pmix_proc_t *p;
	bool ok;

	if (!v || (per_rank && !v2))
		goto out;
	da = v->data.darray;
	p = da ? da->array : NULL;
	ok = p && da->type == PMIX_PROC && (long)da->size == e->ntasks_here &&
	     (!per_rank || PMIx_Value_compare(v, v2) == PMIX_EQUAL);
	for (size_t i = 0; ok && i < da->size; i++)
		ok = PMIX_CHECK_NSPACE(p[i].nspace, me.nspace) &&
		     p[i].rank < (pmix_rank_t)e->ntasks &&
		     (!e->local || e->local[p[i].rank]);
	if (ok)
		good("PMIX_LOCAL_PROCS",
		     "%zu procs, the same for the job and "
		     "this rank",
		     da->size);
	else
		bad("PMIX_LOCAL_PROCS", "another array",
		    "%ld procs of this step, this node's local peers, the "
		    "same for the job and this rank",
		    e->ntasks_here);
out:
	if (v)
		PMIX_VALUE_RELEASE(v);
	if (v2)
		PMIX_VALUE_RELEASE(v2);
}

static void check_memory(void)
{
	pmix_value_t *v =
		get(&wild, "PMIX_AVAIL_PHYS_MEMORY", PMIX_AVAIL_PHYS_MEMORY,
		    PMIX_UINT64, "the node's memory in bytes");

	if (v && v->data.uint64 >= (1ull << 24))
		good("PMIX_AVAIL_PHYS_MEMORY", "%llu",
		     (unsigned long long)v->data.uint64);
	else if (v)
		bad("PMIX_AVAIL_PHYS_MEMORY", "less than 16 MiB",
		    "the node's memory in bytes");
	if (v)
		PMIX_VALUE_RELEASE(v);
}

static void check_psets(const struct keys_env *e)
{
	char want[64];
	pmix_proc_t peer;
	pmix_value_t *v, *v2;
	const pmix_data_array_t *da;

	snprintf(want, sizeof(want), "slurm://app/%ld", e->appnum);
	v = get(&me, "PMIX_PSET_NAME", PMIX_PSET_NAME, PMIX_STRING, want);
	if (v && !strcmp(v->data.string, want))
		good("PMIX_PSET_NAME", "%s", want);
	else if (v)
		bad("PMIX_PSET_NAME", v->data.string, "%s", want);
	if (v)
		PMIX_VALUE_RELEASE(v);
	v = get(&me, "PMIX_PSET_NAMES", PMIX_PSET_NAMES, PMIX_DATA_ARRAY, want);
	da = v ? v->data.darray : NULL;
	if (da && da->type == PMIX_STRING && da->size == 1 &&
	    !strcmp(((char **)da->array)[0], want))
		good("PMIX_PSET_NAMES", "[%s]", want);
	else if (v)
		bad("PMIX_PSET_NAMES", "another array", "[%s]", want);
	if (v)
		PMIX_VALUE_RELEASE(v);
	/* a rank on another node has one too */
	PMIX_LOAD_PROCID(&peer, me.nspace,
			 (me.rank + (pmix_rank_t)e->ntasks_here) %
				 (pmix_rank_t)e->ntasks);
	v2 = get(&peer, "PMIX_PSET_NAME of another rank", PMIX_PSET_NAME,
		 PMIX_STRING, "slurm://app/N");
	if (v2 && !strncmp(v2->data.string, "slurm://app/", 12))
		good("PMIX_PSET_NAME of another rank", "%s", v2->data.string);
	else if (v2)
		bad("PMIX_PSET_NAME of another rank", v2->data.string,
		    "slurm://app/N");
	if (v2)
		PMIX_VALUE_RELEASE(v2);
}

void check_more_keys(const struct keys_env *e)
{
	check_offset();
	check_node_list(e, "PMIX_NODE_LIST", PMIX_NODE_LIST);
	check_node_list(e, "PMIX_NODE_MAP_RAW", PMIX_NODE_MAP_RAW);
	check_proc_map_raw(e);
	check_anl(e);
	check_local_procs(e);
	check_memory();
	check_psets(e);
}
