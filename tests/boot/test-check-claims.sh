#!/usr/bin/env bash
# Tests of tools/boot/check-claims.sh: the claims of the diffs' "# fails:" lines
# and of debian-system/broken-variants against their records (current
# diff, today's stack id, caught by the claimed catcher), on small fixture
# diffs, patches and records in a copy of the project. No document is a
# source of claims: the prose of docs/ changes nothing.
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
reset() {
	rm -f "$P"/tests/broken/*.diff
	printf '# name\tdiff_sha1\tstack_id\ttop_tree\tverdict\tcaught_by\tfailed_cases\tfirst_splat\tseconds\tdate\n' >"$P/docs/broken-variants.tsv"
	printf '# name\tdiff_sha1\tstack_id\tverdict\tcaught_by\tfailed\tversion\tseconds\tdate\n' >"$P/docs/debian-broken.tsv"
	printf '# NAME TESTS OPTIONS\nbroken-dd  debian-subsys.ext4,debian-subsys.binder  --suites debian-subsys\n' >"$P/debian-system/broken-variants"
	rm -f "$P/debian-system/broken-due"
	rm -f "$P"/docs/*.md
}
# good: every claim borne out: smoke.x's broken-aa and broken-bb, the
# splat variant broken-ss, KUnit's kunit-cc, the unclaimed broken-nn (no
# fails: line, no record), broken-dd run on Debian.
good() {
	reset
	diff_ broken-aa; row broken-aa
	diff_ broken-bb; row broken-bb
	diff_ broken-ss 'splat KASAN'; row broken-ss
	diff_ kunit-cc 'kunit shrinker_test_one'; row kunit-cc
	diff_ broken-nn none
	diff_ broken-dd 'test smoke.x'; row broken-dd; drow broken-dd
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
said "... the Debian variant ok, by both its tests' assertions" 'ok   broken-dd (Debian): debian-subsys.ext4,debian-subsys.binder, caught by assertion: debian-subsys.ext4'
# broken on: a diff without a fails: line required to have a row.
check "... a diff without a fails: line needs no record" bash -c "! grep -q 'broken-nn' '$t/cc'"
check "... the count for tools/lib/tally.sh" grep -qx 'check-claims: [0-9]* passed, 0 failed, 0 due (.*)' "$t/cc"

good
diff_ broken-bb 'test smoke'
run
# broken on: the fails: line's form not checked (a claim "test smoke" tied
# to nothing).
check "a fails: line of no known form: exit 1, naming it" \
	fails_with "FAIL broken-bb: tests/broken/broken-bb.diff: its '# fails:' line is none of"

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
# --- a Debian variant marked due (debian-system/broken-due) ------------------------------
good
sed -i '/^broken-dd\t/d' "$P/docs/debian-broken.tsv"
drow broken-dd caught 'assertion: debian-subsys.ext4: nothing freed; assertion: debian-subsys.binder: no page' 0123456789ab
printf '# NAME REASON\nbroken-dd no Debian build of this stack yet\n' >"$P/debian-system/broken-due"
run
# broken on: broken-due not read (the stale record fails the run).
check "a due Debian variant with another stack's record: exit 0" test $rc = 0
said "... said due, with its reason and the stale record" \
	'due  broken-dd (Debian, debian-subsys.ext4,debian-subsys.binder): not claimed (no Debian build of this stack yet): ' \
	'check-claims: ' ', 0 failed, 1 due (' 'due: tools/debian/broken.sh broken-dd'
good
printf 'broken-dd no Debian build of this stack yet\n' >"$P/debian-system/broken-due"
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
run
# broken on: the Debian line's diff not looked for (a record of a removed
# diff, or none, read on).
check "a Debian line whose diff is gone: exit 1" \
	fails_with 'FAIL broken-nodiff (debian-system/broken-variants): no tests/broken/broken-nodiff.diff'
# broken on: a line without tests passed (no test to be caught by).
check "a Debian line that names no test: exit 1" \
	fails_with 'FAIL broken-notests (debian-system/broken-variants): no tests named'


# --- a claim with no current record ----------------------------------------------------------
good
diff_ broken-new 'test smoke.y'
run
# broken on: a claim looked for in a record only when a document names it
# (a new diff's fails: line, in no page, never checked).
check "a new diff's claim with no record at all: exit 1, its run named" \
	fails_with 'FAIL broken-new (test smoke.y): no record in docs/broken-variants.tsv: never run' 'to run: tools/boot/broken-variants.sh broken-new '
good
sed -i '/^broken-bb\t/d' "$P/docs/broken-variants.tsv"
row broken-bb caught '' '' 0123456789ab
run
check "a claim whose only record is of another stack: exit 1" \
	fails_with 'FAIL broken-bb (test smoke.x): stale record: its run of 2026-12-06 was on stack 0123456789ab'

# --- the prose of docs/ is no source of claims ------------------------------------------------
# prose PAGE: a page of docs/ that claims what no data says, and the
# opposite of what it says: the old claim tables of docs/testing.md and
# docs/debian-system.md, with names that have no diff, a claim tied to the
# wrong test, a Debian "must fail" that differs from its line.
prose() {
	{
		echo '# Testing'
		echo
		echo '| suite | test | seen to fail on |'
		echo '| --- | --- | --- |'
		echo '| smoke | boot | `kunit-cc`, `broken-gone`; splat scan: `broken-aa` |'
		echo
		echo '| variant | what is broken | must fail | verdict |'
		echo '| --- | --- | --- | --- |'
		echo '| broken-zz | it | debian-subsys.ext4 | **caught** |'
		echo '| broken-dd | it | debian-subsys.btrfs | **caught** |'
		echo
		echo 'Prose names `broken-prose`, seen to fail on smoke.x.'
	} >"$P/docs/$1"
}
good
run
cp "$t/cc" "$t/cc-nodocs"
prose testing.md; prose debian-system.md; prose README.md
run
# broken on: (the checker of before, which read docs/testing.md's claim
# cells and docs/debian-system.md's table: every line of these pages failed).
check "pages of docs/ that contradict the data: the same output, exit 0" \
	bash -c "[ $rc = 0 ] && diff '$t/cc-nodocs' '$t/cc'"
good
sed -i '/^broken-bb\t/d' "$P/docs/broken-variants.tsv"
run
cp "$t/cc" "$t/cc-nodocs"
prose testing.md; prose debian-system.md
printf '| smoke | x | `broken-bb` **caught** |\n' >>"$P/docs/testing.md"
run
check "... a page that says caught does not stand for a missing record: the same failure" \
	bash -c "[ $rc = 1 ] && diff '$t/cc-nodocs' '$t/cc'"
good
rm -rf "$P/docs"/*.md
run
check "... and no page at all: exit 0" test $rc = 0

# --- the real data ------------------------------------------------------------------------
# The repository's claims and records: the records may be stale or
# missing (those are the runs check-claims names); every other failure is
# a claim that does not hold on its own data.
"$here/tools/boot/check-claims.sh" >"$t/cc" 2>&1
grep '^FAIL' "$t/cc" | grep -v ': no record in \|: stale record: \|: its run of ' >"$t/real" || :
# broken on: (a diff whose fails: line is of no known form).
check "the repository's claims: each well formed, its diff and line present" test ! -s "$t/real"
check "... and the checker ran to its count" grep -q '^check-claims: [0-9]* passed, [0-9]* failed' "$t/cc"

echo "1..$((pass + fail))"
echo "check-claims-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
