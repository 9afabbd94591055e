#!/usr/bin/env bash
# test-all.sh - README command 2: everything CI checks, from a clean clone.
#
#   1. install missing Debian packages      8. the Debian package and the
#   2. build (./build)                         RPM, from the tarball of 7:
#   3. format, layout, man-page checks         lintian, files, dependency
#   4. unit tests (cmocka, TAP)             9. Slurm 24.11 / OpenPMIx 5 /
#   5. ASan/UBSan build + unit tests,          Open MPI 5 in a Debian 13
#      40-pmixd-forge.t on it
#   6. libFuzzer, 15 s per decoder             root: build, unit tests, its
#   7. make distcheck                          .deb installed, integration
#                                              tests
#                                          10. Slurm 26.05 (Debian testing
#                                              root): build, unit tests,
#                                              .deb, smoke run; skipped when
#                                              its packages cannot be
#                                              installed
#                                          11. local 3-node Slurm 22.05
#                                              cluster running the .deb of
#                                              8 + integration tests
#
# The two suites run one after the other: side by side (each mostly
# waits for Slurm) they took 13 minutes less, but 24 Open MPI ranks
# polling in one suite then starved the other's stepds for seconds (a
# false node loss in 06-openmpi.t, 1 run of 3).
#
# The integration tests of every generation run against the installed
# package (the clusters' PMIXEV_INSTALLED=1): what a site installs is what
# is tested; only the test clients come from the build. Stage 11 installs
# the package on this machine and removes it when it ends, however it
# ends; a pmixev package installed before is refused, not replaced.
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

case $(dpkg-query -W -f='${db:Status-Abbrev}' pmixev 2>/dev/null || true) in
'' | ?n*) ;;
*)
	echo "test-all: a pmixev package is installed here: remove it first (dpkg --purge pmixev); the last stage installs the one it builds and removes it" >&2
	exit 1
	;;
esac

stage "dependencies"
bash "$src/scripts/install-deps.sh"

stage "build"
bash "$src/scripts/build.sh" "$build"

stage "format check, layout check, man pages"
make -C "$build" -s format-check
echo "all C files follow .clang-format"
bash "$src/tests/check-layout.sh"
bash "$src/tests/check-man.sh"

# (make -j: the tests and their programs build and run one per core)
stage "unit tests"
make -C "$build" -s -j"$(nproc)" check

stage "unit tests under ASan/UBSan"
bash "$src/scripts/build.sh" "$src/build-asan" --enable-sanitizers
make -C "$src/build-asan" -s -j"$(nproc)" check

# Root against a hostile PMIx server process, every pmixev process under
# ASan/UBSan (doc/testing.md, "The ASan cluster mode"): a report fails it.
stage "slurmstepd under ASan/UBSan against a forged pmixev-pmixd (40-pmixd-forge.t, local Slurm 22.05 cluster)"
asan_rc=0
PMIXEV_ASAN=1 PMIXEV_BUILDDIR=$src/build-asan bash "$cluster" start
PMIXEV_ASAN=1 PMIXEV_BUILDDIR=$src/build-asan \
	prove -v --timer "$src/tests/integration/40-pmixd-forge.t" || asan_rc=1
((asan_rc == 0)) || bash "$cluster" logs >&2 || true
bash "$cluster" stop
((asan_rc == 0)) || exit 1

# (one target per core at a time: each still gets its seconds)
stage "fuzzing the frame and task-map decoders (short run)"
bash "$src/tests/fuzz/run.sh" "${PMIXEV_FUZZ_SECONDS:-15}" "$(nproc)"

stage "make distcheck"
make -C "$build" -s -j"$(nproc)" distcheck >"$build/distcheck.out" 2>&1 || {
	tail -n 40 "$build/distcheck.out" >&2
	exit 1
}
grep -A3 'archives ready for distribution' "$build/distcheck.out"

# Their unit tests: those of stage 4, on the same sources.
stage "Debian package and RPM from the release tarball: lintian, files, dependency"
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$build/Makefile")
PMIXEV_PKG_DIR=$src/build-pkg bash "$src/scripts/package-check.sh" --host --rpm --nocheck \
	--tarball "$build/pmixev-$version.tar.gz"
deb=$(ls "$src/build-pkg/deb-host/pmixev_$version"-*.deb)

stage "Slurm 24.11 / OpenPMIx 5 / Open MPI 5 (Debian 13 root): build, unit tests, .deb, integration tests against it"
PMIXEV_INSTALLED=1 bash "$src/scripts/newer-slurm.sh" --suite

stage "Slurm 26.05 / OpenPMIx 7.0 rc / Open MPI 6.0 rc (Debian testing root): build, unit tests, .deb, smoke run against it"
PMIXEV_INSTALLED=1 bash "$src/scripts/newer-slurm.sh" --debian testing --suite \
	tests/integration/02-steps.t tests/integration/09-task-events.t

# As most sites run Slurm: processes tracked in cgroups (v1 here) and the
# tasks confined to theirs; the 24.11 stage keeps proctrack/linuxproc, so
# both stay covered (doc/admin-guide.md, "Tested site configurations").
stage "integration tests on the local Slurm cluster running $(basename "$deb") (proctrack/cgroup, task/cgroup)"
export PMIXEV_BUILDDIR=$build PMIXEV_INSTALLED=1
export PMIXEV_PROCTRACK=proctrack/cgroup PMIXEV_TASK_PLUGIN=task/cgroup,task/affinity
# (the status is kept: the commands in an EXIT trap would replace it)
# shellcheck disable=SC2154 # rc is set by the trap itself
trap 'rc=$?; bash "$cluster" stop >/dev/null 2>&1 || true; dpkg --purge pmixev >/dev/null 2>&1 || true; exit "$rc"' EXIT
trap 'exit 130' INT TERM
bash "$cluster" stop >/dev/null 2>&1 || true
dpkg -i "$deb"
bash "$cluster" start
if ! prove -v --timer "$src"/tests/integration/*.t; then
	echo "integration tests failed; daemon logs:" >&2
	bash "$cluster" logs >&2 || true
	exit 1
fi

stage "all tests passed in $(($(date +%s) - start)) s"
