#!/bin/bash
# The shrinkers registered by the time the suite starts (built-in
# subsystems, devices probed at boot), by name: one COVBOOT line each, for
# the host's comparison of base and tests (tools/coverage-report).
. /s61/lib.sh
n=0
for name in $(shrinker_names | sort -u); do
	echo "COVBOOT $name $(shrinker_count "$name")"
	n=$((n + 1))
done
[ $n -gt 0 ] || fail "no shrinker in /sys/kernel/debug/shrinker"
pass "$n distinct shrinker names at boot"
