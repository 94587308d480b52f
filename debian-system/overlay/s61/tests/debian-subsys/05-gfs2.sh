#!/bin/bash
# GFS2 with the lock_nolock protocol (no cluster) on a loop device, Debian's
# mkfs.gfs2 (gfs2-utils), mounted with quota=on (quota data: gfs2-qd): the
# fill in a memcg-limited scope, memory.reclaim of the scope, drop_caches,
# read-back, umount. Shrinkers: sb-gfs2, gfs2-glock, gfs2-qd (both global,
# registered when the module loads). Without the shrinker debugfs the
# evidence is the gfs2_inode slab.
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module GFS2_FS gfs2
sub_tools mkfs.gfs2 losetup systemd-run python3
sub_debugfs
sub_loopfile gfs2 256
mkfs.gfs2 -O -q -p lock_nolock -j 1 -J 8 "$LOOP" || fail "mkfs.gfs2 -p lock_nolock on $LOOP failed"
sub_timing mkfs.gfs2
SUB_SHRINK=("sb-gfs2*" "gfs2-glock" "gfs2-qd")
SUB_SLABS=(gfs2_inode gfs2_glock gfs2_glock\(aspace\) gfs2_quotad gfs2_bufdata)
sub_mount gfs2 "$LOOP" /mnt/s61-gfs2 quota=on
sub_cycle gfs2 'sub_fill /mnt/s61-gfs2'
sub_check_fill /mnt/s61-gfs2
sub_umount /mnt/s61-gfs2
sub_reading after
sub_timing "read-back and umount"
sub_need_registered "${SUB_SHRINK[@]}"
sub_need_gone "sb-gfs2*"
sub_need_freed s "sb-gfs2*"
sub_need_freed c gfs2_inode
pass
