#!/usr/bin/env bash
# Another local user cannot deny a step's ranks their PMIx_Init by
# flooding the gate, nor flood the node's log or the job's output. The
# other user opens a few thousand idle loopback listeners on n1 (each a
# row of /proc/net/tcp, which the gate once read whole per connection)
# and floods the step's gate with connect/close cycles and with
# connections held open. The step's ranks on n1 still wire up within
# twice the time they take without the attack (plus 2 s: the attacker
# shares the machine's cores); n1's slurmd log sums the refusals up in a
# few lines naming the other user's uid, instead of one line per
# connection; and srun's output carries none of them.
. "$(dirname "$0")/lib.sh"
plan 7

LISTENERS=${PMIXEV_FLOOD_LISTENERS:-5000}
ATTACK_SECS=35
other=$(id -u "$PMIXEV_OTHER_USER")
hello=$(client pmix_hello)
uri_file=$PMIXEV_CLUSTER_WORKDIR/33-uri
flag=$PMIXEV_CLUSTER_WORKDIR/33-go

# victim NAME: start 4 ranks on n1 that wait for $flag, then run
# pmix_hello and say how long it took; srun's output in $vlog.
victim() {
	vlog=$PMIXEV_CLUSTER_WORKDIR/33-$1.out
	rm -f "$flag" "$uri_file"
	# shellcheck disable=SC2016 # expanded by the ranks' shell
	with_env PMIXEV_CLIENT_TIMEOUT=40 -- srun --mpi=pmixev -N1 -n4 -w n1 -t 2 \
		bash -c '
		[ "$SLURM_PROCID" = 0 ] && env | sed -n "s/^PMIX_SERVER_URI[0-9]*=//p" |
			head -n1 >"$2.tmp" && mv "$2.tmp" "$2"
		[ "$SLURM_PROCID" = 0 ] && echo "33: job $SLURM_JOB_ID"
		while [ ! -e "$1" ]; do sleep 0.05; done
		s=$(date +%s%N); timeout 25 "$3"; rc=$?; e=$(date +%s%N)
		echo "33: rank $SLURM_PROCID: wire-up $(((e - s) / 1000000)) ms, exit $rc"' \
		_ "$flag" "$uri_file" "$hello" >"$vlog" 2>&1 &
	vpid=$!
	for _ in $(seq 600); do
		[ -s "$uri_file" ] && return 0
		sleep 0.1
	done
	diag "the step's rank 0 never wrote its server URI"
	return 1
}

# wireup_ms: the slowest rank's wire-up in $vlog, if all 4 ranks passed.
wireup_ms() {
	[ "$(grep -c '^33: rank [0-3]: wire-up [0-9]* ms, exit 0$' "$vlog")" -eq 4 ] &&
		sed -n 's/^33: rank [0-3]: wire-up \([0-9]*\) ms, exit 0$/\1/p' "$vlog" | sort -n | tail -n1
}

# ---- without the attack ----
victim base && touch "$flag"
wait "$vpid"
base=$(wireup_ms)
[ -n "$base" ]
ok $? "without the attack, 4 ranks on n1 wire up in ${base:-?} ms" ||
	sed 's/^/#   /' "$vlog" >&2
base=${base:-1000}

