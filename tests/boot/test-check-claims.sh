#!/usr/bin/env bash
# Tests of tools/boot/check-claims.sh: the claims of the diffs' "# fails:" lines
# and of debian-system/broken-variants against their records (current
# diff, today's stack id, caught by the claimed catcher), and the claims of
# docs/testing.md and docs/debian-system.md against that data (each claim
# tied to its row's test, every variant claimed), on small fixture
# documents, diffs, patches and records in a copy of the project.
#
# Each check was seen to fail on a deliberately broken variant of the
# checker, named in a comment above it as "broken on: ..." (a comment
# covers the checks up to the next one).
# shellcheck disable=SC2016  # the backquotes are Markdown's, not expansions
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
new_project
cc=$P/tools/boot/check-claims.sh
mkdir -p "$P/docs" "$P/tests/broken" "$P/patches/prep" "$P/patches/memcg-empty-units" "$P/debian-system"
printf '%s\n' 'base linux-source-6.1 1.0-1' prep 'memcg-empty-units core' >"$P/branch-stack.txt"
printf 'From 0000 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] p1\n\nWhy.\n---\n a.c | 1 +\n\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1 +1,2 @@\n a\n+p1\n' \
	>"$P/patches/prep/0001-p1.patch"
# sid: today's stack id of the fixture.
sid() { (cd "$P" && bash -c '. tools/lib/lib.sh && stack_id'); }

