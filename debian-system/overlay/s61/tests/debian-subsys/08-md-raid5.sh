#!/bin/bash
# md RAID5 with Debian's mdadm on 3 loop devices of 64 MiB (--assume-clean:
# no resync under TCG): 24 MiB written through the page cache in a
# memcg-limited scope and read back with O_DIRECT, memory.reclaim,
# drop_caches, stop. Shrinker: md-raid5:md61 (stripe heads above
# stripe_cache_size, which the array grows under load). The stripe cache
# is the slab raid5-md61. This load adds no stripe above the cache's
# size: the shrinker is judged registered and gone, its evidence row is
# "registered only" (debian-system/registered-only).
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module MD_RAID456 raid456
sub_tools mdadm losetup systemd-run
sub_debugfs
devs=()
for i in 1 2 3; do
	sub_loopfile "raid5-$i" 64
	devs+=("$LOOP")
done
mdadm --create /dev/md61 --run --quiet --level=5 --raid-devices=3 --assume-clean --metadata=1.2 "${devs[@]}" ||
	fail "mdadm --create of a RAID5 on ${devs[*]} failed"
sub_atexit "mdadm --stop /dev/md61"
echo "md61: $(cat /sys/block/md61/md/level) $(cat /sys/block/md61/md/array_state), $(($(cat /sys/block/md61/size) / 2048)) MiB, stripe_cache_size $(cat /sys/block/md61/md/stripe_cache_size)"
sub_timing "mdadm --create"
SUB_SHRINK=("md-raid5:md61")
SUB_SLABS=(raid5-md61)
sub_text "$SUB_W/text" || fail "cannot write $SUB_W/text"
sub_atexit "rm -f $SUB_W/text"
# shellcheck disable=SC2016  # expanded in the scope
sub_cycle raid5 'w=$(for i in $(seq 24); do cat '"$SUB_W"'/text; done | tee /dev/md61 | cksum) && sync &&
r=$(dd if=/dev/md61 bs=1M count=24 iflag=direct status=none | cksum) &&
echo "wrote 24 MiB (cksum ${w% *}), read back with O_DIRECT (cksum ${r% *}); stripe_cache_active $(cat /sys/block/md61/md/stripe_cache_active)" && [ "$w" = "$r" ]'
echo "md61: stripe_cache_size $(cat /sys/block/md61/md/stripe_cache_size), mismatch_cnt $(cat /sys/block/md61/md/mismatch_cnt), state $(cat /sys/block/md61/md/array_state)"
mdadm --stop /dev/md61 || fail "mdadm --stop /dev/md61 failed"
sub_reading after
sub_need_registered "${SUB_SHRINK[@]}"
sub_need_gone "${SUB_SHRINK[@]}"
pass
