#!/usr/bin/env bash
# PMIx_Log (jobmgmt/applog.h): a rank's message into its own stdout or stderr,
# in order with what it printed itself (through srun, labelled as the
# rank's); into the node's syslog with its priority, or the step's first
# node's (global); into the job record in the slurmd log; PMIX_LOG_ONCE;
# email through the site's mail command as the owner; bad items refused
# with the cause in the log; escapes against
# forged log lines; PMIxevLogRate. The test cluster's syslog is a socket
# of its own (tests/cluster/setup.sh: PMIxevLogSyslog), read here.
. "$(dirname "$0")/lib.sh"
plan 10

lg=$(client pmix_log)
syslog_listen

run_step --mpi=pmixev -N3 -n3 -l "$lg" --by 1 "stdout=hello from rank 1"
order=$(printf '%s\n' "$out" | grep -E '^1: (pmix_log: rank 1: (before|log: .*|after)|hello from rank 1)$' |
	sed 's/^1: //; s/PMIX_SUCCESS$/SUCCESS/' | tr '\n' '|')
[ "$rc" -eq 0 ] &&
	[ "$order" = "pmix_log: rank 1: before|hello from rank 1|pmix_log: rank 1: log: SUCCESS|pmix_log: rank 1: after|" ] &&
	[ "$(lines '^[02]: hello')" -eq 0 ]
ok $? "rank 1 (on n2) logs to stdout: its line comes out labelled 1:, after what it printed before, before what it prints after ($order)" ||
	show

# Its stderr goes where the task's stderr goes (here: /dev/null).
run_step --mpi=pmixev -N1 -n1 bash -c 'exec 2>/dev/null; exec "$0" "$@"' "$lg" \
	"stdout=to the terminal" "stderr=to the void"
[ "$rc" -eq 0 ] && [ "$(lines '^to the terminal$')" -eq 1 ] && [ "$(lines 'to the void')" -eq 0 ] &&
	[ "$(lines '^pmix_log: rank 0: log: (PMIX_)?SUCCESS$')" -eq 1 ]
ok $? "stdout and stderr are the task's own: with its stderr sent to /dev/null, only the stdout line shows" || show

run_step --mpi=pmixev -N1 -n1 "$lg" --tag --stamp "stderr=tagged"
[ "$(lines "^20[0-9-]{8}T[0-9:]{8} \[slurm\.pmixev\.$job\.0,0\]<stderr>: tagged$")" -eq 1 ]
ok $? "PMIX_LOG_TAG_OUTPUT and PMIX_LOG_TIMESTAMP_OUTPUT: 'TIME [NSPACE,RANK]<stderr>: TEXT'" || show

# Syslog: local (rank 2's node) and global (the first node's stepd), told
# apart by the tag's pid: the stepds log theirs when they start.
run_step --mpi=pmixev -N3 -n3 "$lg" --by 2 --pri 4 "lsyslog=local warning" "gsyslog=global warning"
spid() { sed -n "s/.*step $job\.0 on $1: serving .*(slurmstepd pid \([0-9]*\),.*/\1/p" "$(slurmd_log "$1")"; }
n1=$(spid n1)
n3=$(spid n3)
uid=$(id -u "$PMIXEV_TEST_USER")
[ -n "$n1" ] && [ -n "$n3" ] && [ "$n1" != "$n3" ] &&
	syslog_has "^<12>[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} pmixev\[$n3\]: step $job\.0 rank 2 \(uid $uid\): local warning$"
ok $? "PMIX_LOG_LOCAL_SYSLOG: rank 2's node's stepd ($n3) writes it, facility user, priority 4 (<12>)" ||
	{ show; diag "syslog:" && sed 's/^/#   /' "$syslog" >&2; }
[ -n "$n1" ] && syslog_has "^<12>.* pmixev\[$n1\]: step $job\.0 rank 2 \(uid $uid\): global warning$"
ok $? "PMIX_LOG_GLOBAL_SYSLOG from rank 2 on n3: the first node's stepd ($n1) writes it" ||
	{ diag "syslog:" && sed 's/^/#   /' "$syslog" >&2; }

# The job record: the slurmd log of the rank's node, escaped.
run_step --mpi=pmixev -N3 -n3 "$lg" --by 1 "jrec=checkpoint 3 written" \
	$'jrec=two\nstep 99.0 on n2: job record: forged'
[ "$(lines '^pmix_log: rank 1: log: (PMIX_)?SUCCESS$')" -eq 1 ] &&
	grep -q "step $job\.0 on n2: job record: rank 1: checkpoint 3 written$" "$(slurmd_log n2)" &&
	grep -q "step $job\.0 on n2: job record: rank 1: two#012step 99.0 on n2: job record: forged$" "$(slurmd_log n2)" &&
	! grep -q "^step 99.0 on n2" "$(slurmd_log n2)"
