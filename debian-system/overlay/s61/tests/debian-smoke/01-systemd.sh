#!/bin/bash
# systemd is PID 1, the boot reached multi-user.target, and no unit failed
# ('systemctl is-system-running' says running, 'systemctl --failed' is
# empty). Prints systemd's boot times.
. /s61/lib.sh
comm=$(cat /proc/1/comm)
[ "$comm" = systemd ] || fail "PID 1 is '$comm', not systemd"
state=$(timeout 300 systemctl is-system-running --wait)
echo "systemctl is-system-running: $state"
systemd-analyze time | sed 's/^/boot: /'
mu=$(systemctl show -P ActiveEnterTimestampMonotonic multi-user.target)
[ "${mu:-0}" -gt 0 ] || fail "multi-user.target was never reached"
echo "timing: multi-user.target reached $((mu / 1000)) ms after the kernel started"
bad=$(systemctl --failed --no-legend --plain | awk '{ print $1 }')
for u in $bad; do
	systemctl status --no-pager --lines 8 "$u"
done
[ -z "$bad" ] || fail "failed units: ${bad//$'\n'/ }"
[ "$state" = running ] || fail "the system is '$state', not running"
pass
