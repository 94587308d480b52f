#!/bin/bash
# P2's CPU profile (diagnostics, off by default: s61.bench_p2_profile=1):
# perf record of the whole guest while stress-ng --ramfs runs, top kernel
# symbols by self time and the callers of the top ones.
. /s61/tests/bench/bench.lib

[ "$(barg p2_profile 0)" = 1 ] || skip "P2 profile not asked for (s61.bench_p2_profile=1)"
secs=$(barg p2_profile_secs 10)
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
cd /tmp || fail "no /tmp"
perf record -q -N -a -g -e cpu-clock -F 1000 -o /tmp/p2.data -- \
	stress-ng --times --metrics-brief --ramfs "$(nproc)" --timeout "${secs}s" --yaml /tmp/p2p.yaml \
	>/tmp/p2p.log 2>&1
[ -s /tmp/p2.data ] || { cat /tmp/p2p.log; fail "perf record failed"; }
echo "ops/s: $(awk '$1 == "bogo-ops-per-second-real-time:" { print $2; exit }' /tmp/p2p.yaml)"
perf report -i /tmp/p2.data --stdio --no-children --sort sym --percent-limit 0.7 -g none 2>/dev/null |
	grep '%' | grep -v '^#' | head -30
echo "---- with children (inclusive) ----"
perf report -i /tmp/p2.data --stdio --children --sort sym --percent-limit 3 -g none 2>/dev/null |
	grep '%' | grep -v '^#' | head -40
echo "---- shrinker, RCU and debugfs functions (inclusive) ----"
perf report -i /tmp/p2.data --stdio --children --sort sym --percent-limit 0.1 -g none 2>/dev/null |
	grep '%' | grep -v '^#' | grep -E 'shrink|rcu|debugfs|list_lru|alloc_super|destroy_super|deactivate' | head -40
pass
