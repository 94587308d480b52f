#!/usr/bin/env bash
# Tests of tools/boot/broken-variants.sh (the deliberately broken kernels of
# tests/broken/): which variants run, the verdict from the run's exit and
# the failed KUnit cases or guest tests ("fails: test", "passes:"), what
# caught it (a test's own assertion, not a timeout or an exit of its shell;
# the splat the pattern matched; the KUnit case), the run: line (--append;
# no quoting), the record (its stack id, computed from patches/, which the
# checkout must match: tools/stack/stack.sh status) and the table (--table, stale
# rows), the checkout left clean and where it was, and bad input.
# tools/boot/guest-test.sh and tools/stack/stack.sh are stubs (nothing is built or booted);
# the kernel checkout is a synthetic one.
#
# Each check was seen to fail on a deliberately broken variant of the tool,
# named in a comment above it as "broken on: ..." (a comment covers the
# checks up to the next one).
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
new_project
printf '%s\n' 'base linux-source-6.1 1.0-1' prep tests >"$P/branch-stack.txt"
export S61_CACHE=$t/cache S61_WORK=$P/.work
K=$S61_WORK/linux
calls=$t/calls
# The stub: logs its arguments and whether a.c carries the planted line;
# STUB_RC is its exit status; STUB_FAILED the KUnit cases it reports "not
# ok" on the console; STUB_KTAP the run's result.ktap (printf %b: \n between
# lines), none without it; STUB_SPLAT a kernel line on the console (and in
# guest-test's output, indented, as guest-test quotes a splat).
cat >"$P/tools/boot/guest-test.sh" <<EOF
#!/usr/bin/env bash
printf '%s|' "\$@" >>"$calls"
grep -q planted "$K/a.c" && echo applied >>"$calls" || echo clean >>"$calls"
run=$t/runs/\$RANDOM\$RANDOM
mkdir -p "\$run"
: >"\$run/console.log"
n=0
for c in \${STUB_FAILED:-}; do
	n=\$((n + 1))
	echo "    not ok \$n \$c" >>"\$run/console.log"
done
[ -z "\${STUB_KTAP:-}" ] || printf '%b\n' "\$STUB_KTAP" >"\$run/result.ktap"
[ -z "\${STUB_SPLAT:-}" ] || { echo "[    1.000000] \$STUB_SPLAT" >>"\$run/console.log"; echo "  [    1.000000] \$STUB_SPLAT"; }
echo "run: \$run"
exit \${STUB_RC:-0}
EOF
chmod +x "$P/tools/boot/guest-test.sh"

mkdir -p "$K" "$S61_WORK/logs" "$P/tests/broken"
g() { git -C "$K" -c user.name=t -c user.email=t@t "$@"; }
g init -q
fake_stack prep:p1 tests:t1
g checkout -q prep
# tools/stack/stack.sh is a stub: "status" prints STUB_STATUS (default: every
# branch exported) and exits STUB_STATUS_RC (default 0); anything else
# fails. patches/ holds one patch, for the stack id.
cat >"$P/tools/stack/stack.sh" <<'EOF'
#!/usr/bin/env bash
[ "$1" = status ] || { echo "stub tools/stack/stack.sh: only status" >&2; exit 2; }
printf '%b\n' "${STUB_STATUS:-BRANCH COMMITS STATE\nprep 1 exported\ntests 1 exported}"
exit "${STUB_STATUS_RC:-0}"
EOF
mkdir -p "$P/patches/prep" "$P/patches/tests"
printf 'Subject: p1\n---\ndiff --git a/a.c b/a.c\n+p1\n' >"$P/patches/prep/0001-p1.patch"
sid=$(cd "$P" && bash -c '. tools/lib/lib.sh && stack_id')
# variant DIFF-NAME CASE [FAILS-LINE]: a diff that appends "planted" to a.c.
variant() {
	local f=$P/tests/broken/$1.diff
	printf '# s61-broken: %s is planted.\n# run: --config kunit --suites kunit\n' "$1" >"$f"
	[ "${3-x}" = none ] || echo "# fails: ${3:-kunit $2}" >>"$f"
	(cd "$K" && git checkout -q tests && echo planted >>a.c && git diff && git checkout -q -- a.c && git checkout -q prep) >>"$f"
}
# variant_run NAME RUN FAILS [HEADER-LINE]: the same diff with these run:
# and fails: lines, and one more header line (e.g. "# passes: smoke.boot").
variant_run() {
	local f=$P/tests/broken/$1.diff
	variant "$1" x "$3"
	{ printf '# s61-broken: %s is planted.\n# run: %s\n# fails: %s\n' "$1" "$2" "$3"
	  [ -z "${4:-}" ] || echo "$4"
	  sed -n '/^diff --git/,$p' "$f"; } >"$f.new" && mv "$f.new" "$f"
}
variant v-one shrinker_test_one
variant v-two shrinker_test_two
variant v-nohdr x none
bv=$P/tools/boot/broken-variants.sh
verdict() { awk -F'\t' -v n="$1" '$1 == n { print $5 }' "$P/docs/broken-variants.tsv"; }
# caught_by NAME: the record's caught_by of NAME.
caught_by() { awk -F'\t' -v n="$1" '$1 == n { print $6 }' "$P/docs/broken-variants.tsv"; }
# missed_by NAME BY: the last run ($rc) exited 1, recording NAME MISSED,
# caught by BY.
missed_by() { [ "$rc" = 1 ] && [ "$(verdict "$1")" = MISSED ] && [ "$(caught_by "$1")" = "$2" ]; }

