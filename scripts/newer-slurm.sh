#!/usr/bin/env bash
# newer-slurm.sh [--debian trixie|testing]
#                [--suite [PROVE-ARGS...] | --prepare |
#                 --bench SCRIPT [ARGS...]] -
# build pmixev (-Werror) and run its unit tests and plugin symbol check
# against a newer Debian's Slurm, OpenPMIx and gcc, in a minimal root of
# that Debian made with debootstrap from the machine's own Debian mirror.
# Root only.
#
#   trixie (default): Debian 13, Slurm 24.11, OpenPMIx 5, Open MPI 5
#   testing:          Debian testing, Slurm 26.05, OpenPMIx and Open MPI
#                     release candidates. A package there that cannot be
#                     installed is reported and skipped (exit 0): it is
#                     not pmixev's failure.
#
# --suite: also install Slurm's daemons, munge and Open MPI there, and run
# the integration tests (tests/integration/*.t, or PROVE-ARGS) on a 3-node
# cluster started by the same harness inside the root (cluster ID
# PMIXEV_<DEBIAN>_CLUSTER_ID: trixie 5, testing 7, beside the host's 0);
# PMIXEV_PROCTRACK and PMIXEV_TASK_PLUGIN reach that cluster (README
# command 2 leaves them unset here: proctrack/linuxproc, task/none).
# With PMIXEV_INSTALLED=1 (README command 2) the suite runs against the
# Debian package instead, as a site installs it: built in the root from
# the release tarball of that build (`make dist`; dpkg-buildpackage without
# the unit tests, which the build ran, and with -d: the root has the
# Build-Depends from the list below, not build-essential's g++),
# installed there for the suite (the cluster's PMIXEV_INSTALLED=1: its
# plugins from the root's Slurm plugin directory, its programs from
# pmixev's libexec directory) and purged after; the test clients and
# examples still come from the build.
#
# --prepare: what --suite does before its cluster starts (the suite's
# packages, the build, its unit tests and, with PMIXEV_INSTALLED=1, the
# .deb), then exit: a --suite run after it, on the same tree, starts the
# cluster at once (README command 2 runs that suite beside the host's).
#
# --bench: likewise, then run bench/SCRIPT ARGS there (e.g. run.sh --quick,
# ulfm.sh): the benchmarks of this generation, stock mpi/pmix included. Its
# cluster ID: PMIXEV_BENCH_CLUSTER_ID, else PMIXEV_<DEBIAN>_CLUSTER_ID when
# set, else the script's own default (each bench/*.sh names it).
#
# The root is kept in PMIXEV_<DEBIAN>_ROOT (default /var/tmp/pmixev-DEBIAN)
# and reused; /proc, /sys, /dev and a fresh /run are mounted in a private
# mount namespace that ends with the script. The source is the working
# tree's tracked files.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
debian=trixie
if [ "${1:-}" = --debian ]; then
	debian=${2:?--debian needs trixie or testing}
	shift 2
fi
case $debian in
trixie)
	root=${PMIXEV_TRIXIE_ROOT:-/var/tmp/pmixev-trixie}
	cluster_id=${PMIXEV_TRIXIE_CLUSTER_ID:-5}
	bench_id=${PMIXEV_BENCH_CLUSTER_ID:-${PMIXEV_TRIXIE_CLUSTER_ID:-}}
	;;
testing)
	root=${PMIXEV_TESTING_ROOT:-/var/tmp/pmixev-testing}
	cluster_id=${PMIXEV_TESTING_CLUSTER_ID:-7}
	bench_id=${PMIXEV_BENCH_CLUSTER_ID:-${PMIXEV_TESTING_CLUSTER_ID:-}}
	;;
*)
	echo "newer-slurm: --debian: trixie or testing, not '$debian'" >&2
	exit 2
	;;
esac
suite=0 bench='' prepare=0
if [ "${1:-}" = --suite ]; then
	suite=1
	shift
elif [ "${1:-}" = --prepare ]; then
	suite=1 prepare=1
	shift
elif [ "${1:-}" = --bench ]; then
	suite=1 bench=${2:?--bench needs a script of bench/}
	shift 2
	[ -f "$src/bench/$bench" ] || { echo "newer-slurm: no bench/$bench" >&2; exit 2; }
fi

