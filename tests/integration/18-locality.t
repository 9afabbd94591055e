#!/usr/bin/env bash
# Locality: under task/affinity every rank's PMIX_CPUSET is the set of CPUs
# Slurm bound it to, and its PMIX_LOCALITY_STRING (as itself and its node
# peers read it) describes that set: automatic core binding, an explicit
# --cpu-bind=map_cpu list, and no binding. The test runs its own cluster
# next to the main one, with task/affinity (and task/cgroup constraining
# cores when the suite runs under proctrack/cgroup) and the machine's real
# cores (the main cluster declares 32 cores per node and binds nothing).
here=$(cd "$(dirname "$0")" && pwd)
cores=$(nproc)
if [ "$cores" -lt 2 ]; then
	echo "1..0 # SKIP binding tasks to different cores needs 2 CPUs"
	exit 0
fi
main_id=${PMIXEV_CLUSTER_ID:-0}
export PMIXEV_CLUSTER_ID=$((main_id == 9 ? 8 : 9))
export PMIXEV_TASK_PLUGIN=task/affinity PMIXEV_NODE_CORES=$cores
# Under proctrack/cgroup (README command 2 on 22.05) as sites run it: the
# tasks confined to the step's cores by task/cgroup, bound by task/affinity.
if [ "${PMIXEV_PROCTRACK:-}" = proctrack/cgroup ]; then
	export PMIXEV_TASK_PLUGIN=task/cgroup,task/affinity PMIXEV_CGROUP_CORES=yes
fi
bash "$here/../cluster/cluster.sh" stop >/dev/null 2>&1
trap 'bash "$here/../cluster/cluster.sh" stop >/dev/null 2>&1' EXIT
if ! bash "$here/../cluster/cluster.sh" start >/dev/null; then
	echo "Bail out! the task/affinity cluster did not start"
	exit 1
fi
. "$here/lib.sh"
plan 5

where=$(client pmix_where)
# consistent: each rank's view of its peers' locality is their own.
consistent() {
	printf '%s\n' "$out" | awk '
		/^pmix_where: rank/ {
			r = $3; sub(/.*locality /, ""); split($0, a, "; peers ")
			own[r] = a[1]; n = split(a[2], p, " ")
			for (i = 1; i <= n; i++) seen[p[i]] = 1
		}
		END {
			bad = 0
			for (s in seen) {
				split(s, kv, "="); if (own[kv[1]] != kv[2]) bad = 1
			}
			exit bad || length(own) == 0
		}'
}

run_step --mpi=pmixev -N3 -n$((3 * cores)) "$where"
[ "$rc" -eq 0 ] &&
	[ "$(lines "^pmix_where: rank [0-9]+ on n[1-3]: runs on [0-9]+; PMIX_CPUSET [0-9]+: same; ")" -eq $((3 * cores)) ]
ok $? "automatic core binding: each of $((3 * cores)) ranks runs on one CPU and PMIX_CPUSET names it" || show
for n in n1 n2 n3; do
	printf '%s\n' "$out" | sed -n "s/^pmix_where: rank [0-9]* on $n: runs on \([0-9]*\);.*locality \([^;]*\);.*/\1 \2/p" >"$PMIXEV_CLUSTER_WORKDIR/18-$n"
	[ "$(cut -d' ' -f1 "$PMIXEV_CLUSTER_WORKDIR/18-$n" | sort -u | wc -l)" -eq "$cores" ] &&
		[ "$(cut -d' ' -f2 "$PMIXEV_CLUSTER_WORKDIR/18-$n" | sort -u | wc -l)" -eq "$cores" ] ||
		{ diag "$n: ranks do not have one CPU and one locality each"; false; } || break
done && consistent
ok $? "on every node the ranks have different CPUs and locality strings, and each rank's peers read the same strings" || show

run_step --mpi=pmixev --cpu-bind=map_cpu:1,0 -N1 -n2 "$where"
[ "$rc" -eq 0 ] &&
	[ "$(lines '^pmix_where: rank 0 on n1: runs on 1; PMIX_CPUSET 1: same; locality [^;]*CR1')" -eq 1 ] &&
	[ "$(lines '^pmix_where: rank 1 on n1: runs on 0; PMIX_CPUSET 0: same; locality [^;]*CR0')" -eq 1 ] && consistent
ok $? "--cpu-bind=map_cpu:1,0: rank 0's cpuset and locality are CPU 1, rank 1's CPU 0" || show

run_step --mpi=pmixev --cpu-bind=none -N1 -n2 "$where"
all=$(printf '0-%d' $((cores - 1)))
[ "$rc" -eq 0 ] &&
	[ "$(lines "^pmix_where: rank [01] on n1: runs on $all; PMIX_CPUSET $all: same; ")" -eq 2 ] && consistent
ok $? "--cpu-bind=none: both ranks' cpuset is every CPU of the step ($all)" || show

# A step on one core of the node's $cores, not bound: its cpuset is the
# step's core (task/cgroup confines the task to it where it constrains
# cores; the PMIx server process started before that cgroup existed).
run_step --mpi=pmixev --cpu-bind=none -N1 -n1 -c1 "$where"
one=$(printf '%s\n' "$out" | sed -n 's/^pmix_where: rank 0 on n1: .*PMIX_CPUSET \([0-9]*\): .*/\1/p')
[ "$rc" -eq 0 ] && [ -n "$one" ] &&
	if [ "${PMIXEV_CGROUP_CORES:-no}" = yes ]; then
		[ "$(lines "^pmix_where: rank 0 on n1: runs on $one; PMIX_CPUSET $one: same; locality [^;]*CR$one")" -eq 1 ]
	else
		# Without task/cgroup the task may run beyond it (22.05's
		# task/affinity lets it; 24.11's keeps it to the step's CPUs).
		[ "$(lines "^pmix_where: rank 0 on n1: runs on ($one; PMIX_CPUSET $one: same|$all; PMIX_CPUSET $one: DIFFERENT); locality [^;]*CR$one")" -eq 1 ]
	fi
ok $? "--cpu-bind=none on 1 of $cores cores: the rank's cpuset and locality are the step's core${PMIXEV_CGROUP_CORES:+ (ConstrainCores=$PMIXEV_CGROUP_CORES)}" || show

done_testing
