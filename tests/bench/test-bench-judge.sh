#!/usr/bin/env bash
# Tests of the verdict rule of the benchmark report (tools/bench/benchlib/judge.py,
# issue #16) on synthetic pair ratios, one check per branch: the spread of
# the pairs includes 1.0, every pair faster, every pair slower, 1.0 exactly
# at an end, a single pair, fewer than 5 pairs (indicative), a metric where
# lower is better against one where higher is better. Then the report built
# on the recorded QUICK run (tests/fixtures/bench-quick) next to copies of
# docs/bench/*.json: every verdict it prints comes from the rule, the
# "Earlier runs" table lists every recorded run, QUICK included, and the
# cover-letter block says what was not resolvable.
# Pair ratios are B/A: the series (kernel B) over base (kernel A).
# Each check names, in a comment, a broken variant of the code it was seen
# to fail on (the rule broken on purpose, the check run, the code restored).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

# jv NAME EXPR: the Python expression EXPR, with the names of
# benchlib.judge, is true.
jv() {
	check "$1" python3 -c "import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from benchlib.judge import *
sys.exit(not ($2))" "$here/tools/bench"
}

# 1. The rule, pair_verdict(ratios, higher_is_better).
# Broken: the verdict by the median ratio (1.02 -> "faster").
jv "the spread includes 1.0: no difference resolvable (throughput)" \
	"pair_verdict([0.90, 1.02, 1.15, 0.95, 1.10], True) == NO_DIFF"
# Broken: the verdict by the median ratio (0.95 -> "faster").
jv "the spread includes 1.0: no difference resolvable (time)" \
	"pair_verdict([0.90, 1.02, 1.15, 0.95, 0.93], False) == NO_DIFF"
# Broken: the direction ignored (every metric judged as a time, ratio > 1 slower).
jv "every pair above 1.0 where higher is better: faster" \
	"pair_verdict([1.03, 1.05, 1.10, 1.02, 1.20], True) == 'faster'"
# Broken: the words swapped (B better -> "slower").
jv "every pair under 1.0 where lower is better: faster" \
	"pair_verdict([0.80, 0.90, 0.95, 0.85, 0.99], False) == 'faster'"
# Broken: the direction ignored (every metric judged as a time).
jv "every pair under 1.0 where higher is better: slower" \
	"pair_verdict([0.80, 0.90, 0.95, 0.85, 0.99], True) == 'slower'"
# Broken: the words swapped (B worse -> "faster").
jv "every pair above 1.0 where lower is better: slower" \
	"pair_verdict([1.01, 1.30, 1.05, 1.43, 1.10], False) == 'slower'"
# Broken: strict comparisons, min < 1.0 < max (1.0 then counts as agreeing).
jv "a pair at exactly 1.0 at the low end: no difference resolvable" \
	"pair_verdict([1.0, 1.10, 1.20, 1.05, 1.30], True) == NO_DIFF"
# Broken: strict comparisons, min < 1.0 < max.
jv "a pair at exactly 1.0 at the high end: no difference resolvable" \
	"pair_verdict([0.80, 0.90, 1.0, 0.95, 0.85], False) == NO_DIFF"
# Broken: a verdict needs two pairs (a single one gave "not measured").
jv "a single pair gives an indicative verdict" \
	"pair_verdict([1.2], True) == 'faster (indicative)' and pair_verdict([0.7], True) == 'slower (indicative)'"
# Broken: strict comparisons (a single pair of 1.0 gave "slower").
jv "a single pair at exactly 1.0: no difference resolvable (indicative)" \
	"pair_verdict([1.0], True) == NO_DIFF + ' (indicative)'"
# Broken: "(indicative)" only under 4 pairs (len(ratios) < MIN_PAIRS - 1).
jv "4 pairs: indicative" \
	"pair_verdict([1.1, 1.2, 1.05, 1.3], True) == 'faster (indicative)' and pair_verdict([0.9, 1.1, 1.0, 1.2], False) == NO_DIFF + ' (indicative)'"
# Broken: "(indicative)" up to 5 pairs (len(ratios) <= MIN_PAIRS).
jv "5 pairs: not indicative" \
	"pair_verdict([1.1, 1.2, 1.05, 1.3, 1.1], True) == 'faster' and MIN_PAIRS == 5"
# Broken: no guard for an empty list (min() of nothing raised ValueError).
jv "no pair: not measured" \
	"pair_verdict([], True) == NOT_MEASURED and pair_verdict([None], False) == NOT_MEASURED"
# Broken: the direction ignored (P3's freed dentries judged as a time).
jv "P3's freed dentries: higher is better, in its own words" \
	"metric_verdict([3.0, 3.9, 7.8, 2.8, 9.8], ('p3', 'pass_freed_dentries')) == 'frees more'"
