#!/usr/bin/env bash
# A job cannot raise the bounds the site set on what its root stepds hold
# or log, nor forge slurmd log lines. (a) SLURM_PMIXEV_EVENT_CACHE=65536
# is refused (the site's PMIxevEventCache stays) and 1,200 events of 1000
# KiB leave every stepd under the byte cap PMIxevEventCacheMax (64 MiB:
# 64 slots of PMIxevEventMax=1024 KiB) plus its working set, the oldest
# cached events evicted and counted; before the cap, 1.5 GB per node. (b) SLURM_PMIXEV_DEBUG=3 with a loop of
# empty fences: the step's lines per second in the slurmd log stay within
# the site's PMIxevLogRate (100), the rest counted and summarised; before,
# about 5,000 lines/s. (c) A job-control target namespace, an unknown
# pmix.jctrl.* key, a checkpoint id and a cancel id carrying a newline and
# a fake log prefix appear escaped ("\n") on one line, never as a line of
# their own. (d) The step's sizes in its environment are srun's, so the
# user's: a preloaded shim makes srun say 1,048,579 nodes (n1-n3 and 16
# ranges of 65,536, the most one range may hold); every stepd refuses the
# step for not being the size slurmstepd launches, before expanding the
# list (before, each stepd expanded it: 46 MiB for these 1 M names, and a
# 1 MB list names billions).
. "$(dirname "$0")/lib.sh"
plan 9

hog=$(client pmix_hog)
fence=$(client pmix_fence)
jobctl=$(client pmix_jobctl)
ckpt=$(client pmix_ckpt)

# (a) the event cache, by count and by bytes
# The job lowers PMIxevOverlayMax to 16 MiB: what is in transit between
# stepds is bounded by that budget (20-budgets.t), the cache by its own.
step_env=(SLURM_PMIXEV_EVENT_CACHE=65536 SLURM_PMIXEV_OVERLAY_MAX=16
	SLURM_PMIXEV_TIME_WARNING=0)
PMIXEV_TEST_TIMEOUT=240 peak_rss "n1 n2 n3" run_step --mpi=pmixev -N3 -n3 -t 4 "$hog" notify 1000 1200
step_env=()
[ "$rc" -eq 0 ] && [ "$(lines '^pmix_hog: rank 0 on n1: got 1200 event\(s\)$')" -eq 1 ]
ok $? "rank 0 sends 1,200 events of 1000 KiB, the step ends well" || show
grep -q "step $job\.0 on n2: the job's SLURM_PMIXEV_EVENT_CACHE=65536 is refused: the site's PMIxevEventCache=512 is a maximum a job may only lower; it stays" "$(slurmd_log n2)"
ok $? "the job's SLURM_PMIXEV_EVENT_CACHE=65536 is refused, the site's 512 kept (logged)" ||
	grep "step $job\.0 on n2" "$(slurmd_log n2)" | head -n 5 | sed 's/^/#   /' >&2
diag "peak RSS of the step's slurmstepds under the flood: $((rss / 1024)) MiB"
# The rest: the library's own copies of events on their way to the
# clients, which no pmixev budget counts (126-221 MiB seen in all; 1,514
# MiB with no byte cap).
[ "$rss" -lt $(((64 + 16 + 192) * 1024)) ]
ok $? "every slurmstepd stayed under 272 MiB (PMIxevEventCacheMax=64 + PMIxevOverlayMax=16 + 192 MiB; $((rss / 1024)) MiB)"
grep -Eq "step $job\.0 on n1: events from rank@0: 1200 cached, 11[3-9][0-9] evicted from the full cache" "$(slurmd_log n1)"
ok $? "n1 counts at least the 1,136 events evicted from its 64 slots (PMIxevEventCacheMax=64 MiB / PMIxevEventMax=1024 KiB)" ||
	grep "step $job\.0 on n1: events" "$(slurmd_log n1)" | tail -n 3 | sed 's/^/#   /' >&2

