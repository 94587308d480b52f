#!/bin/bash
# zram with util-linux's zramctl: a 128 MiB device (zsmalloc pool), ext4 on
# it (no journal), the fill in a memcg-limited scope; then every other data
# file removed and fstrim (discard: zsmalloc frees their objects, which
# leaves its zspages fragmented), memory.reclaim, drop_caches: the
# mm-zspool shrinker compacts the pool (mm_stat's pages_compacted; no
# explicit compaction is asked for). Read-back, umount, reset.
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module ZRAM zram
sub_tools zramctl mkfs.ext4 fstrim systemd-run python3
sub_debugfs
dev=$(zramctl --find --size 128M) || fail "zramctl --find --size 128M failed"
sub_atexit "zramctl --reset $dev"
name=${dev#/dev/}
echo "zram: $(zramctl --noheadings --output NAME,ALGORITHM,DISKSIZE "$dev")"
mkfs.ext4 -q -F -b 4096 -O ^has_journal "$dev" || fail "mkfs.ext4 on $dev failed"
SUB_SHRINK=("mm-zspool:$name")
# zsmalloc's caches are shared by its pools in 6.1 (no "-zram0")
SUB_SLABS=(zspage zs_handle)
sub_mount ext4 "$dev" /mnt/s61-zram
declare -A mm
# shellcheck disable=SC2329,SC2317  # called by sub_cycle
sub_on_reading() { mm[$1]=$(cat "/sys/block/$name/mm_stat"); }
sub_cycle zram 'sub_fill /mnt/s61-zram && rm /mnt/s61-zram/data/t*[13579] && fstrim /mnt/s61-zram && sync && echo "removed the odd data files, fstrim"'
used=$(awk '{ print $3 }' <<<"${mm[work]}")
pc1=$(awk '{ print $7 }' <<<"${mm[work]}") pc3=$(awk '{ print $7 }' <<<"${mm[dropped]}")
echo "mm_stat (orig compr used limit max same compacted huge): ${mm[work]} after the work; ${mm[dropped]} after drop_caches"
echo "zspool: mem_used_total $used bytes after the work; pages_compacted $pc1 -> $pc3 (the shrinker compacted $((pc3 - pc1)) pages)"
n=$(find /mnt/s61-zram/data -type f | wc -l)
[ "$n" = $((SUB_MIB / 2)) ] || fail "/mnt/s61-zram/data has $n files, want $((SUB_MIB / 2))"
for f in /mnt/s61-zram/data/*; do
	cmp -s "$f" /mnt/s61-zram/.text || fail "$f does not read back as written"
done
echo "read back: $n data files as written"
sub_umount /mnt/s61-zram
zramctl --reset "$dev" || fail "zramctl --reset $dev failed"
sub_reading after
sub_need_registered "${SUB_SHRINK[@]}"
sub_need_gone "${SUB_SHRINK[@]}"
[ "$used" -gt 0 ] || fail "the zsmalloc pool of $name holds nothing after the fill"
[ "$pc3" -gt "$pc1" ] || fail "drop_caches compacted nothing of the fragmented pool (pages_compacted $pc1 -> $pc3): the mm-zspool shrinker did not run or freed nothing"
pass
