#!/usr/bin/env bash
# Check every "seen to fail" claim against the run that bears it out
# (issues #29 §5, #38 §3): fast, no build, no boot, no kernel checkout.
#
# Usage: tools/boot/check-claims.sh
# The source of a claim is its data: the "# fails:" line of a diff of
# tests/broken/ (what tools/boot/broken-variants.sh runs), and a line of
# debian-system/broken-variants (what tools/debian/broken.sh runs). Each such
# variant needs a row of its record (docs/broken-variants.tsv,
# docs/debian-broken.tsv)
#   - whose diff_sha1 is that of the diff as it is now,
#   - whose stack_id is today's (stack_id of tools/lib/lib.sh, computed from
#     branch-stack.txt and patches/): a row of another stack ran on
#     another kernel, and is stale,
#   - whose verdict is "caught", by the catcher the claim names (caught_by):
#     "fails: test SUITE.NAME" the test's own assertion, "fails: kunit
#     CASE" the case, "fails: splat REGEX" the splat scan; a Debian test
#     its own assertion, every test of the line.
# The documents must say the same as the data:
#   - docs/testing.md: a claim is a backquoted name of a variant
#     (`broken-*`, `kunit-*`, `memcg-*`, `free-*`; letters, digits and
#     dashes; a branch of branch-stack.txt is never one) in a claim column
#     of a table: a column whose header says "seen to fail on" or "failed
#     on", or begins with "variant". The claim is for the row's test: the
#     SUITE.TEST of a table with "suite" and "test" columns, the KUnit case
#     (shrinker_test_CASE) of a table with a "case" column, none in a
#     "variant" table (a list of the variants). In a test's cell, the names
#     after "splat scan:" are claimed for the splat scan during that test.
#     A claim must match its diff's "# fails:" line (the row's test, or a
#     splat); every diff with a "# fails:" line must be claimed, a test's or
#     a case's in that test's row; every "seen to fail on"/"failed on" table
#     must name a variant.
#   - docs/debian-system.md: its table with "variant" and "must fail"
#     columns has a row per line of debian-system/broken-variants, the same
#     tests in "must fail".
# A Debian variant named in debian-system/broken-due (NAME REASON) is
# defined, not claimed: its record is of another stack and no Debian run
# of today's stack exists yet. It is printed "due" with its run and counted
# apart ("N due"); its row of docs/debian-system.md must say **due**, and a
# due variant whose record is current and caught fails (drop its line).
# A diff without a "# fails:" line is documented, not claimed: only a
# "variant" table may name it (tools/boot/broken-variants.sh never runs it).
# Prints one line per variant and per claim (ok / FAIL and why), a count
# for tools/lib/tally.sh ("check-claims: N passed, N failed"), then the runs that
# are due.
# Exit: 0 when every claim is borne out by a current record; 1 otherwise
# or on bad input.
set -uo pipefail
. "$(dirname "$0")/../lib/lib.sh"

case ${1:-} in
-h|--help) sed -n '2,/^# Exit:/s/^# \{0,1\}//p' "$0"; exit 0 ;;
'') ;;
*) die "no arguments (see --help); got '$1'" ;;
esac

docs=$S61_ROOT/docs/testing.md
record=$S61_ROOT/docs/broken-variants.tsv
dir=$S61_ROOT/tests/broken
ddocs=$S61_ROOT/docs/debian-system.md
dlist=$S61_ROOT/debian-system/broken-variants
drecord=$S61_ROOT/docs/debian-broken.tsv
ddue=$S61_ROOT/debian-system/broken-due
rel() { echo "${1#"$S61_ROOT"/}"; }
for f in "$docs" "$record" "$dlist" "$drecord" "$ddocs"; do
	[ -f "$f" ] || die "no $(rel "$f"): check-claims reads the claims of docs/testing.md and docs/debian-system.md, the variants of debian-system/broken-variants and the records of tools/boot/broken-variants.sh and tools/debian/broken.sh (restore it from git: git checkout -- $(rel "$f"))"