# diff_ NAME [FAILS]: tests/broken/NAME.diff with the "# fails:" line FAILS
# (default "test smoke.x"; "none": no such line).
diff_() {
	{
		echo "# s61-broken: $1 is broken."
		echo "# run: --config boot --suites smoke"
		[ "${2:-}" = none ] || echo "# fails: ${2:-test smoke.x}"
		printf 'diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-a\n+%s\n' "$1"
	} >"$P/tests/broken/$1.diff"
}
# row NAME [VERDICT [CAUGHT-BY [SHA [SID]]]]: NAME's row of
# docs/broken-variants.tsv; by default caught, by the catcher of its diff's
# fails: line, of the diff as it is now, on today's stack.
row() {
	local f=$P/tests/broken/$1.diff fails by
	fails=$(sed -n 's/^# fails: //p' "$f")
	case $fails in
	"test "*) by="assertion: ${fails#test }: it failed" ;;
	"kunit "*) by="kunit: ${fails#kunit }" ;;
	*) by="splat: [    1.0] BUG: KASAN: use-after-free" ;;
	esac
	printf '%s\t%s\t%s\ttree\t%s\t%s\t-\t-\t60\t2026-12-06\n' "$1" "${4:-$(sha1sum "$f" | cut -c1-12)}" \
		"${5:-$(sid)}" "${2:-caught}" "${3:-$by}" >>"$P/docs/broken-variants.tsv"
}
# drow NAME [VERDICT [CAUGHT-BY [SID]]]: NAME's row of docs/debian-broken.tsv.
drow() {
	printf '%s\t%s\t%s\t%s\t%s\t-\t1-1\t60\t2026-12-06\n' "$1" "$(sha1sum "$P/tests/broken/$1.diff" | cut -c1-12)" \
		"${4:-$(sid)}" "${2:-caught}" "${3:-assertion: debian-subsys.ext4: nothing freed; assertion: debian-subsys.binder: no page}" \
		>>"$P/docs/debian-broken.tsv"
}
# docs SUITE-CELL [KUNIT-CELL [LISTED...]]: docs/testing.md with the suites
# table (smoke.x's claim cell SUITE-CELL; smoke.boot's "—"; a property
# column and a table without a claim column naming variants that are no
# claims), the KUnit cases table (its "failed on" cell of case one:
# KUNIT-CELL, default `kunit-cc`), then the variants table listing LISTED.
# Prose and a branch name in between.
docs() {
	local v
	{
		echo '# Testing'
		echo
		echo 'Prose names `broken-prose`, which is no claim.'
		echo
		echo '| suite | test | property | seen to fail on |'
		echo '| --- | --- | --- | --- |'
		echo '| smoke | boot | boots | — |'
		echo "| smoke | x | frees them, unlike \`broken-property\` | $1 |"
		echo '| smoke | y | the branch `memcg-empty-units` | — (`memcg-empty-units`) |'
		echo
		echo '| what | where |'
		echo '| --- | --- |'
		echo '| `broken-other-table` | not a claim column |'
		echo
		echo '| case | what it asserts | broken kernel it failed on (`tests/broken/`) |'
		echo '| --- | --- | --- |'
		echo "| one | the first | ${2:-\`kunit-cc\`} |"
		echo
		echo '| variant (one-line change) | run | result |'
		echo '| --- | --- | --- |'
		shift 2
		for v; do echo "| $v | boot, smoke | **FAIL** |"; done
	} >"$P/docs/testing.md"
}
# ddocs LINE...: docs/debian-system.md's table of the Debian variants, one
# row per "NAME TESTS" argument.
ddocs() {
	local l
	{
		echo '## A broken kernel as a Debian package'
		echo
		echo '| variant | what is broken | must fail | verdict | run |'
		echo '| --- | --- | --- | --- | --- |'
		for l; do echo "| ${l%% *} | it | ${l#* } | **caught** | 200 s |"; done
	} >"$P/docs/debian-system.md"
}
reset() {
	rm -f "$P"/tests/broken/*.diff
	printf '# name\tdiff_sha1\tstack_id\ttop_tree\tverdict\tcaught_by\tfailed_cases\tfirst_splat\tseconds\tdate\n' >"$P/docs/broken-variants.tsv"
	printf '# name\tdiff_sha1\tstack_id\tverdict\tcaught_by\tfailed\tversion\tseconds\tdate\n' >"$P/docs/debian-broken.tsv"
	printf '# NAME TESTS OPTIONS\nbroken-dd  debian-subsys.ext4,debian-subsys.binder  --suites debian-subsys\n' >"$P/debian-system/broken-variants"
	rm -f "$P/debian-system/broken-due"
	ddocs 'broken-dd debian-subsys.ext4, debian-subsys.binder'
}
# good: every claim borne out: smoke.x's broken-aa and broken-bb, the
# splat variant broken-ss in smoke.x's row after "splat scan:", KUnit's
# kunit-cc, the unclaimed broken-nn listed, broken-dd run on Debian.
good() {
	reset
	diff_ broken-aa; row broken-aa
	diff_ broken-bb; row broken-bb
	diff_ broken-ss 'splat KASAN'; row broken-ss
	diff_ kunit-cc 'kunit shrinker_test_one'; row kunit-cc
	diff_ broken-nn none
	diff_ broken-dd 'test smoke.x'; row broken-dd; drow broken-dd
	docs '`broken-aa` (what it breaks); `broken-bb`: with `memcg-empty-units/0001`; `broken-dd`; splat scan: `broken-ss`' '' \
		'`broken-aa`' '`broken-nn`' '`broken-ss`'
}
# run: the checker, its output in $t/cc (said() copies it to $t/out), rc.
run() { "$cc" >"$t/cc" 2>&1; rc=$?; }
said() { cp "$t/cc" "$t/out"; says "$@"; }
# fails_with TEXT...: the last run exited 1 and said every TEXT.
fails_with() { [ "$rc" = 1 ] && cp "$t/cc" "$t/out" && for p; do out_has "$p" || return 1; done; }

# --- all borne out ------------------------------------------------------------------
good
run
# broken on: the record's diff_sha1 compared with the whole sha1 (every
# row "stale").
check "every claim with its diff and a current row caught by its catcher: exit 0" test $rc = 0
said "... each variant ok with what caught it" 'ok   broken-aa: test smoke.x, caught by assertion: smoke.x: it failed' \
	'ok   kunit-cc: kunit shrinker_test_one, caught by kunit: shrinker_test_one' 'ok   broken-ss: splat, caught by splat: '
said "... each claim ok, tied to its test" 'ok   broken-aa (docs/testing.md:8): claimed for test smoke.x' \
	'ok   kunit-cc (docs/testing.md:17): claimed for kunit shrinker_test_one' 'ok   broken-ss (docs/testing.md:8): claimed for splat'
# broken on: a diff without "# fails:" required to have a row.
said "... a diff without a fails: line is documented, not claimed" 'ok   broken-nn (docs/testing.md:22): documented, not claimed'
# broken on: every backquoted name of a table read, whatever its column.
check "... the property column and a table without a claim column are not claims" \
	bash -c "! grep -q 'broken-property\|broken-other-table' '$t/cc'"
# broken on: names read from prose lines too (not only table rows).
check "... prose is not a claim" bash -c "! grep -q 'broken-prose' '$t/cc'"
# broken on: the branches of branch-stack.txt not skipped.
check "... a branch name in a claim column is not a variant" bash -c "! grep -q 'memcg-empty-units' '$t/cc'"
said "... the Debian variant ok, by both its tests' assertions" 'ok   broken-dd (Debian): debian-subsys.ext4,debian-subsys.binder, caught by assertion: debian-subsys.ext4' \
	'ok   broken-dd (docs/debian-system.md:5): must fail debian-subsys.ext4,debian-subsys.binder'
check "... the count for tools/lib/tally.sh" grep -qx 'check-claims: [0-9]* passed, 0 failed, 0 due (.*)' "$t/cc"

# --- a claim tied to another test than its diff's --------------------------------------
good
# kunit-cc moved from its case's row into smoke.boot's row.
sed -i 's/^| smoke | boot | boots | — |$/| smoke | boot | boots | `kunit-cc` |/; s/^| one | the first | `kunit-cc` |$/| one | the first | — |/' "$P/docs/testing.md"
run
# broken on: the row's test not compared with the diff's fails: line
# ("true" for the tie).
check "a KUnit variant moved into smoke.boot's row: exit 1, the claim mis-tied" \
	fails_with 'FAIL kunit-cc (docs/testing.md:7): claimed for test smoke.boot, but tests/broken/kunit-cc.diff says '"'"'# fails: kunit shrinker_test_one'"'"
# broken on: the claims counted per name only (claimed anywhere: ok).
check "... and missing from its case's row" \
	fails_with "FAIL kunit-cc (kunit shrinker_test_one): docs/testing.md claims it nowhere: name it in the claim cell ('seen to fail on', 'failed on') of shrinker_test_one's row"
good
sed -i 's/; splat scan: `broken-ss`/; `broken-ss`/' "$P/docs/testing.md"
run
# broken on: the tie checked for test and kunit claims only (a splat
# variant in a test's own claims passed).
check "a splat variant claimed as the test's own catch: exit 1" \
	fails_with 'FAIL broken-ss (docs/testing.md:8): claimed for test smoke.x, but tests/broken/broken-ss.diff says '"'# fails: splat KASAN'"
good
sed -i 's/`broken-dd`; splat scan: `broken-ss`/splat scan: `broken-ss`, `broken-dd`/' "$P/docs/testing.md"
run
# broken on: "splat scan:" read as the end of the cell's claims (names after
# it never checked).
check "a test's variant after 'splat scan:': exit 1" \
	fails_with 'FAIL broken-dd (docs/testing.md:8): claimed for the splat scan, but tests/broken/broken-dd.diff says'
good
diff_ broken-nn; row broken-nn
sed -i 's/^| `broken-nn` |/| `broken-aa` |/' "$P/docs/testing.md"
run
# broken on: the check that every diff with a fails: line is claimed
# removed.
check "a diff with a fails: line that no document claims: exit 1" \
	fails_with "FAIL broken-nn (test smoke.x): docs/testing.md claims it nowhere"
good
diff_ broken-nn; row broken-nn
run
# broken on: a listing in a "variant" table taken for the test's claim.
check "a test's variant listed, but not in its test's row: exit 1" \
	fails_with "FAIL broken-nn (test smoke.x): docs/testing.md does not name it in the row of smoke.x"
good
diff_ broken-aa none
run
# broken on: a diff without a fails: line always "documented, not claimed".
check "a test's claim whose diff has no fails: line: exit 1" \
	fails_with "FAIL broken-aa (docs/testing.md:8): claimed for test smoke.x, but tests/broken/broken-aa.diff has no '# fails:' line"
good
diff_ broken-bb 'test smoke'
run
# broken on: the fails: line's form not checked (a claim "test smoke" tied
# to nothing).
check "a fails: line of no known form: exit 1, naming it" \
	fails_with "FAIL broken-bb: tests/broken/broken-bb.diff: its '# fails:' line is none of"

# --- the tables themselves ------------------------------------------------------------------
good
sed -i 's/^| one | the first | `kunit-cc` |$/| one | the first | — |/' "$P/docs/testing.md"
sed -i 's/^| `broken-aa` | boot, smoke/| `kunit-cc` | boot, smoke/' "$P/docs/testing.md"
run
# broken on: no check that a "failed on" table names a variant.
check "a 'failed on' table that names no variant: exit 1" \
	fails_with "FAIL docs/testing.md:15: a 'seen to fail on'/'failed on' table that names no variant"
good
sed -i 's/^| case | what it asserts | broken kernel it failed on/| name | what it asserts | broken kernel it failed on/' "$P/docs/testing.md"
run
# broken on: a claim table without a test column read as a list of
# variants (its claims tied to nothing).
check "a 'failed on' table with no test or case column: exit 1" \
	fails_with "FAIL kunit-cc (docs/testing.md:17): its table has a claim column but no 'suite'/'test' or 'case' column"
good
cp "$cc" "$t/cc-real"
sed -i 's|h ~ /seen to fail on\|failed on/|h ~ /seen to fail on/|g' "$cc"
run
cp "$t/cc-real" "$cc"
# The checker itself mutated as issue #38 found: "failed on" dropped from
# its header pattern lost the KUnit table's claims and still passed.
# broken on: (the check that every diff with a fails: line is claimed,
# removed, with this mutation: exit 0).
check "the checker without 'failed on' in its header pattern fails (the KUnit claims lost)" \
	fails_with "FAIL kunit-cc (kunit shrinker_test_one): docs/testing.md claims it nowhere"

# --- claims and their diffs ------------------------------------------------------------------
good
sed -i 's/`broken-bb`: with/`broken-gone`, `broken-bb`: with/' "$P/docs/testing.md"
run
# broken on: a missing diff read as one without a fails: line ("not claimed").
check "a claim without its diff: exit 1" \
	fails_with 'FAIL broken-gone (docs/testing.md:8): no tests/broken/broken-gone.diff'
# broken on: the run list holding the names without a diff too.
check "... nothing to run for it (a diff must be written first)" bash -c "! grep -q 'broken-gone' <(grep '^to run:' '$t/cc')"

# --- the records ----------------------------------------------------------------------------
good
sed -i '/^broken-bb\t/d' "$P/docs/broken-variants.tsv"
# A longer name's row, with the same sha: it must not count for broken-bb.
printf 'broken-bb-wide\t%s\t%s\ttree\tcaught\tassertion: smoke.x: x\t-\t-\t1\t2026-12-06\n' \
	"$(sha1sum "$P/tests/broken/broken-bb.diff" | cut -c1-12)" "$(sid)" >>"$P/docs/broken-variants.tsv"
run
# broken on: rows looked up by prefix (broken-bb-wide's row counted for
# broken-bb).
check "a variant without a record row: exit 1" \
	fails_with 'FAIL broken-bb (test smoke.x): no record in docs/broken-variants.tsv: never run; run tools/boot/broken-variants.sh broken-bb'
# broken on: the run list not written.
check "... the run list names exactly it" grep -qx 'to run: tools/boot/broken-variants.sh broken-bb .*' "$t/cc"
good
echo ' ' >>"$P/tests/broken/broken-aa.diff"	# the diff changed after its run
run
# broken on: the sha not compared (any row counts).
check "a row whose diff_sha1 is not the diff's: exit 1" \
	fails_with 'FAIL broken-aa (test smoke.x): stale record: the diff changed since its run' 'run tools/boot/broken-variants.sh broken-aa'
# broken on: the whole sha1 compared with the record's 12 digits (every
# row stale, broken-bb's too).
check "... the other one still ok" grep -q 'ok   broken-bb: test smoke.x, caught' "$t/cc"
good
printf '+p2\n' >>"$P/patches/prep/0001-p1.patch"	# the stack changed after the runs
run
# broken on: the record's stack id not compared with today's.
check "a row of another stack (patches/ changed since): exit 1, stale" \
	fails_with "FAIL broken-aa (test smoke.x): stale record: its run of 2026-12-06 was on stack" "today's is $(sid) (patches/ or branch-stack.txt changed since)"
check "... the Debian records too" \
	fails_with "FAIL broken-dd (Debian, debian-subsys.ext4,debian-subsys.binder): stale record" 'to run: tools/debian/broken.sh broken-dd'
good
sed -i 's/^Subject: \[PATCH\] p1$/Subject: [PATCH] p1, reworded/; s/^Why\.$/Why, at length./' "$P/patches/prep/0001-p1.patch"
run
# broken on: stack_id hashing the whole patch file (a reworded message made
# every record stale).
check "a patch whose message changed (not its diff) keeps the records current" test $rc = 0
good
sed -i 's/^base linux-source-6.1 1.0-1$/base linux-source-6.1 1.0-2/' "$P/branch-stack.txt"
run
# broken on: stack_id without the base line (a move to another upload kept
# every record).
check "another base upload makes every record stale" fails_with "FAIL broken-aa (test smoke.x): stale record: its run"
good
sed -i '/^broken-aa\t/d' "$P/docs/broken-variants.tsv"
row broken-aa MISSED 'timeout: smoke.x: timed out after 300s'
run
# broken on: the verdict not read (a MISSED run taken as a seen failure).
check "a current row whose verdict is MISSED: exit 1, saying what failed the run" \
	fails_with 'its run of 2026-12-06 was MISSED (caught by: timeout: smoke.x: timed out after 300s), not caught by its claim'
good
sed -i '/^broken-aa\t/d' "$P/docs/broken-variants.tsv"
row broken-aa caught 'splat: [    1.0] BUG: KASAN: use-after-free'
run
# broken on: caught_by not compared with the claim (a test's claim borne
# out by a splat).
check "a test's claim whose row was caught by a splat: exit 1" \
	fails_with "FAIL broken-aa (test smoke.x): its run of 2026-12-06 was recorded caught, but by 'splat: " "BUG: KASAN: use-after-free', not by its claim 'test smoke.x'"
good
sed -i '/^broken-aa\t/d' "$P/docs/broken-variants.tsv"
row broken-aa caught 'assertion: smoke.other: it failed'
run
check "... or by another test's assertion" fails_with "FAIL broken-aa (test smoke.x): its run of 2026-12-06 was recorded caught, but by 'assertion: smoke.other"
good
printf '# name\tdiff_sha1\ttop_tree\tverdict\tfailed_cases\tfirst_splat\tseconds\tdate\n' >"$P/docs/broken-variants.tsv"
run
# broken on: the record's header not checked (an old record's columns read
# as the new ones).
check "a record of another format: an error naming both headers" \
	fails_with "its header is not tools/boot/broken-variants.sh'" 'want: # name diff_sha1 stack_id'

good
rm "$P/debian-system/broken-variants"
run
# broken on: the inputs not looked for (the Debian claims silently skipped).
check "a missing input: an error naming it and the way out" \
	fails_with 'error: no debian-system/broken-variants: check-claims reads' 'git checkout -- debian-system/broken-variants'

# --- the Debian claims ------------------------------------------------------------------------
good
sed -i '/^broken-dd\t/d' "$P/docs/debian-broken.tsv"
drow broken-dd caught 'assertion: debian-subsys.ext4: nothing freed; splat: [ 1.0] BUG: KASAN'
run
# broken on: the Debian row's verdict taken alone (binder's catch not
# looked for in caught_by).
check "a Debian row without the own assertion of one of its tests: exit 1" \
	fails_with 'FAIL broken-dd (Debian, debian-subsys.ext4,debian-subsys.binder): its run of 2026-12-06 was recorded caught, but not by the own assertion of debian-subsys.binder'
good
sed -i '/^broken-dd\t/d' "$P/docs/debian-broken.tsv"
run
# broken on: the Debian lines not read (no Debian check at all).
check "a Debian variant without a record: exit 1, its run named" \
	fails_with 'FAIL broken-dd (Debian, debian-subsys.ext4,debian-subsys.binder): no record in docs/debian-broken.tsv: never run' 'to run: tools/debian/broken.sh broken-dd'
good
ddocs 'broken-dd debian-subsys.ext4'
run
# broken on: docs/debian-system.md's "must fail" not compared with the line.
check "docs/debian-system.md's must-fail differs from debian-system/broken-variants: exit 1" \
	fails_with "FAIL broken-dd (docs/debian-system.md:5): must fail 'debian-subsys.ext4', but debian-system/broken-variants says"
good
ddocs 'broken-dd debian-subsys.ext4, debian-subsys.binder' 'broken-zz debian-subsys.ext4'
run
# broken on: the document's rows not checked against the lines.
check "a Debian claim in the document without its line: exit 1" \
	fails_with 'FAIL broken-zz (docs/debian-system.md:6): no line in debian-system/broken-variants'
good
ddocs 'broken-other debian-subsys.ext4'
run
# broken on: the lines not checked against the document's rows.
check "a Debian line without its row in the document: exit 1" \
	fails_with "FAIL broken-dd (debian-system/broken-variants): no row in docs/debian-system.md's table"

# --- a Debian variant marked due (debian-system/broken-due) ------------------------------
good
sed -i '/^broken-dd\t/d' "$P/docs/debian-broken.tsv"
drow broken-dd caught 'assertion: debian-subsys.ext4: nothing freed; assertion: debian-subsys.binder: no page' 0123456789ab
printf '# NAME REASON\nbroken-dd no Debian build of this stack yet\n' >"$P/debian-system/broken-due"
sed -i 's/| \*\*caught\*\* |/| **due**: last caught on another stack |/' "$P/docs/debian-system.md"
run
# broken on: broken-due not read (the stale record fails the run).
check "a due Debian variant with another stack's record: exit 0" test $rc = 0
said "... said due, with its reason and the stale record" \
	'due  broken-dd (Debian, debian-subsys.ext4,debian-subsys.binder): not claimed (no Debian build of this stack yet): ' \
	'check-claims: ' ', 0 failed, 1 due (' 'due: tools/debian/broken.sh broken-dd'
sed -i 's/| \*\*due\*\*: last caught on another stack |/| **caught** |/' "$P/docs/debian-system.md"
run
# broken on: the document's row not read for a due variant (its old
# "caught" stands as today's claim).
check "... whose row in docs/debian-system.md still says caught: exit 1" \
	fails_with "FAIL broken-dd (docs/debian-system.md:5): due in debian-system/broken-due, but its row does not say"
good
printf 'broken-dd no Debian build of this stack yet\n' >"$P/debian-system/broken-due"
sed -i 's/| \*\*caught\*\* |/| **due** |/' "$P/docs/debian-system.md"
run
# broken on: a current record of a due variant accepted (the mark would
# outlive the run that made it needless).
check "a due Debian variant whose record is current and caught: exit 1" \
	fails_with "FAIL broken-dd (Debian): marked due in debian-system/broken-due, but its record is current"
good
printf 'broken-gone no such variant\n' >"$P/debian-system/broken-due"
run
# broken on: broken-due's names not checked against broken-variants.
check "a due name without its line in debian-system/broken-variants: exit 1" \
	fails_with 'FAIL broken-gone (debian-system/broken-due): no line in debian-system/broken-variants'
good
printf 'broken-dd\n' >"$P/debian-system/broken-due"
run
# broken on: a due line taken without its reason.
check "a due line without its reason: an error" fails_with 'debian-system/broken-due: the line of broken-dd gives no reason'

good
printf 'broken-nodiff  debian-subsys.ext4  --suites debian-subsys\nbroken-notests\n' >>"$P/debian-system/broken-variants"
diff_ broken-notests; row broken-notests
ddocs 'broken-dd debian-subsys.ext4, debian-subsys.binder' 'broken-nodiff debian-subsys.ext4' 'broken-notests -'
run
# broken on: the Debian line's diff not looked for (a record of a removed
# diff, or none, read on).
check "a Debian line whose diff is gone: exit 1" \
	fails_with 'FAIL broken-nodiff (debian-system/broken-variants): no tests/broken/broken-nodiff.diff'
# broken on: a line without tests passed (no test to be caught by).
check "a Debian line that names no test: exit 1" \
	fails_with 'FAIL broken-notests (debian-system/broken-variants): no tests named'

# --- the real documents ---------------------------------------------------------------------
# Every claim of docs/testing.md and docs/debian-system.md matches its
# variant's data (records may still be due: those are the runs
# check-claims names, see docs/testing.md).
"$here/tools/boot/check-claims.sh" >"$t/cc" 2>&1
grep '^FAIL' "$t/cc" | grep -v ': no record in \|: stale record: \|: its run of ' >"$t/real" || :
# broken on: (the repository's docs/testing.md claiming memcg-no-tryget-race
# for races.memcg-races, whose diff claims a splat).
check "docs/testing.md and docs/debian-system.md: every claim tied to its variant's data" test ! -s "$t/real"
check "... and the checker ran to its count" grep -q '^check-claims: [0-9]* passed, [0-9]* failed' "$t/cc"

echo "1..$((pass + fail))"
echo "check-claims-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
