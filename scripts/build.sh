#!/usr/bin/env bash
# build.sh [BUILDDIR [configure args...]] - autogen (when needed), configure
# (when needed) and make pmixev out of tree. Default BUILDDIR: ./build.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
shift || true

cd "$src"
if [ ! -x configure ] || [ configure.ac -nt configure ] ||
	[ m4/pmixev.m4 -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	./autogen.sh >/dev/null
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$src/configure" -nt config.status ]; then
	"$src/configure" "$@" >configure.out || {
		tail -n 30 configure.out config.log >&2
		exit 1
	}
	sed -n '/^configure:$/,$p' configure.out
fi
make -j"$(nproc)" >make.out 2>&1 || {
	tail -n 40 make.out >&2
	exit 1
}
echo "build.sh: built in $build"
