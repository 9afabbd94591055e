#!/usr/bin/env bash
# bench/spawn.sh [--trials N] [--out FILE] - PMIx_Spawn of 4 processes
# from rank 0 of a 3-node step, under srun --mpi=pmixev against the same
# under mpirun (Open MPI's own runtime: ORTE in 4.1, PRRTE in 5), on the
# same nodes in the same allocation.
#
# On its own test cluster (PMIXEV_BENCH_CLUSTER_ID, default 9), one
# `salloc -N3 --ntasks-per-node=4` and in it N trials (default 7) of each,
# taking turns (the first of the pair alternates):
#   srun --mpi=pmixev --exact -N3 -n3 pmix_spawn --n 4 -- pmix_spawn
#   mpirun -n 3 --map-by node --bind-to none pmix_spawn --n 4 --cmd pmix_spawn
# (no binding: mpirun's children are bound and mapped as their parent, and
# the test cluster's nodes share this machine's cores)
# pmix_spawn (tests/clients/pmix_spawn.c) times PMIx_Spawn on rank 0:
# from the call to the answer, which pmixev gives once every child has
# connected to its PMIx server (a new Slurm step: srun's step creation,
# the stepds' start, the children's PMIx_Init). The launch's wall time
# (salloc's shell starting srun or mpirun until it exits) is given too.
# Stock srun --mpi=pmix refuses PMIx_Spawn; one attempt is made for the
# record.
# Then MPI_Comm_spawn (tests/clients/mpi_spawn.c --bench N): N spawns of 4
# in a row from all 3 ranks, each timed on rank 0 from the call to the
# first message round trip with a child, under both launchers:
#   mpirun -n 3 --map-by node --bind-to none mpi_spawn --n 4 --bench N
#   srun --mpi=pmixev --exact -N3 -n3 mpi_spawn --n 4 --bench N
# When the N in a row fail, N launches of one spawn each are timed
# instead, over those that worked, and the row says how many worked and
# why the N in a row failed (Open MPI 5.0.7's PRRTE fails spawns in a row
# in one mpirun here: MPI_ERR_UNKNOWN after "A request was made to bind
# that would require binding processes to more cpus than are available",
# or a lost prted); "fails: ..." when none did. Both launchers' rows have
# worked since pmixev serves connect and data across steps (doc/spawn.md
# §1.5).
set -euo pipefail

TRIALS=7 BENCH_CLUSTER=9
# shellcheck source=bench/trials.sh
. "$(dirname "$0")/trials.sh"
# shellcheck disable=SC1091
. "$SRC/tests/integration/lib.sh"
sp=$(client pmix_spawn)
ms=-
[ ! -x "$PMIXEV_TEST_CLIENTS/mpi_spawn" ] || ms=$(client mpi_spawn)
ompi_step_env

median() { sort -n | awk '{ v[++k] = $1 } END { if (k) print v[int((k + 1) / 2)] }'; }

load0=$(cut -d' ' -f1-3 /proc/loadavg)
# shellcheck disable=SC2016 # expanded by the inner bash
trial_lines=$(PMIXEV_TEST_TIMEOUT=1800 with_env "${step_env[@]}" -- \
	salloc -N3 --ntasks-per-node=4 -t 30 -J pmixev-spawn bash -c '
	sp=$1 trials=$2 ms=$3
	launch() { # LAUNCH TRIAL
		local out rc t0 ms line
		t0=$(date +%s%N)
		if [ "$1" = srun ]; then
			out=$(timeout 120 srun --mpi=pmixev --exact -N3 -n3 \
				"$sp" --n 4 -- "$sp" 2>&1)
		else
			out=$(timeout 120 mpirun -n 3 --map-by node --bind-to none \
				"$sp" --n 4 --cmd "$sp" 2>&1)
		fi
		rc=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		line=$(printf "%s\n" "$out" | grep -m1 "^pmix_spawn: rank 0: spawned ")
		kids=$(printf "%s\n" "$out" | grep -c "^pmix_spawn: child rank .* spawned=1")
		if [ "$rc" -eq 0 ] && [ -n "$line" ]; then
			echo "$1 $2: spawn ${line##* in } launch $ms ms knew $kids"
		else
			echo "$1 $2: FAILED (exit $rc, $kids children): $(printf "%s\n" "$out" |
				grep -m1 -iE "error|fail|abort" || printf "%s\n" "$out" | tail -n1)"
		fi
	}
	for ((i = 1; i <= trials; i++)); do
		if ((i % 2)); then order="srun mpirun"; else order="mpirun srun"; fi
		for l in $order; do
			launch "$l" "$i"
		done
	done
	out=$(timeout 120 srun --mpi=pmix --exact -N3 -n3 "$sp" --n 4 -- "$sp" 2>&1)
	echo "stock 1: $(printf "%s\n" "$out" | grep -m1 "^pmix_spawn: rank 0: " || echo "no answer")"
	[ "$ms" != - ] || exit 0
	comm_once() { # LAUNCH K: mpi_spawn --bench K under LAUNCH, its output
		if [ "$1" = srun ]; then
			SLURM_PMIXEV_TIMEOUT=5 timeout 120 srun --mpi=pmixev --exact \
				-N3 -n3 "$ms" --n 4 --bench "$2" --timeout 10 2>&1
		else
			timeout 600 mpirun -n 3 --map-by node --bind-to none \
				"$ms" --n 4 --bench "$2" --timeout 120 2>&1
		fi | tr -d "\000"
	}
	why() { # OUTPUT: where rank 0 waited or what failed first
		{ grep -m1 "^mpi_spawn: parent rank 0: " <<<"$1" ||
			grep -m1 -E "timed out|FAILED|error" <<<"$1"; } | sed "s/^mpi_spawn: //"
	}
	# LAUNCH: rank 0 bench line, else one spawn per launch (PRRTE fails
	# spawns in a row), else "fails: " and why
	comm_spawn() {
		local out line v all="" i
		out=$(comm_once "$1" "$trials")
		if line=$(grep -m1 "^mpi_spawn: bench " <<<"$out"); then
			echo "comm_spawn $1: $line"
			return
		fi
		local first_why
		first_why=$(why "$out")
		for ((i = 1; i <= trials; i++)); do
			v=$(comm_once "$1" 1 | sed -n "s/^mpi_spawn: bench 1 spawns of 4: median \([0-9]*\) ms.*/\1/p")
			[ -z "$v" ] || all+="$v "
		done
		all=$(tr " " "\n" <<<"$all" | sed "/^$/d" | sort -n)
		if [ -z "$all" ]; then
			echo "comm_spawn $1: fails: $first_why"
			return
		fi
		i=$(wc -l <<<"$all")
		echo "comm_spawn $1: median $(sed -n "$(((i + 1) / 2))p" <<<"$all") ms" \
			"min $(head -n1 <<<"$all") ms max $(tail -n1 <<<"$all") ms," \
			"one spawn per launch, $i of $trials launches ok; $trials in a row failed: $first_why"
	}
	comm_spawn mpirun
	comm_spawn srun
	' _ "$sp" "$TRIALS" "$ms" 2>&1 |
	while IFS= read -r l; do
		printf '%s: %s\n' "$0" "$l" >&2
		[[ ! $l =~ ^(srun|mpirun|stock|comm_spawn)\ [0-9a-z]+:\  ]] || printf '%s\n' "$l"
	done)

