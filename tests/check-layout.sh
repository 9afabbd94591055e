#!/usr/bin/env bash
# check-layout.sh - the source tree's shape rules, checked by the test
# command: no C file passes 600 lines, and within each plugin no files
# include each other in a circle (a.c, a.h and a module's internal header
# a_int.h count as one module "a"; an edge a -> b for every #include "b.h"
# in a file of a, where b is a path from the plugin's folder, e.g.
# "overlay/conn.h"), and neither do the plugin's sub-folders (its layers).
#
# usage: tests/check-layout.sh      exit 0 when both hold, else 1
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
rc=0

while IFS= read -r f; do
	n=$(wc -l <"$f")
	if [ "$n" -gt 600 ]; then
		echo "check-layout: $f has $n lines (at most 600)"
		rc=1
	fi
done < <(find plugins common programs tests include -name '*.[ch]' | sort)

for dir in plugins/*/; do
	edges=$(
		find "$dir" -name '*.[ch]' | sort | while read -r f; do
			from=${f#"$dir"}
			from=${from%.[ch]}
			echo "${from%_int} ${from%_int}"
			sed -n 's/^#include "\([^"]*\)\.h".*/\1/p' "$f" | while read -r to; do
				if [ -e "$dir$to.h" ]; then echo "${from%_int} ${to%_int}"; fi
			done
		done
	)
	if ! out=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null) || [ -n "$out" ]; then
		echo "check-layout: files of $dir include each other in a circle:"
		printf '%s\n' "$out" | sed 's/^tsort: /  /'
		rc=1
	fi
	# The sub-folders are layers: none may reach back to one that uses it.
	folders=$(printf '%s\n' "$edges" | awk '{
		a = $1; b = $2; sub(/\/.*/, "", a); sub(/\/.*/, "", b)
		print a, (a == b ? a : b) }' | sort -u)
	if ! out=$(printf '%s\n' "$folders" | tsort 2>&1 >/dev/null) || [ -n "$out" ]; then
		echo "check-layout: folders of $dir use each other in a circle:"
		printf '%s\n' "$out" | sed 's/^tsort: /  /'
		rc=1
	fi
done

[ "$rc" -eq 0 ] && echo "check-layout: every C file has at most 600 lines; no include circles between files or folders of plugins/"
exit "$rc"
