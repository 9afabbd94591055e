#!/usr/bin/env bash
# install-deps.sh - install the Debian 12 packages pmixev needs to build,
# test and run its local cluster. Installs only what is missing. Root only.
set -euo pipefail

packages=(
	# build
	autoconf automake libtool pkg-config make gcc clang-format
	clang libclang-rt-14-dev
	libslurm-dev libpmix-dev libhwloc-dev libevent-dev libmunge-dev
	libcmocka-dev
	# the man pages' check (tests/check-man.sh)
	groff-base
	# the Debian 13 root for the Slurm 24.11 / OpenPMIx 5 build check
	debootstrap
	# the packages (scripts/package-check.sh): .deb, lintian, RPM
	build-essential debhelper dpkg-dev fakeroot lintian rpm rpm2cpio cpio binutils
	# local test cluster and clients
	slurmctld slurmd slurm-client munge libpmix-bin openmpi-bin
	libopenmpi-dev iproute2 util-linux procps perl
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#packages[@]} packages present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages (${missing[*]}); run as root" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
