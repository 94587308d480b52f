#!/bin/bash
# ubifs on UBI on nandsim (a RAM-backed simulated NAND, built in: mtd0):
# the global ubifs-slab shrinker frees clean TNC znodes.
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
cov_need ubiattach mtd-utils
cov_need ubimkvol mtd-utils
grep -q nand /proc/mtd 2>/dev/null || grep -q . /proc/mtd 2>/dev/null ||
	skip "no MTD device (CONFIG_MTD_NAND_NANDSIM)"
cov_msg "$(tr '\n' ' ' </proc/mtd)"
ubiattach -m 0 >/dev/null || fail "ubiattach failed"
wait_until 10 test -e /dev/ubi0 || fail "no /dev/ubi0"
ubimkvol /dev/ubi0 -N cov -m >/dev/null || fail "ubimkvol failed"
mnt=/mnt/cov-ubifs
mkdir -p $mnt
cov_entry 'ubifs-slab'; ub=$COV_DIR
c0=$(cov_total "$ub")
mount -t ubifs ubi0:cov $mnt || fail "mount ubifs failed"
cov_entry 'sb-ubifs'; sb=$COV_DIR
cov_files $mnt/d 1 1500 100
sync
umount $mnt
mount -t ubifs ubi0:cov $mnt || fail "mount ubifs again failed"
ls -lR $mnt >/dev/null
cat $mnt/d/* >/dev/null
cov_count_min "$ub" 10 "1500 files committed, then looked up after a remount"
cov_count_min "$sb" 100 "1500 files"
cov_scan "$ub" must
cov_scan "$sb" must
cov_files $mnt/e 1 500 100
sync
ls -lR $mnt >/dev/null
cov_reclaim "$ub" must
cov_umount_global $mnt "$sb" "$ub" "$c0" "global, registered at ubifs init (built in)"
ubidetach -m 0 >/dev/null 2>&1
cov_end