# unavailable WHAT LOG: Debian's packages (not pmixev) failed. A release
# that Debian has not released yet is skipped; trixie's must work.
unavailable() {
	tail -n 20 "$2" >&2
	if [ "$debian" = testing ]; then
		echo "newer-slurm: $debian: skipped: $1 (see $2)"
		exit 0
	fi
	exit 1
}
packages=(
	autoconf automake libtool pkg-config make gcc binutils
	libslurm-dev slurm-client libpmix-dev libhwloc-dev libevent-dev
	libmunge-dev libcmocka-dev
)
# What the cluster harness and the integration tests run.
suite_packages=(
	slurmctld slurmd munge libpmix-bin openmpi-bin libopenmpi-dev
	iproute2 procps util-linux perl passwd psmisc bc e2fsprogs
)
((suite)) && packages+=("${suite_packages[@]}")
installed=0
if ((suite)) && [ -z "$bench" ] && [ "${PMIXEV_INSTALLED:-0}" = 1 ]; then
	installed=1
	packages+=(debhelper)
fi

# The Debian mirror apt already uses (PMIXEV_DEBIAN_MIRROR overrides).
mirror() {
	local url
	url=${PMIXEV_DEBIAN_MIRROR:-$(
		sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\/\{0,1\}\)$/\1/p' \
			/etc/apt/sources.list.d/*.sources 2>/dev/null
		sed -n 's/^deb[[:space:]]\{1,\}\(http[^[:space:]]*\/debian\/\{0,1\}\)[[:space:]].*/\1/p' \
			/etc/apt/sources.list 2>/dev/null
	)}
	echo "${url%%$'\n'*}" | grep . || echo http://deb.debian.org/debian
}

# in_root CMD...: run CMD in the root with a clean environment. With
# PMIXEV_ROOT_FULL=1 the root also gets the host's /dev and /sys, and its
# own /run and /dev/shm (what daemons and network namespaces need).
in_root() {
	unshare --mount --propagation private sh -c '
		root=$1; shift
		mount -t proc proc "$root/proc" || exit 1
		if [ "${PMIXEV_ROOT_FULL:-0}" = 1 ]; then
			# / must be a mount point in the root (ip netns, unshare -m)
			mount --bind "$root" "$root" &&
				mount -t proc proc "$root/proc" &&
				mount --rbind /dev "$root/dev" &&
				mount -t tmpfs -o size=1g tmpfs "$root/dev/shm" &&
				mount --rbind /sys "$root/sys" &&
				mount -t tmpfs tmpfs "$root/run" || exit 1
		fi
		exec chroot "$root" /usr/bin/env -i \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C \
			DEBIAN_FRONTEND=noninteractive "$@"' sh "$root" "$@"
}

[ "$(id -u)" -eq 0 ] || { echo "newer-slurm: run as root" >&2; exit 1; }
if [ ! -e "$root/.pmixev-debootstrap-done" ]; then
	rm -rf "$root"
	mkdir -p "$(dirname "$root")"
	echo "newer-slurm: debootstrap $debian from $(mirror) into $root"
	debootstrap --variant=minbase "$debian" "$root" "$(mirror)" >"$root.log" 2>&1 ||
		unavailable "debootstrap $debian failed" "$root.log"
	touch "$root/.pmixev-debootstrap-done"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
missing=$(in_root dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>&1 |
	grep -v ' install ok installed$' || true)
if [ -z "$missing" ]; then
	echo "newer-slurm: all ${#packages[@]} packages present"
else
	echo "newer-slurm: installing ${packages[*]}"
	# The mirror may serve a testing snapshot whose Release file has
	# expired since (a test root only, never the host).
	valid=true
	[ "$debian" = testing ] && valid=false
	in_root sh -c 'v=$1; shift
		apt-get -o Acquire::Check-Valid-Until="$v" update -qq &&
		apt-get install -y -qq --no-install-recommends "$@"' \
		sh "$valid" "${packages[@]}" >"$root.apt.log" 2>&1 ||
		unavailable "its packages cannot be installed" "$root.apt.log"
fi

# The host's names, as on the host: daemons look up this machine's name,
# and a lookup through DNS may wait past Slurm's MessageTimeout. (The
# cluster harness mounts a hosts file of its own over it for each node.)
cp /etc/hosts "$root/etc/hosts"
grep -qw "$(hostname)" "$root/etc/hosts" || printf '127.0.1.1\t%s\n' "$(hostname)" >>"$root/etc/hosts"

