#!/bin/bash
# dquota-cache: the VFS quota layer's global cache of unused dquots, filled
# by ext4 with the quota feature (journalled hidden quota files).
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
mnt=/mnt/cov-quota
dev=$(cov_loop quota 64) || fail "no loop device"
mkfs.ext4 -q -F -O quota -E quotatype=usrquota:grpquota "$dev" || fail "mkfs.ext4 -O quota failed"
mkdir -p $mnt
cov_entry 'dquota-cache'; dq=$COV_DIR
mount -t ext4 "$dev" $mnt || fail "mount failed"
b=${dev#/dev/}
cov_entry "sb-ext4:$b"; sb=$COV_DIR
grep -q "usrquota\|quota" /proc/mounts || cov_msg "(quota options not shown in /proc/mounts; the quota feature enables them)"
cov_files $mnt/d 1 150 10
for i in $(seq 1 150); do chown "$((2000 + i)):$((2000 + i))" "$mnt/d/f$i"; done
sync
# The dquots of those 300 ids become unused when the inodes that hold them
# are evicted: drop_caches=3 evicts them (with their page cache: an inode
# that still has pages is only rotated on the LRU); dqput() hands the dquots to a work
# item, which puts them on the free list after that pass (the pass ran the
# dquot cache shrinker before they arrived).
qstat() { for f in allocated_dquots free_dquots drops; do printf '%s=%s ' $f "$(cat /proc/sys/fs/quota/$f 2>/dev/null)"; done; }
cov_msg "quota stats before eviction: $(qstat)"
echo 3 >/proc/sys/vm/drop_caches
cov_count_wait "$dq" 100 10 "evicting the inodes of 150 users' and groups' files"
cov_msg "quota stats after eviction: $(qstat)"
cov_scan "$dq" must
for i in $(seq 1 150); do touch "$mnt/d/f$i"; done
sync
echo 3 >/proc/sys/vm/drop_caches
cov_count_wait "$dq" 100 10 "evicting them again"
cov_reclaim "$dq" must
umount $mnt || cov_bad "umount failed"
cov_gone "$sb"
cov_permanent "$dq" "global, registered at dquot_init (built in)"
cov_unloop "$dev"
cov_end
