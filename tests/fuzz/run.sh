#!/bin/sh
# Build and run the libFuzzer targets for the pure modules.
#
# usage: tests/fuzz/run.sh [SECONDS_PER_TARGET [JOBS]]   (default 20, 1)
#
# JOBS targets are built and fuzzed at a time (each one process, one core:
# on 2 cores, 2 halve the wall time; each target still gets its seconds).
# Needs clang with its fuzzer runtime (Debian: clang, libclang-rt-*-dev).
# Works without a configured tree: the sources include "config.h", which
# a stand-in that only asks for GNU extensions satisfies. Seeds
# come from tests/fuzz/corpus/<target>/ and are never modified; new inputs
# go to a temporary corpus. Exits non-zero if a target fails to build or
# crashes; the crashing input is kept and its path printed.
set -eu

secs=${1:-20}
jobs=${2:-1}
case $secs:$jobs in
*[!0-9:]* | :* | *: | *:0)
	echo "usage: $0 [SECONDS_PER_TARGET [JOBS]]" >&2
	exit 2
	;;
esac

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
common=$top/common
cc=${CC:-clang}

work=$(mktemp -d "${TMPDIR:-/tmp}/pmixev-fuzz.XXXXXX")
keep=0
trap '[ "$keep" -eq 1 ] || rm -rf "$work"' EXIT
mkdir "$work/include"
echo "#define _GNU_SOURCE 1" >"$work/include/config.h"

# target name, then its sources
targets="fuzz_frame:pmixev_frame.c,pmixev_proto.c,pmixev_buf.c,pmixev_helper_msg.c,pmixev_owner_write.c,pmixev_ptable.c
fuzz_taskmap:pmixev_taskmap.c
fuzz_peeruid:pmixev_peeruid.c,pmixev_sockdiag.c
fuzz_sockdiag:pmixev_sockdiag.c
fuzz_hello:pmixev_hello.c
fuzz_pmixd_msg:pmixev_pmixd_msg.c,pmixev_pmixd_start.c,pmixev_pmixd_coll.c,pmixev_pmixd_ctl.c,pmixev_pmixd_group.c,pmixev_pmixd_spawn.c,pmixev_pmixd_nspace.c,pmixev_pmixd_alloc.c,pmixev_group_list.c,pmixev_proto.c,pmixev_buf.c,pmixev_taskmap.c,pmixev_helper_msg.c,pmixev_ptable.c
fuzz_group_rec:pmixev_group_rec.c,pmixev_buf.c,pmixev_taskmap.c
fuzz_group_list:pmixev_group_list.c,pmixev_buf.c
fuzz_xstep:pmixev_xstep.c,pmixev_xstep_pubsub.c,pmixev_xstep_hop.c,pmixev_xstep_ctl.c,pmixev_hub_route.c,pmixev_pmixd_msg.c,pmixev_pmixd_start.c,pmixev_pmixd_coll.c,pmixev_pmixd_ctl.c,pmixev_pmixd_group.c,pmixev_pmixd_spawn.c,pmixev_pmixd_nspace.c,pmixev_pmixd_alloc.c,pmixev_group_list.c,pmixev_proto.c,pmixev_buf.c,pmixev_taskmap.c,pmixev_helper_msg.c,pmixev_ptable.c
fuzz_spawn_apps:pmixev_spawn_cmd.c,pmixev_spawn_vars.c,pmixev_base64.c,pmixev_pmixd_spawn.c,pmixev_pmixd_nspace.c,pmixev_pmixd_alloc.c,pmixev_pmixd_msg.c,pmixev_proto.c,pmixev_buf.c,pmixev_taskmap.c,pmixev_helper_msg.c,pmixev_ptable.c"

# fuzz_one NAME:SOURCES: build and run one target; its report goes to
# $work/NAME.out; $work/NAME.ok marks its success, only.
fuzz_one() {
	name=${1%%:*}
	srcs=
	for s in $(echo "${1#*:}" | tr ',' ' '); do
		srcs="$srcs $common/$s"
	done
	echo "== $name: build"
	# shellcheck disable=SC2086 # $srcs is a list of paths without spaces
	if ! "$cc" -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -I "$common" \
		-I "$work/include" -o "$work/$name" "$here/$name.c" $srcs 2>&1; then
		echo "== $name: BUILD FAILED"
		return
	fi
	mkdir -p "$work/corpus/$name" "$work/crash/$name"
	seeds=
	if [ -d "$here/corpus/$name" ]; then
		seeds=$here/corpus/$name
	fi
	echo "== $name: run ${secs}s"
	# shellcheck disable=SC2086 # $seeds is empty or one path
	if "$work/$name" -max_total_time="$secs" -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$work/crash/$name/" \
		"$work/corpus/$name" $seeds >"$work/$name.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
			"$work/$name.log")
		rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' \
			"$work/$name.log")
		echo "== $name: ok, $runs runs, $rate exec/s"
		touch "$work/$name.ok"
	else
		tail -n 40 "$work/$name.log"
		echo "== $name: CRASH, input(s) in $work/crash/$name/"
	fi
}

# JOBS lanes, target i in lane i % JOBS; the reports in the targets' order.
lane=0
while [ "$lane" -lt "$jobs" ]; do
	i=0
	for spec in $targets; do
		if [ $((i % jobs)) -eq "$lane" ]; then
			fuzz_one "$spec" >"$work/${spec%%:*}.out"
		fi
		i=$((i + 1))
	done &
	lane=$((lane + 1))
done
wait

failed=0
for spec in $targets; do
	name=${spec%%:*}
	if [ -e "$work/$name.ok" ]; then
		cat "$work/$name.out"
	else
		{ cat "$work/$name.out" 2>/dev/null || echo "== $name: not run"; } >&2
		failed=1
		keep=1
	fi
done
exit "$failed"
