#!/bin/bash
# XFS with user quota on a loop device: sb-xfs, xfs-buf (buffer LRU),
# xfs-qm (unused dquots) and xfs-inodegc (inodes queued for inactivation).
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
cov_need mkfs.xfs xfsprogs
mnt=/mnt/cov-xfs
dev=$(cov_loop xfs 320) || fail "no loop device"
mkfs.xfs -q -f "$dev" || fail "mkfs.xfs failed"
mkdir -p $mnt
mount -t xfs -o uquota "$dev" $mnt || fail "mount xfs -o uquota failed"
b=${dev#/dev/}

cov_entry "sb-xfs:$b"; sb=$COV_DIR
cov_entry "xfs-buf:$b"; buf=$COV_DIR
cov_entry "xfs-qm:$b"; qm=$COV_DIR
cov_entry "xfs-inodegc:$b"; gc=$COV_DIR

# Files owned by 200 users: inodes, dentries, buffers, 200 dquots.
cov_files $mnt/d 1 3000 2000
for i in $(seq 1 200); do echo "$((1000 + i))"; done | while read -r u; do
	chown "$u" "$mnt/d/f$((u - 1000))"
done
sync
cov_count_min "$sb" 1000 "3000 files"
cov_count_min "$buf" 10 "3000 files"
# The dquots become unused (LRU) when the inodes that hold them are evicted.
cov_scan "$sb" must
sync
# XFS keeps the dquots attached to evicted inodes until it reclaims them
# (its background reclaim worker, every ~5 s): wait for that.
wait_until 20 test "$(cov_total "$qm")" -ge 50
cov_count_min "$qm" 1 "evicting the inodes of 200 users' files"
cov_msg "xqm (max incore ratio freelist): $(cat /proc/fs/xfs/xqm 2>/dev/null)"
cov_scan "$qm" must
cov_scan "$buf" must 5

# Reclaim: fill again.
cat $mnt/d/* >/dev/null
for i in $(seq 1 200); do touch "$mnt/d/f$i"; done
sync
cov_reclaim "$sb" must
sync
cov_reclaim "$qm" try
cov_files $mnt/e 1 2000 2000
sync
cov_reclaim "$buf" must
# inodegc: unlinked inodes are queued for a worker for a jiffy or so.
cov_count_min "$gc" 0
cov_busy "$gc" "rm of 5000 files" rm -rf $mnt/d $mnt/e || cov_msg "xfs-inodegc: its queue was never caught non-empty (the worker runs within a jiffy)"

umount $mnt || cov_bad "umount failed"
cov_gone "$buf"
cov_gone "$qm"
cov_gone "$gc"
cov_gone "$sb"
cov_unloop "$dev"
cov_end