# (b) debug lines a job asks for stay within the site's rate
step_env=(SLURM_PMIXEV_DEBUG=3)
run_step --mpi=pmixev -N3 -n3 -t 2 "$fence" --loop 3000
step_env=()
[ "$rc" -eq 0 ]
ok $? "3,000 empty fences with SLURM_PMIXEV_DEBUG=3" || show
busiest=$(grep "step $job\.0 on n1: " "$(slurmd_log n1)" |
	sed -n 's/^\[\([^.]*\)\..*/\1/p' | sort | uniq -c | sort -rn | head -n1 | awk '{print $1}')
diag "busiest second of step $job.0 in n1's slurmd log: ${busiest:-0} lines"
[ "${busiest:-0}" -le 110 ] &&
	grep -q "step $job\.0 on n1: log: [0-9]* debug line(s) over PMIxevLogRate=100 per second suppressed" "$(slurmd_log n1)"
ok $? "at most PMIxevLogRate=100 lines per second (+ summaries), the rest counted (${busiest:-0})"

# (c) forged lines
forge=$'\nerror: mpi/pmixev: step 1.0 on n1: FORGED'
before=$(cat "$(slurmd_log n1)" | wc -l)
run_step --mpi=pmixev -N2 -n2 -t 2 "$jobctl" --nspace "ns${forge}-ns" signal 10
run_step --mpi=pmixev -N2 -n2 -t 2 "$jobctl" key "pmix.jctrl.x${forge}-key"
run_step --mpi=pmixev -N2 -n2 -t 2 "$ckpt" --cancel-after 1 "id${forge}-ckpt"
log=$(tail -n +"$((before + 1))" "$(slurmd_log n1)")
! printf '%s\n' "$log" | grep -q '^error: mpi/pmixev: step 1.0 on n1: FORGED'
ok $? "no line of n1's slurmd log starts with the forged prefix" ||
	printf '%s\n' "$log" | grep -B1 'FORGED' | head -n 8 | sed 's/^/#   /' >&2
esc='\\nerror: mpi/pmixev: step 1\.0 on n1: FORGED'
missing=
for what in ns key ckpt; do
	printf '%s\n' "$log" | grep -q "${esc}-$what" || missing+=" $what"
done
printf '%s\n' "$log" | grep -q "cancel 'req-id${esc}-ckpt'" || missing+=" cancel"
[ -z "$missing" ]
ok $? "the namespace, the key, the checkpoint and the cancel id are logged escaped (missing:${missing:- none})" ||
	printf '%s\n' "$log" | grep -A1 'FORGED' | head -n 12 | sed 's/^/#   /' >&2

# (d) forged step sizes
install -m 0644 "$PMIXEV_TEST_CLIENTS/.libs/forge_env.so" "$PMIXEV_CLUSTER_WORKDIR/forge_env.so"
list=n[1-3]$(printf ',%s[1-65536]' {a..p})
step_env=(LD_PRELOAD="$PMIXEV_CLUSTER_WORKDIR/forge_env.so"
	PMIXEV_FORGE_ENV="SLURM_STEP_NUM_NODES=1048579 SLURM_STEP_NODELIST=$list")
run_step --mpi=pmixev -N3 -n3 -t 1 "$fence"
step_env=()
refused=0
for n in n1 n2 n3; do
	grep -q "step $job\.0 on $n: step refused: the step's environment gives it 1048579 node(s) and 3 task(s) (SLURM_STEP_NUM_NODES, SLURM_STEP_NUM_TASKS), slurmstepd launches 3 and 3" "$(slurmd_log "$n")" &&
		refused=$((refused + 1))
done
[ "$refused" = 3 ] && [ "$rc" != 0 ] && [ "$(lines '^forge_env: SLURM_STEP_NUM_NODES=1048579$')" = 1 ]
ok $? "srun said 1,048,579 nodes; every stepd refused the step for it before expanding the list (rc $rc)" || show

done_testing
