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
# The claims live with their data only: no document is read. A page of
# docs/ that quotes a claim points at this check and at the results page
# made from the records (docs/results/broken-variants.md).
# A Debian variant named in debian-system/broken-due (NAME REASON) is
# defined, not claimed: its record is of another stack and no Debian run
# of today's stack exists yet. It is printed "due" with its run and counted
# apart ("N due"); a due variant whose record is current and caught fails
# (drop its line).
# A diff without a "# fails:" line is documented, not claimed
# (tools/boot/broken-variants.sh never runs it) and needs no record.
# Prints one line per claimed variant (ok / FAIL and why), a count
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

record=$S61_ROOT/docs/broken-variants.tsv
dir=$S61_ROOT/tests/broken
dlist=$S61_ROOT/debian-system/broken-variants
drecord=$S61_ROOT/docs/debian-broken.tsv
ddue=$S61_ROOT/debian-system/broken-due
rel() { echo "${1#"$S61_ROOT"/}"; }
for f in "$record" "$dlist" "$drecord"; do
	[ -f "$f" ] || die "no $(rel "$f"): check-claims reads the '# fails:' lines of tests/broken/, the variants of debian-system/broken-variants and the records of tools/boot/broken-variants.sh and tools/debian/broken.sh (restore it from git: git checkout -- $(rel "$f"))"
done
# The records' columns, as their tools write them.
rec_header=$(printf '# name\tdiff_sha1\tstack_id\ttop_tree\tverdict\tcaught_by\tfailed_cases\tfirst_splat\tseconds\tdate')
drec_header=$(printf '# name\tdiff_sha1\tstack_id\tverdict\tcaught_by\tfailed\tversion\tseconds\tdate')
[ "$(head -n 1 "$record")" = "$rec_header" ] ||
	die "$(rel "$record"): its header is not tools/boot/broken-variants.sh' ($(head -n 1 "$record" | tr '\t' ' ')); want: $(tr '\t' ' ' <<<"$rec_header")"
[ "$(head -n 1 "$drecord")" = "$drec_header" ] ||
	die "$(rel "$drecord"): its header is not tools/debian/broken.sh's ($(head -n 1 "$drecord" | tr '\t' ' ')); want: $(tr '\t' ' ' <<<"$drec_header")"
now=$(stack_id) || die "cannot compute today's stack id from branch-stack.txt and patches/"

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
for f in "$dir"/*.diff; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .diff)
	c=$(claim_of "$f")
	[ -n "$c" ] || continue
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

if [ $bad = 0 ]; then
	echo "check-claims: $n passed, 0 failed, $ndue due (every claimed variant has a current record of today's stack $now, caught by its claimed catcher; a due variant is not claimed)"
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
