#!/usr/bin/env bash
# Tests of tools/bench/bench-report.py on recorded guest results: the KTAP files
# of a real `make bench QUICK=1` run (tests/fixtures/bench-quick: 2 rounds,
# 2 P2 pairs, base against tests, 2026-12-03), and variants of it made here
# with known P2 figures. Checks that every raw sample reaches the JSON, that
# ratios are taken pair by pair, that a verdict follows the pairs (the rule
# itself: tests/bench/test-bench-judge.sh),
# that runs under 5 rounds give indicative verdicts only, the derived P3
# samples, the cover-letter block and the errors on bad input. Nothing is
# booted; gnuplot is optional (the plot check says SKIP without it).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
skip=0
skip() { skip=$((skip + 1)); echo "ok $((pass + fail + skip)) $1 # SKIP $2"; }

report=$here/tools/bench/bench-report.py
fix=$here/tests/fixtures/bench-quick
rep() { python3 "$report" --runs "$1" --md "$1/out.md" --json "$1/out.json" --png "$1/out.png"; }
# jq-like access to the JSON without jq: python3 -c on out.json.
js() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); $2" "$1/out.json"; }
goal() { grep "^| $2 |" "$1/out.md"; }

# 1. The recorded QUICK run as it is.
q=$t/quick
cp -r "$fix" "$q"
check "the report of the recorded run is written" rep "$q"
check "it has the markdown, the JSON" test -s "$q/out.md" -a -s "$q/out.json"
if command -v gnuplot >/dev/null; then
	check "and the plot" test -s "$q/out.png"
else
	skip "and the plot" "gnuplot is not installed (tools/build/deps.sh bench installs it)"
fi
nktap=$(cat "$q"/runs/*/result.ktap | grep -c 'S61BENCH {')
check "every raw sample of the KTAP files is in the JSON ($nktap)" \
	js "$q" "sys.exit(sum(1 for r in d['runs'] for s in r['samples'] if not s.get('derived')) != $nktap)"
check "the run has 2 rounds: every verdict is indicative" \
	js "$q" "sys.exit(not all(g['verdict'] in ('stated', 'not measured') or g['verdict'].endswith('(indicative)') for g in d['goals']))"
check "the markdown says why" grep -q "Its verdicts are indicative only" "$q/out.md"
# P3: the derived time per freed dentry is latency / freed, per reclaim.
check "the derived P3 samples are latency over freed dentries" js "$q" "
ok = n = 0
for r in d['runs']:
    ms = {(s['pass'], s['memcg']): s['v'] for s in r['samples'] if s.get('w') == 'p3' and s.get('m') == 'memcg_reclaim_ms'}
    for s in r['samples']:
        if s.get('m') == 'us_per_freed_dentry':
            n += 1
            fr = next(x['v'] for x in r['samples'] if x.get('m') == 'memcg_freed_dentries'
                      and (x['pass'], x['memcg']) == (s['pass'], s['memcg']))
            ok += abs(s['v'] - 1000.0 * ms[(s['pass'], s['memcg'])] / fr) < 1e-6 and s.get('derived') is True
sys.exit(not (n > 0 and ok == n))"
# The cover-letter block: between its markers, plain ASCII under 75 columns.
awk '/^<!-- cover-letter: begin/ { b = 1; next } /^<!-- cover-letter: end/ { b = 0 } b' "$q/out.md" >"$t/cover"
check "the report has a cover-letter block naming every goal" \
	bash -c "for g in P1 P2 P3 P4 P5; do grep -q \"^- \$g, \" '$t/cover' || exit 1; done"
check "the cover-letter block is ASCII" bash -c "! LC_ALL=C grep -q '[^ -~]' '$t/cover'"
check "its lines are under 75 columns" bash -c "! awk 'length(\$0) > 74 { bad = 1 } END { exit !bad }' '$t/cover'"
check "it has no thousands separators" bash -c "! grep -qE '[0-9] [0-9]{3}\\b' '$t/cover'"

# 2. Five rounds (rounds 3-5 copies of 1 and 2) with P2 set to known figures.
mk5() {
	local d=$1
	cp -r "$fix" "$d"
	cp -r "$d/runs/r1-base" "$d/runs/r3-base"; cp -r "$d/runs/r1-tests" "$d/runs/r3-tests"
	cp -r "$d/runs/r2-base" "$d/runs/r4-base"; cp -r "$d/runs/r2-tests" "$d/runs/r4-tests"
	cp -r "$d/runs/r1-base" "$d/runs/r5-base"; cp -r "$d/runs/r1-tests" "$d/runs/r5-tests"
	sed -i 's/^rounds=.*/rounds=5/' "$d/meta.env"
}
setp2() { # DIR RUN VALUE: every P2 sample of that boot gets VALUE
	sed -i -E "/\"w\":\"p2\",\"m\":\"ops_per_s\"/s/\"v\":[0-9.]+/\"v\":$3/" "$1/runs/$2/result.ktap"
}
f=$t/five
mk5 "$f"
# base 1000 2000 1000 2000 1000 (median 1000), tests 900 2400 950 1940 1100
# (median 1100): the ratio of the medians would be 1.10; the pairs are
# 0.90 1.20 0.95 0.97 1.10, median 0.97, and their spread includes 1.00.
a=(1000 2000 1000 2000 1000) b=(900 2400 950 1940 1100)
for r in 1 2 3 4 5; do
	setp2 "$f" "r$r-base" "${a[$((r - 1))]}"
	setp2 "$f" "r$r-tests" "${b[$((r - 1))]}"
done
check "the five-round variant is reported" rep "$f"
check "five rounds: the verdicts are not indicative" \
	js "$f" "sys.exit(any(g['verdict'].endswith('(indicative)') for g in d['goals']))"
check "P2's ratio is the median of the pair ratios (0.970)" bash -c "grep '^| P2 |' '$f/out.md' | grep -q 'ops/s ratio 0.970 (median of 5 alternating pairs, 0.900–1.200)'"
check "pairs on both sides of 1.00: P2 has no difference resolvable" bash -c "grep -q '^| P2 | \*\*no difference resolvable\*\* |' '$f/out.md'"
for r in 1 2 3 4 5; do setp2 "$f" "r$r-tests" 1050; setp2 "$f" "r$r-base" 1000; done
rep "$f" >/dev/null 2>&1
# (The 2 P2 pairs booted at the same time stay at 1.075 and 1.127.)
check "with every pair above 1.00 P2 is faster" bash -c "grep '^| P2 |' '$f/out.md' | grep -q '| \*\*faster\*\* | ops/s ratio 1.050'"
check "the JSON says the same" js "$f" "sys.exit(next(g['verdict'] for g in d['goals'] if g['workload'] == 'P2') != 'faster')"

# 3. Bad input.
check_fails "a directory without meta.env is refused" rep "$t"
if out_has "no meta.env"; then ok "the refusal names meta.env"; else ko "the refusal names meta.env" "$(cat "$t/out")"; fi
m=$t/missing
cp -r "$fix" "$m"
rm "$m/runs/r2-tests/result.ktap"
echo 2 >"$m/runs/r2-tests/verdict"
check "a boot without results still gives a report" rep "$m"
check "which says how many boots reported" grep -q "7 of 8 boots passed" "$m/out.md"

echo "1..$((pass + fail + skip))"
echo "bench-report-tests: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
