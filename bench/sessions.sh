#!/usr/bin/env bash
# bench/sessions.sh [--trials N] [--out FILE] - MPI_Comm_create_from_group
# of Open MPI 5 (MPI-4 Sessions) under srun --mpi=pmixev against the same
# under mpirun (Open MPI's own runtime, PRRTE), on the same nodes in the
# same allocation.
#
# On its own test cluster (PMIXEV_BENCH_CLUSTER_ID, default 9), one
# `salloc -N3 --exclusive` and in it N trials (default 5) of each, taking
# turns (the first of the pair alternates):
#   srun --mpi=pmixev -N3 -n24 mpi_sessions --bench 200
#   mpirun -n 24 --map-by ppr:8:node --bind-to none mpi_sessions --bench 200
# mpirun finds the allocation from Slurm's variables and starts its
# daemons with srun in it, 8 ranks a node like srun's block layout. Both
# with the settings of the integration test 43-mpi-sessions.t
# (ompi_step_env and OMPI_MCA_pml=ob1). mpi_sessions
# (tests/clients/mpi_sessions.c) builds 200 communicators from the group
# of mpi://WORLD, each with its own tag, and frees each; rank 0 prints the
# median and p90 of the creates. The table gives the median over the
# trials of both, and pmixev / mpirun. Stock srun --mpi=pmix cannot build
# such a communicator (MPI_ERR_UNSUPPORTED_OPERATION); one attempt of it
# is made for the record.
#
# Open MPI 4.1 (Debian 12, Slurm 22.05) has no Sessions: there this says
# so and exits 0; run it as scripts/newer-slurm.sh --bench sessions.sh.
set -euo pipefail

bin=${PMIXEV_BUILDDIR:-$(cd "$(dirname "$0")/.." && pwd)/build}/tests/clients/mpi_sessions
if [ ! -x "$bin" ]; then
	echo "$0: skipped: $bin was not built (configure found no mpicc)" >&2
	exit 0
fi
if ! "$bin" --have-sessions 2>/dev/null; then
	echo "$0: skipped: no MPI-4 Sessions here ($(mpirun --version 2>/dev/null | head -n1 ||
		echo 'no Open MPI')); Debian 12's Open MPI 4.1 has none: run it as scripts/newer-slurm.sh --bench sessions.sh" >&2
	exit 0
fi

TRIALS=5 BENCH_CLUSTER=9
# shellcheck source=bench/trials.sh
. "$(dirname "$0")/trials.sh"
# shellcheck disable=SC1091
. "$SRC/tests/integration/lib.sh"
ses=$(client mpi_sessions)
ompi_step_env
step_env+=(OMPI_MCA_pml=ob1)
ROUNDS=200 NODES=3 RANKS=24

# median of the numbers on stdin
median() { sort -n | awk '{ v[++k] = $1 } END { if (k) print v[int((k + 1) / 2)] }'; }

# One allocation; in it the trials, each launch's output reduced to one
# line "LAUNCH TRIAL: RESULT" (rank 0's bench line, or FAILED and the
# first error). The user's commands run on this machine, outside the
# nodes, as salloc's do.
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# shellcheck disable=SC2016 # expanded by the inner bash
trial_lines=$(PMIXEV_TEST_TIMEOUT=3000 with_env "${step_env[@]}" -- \
	salloc -N"$NODES" --exclusive -t 50 -J pmixev-sessions bash -c '
	ses=$1 trials=$2 rounds=$3 nodes=$4 ranks=$5
	launch() { # LAUNCH TRIAL
		local out rc
		if [ "$1" = srun ]; then
			out=$(timeout 600 srun --mpi=pmixev -N"$nodes" -n"$ranks" \
				"$ses" --bench "$rounds" 2>&1)
		else
			out=$(timeout 600 mpirun -n "$ranks" \
				--map-by "ppr:$((ranks / nodes)):node" --bind-to none \
				"$ses" --bench "$rounds" 2>&1)
		fi
		rc=$?
		line=$(printf "%s\n" "$out" | grep -m1 ": rank 0 of $ranks on .*: bench $rounds: median ")
		if [ "$rc" -eq 0 ] && [ -n "$line" ]; then
			echo "$1 $2: ${line#*: bench $rounds: } on $(printf "%s\n" "$out" |
				sed -n "s/^mpi_sessions: rank [0-9]* of $ranks on \([^:]*\): psets .*/\1/p" |
				sort | uniq -c | awk "{ printf \"%s%s x%s\", s, \$2, \$1; s = \",\" }")"
		else
			echo "$1 $2: FAILED (exit $rc): $(printf "%s\n" "$out" |
				grep -m1 -iE "error|fail|abort|unsupported" || printf "%s\n" "$out" | tail -n1)"
		fi
	}
	for ((i = 1; i <= trials; i++)); do
		if ((i % 2)); then order="srun mpirun"; else order="mpirun srun"; fi
		for l in $order; do
			launch "$l" "$i"
		done
	done
	# Stock mpi/pmix, once, for the record.
	out=$(timeout 120 srun --mpi=pmix -N"$nodes" -n"$ranks" "$ses" --bench "$rounds" 2>&1)
	echo "stock 1: $(printf "%s\n" "$out" | grep -c "world sum .* ok") of $ranks ranks built a communicator; $(
		printf "%s\n" "$out" | grep -o -m1 "MPI_ERR_[A-Z_]*" || echo "no MPI error class printed")"
	' _ "$ses" "$TRIALS" "$ROUNDS" "$NODES" "$RANKS" 2>&1 |
	while IFS= read -r l; do
		printf '%s: %s\n' "$0" "$l" >&2
		[[ ! $l =~ ^(srun|mpirun|stock)\ [0-9]+:\  ]] || printf '%s\n' "$l"
	done)

