#!/usr/bin/env bash
# Install a systemd user timer that asks every day whether Debian has a newer
# linux-source-6.1 upload and whether the stack moves to it.
#
# Usage: tools/lab/check-upstream-timer.sh [--dir DIR] [--on-calendar SPEC] [--print]
#   --dir DIR           where the units go (default ~/.config/systemd/user)
#   --on-calendar SPEC  systemd calendar spec of the timer (default: daily)
#   --print             print the two units on stdout; write nothing
# The service runs 'tools/s61 stack check-upstream' in this clone
# (its path is written into the unit). Its exit status says what happened:
#   0   up to date: the service succeeds and nothing is reported;
#   10  a newer upload, every patch goes on it (dry run clean);
#   11  a newer upload, a patch conflicts there;
#   2   an error (apt, download, no kernel checkout).
# 10, 11 and 2 leave the service failed, so that 'systemctl --user --failed'
# lists it, 'journalctl --user -u s61-check-upstream' shows the dry run's
# lines (which patch conflicts, at which upload), and an OnFailure= drop-in
# the maintainer adds (mail, chat) is triggered. The clone needs its kernel
# checkout ('make stack') and, to run while nobody is logged in,
# 'loginctl enable-linger'. After installing:
#   systemctl --user daemon-reload
#   systemctl --user enable --now s61-check-upstream.timer
# Exit: 0 done, 2 bad arguments or an unwritable DIR.
set -uo pipefail

prog=tools/lab/check-upstream-timer.sh
root=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
dir=${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user
cal=daily
print=0
die() {
	printf '%s: error: %s\n' "$prog" "$*" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help)
		awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
		exit 0
		;;
	--dir) dir=${2:?--dir needs a directory}; shift ;;
	--dir=*) dir=${1#*=} ;;
	--on-calendar) cal=${2:?--on-calendar needs a calendar spec, e.g. daily}; shift ;;
	--on-calendar=*) cal=${1#*=} ;;
	--print) print=1 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
case $cal in
'' | *[$'\n'\"\\]*) die "--on-calendar: '$cal' is not a calendar spec (e.g. daily, 'Mon *-*-* 06:00')" ;;
esac
case $root in
*[[:space:]\"\\%]*) die "the clone's path '$root' has a blank, quote, backslash or %, which a unit's ExecStart cannot carry as is: clone to a plain path" ;;
esac

service() {
	cat <<-EOF
	[Unit]
	Description=Does the lockless-shrink 6.1 stack move to a newer Debian upload?
	Documentation=file://$root/docs/debian-versions.md

	[Service]
	Type=oneshot
	WorkingDirectory=$root
	ExecStart=$root/tools/s61 stack check-upstream
	EOF
}
timer() {
	cat <<-EOF
	[Unit]
	Description=Ask Debian for a newer linux-source-6.1 upload ($cal)

	[Timer]
	OnCalendar=$cal
	Persistent=true
	RandomizedDelaySec=1h

	[Install]
	WantedBy=timers.target
	EOF
}

if [ "$print" = 1 ]; then
	printf '# s61-check-upstream.service\n'
	service
	printf '\n# s61-check-upstream.timer\n'
	timer
	exit 0
fi
mkdir -p "$dir" 2>/dev/null || die "cannot make $dir (choose another with --dir)"
tmp=$(mktemp "$dir/.s61-units.XXXXXX") || die "cannot write in $dir (choose another with --dir)"
trap 'rm -f "$tmp"' EXIT
{ service >"$tmp" && mv "$tmp" "$dir/s61-check-upstream.service"; } || die "cannot write $dir/s61-check-upstream.service"
tmp=$(mktemp "$dir/.s61-units.XXXXXX") || die "cannot write in $dir"
{ timer >"$tmp" && mv "$tmp" "$dir/s61-check-upstream.timer"; } || die "cannot write $dir/s61-check-upstream.timer"
echo "$prog: wrote $dir/s61-check-upstream.service and .timer ($cal)"
echo "$prog: now: systemctl --user daemon-reload && systemctl --user enable --now s61-check-upstream.timer"
