#!/usr/bin/env bash
# Tests of tools/boot/boot-commits.sh (every commit of prep, the core branches and
# tests, booted with the debug kernel): which commits run and in what
# order, the guest-test command, the record and the table it writes,
# resuming with --from, a failing commit, an interrupted run, --dry-run and
# bad input. tools/boot/guest-test.sh is a stub that logs its arguments and checks
# the commit out as tools/build/kbuild.sh does (nothing is built or booted); the
# kernel checkout is a synthetic one.
#
# Each check was seen to fail on a deliberately broken variant of the tool,
# named in a comment above it as "broken on: ..." (a comment covers the
# checks up to the next one).
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
new_project
printf '%s\n' '# a stack with two core branches' 'base linux-source-6.1 1.0-1' prep \
	'api core' conv-mm 'remove-old-api   core  # comment' tests >"$P/branch-stack.txt"
export S61_CACHE=$t/cache S61_WORK=$P/.work
K=$S61_WORK/linux
calls=$t/calls
# The stub: one line of arguments per call ("|" between them); its
# behaviour by the commit's subject: FAIL_SUBJ fails a test with a splat,
# BUILD_FAIL_SUBJ does not build (125), HANG_SUBJ hangs (2), KILL_SUBJ
# interrupts the caller (as ^C would), CACHED_SUBJ comes from the cache.
cat >"$P/tools/boot/guest-test.sh" <<EOF
#!/usr/bin/env bash
printf '%s|' "\$@" >>"$calls"; echo >>"$calls"
c=\${*: -1}
git -C "$K" checkout -q --detach "\$c" || exit 125
s=\$(git -C "$K" log -1 --format=%s "\$c")
if [ "\$s" = "\${KILL_SUBJ:-}" ]; then kill -TERM "\$PPID"; sleep 1; exit 0; fi
if [ "\$s" = "\${BUILD_FAIL_SUBJ:-}" ]; then echo "tools/build/kbuild.sh: build failed"; exit 125; fi
[ "\$s" != "\${CACHED_SUBJ:-}" ] || echo "guest-test: \$c [debug]: kernel from the cache, built earlier"
if [ "\$s" = "\${HANG_SUBJ:-}" ]; then
	echo "RUN PROBLEM: guest hung: no exit within 1500s (timeout); console: x"
	echo "run: $t/runs/\$s"
	exit 2
fi
if [ "\$s" = "\${FAIL_SUBJ:-}" ]; then
	echo "  FAIL    3 races.memcg"
	echo "5 passed, 1 failed, 2 skipped"
	echo "KERNEL SPLAT on the console (x):"
	echo "  [   12.5] BUG: KASAN: use-after-free in shrink_slab | x"
	echo "  [   12.6] WARNING: CPU: 1 PID: 7 at mm/shrinker.c:99"
	echo "run: $t/runs/\$s"
	exit 1
fi
echo "8 passed, 0 failed, 1 skipped, 1 xfail"
echo "run: $t/runs/\$s"
EOF
chmod +x "$P/tools/boot/guest-test.sh"

mkdir -p "$K" "$S61_WORK/logs"
g() { git -C "$K" -c user.name=t -c user.email=t@t "$@"; }
g init -q
# prep: p1 p2; api: a1; conv-mm: m1 (not booted by default);
# remove-old-api: r1 r2; tests: t1.
fake_stack prep:p1:p2 api:a1 conv-mm:m1 remove-old-api:r1:r2 tests:t1
bc=$P/tools/boot/boot-commits.sh
id() { g rev-parse "$(g log --format=%H --grep="^$1\$" tests conv-mm | head -1)"; }
short() { id "$1" | cut -c1-12; }
subjects() { awk -F'|' '{ print $(NF - 1) }' "$calls" | while read -r c; do g log -1 --format=%s "$c"; done | tr '\n' ' '; }
row() { grep "^| $(short "$1") " "$P/docs/results/boot-commits.md"; }
# row_has SUBJECT TEXT...: the commit's table row contains each TEXT.
row_has() {
	local r x
	r=$(row "$1") || return 1
	shift
	for x in "$@"; do
		grep -qF -- "$x" <<<"$r" || { echo "row: $r"; echo "lacks: $x"; return 1; }
	done
}
data_rows() { grep -vc '^#' "$P/docs/boot-commits.tsv"; }

# --- dry run --------------------------------------------------------------------
: >"$calls"
"$bc" --dry-run >"$t/dry.out" 2>&1
rc=$?
# broken on: exit 1 at the end.
check "--dry-run succeeds" test $rc = 0
# broken on: rev-list without --reverse (p2 before p1), the default set
# taken as every branch of the stack (m1 listed).
check "... lists prep, the core and tests, commit by commit, in stack order" \
	test "$(awk 'length($1) == 12 && $1 ~ /^[0-9a-f]+$/ { printf "%s:%s ", $2, $3 }' "$t/dry.out")" = \
	"prep:p1 prep:p2 api:a1 remove-old-api:r1 remove-old-api:r2 tests:t1 "
