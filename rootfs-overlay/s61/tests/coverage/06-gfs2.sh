#!/bin/bash
# gfs2 with lock_nolock and quota=on: the global gfs2-glock (glocks on the
# LRU) and gfs2-qd (unused quota data) shrinkers, plus the mount's sb-gfs2.
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
cov_need mkfs.gfs2 gfs2-utils
mnt=/mnt/cov-gfs2
dev=$(cov_loop gfs2 256) || fail "no loop device"
mkfs.gfs2 -O -q -p lock_nolock -j 1 -J 16 "$dev" >/dev/null 2>&1 || fail "mkfs.gfs2 failed"
mkdir -p $mnt
cov_entry 'gfs2-glock'; gl=$COV_DIR
cov_entry 'gfs2-qd'; qd=$COV_DIR
mount -t gfs2 -o quota=on "$dev" $mnt || fail "mount gfs2 -o quota=on failed"
b=${dev#/dev/}
cov_entry "sb-gfs2:$b"; sb=$COV_DIR
cov_files $mnt/d 1 2000 100
for i in $(seq 1 100); do chown "$((1000 + i))" "$mnt/d/f$i"; done
sync
cov_count_min "$sb" 500 "2000 files"
# Evicting the inodes puts their glocks (and the users' quota data) on the LRUs.
cov_scan "$sb" must
sync
cov_count_min "$gl" 1 "evicting 2000 inodes"
cov_count_min "$qd" 1 "evicting the inodes of 100 users' files"
cov_scan "$gl" must 3 10
cov_scan "$qd" must
cat $mnt/d/* >/dev/null
make_negative_dentries $mnt/d 1000
cov_reclaim "$sb" must
# Refill the glock and quota data LRUs without drop_caches (which would
# empty them as well): reload the inodes, then evict them with a scan.
cat $mnt/d/* >/dev/null
for i in $(seq 1 100); do chown "$((3000 + i))" "$mnt/d/f$i"; done
sync
cov_scan "$sb" must
sync
cov_count_wait "$gl" 1 5 "evicting the inodes again"
cov_count_min "$qd" 1 "evicting the inodes of 100 other users' files"
cov_reclaim_all must "$gl" "$qd"
umount $mnt || cov_bad "umount failed"
cov_gone "$sb"
cov_permanent "$gl" "global, registered at gfs2 init (built in)"
cov_permanent "$qd" "global, registered at gfs2 init (built in)"
cov_unloop "$dev"
cov_end
