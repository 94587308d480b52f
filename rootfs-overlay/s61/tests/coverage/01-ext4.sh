#!/bin/bash
# ext4 on a loop device: sb-ext4 (the generic super block shrinker), ext4-es
# (extent status cache), jbd2-journal (checkpointed buffers) and
# mbcache-shrinker (xattr blocks: 1 kB user xattrs do not fit in the inode).
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
cov_need setfattr attr
mnt=/mnt/cov-ext4
dev=$(cov_loop ext4 128) || fail "no loop device"
mkfs.ext4 -q -F -b 4096 -I 256 "$dev" || fail "mkfs.ext4 failed"
mkdir -p $mnt
mount -t ext4 "$dev" $mnt || fail "mount ext4 failed"
b=${dev#/dev/}
maj=$(stat -c '%t' "$dev") min=$(stat -c '%T' "$dev")
maj=$((16#$maj)) min=$((16#$min))

cov_entry "sb-ext4:$b"; sb=$COV_DIR
cov_entry "ext4-es:$b"; es=$COV_DIR
cov_entry "jbd2-journal:($maj:$min)"; jbd=$COV_DIR
cov_entry 'mbcache-shrinker'; mb=$COV_DIR

# Fill: 3000 files (dentries, inodes, one extent each), 300 xattr blocks.
cov_files $mnt/d 1 3000 3000
v=$(printf 'v%.0s' $(seq 1000))
for i in $(seq 1 300); do
	setfattr -n user.cov -v "$v$i" "$mnt/d/f$i" || { cov_bad "setfattr failed"; break; }
done
sync
cat $mnt/d/* >/dev/null

cov_count_min "$sb" 1000 "3000 files"
cov_count_min "$es" 100 "3000 files"
cov_count_min "$jbd" 1 "sync"
cov_count_min "$mb" 100 "300 xattr blocks"
cov_scan "$es" must
cov_scan "$jbd" must
cov_scan "$mb" must
cov_scan "$sb" must
# Again, for reclaim.
cat $mnt/d/* >/dev/null
getfattr -d $mnt/d/f1* >/dev/null 2>&1
cov_files $mnt/e 1 1000 3000
sync
cov_reclaim "$sb" must
echo 3 >/proc/sys/vm/drop_caches
cat $mnt/d/* $mnt/e/* >/dev/null
cov_count_min "$es" 100 "reading 4000 files"
cov_reclaim "$es" must
cov_files $mnt/g 1 1000 3000
sync
cov_reclaim "$jbd" must
getfattr -d $mnt/d/f* >/dev/null 2>&1
cov_reclaim "$mb" try

umount $mnt || cov_bad "umount failed"
cov_gone "$es"
cov_gone "$jbd"
cov_gone "$mb"
cov_gone "$sb"
cov_unloop "$dev"
cov_end
