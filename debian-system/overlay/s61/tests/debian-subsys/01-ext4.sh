#!/bin/bash
# ext4 on a loop device with Debian's mkfs.ext4 (journal, quota feature:
# dquots): mount, the fill in a memcg-limited scope, memory.reclaim of the
# scope, drop_caches, read-back, umount. Shrinkers: sb-ext4, ext4-es,
# jbd2-journal, mbcache, dquota-cache. Without the shrinker debugfs the
# evidence of reclaim is the ext4_inode_cache slab.
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module EXT4_FS ext4
sub_tools mkfs.ext4 losetup systemd-run python3
sub_debugfs
sub_loopfile ext4 128
dev=${LOOP#/dev/}
jbd="jbd2-journal:($(cat "/sys/block/$dev/dev"))"
mkfs.ext4 -q -F -b 4096 -O quota -E quotatype=usrquota:grpquota "$LOOP" || fail "mkfs.ext4 on $LOOP failed"
sub_timing mkfs.ext4
SUB_SHRINK=("sb-ext4:$dev" "ext4-es:$dev" "$jbd" "mbcache*" "dquota-cache")
SUB_SLABS=(ext4_inode_cache ext4_extent_status jbd2_journal_head mbcache dquot)
sub_reading before
sub_mount ext4 "$LOOP" /mnt/s61-ext4
sub_cycle ext4 'sub_fill /mnt/s61-ext4'
sub_check_fill /mnt/s61-ext4
echo "quota: $(cd /proc/sys/fs/quota && grep -H . allocated_dquots free_dquots lookups | tr '\n' ' ')"
sub_umount /mnt/s61-ext4
sub_reading after
sub_timing "read-back and umount"
sub_need_registered "sb-ext4:$dev" "ext4-es:$dev" "$jbd" "mbcache*" "dquota-cache"
sub_need_gone "sb-ext4:$dev" "ext4-es:$dev" "$jbd"
sub_need_freed s "sb-ext4:$dev"
sub_need_freed c ext4_inode_cache
pass