# broken on: --dry-run ignored (it runs them); the default set taken as
# every branch (7 rows).
check "... builds and boots nothing" test ! -s "$calls"
check "... writes the table, every commit not run" \
	test "$(grep -c '| not run |' "$P/docs/results/boot-commits.md")" = 6
check "... and no record" test ! -e "$P/docs/boot-commits.tsv"

# --- a full run -----------------------------------------------------------------
g checkout -q api
: >"$calls"
CACHED_SUBJ=p2 "$bc" >"$t/run.out" 2>&1
rc=$?
# broken on: exit 1 at the end; rev-list without --reverse.
check "a run where every commit passes exits 0" test $rc = 0
check "... boots the six commits in stack order" test "$(subjects)" = "p1 p2 a1 r1 r2 t1 "
# broken on: --append split into two arguments, a wrong --timeout.
check "... with the debug kernel, the three suites, the race options" \
	test "$(head -1 "$calls")" = "--config|debug|--suites|smoke,lockless,races|--timeout|1500|--append|s61.race_secs=60 s61.race_short=1|$(id p1)|"
# broken on: the table made from this run's results only, with the rows
# looked up by commit (none found); the default set taken as every branch.
check "... a row per commit with its results" \
	bash -c "grep -q '^| $(short a1) | api | a1 | ok | ok | 8 passed, 0 failed, 1 skipped, 1 xfail | 0 | [0-9]* |\$' '$P/docs/results/boot-commits.md'"
check "... a kernel from the cache says cached" bash -c "grep -q '| p2 | cached | ok |' '$P/docs/results/boot-commits.md'"
check "... no row says not run" bash -c "! grep -q '| not run |' '$P/docs/results/boot-commits.md'"
check "... the record has one line per commit" test "$(data_rows)" = 6
# broken on: no restore at the end (the stub left it on t1, detached).
check "... the checkout is back on its branch" test "$(g symbolic-ref -q --short HEAD)" = api

# --- a failing commit -------------------------------------------------------------
: >"$calls"
FAIL_SUBJ=r1 "$bc" >"$t/run.out" 2>&1
rc=$?
# broken on: exit 0 at the end whatever happened; stopping at the first
# failure (the second check).
check "a failing commit makes the exit status 1" test $rc = 1
check "... the run goes on after it" test "$(subjects)" = "p1 p2 a1 r1 r2 t1 "
# broken on: splats counted from the header line only; the first splat
# line not unindented.
# shellcheck disable=SC2016  # the backquotes are the markdown table's
check "... its row: the failed test and the splats, count and first line" \
	row_has r1 '| ok | ok | 5 passed, 1 failed, 2 skipped, 0 xfail | 2: `[   12.5] BUG: KASAN: use-after-free in shrink_slab \| x` |'
# broken on: the table made from this run's results only; the record
# appended without dropping the older row of a tree (the 5th); the verdict
# line always "ok" (the last).
check "... its neighbours pass" row_has r2 '| ok | ok | 8 passed'
check "... the header counts it" grep -q "^6 commits, 6 run (.*): 5 passed, 1 failed\.$" "$P/docs/results/boot-commits.md"
check "... the record replaced the older rows" test "$(data_rows)" = 6
check "... the log names it" grep -q "== $(short r1): FAIL (exit 1)" "$t/run.out"

# --- build failure, hang ---------------------------------------------------------
BUILD_FAIL_SUBJ=a1 HANG_SUBJ=t1 "$bc" --branches api,tests >"$t/run.out" 2>&1
rc=$?
# broken on: exit 0 at the end; hang not told from FAIL; stopping at the
# first failure.
check "a build failure and a hang exit 1" test $rc = 1
check "... the build failure says FAIL" row_has a1 '| a1 | FAIL | - | - | - |'
check "... the hang says hang" row_has t1 '| t1 | ok | hang | - | 0 |'

# --- resume with --from -----------------------------------------------------------
"$bc" >/dev/null 2>&1
: >"$calls"
FAIL_SUBJ=t1 "$bc" --from "$(short r2)" >"$t/run.out" 2>&1
rc=$?
# broken on: --from ignored (all six run); exit 0 at the end.
check "--from resumes at the commit" test "$(subjects)" = "r2 t1 "
check "... exit 1 for the failure after it" test $rc = 1
# broken on: the table made from this run's results only (the others
# would say not run).
check "... the table keeps the earlier rows" \
	eval "row_has p1 '| ok | ok |' && row_has r1 '| ok | ok |' && row_has t1 '1 failed'"

