#!/bin/sh
# check-plugin-symbols.sh - every symbol a plugin leaves undefined must be
# defined by Slurm's libslurmfull (loaded in every process that loads the
# plugins) or by a library the plugin links. Plugins may not be linked
# with -Wl,--no-undefined (the Slurm symbols), so without this check a
# missing internal function would only show up in a slurmstepd at run
# time. TAP output; run by `make check`.
set -u

plugins="plugins/mpi_pmixev/.libs/mpi_pmixev.so plugins/spank_pmixev/.libs/spank_pmixev.so"
slurmfull=${SLURM_SYS_PLUGINDIR:?}/libslurmfull.so

echo "1..2"
n=0
fail=0
for so in $plugins; do
	n=$((n + 1))
	provided=$(mktemp)
	{
		nm -D --defined-only "$slurmfull"
		ldd "$so" | awk '$3 ~ /^\// { print $3 }' |
			while read -r lib; do nm -D --defined-only "$lib"; done
	} 2>/dev/null | awk '{ print $3 }' | sed 's/@.*//' | sort -u >"$provided"
	missing=$(nm -D --undefined-only "$so" | awk '$1 == "U" { print $2 }' |
		sed 's/@.*//' | sort -u | comm -23 - "$provided")
	rm -f "$provided"
	if [ -z "$missing" ]; then
		echo "ok $n - ${so##*/}: every undefined symbol resolves"
	else
		echo "not ok $n - ${so##*/}: unresolved: $(echo $missing)"
		fail=1
	fi
done
exit $fail
