#!/usr/bin/env bash
# Tests of tools/lint/docs.py: work-diary wording and stray dates in the
# docs, on fixture pages in a temporary git repository; generated pages,
# generated sections and tables of a committed record may carry dates.
#
# Each check was seen to fail on a deliberately broken variant of the
# tool, named in a comment above it as "seen failing with: ..." (a
# comment covers the checks up to the next one).
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
R=$t/root
mkdir -p "$R/docs/bench"
: >"$R/docs/bench/2026-12-06-x.md"
git -C "$R" init -q
ld() { "$here/tools/lint/docs.py" --root "$R" "$@"; }
page() { printf '%s\n' "$@" >"$R/docs/p.md"; }

# seen failing with: SESSION = re.compile(r"\bsessionz\b")
page '# P' 'The debug flavour runs every suite.'
check "a present-tense page passes" ld docs/p.md
page '# P' 'Measured in the 18th session, on the top.'
check_fails "an ordinal work period fails" ld docs/p.md
expect "... named with its line" out_has 'docs/p.md:2: "session"'
page '# P' 'Other sessions ran builds beside it.'
check_fails '"sessions" fails' ld docs/p.md
page '# P' 'This Session took long.'
check_fails '"Session" fails, whatever the case' ld docs/p.md

# seen failing with: ORDINAL = re.compile(r"\(\s*\d+(st|nd|rd)\b", re.I)
page '# P' '### Base and top (17th ...)'
check_fails 'an ordinal opening a parenthesis, "(17th", fails' ld docs/p.md
page '# P' 'written to every 5th scope at the 2nd drop_caches'
check "an ordinal in prose passes" ld docs/p.md

# seen failing with: DATE = re.compile(r"(?<![-\w/.])(19|20)\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]) ")
page '# P' 'The run of 2026-12-03, on the top.'
check_fails "a date in prose fails" ld docs/p.md
expect "... with the date named" out_has 'date 2026-12-03'
page '# P' 'Since 2026-12-06: it is so.'
check_fails "a date before a colon fails" ld docs/p.md
page '# P' '| run | s |' '|---|---|' '| 2026-12-06 | 5 |'
check_fails "a date in a table without a record marker fails" ld docs/p.md
# seen failing with: DATE = re.compile(r"(?<![0-9])(19|20)\d\d-...(?![0-9])")
page '# P' "the tag \`mm-hotfixes-stable-2024-01-05-11-35\` and docs/bench/2026-12-06-x.md"
check "a date inside a name (tag, file) passes" ld docs/p.md

# seen failing with: generated() ignoring docs/results/pages.tsv (only
# docs/results/README.md generated)
mkdir -p "$R/docs/results"
printf '# page\tcommand\trecords\ndocs/results/benchmarks.md\tpython3 tools/bench/bench-report.py --page docs/results/benchmarks.md\tdocs/bench/*.json\nREADME.md\tpython3 tools/lib/results.py readme-timings README.md\tdocs/records/timings.tsv\n' >"$R/docs/results/pages.tsv"
printf '%s\n' '# Benchmarks' 'The run of 2026-12-03.' >"$R/docs/results/benchmarks.md"
check "a generated page (docs/results/pages.tsv) may carry dates" ld docs/results/benchmarks.md
cp "$R/docs/results/benchmarks.md" "$R/docs/results/other.md"
check_fails "... a page of docs/results/ not listed may not" ld docs/results/other.md
printf '%s\n' '# Results' 'Made 2026-12-03.' >"$R/docs/results/README.md"
check "... docs/results/README.md (its index) may" ld docs/results/README.md
# seen failing with: the README.md row taken as a generated page (no "f3[0] == 'README.md'" skip)
printf '%s\n' '# P' 'Ran on 2026-12-03.' >"$R/README.md"
check_fails "... README.md, listed for its block only, may not outside the block" ld README.md
# seen failing with: the SECTIONS entry of results removed
printf '%s\n' '# P' '<!-- results: timings begin -->' '- 47 min at 07e2897, 2026-12-07' '<!-- results: timings end -->' >"$R/README.md"
check "... but may in its timings block" ld README.md
rm "$R/docs/results/other.md"
check "the default list takes docs/results/ in" ld
expect "... its pages counted (README.md, docs/p.md and the two of docs/results/)" out_has "lint-docs: 4 page(s)"
# seen failing with: the SESSION finding skipped in generated pages ("if m and not generated")
printf '%s\n' '# Benchmarks' 'The 5th session run.' >"$R/docs/results/benchmarks.md"
check_fails "... but no work period" ld docs/results/benchmarks.md
rm "$R/docs/results/benchmarks.md" "$R/README.md"