# --- --only ------------------------------------------------------------------------
: >"$calls"
"$bc" --only "$(short t1),$(short p1)" >"$t/run.out" 2>&1
rc=$?
# broken on: --only ignored (all six run); the list's order used instead
# of the stack's.
check "--only runs just those commits, in stack order" test "$(subjects)" = "p1 t1 "
check "... exit 0 when they pass" test $rc = 0
check_fails "--only a commit outside the set is refused" "$bc" --only "$(short m1)"
check_fails "--only a name that is no commit is refused" "$bc" --only nosuch

# --- --branches, --suites ------------------------------------------------------------
# broken on: --branches ignored for the run; the table and the run limited
# to the default set (conv-mm); the table looking up rows of any suite list.
: >"$calls"
"$bc" --branches api,tests >"$t/run.out" 2>&1
check "--branches restricts the run" test "$(subjects)" = "a1 t1 "
check "... the table still lists every commit" test "$(grep -c '^| [0-9a-f]\{12\} |' "$P/docs/results/boot-commits.md")" = 6
: >"$calls"
"$bc" --branches conv-mm >"$t/run.out" 2>&1
check "--branches takes a branch outside the default set" test "$(subjects)" = "m1 "
check "... and adds it to the table" test "$(grep -c '^| [0-9a-f]\{12\} |' "$P/docs/results/boot-commits.md")" = 7
: >"$calls"
"$bc" --suites smoke --branches tests >"$t/run.out" 2>&1
# broken on: --suites not passed on (the default list hard-coded).
check "--suites is passed to guest-test" grep -q "^--config|debug|--suites|smoke|" "$calls"
check "... and the table is the one of those suites" \
	eval "grep -q 'suites \`smoke\`' '$P/docs/results/boot-commits.md' && row_has t1 '| ok | ok |' && row_has p1 'not run'"
"$bc" --dry-run >/dev/null 2>&1
check "... the other suites' rows stay in the record" row_has p1 '| ok | ok |'

# --- an interrupted run ------------------------------------------------------------
rm -f "$P/docs/boot-commits.tsv"
KILL_SUBJ=r1 "$bc" >"$t/run.out" 2>&1
rc=$?
# broken on: the TERM trap exiting 0; the record written once at the end
# (nothing kept); the message without the way to resume; no restore.
check "an interrupted run exits non-zero" test $rc != 0
check "... keeps the commits it finished" \
	eval "row_has a1 '| ok | ok |' && row_has r1 'not run' && [ \$(data_rows) = 3 ]"
check "... says how to resume" grep -q "resume with --from" "$t/run.out"
check "... and puts the checkout back" test "$(g symbolic-ref -q --short HEAD)" = api

# --- rows follow the tree, not the commit id -------------------------------------------
"$bc" >/dev/null 2>&1
old_p2=$(short p2)
# Reword p1 (same trees, new ids for every commit above it) and change
# t1's tree.
declare -A new=()
prev=$(g rev-parse base)
for c in $(g rev-list --reverse base..tests); do
	s=$(g log -1 --format=%s "$c")
	msg=$s
	[ "$s" != p1 ] || msg=$'p1\n\nreworded'
	tree=$(g rev-parse "$c^{tree}")
	if [ "$s" = t1 ]; then
		g read-tree "$tree" && echo changed >"$t/x" &&
			tree=$(g update-index --add --cacheinfo "100644,$(g hash-object -w "$t/x"),x.c" && g write-tree)
	fi
	prev=$(g commit-tree "$tree" -p "$prev" -m "$msg")
	new[$c]=$prev
done
for b in prep api conv-mm remove-old-api tests; do
	g update-ref "refs/heads/$b" "${new[$(g rev-parse "$b")]}"
done
g checkout -q -f api
"$bc" --dry-run >/dev/null 2>&1
# broken on: the record keyed by the commit id (every row not run); keyed
# by the subject (t1 keeps its row).
check "a rebase that keeps a tree keeps its row, under the new id" \
	eval "row_has p2 '| ok | ok |' && [ $old_p2 != \$(short p2) ]"
check "... a changed tree says not run" row_has t1 'not run'

