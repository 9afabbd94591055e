#!/usr/bin/env bash
# package-check.sh [--host] [--root DIR]... [--rpm] [--tarball FILE]
#                  [--nocheck] - build pmixev's packages from its release
# tarball (`make dist` of the tracked files) and check what they install.
# Root only.
#
#   --host      .debs made by `dpkg-buildpackage -us -uc -b` here (Debian 12,
#               Slurm 22.05); their installation is only simulated (apt-get
#               -s): a real one would put the plugins into the PluginDir of
#               the test clusters on this machine
#   --root DIR  the same inside a Debian root made by scripts/newer-slurm.sh
#               (Debian 13: Slurm 24.11; Debian testing: Slurm 26.05), with
#               its build dependencies installed there first; then the
#               package is installed there, checked and purged
#   --rpm       `rpmbuild -ba` of pmixev.spec with Debian's rpm against this
#               machine's Slurm headers, its plugins going where slurm.spec
#               puts Slurm's (/usr/lib64/slurm, as on a RHEL site); prints
#               the file list and the Requires
#   --tarball FILE  build from the release tarball FILE (e.g. the one of
#               `make distcheck`) instead of making one
#   --nocheck   no unit tests in the .deb builds (DEB_BUILD_OPTIONS=nocheck:
#               README command 2 has run them on the same sources)
#
# Without options: --host --rpm, and --root "$PMIXEV_TRIXIE_ROOT" when that
# is set. Each .deb check: lintian reports no error (its warnings are
# printed); the plugins are in the directory of the root's Slurm plugins;
# the programs and the PMIx guard are at the paths built into
# mpi_pmixev.so; the package depends on exactly the Slurm release of the
# headers (major.minor.micro, as Slurm's plugin loader); it has no file in
# /etc and no maintainer script. Work files: PMIXEV_PKG_DIR (default
# ./build-pkg), emptied first; the host's .deb stays in its deb-host/.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
work=${PMIXEV_PKG_DIR:-$src/build-pkg}
start=$(date +%s)
host=0 rpm=0 roots=() tarball='' nocheck=''
while [ $# -gt 0 ]; do
	case $1 in
	--host) host=1 ;;
	--rpm) rpm=1 ;;
	--nocheck) nocheck=nocheck ;;
	--tarball)
		tarball=$(realpath "${2:?--tarball needs a file}")
		[ -f "$tarball" ] || { echo "package-check: no tarball $2" >&2; exit 2; }
		shift
		;;
	--root)
		roots+=("${2:?--root needs a directory}")
		shift
		;;
	*)
		echo "package-check: unknown argument '$1' (--host, --root DIR, --rpm, --tarball FILE, --nocheck)" >&2
		exit 2
		;;
	esac
	shift
