#!/usr/bin/env bash
# Add up test counts: every line of the input files (default: stdin) that
# starts with "[LABEL: ]N passed, N failed[, N skipped][, N xfail]
# [, N not as expected]" (LABEL: letters, digits, _ . - and spaces, starting
# with no space, e.g. "coverage tool tests: "; an indented line is quoted
# output, e.g. the tail of a log, and not counted). Prints one line:
#   P passed, F failed, S skipped, X xfail
# A result "not as expected" (qemu/ktap-summary with a manifest) is a
# failure: ktap-summary counts every failed test among those too, and the
# others it counted by their state (a SKIP or a PASS where the manifest
# wants another state); they move to failed, taken from skipped, then
# xfail, then passed (the line does not say which state they had).
# Used by .ci/run (the closing line) and tools/boot/boot-test-branches.sh (per tip).
#
# Usage: tools/lib/tally.sh [FILE...]
case ${1:-} in -h|--help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
exec awk '
	match($0, /^([A-Za-z0-9_][A-Za-z0-9_ .-]*: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ (skipped|xfail|not as expected))*/) {
		line = substr($0, RSTART, RLENGTH)
		sub(/^[^:]*: /, "", line)
		n = split(line, f, /, /)
		p = fl = s = x = u = 0
		for (i = 1; i <= n; i++) {
			v = f[i] + 0
			k = f[i]
			sub(/^[0-9]+ /, "", k)
			if (k == "passed") p = v
			else if (k == "failed") fl = v
			else if (k == "skipped") s = v
			else if (k == "xfail") x = v
			else if (k == "not as expected") u = v
		}
		for (u -= fl; u > 0; u--) {
			fl++
			if (s > 0) s--
			else if (x > 0) x--
			else if (p > 0) p--
		}
		P += p; F += fl; S += s; X += x
	}
	END { printf "%d passed, %d failed, %d skipped, %d xfail\n", P, F, S, X }' "$@"