# --- listing and bad input -----------------------------------------------------
# broken on: variants without a fails: line listed too.
check "--list names the variants that have a fails: line" \
	bash -c "'$bv' --list | grep -c '^v-' | grep -qx 2"
"$bv" v-nope >"$t/o" 2>&1
rc=$?
# broken on: a missing diff ignored (runs nothing, exit 0).
check "an unknown variant is an error naming it" \
	bash -c "[ $rc = 1 ] && grep -q \"no variant 'v-nope'\" '$t/o'"
"$bv" v-nohdr >"$t/o" 2>&1
rc=$?
# broken on: the header check skipped for named variants.
check "a variant without a fails: line is refused" \
	bash -c "[ $rc = 1 ] && grep -q \"no valid '# fails:' line\" '$t/o'"
"$bv" --bogus >"$t/o" 2>&1
rc=$?
# broken on: options not told from names ("no variant '--bogus'").
check "an unknown option is an error naming it" \
	bash -c "[ $rc = 1 ] && grep -q 'unknown option --bogus' '$t/o'"

# --- the checkout is never overwritten ------------------------------------------
echo edit >>"$K/a.c"
: >"$calls"
"$bv" v-one >"$t/o" 2>&1
rc=$?
# broken on: the dirty check removed (git apply on top of the edit).
check "a dirty checkout is refused" bash -c "[ $rc = 1 ] && grep -q 'uncommitted changes' '$t/o'"
check "... nothing ran" test ! -s "$calls"
check "... the edit is still there" grep -q '^edit$' "$K/a.c"
g checkout -q -- a.c

# --- the checkout must be the stack of patches/ ----------------------------------
: >"$calls"
STUB_STATUS_RC=1 STUB_STATUS='BRANCH COMMITS STATE\nprep 1 exported\ntests 2 NOT EXPORTED (tools/stack/stack.sh export)' "$bv" v-one >"$t/o" 2>&1
rc=$?
# broken on: the tools/stack/stack.sh status check removed (the run recorded the id
# of patches/ for a tree that is not theirs).
check "a checkout with commits patches/ lacks is refused" \
	bash -c "[ $rc = 1 ] && grep -q 'not the stack of patches/' '$t/o' && grep -q 'NOT EXPORTED' '$t/o' && [ ! -s '$calls' ]"
STUB_STATUS='BRANCH COMMITS STATE\nprep 1 exported\ntests 1 behind patches/ (tools/stack/stack.sh apply)' "$bv" v-one >"$t/o" 2>&1
rc=$?
# broken on: only the exit of tools/stack/stack.sh status read (behind was exit 0
# before tools/stack/stack.sh c80fc29; the grep keeps both kinds refused).
check "a checkout behind patches/ is refused too" \
	bash -c "[ $rc = 1 ] && grep -q \"not the stack of patches/.*'tools/stack/stack.sh apply'\" '$t/o' && [ ! -s '$calls' ]"

# --- caught, missed, wrong case, build failure -----------------------------------
: >"$calls"
STUB_RC=1 STUB_FAILED="shrinker_test_one shrinker_test_other" "$bv" v-one >"$t/o" 2>&1
rc=$?
# broken on: exit 1 whatever the verdict.
check "a run that fails with the named case: exit 0" test $rc = 0
# broken on: the diff applied after the run (guest-test saw a clean tree).
check "... guest-test ran on the top with the diff applied" \
	test "$(cat "$calls")" = "--config|kunit|--suites|kunit|.|applied"
