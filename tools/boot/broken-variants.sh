#!/usr/bin/env bash
# Run the deliberately broken kernels of tests/broken/ (issue #14: a test
# that cannot fail is a defect, and each test names the broken kernel it was
# seen to fail on). Each diff is applied to the kernel checkout at the top
# of the stack, built and booted with tools/boot/guest-test.sh, and the run must
# FAIL, caught by the catcher its header names.
#
# Usage: tools/boot/broken-variants.sh [options] [NAME...]
#   NAME        a diff of tests/broken/ without .diff (default: all of them
#               whose header has a "fails:" line)
#   --list      print each variant's header line and expectation; run nothing
#   --dry-run   check that every diff applies to the top of the stack; run
#               nothing
#   --table     write docs/broken-variants.md from the record; run nothing
#               (no kernel checkout needed)
# A diff's header (the lines before "diff --git", which git apply ignores):
#   # s61-broken: WHAT IS BROKEN.
#   # run: OPTIONS FOR tools/boot/guest-test.sh (e.g. --config kunit --suites kunit)
#   # fails: kunit CASE        the KUnit case must be reported "not ok"
#   # fails: test SUITE.NAME   the guest test must be "not ok" in the run's
#                              result.ktap by its own assertion (its FAIL:
#                              line; not a timeout, not an exit of its
#                              shell), e.g. smoke.drop-caches-dentries
#   # fails: splat REGEX       the console must show a splat matching REGEX
#   # passes: SUITE.NAME...    optional: these guest tests must still PASS
#                              (ok, no SKIP/XFAIL): the run is to fail on
#                              the splat alone
# The run: line is split on blanks, without quoting: one word per value
# (--append cgroup.memory=nokmem, --append s61.race_secs=60); a quote in it
# is refused.
# Record: docs/broken-variants.tsv, one line per variant (replaced when it
# runs again): name, sha1 of the diff, the stack id (stack_id of
# tools/lib/lib.sh: branch-stack.txt and patches/, which the kernel checkout
# must match: tools/stack/stack.sh status), the top's tree, verdict, what caught it,
# the KUnit cases and guest tests that failed, the first splat, seconds,
# date. The verdict is "caught" only when the catcher the "# fails:" line
# names caught it: "kunit CASE" the case "not ok"; "test SUITE.NAME" the
# test "not ok" by its own assertion (its FAIL: line), not by a timeout or
# an exit of its shell; "splat REGEX" a console line matching REGEX.
# MISSED: the run passed, or failed otherwise (caught_by says how: a
# timeout, a splat where the test's assertion was claimed, another test);
# error: the diff did not apply, the kernel did not build, a harness error.
# caught_by: "assertion: TEST: REASON", "kunit: CASE", "splat: LINE",
# "timeout: TEST: ...", "exit: TEST: ...", "other: TESTS" or "-".
# Table: docs/broken-variants.md, regenerated from the record.
# Logs: .work/logs/broken-<name>.log.
# The checkout must be clean (uncommitted edits are never touched: the tool
# stops and says so); it returns to where it was, the diff reverted, however
# the run ends.
# Exit: 0 when every variant run was caught; 1 otherwise or on bad input.
set -uo pipefail
. "$(dirname "$0")/../lib/lib.sh"

usage() { sed -n '2,/^# Exit:/s/^# \{0,1\}//p' "$0"; }

list=0 dry=0 tableonly=0 names=()
while [ $# -gt 0 ]; do
	case $1 in
	--list) list=1 ;;
	--dry-run) dry=1 ;;
	--table) tableonly=1 ;;
	-h|--help) usage; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) names+=("$1") ;;
	esac
	shift
done

dir=$S61_ROOT/tests/broken
record=$S61_ROOT/docs/broken-variants.tsv
table=$S61_ROOT/docs/broken-variants.md

# header FILE KEY: the value of "# KEY: ..." in the diff's header.
header() {
	awk -v k="# $2: " 'index($0, "diff --git") == 1 { exit }
		index($0, k) == 1 { print substr($0, length(k) + 1); exit }' "$1"
}