# Broken: the direction ignored (P5's bytes judged as a throughput).
jv "P5's bytes per memcg: lower is better, in its own words" \
	"metric_verdict([1.34, 1.40, 1.43, 1.38, 1.40], ('p5', 'bytes_per_memcg')) == 'more memory'"
# Broken: ('p2par', 'ops_per_s') missing from DIRECTION (KeyError).
jv "every headline metric has a direction, the same within a goal" \
	"all(len({DIRECTION[k] for k in keys}) == 1 for keys in HEADLINE.values())"
# Broken: P2's headline the alternating pairs alone (their 1.013-1.063 -> "faster").
jv "P2 pools its alternating pairs and its pairs booted at the same time" \
	"headline({'p2.ops_per_s': [1.020, 1.032, 1.016, 1.063, 1.013], 'p2par.ops_per_s': [1.062, 1.185, 1.085, 0.923, 0.977]}, 'P2') == ([1.020, 1.032, 1.016, 1.063, 1.013, 1.062, 1.185, 1.085, 0.923, 0.977], NO_DIFF)"

# 2. The report on the recorded QUICK run, its JSON next to the recorded ones.
q=$t/quick d=$t/bench
cp -r "$here/tests/fixtures/bench-quick" "$q"
mkdir "$d"
cp "$here"/docs/bench/*.json "$d/"
echo '[1, 2]' >"$d/list.json"
echo 'not json' >"$d/notes.json"
rep() { python3 "$here/tools/bench/bench-report.py" --runs "$q" --md "$d/benchmarks.md" --json "$d/out.json" --png "$d/out.png"; }
# Broken: load_recorded() without its shape check (a list has no .setdefault).
check "the report is written next to recorded runs and files that are not reports" rep
# Broken: goals() judging P4 by its median pair ratio (1.061 -> "slower").
check "every goal's verdict is the rule on its headline pairs" python3 -c "import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from benchlib.judge import headline
d = json.load(open(sys.argv[2]))
R = {k: v['ratios_b_over_a'] for k, v in d['summary'].items()}
sys.exit(not all(g['verdict'] == headline(R, g['workload'])[1] for g in d['goals']))" "$here/tools/bench" "$d/out.json"
# Broken: the report before issue #16 (P4 "NOT met (indicative)", rwsem first).
check "P4 states the missing rwsem as a fact of construction, no verdict word" \
	bash -c "grep '^| P4 |' '$d/benchmarks.md' | grep -q 'by construction tests takes no rwsem' &&
		! grep '^| P4 |' '$d/benchmarks.md' | grep -qw 'met'"
# Broken: the report before issue #16 ("met (indicative)" in every goal).
check "no verdict says met or NOT met" bash -c "! grep -qw 'met' '$d/benchmarks.md'"
awk '/^## Earlier runs/ { b = 1; next } /^## / { b = 0 } b' "$d/benchmarks.md" >"$t/earlier"
# Broken: earlier_runs() skipping the files with quick=1.
check "Earlier runs lists every recorded run and this one" bash -c "
	for f in 20261203-152244-full p2-aa p2-abba quick-fresh-host out; do grep -q \"^| \\\`\$f.json\\\`\" '$t/earlier' || exit 1; done"
# Broken: earlier_runs() skipping the files with quick=1.
# shellcheck disable=SC2016  # the backquotes are markdown
check "with the QUICK run on a fresh host: P4 1.43, slower (indicative)" \
	grep -qF '| `quick-fresh-host.json` | 2026-12-03 18:52 | QUICK, 2 rounds + 2 P2 pairs | `base` vs `tests` | 2 CPUs, 2 vCPUs tcg; load 1.64 (1.30–2.18) | 1.009 (0.827–1.283), 4 pairs: **no difference resolvable (indicative)** | 3.906 (3.906–3.906), 2 pairs: **frees more (indicative)** | 1.432 (1.291–1.573), 2 pairs: **slower (indicative)** |' "$t/earlier"
# Broken: P2's headline the alternating pairs alone ("5 pairs: **faster**").
check "and the last full run's P2 over its 10 pairs: no difference resolvable" \
	bash -c "grep '^| \`20261203-152244-full.json\`' '$t/earlier' | grep -qF '1.026 (0.923–1.185), 10 pairs: **no difference resolvable**'"
# Broken: earlier_runs() listing every *.json, the ones it cannot read with empty cells.
check "files that are not reports are left out" bash -c "! grep -qE 'list.json|notes.json' '$t/earlier'"
awk '/^<!-- cover-letter: begin/ { b = 1; next } /^<!-- cover-letter: end/ { b = 0 } b' "$d/benchmarks.md" >"$t/cover"
# Broken: unresolved() returning [] (the line said "none").
check "the cover-letter block says what was not resolvable" \
	grep -qx 'Not resolvable with these pairs (their spread includes 1.00): P4.' "$t/cover"

echo "1..$((pass + fail))"
echo "bench-judge-tests: $pass passed, $fail failed"
[ $fail = 0 ]