done
if ((host + rpm == 0)) && [ ${#roots[@]} -eq 0 ]; then
	host=1 rpm=1
	[ -n "${PMIXEV_TRIXIE_ROOT:-}" ] && roots=("$PMIXEV_TRIXIE_ROOT")
fi
[ "$(id -u)" -eq 0 ] || { echo "package-check: run as root" >&2; exit 1; }

say() { printf 'package-check: [%3ds] %s\n' $(($(date +%s) - start)) "$*"; }
fail() {
	echo "package-check: FAILED: $*" >&2
	exit 1
}

# in_root ROOT CMD...: CMD in ROOT (made by newer-slurm.sh) with its own
# /proc and a clean environment.
in_root() {
	unshare --mount --propagation private sh -c '
		root=$1; shift
		mount -t proc proc "$root/proc" || exit 1
		exec chroot "$root" /usr/bin/env -i \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
			DEBIAN_FRONTEND=noninteractive "$@"' sh "$1" "${@:2}"
}

# The release tarball, from the tracked files (new ones need `git add -N`).
rm -rf "$work"
mkdir -p "$work/src"
if [ -z "$tarball" ]; then
	git -C "$src" ls-files -z | tar -C "$src" --null -T - -c | tar -x -C "$work/src"
	(cd "$work/src" && ./autogen.sh && ./configure && make dist) >"$work/dist.log" 2>&1 ||
		{ tail -n 30 "$work/dist.log" >&2; fail "make dist"; }
	version=$(sed -n 's/^PACKAGE_VERSION = //p' "$work/src/Makefile")
	tarball=$work/src/pmixev-$version.tar.gz
else
	version=$(basename "$tarball" .tar.gz)
	version=${version#pmixev-}
fi
say "release tarball $(basename "$tarball")"
changelog=$(sed -n '1s/^pmixev (\([^)]*\)).*/\1/p' "$src/debian/changelog")
[ "${changelog%-*}" = "$version" ] ||
	fail "debian/changelog is at $changelog, configure.ac at $version"

# exported PATH...: the file names, at their installed paths, that
# mpi_pmixev.so (extracted under PATH) runs or loads by default.
exported() {
	strings "$(find "$1" -name mpi_pmixev.so)" |
		grep -E '^/.*/(pmixev-owner|pmixev-pmixd|pmixev_pmix_guard\.so)$' | sort -u
}

# check_files TREE PLUGINDIR: the installed tree TREE has the plugins in
# PLUGINDIR and every program where the mpi plugin looks for it.
check_files() {
	local tree=$1 plugindir=$2 path n=0
	for path in "$plugindir/mpi_pmixev.so" "$plugindir/spank_pmixev.so" \
		/usr/sbin/pmixev-notify /usr/sbin/pmixev-check /usr/include/pmixev_events.h; do
		[ -f "$tree$path" ] || fail "no $path in the package"
	done
	[ -z "$(find "$tree" -name '*.la')" ] || fail "libtool .la files in the package"
	for path in $(exported "$tree"); do
		n=$((n + 1))
		[ -f "$tree$path" ] || fail "mpi_pmixev.so looks for $path; the package has none"
		case $path in
		*.so) ;;
		*) [ "$(stat -c %A "$tree$path")" = -rwxr-xr-x ] ||
			fail "$path is $(stat -c %A "$tree$path"), not executable by every job's user" ;;
		esac
	done
	[ $n -eq 3 ] || fail "mpi_pmixev.so names $n of its 3 installed programs and libraries"
	path=$(exported "$tree" | grep /pmixev-owner)
	[ -x "$tree${path%/*}/pmixev-exec" ] || fail "no pmixev-exec beside ${path}"
	echo "  plugins in $plugindir; mpi_pmixev.so finds $(exported "$tree" | tr '\n' ' ')"
}

# check_depends DEPENDS SLURM: DEPENDS accepts exactly the upstream release
# of the installed Slurm package version SLURM (with its rcs and Debian
# revisions), as Slurm's loader accepts only that release's plugins.
check_depends() {
	local dep=$1 have=$2 rel lo hi
	rel=${have#*:}
	rel=${rel%-*}
	rel=${rel%%~*}
	lo=$(echo "$dep" | sed -n 's/.*slurm-wlm-basic-plugins (>= \([^)]*\)).*/\1/p')
	hi=$(echo "$dep" | sed -n 's/.*slurm-wlm-basic-plugins (<< \([^)]*\)).*/\1/p')
	[ -n "$lo" ] && [ -n "$hi" ] || fail "no versioned slurm-wlm-basic-plugins in Depends: $dep"
	accepts() { dpkg --compare-versions "$1" ge "$lo" && dpkg --compare-versions "$1" lt "$hi"; }
	accepts "$have" || fail "Depends ($lo .. $hi) refuses the Slurm it was built with, $have"
	accepts "$rel-99" || fail "Depends ($lo .. $hi) refuses Slurm $rel-99"
	accepts "$rel~rc1-1" || fail "Depends ($lo .. $hi) refuses Slurm $rel~rc1-1"
	local micro=${rel##*.} base=${rel%.*}
	! accepts "$base.$((micro + 1))-1" || fail "Depends ($lo .. $hi) accepts Slurm $base.$((micro + 1))"
	((micro == 0)) || ! accepts "$base.$((micro - 1))-1" ||
		fail "Depends ($lo .. $hi) accepts Slurm $base.$((micro - 1))"
	echo "  depends on Slurm $rel exactly: slurm-wlm-basic-plugins (>= $lo), (<< $hi)"
}

# deb NAME ROOT: build and check the .debs in ROOT ("" for this machine).
deb() {
	local name=$1 root=$2 dir run=() deb plugindir changes lint
	if [ -n "$root" ]; then
		[ -e "$root/.pmixev-debootstrap-done" ] ||
			fail "$root is not a root of scripts/newer-slurm.sh (run it with PMIXEV_<DEBIAN>_ROOT=$root first)"
		run=(in_root "$root")
		dir=/var/tmp/pmixev-pkg
	else
		dir=$work/deb-$name
	fi
	rm -rf "$root$dir"
	mkdir -p "$root$dir"
	tar -xzf "$tarball" -C "$root$dir"
	if [ -n "$root" ]; then
		cp /etc/resolv.conf "$root/etc/resolv.conf"
		"${run[@]}" sh -c 'cd "$1" &&
			apt-get -o Acquire::Check-Valid-Until=false update -qq &&
			apt-get install -y -qq --no-install-recommends build-essential \
				debhelper lintian &&
			apt-get build-dep -y -qq --no-install-recommends ./' \
			sh "$dir/pmixev-$version" >"$work/$name-apt.log" 2>&1 || {
			tail -n 20 "$work/$name-apt.log" >&2
			# Debian testing's packages may not install: not pmixev's failure.
			if ! grep -q '^VERSION_ID=' "$root/etc/os-release"; then
				say "$name: skipped: Debian testing's build dependencies cannot be installed"
				return 0
			fi
			fail "$name: build dependencies"
		}
		say "$name: build dependencies installed"
	fi
	"${run[@]}" env DEB_BUILD_OPTIONS="$nocheck" sh -c 'cd "$1" && dpkg-buildpackage -us -uc -b -j2' \
		sh "$dir/pmixev-$version" >"$work/$name-build.log" 2>&1 ||
		{ tail -n 40 "$work/$name-build.log" >&2; fail "$name: dpkg-buildpackage"; }
	if [ -n "$nocheck" ]; then
		echo "  unit tests: not run (--nocheck)"
	else
		grep -E '^# (TOTAL|PASS|SKIP|FAIL):' "$work/$name-build.log" | tr '\n' ' '
		echo
	fi
	say "$name: dpkg-buildpackage -us -uc -b done"

	changes=$(cd "$root$dir" && ls pmixev_*.changes)
	lint=$("${run[@]}" sh -c 'cd "$1" && lintian "$2" 2>&1' sh "$dir" "$changes" || true)
	echo "$lint" | grep -E '^[EW]: ' | sed 's/^/  lintian: /' || echo "  lintian: no error, no warning"
	! echo "$lint" | grep -q '^E: ' || fail "$name: lintian reports errors"
	say "$name: lintian: no error"

	deb=$(ls "$root$dir"/pmixev_"$version"-*.deb)
	dpkg-deb -c "$deb" | awk '{ print "  " $1, $6 }'
	plugindir=$("${run[@]}" dpkg -L slurm-wlm-basic-plugins | grep '/auth_munge\.so$')
	plugindir=${plugindir%/*}
	rm -rf "$work/$name-tree"
	dpkg-deb -x "$deb" "$work/$name-tree"
	check_files "$work/$name-tree" "$plugindir"
	[ ! -d "$work/$name-tree/etc" ] || fail "$name: files in /etc: it would configure Slurm"
	dpkg-deb -e "$deb" "$work/$name-control"
	for f in preinst postinst prerm postrm conffiles; do
		[ ! -e "$work/$name-control/$f" ] || fail "$name: the package has a $f"
	done
	check_depends "$(dpkg-deb -f "$deb" Depends)" \
		"$("${run[@]}" dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins)"
	[ -f "$work/$name-tree/usr/share/doc/pmixev/README.Debian" ] ||
		fail "$name: no README.Debian"
	echo "  man pages: $(cd "$work/$name-tree" && find usr/share/man -type f 2>/dev/null | tr '\n' ' ')"

	if [ -z "$root" ]; then
		apt-get install -s "$deb" >"$work/$name-install.log" 2>&1 ||
			{ cat "$work/$name-install.log" >&2; fail "$name: apt-get -s install"; }
		say "$name: installs (simulated): $(grep -c '^Inst ' "$work/$name-install.log") package(s)"
		return
	fi
	"${run[@]}" sh -c '
		conf() { find /etc/slurm -type f -exec md5sum {} + 2>/dev/null | sort; }
		before=$(conf)
		apt-get install -y -qq "$1"/pmixev_*.deb >/dev/null || exit 1
		dpkg -L pmixev | grep -q /mpi_pmixev.so || exit 1
		[ "$(conf)" = "$before" ] || { echo "/etc/slurm changed"; exit 1; }
		dpkg --purge pmixev >/dev/null' sh "$dir" >"$work/$name-install.log" 2>&1 ||
		{ cat "$work/$name-install.log" >&2; fail "$name: installing the package"; }
	say "$name: installed (/etc/slurm unchanged) and purged"
}

# rpm_check: rpmbuild -ba from the tarball; file list, Requires, paths.
rpm_check() {
	local top=$work/rpm dep path rel
	mkdir -p "$top/SOURCES"
	cp "$tarball" "$top/SOURCES/"
	tar -xzf "$tarball" -O "pmixev-$version/pmixev.spec" >"$top/pmixev.spec"
	# --nodeps: Debian's Slurm, OpenPMIx... are not in rpm's database.
	# --without check: `make check` and the .deb builds run those tests.
	rpmbuild --define "_topdir $top" --nodeps --without check \
		-ba "$top/pmixev.spec" \
		>"$work/rpm-build.log" 2>&1 ||
		{ tail -n 40 "$work/rpm-build.log" >&2; fail "rpmbuild -ba"; }
	say "rpm: rpmbuild -ba done: $(cd "$top" && ls SRPMS/*.rpm RPMS/*/*.rpm | tr '\n' ' ')"
	path=$(ls "$top"/RPMS/*/pmixev-"$version"-*.rpm | grep -v debug)
	rpm -qlpv "$path" 2>/dev/null | awk '{ print "  " $1, $NF }'
	echo "  Requires:"
	rpm -qp --requires "$path" 2>/dev/null | sed 's/^/    /'
	rm -rf "$top/tree"
	mkdir "$top/tree"
	rpm2cpio "$path" | (cd "$top/tree" && cpio -idm --quiet)
	check_files "$top/tree" /usr/lib64/slurm
	# the upstream release of the headers it was built against
	rel=$(dpkg-query -W -f='${Version}' libslurm-dev)
	rel=${rel#*:}
	rel=${rel%-*}
	dep=$(rpm -qp --requires "$path" 2>/dev/null)
	echo "$dep" | grep -qx "slurm >= $rel" && echo "$dep" | grep -qx "slurm < ${rel%.*}.$((${rel##*.} + 1))" ||
		fail "rpm: Requires do not pin Slurm $rel"
	! rpm -qp --provides "$path" 2>/dev/null | grep -q '\.so' ||
		fail "rpm: provides the plugins as libraries"
	echo "  requires Slurm $rel exactly"
}

if ((host)); then deb host ""; fi
for r in "${roots[@]}"; do
	deb "$(basename "$r")" "$r"
done
if ((rpm)); then rpm_check; fi
say "all package checks passed"
