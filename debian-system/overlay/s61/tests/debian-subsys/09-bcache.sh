#!/bin/bash
# bcache with Debian's make-bcache (bcache-tools): a 64 MiB cache and a
# 128 MiB backing loop device made together (the backing device attaches to
# the cache set), registered through /sys/fs/bcache/register (or by udev's
# bcache rule), writeback mode; 24 MiB written through /dev/bcacheN in a
# memcg-limited scope and read back with O_DIRECT, memory.reclaim,
# drop_caches, stop (the device first, then the cache set). Shrinker:
# md-bcache:<cset uuid> (the btree node cache, btree_cache_size of
# /sys/fs/bcache/<uuid>; it frees only what is above its reserve of
# nodes, which a cache set this small never has: the test judges the
# device and its teardown, and reports the cache; its evidence row is
# "registered only", debian-system/registered-only).
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module BCACHE bcache
sub_tools make-bcache bcache-super-show losetup systemd-run
sub_debugfs
sub_loopfile bcache-cache 64
cdev=$LOOP
sub_loopfile bcache-backing 128
bdev=$LOOP
make-bcache --wipe-bcache --bucket 64k -C "$cdev" -B "$bdev" >/dev/null || fail "make-bcache -C $cdev -B $bdev failed"
cset=$(bcache-super-show "$cdev" | awk '$1 == "cset.uuid" { print $2 }')
[ -n "$cset" ] || fail "bcache-super-show $cdev shows no cset.uuid"
for d in "$cdev" "$bdev"; do
	echo "$d" >/sys/fs/bcache/register 2>/dev/null || echo "register $d: busy (udev registered it)"
done
has_dev() { [ -e "/sys/block/${bdev#/dev/}/bcache/dev" ] && [ -d "/sys/fs/bcache/$cset" ]; }
wait_until 60 has_dev || fail "no bcache device for $bdev or no cache set $cset after registering"
bc=$(basename "$(readlink -f "/sys/block/${bdev#/dev/}/bcache/dev")")
sub_atexit "echo 1 >/sys/block/$bc/bcache/stop; sleep 2; echo 1 >/sys/fs/bcache/$cset/stop; sleep 2"
attached() { [ "$(cat "/sys/block/$bc/bcache/state")" != "no cache" ]; }
wait_until 30 attached || fail "/dev/$bc is not attached to cache set $cset: state $(cat "/sys/block/$bc/bcache/state")"
echo writeback >"/sys/block/$bc/bcache/cache_mode" || fail "cannot set writeback on $bc"
echo "bcache: /dev/$bc on $bdev, cache set $cset on $cdev, state $(cat "/sys/block/$bc/bcache/state"), $(grep -o '\[[a-z]*\]' "/sys/block/$bc/bcache/cache_mode")"
sub_timing "make-bcache and register"
SUB_SHRINK=("md-bcache:$cset")
sub_text "$SUB_W/text" || fail "cannot write $SUB_W/text"
sub_atexit "rm -f $SUB_W/text"
declare -A btc
# shellcheck disable=SC2329,SC2317  # called by sub_cycle
sub_on_reading() { btc[$1]="$(cat "/sys/fs/bcache/$cset/btree_cache_size") ($(cat "/sys/fs/bcache/$cset/internal/btree_nodes") nodes)"; }
# shellcheck disable=SC2016  # expanded in the scope
sub_cycle bcache 'w=$(for i in $(seq 24); do cat '"$SUB_W"'/text; done | tee /dev/'"$bc"' | cksum) && sync &&
r=$(dd if=/dev/'"$bc"' bs=1M count=24 iflag=direct status=none | cksum) &&
echo "wrote 24 MiB (cksum ${w% *}), read back with O_DIRECT (cksum ${r% *})" && [ "$w" = "$r" ]'
echo "bcache btree_cache_size: ${btc[work]} after the write, ${btc[reclaimed]} after memory.reclaim, ${btc[dropped]} after drop_caches; dirty_data $(cat "/sys/block/$bc/bcache/dirty_data")"
echo 1 >"/sys/block/$bc/bcache/stop" || fail "cannot stop $bc"
bc_gone() { [ ! -e "/sys/block/$bc" ]; }
wait_until 60 bc_gone || fail "/dev/$bc still there 60 s after its stop"
echo 1 >"/sys/fs/bcache/$cset/stop" || fail "cannot stop cache set $cset"
cset_gone() { [ ! -d "/sys/fs/bcache/$cset" ]; }
wait_until 60 cset_gone || fail "cache set $cset still there 60 s after its stop"
sub_reading after
sub_timing stop
sub_need_registered "${SUB_SHRINK[@]}"
sub_need_gone "${SUB_SHRINK[@]}"
pass
