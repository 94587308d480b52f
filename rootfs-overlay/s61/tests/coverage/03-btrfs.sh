#!/bin/bash
# btrfs: its super block shrinker is registered as sb-btrfs and renamed to
# sb-btrfs:<device> by btrfs_mount_root() (shrinker_debugfs_rename()).
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
cov_need mkfs.btrfs btrfs-progs
mnt=/mnt/cov-btrfs
dev=$(cov_loop btrfs 256) || fail "no loop device"
mkfs.btrfs -q -f "$dev" >/dev/null || fail "mkfs.btrfs failed"
mkdir -p $mnt
mount -t btrfs "$dev" $mnt || fail "mount btrfs failed"
b=${dev#/dev/}
cov_entry "sb-btrfs:$b"; sb=$COV_DIR
[ -z "$(cov_dirs 'sb-btrfs')" ] || cov_bad "an entry is still called plain sb-btrfs: the rename did not happen"
cov_files $mnt/d 1 3000 100
sync
cov_count_min "$sb" 1000 "3000 files"
cov_scan "$sb" must
cat $mnt/d/* >/dev/null
make_negative_dentries $mnt/d 2000
cov_reclaim "$sb" must
umount $mnt || cov_bad "umount failed"
cov_gone "$sb"
cov_unloop "$dev"
cov_end
