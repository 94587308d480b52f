#!/usr/bin/env bash
# Tests of tools/lab/check-upstream-timer.sh: the units it writes run
# check-upstream in this clone, daily unless told otherwise, and leave the
# service failed for every exit status but 0 (a newer upload, a conflict, an
# error); bad arguments and an unwritable directory are refused and write
# nothing. systemd-analyze verifies the units where it can.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

tool=$here/tools/lab/check-upstream-timer.sh
d=$t/units
svc=$d/s61-check-upstream.service
tim=$d/s61-check-upstream.timer

check "--help works" "$tool" --help
expect "... and says what the exit statuses mean" out_has "10  a newer upload"

check "writes the units" "$tool" --dir "$d"
# broken on: a relative path in ExecStart (a user unit runs from $HOME).
check "... the service runs check-upstream of this clone" grep -qx "ExecStart=$here/tools/s61 stack check-upstream" "$svc"
check "... in this clone" grep -qx "WorkingDirectory=$here" "$svc"
# broken on: SuccessExitStatus=10 11 (a newer upload would go unseen).
check_fails "... and counts no exit status but 0 as success" grep -q '^SuccessExitStatus' "$svc"
check "... a oneshot service" grep -qx 'Type=oneshot' "$svc"
check "the timer is daily by default, and catches up after downtime" \
	bash -c "grep -qx 'OnCalendar=daily' '$tim' && grep -qx 'Persistent=true' '$tim'"
check "--on-calendar sets the timer" "$tool" --dir "$d" --on-calendar 'Mon *-*-* 06:00'
check "... in the unit" grep -qx 'OnCalendar=Mon \*-\*-\* 06:00' "$tim"

check "--print writes nothing" "$tool" --print --dir "$t/none"
expect "... prints both units" bash -c "grep -q '^ExecStart=' '$t/out' && grep -q '^OnCalendar=' '$t/out'"
check "... and made no directory" test ! -e "$t/none"

check_fails "an unknown argument is refused" "$tool" --frobnicate
expect "... named, with the way out" out_has "unknown argument '--frobnicate' (see --help)"
check_fails "a calendar spec with a newline is refused" "$tool" --dir "$t/nl" --on-calendar $'daily\nExecStart=/bin/sh'
check "... and nothing was written" test ! -e "$t/nl/s61-check-upstream.timer"
: >"$t/file"
check_fails "a --dir that cannot be made is refused" "$tool" --dir "$t/file/sub"
expect "... with the way out" out_has "choose another with --dir"

# systemd-analyze checks the units' syntax (system mode: a user manager is not
# always there); ExecStart must exist for it.
if command -v systemd-analyze >/dev/null 2>&1 && [ -x "$here/tools/s61" ]; then
	check "systemd-analyze verify accepts the units" \
		bash -c "systemd-analyze verify '$svc' '$tim' 2>&1 | grep -v -e 'RuntimeDirectory' -e 'initialize manager' | grep -q . && exit 1 || exit 0"
fi

echo "1..$((pass + fail))"
echo "check-upstream-timer-tests: $pass passed, $fail failed"
[ $fail = 0 ]
