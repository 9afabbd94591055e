#!/usr/bin/env bash
# The plugins load where Slurm loads them: srun lists mpi/pmixev; the SPANK
# plugin loads in srun, sbatch and salloc; both load in slurmctld/slurmd
# without errors, from the cluster's plugin folder: the build's plugins
# staged by the harness, or those the package installed into Slurm's own
# (PMIXEV_INSTALLED=1), never another copy.
. "$(dirname "$0")/lib.sh"
plan 7

out=$(as_user srun --mpi=list 2>&1)
echo "$out" | grep -Eqx '[[:space:]]*pmixev'
ok $? "srun --mpi=list lists pmixev" || diag "$out"

echo "$out" | grep -Eqx '[[:space:]]*pmix'
ok $? "srun --mpi=list still lists the stock pmix plugin"

out=$(as_user srun -v -N1 -t 1 true 2>&1)
echo "$out" | grep -q 'spank/pmixev: loaded'
ok $? "SPANK plugin loads in srun" || diag "$out"

out=$(as_user sbatch -v -N1 -t 1 --wrap true 2>&1)
echo "$out" | grep -q 'spank/pmixev: loaded'
ok $? "SPANK plugin loads in sbatch" || diag "$out"

out=$(as_user salloc -v -N1 -t 1 true 2>&1)
echo "$out" | grep -q 'spank/pmixev: loaded'
ok $? "SPANK plugin loads in salloc" || diag "$out"

bad=$(grep -h -iE 'pmixev' "$(slurmctld_log)" "$PMIXEV_CLUSTER_DIR"/log/slurmd-*.log |
	grep -iE 'plugin_load|incompatible|undefined symbol|load specified plugin|dlopen|spank.*fail' ||
	true)
[ -z "$bad" ]
ok $? "no plugin load errors in slurmctld and slurmd logs" || diag "$bad"

# The files each slurmd mapped: the cluster's two (same inode; in a Debian
# root a daemon's maps name them by the host's path, which ends in ours).
if [ "$PMIXEV_CLUSTER_INSTALLED" = 1 ]; then what="the installed package's"; else what="the build's"; fi
want=$(for f in mpi_pmixev.so spank_pmixev.so; do
	p=$(readlink -f "$PMIXEV_CLUSTER_PLUGINS/$f") && echo "$(stat -c %i "$p") $p"
done)
bad=
for n in $PMIXEV_CLUSTER_NODES; do
	read -r pid <"$PMIXEV_CLUSTER_DIR/pids/slurmd-$n.pid"
	got=$(awk '$6 ~ /\/(mpi|spank)_pmixev\.so$/ { print $5, $6 }' "/proc/$pid/maps" | sort -u)
	same=0
	[ "$(printf '%s\n' "$got" | grep -c .)" = 2 ] && same=1
	while read -r ino path; do
		printf '%s\n' "$got" | grep -q "^$ino .*$path\$" || same=0
	done <<<"$want"
	[ "$same" = 1 ] || bad="$bad $n: ${got//$'\n'/, };"
done
[ -z "$bad" ]
ok $? "every slurmd loaded $what plugins ($(echo "$want" | cut -d' ' -f2 | paste -sd' ')) and no other copy" ||
	diag "loaded:$bad"

done_testing
