#!/bin/bash
# F2FS on a loop device with Debian's mkfs.f2fs: mount, the fill in a
# memcg-limited scope, memory.reclaim of the scope, drop_caches, read-back,
# umount. Shrinkers: sb-f2fs, f2fs-shrinker (one for all f2fs mounts: extent
# nodes, NAT entries, free nids). Without the shrinker debugfs the evidence
# is the f2fs_inode_cache slab.
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module F2FS_FS f2fs
sub_tools mkfs.f2fs losetup systemd-run python3
sub_debugfs
sub_loopfile f2fs 256
dev=${LOOP#/dev/}
mkfs.f2fs -q -f "$LOOP" || fail "mkfs.f2fs on $LOOP failed"
sub_timing mkfs.f2fs
SUB_SHRINK=("sb-f2fs:$dev" "f2fs-shrinker")
SUB_SLABS=(f2fs_inode_cache f2fs_extent_node f2fs_nat_entry f2fs_free_nid)
sub_mount f2fs "$LOOP" /mnt/s61-f2fs
# The scope's limit: 64M (s61.subsys_f2fs_memmax=). At the 32M of the other
# file systems, Debian's 6.1.192 took 58 s to write the 24 MiB of data
# (ext4 2.7 s, gfs2 2.5 s, both at their limit too; 97 memory.max events).
SUB_MEMMAX=$(cmdline_arg s61.subsys_f2fs_memmax 64M)
sub_cycle f2fs 'sub_fill /mnt/s61-f2fs'
sub_check_fill /mnt/s61-f2fs
sub_umount /mnt/s61-f2fs
sub_reading after
sub_timing "read-back and umount"
sub_need_registered "${SUB_SHRINK[@]}"
sub_need_gone "sb-f2fs:$dev"
sub_need_freed s "sb-f2fs:$dev"
sub_need_freed c f2fs_inode_cache
pass
