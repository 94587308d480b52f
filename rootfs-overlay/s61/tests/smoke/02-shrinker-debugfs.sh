#!/bin/bash
# /sys/kernel/debug/shrinker lists the built-in shrinkers by name, and each
# entry's count file can be read.
. /s61/lib.sh
names=$(shrinker_names)
echo "shrinkers: $(echo "$names" | uniq -c | awk '{ printf "%s%s ", $2, ($1 > 1 ? "x" $1 : "") }')"
for want in thp-zero thp-deferred_split mm-shadow rcu-kfree sb-proc sb-sysfs sb-tmpfs sb-debugfs sb-cgroup2; do
	echo "$names" | grep -qx -- "$want" || fail "no shrinker named $want"
done
for d in /sys/kernel/debug/shrinker/*/; do
	cat "$d/count" >/dev/null || fail "cannot read $d/count"
done
pass