check "... verdict caught by the case, the failed cases recorded" \
	bash -c "grep -q \$'^v-one\t[0-9a-f]*\t$sid\t[0-9a-f]*\tcaught\tkunit: shrinker_test_one\tshrinker_test_one,shrinker_test_other\t' '$P/docs/broken-variants.tsv'"
# broken on: no revert after the run; no return to the branch it was on.
check "... the checkout is clean again" test -z "$(g status --porcelain --untracked-files=no)"
check "... and back on its branch" test "$(g symbolic-ref -q --short HEAD)" = prep
# shellcheck disable=SC2016  # the backquotes are the markdown table's
check "... the table has the row" grep -q '^| v-one | v-one is planted. | `kunit shrinker_test_one` | caught |' "$P/docs/results/broken-variants.md"

STUB_RC=0 STUB_FAILED=shrinker_test_two "$bv" v-two >"$t/o" 2>&1
rc=$?
# broken on: a passing run judged by its cases (the console shows the case
# not ok, yet guest-test passed it: caught).
check "a run that passes: MISSED, exit 1" bash -c "[ $rc = 1 ] && [ '$(verdict v-two)' = MISSED ]"
STUB_RC=1 STUB_FAILED=shrinker_test_one "$bv" v-two >"$t/o" 2>&1
rc=$?
# broken on: any failure taken as caught.
check "a run that fails, but not the named case: MISSED, exit 1" \
	bash -c "[ $rc = 1 ] && [ '$(verdict v-two)' = MISSED ]"
# broken on: the record appended without dropping the variant's older row.
check "... one row per variant" test "$(grep -c '^v-two' "$P/docs/broken-variants.tsv")" = 1
check "... the other variant's row kept" test "$(verdict v-one)" = caught

STUB_RC=125 "$bv" v-one >"$t/o" 2>&1
rc=$?
# broken on: 125 judged like any failure (caught with no case).
check "a kernel that does not build: error, exit 1" \
	bash -c "[ $rc = 1 ] && [ '$(verdict v-one)' = error ]"

# --- guest tests, --append, splat-only failures with "# passes:" -------------------
variant_run v-nokmem '--config boot --suites lockless --only nokmem-umount --append cgroup.memory=nokmem' \
	'test lockless.nokmem-umount'
: >"$calls"
STUB_RC=1 STUB_KTAP='KTAP version 1\n1..1\n# FAIL: rmmod did not finish in 20 s\nnot ok 1 lockless.nokmem-umount\ns61-exit: 1' "$bv" v-nokmem >"$t/o" 2>&1
rc=$?
# broken on: no "test" kind ("no valid '# fails:' line", nothing runs).
check "fails: test SUITE.NAME, the test not ok in result.ktap: caught, exit 0" \
	bash -c "[ $rc = 0 ] && [ '$(verdict v-nokmem)' = caught ]"
# broken on: the run: line read as one word (--append and its value lost).
check "... the run: line's --append reaches guest-test, one word per value" \
	test "$(cat "$calls")" = "--config|boot|--suites|lockless|--only|nokmem-umount|--append|cgroup.memory=nokmem|.|applied"
# broken on: the failed tests read from the console only (KUnit cases).
check "... the failed guest test recorded, caught by its assertion" \
	bash -c "grep -q \$'^v-nokmem\t[0-9a-f]*\t$sid\t[0-9a-f]*\tcaught\tassertion: lockless.nokmem-umount: rmmod did not finish in 20 s\tlockless.nokmem-umount\t' '$P/docs/broken-variants.tsv'"
STUB_RC=1 STUB_KTAP='KTAP version 1\n1..2\nok 1 lockless.nokmem-umount # 9s\nnot ok 2 lockless.other' "$bv" v-nokmem >"$t/o" 2>&1
rc=$?
# broken on: the test kind judged by the run's exit alone (any failure caught).
check "fails: test, the run fails but the named test passed: MISSED, exit 1" \
	bash -c "[ $rc = 1 ] && [ '$(verdict v-nokmem)' = MISSED ] && grep -q 'lockless.nokmem-umount did not fail (pass; caught by: other: lockless.other)' '$t/o'"
