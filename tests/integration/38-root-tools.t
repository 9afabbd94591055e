#!/usr/bin/env bash
# Root's PMIx tools find the real server only. The job's user may rewrite
# the rendezvous files in its own directory (/run/pmixev/CLUSTER.J.S.NODE)
# to name a listener of its own; root, attaching the documented admin way
# (doc/app-guide.md: TMPDIR=/run/pmixev/CLUSTER.J.S.NODE.srv/tools, which only root
# writes), reaches the step's server, and the user's listener sees no
# connection.
. "$(dirname "$0")/lib.sh"
plan 4

w=$PMIXEV_CLUSTER_WORKDIR
log=$w/38-job.out
start_step "$log" n1 "serving " --mpi=pmixev -N1 -n1 -w n1 -t 2 sleep 40
name=pmixev${PMIXEV_CLUSTER_ID:-0}.$job.0.n1
userdir=/run/pmixev/$name
rootdir=/run/pmixev/$name.srv/tools

# The user's listener, on n1's loopback: it records every connection.
conns=$w/38-connections
rm -f "$conns" "$w/38-port"
on_node n1 runuser -u "$PMIXEV_TEST_USER" -- perl -MIO::Socket::INET -e '
my ($conns, $portf) = @ARGV;
my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0,
	Listen => 8) or die "listen: $!\n";
open(my $f, ">", "$portf.tmp") or die "$portf: $!\n";
printf $f "%d %d\n", $s->sockport, $$;
close $f;
rename("$portf.tmp", $portf) or die "$portf: $!\n";
$SIG{ALRM} = sub { exit 0 };
alarm 60;
while (my $c = $s->accept) {
	open(my $o, ">>", $conns) or die "$conns: $!\n";
	printf $o "connection from %s:%d\n", $c->peerhost, $c->peerport;
	close $o;
	close $c;
}' "$conns" "$w/38-port" &
listener=$!
for _ in $(seq 50); do [ -s "$w/38-port" ] && break; sleep 0.1; done
read -r port listener_pid <"$w/38-port"

# The user points every rendezvous file of its directory at the listener.
on_node n1 runuser -u "$PMIXEV_TEST_USER" -- bash -c '
for f in "$1"/pmix.*; do
	sed -i "s|127\.0\.0\.1:[0-9]*|127.0.0.1:$2|" "$f" || exit 1
done
grep -q "127.0.0.1:$2" "$1"/pmix.*' sh "$userdir" "$port"
ok $? "the job's user rewrote the rendezvous files in $userdir to name its listener (port $port)"

out=$(on_node n1 stat -c '%U %a' "/run/pmixev/$name.srv" "$rootdir" 2>&1)
[ "$(printf '%s\n' "$out" | awk '$1 == "root" && $2 ~ /^7[0-5][0-5]$/' | wc -l)" -eq 2 ]
ok $? "root's tool directory $rootdir and its parent are root's, and only root writes them" || diag "$out"

out=$(on_node n1 timeout 20 env TMPDIR="$rootdir" pps 2>&1)
echo "$out" | grep -q "Active nspaces: .*slurm\.pmixev\.$job\.0"
ok $? "root's pps (TMPDIR=$rootdir) lists the step's namespace slurm.pmixev.$job.0" || diag "$out"

sleep 1
[ ! -s "$conns" ]
ok $? "the user's listener got no connection from root's tool" || sed 's/^/#   /' "$conns" >&2

# The listener itself (runuser does not pass the signal on).
kill "$listener_pid" "$listener" 2>/dev/null
scancel "$job" 2>/dev/null
wait "$srun_pid" 2>/dev/null
wait "$listener" 2>/dev/null
done_testing
