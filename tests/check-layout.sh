#!/usr/bin/env bash
# check-layout.sh - the source tree's shape rules, checked by the test
# command: no C file passes 600 lines, and within each plugin no files
# include each other in a circle (a.c, a.h and a module's internal header
# a_int.h count as one module "a"; an edge a -> b for every #include "b.h"
# in a file of a).
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
done < <(find plugins common tools tests include -name '*.[ch]' | sort)

for dir in plugins/*/; do
	edges=$(
		for f in "$dir"*.[ch]; do
			from=$(basename "${f%.[ch]}")
			echo "${from%_int} ${from%_int}"
			sed -n 's/^#include "\([^"/]*\)\.h".*/\1/p' "$f" | while read -r to; do
				[ -e "$dir$to.h" ] && echo "${from%_int} ${to%_int}"
			done
		done
	)
	if ! out=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null) || [ -n "$out" ]; then
		echo "check-layout: files of $dir include each other in a circle:"
		printf '%s\n' "$out" | sed 's/^tsort: /  /'
		rc=1
	fi
done

[ "$rc" -eq 0 ] && echo "check-layout: every C file has at most 600 lines; no include circles in plugins/"
exit "$rc"