# is_test_names WORD...: each WORD is one guest test, SUITE.NAME.
is_test_names() {
	[ $# -gt 0 ] || return 1
	local w
	for w; do
		[[ $w =~ ^[a-z0-9_-]+\.[a-z0-9_-]+$ ]] || return 1
	done
}

clean() { tr '\t\n' '  ' | sed 's/ *$//'; }

# The record's columns (its header line).
rec_header=$(printf '# name\tdiff_sha1\tstack_id\ttop_tree\tverdict\tcaught_by\tfailed_cases\tfirst_splat\tseconds\tdate')

# write_table: docs/broken-variants.md from the record; a row of another
# stack than today's (stack_id of branch-stack.txt and patches/) is marked
# stale.
write_table() {
	local now
	now=$(stack_id) || die "cannot compute the stack id (branch-stack.txt, patches/)"
	[ ! -f "$record" ] || [ "$(head -n 1 "$record")" = "$rec_header" ] ||
		die "${record#"$S61_ROOT"/}: its header is not this tool's ($(head -n 1 "$record" | tr '\t' ' ')); want: $(tr '\t' ' ' <<<"$rec_header")"
	{
		cat <<-EOF
		# Deliberately broken kernels

		Written by \`tools/boot/broken-variants.sh\` (\`make broken-variants\`) from its
		record, docs/broken-variants.tsv. Each variant is a diff of
		tests/broken/ applied to the top of the stack; the run must fail, and
		the catcher the diff's \`# fails:\` line names must have caught it
		("caught"): a KUnit case \`not ok\`, a guest test \`not ok\` by its
		own assertion (its \`FAIL:\` line; a timeout is not one), or a
		console splat matching the pattern. "caught by" says what failed the
		run. The stack id (\`stack_id\` of tools/lib/lib.sh) is computed from
		branch-stack.txt and patches/; a row of another stack ran on another
		kernel: stale, \`tools/boot/check-claims.sh\` fails until it runs again.

		Stack now: \`$now\`.

		| variant | what is broken | must fail | verdict | caught by | KUnit cases and tests failed | first splat | s | stack | date |
		|---|---|---|---|---|---|---|---|---|---|
		EOF
		local name sha sid verdict by cases splat secs date f
		# shellcheck disable=SC2016  # the backquotes are Markdown
		while IFS=$'\t' read -r name sha sid _ verdict by cases splat secs date; do
			case $name in '#'*|'') continue ;; esac
			f=$dir/$name.diff
			[ "$sid" = "$now" ] || sid="$sid (stale)"
			printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" \
				"$( [ -f "$f" ] && header "$f" s61-broken || echo '(diff removed)')" \
				"$( [ -f "$f" ] && header "$f" fails | sed 's/|/\\|/g; s/^/`/; s/$/`/')" \
				"$verdict" "${by//|/\\|}" "$cases" \
				"$( [ "$splat" = - ] && echo - || printf '`%s`' "${splat//|/\\|}")" \
				"$secs" "$sid" "$date"
		done <"$record"
	} >"$table"
}

if [ $tableonly = 1 ]; then
	[ -f "$record" ] || die "no ${record#"$S61_ROOT"/}: nothing to show (tools/boot/broken-variants.sh NAME runs a variant)"
	write_table
	info "wrote ${table#"$S61_ROOT"/}"
	exit 0
fi

if [ ${#names[@]} -eq 0 ]; then
	for f in "$dir"/*.diff; do
		[ -n "$(header "$f" fails)" ] && names+=("$(basename "$f" .diff)")
	done
fi
[ ${#names[@]} -gt 0 ] || die "no variant to run: no diff in ${dir#"$S61_ROOT"/} has a '# fails:' header line"
for n in "${names[@]}"; do
	f=$dir/$n.diff
	[ -f "$f" ] || die "no variant '$n': ${f#"$S61_ROOT"/} does not exist (tools/boot/broken-variants.sh --list shows the variants)"
	fails=$(header "$f" fails)
	case $fails in
	"kunit "?*|"splat "?*) ;;
	"test "?*) is_test_names "${fails#test }" ||
		die "${f#"$S61_ROOT"/}: '# fails: test' wants one SUITE.NAME (e.g. smoke.memcg-reclaim); got '${fails#test }'" ;;
	*) die "${f#"$S61_ROOT"/}: header has no valid '# fails:' line (want 'kunit CASE', 'test SUITE.NAME' or 'splat REGEX'; got '${fails}')" ;;
	esac
	runline=$(header "$f" run)
	[ -n "$runline" ] || die "${f#"$S61_ROOT"/}: header has no '# run:' line (the tools/boot/guest-test.sh options)"
	case $runline in
	*[\"\']*) die "${f#"$S61_ROOT"/}: the '# run:' line has a quote; it is split on blanks without quoting (one word per value, e.g. --append s61.race_secs=60)" ;;
	esac
	passes=$(header "$f" passes)
	# shellcheck disable=SC2086  # one word per test
	[ -z "$passes" ] || is_test_names $passes ||
		die "${f#"$S61_ROOT"/}: '# passes:' wants SUITE.NAME words (e.g. smoke.boot); got '$passes'"
done

if [ $list = 1 ]; then
	for n in "${names[@]}"; do
		f=$dir/$n.diff
		printf '%s\n  broken: %s\n  run:    %s\n  fails:  %s\n' "$n" \
			"$(header "$f" s61-broken)" "$(header "$f" run)" "$(header "$f" fails)"
		[ -z "$(header "$f" passes)" ] || printf '  passes: %s\n' "$(header "$f" passes)"
	done
	exit 0
fi

require_checkout
if [ -n "$(kgit status --porcelain --untracked-files=no)" ]; then
	kgit status --short --untracked-files=no | head -10 >&2
	die "the kernel checkout $S61_LINUX has uncommitted changes; commit and export them (tools/stack/stack.sh export) or stash them first: this tool applies diffs there and reverts them"
fi
top=$(stack_top)
kgit rev-parse -q --verify "refs/heads/$top" >/dev/null ||
	die "the top branch '$top' does not exist in $S61_LINUX; run 'tools/stack/stack.sh apply' first"
# A record names the stack it ran on by patches/ (stack_id, which
# tools/boot/check-claims.sh computes without a checkout): the checkout must be
# that stack, every branch exported and none behind patches/.
if ! st=$("$S61_ROOT/tools/stack/stack.sh" status 2>&1) || [[ $st == *'behind patches/'* ]]; then
	printf '%s\n' "$st" >&2
	die "the kernel checkout is not the stack of patches/ (tools/stack/stack.sh status, above): 'tools/stack/stack.sh apply' when patches/ moved on, 'tools/stack/stack.sh export' when the checkout has commits patches/ lacks; a record must name the stack it ran on"
fi
sid=$(stack_id) || die "cannot compute the stack id (branch-stack.txt, patches/)"
orig=$(kgit symbolic-ref -q --short HEAD || kgit rev-parse HEAD)
applied=
# shellcheck disable=SC2317  # called by the EXIT trap
restore() {
	if [ -n "$applied" ]; then
		kgit apply -R "$applied" 2>/dev/null || kgit checkout -q -- .
		applied=
	fi
	kgit checkout -q "$orig" 2>/dev/null || warn "could not go back to $orig in $S61_LINUX"
}
trap 'restore' EXIT
trap 'echo "broken-variants: interrupted" >&2; exit 130' INT TERM
kgit checkout -q "$top" || die "cannot check out $top in $S61_LINUX"
tree=$(kgit rev-parse "$top^{tree}")

bad=0
for n in "${names[@]}"; do
	f=$dir/$n.diff
	if kgit apply --check "$f" 2>/dev/null; then
		[ $dry = 0 ] || info "$n: applies to $top"
	else
		warn "$n: ${f#"$S61_ROOT"/} does not apply to $top; regenerate it against the top of the stack"
		bad=1
	fi
done
[ $bad = 0 ] || die "some variants do not apply to $top (above); nothing was run"
[ $dry = 0 ] || exit 0

rc=0
for n in "${names[@]}"; do
	f=$dir/$n.diff
	log=$S61_WORK/logs/broken-$n.log
	mkdir -p "$(dirname "$log")"
	read -r -a runopts <<<"$(header "$f" run)"
	fails=$(header "$f" fails)
	sha=$(sha1sum "$f" | cut -c1-12)
	t0=$SECONDS
	kgit apply "$f" || die "$n: git apply failed after --check passed"
	applied=$f
	info "[$n] $(header "$f" s61-broken)"
	"$S61_ROOT/tools/boot/guest-test.sh" "${runopts[@]}" . >"$log" 2>&1
	grc=$?
	kgit apply -R "$f" || die "$n: could not revert ${f#"$S61_ROOT"/} in $S61_LINUX; 'git -C $S61_LINUX checkout -- .' restores the top"
	applied=
	run=$(sed -n 's/^run: //p' "$log" | tail -1)
	console=${run:+$run/console.log}
	result=${run:+$run/result.ktap}
	cases=- splat=-
	if [ -n "$console" ] && [ -f "$console" ]; then
		# The KUnit cases (console), then the guest tests (result.ktap).
		cases=$({ grep -oE 'not ok [0-9]+ shrinker_test_[a-z_]+' "$console" |
			awk '{ print $4 }' | sort -u
			[ ! -f "$result" ] || awk '$1 == "not" && $2 == "ok" { print $4 }' "$result" | sort -u
			} | paste -sd, -)
		[ -n "$cases" ] || cases=-
		splat=$(sed -n 's/^  \(\[ *[0-9.]*\] .*\)/\1/p' "$log" | head -1 | clean | cut -c1-160)
		[ -n "$splat" ] || splat=-
	fi
	# What failed the run, besides the claimed catcher: the first splat,
	# else the guest tests that failed.
	other=-
	if [ "$splat" != - ]; then
		other="splat: $splat"
	elif [ -f "$result" ] && [ -n "$(awk '$1 == "not" && $2 == "ok"' "$result")" ]; then
		other="other: $(awk '$1 == "not" && $2 == "ok" { print $4 }' "$result" | sort -u | paste -sd, -)"
	fi
	by=-
	case $grc in
	125) verdict=error; why="the kernel did not build (log: $log)" ;;
	0) verdict=MISSED; why="the run passed" ;;
	3) verdict=error; why="harness error (guest-test exit 3; log: $log)" ;;
	*)
		verdict=MISSED by=$other
		case $fails in
		"kunit "*)
			want=${fails#kunit }
			if [[ ",$cases," == *",$want,"* ]]; then
				verdict=caught by="kunit: $want"; why="run failed (exit $grc), $want not ok"
			else
				why="run failed (exit $grc) but $want did not fail (caught by: $by)"
			fi ;;
		"test "*)
			want=${fails#test }
			state=$(ktap_caught_by "$result" "$want")
			case $state in
			assertion:*)
				verdict=caught by="assertion: $want: ${state#assertion: }"
				why="run failed (exit $grc), $want not ok by its own assertion" ;;
			timeout:*|exit:*)
				by="${state%%:*}: $want: ${state#*: }"
				why="run failed (exit $grc), $want not ok by no assertion of its own (${state}): not its catch" ;;
			*) why="run failed (exit $grc) but $want did not fail (${state/none/not reported}; caught by: $by)" ;;
			esac ;;
		"splat "*)
			re=${fails#splat }
			hit=
			[ -z "$console" ] || hit=$(grep -E -m 1 -- "$re" "$console" 2>/dev/null | clean | cut -c1-160)
			if [ -n "$hit" ]; then
				verdict=caught by="splat: $hit"; why="run failed (exit $grc) with a splat matching $re"
			else
				why="run failed (exit $grc) without a splat matching $re (caught by: $by)"
			fi ;;
		esac ;;
	esac
	# "# passes:": the run was to fail on its splat alone.
	if [ "$verdict" = caught ]; then
		for p in $(header "$f" passes); do
			state=$(ktap_caught_by "$result" "$p")
			case $state in
			pass) continue ;;
			skip | xfail) state=${state^^} ;;
			none) state='not reported' ;;
			*) state="FAIL, $state" ;;
			esac
			verdict=MISSED; why="$why, but $p did not pass ($state; '# passes:' names it)"
		done
	fi
	[ "$verdict" = caught ] || rc=1
	info "[$n] $verdict: $why; $((SECONDS - t0)) s"
	record_put "$record" "$rec_header" "$n" "$sha" "$sid" "$tree" "$verdict" "$(clean <<<"$by" | cut -c1-200)" \
		"$cases" "$(clean <<<"$splat")" "$((SECONDS - t0))" "$(date -u +%F)"
	write_table
done
exit $rc
