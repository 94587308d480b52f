#!/usr/bin/env bash
# Tests of tools/check-claims (the "seen to fail on" names of
# docs/testing.md against tests/broken/ and docs/broken-variants.tsv), on
# small fixture documents, diffs and records in a copy of the project.
#
# Each check was seen to fail on a deliberately broken variant of the
# checker, named in a comment above it as "broken on: ...".
# shellcheck disable=SC2016  # the backquotes are Markdown's, not expansions
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
new_project
cc=$P/tools/check-claims
mkdir -p "$P/docs" "$P/tests/broken"
printf '%s\n' 'base linux-source-6.1 1.0-1' prep 'memcg-empty-units core' >"$P/branch-stack.txt"

# diff NAME [nofails]: tests/broken/NAME.diff, with a "# fails:" line unless
# told otherwise.
diff_() {
	{
		echo "# s61-broken: $1 is broken."
		echo "# run: --config boot --suites smoke"
		[ "${2:-}" = nofails ] || echo "# fails: test smoke.x"
		printf 'diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-a\n+%s\n' "$1"
	} >"$P/tests/broken/$1.diff"
}
# row NAME [VERDICT [SHA]]: NAME's record row; SHA defaults to that of the
# diff as it is now.
row() {
	local sha=${3:-$(sha1sum "$P/tests/broken/$1.diff" | cut -c1-12)}
	printf '%s\t%s\ttree\t%s\t-\t-\t60\t2026-12-06\n' "$1" "$sha" "${2:-caught}" >>"$P/docs/broken-variants.tsv"
}
# docs LINE...: docs/testing.md with two tables: the suites (their last
# column "seen to fail on" holds $1; the property column a name that is no
# claim), and a table with no claim column; then the variants (first
# column) from the further arguments. Prose and a branch name in between.
docs() {
	local v
	{
		echo '# Testing'
		echo
		echo 'Prose names `broken-prose`, which is no claim.'
		echo
		echo '| suite | test | property | seen to fail on |'
		echo '| --- | --- | --- | --- |'
		echo "| smoke | x | frees them, unlike \`broken-property\` | $1 |"
		echo '| smoke | y | the branch `memcg-empty-units` | — (`memcg-empty-units`) |'
		echo
		echo '| what | where |'
		echo '| --- | --- |'
		echo '| `broken-other-table` | not a claim column |'
		echo
		echo '| variant (one-line change) | run | result |'
		echo '| --- | --- | --- |'
		shift
		for v; do echo "| $v | boot, smoke | **FAIL** |"; done
	} >"$P/docs/testing.md"
}
reset() {
	rm -f "$P"/tests/broken/*.diff
	printf '# name\tdiff_sha1\ttop_tree\tverdict\tfailed_cases\tfirst_splat\tseconds\tdate\n' >"$P/docs/broken-variants.tsv"
}
# run: the checker, its output in $t/cc (check() writes $t/out), rc.
run() { "$cc" >"$t/cc" 2>&1; rc=$?; }
# said NAME TEXT...: says() on the checker's last output.
said() { cp "$t/cc" "$t/out"; says "$@"; }

# --- all present ----------------------------------------------------------------
reset
docs '`broken-aa` (what it breaks)' '`broken-bb`: with `memcg-empty-units/0001`' '`kunit-cc`' '`broken-dd`'
diff_ broken-aa; row broken-aa
diff_ broken-bb; row broken-bb
diff_ kunit-cc; row kunit-cc
diff_ broken-dd nofails
run
# broken on: the record's diff_sha1 compared with the whole sha1 (every
# row "stale").
check "every claim with its diff and a current caught row: exit 0" test $rc = 0
said "... each named ok" 'ok   broken-aa: caught' 'ok   broken-bb: caught' 'ok   kunit-cc: caught'
# broken on: a diff without "# fails:" required to have a row.
said "... a diff without a fails: line is documented, not claimed" 'ok   broken-dd: documented, not claimed'
# broken on: every backquoted name of a table read, whatever its column.
check "... the property column and a table without a claim column are not claims" \
	bash -c "! grep -q 'broken-property\|broken-other-table' '$t/cc'"
# broken on: names read from prose lines too (not only table rows).
check "... prose is not a claim" bash -c "! grep -q 'broken-prose' '$t/cc'"
# broken on: the branches of branch-stack.txt not skipped.
check "... a branch name in a claim column is not a variant" bash -c "! grep -q 'memcg-empty-units' '$t/cc'"

# --- a name without a diff --------------------------------------------------------
docs '`broken-aa`' '`broken-bb`' '`broken-gone`'
run
# broken on: a missing diff read as one without a fails: line ("not claimed").
check "a claim without its diff: exit 1" test $rc = 1
said "... names it, its line and the missing diff" 'FAIL broken-gone (docs/testing.md:17): no tests/broken/broken-gone.diff'
# broken on: the run list holding the names without a diff too.
check "... nothing to run for it (a diff must be written first)" bash -c "! grep -q '^to run:' '$t/cc'"

# --- a name without a row ---------------------------------------------------------
docs '`broken-aa`' '`broken-bb`' '`broken-new`'
diff_ broken-new
# A longer name's row, with the same sha: it must not count for broken-new.
printf 'broken-new-wide\t%s\ttree\tcaught\t-\t-\t1\t2026-12-06\n' "$(sha1sum "$P/tests/broken/broken-new.diff" | cut -c1-12)" >>"$P/docs/broken-variants.tsv"
run
# broken on: rows looked up by prefix (broken-new-wide's row counted for
# broken-new).
check "a claim whose diff has no record row: exit 1" test $rc = 1
check "... the run list names exactly it" grep -qx 'to run: tools/broken-variants broken-new .*' "$t/cc"
# broken on: the missing row reported as a stale one (recorded sha '').
said "... says it never ran and how to run it" 'FAIL broken-new (docs/testing.md:17): no record in docs/broken-variants.tsv: never run; run tools/broken-variants broken-new'

# --- a stale row, a row that was not caught -----------------------------------------
reset
docs '`broken-aa`' '`broken-bb`'
diff_ broken-aa; row broken-aa
diff_ broken-bb; row broken-bb
echo ' ' >>"$P/tests/broken/broken-aa.diff"	# the diff changed after its run
run
# broken on: the sha not compared (any row counts).
check "a row whose diff_sha1 is not the diff's: exit 1" test $rc = 1
said "... stale, with both shas and the command" 'FAIL broken-aa (docs/testing.md:' 'stale record: the diff changed since its run' 'run tools/broken-variants broken-aa'
# broken on: the whole sha1 compared with the record's 12 digits (every
# row stale, broken-bb's too).
check "... the other one still ok" grep -q 'ok   broken-bb: caught' "$t/cc"
reset
docs '`broken-aa`'
diff_ broken-aa; row broken-aa MISSED
run
# broken on: the verdict not read (a MISSED run taken as a seen failure).
check "a current row whose verdict is MISSED: exit 1" bash -c "[ $rc = 1 ] && grep -q 'was MISSED, not caught' '$t/cc'"

# --- two tables, each with its own claim column ---------------------------------------
reset
docs '—' '`broken-second`'
run
# broken on: the claim columns taken from the first table's header for every
# table (the variants table's first column not read).
check "the variants table's names are read with its own header" \
	bash -c "[ $rc = 1 ] && grep -q 'FAIL broken-second' '$t/cc'"

# --- nothing claimed at all -------------------------------------------------------------
docs '—'
run
# broken on: an empty list passed (a renamed column would silence the check).
check "a document with no claim at all is an error" bash -c "[ $rc = 1 ] && grep -q 'claims no variant' '$t/cc'"

# --- the real document ---------------------------------------------------------------------
# Every claim of docs/testing.md has its diff (records may still be due:
# those are the runs check-claims names, see docs/testing.md).
"$here/tools/check-claims" >"$t/cc" 2>&1
# broken on: (the repository's docs/testing.md naming broken-expand-copy,
# which had no diff).
check "docs/testing.md: no claim without its diff" bash -c "! grep -q ': no tests/broken/' '$t/cc'"

echo "1..$((pass + fail))"
echo "check-claims-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
