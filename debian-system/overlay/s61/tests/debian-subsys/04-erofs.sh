#!/bin/bash
# EROFS: Debian's mkfs.erofs makes an lz4hc-compressed image of a directory
# filled as the other file systems are (in a memcg-limited scope); mounted
# from a loop device, every file read in the scope (compressed clusters:
# the erofs-shrinker's workgroups), memory.reclaim, drop_caches, read-back,
# umount. Shrinkers: sb-erofs, erofs-shrinker. Without the shrinker
# debugfs the evidence is the erofs_inode slab.
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module EROFS_FS erofs
sub_tools mkfs.erofs losetup systemd-run python3
sub_debugfs
src=$SUB_W/erofs-src img=$SUB_W/erofs.img
rm -rf "$src" "$img"
mkdir -p "$src"
sub_atexit "rm -rf $src $img"
sub_scope erofs-src 'sub_fill '"$src"
sub_scope_end erofs-src
mkfs.erofs -zlz4hc "$img" "$src" >/dev/null || fail "mkfs.erofs -zlz4hc of $src failed"
echo "mkfs.erofs: $(stat -c %s "$img") bytes from $(du -s --apparent-size -k "$src" | cut -f1) KiB"
sub_timing "fill and mkfs.erofs"
LOOP=$(losetup -f --show -r "$img") || fail "losetup of $img failed"
sub_atexit "losetup -d $LOOP"
dev=${LOOP#/dev/}
SUB_SHRINK=("sb-erofs:$dev" "erofs-shrinker")
SUB_SLABS=(erofs_inode)
sub_mount erofs "$LOOP" /mnt/s61-erofs ro
# shellcheck disable=SC2016  # expanded in the scope
sub_cycle erofs 'n=$(find /mnt/s61-erofs -type f -exec cat {} + | wc -c) && echo "read $n bytes" && [ "$n" -gt 0 ]'
sub_check_fill /mnt/s61-erofs
sub_umount /mnt/s61-erofs
sub_reading after
sub_timing "read-back and umount"
sub_need_registered "${SUB_SHRINK[@]}"
sub_need_gone "sb-erofs:$dev"
sub_need_freed s "sb-erofs:$dev"
sub_need_freed c erofs_inode
pass