# --- --missing ---------------------------------------------------------------------------
# After the rebase above: t1's tree is new (no row), the others have rows.
: >"$calls"
"$bc" --missing >"$t/run.out" 2>&1
rc=$?
# broken on: --missing ignored (all six run); rows of any suite list or
# any exit counted as passed (t1's failed row of the old tree is not
# what matters: its tree is new).
check "--missing runs only the commits without a passing row" test "$(subjects)" = "t1 "
check "... and exits 0 when they pass" test $rc = 0
: >"$calls"
FAIL_SUBJ=a1 "$bc" --branches api >/dev/null 2>&1
"$bc" --missing >"$t/run.out" 2>&1
# broken on: a failed row (exit 1) counted as passed.
check "... a commit whose row failed runs again" test "$(subjects)" = "a1 a1 "
: >"$calls"
"$bc" --missing >"$t/run.out" 2>&1
rc=$?
check "... nothing to run: exit 0, nothing booted" \
	eval "[ $rc = 0 ] && [ ! -s '$calls' ] && grep -q 'nothing to run' '$t/run.out'"

# --- bad input --------------------------------------------------------------------------
: >"$calls"
# broken on, in order: --branches not checked (an unknown one has no
# commits, the rest run); base not refused by name; --from not checked
# against the set; a --from that is no commit not named; --suites not
# checked; a stray argument ignored; the dirty check, the missing-branch
# check, require_checkout left out; --help printing nothing.
check_fails "an unknown branch is refused" "$bc" --branches api,nosuch
expect "... named, with the branches there are" out_has "unknown branch 'nosuch'; branch-stack.txt has: prep api conv-mm"
check_fails "base is refused" "$bc" --branches base
expect "... saying why" out_has "base has no commits of the series"
check_fails "--from a commit outside the set is refused" "$bc" --from "$(short m1)"
expect "... named, with the way out" out_has "$(short m1 | cut -c1-7).*is not one of the commits to run.*--dry-run"
check_fails "--from a commit of another --branches set is refused" "$bc" --branches tests --from "$(short a1)"
check_fails "--from a name that is no commit is refused" "$bc" --from nosuch
expect "... named" out_has "'nosuch' is not a commit"
check_fails "a bad --suites is refused" "$bc" --suites 'smoke races'
check_fails "an argument is refused" "$bc" api
expect "... pointing to --branches" out_has "with --branches"
check "bad input builds nothing" test ! -s "$calls"
echo dirty >>"$K/a.c"
check_fails "a dirty checkout is refused" "$bc" --branches tests
expect "... named" out_has "uncommitted changes"
g checkout -q -- a.c
g branch -q -m remove-old-api old-api
check_fails "a branch missing in the checkout is refused" "$bc" --dry-run
expect "... with the way out" out_has "branch remove-old-api does not exist.*tools/stack/stack.sh apply"
g branch -q -m old-api remove-old-api
check_fails "no kernel checkout is refused" env S61_WORK="$t/empty" "$bc" --dry-run
expect "... with the way out" out_has "no kernel checkout.*tools/stack/stack.sh init"
check "--help works" "$bc" --help
expect "... and shows the options" out_has "--from COMMIT"

# --- the table from the records alone (tools/lint/records.py) -----------------------
"$bc" --dry-run >/dev/null 2>&1
cp "$P/docs/results/boot-commits.md" "$t/page-dry"
sid=$(cd "$P" && bash -c '. tools/lib/lib.sh && stack_id')
# broken on: write_list not called by write_table (no list written).
check "a run writes the commit list with today's stack id" \
	bash -c "head -n 1 '$P/docs/records/boot-commits-list.tsv' | grep -q '^# stack_id' &&
		test \"\$(grep -c '^$sid	' '$P/docs/records/boot-commits-list.tsv')\" = 6"
rm -f "$P/docs/results/boot-commits.md"
# broken on: require_checkout before the --table branch.
check "--table writes the table without a kernel checkout" env S61_WORK="$t/empty" "$bc" --table
check "... the same page as a run on the checkout" cmp "$t/page-dry" "$P/docs/results/boot-commits.md"
check "... no row marked as another stack's" bash -c "! grep -q '(other stack)' '$P/docs/results/boot-commits.md'"
# The stack changes (patches/ moves on): the list is of another stack.
mkdir -p "$P/patches/tests"
printf 'diff --git a/x b/x\n+new\n' >"$P/patches/tests/0001-x.patch"
# broken on: the mark dropped (mark='' whatever the list's stack).
check "--table after the stack changed" env S61_WORK="$t/empty" "$bc" --table
check "... marks every row as another stack's" \
	test "$(grep -c '^| [0-9a-f]\{12\} (other stack) |' "$P/docs/results/boot-commits.md")" = 6
check "... and says which stack the commits are of" grep -q "read from the kernel checkout of stack \`$sid\`" "$P/docs/results/boot-commits.md"
rm -rf "$P/patches"
check_fails "--table with another option is refused" env S61_WORK="$t/empty" "$bc" --table --branches tests

echo "1..$((pass + fail))"
echo "boot-commits-tests: $pass passed, $fail failed"
[ $fail = 0 ]
