#!/usr/bin/env bash
# PMIx_Spawn (issue 29, doc/spawn.md): a rank starts new processes as a
# new step of its job, launched by its srun as the job owner; it gets the
# new namespace once every child registered, and each child knows its
# parent. pmixev-exec runs the applications of a spawn of several.
. "$(dirname "$0")/lib.sh"
plan 24

exe=$PMIXEV_CLUSTER_PROGRAMS/pmixev-exec
apps=$("$PMIXEV_TEST_CLIENTS/spawn_apps" \
	'1|/tmp|FOO=first|/bin/sh|-c|echo "app0 rank $SLURM_PROCID $FOO $PWD"' \
	'3|/|FOO=second|sh|-c|echo "app1 rank $SLURM_PROCID $FOO $PWD ${SLURM_PMIXEV_SPAWN_APPS:-clean}"')

# Rank 0 runs the first application, ranks 1-3 the second (found in PATH),
# each in its directory with its environment, without the variable.
step_env=(SLURM_PMIXEV_SPAWN_APPS="$apps")
run_step --mpi=pmixev -N3 -n4 -t 1 "$exe"
step_env=()
[ "$rc" -eq 0 ] &&
	[ "$(lines '^app0 rank 0 first /tmp$')" -eq 1 ] &&
	[ "$(lines '^app1 rank [123] second / clean$')" -eq 3 ] &&
	[ "$(printf '%s\n' "$out" | grep -E '^app1 rank [123]' | sort -u | wc -l)" -eq 3 ]
ok $? "pmixev-exec runs each rank's application: rank 0 the first, ranks 1-3 the second, each with its environment and directory" ||
	show

# One rank more than the applications hold, and a directory that is not
# there: each rank says why and exits 127; the others run.
apps=$("$PMIXEV_TEST_CLIENTS/spawn_apps" '1|/nonexistent|-|/bin/true' \
	'1|/|-|/bin/echo|fine')
step_env=(SLURM_PMIXEV_SPAWN_APPS="$apps")
run_step --mpi=pmixev -K0 -N3 -n3 -t 1 "$exe"
step_env=()
[ "$(lines '^pmixev-exec: rank 0: cannot change to the working directory /nonexistent: No such file or directory$')" -eq 1 ] &&
	[ "$(lines '^pmixev-exec: rank 2: no application for this rank: the applications hold fewer processes than the step$')" -eq 1 ] &&
	[ "$(lines '^fine$')" -eq 1 ] &&
	[ "$(lines 'srun: error: .*tasks? (0|2): Exited with exit code 127')" -ge 1 ]
ok $? "pmixev-exec refuses a missing directory and a rank beyond the applications, saying why (exit 127)" ||
	show