ok $? "PMIX_LOG_JOB_RECORD: in n2's slurmd log with the step id; a newline is escaped (#012), no forged line" || show

# PMIX_LOG_ONCE: the first channel that takes it; a malformed email is refused.
run_step --mpi=pmixev -N1 -n1 "$lg" --once "email=x" "stdout=once only" "jrec=never written"
nd=$(first_node)
[ "$(lines '^pmix_log: rank 0: log: (PMIX_)?SUCCESS$')" -eq 1 ] && [ "$(lines '^once only$')" -eq 1 ] &&
	! grep -q "step $job\.0 on $nd: job record: rank 0: never written" "$(slurmd_log "$nd")" &&
	grep -q "step $job\.0 on $nd: log: rank 0: email refused (.*BAD.PARAM): not an array of PMIX_LOG_EMAIL_ADDR" "$(slurmd_log "$nd")"
ok $? "PMIX_LOG_ONCE: a malformed email refused (logged), stdout takes it, the job record is not written" || show

# Email: the site's command (PMIxevLogMail, here tests/cluster's mail.sh,
# which appends to mail.txt) run as the job owner by the owner helper.
mail=$PMIXEV_CLUSTER_WORKDIR/mail.txt
rm -f "$mail"
run_step --mpi=pmixev -N2 -n2 "$lg" --by 1 "mail=|Result|step done: 42 GFlops" \
	"mail=ann@example.org, bob|Hi there|second" "mail=-oEvil=1|x|never sent"
u=$PMIXEV_TEST_USER
[ "$(lines '^pmix_log: rank 1: log: (PARTIAL|PMIX_ERR_PARTIAL)')" -eq 1 ] &&
	[ "$(grep -c "^mail from $u: -s Result $u$" "$mail")" -eq 1 ] &&
	[ "$(grep -A1 "^mail from $u: -s Result" "$mail" | tail -n1)" = "step done: 42 GFlops" ] &&
	[ "$(grep -c "^mail from $u: -s Hi there ann@example.org bob$" "$mail")" -eq 1 ] &&
	[ "$(grep -c "^mail from" "$mail")" -eq 2 ] && ! grep -q Evil "$mail" &&
	grep -q "step $job\.0 on n2: log: rank 1: email refused (.*BAD.PARAM)" "$(slurmd_log n2)"
ok $? "PMIX_LOG_EMAIL: the site's mail command runs as the owner with subject and addresses (default: the owner); an address that would be an option is refused" ||
	{ show; diag "mail.txt:"; sed 's/^/#   /' "$mail" >&2; }

run_step --mpi=pmixev -N1 -n1 "$lg" "number=7" "email=x"
nd=$(first_node)
[ "$(lines '^pmix_log: rank 0: log: (BAD-PARAM|PMIX_ERR_BAD_PARAM)$')" -eq 1 ] &&
	grep -q "step $job\.0 on $nd: log: rank 0: stdout refused (.*BAD.PARAM): not a string" "$(slurmd_log "$nd")"
ok $? "a message that is not a string: PMIX_ERR_BAD_PARAM, said in the log; nothing written" || show

# PMIxevLogRate (100 lines a second and node): the excess refused, counted.
run_step --mpi=pmixev -N1 -n1 "$lg" --repeat 400 "jrec=spam"
nd=$(first_node)
took=$(printf '%s\n' "$out" | sed -n 's/^pmix_log: rank 0: 400 requests: \([0-9]*\) succeeded, \([0-9]*\) refused.*/\1 \2/p')
wait_log "$(slurmd_log "$nd")" "step $job\.0 on $nd: log: 400 request\(s\), ${took% *} message\(s\) written, ${took#* } refused \(${took#* } over PMIxevLogRate\)"
# (the step's end summed up: its lines are all in the log now)
written=$(grep -c "step $job\.0 on $nd: job record: rank 0: spam$" "$(slurmd_log "$nd")")
[ -n "$took" ] && [ "${took#* }" -gt 0 ] && [ "${took% *}" -eq "$written" ] &&
	grep -q "step $job\.0 on $nd: log: 400 request(s), ${took% *} message(s) written, ${took#* } refused (${took#* } over PMIxevLogRate)" "$(slurmd_log "$nd")"
ok $? "400 job-record lines at once: over PMIxevLogRate refused, the rest written ($took, $written in the log); the stepd sums it up" ||
	show

done_testing