# seen failing with: the SECTIONS entry of results removed; END never
# matched (the section runs to the end of the page)
page '# P' '<!-- results: timings begin -->' '| 6.1.190-1 | 2026-12-06 |' '<!-- results: timings end -->'
check "a date in a generated section passes" ld docs/p.md
page '# P' '<!-- results: timings begin -->' '| a |' '<!-- results: timings end -->' 'Then 2026-12-06.'
check_fails "... not after its end marker" ld docs/p.md
# seen failing with: BEGIN accepting every NAME (section = m.group(1))
page '# P' '<!-- cover-letter: begin -->' 'Run 2026-12-06.' '<!-- cover-letter: end -->'
check_fails "another marker exempts nothing" ld docs/p.md
page '# P' '<!-- results: timings begin -->' 'x'
check_fails "a generated section without its end marker fails" ld docs/p.md

# seen failing with: tracked() returning True for every existing file
printf 'run\tdate\n' >"$R/docs/r.tsv"
page '# P' '<!-- record: docs/r.tsv -->' '' '| run | date |' '|---|---|' '| a | 2026-12-06 |'
check_fails "a record marker naming an uncommitted file fails" ld docs/p.md
expect "... named as such" out_has 'record docs/r.tsv is no committed file'
git -C "$R" add docs/r.tsv
check "a table of a committed record may carry dates" ld docs/p.md
# seen failing with: record kept after the table (no "record = None" when it ends)
page '# P' '<!-- record: docs/r.tsv -->' '| run | date |' '|---|---|' '| a | 2026-12-06 |' '' '| b | 2026-12-07 |'
check_fails "... the next table is not the record's" ld docs/p.md
page '# P' '<!-- record: docs/r.tsv -->' '| a |' '' 'Prose of 2026-12-07.'
check_fails "... nor the prose after it" ld docs/p.md
# seen failing with: the "not directly above a table" finding removed
page '# P' '<!-- record: docs/r.tsv -->' 'Some prose.' '| a | 2026-12-06 |'
check_fails "a record marker with prose before its table fails" ld docs/p.md
expect "... named as such" out_has 'record marker of docs/r.tsv is not directly above a table'
page '# P' '<!-- record: docs/none.tsv -->' '| a | b |'
check_fails "a record marker naming no file fails" ld docs/p.md

# seen failing with: the default list without README.md
rm -f "$R/docs/"*.md
printf '%s\n' '# R' 'Since the 3rd session.' >"$R/README.md"
check_fails "the default pages include README.md" ld
printf '%s\n' '# R' 'Present tense.' >"$R/README.md"
page '# P' 'Measured 2026-12-03.'
check_fails "... and docs/*.md" ld
page '# P' 'Reference.'
check "clean pages pass" ld
# A path the page names must exist (the tools moved once; a page kept the
# old names). seen failing with: the PATH loop of lint() removed.
mkdir -p "$R/tools/boot"; : >"$R/tools/boot/guest-test.sh"
page '# P' "Run \`tools/boot/guest-test.sh --help\`."
check "a page naming a command that exists passes" ld docs/p.md
page '# P' "Run \`tools/guest-test.sh --help\`."
check_fails "a page naming a command that does not exist fails" ld docs/p.md
expect "... naming the path" out_has "tools/guest-test.sh: no such file in the repository"
page '# P' "The kernel runs \`tools/testing/kunit/kunit.py\`; records are docs/bench/*.json."
check "... the kernel tree's tools/testing/ and a glob are not checked" ld docs/p.md

check "--help" ld --help
expect "... prints the usage" out_has 'Usage: tools/lint/docs.py'
check_fails "an unknown option fails" ld --bogus
check_fails "a missing file fails" ld docs/nothing.md

echo "1..$((pass + fail))"
echo "# lint-docs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