# The spawns: one allocation of 4 CPUs per node, each parent step on one
# CPU per node (--exact), so that a child step has room. Each step's
# output goes to its own file.
sp=$(client pmix_spawn)
work=$PMIXEV_CLUSTER_WORKDIR
rm -f "$work"/44-*.out
# shellcheck disable=SC2016 # expanded by the job's shell
out=$(as_user salloc -N3 --ntasks-per-node=4 -t 2 bash -c '
	sp=$0 w=$1
	run() { local f=$1; shift; srun --exact -N3 -n3 "$@" >"$w/44-$f.out" 2>&1; echo "rc $?" >>"$w/44-$f.out"; }
	echo "job $SLURM_JOB_ID"
	t0=$(date +%s%N)
	run four --mpi=pmixev $sp --info --n 4 --env FOO=bar -- $sp --env FOO --cwd --info
	echo "four $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	run host --mpi=pmixev $sp --n 2 --host n3 -- $sp
	run apps --mpi=pmixev $sp --n 2 --apps 2 -- $sp
	t0=$(date +%s%N)
	run nofit --mpi=pmixev $sp --n 200 -- $sp
	echo "nofit $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	run noexe --mpi=pmixev $sp --n 2 --fail-cmd -- $sp
	run stock --mpi=pmix $sp --n 2 -- $sp
	run die --mpi=pmixev $sp --watch 4 --n 4 -- $sp --die 1
	run from2 --mpi=pmixev $sp --from 2 --watch 2 --n 2 -- $sp
	run nonpmi --mpi=pmixev $sp --non-pmi --watch 2 --n 2 --host n2,n3 -- /bin/sh -c "echo \"nonpmi child \$SLURM_PROCID of \$SLURM_NTASKS on \$(hostname), \$(env | grep -c ^SLURM_PMIXEV_SPAWN_) spawn variables\""
	run tool --mpi=pmixev $sp --tool --watch 2 --n 2 --host n2,n3 -- /bin/sh -c "pps 2>&1; r=\$?; echo \"tool \$SLURM_PROCID on \$(hostname): pps exit \$r\""
	run xpub --mpi=pmixev $2 --host n2,n3
	run xevent --mpi=pmixev $3 --host n2,n3
' "$sp" "$work" "$(client pmix_xpub)" "$(client pmix_xevent)" 2>&1)
job=$(printf '%s\n' "$out" | sed -n 's/^job \([0-9]*\)$/\1/p')
diag "job ${job:-?}: $(printf '%s\n' "$out" | grep -E '^(four|nofit) ' | tr '\n' ' ')"
f() { cat "$work/44-$1.out" 2>/dev/null; }
in_f() { f "$1" | grep -Ec -- "$2"; }

# Four children of rank 0 of a 3-node step: a new step of the job, every
# child told its parent, the app's environment and directory, all exit 0.
child="^pmix_spawn: child rank [0-3] of slurm\.pmixev\.$job\.1 on n[1-3]: parent slurm\.pmixev\.$job\.0 rank 0 spawned=1"
[ -n "$job" ] && [ "$(in_f four "^pmix_spawn: rank 0: spawned slurm\.pmixev\.$job\.1 in [0-9]+ ms$")" -eq 1 ] &&
	[ "$(in_f four "$child env FOO=bar cwd $work$")" -eq 4 ] &&
	[ "$(f four | grep -E "$child" | sed 's/.* on \(n[1-3]\):.*/\1/' | sort -u | wc -l)" -ge 2 ] &&
	[ "$(in_f four '^rc 0$')" -eq 1 ]
ok $? "rank 0 spawns 4 processes: step $job.1, each child knows its parent (PMIX_PARENT_ID, PMIX_SPAWNED) and gets the app's environment and directory; all exit 0" ||
	{ f four; show; }
grep -Eq "spawn: step $job\.0 rank 0: slurm\.pmixev\.$job\.1 is up" "$(slurmd_log n1)"
ok $? "n1's slurmd log says the spawn's child namespace is up" || tail -n 20 "$(slurmd_log n1)"

# Every node of the parent step has the child's namespace when the spawner
# returns (srun answers once every parent node registered it): the spawner
# (its answer carries the job data), and ranks 1 and 2 on n2 and n3, whose
# PMIx_Get right after a fence with the spawner neither waits nor retries.
known=" job size 4 spawned 1 parent slurm\.pmixev\.$job\.0 rank 0$"
[ "$(in_f four "^pmix_spawn: rank 0 on n1: slurm\.pmixev\.$job\.1$known")" -eq 1 ] &&
	[ "$(in_f four "^pmix_spawn: rank 1 on n2: slurm\.pmixev\.$job\.1$known")" -eq 1 ] &&
	[ "$(in_f four "^pmix_spawn: rank 2 on n3: slurm\.pmixev\.$job\.1$known")" -eq 1 ]
ok $? "every parent rank (n1-n3) gets the child namespace's PMIX_JOB_SIZE 4, PMIX_SPAWNED and PMIX_PARENT_ID at once after the spawn" ||
	{ f four | grep -E 'job size|child namespace|fence'; }
[ "$(in_f four "^pmix_spawn: child rank [0-3]: parent slurm\.pmixev\.$job\.0 job size 3$")" -eq 4 ]
ok $? "every child gets its parent namespace's PMIX_JOB_SIZE 3" ||
	{ f four | grep -E 'job size'; }

[ "$(in_f host "^pmix_spawn: child rank [01] of slurm\.pmixev\.$job\.[0-9]+ on n3: parent slurm\.pmixev\.$job\.[0-9]+ rank 0 spawned=1")" -eq 2 ] &&
	[ "$(in_f host '^rc 0$')" -eq 1 ]
ok $? "PMIX_HOST n3: both children run on n3" || f host

# Two applications of 2 processes each: one step of 4 through pmixev-exec.
[ "$(in_f apps "^pmix_spawn: rank 0: spawned slurm\.pmixev\.$job\.[0-9]+ in")" -eq 1 ] &&
	[ "$(in_f apps "^pmix_spawn: child rank [0-3] of slurm\.pmixev\.$job\.[0-9]+ on n[1-3]: parent slurm\.pmixev\.$job\.[0-9]+ rank 0 spawned=1")" -eq 4 ] &&
	[ "$(in_f apps '^rc 0$')" -eq 1 ] && [ "$(in_f apps '^srun: error:')" -eq 0 ]
ok $? "two applications of 2 processes: one child step of 4, each child knows its parent; no error though the parent ends first" || f apps

# 200 processes do not fit in the job's 12 CPUs: Slurm says so at once,
# the spawn fails with its reason and the parent goes on.
nofit=$(printf '%s\n' "$out" | sed -n 's/^nofit \([0-9]*\) ms$/\1/p')
[ "$(in_f nofit '^pmix_spawn: rank 0: spawn failed: (OUT-OF-RESOURCE|PMIX_ERR_OUT_OF_RESOURCE)$')" -eq 1 ] &&
	[ "$(in_f nofit 'error: Unable to create step for job [0-9]+: More processors requested than permitted')" -ge 1 ] &&
	[ "$(in_f nofit '^rc 0$')" -eq 1 ] && [ "${nofit:-99999}" -lt 15000 ] &&
	grep -Eq "spawn: step $job\.[0-9]+ rank 0: failed \(PMIx status -29\): srun: error: Unable to create step" "$(slurmd_log n1)"
ok $? "a spawn that cannot fit fails in ${nofit:-?} ms with Slurm's reason (PMIX_ERR_OUT_OF_RESOURCE), the parent goes on" ||
	{ f nofit; grep -E "spawn" "$(slurmd_log n1)" | tail -n 5; }

# A program that does not exist: the children end before they register.
[ "$(in_f noexe '^pmix_spawn: rank 0: spawn failed: (JOB FAILED TO LAUNCH|PMIX_ERR_JOB_FAILED_TO_LAUNCH)$')" -eq 1 ] &&
	[ "$(in_f noexe 'execve\(\).*No such file or directory')" -ge 1 ] &&
	[ "$(in_f noexe 'step [0-9.]+ failed to start: (child rank [01]: it ended before it connected to the PMIx server|node [01] of step [0-9.]+ left before its ranks registered)')" -eq 1 ]
ok $? "a spawn of a program that does not exist fails (PMIX_ERR_JOB_FAILED_TO_LAUNCH), srun saying which child (or its node) ended first" ||
	f noexe

# Slurm's stock mpi/pmix has no spawn (where that Slurm has a working
# mpi/pmix: Debian testing's 26.05 cannot load its own).
if [ "$(in_f stock "Invalid MPI type 'pmix'")" -ge 1 ]; then
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n # SKIP this Slurm's stock mpi/pmix does not load"
else
	[ "$(in_f stock '^pmix_spawn: rank 0: spawn failed: (NOT-SUPPORTED|PMIX_ERR_NOT_SUPPORTED)$')" -eq 1 ]
	ok $? "stock --mpi=pmix refuses the same spawn (not supported)" || f stock
fi

# Child rank 1 is killed: the spawner (rank 0 alone) hears of each child's
# end, from the child process, that of rank 1 as a kill by signal 9.
ev="^pmix_spawn: rank 0: event [A-Z_ -]+ from slurm\.pmixev\.$job\.[0-9]+ rank [0-3] exit -?[0-9]+$"
[ "$(in_f die "^pmix_spawn: rank 0: event (PROC-ABORTED-BY-SIG|PMIX_ERR_PROC_ABORTED_BY_SIG) from slurm\.pmixev\.$job\.[0-9]+ rank 1 exit 9$")" -eq 1 ] &&
	[ "$(in_f die "$ev")" -eq 4 ] &&
	[ "$(f die | grep -E "$ev" | sed 's/.* rank \([0-3]\) exit.*/\1/' | sort -u | wc -l)" -eq 4 ]
ok $? "a killed child is an event for its spawner: each child's end once, rank 1's as killed by signal 9" || f die
[ "$(in_f die '^pmix_spawn: rank [12]: event')" -eq 0 ]
ok $? "the other ranks of the parent step are not told of the children's ends" || f die

# Rank 2, on n3, spawns: its node's root asks srun, and gets the answer.
[ "$(in_f from2 "^pmix_spawn: rank 2: spawned slurm\.pmixev\.$job\.[0-9]+ in [0-9]+ ms$")" -eq 1 ] &&
	[ "$(in_f from2 "^pmix_spawn: child rank [01] of slurm\.pmixev\.$job\.[0-9]+ on n[1-3]: parent slurm\.pmixev\.$job\.[0-9]+ rank 2 spawned=1$")" -eq 2 ] &&
	[ "$(in_f from2 "^pmix_spawn: rank 2: event [A-Z_ -]+ from slurm\.pmixev\.$job\.[0-9]+ rank [01] exit 0$")" -eq 2 ] &&
	[ "$(in_f from2 '^rc 0$')" -eq 1 ]
ok $? "rank 2 on n3 spawns 2: the children know rank 2 as their parent, their ends reach it" || f from2

# PMIX_NON_PMI: a program that never calls PMIx_Init (a shell) is up
# once launched; its ends reach the spawner.
[ "$(in_f nonpmi "^pmix_spawn: rank 0: spawned slurm\.pmixev\.$job\.[0-9]+ in [0-9]+ ms$")" -eq 1 ] &&
	[ "$(in_f nonpmi '^nonpmi child [01] of 2 on n[23], 0 spawn variables$')" -eq 2 ] &&
	[ "$(in_f nonpmi "^pmix_spawn: rank 0: event [A-Z_ -]+ from slurm\.pmixev\.$job\.[0-9]+ rank [01] exit 0$")" -eq 2 ] &&
	[ "$(in_f nonpmi '^rc 0$')" -eq 1 ]
ok $? "PMIX_NON_PMI: 2 shells that never call PMIx_Init are spawned on n2, n3 and answered at launch, without pmixev's spawn variables; their ends reach the spawner" ||
	f nonpmi

# PMIX_SPAWN_TOOL: Debian's pps, spawned on n2 and n3, attaches as a tool
# to the spawner's step's server on its node (not to its own step's).
tp=$(f tool | sed -n 's/^pmix_spawn: rank 0: tools of \(slurm\.pmixev\.[0-9.]*\)$/\1/p')
[ -n "$tp" ] && [ "$(in_f tool "^pmix_spawn: rank 0: spawned slurm\.pmixev\.$job\.[0-9]+ in [0-9]+ ms$")" -eq 1 ] &&
	[ "$(in_f tool "Active nspaces: .*${tp//./\\.}")" -eq 2 ] &&
	[ "$(in_f tool '^tool [01] on n[23]: pps exit 0$')" -eq 2 ] &&
	[ "$(in_f tool "^pmix_spawn: rank 0: event [A-Z_ -]+ from slurm\.pmixev\.$job\.[0-9]+ rank [01] exit 0$")" -eq 2 ] &&
	[ "$(in_f tool '^rc 0$')" -eq 1 ]
ok $? "PMIX_SPAWN_TOOL: pps spawned on n2 and n3 lists the spawner's namespace ${tp:-?} (a tool of its step's server there), exits 0, and its ends reach the spawner" ||
	f tool

# Publish/lookup across the family (doc/spawn.md §5.3): the parent's
# rank 0 (n1) waits for a key its children (n2, n3) publish, started
# before they exist; a child looks up (PMIX_WAIT) the parent's keys in the
# family root's directory, each with its publisher's namespace.
ps="slurm\.pmixev\.$job\.[0-9]+"
[ "$(in_f xpub "^pmix_xpub: parent got xpub\.child=hello-child from $ps rank 1 child=1$")" -eq 1 ] &&
	[ "$(in_f xpub '^rc 0$')" -eq 1 ]
ok $? "the parent's PMIX_WAIT lookup, started before the spawn, gets the key a child publishes, with the child's namespace and rank" ||
	f xpub
[ "$(in_f xpub "^pmix_xpub: child rank 0 got xpub\.parent=hello-parent from $ps rank 0 parent=1$")" -eq 1 ]
ok $? "a child on another node looks up (PMIX_WAIT) the parent's key, with the parent's namespace" || f xpub
[ "$(in_f xpub "^pmix_xpub: child rank 0 got xpub\.once=once from $ps rank 0 parent=1$")" -eq 1 ] &&
	[ "$(in_f xpub '^pmix_xpub: child rank 1 lookup of xpub\.once: (NOT-FOUND|PMIX_ERR_NOT_FOUND)$')" -eq 1 ]
ok $? "PMIX_PERSIST_FIRST_READ across steps: the first child lookup gets the parent's key, the next finds it gone" ||
	f xpub

# Clients' events across the family (doc/spawn.md §5.4): a child's
# SESSION-range event reaches every parent rank (n1-n3) with the child as
# source; the parent's reaches both children (n2, n3); a child's
# NAMESPACE-range event stays in its step.
[ "$(in_f xevent "^pmix_xevent: parent rank [0-2] got up from $ps rank 0$")" -eq 3 ] &&
	[ "$(in_f xevent "^pmix_xevent: child rank [01] got down from $ps rank 0 parent=1$")" -eq 2 ] &&
	[ "$(in_f xevent '^rc 0$')" -eq 1 ]
ok $? "a SESSION-range event crosses the family both ways: a child's reaches the 3 parent ranks, rank 0's the 2 children, each with its source" ||
	f xevent
[ "$(in_f xevent '^pmix_xevent: parent rank [0-2] got 0 namespace-range events$')" -eq 3 ]
ok $? "a child's NAMESPACE-range event does not reach the parent step" || f xevent
[ "$(in_f xevent "^pmix_xevent: parent rank 0 got job end of ($ps) \\(affected \\1 rank -1\\) status (PMIX_)?SUCCESS$")" -eq 1 ]
ok $? "PMIX_NOTIFY_COMPLETION: when both children ended, the spawner gets PMIX_EVENT_JOB_END for the child namespace, PMIX_JOB_TERM_STATUS success" ||
	f xevent

# PMIX_ALLOC_ID: a job of one node granted by PMIx_Allocation_request
# (NEW), then a spawn into it: the child is step 0 of the new job.
out=$(as_user salloc -N2 -t 3 srun --mpi=pmixev -N1 -n1 "$sp" --watch 1 --alloc-new --n 1 -- "$sp" 2>&1)
new=$(printf '%s\n' "$out" | sed -n 's/^pmix_spawn: rank 0: allocated \([0-9]*\)$/\1/p')
[ -n "$new" ] && [ "$(lines "^pmix_spawn: rank 0: spawned slurm\.pmixev\.$new\.0 in [0-9]+ ms$")" -eq 1 ] &&
	[ "$(lines "^pmix_spawn: child rank 0 of slurm\.pmixev\.$new\.0 on n[1-3]: parent slurm\.pmixev\.[0-9]+\.0 rank 0 spawned=1$")" -eq 1 ] &&
	[ "$(lines "^pmix_spawn: rank 0: event [A-Z_ -]+ from slurm\.pmixev\.$new\.0 rank 0 exit 0$")" -eq 1 ]
ok $? "NEW, then a spawn into job ${new:-?} (PMIX_ALLOC_ID): its step 0 runs the child, whose end reaches the spawner" || show

# Another user's job: Slurm refuses the step, the spawn says so.
# Its job must be running (not pending behind the jobs above ending) for
# Slurm to answer the step request with the permission check.
other=$(runuser -u "$PMIXEV_OTHER_USER" -- env "${sanitizer_env[@]}" sbatch --parsable -N1 -t 2 -o /dev/null --wrap "sleep 60")
for _ in $(seq 75); do
	[ -n "$(squeue -h -j "${other:-0}" -t R -o %i 2>/dev/null)" ] && break
	sleep 0.2
done
out=$(as_user salloc -N1 -t 2 srun --mpi=pmixev -N1 -n1 "$sp" --alloc-id "$other" --n 1 -- "$sp" 2>&1)
scancel "$other" 2>/dev/null
# (the next test wants every node free: both jobs gone, within 15 s)
for _ in $(seq 75); do
	[ -z "$(squeue -h -j "${new:-0},${other:-0}" -t PD,R,CG -o %i 2>/dev/null)" ] && break
	sleep 0.2
done
[ -n "$other" ] && [ "$(lines '^pmix_spawn: rank 0: spawn failed: (NO-PERMISSIONS|PMIX_ERR_NO_PERMISSIONS)$')" -eq 1 ] &&
	[ "$(lines "Unable to create step for job $other: Access/permission denied")" -ge 1 ]
ok $? "a spawn into another user's job ${other:-?} is refused (PMIX_ERR_NO_PERMISSIONS, Slurm's reason on srun's stderr)" || show
