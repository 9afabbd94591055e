#!/usr/bin/env bash
# PMIx_Process_monitor across the step (jobmgmt/monitor.h): the library's
# heartbeat and file alerts reach every other rank of the step on every node,
# once; the job's policy (--pmixev-monitor) kills the step or requeues the
# job as the owner; an alert a client raises itself applies no policy; a
# file the owner cannot see never alerts (the monitor stats as the owner);
# monitors Slurm does not offer are refused and logged.
. "$(dirname "$0")/lib.sh"
plan 9

mon=$(client pmix_monitor)
alert() { lines "^pmix_monitor: rank $1: 1 alert\(s\): PMIX_MONITOR_$2_ALERT from rank $3$"; }

# Two ranks per node: ranks 2 and 3 share n2 (the library tells rank 3),
# the others are on n1 and n3 (pmixev relays it).
run_step --mpi=pmixev -N3 --ntasks-per-node=2 -t 1 "$mon" heartbeat 2
n=0
for r in 0 1 3 4 5; do n=$((n + $(alert $r HEARTBEAT 2))); done
[ "$rc" -eq 0 ] && [ "$n" -eq 5 ] &&
	[ "$(lines "^pmix_monitor: rank 2: heartbeat: (PMIX_)?SUCCESS$")" -eq 1 ] &&
	[ "$(lines "FAILED")" -eq 0 ] &&
	grep -q "step $job\.0 on n2: monitor: rank 2: heartbeat alert, told to every process of the step" "$(slurmd_log n2)" &&
	grep -q "step $job\.0 on n2: serving .*PMIxevMonitorPolicy=notify" "$(slurmd_log n2)"
ok $? "rank 2 stops its heartbeat: the 5 other ranks on n1-n3 get PMIX_MONITOR_HEARTBEAT_ALERT once ($n), n2 logs it" || show

grep -q "step $job\.0 on n2: monitor: 1 heartbeat and 0 file alert(s) on this node (policy notify); 0 request(s) for other monitors refused" "$(slurmd_log n2)" &&
	! grep -q "step $job\.0 on n[13]: monitor: rank" "$(slurmd_log n1)" "$(slurmd_log n3)"
ok $? "policy notify: nothing more is done; only the rank's node acts on the alert" || show

start=$(date +%s)
run_step --mpi=pmixev --pmixev-monitor=kill -N3 -n3 -t 1 "$mon" heartbeat 1 --linger 60
took=$(($(date +%s) - start))
[ "$rc" -ne 0 ] && [ "$took" -lt 40 ] &&
	[ "$(lines "^pmix_monitor: rank 1: heartbeat: (PMIX_)?SUCCESS$")" -eq 1 ] &&
	grep -q "step $job\.0 on n2: monitor: applying policy kill" "$(slurmd_log n2)" &&
	grep -q "step $job\.0 on n2: monitor: policy kill carried out by slurmctld" "$(slurmd_log n2)"
ok $? "--pmixev-monitor=kill: the step that would linger 60 s is ended by slurmctld as the owner after ${took} s (srun exit $rc)" || show

# A batch job with policy requeue: Slurm requeues it (it would run again).
batch=$(as_user sbatch --parsable -N3 -t 2 -o /dev/null --requeue --wrap \
	"srun --mpi=pmixev --pmixev-monitor=requeue -n3 $mon heartbeat 1 --linger 60")
restarts=0
for _ in $(seq 300); do
	restarts=$(scontrol show job "$batch" 2>/dev/null | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')
	[ "${restarts:-0}" -ge 1 ] && break
	sleep 0.2
done
scancel "$batch"
[ "${restarts:-0}" -ge 1 ] &&
	grep -q "step $batch\.0 on n2: monitor: policy requeue carried out by slurmctld" "$(slurmd_log n2)"
ok $? "--pmixev-monitor=requeue: slurmctld requeues the batch job as the owner (Restarts=${restarts:-?})" || show
for _ in $(seq 100); do
	[ -z "$(squeue -h -j "$batch" -o %i 2>/dev/null)" ] && break
	sleep 0.2
done

run_step --mpi=pmixev --pmixev-monitor=kill -N3 -n3 -t 1 "$mon" raise 1
[ "$rc" -eq 0 ] && [ "$(alert 0 HEARTBEAT 1)" -eq 1 ] && [ "$(alert 2 HEARTBEAT 1)" -eq 1 ] &&
	! grep -q "step $job\.0 on n[1-3]: monitor: applying policy" "$(slurmd_log n1)" "$(slurmd_log n2)" "$(slurmd_log n3)"
ok $? "an alert rank 1 raises itself reaches ranks 0 and 2 once, and policy kill is not applied" || show

as_user bash -c ': >watched.txt'
run_step --mpi=pmixev -N3 -n3 -t 1 "$mon" file 1 "$PMIXEV_CLUSTER_WORKDIR/watched.txt"
[ "$rc" -eq 0 ] && [ "$(alert 0 FILE 1)" -eq 1 ] && [ "$(alert 2 FILE 1)" -eq 1 ] &&
	grep -q "step $job\.0 on n2: monitor: rank 1: file alert" "$(slurmd_log n2)"
ok $? "a file of the owner that stops growing: PMIX_MONITOR_FILE_ALERT reaches ranks 0 and 2" || show

# Root's file, unchanging, in a directory only root may enter: root would
# see it stall; the owner cannot see it at all.
secret=$PMIXEV_CLUSTER_DIR/secret
mkdir -p "$secret" && chmod 0700 "$secret" && echo "root only" >"$secret/file.txt"
run_step --mpi=pmixev -N3 -n3 -t 1 "$mon" file 1 "$secret/file.txt" --expect-none
[ "$rc" -eq 0 ] && [ "$(lines "^pmix_monitor: rank [02]: 0 alert\(s\)$")" -eq 2 ] &&
	! as_user cat "$secret/file.txt" 2>/dev/null
ok $? "a root-only file (in a 0700 root directory) never alerts: the library's monitor stats it as the owner" || show

# The library never hands such a request to the host (lib.sh: monitor-other).
defect=$(pmix_defect monitor-other)
run_step --mpi=pmixev -N1 -n1 -t 1 "$mon" other
nd=$(first_node)
[ "$rc" -eq 0 ] && [ "$(lines "^pmix_monitor: rank 0: other monitor: PMIX_ERR_NOT_SUPPORTED$")" -eq 1 ] &&
	grep -q "step $job\.0 on $nd: monitor: rank 0 asked for slurm.pmixev.test.monitor: refused, Slurm offers no such monitor" "$(slurmd_log "$nd")"
todo "$defect" $? "a monitor Slurm does not offer is refused with PMIX_ERR_NOT_SUPPORTED and logged" || show

out=$(as_user srun --mpi=pmixev --pmixev-monitor=stop -N1 -n1 true 2>&1)
rc=$?
[ "$rc" -ne 0 ] && [ "$(lines "invalid --pmixev-monitor=stop: expected one of notify kill requeue")" -eq 1 ]
ok $? "srun --pmixev-monitor=stop is refused at submission with the choices" || show

done_testing
