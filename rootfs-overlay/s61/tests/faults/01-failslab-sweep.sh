#!/bin/bash
# Fault injection on the allocation paths the series added: fail the N-th
# slab allocation (failslab; /proc/thread-self/fail-nth, this task only, set
# by s61-failnth right before the one system call) of
#  - a tmpfs mount (alloc_super() -> shrinker_alloc(): shrinker, name, memcg
#    id, shrinker_info expansion for every memcg), with memcgs present;
#  - a memcg mkdir (alloc_shrinker_info() and its units),
# for every N until the operation succeeds without a failure. Each failed
# operation must fail cleanly: no sb-tmpfs shrinker left behind, no memcg
# left behind, no leak (kmemleak scan by the init, judged by the host), and
# reclaim keeps working afterwards. Broken variant:
# tests/broken/broken-info-leak.diff (a failed memcg mkdir leaks its
# shrinker_info): the splat scan catches it by kmemleak's report, not this
# test, which must still pass on it (its "# passes:" line); its runs:
# docs/broken-variants.tsv.
. /s61/lib.sh
fs=/sys/kernel/debug/failslab
[ -d "$fs" ] || skip "kernel without CONFIG_FAILSLAB/FAULT_INJECTION_DEBUG_FS (debug config)"
[ -e /proc/thread-self/fail-nth ] || skip "no /proc/thread-self/fail-nth"
command -v s61-failnth >/dev/null || skip "no s61-failnth helper in the initramfs"
# fail-nth counts the allocations that reach an injection point: let every
# GFP_KERNEL slab allocation reach failslab, quietly. Page allocations keep
# fail_page_alloc's default (sleeping ones are not injected): a failed page
# allocation prints a warning with a stack trace by design, which the host
# would rightly count as a splat.
echo N >"$fs/ignore-gfp-wait"
echo 0 >"$fs/verbose"

grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
for i in $(seq 1 8); do mkdir -p /sys/fs/cgroup/fault"$i"; done
mkdir -p /mnt/fault

# s61-failnth N OP...: the N-th fault-injection point of OP fails. Sweep N
# until OP completes without reaching the N-th point (exit 3).
sweep() {
	local what=$1 undo=$2 check=$3 n out rc failed=0 tolerated=0
	shift 3
	for ((n = 1; n <= 2000; n++)); do
		out=$(s61-failnth "$n" "$@")
		rc=$?
		case $rc in
		3) $undo || fail "$what: undo after a clean run failed"; break ;;
		0) tolerated=$((tolerated + 1)); $undo || fail "$what: undo after nth=$n failed" ;;
		1) failed=$((failed + 1)) ;;
		*) fail "$what: s61-failnth $n failed to run ($out)" ;;
		esac
		$check || fail "$what: after nth=$n ($out): $CHECK_MSG"
	done
	[ "$rc" = 3 ] || fail "$what: still reaching injection points after $n"
	echo "$what: $((n - 1)) injection points, $failed made it fail cleanly, $tolerated were absorbed"
	[ "$failed" -gt 0 ] || fail "$what: no injected failure made it fail"
}

sb0=$(shrinker_count sb-tmpfs)
undo_mount() { umount /mnt/fault; }
check_mount() {
	CHECK_MSG="sb-tmpfs shrinkers $(shrinker_count sb-tmpfs), expected $sb0"
	! grep -q ' /mnt/fault ' /proc/mounts && [ "$(shrinker_count sb-tmpfs)" = "$sb0" ]
}
sweep "tmpfs mount" undo_mount check_mount mount fault /mnt/fault tmpfs

cgs0=$(find /sys/fs/cgroup -maxdepth 1 -type d | wc -l)
undo_mkdir() { rmdir /sys/fs/cgroup/faulty; }
check_mkdir() {
	CHECK_MSG="memcg directories: $(find /sys/fs/cgroup -maxdepth 1 -type d | wc -l), expected $cgs0"
	[ ! -d /sys/fs/cgroup/faulty ] && [ "$(find /sys/fs/cgroup -maxdepth 1 -type d | wc -l)" = "$cgs0" ]
}
sweep "memcg mkdir" undo_mkdir check_mkdir mkdir /sys/fs/cgroup/faulty

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
