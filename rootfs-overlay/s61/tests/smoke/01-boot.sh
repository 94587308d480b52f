#!/bin/bash
# The kernel booted and reached the test init with the interfaces the suite needs.
. /s61/lib.sh
uname -a
cpus=$(grep -c ^processor /proc/cpuinfo)
echo "online CPUs: $cpus"
[ "$cpus" -ge 2 ] || fail "only $cpus CPU online: the races and the KUnit expansion case need two (CONFIG_ACPI?)"
[ -d /sys/kernel/debug/shrinker ] || fail "no /sys/kernel/debug/shrinker (CONFIG_SHRINKER_DEBUG?)"
[ -f /sys/fs/cgroup/cgroup.controllers ] || fail "cgroup2 not mounted"
grep -qw memory /sys/fs/cgroup/cgroup.controllers || fail "no memory controller (CONFIG_MEMCG?)"
pass
