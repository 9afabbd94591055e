#!/usr/bin/env bash
# check-man.sh - the man pages in doc/man agree with the documentation
# (README.md, doc/admin-guide.md, doc/app-guide.md) and the code, checked by
# the test command:
#
#   - every page renders without a groff warning (groff -man -ww);
#   - pmixev-mpi.conf.5 has an entry for every mpi.conf option of the
#     admin guide's options table and of the code's (common/pmixev_conf.c),
#     with every SLURM_PMIXEV_* variable of either, and for each option of
#     the code its rule for a job's value and, for numbers, its range and
#     default; and no entry for an option the code does not have;
#   - pmixev.7 names every SPANK option of the code
#     (plugins/spank_pmixev/spank_options.c, as --NAME=ARG) and of the
#     documentation, and no other; every event code of the documentation's
#     event tables (with its value, "NAME (VALUE)", where it gives one) and
#     of include/pmixev_events.h; every key, directive, log channel and
#     range of the app guide's query, job-control, log, allocation, group
#     and event range tables;
#   - pmixev-notify.8's synopsis is the program's usage line, and it names
#     every option the program and the app guide's site-event section use;
#   - each page's .TH says the version configure.ac has, and Makefile.am
#     installs each page (dist_man_MANS).
#
# The pages are compared as groff renders them (plain text, blanks
# collapsed), so roff markup never hides or fakes a name.
#
# usage: tests/check-man.sh      exit 0 when all hold, else 1, naming each
#                                missing or wrong item
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
rc=0
pages=(doc/man/pmixev.7 doc/man/pmixev-mpi.conf.5 doc/man/pmixev-notify.8 doc/man/pmixev-check.8)

if ! command -v groff >/dev/null; then
	echo "check-man: groff is missing (scripts/install-deps.sh installs groff-base)"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for page in "${pages[@]}"; do
	if [ ! -f "$page" ]; then
		echo "check-man: $page is missing"
		exit 1
	fi
	# As man(1) formats for a terminal, and for groff's default device.
	warnings=$({
		groff -man -Tutf8 -ww -z "$page"
		groff -man -ww -z "$page"
	} 2>&1 || true)
	if [ -n "$warnings" ]; then
		echo "check-man: groff warns about $page:"
		printf '%s\n' "$warnings" | awk '!seen[$0]++ { print "  " $0 }'
		rc=1
	fi
	groff -man -Tascii -P-c -P-b -P-o -P-u "$page" \
		>"$tmp/$(basename "$page").txt"
done

perl - "$tmp" <<'PERL' || rc=1
use strict;
use warnings;

my $tmp = shift;
my $fails = 0;

sub fail { print "check-man: @_\n"; $fails++; }

sub slurp {
	my ($path) = @_;
	open(my $f, '<', $path) or die "check-man: cannot read $path: $!\n";
	local $/;
	return <$f>;
}

# The rendered pages, blanks collapsed.
my %page;
for my $name ('pmixev.7', 'pmixev-mpi.conf.5', 'pmixev-notify.8', 'pmixev-check.8') {
	($page{$name} = slurp("$tmp/$name.txt")) =~ s/\s+/ /g;
}

# Whether rendered page `p` names `word` as a whole word.
sub names {
	my ($p, $word) = @_;
	return $page{$p} =~ /(?<![A-Za-z0-9_.\-])\Q$word\E(?![A-Za-z0-9_])/;
}

