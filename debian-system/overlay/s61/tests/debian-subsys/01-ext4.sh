#!/bin/bash
# ext4 on a loop device with Debian's mkfs.ext4 (journal, quota feature:
# dquots): mount, the fill in a memcg-limited scope, memory.reclaim of the
# scope, drop_caches, read-back, umount. Shrinkers: sb-ext4, ext4-es,
# jbd2-journal, mbcache, dquota-cache. Without the shrinker debugfs the
# evidence of reclaim is the ext4_inode_cache slab.
#
# The quota feature needs quota_v2 (CONFIG_QFMT_V2): a kernel without it
# cannot mount the file system ("The kernel was not built with CONFIG_QUOTA
# and CONFIG_QFMT_V2"), so the test SKIPs then with "kernel lacks quota_v2:
# <config line>" (seen on the first .deb of make deb, whose reduced config
# had dropped the module; qemu/debian/modules.list keeps it now), and the
# manifest decides. With quota, the dquots of the fill's 8 owners stay in
# use while their inodes are cached: dquota-cache counts only dquots no
# inode holds (the free list), so before the reading after the work
# /s61/dquots.py asks quotactl for 200 user and group ids that own no file
# (each dquot read and let go: on the free list). memory.reclaim of the
# scope does not call dquota-cache (it is not memcg-aware); drop_caches
# must take the count down (freed), also without the shrinker debugfs:
# /proc/sys/fs/quota/free_dquots falls only when the shrinker frees them
# while the file system stays mounted.
# s61.subsys_ext4_quota=0 makes the file system without
# quota (no dquots: dquota-cache is then registered but not driven), to
# see the other ext4 shrinkers on such a kernel.
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module EXT4_FS ext4
quota=$(cmdline_arg s61.subsys_ext4_quota 1)
if [ "$quota" = 0 ]; then
	mkq=()
	echo "s61.subsys_ext4_quota=0: no quota feature, no dquots (dquota-cache not driven)"
else
	sub_module QFMT_V2 quota_v2
	mkq=(-O quota -E quotatype=usrquota:grpquota)
fi
sub_tools mkfs.ext4 losetup systemd-run python3
sub_debugfs
sub_loopfile ext4 128
dev=${LOOP#/dev/}
jbd="jbd2-journal:($(cat "/sys/block/$dev/dev"))"
mkfs.ext4 -q -F -b 4096 "${mkq[@]}" "$LOOP" || fail "mkfs.ext4 on $LOOP failed"
sub_timing mkfs.ext4
SUB_SHRINK=("sb-ext4:$dev" "ext4-es:$dev" "$jbd" "mbcache*" "dquota-cache")
SUB_SLABS=(ext4_inode_cache ext4_extent_status jbd2_journal_head mbcache dquot)
sub_reading before
sub_mount ext4 "$LOOP" /mnt/s61-ext4
dq_free() { cat /proc/sys/fs/quota/free_dquots; }
sub_on_reading() {
	[ "$quota" != 0 ] || return 0
	case $1 in
	work)
		python3 /s61/dquots.py "$LOOP" 20000 200 || fail "quotactl of 200 ids on $LOOP failed"
		DQ_WORK=$(dq_free) ;;
	dropped) DQ_DROPPED=$(dq_free) ;;
	esac
}
sub_cycle ext4 'sub_fill /mnt/s61-ext4'
if [ "$quota" != 0 ]; then
	echo "free dquots (dquota-cache's list): $DQ_WORK after the quotactl calls, $DQ_DROPPED after drop_caches"
	[ "$DQ_WORK" -ge 200 ] || fail "only $DQ_WORK free dquots after the quotactl of 200 user and 200 group ids"
	[ "$DQ_DROPPED" -lt "$DQ_WORK" ] || fail "drop_caches freed no dquot ($DQ_WORK -> $DQ_DROPPED free dquots): dquota-cache not called"
fi
sub_check_fill /mnt/s61-ext4
echo "quota: $(cd /proc/sys/fs/quota && grep -H . allocated_dquots free_dquots lookups | tr '\n' ' ')"
sub_umount /mnt/s61-ext4
sub_reading after
sub_timing "read-back and umount"
sub_need_registered "sb-ext4:$dev" "ext4-es:$dev" "$jbd" "mbcache*" "dquota-cache"
sub_need_gone "sb-ext4:$dev" "ext4-es:$dev" "$jbd"
sub_need_freed s "sb-ext4:$dev"
sub_need_freed c ext4_inode_cache
[ "$quota" = 0 ] || sub_need_freed s dquota-cache
pass
