#!/bin/bash
# md raid5 (mdadm over three loop devices): md-raid5:md<N> frees stripe
# heads above the configured minimum (stripe_cache_size).
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
cov_need mdadm mdadm
devs=()
for i in 1 2 3; do devs+=("$(cov_loop md$i 64)") || fail "no loop device"; done
mdadm --create /dev/md0 --run --quiet --level=5 --raid-devices=3 --assume-clean \
	--metadata=1.2 "${devs[@]}" || fail "mdadm --create failed"
md=/sys/block/md0/md
cov_entry 'md-raid5:md0'; r5=$COV_DIR
# The smallest cache, then parallel writes: raid5 grows the cache above it.
echo 17 >$md/stripe_cache_size || cov_bad "cannot set stripe_cache_size"
load() {
	local j
	for j in 1 2 3 4; do
		dd if=/dev/zero of=/dev/md0 bs=64k count=200 seek=$((j * 200)) oflag=direct status=none &
	done
	wait
}
load
cov_msg "stripe_cache_size $(cat $md/stripe_cache_size), active $(cat $md/stripe_cache_active)"
cov_count_min "$r5" 1 "parallel writes with stripe_cache_size 17"
cov_scan "$r5" must
load
cov_reclaim "$r5" must
mdadm --stop /dev/md0 --quiet || cov_bad "mdadm --stop failed"
cov_gone "$r5"
for d in "${devs[@]}"; do cov_unloop "$d"; done
cov_end
