#!/bin/bash
# f2fs: one global f2fs-shrinker over every mounted f2fs (read extent cache,
# clean NAT entries, free nids), plus the mount's sb-f2fs.
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
cov_need mkfs.f2fs f2fs-tools
mnt=/mnt/cov-f2fs
dev=$(cov_loop f2fs 256) || fail "no loop device"
mkfs.f2fs -q -f "$dev" >/dev/null || fail "mkfs.f2fs failed"
mkdir -p $mnt
cov_entry 'f2fs-shrinker'; f2=$COV_DIR
c0=$(cov_total "$f2")
mount -t f2fs "$dev" $mnt || fail "mount f2fs failed"
b=${dev#/dev/}
cov_entry "sb-f2fs:$b"; sb=$COV_DIR
cov_files $mnt/d 1 3000 8192
sync
cat $mnt/d/* >/dev/null
cov_count_min "$sb" 1000 "3000 files"
cov_count_min "$f2" 100 "3000 files"
cov_scan "$f2" must
cov_scan "$sb" must
cov_files $mnt/e 1 2000 8192
sync
cat $mnt/e/* >/dev/null
cov_reclaim "$f2" must
cov_umount_global $mnt "$sb" "$f2" "$c0" "one global shrinker, registered at f2fs init (built in); umount detaches the sb from it"
cov_unloop "$dev"
cov_end
