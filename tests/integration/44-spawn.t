#!/usr/bin/env bash
# Spawn (issue 29, doc/spawn.md): what lands before the spawn itself.
# pmixev-exec, the program of a spawned step with several applications,
# runs each rank's application with its own argv, environment and
# working directory, and refuses clearly what it cannot run.
. "$(dirname "$0")/lib.sh"
plan 2

exe=$PMIXEV_CLUSTER_WORKDIR/pmixev-exec
install -m 0755 "$PMIXEV_BUILDDIR/programs/pmixev-exec" "$exe"
apps=$("$PMIXEV_TEST_CLIENTS/spawn_apps" \
	'1|/tmp|FOO=first|/bin/sh|-c|echo "app0 rank $SLURM_PROCID $FOO $PWD"' \
	'3|/|FOO=second|sh|-c|echo "app1 rank $SLURM_PROCID $FOO $PWD ${SLURM_PMIXEV_SPAWN_APPS:-clean}"')

# Rank 0 runs the first application, ranks 1-3 the second (found in PATH),
# each in its directory with its environment, without the variable.
step_env=(SLURM_PMIXEV_SPAWN_APPS="$apps")
run_step --mpi=pmixev -N3 -n4 -t 1 "$exe"
step_env=()
[ "$rc" -eq 0 ] &&
	[ "$(lines '^app0 rank 0 first /tmp$')" -eq 1 ] &&
	[ "$(lines '^app1 rank [123] second / clean$')" -eq 3 ] &&
	[ "$(printf '%s\n' "$out" | grep -E '^app1 rank [123]' | sort -u | wc -l)" -eq 3 ]
ok $? "pmixev-exec runs each rank's application: rank 0 the first, ranks 1-3 the second, each with its environment and directory" ||
	show

# One rank more than the applications hold, and a directory that is not
# there: each rank says why and exits 127; the others run.
apps=$("$PMIXEV_TEST_CLIENTS/spawn_apps" '1|/nonexistent|-|/bin/true' \
	'1|/|-|/bin/echo|fine')
step_env=(SLURM_PMIXEV_SPAWN_APPS="$apps")
run_step --mpi=pmixev -K0 -N3 -n3 -t 1 "$exe"
step_env=()
[ "$(lines '^pmixev-exec: rank 0: cannot change to the working directory /nonexistent: No such file or directory$')" -eq 1 ] &&
	[ "$(lines '^pmixev-exec: rank 2: no application for this rank: the applications hold fewer processes than the step$')" -eq 1 ] &&
	[ "$(lines '^fine$')" -eq 1 ] &&
	[ "$(lines 'srun: error: .*tasks? (0|2): Exited with exit code 127')" -ge 1 ]
ok $? "pmixev-exec refuses a missing directory and a rank beyond the applications, saying why (exit 127)" ||
	show
