#!/usr/bin/env bash
# bench/groups.sh [--trials N] [--out FILE] - PMIx group construct and
# destruct across nodes against a fence over the same processes, in the
# same run (Slurm's stock mpi/pmix has no group support to compare with).
#
# On its own test cluster (PMIXEV_BENCH_CLUSTER_ID, default 3), N steps
# (default 3) of `pmix_group --bench 200` (tests/clients/pmix_group.c) for
# each shape: -N3 -n3 and -N3 -n24, plain, with a context id, and with a
# context id and PMIX_GROUP_INFO (what Open MPI 5 asks for every
# communicator it builds from a group). Each round is a data-less fence
# over all ranks, a fence collecting every rank's 64 bytes, a construct
# (which carries the same data) and a destruct; rank 0's medians per step,
# then the median over the steps, and the construct / data-fence ratio.
# OpenPMIx keeps every construct's group info for good (a destruct leaves
# it), and each later data fence and construct takes longer: that variant
# is measured over 20 rounds only.
set -euo pipefail

TRIALS=3 BENCH_CLUSTER=3
# shellcheck source=bench/trials.sh
. "$(dirname "$0")/trials.sh"
# shellcheck disable=SC1091
. "$SRC/tests/integration/lib.sh"
grp=$(client pmix_group)

# median of the numbers on stdin
median() { sort -n | awk '{ v[++k] = $1 } END { if (k) print v[int((k + 1) / 2)] }'; }

# field NAME LINE: the median of NAME ("fence", "data fence", ...) in LINE
field() { sed -En "s/.*(^|, |: )$1 median ([0-9]+) us.*/\\2/p" <<<"$2"; }

rows=''
for shape in "3 3 200" "3 24 200" "3 3 20" "3 24 20"; do
	# shellcheck disable=SC2086 # three words
	set -- $shape
	flagsets=("" "--ctxid")
	[ "$3" = 200 ] || flagsets=("--ctxid --info")
	for flags in "${flagsets[@]}"; do
		f='' df='' c='' d=''
		for ((i = 1; i <= TRIALS; i++)); do
			# shellcheck disable=SC2086 # the flags are words
			run_step --mpi=pmixev -N"$1" -n"$2" -t 3 "$grp" --bench "$3" $flags ||
				true
			line=$(printf '%s\n' "$out" | grep "^pmix_group: rank 0 on .*: bench $3: " || true)
			echo "$0: -N$1 -n$2 ${flags:-plain} x$3 step $i: ${line#*bench $3: }" >&2
			[ -n "$line" ] || continue
			f+="$(field fence "$line") " df+="$(field 'data fence' "$line") "
			c+="$(field construct "$line") " d+="$(field destruct "$line") "
		done
		# shellcheck disable=SC2086 # one number per word
		fm=$(printf '%s\n' $f | median) dfm=$(printf '%s\n' $df | median)
		# shellcheck disable=SC2086
		cm=$(printf '%s\n' $c | median) dm=$(printf '%s\n' $d | median)
		ratio=$(awk -v c="${cm:-0}" -v f="${dfm:-0}" 'BEGIN { if (f) printf "%.2f", c / f; else print "-" }')
		rows+="| -N$1 -n$2 | ${flags:-plain} | $3 | ${fm:--} | ${dfm:--} | ${cm:--} | ${dm:--} | $ratio |"$'\n'
	done
done

table="| step | construct directives | rounds | fence µs | data fence µs | construct µs | destruct µs | construct / data fence |
|---|---|---|---|---|---|---|---|
$rows"
printf '%s' "$table"
[ -z "$OUT" ] || printf '%s' "$table" >"$OUT"
