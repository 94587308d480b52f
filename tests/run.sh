#!/usr/bin/env bash
# Run the tools' test suites: every tests/CONCERN/test-*.sh, concern by
# concern, each printing its own "LABEL: N passed, N failed" line (the
# lines .ci/run adds up). A suite's header can say how it is run:
#   # tests-deps: GROUP...   tools/build/deps.sh GROUP... first
#   # tests-args: ARGS...    the arguments it is run with
#   # tests-skip: REASON     not run here (e.g. it needs the stack: its own target)
#
# Usage: tests/run.sh [CONCERN...]   (default: every concern of tests/)
# Exit: 0 every suite passed; 1 a suite failed (the others still run,
# the failed ones named at the end); 2 no such concern.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" || exit 2
case ${1:-} in -h | --help) sed -n '2,/^# Exit:/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
# The concerns: the directories of tests/ with a suite.
concerns=()
for d in tests/*/; do
	d=${d%/}
	[ -z "$(find "$d" -maxdepth 1 -name 'test-*.sh' -print -quit)" ] || concerns+=("${d#tests/}")
done
[ $# -gt 0 ] || set -- "${concerns[@]}"
suites=()
for c in "$@"; do
	case " ${concerns[*]} " in
	*" $c "*) suites+=("tests/$c"/test-*.sh) ;;
	*) echo "tests/run.sh: no suites in tests/$c; the concerns: ${concerns[*]}" >&2; exit 2 ;;
	esac
done
failed=()
for s in "${suites[@]}"; do
	skip=$(sed -n '1,40s/^# tests-skip: //p' "$s")
	[ -z "$skip" ] || { echo "$s: not run here: $skip"; continue; }
	deps=$(sed -n '1,40s/^# tests-deps: //p' "$s")
	args=$(sed -n '1,40s/^# tests-args: //p' "$s")
	# shellcheck disable=SC2086  # GROUP... and ARGS... are words
	if [ -n "$deps" ] && ! tools/build/deps.sh $deps; then
		failed+=("$s")
		continue
	fi
	# shellcheck disable=SC2086
	"$s" $args || failed+=("$s")
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "tests/run.sh: ${#failed[@]} of ${#suites[@]} suites failed: ${failed[*]}" >&2
	exit 1
fi
