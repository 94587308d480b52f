#!/bin/bash
# mm-shadow (workingset): xarray nodes that hold only shadow entries of
# evicted page cache, per memcg. A memcg reads a 48 MB file, then
# memory.reclaim evicts it, leaving shadow entries.
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
mnt=/mnt/cov-ws
dev=$(cov_loop ws 96) || fail "no loop device"
mkfs.ext4 -q -F "$dev" || fail "mkfs.ext4 failed"
mkdir -p $mnt
mount -t ext4 "$dev" $mnt || fail "mount failed"
dd if=/dev/zero of=$mnt/big bs=1M count=48 status=none
sync
echo 3 >/proc/sys/vm/drop_caches
cov_entry 'mm-shadow'; sh=$COV_DIR
cg=$(memcg_create cov-ws) || fail "cannot create a memcg"
evict() {
	(cov_exec_in "$cg" cat $mnt/big >/dev/null)
	cov_msg "memcg file pages after reading: $(memcg_stat "$cg" file)"
	echo 48M >"$cg/memory.reclaim" 2>/dev/null
	cov_msg "memcg file pages after memory.reclaim: $(memcg_stat "$cg" file); workingset nodes: $(memcg_stat "$cg" workingset_nodes)"
}
evict
cov_msg "count: $(tr '\n' ';' <"$sh/count") (memcg ino $(stat -c %i "$cg"))"
cov_count_min "$sh" 10 "evicting 48 MB of page cache read by memcg cov-ws"
cov_scan "$sh" must
evict
cov_reclaim "$sh" must "$cg"
rmdir "$cg" 2>/dev/null
umount $mnt
cov_unloop "$dev"
cov_permanent "$sh" "global (per-memcg list_lru), registered at workingset init"
cov_end
