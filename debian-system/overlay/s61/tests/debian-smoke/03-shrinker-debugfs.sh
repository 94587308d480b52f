#!/bin/bash
# The shrinkers in /sys/kernel/debug/shrinker (CONFIG_SHRINKER_DEBUG), each
# count readable; SKIP, with the kernel's config line, on a kernel built
# without it (Debian's 6.1 config), FAIL when the config has it and the
# directory is missing.
. /s61/lib.sh
cfg=/boot/config-$(uname -r)
line=$(grep -E '^(CONFIG_SHRINKER_DEBUG=|# CONFIG_SHRINKER_DEBUG is not set)' "$cfg" 2>/dev/null)
echo "config: ${line:-no CONFIG_SHRINKER_DEBUG line in $cfg}"
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
if [ ! -d /sys/kernel/debug/shrinker ]; then
	[ "$line" != CONFIG_SHRINKER_DEBUG=y ] || fail "$cfg has CONFIG_SHRINKER_DEBUG=y, but there is no /sys/kernel/debug/shrinker"
	skip "no /sys/kernel/debug/shrinker: ${line:-no CONFIG_SHRINKER_DEBUG in $cfg}"
fi
names=$(shrinker_names)
[ -n "$names" ] || fail "/sys/kernel/debug/shrinker is empty"
echo "shrinkers ($(wc -l <<<"$names")): $(uniq -c <<<"$names" | awk '{ printf "%s%s ", $2, ($1 > 1 ? "x" $1 : "") }')"
for d in /sys/kernel/debug/shrinker/*/; do
	cat "$d/count" >/dev/null || fail "cannot read $d/count"
done
pass
