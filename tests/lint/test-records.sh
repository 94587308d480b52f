#!/usr/bin/env bash
# Tests of tools/lint/records.py (make check-records): every page of
# docs/results/ and README.md's timings block is what its command writes
# from the committed records, on a copy of this project (no kernel
# checkout, no run): a hand-edited figure, a stale row (a record's row of
# another stack shown unmarked: a page made before the stack changed) and
# a hand-edited README block fail, each naming the page and its command.
#
# Each check was seen to fail on a deliberately broken variant of the
# checker or a generator, named in a "# broken on:" comment above it (a
# comment covers the checks up to the next one).
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
P=$t/proj
# The project as committed (its working tree), without .git and .work.
mkdir -p "$P"
(cd "$here" && tar --exclude=./.git --exclude=./.work --exclude='__pycache__' -cf - .) | tar -C "$P" -xf -
rc() { python3 "$P/tools/lint/records.py" --root "$P"; }
sid() { (cd "$P" && python3 tools/lib/results.py stack-id); }
# regen_all: every page of pages.tsv made anew by its command.
regen_all() {
	local page cmd
	while IFS=$'\t' read -r page cmd _; do
		# shellcheck disable=SC2086  # the command is split on blanks, as records.py does
		(cd "$P" && S61_WORK=$t/w $cmd >/dev/null 2>&1) || echo "regen_all: $cmd failed ($page)" >&2
	done < <(python3 "$P/tools/lint/records.py" --root "$P" --list)
}
# A README with the timings block, filled by its command.
printf '%s\n' '# Project' '' 'Quick start.' '' '<!-- results: timings begin -->' 'typed by hand' \
	'<!-- results: timings end -->' '' 'The rest.' >"$P/README.md"
(cd "$P" && python3 tools/lib/results.py readme-timings README.md 2>/dev/null)

# shellcheck disable=SC2016  # the backquotes are Markdown
check "readme-timings fills the block" grep -q '^- `.ci/run` (make check) on a clean clone: 47 min 17 s at commit 07e2897' "$P/README.md"
check "... and nothing outside it" bash -c "head -n 5 '$P/README.md' | cmp - <(printf '%s\n' '# Project' '' 'Quick start.' '' '<!-- results: timings begin -->') &&
	tail -n 3 '$P/README.md' | cmp - <(printf '%s\n' '<!-- results: timings end -->' '' 'The rest.')"
check "the committed pages are current" rc
expect "... every page checked, README included" out_has "records: 10 page(s) are what their commands write"

# (a) A figure of a results page edited by hand.
# broken on: the compare removed ("if got != want" made "if False").
cp "$P/docs/results/timings.md" "$t/keep"
sed -i 's/| 47 min 17 s |/| 41 min 17 s |/' "$P/docs/results/timings.md"
check_fails "(a) a hand-edited figure fails" rc
says "... naming the page and the command that writes it" \
	"docs/results/timings.md: not what \`python3 tools/lib/results.py timings\` writes" "41 min 17 s"
cp "$t/keep" "$P/docs/results/timings.md"
check "... and passes again once the page is regenerated" rc

# (b) A stale row: a record's row made on today's stack, the page made
# then; the stack changes (a patch changed) and the page is not made anew:
# its row reads as today's, unmarked.
# broken on: a compare that "tolerates stack churn": both sides with every
# 12-digit id masked and " (other stack)" removed before comparing.
awk -F '\t' -v s="$(sid)" 'BEGIN { OFS = "\t" } !/^#/ { $3 = s } { print }' "$P/docs/broken-variants.tsv" >"$t/bv"
cp "$t/bv" "$P/docs/broken-variants.tsv"
(cd "$P" && S61_WORK=$t/w tools/boot/broken-variants.sh --table 2>/dev/null && python3 tools/lib/results.py timings 2>/dev/null)
check "(b) a page of today's stack is current" rc
check "... its rows unmarked" bash -c "! grep -q '(other stack)' '$P/docs/results/broken-variants.md'"
old=$(sid)
# (a line added to the diff of the top's first patch: its file names, and
# so every other page, stay as they were)
tp=$(find "$P/patches/tests" -name '*.patch' | LC_ALL=C sort | head -n 1)
cp "$tp" "$t/tp"
echo ' ' >>"$tp"
check "... the stack changed" test "$(sid)" != "$old"
check_fails "(b) the page made before the stack changed fails" rc
says "... naming the page and its command" "docs/results/broken-variants.md: not what \`tools/boot/broken-variants.sh --table\` writes" \
	"(other stack)"
regen_all
check "... made anew, every row is marked and the check passes" rc
check "... the rows marked other stack" test "$(grep -c "| $old (other stack) |" "$P/docs/results/broken-variants.md")" -gt 0
cp "$t/tp" "$tp"
cp "$here/docs/broken-variants.tsv" "$P/docs/broken-variants.tsv"
check_fails "... back on the committed stack, the marked pages are stale" rc
# broken on: --write a no-op (the pages stay as they were).
check "records.py --write makes every page anew (make results)" env S61_WORK="$t/w" python3 "$P/tools/lint/records.py" --root "$P" --write
check "... and back on the committed stack, current again" rc

# (c) README's timings block edited by hand.
# broken on: README.md's row of pages.tsv skipped (only docs/results/
# pages compared).
cp "$P/README.md" "$t/readme"
sed -i 's/: 47 min 17 s at commit/: 30 min at commit/' "$P/README.md"
check_fails "(c) a hand-edited README timings block fails" rc
says "... naming README.md and its command" "README.md: not what \`python3 tools/lib/results.py readme-timings README.md\` writes"
cp "$t/readme" "$P/README.md"
printf '%s\n' '# Project' 'No block yet.' >"$P/README.md"
check "a README without the block is skipped, with a note" rc
expect "... the note" out_has "README.md: no timings block"
cp "$t/readme" "$P/README.md"
# broken on: the readme-timings rewrite past the end marker (lines[e[0] + 1:]).
sed -i 's/^The rest\.$/The rest, edited by its writer./' "$P/README.md"
check "text outside the block is the writer's: it may change" rc

# Pages without their command, and commands that fail.
# broken on: the listing check of docs/results/ removed.
echo '# x' >"$P/docs/results/extra.md"
check_fails "a page of docs/results/ not in pages.tsv fails" rc
says "... named" "docs/results/extra.md: not in docs/results/pages.tsv"
rm "$P/docs/results/extra.md"
mv "$P/docs/debian-debug.tsv" "$t/dd"
check_fails "a missing record fails" rc
says "... naming the page and the record" "docs/results/debian-debug.md: \`python3 tools/lib/results.py debian-debug\` failed" "no record docs/debian-debug.tsv"
mv "$t/dd" "$P/docs/debian-debug.tsv"
rm "$P/docs/results/debian-debug.md"
check_fails "a listed page that is missing fails" rc
says "... named with its command" "docs/results/debian-debug.md: missing; \`python3 tools/lib/results.py debian-debug\` writes it"
check "--list prints the pages" python3 "$P/tools/lint/records.py" --root "$P" --list
expect "... with their commands" out_has "docs/results/boot-commits.md	tools/boot/boot-commits.sh --table"

echo "1..$((pass + fail))"
echo "records-tests: $pass passed, $fail failed"
[ $fail = 0 ]
