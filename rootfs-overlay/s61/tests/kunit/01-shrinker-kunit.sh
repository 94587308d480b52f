#!/bin/bash
# The in-tree KUnit suite "shrinker" (CONFIG_SHRINKER_KUNIT_TEST) ran during
# boot and passed. Its KTAP output is read back from the kernel log.
. /s61/lib.sh
log=$(dmesg | sed 's/^\[[^]]*\] //')
if ! echo "$log" | grep -q '# Subtest: shrinker$'; then
	skip "kernel has no shrinker KUnit suite (CONFIG_SHRINKER_KUNIT_TEST: tests branch, kunit or debug config)"
fi
echo "$log" | awk '/# Subtest: shrinker$/ { on = 1 } on { print } on && /^(not )?ok [0-9]+ shrinker$/ { exit }'
result=$(echo "$log" | grep -E '^(not )?ok [0-9]+ shrinker$' | tail -1)
cases=$(echo "$log" | grep -E '^    ok [0-9]+ shrinker_test_' | grep -vc '# SKIP')
skipped=$(echo "$log" | grep -E '^    ok [0-9]+ shrinker_test_' | grep '# SKIP')
bad=$(echo "$log" | grep -cE '^    not ok [0-9]+ shrinker_test_')
echo "kunit: $cases cases ok, $bad failed, $(echo -n "$skipped" | grep -c .) skipped"
[ -n "$result" ] || fail "the shrinker suite did not finish"
case $result in
"not ok"*) fail "KUnit shrinker suite failed" ;;
esac
[ "$cases" -gt 0 ] || fail "no test case reported ok"
# A skipped case is not a pass: say which, and report the whole test as SKIP.
[ -z "$skipped" ] || skip "KUnit cases skipped: $(echo "$skipped" | sed 's/^ *ok [0-9]* //' | tr '\n' ';')"
pass