# field LAUNCH WHAT: the median of WHAT (median, p90, min) over LAUNCH's
# successful trials
field() {
	sed -En "s/^$1 [0-9]+:.* $2 ([0-9]+) us.*/\\1/p" <<<"$trial_lines" | median
}
trials_ok() { grep -Ec "^$1 [0-9]+: median " <<<"$trial_lines" || true; }
sm=$(field srun median) sp=$(field srun p90) sn=$(field srun min)
mm=$(field mpirun median) mp=$(field mpirun p90) mn=$(field mpirun min)
layouts=$(sed -n 's/^[a-z]* [0-9]*: median .* on //p' <<<"$trial_lines" | sort -u | paste -sd';')
ratio=$(awk -v a="${sm:-0}" -v b="${mm:-0}" 'BEGIN { if (a && b) printf "%.2f", a / b; else print "-" }')
srun_ok=$(trials_ok srun) mpirun_ok=$(trials_ok mpirun)
# The machine's load moves a trial by tens of percent: the two launches of
# one trial, back to back, compare best. Per trial where both succeeded,
# srun's median / mpirun's; their median, and how often srun was faster.
pairs=$(sed -En 's/^(srun|mpirun) ([0-9]+): median ([0-9]+) us.*/\2 \1 \3/p' <<<"$trial_lines" |
	awk '{ v[$1, $2] = $3; t[$1] = 1 }
		END { for (i in t) if (v[i, "srun"] && v[i, "mpirun"]) printf "%.3f\n", v[i, "srun"] / v[i, "mpirun"] }')
pair_ratio=$(printf '%s\n' "$pairs" | median | awk '{ printf "%.2f", $1 }')
pair_n=$(printf '%s\n' "$pairs" | grep -c . || true)
pair_faster=$(printf '%s\n' "$pairs" | awk '$1 < 1' | grep -c . || true)
stock=$(sed -n 's/^stock 1: //p' <<<"$trial_lines")
{
	echo "# MPI_Comm_create_from_group: srun --mpi=pmixev against mpirun ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $load0 before and $(cut -d' ' -f1-3 /proc/loadavg) after, $(srun --version), $(mpirun --version 2>/dev/null | head -n1))"
	echo
	echo "| launch (-N$NODES -n$RANKS, $ROUNDS creates a trial) | trials ok | create median µs | create p90 µs | fastest create µs | pmixev / mpirun: medians | same trial (pmixev faster) |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	echo "| srun --mpi=pmixev | $srun_ok/$TRIALS | ${sm:-FAIL} | ${sp:-FAIL} | ${sn:-FAIL} | $ratio | ${pair_ratio:--} ($pair_faster of $pair_n) |"
	echo "| mpirun (PRRTE) | $mpirun_ok/$TRIALS | ${mm:-FAIL} | ${mp:-FAIL} | ${mn:-FAIL} | | |"
	echo "| srun --mpi=pmix (stock) | no communicator | | | | | |"
	echo
	echo "Medians over the trials of rank 0's figures per trial; \"same trial\":"
	echo "the median of srun / mpirun within each trial. The launches take"
	echo "turns in one allocation (ranks per node: ${layouts:-none})."
	echo "Stock mpi/pmix has no PMIx group support, so Open MPI refuses the"
	echo "communicator (MPI_ERR_UNSUPPORTED_OPERATION); in this run: ${stock:-not run}."
	echo "Settings: ${step_env[*]}"
} | tee ${OUT:+"$OUT"}
[ "$srun_ok" -gt 0 ] && [ "$mpirun_ok" -gt 0 ]