# field LAUNCH WHAT: the median of WHAT (spawn, launch) over LAUNCH's
# successful trials
field() {
	sed -En "s/^$1 [0-9]+: .*$2 ([0-9]+) ms.*/\\1/p" <<<"$trial_lines" | median
}
low() {
	sed -En "s/^$1 [0-9]+: .*$2 ([0-9]+) ms.*/\\1/p" <<<"$trial_lines" | sort -n | head -n1
}
trials_ok() { grep -Ec "^$1 [0-9]+: spawn " <<<"$trial_lines" || true; }
# how many children knew their parent (PMIX_PARENT_ID), the least of a trial
knew() { sed -En "s/^$1 [0-9]+: .* knew ([0-9]+)$/\1/p" <<<"$trial_lines" | sort -n | head -n1; }
ss=$(field srun spawn) sl=$(field srun launch) sn=$(low srun spawn)
ms=$(field mpirun spawn) ml=$(field mpirun launch) mn=$(low mpirun spawn)
ratio=$(awk -v a="${sl:-0}" -v b="${ml:-0}" 'BEGIN { if (a && b) printf "%.2f", a / b; else print "-" }')
stock=$(sed -n 's/^stock 1: //p' <<<"$trial_lines")
{
	echo "# PMIx_Spawn of 4 processes: srun --mpi=pmixev against mpirun ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $load0 before and $(cut -d' ' -f1-3 /proc/loadavg) after, $(srun --version), $(mpirun --version 2>/dev/null | head -n1))"
	echo
	echo "| launch (3 ranks on 3 nodes; rank 0 spawns 4) | trials ok | PMIx_Spawn median ms | fastest ms | whole launch median ms | children that knew their parent | pmixev / mpirun (launch medians) |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	echo "| srun --mpi=pmixev | $(trials_ok srun)/$TRIALS | ${ss:-FAIL} | ${sn:-FAIL} | ${sl:-FAIL} | $(knew srun)/4 | $ratio |"
	echo "| mpirun | $(trials_ok mpirun)/$TRIALS | ${ms:-FAIL} | ${mn:-FAIL} | ${ml:-FAIL} | $(knew mpirun)/4 | |"
	echo "| srun --mpi=pmix (stock) | ${stock:-not run} | | | | | |"
	echo
	echo "PMIx_Spawn: rank 0's time from the call to the answer. pmixev"
	echo "answers when every child has connected to its PMIx server; a runtime"
	echo "that answers at launch is faster there, so the whole launch (all"
	echo "processes started, finished and reaped) is the figure to compare."
	echo
	echo "| MPI_Comm_spawn of 4 from 3 ranks, $TRIALS in a row (call to the first round trip) | median ms | fastest ms | slowest ms |"
	echo "|---|---:|---:|---:|"
	for l in srun mpirun; do
		r=$(sed -n "s/^comm_spawn $l: //p" <<<"$trial_lines")
		name=$([ "$l" = srun ] && echo "srun --mpi=pmixev" || echo mpirun)
		if [[ $r =~ median\ ([0-9]+)\ ms\ min\ ([0-9]+)\ ms\ max\ ([0-9]+)\ ms(,\ (.*))? ]]; then
			echo "| $name${BASH_REMATCH[5]:+ (${BASH_REMATCH[5]})} | ${BASH_REMATCH[1]} | ${BASH_REMATCH[2]} | ${BASH_REMATCH[3]} |"
		else
			echo "| $name | ${r:-not run (no mpi_spawn: configure found no mpicc)} | | |"
		fi
	done
} | tee ${OUT:+"$OUT"}
[ "$(trials_ok srun)" -gt 0 ]