done
# The records' columns, as their tools write them.
rec_header=$(printf '# name\tdiff_sha1\tstack_id\ttop_tree\tverdict\tcaught_by\tfailed_cases\tfirst_splat\tseconds\tdate')
drec_header=$(printf '# name\tdiff_sha1\tstack_id\tverdict\tcaught_by\tfailed\tversion\tseconds\tdate')
[ "$(head -n 1 "$record")" = "$rec_header" ] ||
	die "$(rel "$record"): its header is not tools/boot/broken-variants.sh' ($(head -n 1 "$record" | tr '\t' ' ')); want: $(tr '\t' ' ' <<<"$rec_header")"
[ "$(head -n 1 "$drecord")" = "$drec_header" ] ||
	die "$(rel "$drecord"): its header is not tools/debian/broken.sh's ($(head -n 1 "$drecord" | tr '\t' ' ')); want: $(tr '\t' ' ' <<<"$drec_header")"
now=$(stack_id) || die "cannot compute today's stack id from branch-stack.txt and patches/"

# claims: the claims of docs/testing.md, "NAME<TAB>LINE<TAB>FOR", FOR the
# row's test ("test SUITE.NAME", "kunit CASE"), "splat" (after "splat
# scan:" in a test's cell) or "-" (a "variant" table); and "table<TAB>LINE
# <TAB>N" for each "seen to fail on"/"failed on" table, N its claims.
claims() {
	awk '
	function trim(s) { gsub(/`/, "", s); sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
	function endtable() { if (intable && named) print "table\t" tline "\t" nclaims; intable = 0 }
	/^```/ { fence = !fence; endtable(); next }
	fence { next }
	/^\|/ {
		n = split($0, c, "|")
		if (!intable) {	# the header row
			intable = 1; tline = NR; nclaims = 0; named = 0
			split("", claim); split("", col)
			for (i = 2; i < n; i++) {
				h = tolower(trim(c[i]))
				col[h] = i
				claim[i] = (h ~ /seen to fail on|failed on/ || h ~ /^variant/)
				if (h ~ /seen to fail on|failed on/) named = 1
			}
			kind = ""
			if (("suite" in col) && ("test" in col)) kind = "test"
			else if ("case" in col) kind = "kunit"
			next
		}
		if (c[2] ~ /^[ \t]*:?-+:?[ \t]*$/) next	# the separator row
		if (kind == "test") rowfor = "test " trim(c[col["suite"]]) "." trim(c[col["test"]])
		else if (kind == "kunit") {
			rowfor = trim(c[col["case"]])
			if (rowfor !~ /^shrinker_test_/) rowfor = "shrinker_test_" rowfor
			rowfor = "kunit " rowfor
		} else if (named) rowfor = "?"	# a claim column, but no test
		else rowfor = "-"
		for (i = 2; i < n; i++) {
			if (!claim[i]) continue
			s = c[i]; f = rowfor
			while (s != "") {
				m = index(s, "splat scan:")
				if (m) { part = substr(s, 1, m - 1); rest = substr(s, m + 11) } else { part = s; rest = "" }
				while (match(part, /`[^`]*`/)) {
					tok = substr(part, RSTART + 1, RLENGTH - 2)
					part = substr(part, RSTART + RLENGTH)
					if (tok ~ /^(broken|kunit|memcg|free)-[a-z0-9-]+$/) {
						print tok "\t" NR "\t" f; nclaims++
					}
				}
				s = rest
				if (m && rowfor != "-" && rowfor != "?") f = "splat"
			}
		}
		next
	}
	{ endtable() }
	END { endtable() }' "$docs"
}

# header FILE KEY: the value of "# KEY: ..." in the diff's header.
header() {
	awk -v k="# $2: " 'index($0, "diff --git") == 1 { exit }
		index($0, k) == 1 { print substr($0, length(k) + 1); exit }' "$1"
}

# claim_of FILE: the claim of a diff's "# fails:" line, "test SUITE.NAME",
# "kunit CASE" or "splat"; "bad" for a line tools/boot/broken-variants.sh refuses;
# nothing without one.
claim_of() {
	local v
	v=$(header "$1" fails)
	case $v in
	'') ;;
	"kunit "*) [[ ${v#kunit } =~ ^[a-z0-9_]+$ ]] && echo "$v" || echo bad ;;
	"test "*) [[ ${v#test } =~ ^[a-z0-9_-]+\.[a-z0-9_-]+$ ]] && echo "$v" || echo bad ;;
	"splat "?*) echo splat ;;
	*) echo bad ;;
	esac
}

# row FILE NAME: NAME's row of a record, its fields tab-separated.
row() { awk -F'\t' -v n="$2" '$1 == n' "$1"; }

n=0 bad=0 torun=() dtorun=()
ok() { n=$((n + 1)); echo "ok   $*"; }
ko() { n=$((n + 1)); bad=$((bad + 1)); echo "FAIL $*"; }
# stale_why SHA SID DATE DIFF: why a row of DIFF (recorded SHA, SID) is not
# today's; nothing when it is.
stale_why() {
	local sha
	sha=$(sha1sum "$4" | cut -c1-12)
	if [ "$1" != "$sha" ]; then
		echo "stale record: the diff changed since its run of $3 (recorded diff_sha1 $1, now $sha)"
	elif [ "$2" != "$now" ]; then
		echo "stale record: its run of $3 was on stack ${2/#-/(none recorded)}, today's is $now (patches/ or branch-stack.txt changed since)"
	fi
}

# --- the variants of tests/broken/ and their records --------------------------
list=$(claims) || die "cannot read $(rel "$docs")"
branches=" $(stack_branches | paste -sd' ') "
declare -A want=()
for f in "$dir"/*.diff; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .diff)
	c=$(claim_of "$f")
	[ -n "$c" ] || continue
	want[$name]=$c
	if [ "$c" = bad ]; then
		ko "$name: tests/broken/$name.diff: its '# fails:' line is none of 'kunit CASE', 'test SUITE.NAME', 'splat REGEX' ($(header "$f" fails)); fix the header (tools/boot/broken-variants.sh --help)"
		continue
	fi
	IFS=$'\t' read -r _ rsha rsid _ verdict by _ _ _ date <<<"$(row "$record" "$name")"
	case $c in
	"test "*) catcher="assertion: ${c#test }: " ;;
	"kunit "*) catcher="kunit: ${c#kunit }" ;;
	*) catcher="splat: " ;;
	esac
	if [ -z "${rsha:-}" ]; then
		why="no record in $(rel "$record"): never run"
	elif why=$(stale_why "$rsha" "$rsid" "$date" "$f") && [ -n "$why" ]; then
		:
	elif [ "$verdict" != caught ]; then
		why="its run of $date was $verdict (caught by: $by), not caught by its claim '$c': not borne out; fix the diff or the test"
	elif [[ $by != "$catcher"* ]]; then
		why="its run of $date was recorded caught, but by '$by', not by its claim '$c' ($catcher...)"
	else
		ok "$name: $c, caught by ${by} ($date, stack $rsid)"
		continue
	fi
	ko "$name ($c): $why; run tools/boot/broken-variants.sh $name"
	torun+=("$name")
done
unset rsha rsid verdict by date

# --- the claims of docs/testing.md against the diffs ---------------------------
declare -A claimed=() intest=()
empty=()
while IFS=$'\t' read -r name line for; do
	[ -n "$name" ] || continue
	where="docs/testing.md:$line"
	if [ "$name" = table ]; then
		[ "$for" != 0 ] || empty+=("$line")
		continue
	fi
	[[ $branches != *" $name "* ]] || continue
	f=$dir/$name.diff
	c=${want[$name]:-}
	if [ ! -f "$f" ]; then
		ko "$name ($where): no tests/broken/$name.diff: a claim without its broken kernel (write the diff, or name the variant that was run)"
	elif [ "$for" = "?" ]; then
		ko "$name ($where): its table has a claim column but no 'suite'/'test' or 'case' column: the claim names no test"
	elif [ -z "$c" ] && [ "$for" = - ]; then
		ok "$name ($where): documented, not claimed (its diff has no '# fails:' line)"
	elif [ -z "$c" ]; then
		ko "$name ($where): claimed for ${for/#splat/the splat scan}, but tests/broken/$name.diff has no '# fails:' line: never run; add the line, or name it outside the claim column"
	elif [ "$for" = - ] || [ "$for" = "$c" ]; then
		claimed[$name]=1
		[ "$for" = - ] || intest[$name]=1
		ok "$name ($where): claimed for $c"
	else
		ko "$name ($where): claimed for ${for/#splat/the splat scan}, but tests/broken/$name.diff says '# fails: $(header "$f" fails)': move the name to the row of what catches it (a splat: after 'splat scan:'), or change the diff's header and run it again"
	fi
done <<<"$list"
for line in "${empty[@]}"; do
	ko "docs/testing.md:$line: a 'seen to fail on'/'failed on' table that names no variant (a backquoted broken-*/kunit-*/memcg-*/free-* name); has the table changed?"
done
for name in $(printf '%s\n' "${!want[@]}" | sort); do
	c=${want[$name]}
	[ "$c" != bad ] || continue
	if [ -z "${claimed[$name]:-}" ]; then
		if [ "$c" = splat ]; then
			where="a 'variant' table, or after 'splat scan:' in the 'seen to fail on' cell of the test it fails during"
		else
			where="the claim cell ('seen to fail on', 'failed on') of ${c#* }'s row"
		fi
		ko "$name ($c): docs/testing.md claims it nowhere: name it in $where, or drop the diff's '# fails:' line"
	elif [ "$c" != splat ] && [ -z "${intest[$name]:-}" ]; then
		ko "$name ($c): docs/testing.md does not name it in the row of ${c#* }: name it in that row's claim cell ('seen to fail on', 'failed on')"
	fi
done

# --- the Debian variants: debian-system/broken-variants --------------------------
# due[NAME]: the reason of NAME's line in debian-system/broken-due.
declare -A dtests=() due=()
ndue=0
if [ -f "$ddue" ]; then
	while read -r name why; do
		case $name in '#'*|'') continue ;; esac
		[ -n "$why" ] || die "debian-system/broken-due: the line of $name gives no reason (NAME REASON)"
		due[$name]=$why
	done <"$ddue"
fi
while read -r name tests _; do
	case $name in '#'*|'') continue ;; esac
	dtests[$name]=$tests
	f=$dir/$name.diff
	if [ -z "$tests" ]; then
		ko "$name (debian-system/broken-variants): no tests named (NAME TESTS OPTIONS)"
		continue
	elif [ ! -f "$f" ]; then
		ko "$name (debian-system/broken-variants): no tests/broken/$name.diff"
		continue
	fi
	IFS=$'\t' read -r _ rsha rsid verdict by _ _ _ date <<<"$(row "$drecord" "$name")"
	missing=
	for t in ${tests//,/ }; do
		[[ "; ${by:-}" == *"; assertion: $t: "* ]] || missing+=" $t"
	done
	if [ -z "${rsha:-}" ]; then
		why="no record in $(rel "$drecord"): never run"
	elif why=$(stale_why "$rsha" "$rsid" "$date" "$f") && [ -n "$why" ]; then
		:
	elif [ "$verdict" != caught ]; then
		why="its run of $date was $verdict (caught by: $by): not borne out"
	elif [ -n "$missing" ]; then
		why="its run of $date was recorded caught, but not by the own assertion of$missing (caught by: $by)"
	elif [ -n "${due[$name]:-}" ]; then
		ko "$name (Debian): marked due in $(rel "$ddue"), but its record is current and caught by $by: drop its line there"
		continue
	else
		ok "$name (Debian): $tests, caught by $by ($date, stack $rsid)"
		continue
	fi
	if [ -n "${due[$name]:-}" ]; then
		echo "due  $name (Debian, $tests): not claimed (${due[$name]}): $why"
		ndue=$((ndue + 1))
		dtorun+=("$name")
		continue
	fi
	ko "$name (Debian, $tests): $why; run tools/debian/broken.sh $name"
	dtorun+=("$name")
done <"$dlist"
[ ${#dtests[@]} -gt 0 ] || die "debian-system/broken-variants names no variant (NAME TESTS OPTIONS)"
for name in $(printf '%s\n' "${!due[@]}" | sort); do
	[ -n "${dtests[$name]:-}" ] ||
		ko "$name ($(rel "$ddue")): no line in debian-system/broken-variants: nothing of that name can be due"
done

# docs/debian-system.md: its table of the variants and what must fail.
drows=$(awk '
	function trim(s) { gsub(/`/, "", s); sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
	/^\|/ {
		n = split($0, c, "|")
		if (!intable) {
			intable = 1; v = m = 0
			for (i = 2; i < n; i++) {
				h = tolower(trim(c[i]))
				if (h == "variant") v = i
				if (h == "must fail") m = i
			}
			next
		}
		if (!v || !m || c[2] ~ /^[ \t]*:?-+:?[ \t]*$/) next
		t = trim(c[m]); gsub(/[ \t]/, "", t)
		print trim(c[v]) "\t" NR "\t" t
		next
	}
	{ intable = 0 }' "$ddocs")
[ -n "$drows" ] || die "$(rel "$ddocs") has no table with 'variant' and 'must fail' columns (the Debian broken variants)"
declare -A drow=()
sorted() { tr ',' '\n' <<<"$1" | sort | paste -sd, -; }
while IFS=$'\t' read -r name line tests; do
	drow[$name]=1
	if [ -z "${dtests[$name]:-}" ]; then
		ko "$name (docs/debian-system.md:$line): no line in debian-system/broken-variants: tools/debian/broken.sh never runs it"
	elif [ "$(sorted "$tests")" != "$(sorted "${dtests[$name]}")" ]; then
		ko "$name (docs/debian-system.md:$line): must fail '$tests', but debian-system/broken-variants says '${dtests[$name]}'"
	elif [ -n "${due[$name]:-}" ] && ! grep -q '\*\*due\*\*' <<<"$(sed -n "${line}p" "$ddocs")"; then
		ko "$name (docs/debian-system.md:$line): due in $(rel "$ddue"), but its row does not say **due**: a row of another stack's run reads as today's claim"
	else
		ok "$name (docs/debian-system.md:$line): must fail $tests"
	fi
done <<<"$drows"
for name in $(printf '%s\n' "${!dtests[@]}" | sort); do
	[ -n "${drow[$name]:-}" ] ||
		ko "$name (debian-system/broken-variants): no row in docs/debian-system.md's table of the Debian broken variants"
done

if [ $bad = 0 ]; then
	echo "check-claims: $n passed, 0 failed, $ndue due (every claim matches its variant's data, and every claimed variant has a current record of today's stack $now, caught by its claimed catcher; a due variant is not claimed)"
	for name in "${dtorun[@]}"; do
		echo "due: tools/debian/broken.sh $name"
	done
	exit 0
fi
echo "check-claims: $((n - bad)) passed, $bad failed, $ndue due (today's stack: $now)"
[ ${#torun[@]} = 0 ] ||
	echo "to run: tools/boot/broken-variants.sh ${torun[*]}   (or: make broken-variants BROKEN=\"${torun[*]}\")"
for name in "${dtorun[@]}"; do
	echo "to run: tools/debian/broken.sh $name"
done
exit 1
