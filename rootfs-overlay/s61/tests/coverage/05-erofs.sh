#!/bin/bash
# erofs: the global erofs-shrinker frees cached compressed pclusters
# (workgroups) of LZ4-compressed images; plus the mount's sb-erofs.
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
cov_need mkfs.erofs erofs-utils
mnt=/mnt/cov-erofs
src=/tmp/cov-erofs-src
mkdir -p $src $mnt
for i in $(seq 1 200); do seq "$i" 20000 >"$src/f$i"; done
img=/tmp/cov-erofs.img
mkfs.erofs -zlz4 $img $src >/dev/null || fail "mkfs.erofs -zlz4 failed"
rm -rf $src
dev=$(losetup -f --show $img) || fail "no loop device"
cov_entry 'erofs-shrinker'; er=$COV_DIR
c0=$(cov_total "$er")
mount -t erofs -o ro "$dev" $mnt || fail "mount erofs failed"
b=${dev#/dev/}
cov_entry "sb-erofs:$b"; sb=$COV_DIR
cat $mnt/* >/dev/null
cov_count_min "$er" 10 "reading 200 compressed files"
cov_count_min "$sb" 100 "reading 200 files"
cov_scan "$er" must
cov_scan "$sb" must
echo 1 >/proc/sys/vm/drop_caches
cat $mnt/* >/dev/null
cov_reclaim "$er" must
cov_umount_global $mnt "$sb" "$er" "$c0" "one global shrinker, registered at erofs init (built in); umount drops the sb's workgroups"
losetup -d "$dev"
rm -f $img
cov_end
