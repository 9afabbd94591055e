#!/usr/bin/env bash
# test-all.sh - README command 2: everything CI checks, from a clean clone.
#
#   1. install missing Debian packages      6. libFuzzer, 15 s per decoder
#   2. build (./build)                      7. make distcheck
#   3. format, layout, man-page checks      8. Slurm 24.11 / OpenPMIx 5 /
#   4. unit tests (cmocka, TAP)                Open MPI 5 in a Debian 13
#   5. ASan/UBSan build + unit tests           root: build, unit tests,
#                                              integration tests
#                                           9. Slurm 26.05 (Debian testing
#                                              root): build, unit tests,
#                                              smoke run; skipped when its
#                                              packages cannot be installed
#                                          10. local 3-node Slurm 22.05
#                                              cluster + integration tests
#
# Exits non-zero on the first failing stage. Run as root.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
cluster=$src/tests/cluster/cluster.sh
start=$(date +%s)

stage() {
	printf '\n==== %s (t+%ds)\n' "$*" $(($(date +%s) - start))
}

stage "dependencies"
bash "$src/scripts/install-deps.sh"

stage "build"
bash "$src/scripts/build.sh" "$build"

stage "format check, layout check, man pages"
make -C "$build" -s format-check
echo "all C files follow .clang-format"
bash "$src/tests/check-layout.sh"
bash "$src/tests/check-man.sh"

stage "unit tests"
make -C "$build" -s check

stage "unit tests under ASan/UBSan"
bash "$src/scripts/build.sh" "$src/build-asan" --enable-sanitizers
make -C "$src/build-asan" -s check

stage "fuzzing the frame and task-map decoders (short run)"
bash "$src/tests/fuzz/run.sh" "${PMIXEV_FUZZ_SECONDS:-15}"

stage "make distcheck"
make -C "$build" -s distcheck >"$build/distcheck.out" 2>&1 || {
	tail -n 40 "$build/distcheck.out" >&2
	exit 1
}
grep -A3 'archives ready for distribution' "$build/distcheck.out"

stage "Slurm 24.11 / OpenPMIx 5 / Open MPI 5 (Debian 13 root): build, unit tests, integration tests"
bash "$src/scripts/newer-slurm.sh" --suite

stage "Slurm 26.05 / OpenPMIx 7.0 rc / Open MPI 6.0 rc (Debian testing root): build, unit tests, smoke run"
bash "$src/scripts/newer-slurm.sh" --debian testing --suite \
	tests/integration/02-steps.t tests/integration/09-task-events.t

# As most sites run Slurm: processes tracked in cgroups (v1 here) and the
# tasks confined to theirs; the 24.11 stage keeps proctrack/linuxproc, so
# both stay covered (doc/admin-guide.md, "Tested site configurations").
stage "integration tests on the local Slurm cluster (proctrack/cgroup, task/cgroup)"
export PMIXEV_BUILDDIR=$build
export PMIXEV_PROCTRACK=proctrack/cgroup PMIXEV_TASK_PLUGIN=task/cgroup,task/affinity
trap 'bash "$cluster" stop >/dev/null 2>&1 || true' EXIT
bash "$cluster" stop >/dev/null 2>&1 || true
bash "$cluster" start
if ! prove -v --timer "$src"/tests/integration/*.t; then
	echo "integration tests failed; daemon logs:" >&2
	bash "$cluster" logs >&2 || true
	exit 1
fi

stage "all tests passed in $(($(date +%s) - start)) s"
