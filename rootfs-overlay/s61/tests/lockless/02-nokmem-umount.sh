#!/bin/bash
# With kmem accounting off (cgroup.memory=nokmem), shrink_slab_memcg() skips
# the memcg-aware shrinkers that are not SHRINKER_NONSLAB. With the lockless
# shrink, reclaim pins a shrinker before it looks at it, so a skipped
# shrinker must be unpinned too: a leaked pin makes shrinker_free() wait
# forever, and umount (or rmmod) hangs.
#
# Two parts:
#  - file systems: a tmpfs and an ext4 populated from inside a memcg,
#    memory.reclaim there, then both must unmount;
#  - the test module (memcg_aware=1): with nokmem no slab object belongs to
#    a memcg, so superblock shrinkers never get a bit in a memcg's shrinker
#    map and the skip branch is not reached through them. The module puts an
#    item charged to the memcg on its list_lru (debugfs memcg_item), which
#    sets its bit; memory.reclaim in the memcg then reaches the skip branch
#    for it, and rmmod (shrinker_free()) must finish. A first round with
#    nonslab=1 checks that memory.reclaim does reach the module this way.
#    These rounds are what caught broken-nokmem-put: the test module is
#    required (its .ko missing fails the test), except on a kernel without
#    module support, where the file-system part runs and the test SKIPs
#    ($S61_NOMOD).
. /s61/lib.sh

nokmem=0
read -ra words </proc/cmdline
for w in "${words[@]}"; do
	case $w in cgroup.memory=*nokmem*) nokmem=1 ;; esac
done
[ $nokmem = 1 ] || skip "needs cgroup.memory=nokmem on the kernel command line"
modules=1
testmod_ready || modules=0

dbg=/sys/kernel/debug/s61_shrinker_test
tmp=/mnt/nk-tmpfs
ext=/mnt/nk-ext4

# On any exit: what is still mounted or loaded goes, with bounded waits.
cleanup() {
	local m
	for m in "$tmp" "$ext"; do
		! grep -q " $m " /proc/mounts || bounded 10 umount "$m" || echo "cleanup: umount $m failed or hung"
	done
	[ ! -d /sys/module/s61_shrinker_test ] || bounded 10 rmmod s61_shrinker_test ||
		echo "cleanup: rmmod failed or hung"
	rm -f "/tmp/ext4-$$.img"	# mount_ext4's image
	[ -z "${cg:-}" ] || rmdir "$cg" 2>/dev/null || echo "cleanup: rmdir $cg failed"
}
trap cleanup EXIT

cg=$(memcg_create lockless-nokmem) || fail "cannot create a memcg"
mkdir -p "$tmp"
mount -t tmpfs s61-nk "$tmp" || fail "mount tmpfs failed"
mount_ext4 "$ext" || fail "cannot make an ext4 file system"

populate() {
	local i
	mkdir -p "$tmp/d" "$ext/d" || return 1
	for ((i = 0; i < 200; i++)); do
		echo "file $i" >"$tmp/f$i" && echo "file $i" >"$ext/f$i" || return 1
	done
	make_negative_dentries "$tmp/d" 1000
	make_negative_dentries "$ext/d" 5000
}
export -f populate
export tmp ext
in_memcg "$cg" populate || fail "cannot populate the file systems from the memcg"
echo "memcg $cg: memory.current $(cat "$cg/memory.current"), slab $(memcg_stat "$cg" slab)"

bounded 20 memcg_try_reclaim "$cg" || fail "memory.reclaim did not finish in 20 s"
echo "memory.reclaim: ${BG_MS} ms; memory.current now $(cat "$cg/memory.current")"

problems=()
for m in "$tmp" "$ext"; do
	if bounded 20 umount "$m"; then
		echo "umount $m: ${BG_MS} ms"
	else
		problems+=("umount $m did not finish in 20 s (rc $?): a leaked shrinker pin?")
	fi
done

# The module round: $1 = nonslab (0/1). Prints "counts before/after
# memory.reclaim"; fails if rmmod does not finish.
module_round() {
	local nonslab=$1 c0 c1 items
	insmod "$S61_KO" memcg_aware=1 nonslab="$nonslab" nr_objects=1000 ||
		{ problems+=("insmod nonslab=$nonslab failed"); return 1; }
	# dd's buffer is a page it faults in after joining the memcg.
	in_memcg "$cg" dd if=/dev/zero of="$dbg/memcg_item" bs=4096 count=1 status=none ||
		problems+=("nonslab=$nonslab: writing memcg_item failed")
	items=$(cat "$dbg/memcg_items")
	c0=$(cat "$dbg/counts")
	bounded 20 memcg_try_reclaim "$cg" 1 || problems+=("nonslab=$nonslab: memory.reclaim hung")
	c1=$(cat "$dbg/counts")
	ROUND_CALLS=$((c1 - c0))
	if bounded 20 rmmod s61_shrinker_test; then
		echo "module nonslab=$nonslab: items $items, count calls during memory.reclaim $ROUND_CALLS, rmmod ${BG_MS} ms"
	else
		problems+=("module nonslab=$nonslab: rmmod did not finish in 20 s: a leaked shrinker pin")
		return 1
	fi
}

if [ $modules = 1 ]; then
	if module_round 1 && [ "$ROUND_CALLS" -eq 0 ]; then
		problems+=("memory.reclaim never called the NONSLAB module shrinker: memcg_item did not set its bit (test broken)")
	fi
	[ ${#problems[@]} -gt 0 ] || module_round 0
fi

[ ${#problems[@]} = 0 ] || fail "${problems[*]}"
[ $modules = 1 ] || skip "$S61_NOMOD; the file-system part passed, the module rounds did not run"
pass
