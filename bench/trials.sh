# shellcheck shell=bash
# bench/trials.sh - sourced by the benchmarks that repeat a trial on a
# cluster of their own (events.sh, nodeloss.sh).
#
# Set before sourcing: TRIALS (the default count) and BENCH_CLUSTER (the
# default cluster ID). Parses "[--trials N] [--out FILE]" from "$@" into
# TRIALS and OUT, refuses cluster 0 (the integration tests'), starts the
# cluster (PMIXEV_BENCH_CLUSTER_ID overrides the ID) and stops it on exit.
# Sets SRC (the source tree) and CLUSTER (cluster.sh).

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${PMIXEV_BUILDDIR:=$SRC/build}"
export PMIXEV_BUILDDIR PMIXEV_CLUSTER_ID=${PMIXEV_BENCH_CLUSTER_ID:-$BENCH_CLUSTER}
CLUSTER=$SRC/tests/cluster/cluster.sh
OUT=''
while [ $# -gt 0 ]; do
	case $1 in
	--trials) TRIALS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	*) echo "usage: $0 [--trials N] [--out FILE]" >&2; exit 2 ;;
	esac
done
[ "$PMIXEV_CLUSTER_ID" != 0 ] || { echo "$0: cluster 0 is the tests'" >&2; exit 2; }

bench_cleanup() { bash "$CLUSTER" stop >/dev/null 2>&1 || true; }
trap bench_cleanup EXIT
bash "$CLUSTER" start >&2