STUB_RC=2 "$bv" v-nokmem >"$t/o" 2>&1
rc=$?
# broken on: a test not reported (a crash: no result.ktap) taken as failed.
check "fails: test, the run crashed before the test reported: MISSED, exit 1" \
	bash -c "[ $rc = 1 ] && [ '$(verdict v-nokmem)' = MISSED ] && grep -q 'did not fail (not reported; caught by: -)' '$t/o'"

# --- what caught it: only the claimed catcher counts --------------------------
STUB_RC=1 STUB_KTAP='KTAP version 1\n1..1\n# round 1\n# timed out after 300s\nnot ok 1 lockless.nokmem-umount\ns61-exit: 1' "$bv" v-nokmem >"$t/o" 2>&1
rc=$?
# broken on: a timeout taken for the test's catch ("assertion:*|timeout:*)"
# caught).
check "fails: test, the test not ok by a timeout: MISSED, exit 1" \
	bash -c "[ $rc = 1 ] && [ '$(verdict v-nokmem)' = MISSED ] && grep -q 'not ok by no assertion of its own (timeout' '$t/o'"
# broken on: caught_by left '-' for a test that failed otherwise.
check "... recorded as caught by the timeout" test "$(caught_by v-nokmem)" = "timeout: lockless.nokmem-umount: timed out after 300s"
STUB_RC=1 STUB_KTAP='KTAP version 1\n1..1\n# FAIL: a worker died\n# exit 139\nnot ok 1 lockless.nokmem-umount\ns61-exit: 1' "$bv" v-nokmem >"$t/o" 2>&1
rc=$?
# broken on: the old judgement, any "not ok" of the test a catch
# (ktap_state FAIL).
check "fails: test, its shell killed (exit 139): MISSED, caught by that exit" \
	missed_by v-nokmem 'exit: lockless.nokmem-umount: exit 139'
STUB_RC=1 STUB_KTAP='KTAP version 1\n1..1\nnot ok 1 lockless.nokmem-umount\ns61-exit: 1' "$bv" v-nokmem >"$t/o" 2>&1
rc=$?
# broken on: a "not ok" without the test's FAIL: line taken for its assertion.
check "fails: test, not ok without its FAIL: line: MISSED" \
	missed_by v-nokmem 'exit: lockless.nokmem-umount: not ok without a FAIL: line'
STUB_RC=1 STUB_SPLAT='BUG: KASAN: use-after-free in shrink_slab+0x1/0x2' STUB_KTAP='KTAP version 1\n1..1\nok 1 lockless.nokmem-umount # 9s\ns61-exit: 0' "$bv" v-nokmem >"$t/o" 2>&1
rc=$?
# broken on: caught_by not given the splat when the claimed test passed
# ("by=-" for every MISSED run).
check "fails: test, the test ok and the run failed on a splat: MISSED, caught by the splat" \
	missed_by v-nokmem 'splat: [    1.000000] BUG: KASAN: use-after-free in shrink_slab+0x1/0x2'
# shellcheck disable=SC2016  # the backquotes are the markdown table's
check "... the table says so" grep -q '^| v-nokmem | .* | MISSED | splat: \[    1.000000\] BUG: KASAN' "$P/docs/results/broken-variants.md"

variant_run v-warn '--config boot --suites smoke --only boot' \
	'splat WARNING: CPU: [0-9]+ PID: [0-9]+ at mm/shrinker.c:[0-9]+ shrinker_register' '# passes: smoke.boot'
warn='WARNING: CPU: 0 PID: 0 at mm/shrinker.c:508 shrinker_register+0x2c/0x90'
STUB_RC=1 STUB_SPLAT=$warn STUB_KTAP='KTAP version 1\n1..1\nok 1 smoke.boot # 0s\ns61-exit: 0' "$bv" v-warn >"$t/o" 2>&1
rc=$?
# broken on: "# passes:" read as "the named test must fail" (MISSED).
check "splat with passes:, the splat seen and the test ok: caught, exit 0" \
	bash -c "[ $rc = 0 ] && [ '$(verdict v-warn)' = caught ]"
# broken on: caught_by of a splat catch left '-' (or the first splat
# instead of the line the pattern matched).
check "... recorded as caught by the splat the pattern matched" \
	test "$(caught_by v-warn)" = "splat: [    1.000000] $warn"
STUB_RC=1 STUB_SPLAT=$warn STUB_KTAP='KTAP version 1\n1..1\nnot ok 1 smoke.boot' "$bv" v-warn >"$t/o" 2>&1
rc=$?
# broken on: "# passes:" ignored (caught on the splat alone).
check "... the splat seen but the test failed too: MISSED, exit 1" \
	bash -c "[ $rc = 1 ] && [ '$(verdict v-warn)' = MISSED ] && grep -q 'smoke.boot did not pass (FAIL' '$t/o'"
