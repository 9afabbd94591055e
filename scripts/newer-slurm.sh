#!/usr/bin/env bash
# newer-slurm.sh - build pmixev (-Werror) and run its unit tests and plugin
# symbol check against Debian 13's Slurm 24.11, OpenPMIx 5 and gcc 14, in
# a minimal Debian 13 ("trixie") root made with debootstrap from the
# machine's own Debian mirror. Root only.
#
# The root is kept in PMIXEV_TRIXIE_ROOT (default /var/tmp/pmixev-trixie)
# and reused; its /proc is mounted in a private mount namespace that ends
# with the script. The source is the working tree's tracked files.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
root=${PMIXEV_TRIXIE_ROOT:-/var/tmp/pmixev-trixie}
packages=(
	autoconf automake libtool pkg-config make gcc binutils
	libslurm-dev slurm-client libpmix-dev libhwloc-dev libevent-dev
	libmunge-dev libcmocka-dev
)

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

# in_root CMD...: run CMD in the root with a clean environment.
in_root() {
	unshare --mount --propagation private sh -c '
		root=$1; shift
		mount -t proc proc "$root/proc" &&
			exec chroot "$root" /usr/bin/env -i \
				PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C \
				DEBIAN_FRONTEND=noninteractive "$@"' sh "$root" "$@"
}

[ "$(id -u)" -eq 0 ] || { echo "newer-slurm: run as root" >&2; exit 1; }
if [ ! -e "$root/.pmixev-debootstrap-done" ]; then
	rm -rf "$root"
	mkdir -p "$(dirname "$root")"
	echo "newer-slurm: debootstrap trixie from $(mirror) into $root"
	debootstrap --variant=minbase trixie "$root" "$(mirror)" >"$root.log" 2>&1 || {
		tail -n 20 "$root.log" >&2
		exit 1
	}
	touch "$root/.pmixev-debootstrap-done"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
missing=$(in_root dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>&1 |
	grep -v ' install ok installed$' || true)
if [ -z "$missing" ]; then
	echo "newer-slurm: all ${#packages[@]} packages present"
else
	echo "newer-slurm: installing ${packages[*]}"
	in_root sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"' \
		sh "${packages[@]}" >"$root.apt.log" 2>&1 || {
		tail -n 20 "$root.apt.log" >&2
		exit 1
	}
fi

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
echo "newer-slurm: built and unit-tested against $(in_root dpkg-query -W -f='Slurm ${Version}' libslurm-dev) and $(in_root dpkg-query -W -f='OpenPMIx ${Version}' libpmix-dev)"