# Rebuilt only when the tracked files or the root's packages (but pmixev's
# own) changed since the last good build (the suite's packages add mpicc,
# which configure looks for); so is the .deb.
sum=$({
	git -C "$src" ls-files -z | tar -C "$src" --null -T - -c --mtime=@0 --owner=0 --group=0
	in_root dpkg-query -W | grep -v '^pmixev[[:space:]]'
} | sha256sum | cut -d' ' -f1)
if [ "$(cat "$root/src/.pmixev-built" 2>/dev/null)" = "$sum" ]; then
	echo "newer-slurm: the tree is unchanged since the last build in the root"
else
	rm -rf "$root/src"
	mkdir "$root/src"
	git -C "$src" ls-files -z | tar -C "$src" --null -T - -c | tar -x -C "$root/src"
	in_root sh -c '
		cd /src && ./autogen.sh >/dev/null 2>&1 && mkdir b && cd b || exit 1
		../configure --enable-werror >configure.out 2>&1 || { tail -n 30 configure.out config.log; exit 1; }
		sed -n "/^pmixev .* configured$/,\$p" configure.out
		make -j"$(nproc)" >make.out 2>&1 || { tail -n 40 make.out; exit 1; }
		make -j"$(nproc)" check >check.out 2>&1 || {
			grep -E "^(FAIL|ERROR)" check.out
			cat test-suite.log
			exit 1
		}
		grep -E "^# (TOTAL|PASS|FAIL|ERROR)" check.out'
	echo "$sum" >"$root/src/.pmixev-built"
fi
echo "newer-slurm: built and unit-tested against $(in_root dpkg-query -W -f='Slurm ${Version}' libslurm-dev) and $(in_root dpkg-query -W -f='OpenPMIx ${Version}' libpmix-dev)"
if ((installed)) && [ "$(cat "$root/src/.pmixev-deb" 2>/dev/null)" != "$sum" ]; then
	in_root sh -c '
		cd /src/b && make dist >dist.out 2>&1 || { tail -n 20 dist.out; exit 1; }
		rm -rf /src/pkg && mkdir /src/pkg && tar -xzf /src/b/pmixev-*.tar.gz -C /src/pkg &&
			cd /src/pkg/pmixev-* || exit 1
		DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b -d -j2 >../build.log 2>&1 ||
			{ tail -n 40 ../build.log; exit 1; }'
	echo "$sum" >"$root/src/.pmixev-deb"
fi
((installed)) && echo "newer-slurm: the Debian package: $(cd "$root/src/pkg" && ls pmixev_*.deb)"

((suite && !prepare)) || exit 0
if [ -n "$bench" ]; then
	echo "newer-slurm: bench/$bench on $(in_root dpkg-query -W -f='Slurm ${Version}' slurmd) in the $debian root${bench_id:+, cluster $bench_id}"
	PMIXEV_ROOT_FULL=1 in_root env PMIXEV_BUILDDIR=/src/b \
		${bench_id:+PMIXEV_BENCH_CLUSTER_ID="$bench_id"} \
		bash "/src/bench/$bench" "$@"
	exit
fi
echo "newer-slurm: integration tests on a 3-node $(in_root dpkg-query -W -f='Slurm ${Version}' slurmd) cluster in the $debian root$( ((installed)) && echo ", against the installed package")"
PMIXEV_ROOT_FULL=1 in_root env PMIXEV_CLUSTER_ID="$cluster_id" \
	PMIXEV_BUILDDIR=/src/b PMIXEV_INSTALLED="$installed" \
	${PMIXEV_PROCTRACK:+PMIXEV_PROCTRACK="$PMIXEV_PROCTRACK"} \
	${PMIXEV_TASK_PLUGIN:+PMIXEV_TASK_PLUGIN="$PMIXEV_TASK_PLUGIN"} bash -c '
	cd /src || exit 1
	cluster=/src/tests/cluster/cluster.sh
	if [ "$PMIXEV_INSTALLED" = 1 ]; then
		trap "bash $cluster stop >/dev/null 2>&1; dpkg --purge pmixev >/dev/null" EXIT
		dpkg -i /src/pkg/pmixev_*.deb >/dev/null || exit 1
	else
		trap "bash $cluster stop >/dev/null 2>&1" EXIT
	fi
	bash "$cluster" start || { bash "$cluster" logs; exit 1; }
	if [ $# -eq 0 ]; then set -- tests/integration/*.t; fi
	prove -v --timer "$@" || { bash "$cluster" logs >&2; exit 1; }' bash "$@"