# ---- the attacker ----
cat >/tmp/33-flood.pl <<'EOF'
# usage: perl 33-flood.pl PORT LISTENERS SECONDS READY-FILE
use strict;
use warnings;
use Socket;
use POSIX ();
$| = 1;
my ($port, $n, $secs, $ready) = @ARGV;
my $lo = inet_aton("127.0.0.1");
my @keep;
for (1 .. $n) {
	socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
	bind($s, pack_sockaddr_in(0, $lo)) or die "bind: $!";
	listen($s, 1) or die "listen: $!";
	push @keep, $s;
}
my $dst = pack_sockaddr_in($port, $lo);
my $end = time + $secs;
my @kids;
open(my $fh, '>', $ready) or die "$ready: $!";
close($fh);
# Two cycle connect/close, one holds up to 1000 connections open; until
# the time is up or READY-FILE is gone.
for my $k (0 .. 2) {
	my $pid = fork() // die "fork: $!";
	if (!$pid) {
		alarm($secs + 5);
		my ($n, @held) = (0);
		while (time < $end && -e $ready) {
			socket(my $c, PF_INET, SOCK_STREAM, 0) or next;
			$n++ if connect($c, $dst);
			next if $k < 2;
			push @held, $c;
			shift @held if @held > 1000;
		}
		print "flood: " . ($k < 2 ? "cycler" : "holder") . " $k: $n connections\n";
		POSIX::_exit(0);
	}
	push @kids, $pid;
}
waitpid($_, 0) for @kids;
EOF
chmod 0644 /tmp/33-flood.pl

victim attack
port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$uri_file")
diag "the step's gate on n1 listens at port ${port:-?}"
ready=/tmp/33-flood-ready
rm -f "$ready"
mark=$(wc -l <"$(slurmd_log n1)")
on_node n1 runuser -u "$PMIXEV_OTHER_USER" -- bash -c \
	'ulimit -n $(($2 + 3000)) && exec timeout -k 2 "$3" perl /tmp/33-flood.pl "$@"' _ \
	"$port" "$LISTENERS" "$ATTACK_SECS" "$ready" >/tmp/33-flood.out 2>&1 &
apid=$!
for _ in $(seq 300); do
	[ -e "$ready" ] && break
	sleep 0.1
done
[ -e "$ready" ]
ok $? "$PMIXEV_OTHER_USER opened $LISTENERS loopback listeners on n1 and floods the gate"
sleep 3 # the flood fills the gate's queue
rows=$(on_node n1 cat /proc/net/tcp | wc -l)
touch "$flag"
wait "$vpid"
attacked=$(wireup_ms)
diag "/proc/net/tcp on n1: $rows rows; wire-up $base ms, under attack ${attacked:-none}"
[ -n "$attacked" ] && [ "$attacked" -le $((2 * base + 2000)) ]
ok $? "under attack the ranks wire up in ${attacked:-(failed)} ms (limit $((2 * base + 2000)) ms)" ||
	grep -v '^srun: ' "$vlog" | head -n 10 | sed 's/^/#   /' >&2
# The step is over: so is the flood.
rm -f "$ready"
wait "$apid"
sed 's/^/# /' /tmp/33-flood.out >&2
rm -f /tmp/33-flood.pl "$ready" /tmp/33-flood.out

job=$(sed -n 's/^33: job \([0-9]*\)$/\1/p' "$vlog")
wait_log "$(slurmd_log n1)" "step $job\.0 on n1: pmix gate: [0-9]+ connection\(s\) of other users refused during the step"
ok $? "the stepd sums up the refusals at the step's end"
n=$(tail -n +"$mark" "$(slurmd_log n1)" | grep -c "step $job\.0 on n1: pmix gate: .*refus")
bytes=$(tail -n +"$mark" "$(slurmd_log n1)" | grep "step $job\.0 on n1: pmix gate: .*refus" | wc -c)
diag "n1's slurmd log: $n refusal line(s), $bytes bytes"
[ "$n" -le 12 ]
ok $? "n1's slurmd log has $n refusal lines (at most 12)"
tail -n +"$mark" "$(slurmd_log n1)" |
	grep -Eq "step $job\.0 on n1: pmix gate: [0-9]+ connection\(s\) refused in the last [0-9]+ s, from uid\(s\) ([0-9]+, )*$other\b"
ok $? "... that sum the refusals up, naming uid $other" ||
	tail -n +"$mark" "$(slurmd_log n1)" | grep "pmix gate" | tail -n 5 | sed 's/^/#   /' >&2
vbytes=$(grep -i "refus" "$vlog" | wc -c)
[ "$vbytes" -eq 0 ]
ok $? "the victim's srun output has no refusal lines ($vbytes bytes)"
rm -f "$flag" "$uri_file"

done_testing