STUB_RC=1 STUB_SPLAT=$warn STUB_KTAP='KTAP version 1\n1..1\nok 1 smoke.boot # SKIP no reason' "$bv" v-warn >"$t/o" 2>&1
rc=$?
# broken on: any "ok" line taken for a pass (a SKIP passed).
check "... the test SKIPped: MISSED, exit 1" \
	bash -c "[ $rc = 1 ] && [ '$(verdict v-warn)' = MISSED ] && grep -q 'smoke.boot did not pass (SKIP' '$t/o'"

variant_run v-quoted '--config debug --append "s61.race_secs=60 s61.x=1"' 'splat KASAN'
: >"$calls"
"$bv" v-quoted >"$t/o" 2>&1
rc=$?
# broken on: the quote check removed (guest-test got '"s61.race_secs=60').
check "a run: line with a quote is refused before anything runs" \
	bash -c "[ $rc = 1 ] && grep -q 'has a quote' '$t/o' && [ ! -s '$calls' ]"
variant_run v-badtest '--config boot --suites smoke' 'test drop-caches-dentries'
"$bv" v-badtest >"$t/o" 2>&1
rc=$?
# broken on: any word after "test" accepted (a name without its suite never
# matches a result: every run MISSED).
check "fails: test without SUITE. is refused" \
	bash -c "[ $rc = 1 ] && grep -q \"wants one SUITE.NAME\" '$t/o'"
rm -f "$P/tests/broken/v-quoted.diff" "$P/tests/broken/v-badtest.diff"

# --- a diff that does not apply ---------------------------------------------------
printf '# s61-broken: stale.\n# run: --config kunit\n# fails: kunit x\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-nothing\n+planted\n' >"$P/tests/broken/v-stale.diff"
: >"$calls"
"$bv" >"$t/o" 2>&1
rc=$?
# broken on: the apply check per variant just before its run (the others ran).
check "a stale diff stops the run before any variant runs" \
	bash -c "[ $rc = 1 ] && grep -q 'v-stale: tests/broken/v-stale.diff does not apply' '$t/o' && [ ! -s '$calls' ]"
check "... the checkout is clean and on its branch" \
	bash -c "[ -z \"\$(git -C '$K' status --porcelain --untracked-files=no)\" ] && [ \"\$(git -C '$K' symbolic-ref --short HEAD)\" = prep ]"

# --- the table from the record alone -------------------------------------------------
{ head -n 1 "$P/docs/broken-variants.tsv"
  printf 'v-old\tabc\t0123456789ab\ttree\tcaught\tkunit: x\tx\t-\t1\t2026-12-01\n'
  printf 'v-now\tabc\t%s\ttree\tcaught\tkunit: y\ty\t-\t1\t2026-12-01\n' "$sid"; } >"$t/rec"
cp "$t/rec" "$P/docs/broken-variants.tsv"
rm -f "$P/docs/results/broken-variants.md"
S61_WORK=$t/nowhere "$bv" --table >"$t/o" 2>&1
rc=$?
# broken on: --table not handled before the checkout is required.
check "--table writes the table without a kernel checkout" bash -c "[ $rc = 0 ] && [ -s '$P/docs/results/broken-variants.md' ]"
# broken on: no stale mark (every row shown as if current).
check "... a row of another stack is marked stale, today's not" \
	bash -c "grep -q '^| v-old | .* | 0123456789ab (other stack) | ' '$P/docs/results/broken-variants.md' && grep -q '^| v-now | .* | $sid | ' '$P/docs/results/broken-variants.md'"
check "... and names today's stack" grep -q "^Stack now: \`$sid\`" "$P/docs/results/broken-variants.md"
printf '# name\tdiff_sha1\ttop_tree\tverdict\tfailed_cases\tfirst_splat\tseconds\tdate\n' >"$P/docs/broken-variants.tsv"
"$bv" --table >"$t/o" 2>&1
rc=$?
# broken on: the record's header not checked (an old record's columns read
# as the new ones).
check "a record of another format is refused, naming both headers" \
	bash -c "[ $rc = 1 ] && grep -q 'its header is not this tool' '$t/o' && grep -q 'stack_id' '$t/o'"

echo "1..$((pass + fail))"
echo "broken-variants-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
