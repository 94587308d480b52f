#!/bin/bash
# zram: its zsmalloc pool registers mm-zspool:zram0 (count: pages that
# compaction could free); the device reset destroys the pool.
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
z=/sys/block/zram0
[ -d $z ] || skip "no /dev/zram0 (CONFIG_ZRAM)"
echo 1 >$z/reset
echo 64M >$z/disksize || fail "cannot size zram0"
cov_entry 'mm-zspool:zram0'; zs=$COV_DIR
frag() { s61-covhelper zram-frag /dev/zram0 48 || cov_bad "zram-frag failed"; }
frag
cov_msg "mm_stat: $(cat $z/mm_stat)"
cov_count_min "$zs" 100 "48 MB written, every other page zeroed"
cov_scan "$zs" must
echo 1 >$z/reset
cov_gone "$zs"
echo 64M >$z/disksize || fail "cannot size zram0 again"
cov_entry 'mm-zspool:zram0'; zs=$COV_DIR
frag
cov_reclaim "$zs" must
echo 1 >$z/reset
cov_gone "$zs"
cov_end