# ---- the documentation: its tables, each with its file and section ----
my @docs = ('README.md', 'doc/admin-guide.md', 'doc/app-guide.md');
my $docs = join(', ', @docs);
my (@tables, $section, $cur);
for my $doc (@docs) {
	$cur = undef;
	for my $line (split /\n/, slurp($doc)) {
		$section = $1 if $line =~ /^#+\s+(.*)/;
		if ($line !~ /^\|/) {
			$cur = undef;
			next;
		}
		my @cells = map { s/^\s+|\s+$//gr } split /(?<!\\)\|/, $line;
		shift @cells;
		if (!$cur) {
			$cur = {doc => $doc, section => $section, header => \@cells,
				rows => []};
			push @tables, $cur;
		} elsif ($line !~ /^\|[\s:|-]+$/) {
			push @{$cur->{rows}}, \@cells;
		}
	}
}

# The PMIx names in backquotes in `cell`, each with the value that follows
# it in parentheses, "(-402)", if any. A name is "A|B|...": the documentation
# shortens a name after another, "`PMIX_RANGE_LOCAL`, `_PROC_LOCAL`",
# "`PMIX_ALLOC_NUM_NODES`, `_NUM_CPUS`", and which of the first one's
# parts the short one replaces varies, so it stands for each of them: the
# page must name one.
sub pmix_names {
	my ($cell) = @_;
	my (@out, $prev);
	while ($cell =~ /`([^`]+)`(\s*\((-?\d+)\))?/g) {
		my ($t, $value) = ($1, $3);
		if ($t =~ /^(_[A-Z0-9]+)+$/ && defined $prev) {
			my $n = () = $t =~ /_/g;
			my @parts = split /_/, $prev;
			my %seen;
			$t = join('|', grep { !$seen{$_}++ }
				map { join('_', @parts[0 .. $#parts - $_]) . $t }
				grep { $_ <= $#parts } $n, 1 .. $#parts);
		} elsif ($t !~ /^PMIX(EV)?_[A-Z0-9_]+$|^slurm\.pmixev\.[a-z.]+$/) {
			next;
		}
		push @out, [$t, $value];
		$prev = $t =~ s/\|.*//r;
	}
	return @out;
}

# Whether rendered page `p` names one of the names in `alts` ("A|B"), or
# with `value` "NAME (VALUE)".
sub names_one {
	my ($p, $alts, $value) = @_;
	for my $name (split /\|/, $alts) {
		return 1 if defined $value
			? index($page{$p}, "$name ($value)") >= 0
			: names($p, $name);
	}
	return 0;
}

sub shown { return $_[0] =~ s/\|/ (or /r . ($_[0] =~ /\|/ ? ')' : '') }

sub column {
	my ($t, $name) = @_;
	for my $i (0 .. $#{$t->{header}}) {
		return $i if $t->{header}[$i] eq $name;
	}
	return -1;
}

my (%conf_key, %conf_env, %event, %key);
for my $t (@tables) {
	my $first = $t->{header}[0] // '';
	for my $row (@{$t->{rows}}) {
		my $c0 = $row->[0] // '';
		if ($first eq 'key' && $c0 =~ /^`(PMIxev\w+)`$/) {
			$conf_key{$1}{$t->{doc}} = 1;
			$conf_env{$_}{$t->{doc}} = 1
				for ($row->[1] // '') =~ /`(SLURM_PMIXEV_\w+)`/g;
			next;
		}
		if ($first =~ /^(key|directive|data key.*|range)$/) {
			$key{$_->[0]} = "$t->{doc}, \"$t->{section}\""
				for pmix_names($c0);
		}
		for my $h ('code', 'event') {
			my $i = column($t, $h);
			next if $i < 0;
			my @names = pmix_names($row->[$i] // '');
			my $v = column($t, 'value');
			$names[0][1] = $row->[$v] =~ s/\s//gr
				if $v >= 0 && @names == 1;
			$event{$_->[0]} = $_->[1] for @names;
		}
	}
}
# The SPANK options the documentation names, each with its file; the
# options of pmixev-notify its "Site events" section names, with its file.
my (%doc_spank, %doc_notify);
for my $doc (@docs) {
	my $text = slurp($doc);
	$doc_spank{$_} //= $doc for $text =~ /(?<![\w-])--(pmixev-[a-z-]*[a-z])/g;
	my ($site) = $text =~ /\n#+ Site events[^\n]*\n(.*?)\n#/s;
	$doc_notify{$_} //= $doc for ($site // '') =~ /(?<![\w-])(--[a-z]+)/g;
}

fail("$docs: found no mpi.conf option table (key | job override | ...)")
	unless %conf_key;
fail("$docs: found no event table (a column \"code\")") unless %event;
fail("$docs: found no key or directive tables") unless %key;
fail("$docs: found no --pmixev-* option") unless %doc_spank;
fail("$docs: found no pmixev-notify option in a \"Site events\" section")
	unless %doc_notify;

# ---- common/pmixev_conf.c: the options, their ranges, defaults, rules ----
my $conf_c = slurp('common/pmixev_conf.c');
my ($nkeys) = slurp('common/pmixev_conf.h') =~
	/enum pmixev_conf_idx \{(.*?)PMIXEV_CONF_NKEYS/s;
$nkeys = () = ($nkeys // '') =~ /PMIXEV_CONF_\w+/g;
my ($otable) = $conf_c =~ /options\[PMIXEV_CONF_NKEYS\] = \{(.*?)\n\};/s;
my ($rtable) = $conf_c =~ /rules\[PMIXEV_CONF_NKEYS\] = \{(.*?)\n\};/s;
my %rule_of = ($rtable // '') =~ /\[PMIXEV_CONF_(\w+)\]\s*=\s*PMIXEV_RULE_(\w+)/g;
my %code_opt;
while (($otable // '') =~ /\[PMIXEV_CONF_(\w+)\]\s*=\s*\{\s*"(\w+)",\s*(?:NULL|"(\w+)"),\s*offsetof\([^)]*\),\s*(\d+),\s*(\d+),\s*([^,]+),/g) {
	my ($idx, $k, $env, $min, $max, $def) = ($1, $2, $3, $4, $5, $6);
	$code_opt{$k} = {env => $env, rule => $rule_of{$idx},
		range => $max > 0 ? [$min, $max, $def] : undef};
	$conf_key{$k}{'common/pmixev_conf.c'} = 1;
	$conf_env{$env}{'common/pmixev_conf.c'} = 1 if defined $env;
}
fail("common/pmixev_conf.c: read " . keys(%code_opt) . " options with their rules, "
	. "the header declares $nkeys: has the option table's form changed?")
	if $nkeys == 0 || keys(%code_opt) != $nkeys
	|| grep { !defined $_->{rule} } values %code_opt;

# ---- pmixev-mpi.conf.5: one entry per option, "KEY=ARG Range|Values" ----
my $p5 = 'pmixev-mpi.conf.5';
my %entry;
my @at;
push @at, [$1, $-[0]] while $page{$p5} =~ /(?<![\w])(PMIxev\w+)=\S+ (?:Range|Values)/g;
for my $i (0 .. $#at) {
	my $end = $i < $#at ? $at[$i + 1][1] : length $page{$p5};
	$entry{$at[$i][0]} = substr($page{$p5}, $at[$i][1], $end - $at[$i][1]);
}
my %rule_text = (FREE => 'any valid value', LOWER => 'may only lower it',
	RAISE => 'may only raise it');
for my $k (sort keys %conf_key) {
	my $from = join(', ', sort keys %{$conf_key{$k}});
	my $e = $entry{$k};
	if (!defined $e) {
		fail("doc/man/$p5 lacks the mpi.conf option $k ($from)");
		next;
	}
	my $o = $code_opt{$k} or next;
	if ($o->{range}) {
		my ($min, $max, $def) = @{$o->{range}};
		fail("doc/man/$p5: $k is not given the code's range $min-$max and default $def")
			unless $e =~ /^\S+ Range \Q$min-$max\E\b[^;]*; default \Q$def\E\b/;
	}
	my $want = $o->{rule} eq 'SITE' ? 'Job: none (site only'
		: "Job: " . ($o->{env} // '?') . " ($rule_text{$o->{rule}}";
	fail("doc/man/$p5: $k does not say \"$want...\" (common/pmixev_conf.c's rule)")
		unless index($e, $want) >= 0;
}
for my $k (sort keys %entry) {
	fail("doc/man/$p5 documents $k, which common/pmixev_conf.c does not have")
		unless $code_opt{$k};
}
for my $v (sort keys %conf_env) {
	fail("doc/man/$p5 lacks the job variable $v ("
		. join(', ', sort keys %{$conf_env{$v}}) . ')')
		unless names($p5, $v);
}

# ---- pmixev.7: SPANK options ----
my $p7 = 'pmixev.7';
my %spank;
my $spank_c = slurp('plugins/spank_pmixev/spank_options.c');
while ($spank_c =~ /\{"(pmixev-[a-z-]+)",\s*"(\w+)"/g) {
	$spank{$1} = 1;
	fail("doc/man/$p7 lacks the SPANK option --$1=$2 (plugins/spank_pmixev/spank_options.c)")
		unless index($page{$p7}, "--$1=$2") >= 0;
}
fail('plugins/spank_pmixev/spank_options.c: found no option') unless %spank;
for my $o (sort keys %doc_spank) {
	fail("doc/man/$p7 lacks the SPANK option --$o ($doc_spank{$o})")
		unless $page{$p7} =~ /--\Q$o\E(?![a-z-])/;
}
for my $p ($p7, $p5) {
	my %seen;
	for my $o ($page{$p} =~ /--(pmixev-[a-z-]*[a-z])/g) {
		fail("doc/man/$p names --$o, which spank_options.c does not define")
			unless $spank{$o} || $seen{$o}++;
	}
}

# ---- pmixev.7: events, keys, directives ----
my $events_h = slurp('include/pmixev_events.h') =~ s/\\\n//gr;
my $header_names = 0;
while ($events_h =~ /^#define (PMIXEV_\w+)[ \t]+(\(-?\d+\)|"[^"]*")/mg) {
	my ($name, $value) = ($1, $2);
	$header_names++;
	if ($value =~ /^\((-?\d+)\)$/) {
		$event{$name} = $1;
		next;
	}
	$value =~ s/"//g;
	fail("doc/man/$p7 lacks $name (include/pmixev_events.h)")
		unless names($p7, $name);
	fail("doc/man/$p7 lacks $value, the key $name (include/pmixev_events.h)")
		unless names($p7, $value);
}
fail('include/pmixev_events.h: found no #define') unless $header_names;
for my $name (sort keys %event) {
	my $v = $event{$name};
	fail("doc/man/$p7 lacks the event " . shown($name)
		. (defined $v ? " as \"NAME ($v)\"" : ''))
		unless names_one($p7, $name, $v);
}
for my $name (sort keys %key) {
	fail("doc/man/$p7 lacks " . shown($name) . " ($key{$name})")
		unless names_one($p7, $name);
}

# ---- pmixev-notify.8 ----
my $p8 = 'pmixev-notify.8';
my $notify_c = slurp('programs/pmixev-notify.c');
my ($usage) = $notify_c =~ /fprintf\(stderr,\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\);/;
$usage = join('', ($usage // '') =~ /"((?:[^"\\]|\\.)*)"/g);
if ($usage =~ /^usage: (.*?)\\n$/) {
	fail("doc/man/$p8: its synopsis is not the program's usage \"$1\"")
		unless index($page{$p8}, "SYNOPSIS $1 ") >= 0;
} else {
	fail('programs/pmixev-notify.c: found no usage line');
}
my %notify = map { $_ => 'programs/pmixev-notify.c' }
	$notify_c =~ /strcmp\(argv\[i\], "(--[a-z]+)"\)/g;
fail('programs/pmixev-notify.c: found no option') unless %notify;
$notify{$_} //= $doc_notify{$_} for keys %doc_notify;
for my $o (sort keys %notify) {
	fail("doc/man/$p8 lacks the option $o ($notify{$o})")
		unless $page{$p8} =~ /\Q$o\E(?![a-z-])/;
}
my ($options) = $page{$p8} =~ / OPTIONS (.*?) EXIT STATUS /;
for my $o (($options // '') =~ /(?<![\w-])(--[a-z]+)/g) {
	fail("doc/man/$p8 describes $o, which programs/pmixev-notify.c does not take")
		unless ($notify{$o} // '') eq 'programs/pmixev-notify.c';
}

# ---- pmixev-check.8 ----
my $pc = 'pmixev-check.8';
my %check = map { ("--$_" => 1) }
	slurp('programs/pmixev-check.c') =~ /\{"([a-z]+)", (?:required|no)_argument/g;
fail('programs/pmixev-check.c: found no option') unless %check;
for my $o (sort keys %check) {
	fail("doc/man/$pc lacks the option $o (programs/pmixev-check.c)")
		unless $page{$pc} =~ / OPTIONS .*\Q$o\E(?![a-z-]).* EXIT STATUS /;
}
my ($coptions) = $page{$pc} =~ / OPTIONS (.*?) EXIT STATUS /;
for my $o (($coptions // '') =~ /(?<![\w-])(--[a-z]+)/g) {
	fail("doc/man/$pc describes $o, which programs/pmixev-check.c does not take")
		unless $check{$o};
}

# ---- versions and installation ----
my ($version) = slurp('configure.ac') =~ /AC_INIT\(\[pmixev\], \[([^\]]+)\]/;
my ($mans) = slurp('Makefile.am') =~ /^dist_man_MANS\s*=((?:[^\n]*\\\n)*[^\n]*)/m;
for my $name (sort keys %page) {
	my ($th) = slurp("doc/man/$name") =~ /^\.TH .* "pmixev ([^"]+)" "pmixev"$/m;
	fail("doc/man/$name: .TH says version " . ($th // '(none)')
		. ", configure.ac " . ($version // '(none)'))
		unless defined $th && defined $version && $th eq $version;
	fail("Makefile.am does not install doc/man/$name (dist_man_MANS)")
		unless ($mans // '') =~ /(?:^|\s)doc\/man\/\Q$name\E(?:\s|$)/;
}

open(my $counts, '>', "$tmp/counts") or die "check-man: $tmp/counts: $!\n";
printf $counts "check-man: %d mpi.conf options, %d job variables, %d SPANK options, "
	. "%d events, %d keys and directives, %d pmixev-notify options "
	. "documented\n", scalar(keys %conf_key), scalar(keys %conf_env),
	scalar(keys %spank), scalar(keys %event), scalar(keys %key),
	scalar(keys %notify)
	unless $fails;
exit($fails ? 1 : 0);
PERL

[ "$rc" -eq 0 ] && cat "$tmp/counts" &&
	echo "check-man: ${#pages[@]} man pages render without warnings and agree with the documentation and the code"
exit "$rc"
