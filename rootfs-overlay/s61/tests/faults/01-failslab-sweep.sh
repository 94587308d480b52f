#!/bin/bash
# Fault injection on the allocation paths the series added: fail the N-th
# slab allocation (failslab + /proc/thread-self/fail-nth, this task only) of
#  - a tmpfs mount (alloc_super() -> shrinker_alloc(): shrinker, name, memcg
#    id, shrinker_info expansion for every memcg), with memcgs present;
#  - a memcg mkdir (alloc_shrinker_info() and its units),
# for every N until the operation succeeds without a failure. Each failed
# operation must fail cleanly: no sb-tmpfs shrinker left behind, no memcg
# left behind, no leak (kmemleak scan by the init, judged by the host), and
# reclaim keeps working afterwards.
. /s61/lib.sh
fs=/sys/kernel/debug/failslab
[ -d "$fs" ] || skip "kernel without CONFIG_FAILSLAB/FAULT_INJECTION_DEBUG_FS (debug config)"
[ -e /proc/thread-self/fail-nth ] || skip "no /proc/thread-self/fail-nth"
echo N >"$fs/ignore-gfp-wait"
echo 0 >"$fs/verbose"
echo -1 >"$fs/times"
echo 0 >"$fs/probability"
echo N >"$fs/task-filter" 2>/dev/null

grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
for i in $(seq 1 8); do mkdir -p /sys/fs/cgroup/fault"$i"; done
mkdir -p /mnt/fault

# Run "$@" in a child whose N-th slab allocation fails; exit status of "$@".
with_nth() {
	local n=$1
	shift
	bash -c 'echo '"$n"' >/proc/thread-self/fail-nth && exec "$@"' _ "$@" 2>/dev/null
}

sb0=$(shrinker_count sb-tmpfs)
failed=0 n=0
for n in $(seq 1 400); do
	if with_nth "$n" mount -t tmpfs fault /mnt/fault; then
		umount /mnt/fault || fail "umount after mount at nth=$n failed"
		break
	fi
	failed=$((failed + 1))
	[ "$(shrinker_count sb-tmpfs)" = "$sb0" ] || fail "failed mount (nth=$n) left an sb-tmpfs shrinker behind"
done
echo "mount: $failed injected failures before success at nth=$n"
[ "$failed" -gt 0 ] || fail "fault injection never made a mount fail"
[ "$(shrinker_count sb-tmpfs)" = "$sb0" ] || fail "sb-tmpfs shrinkers leaked"

cgs0=$(find /sys/fs/cgroup -maxdepth 1 -type d | wc -l)
failed=0
for n in $(seq 1 400); do
	if with_nth "$n" mkdir /sys/fs/cgroup/faulty; then
		rmdir /sys/fs/cgroup/faulty || fail "rmdir after mkdir at nth=$n failed"
		break
	fi
	failed=$((failed + 1))
	[ ! -d /sys/fs/cgroup/faulty ] || fail "failed mkdir (nth=$n) left the memcg behind"
done
echo "memcg mkdir: $failed injected failures before success at nth=$n"
[ "$failed" -gt 0 ] || fail "fault injection never made a memcg mkdir fail"
[ "$(find /sys/fs/cgroup -maxdepth 1 -type d | wc -l)" = "$cgs0" ] || fail "memcgs leaked"

# Still reclaiming: dentries in a memcg are freed by memory.reclaim.
mount_ext4 /mnt/faultx || fail "cannot make an ext4 file system"
mkdir /mnt/faultx/d
echo 2 >/proc/sys/vm/drop_caches
before=$(nr_negative)
bash -c "echo \$\$ >/sys/fs/cgroup/fault1/cgroup.procs && . /s61/lib.sh && make_negative_dentries /mnt/faultx/d 10000"
echo 64M >/sys/fs/cgroup/fault1/memory.reclaim 2>/dev/null
after=$(nr_negative)
echo "reclaim after the faults: $before -> +10000 -> $after"
umount /mnt/faultx
for i in $(seq 1 8); do rmdir /sys/fs/cgroup/fault"$i"; done
[ $((before + 10000 - after)) -ge 8000 ] || fail "memory.reclaim no longer frees dentries"
pass
