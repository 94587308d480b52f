#!/bin/bash
# The in-tree KUnit suite "shrinker" (CONFIG_SHRINKER_KUNIT_TEST) ran during
# boot and passed. Its KTAP output is read back from the kernel log.
. /s61/lib.sh
log=$(dmesg | sed 's/^\[[^]]*\] //')
if ! echo "$log" | grep -q '# Subtest: shrinker$'; then
	skip "kernel has no shrinker KUnit suite (CONFIG_SHRINKER_KUNIT_TEST: tests branch, kunit or debug config)"
fi
suite=$(echo "$log" | awk '/# Subtest: shrinker$/ { on = 1 } on { print } on && /^(not )?ok [0-9]+ shrinker$/ { exit }')
echo "$suite"
result=$(echo "$log" | grep -E '^(not )?ok [0-9]+ shrinker$' | tail -1)
cases=$(echo "$suite" | grep -E '^    ok [0-9]+ shrinker_test_' | grep -vc '# SKIP')
skipped=$(echo "$suite" | grep -E '^    ok [0-9]+ shrinker_test_' | grep '# SKIP')
failed=$(echo "$suite" | sed -n 's/^    not ok [0-9]* \(shrinker_test_[a-z_]*\).*/\1/p' | tr '\n' ' ')
bad=$(echo "$failed" | wc -w)
nskip=$(echo -n "$skipped" | grep -c .)
echo "kunit: $cases cases ok, $bad failed, $nskip skipped"
[ -n "$result" ] || fail "the shrinker suite did not finish"
case $result in
"not ok"*) fail "KUnit shrinker suite failed: ${failed:-no case reported not ok}" ;;
esac
# Every case the suite planned must have reported (a case that hung or
# crashed the suite leaves the plan short).
plan=$(echo "$suite" | sed -n 's/^    1\.\.\([0-9]*\)$/\1/p' | head -1)
[ -n "$plan" ] || fail "the shrinker suite printed no plan"
[ "$((cases + bad + nskip))" -eq "$plan" ] ||
	fail "the shrinker suite planned $plan cases, $((cases + bad + nskip)) reported"
[ "$cases" -gt 0 ] || fail "no test case reported ok"
# A skipped case is not a pass: say which, and report the whole test as SKIP.
[ -z "$skipped" ] || skip "KUnit cases skipped: $(echo "$skipped" | sed 's/^ *ok [0-9]* //' | tr '\n' ';')"
pass
