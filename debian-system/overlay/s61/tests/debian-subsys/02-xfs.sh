#!/bin/bash
# XFS on a loop device with Debian's mkfs.xfs (xfsprogs refuses below
# 300 MB: a sparse file of 320 MB), mounted with user and group quota: the
# fill in a memcg-limited scope, memory.reclaim of the scope, drop_caches,
# read-back, umount. Shrinkers: sb-xfs, xfs-buf, xfs-inodegc, xfs-qm.
# Without the shrinker debugfs the evidence is the xfs_inode slab.
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module XFS_FS xfs
sub_tools mkfs.xfs losetup systemd-run python3
sub_debugfs
sub_loopfile xfs 320
dev=${LOOP#/dev/}
mkfs.xfs -q -f "$LOOP" || fail "mkfs.xfs on $LOOP failed"
sub_timing mkfs.xfs
SUB_SHRINK=("sb-xfs:$dev" "xfs-buf:$dev" "xfs-inodegc:$dev" "xfs-qm:$dev")
SUB_SLABS=(xfs_inode xfs_buf xfs_ili xfs_dquot)
sub_mount xfs "$LOOP" /mnt/s61-xfs uquota,gquota
sub_cycle xfs 'sub_fill /mnt/s61-xfs'
sub_check_fill /mnt/s61-xfs
sub_umount /mnt/s61-xfs
sub_reading after
sub_timing "read-back and umount"
sub_need_registered "${SUB_SHRINK[@]}"
sub_need_gone "${SUB_SHRINK[@]}"
sub_need_freed s "sb-xfs:$dev"
sub_need_freed c xfs_inode
pass
