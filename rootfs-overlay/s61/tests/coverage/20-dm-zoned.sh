#!/bin/bash
# dm-zoned over a zoned null_blk device (configfs; 256 zones of 4 MB, 8 of
# them conventional): dm-zoned-meta:(<major>:<minor>) caches metadata blocks
# (one bitmap block per zone here). The metadata is written by dmzadm when
# the guest has it, else by s61-covhelper dmz-format (Debian 12 does not
# package dm-zoned-tools).
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
cov_need dmsetup dmsetup
export DM_DISABLE_UDEV=1
mkdir -p /sys/kernel/config 2>/dev/null
grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs configfs /sys/kernel/config
nb=/sys/kernel/config/nullb/cov
mkdir $nb 2>/dev/null || skip "no null_blk configfs (CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)"
echo 1 >$nb/memory_backed
echo 1024 >$nb/size
echo 1 >$nb/zoned || skip "null_blk without zone support (CONFIG_BLK_DEV_ZONED)"
echo 4 >$nb/zone_size
echo 8 >$nb/zone_nr_conv
echo 1 >$nb/power || fail "cannot power the zoned null_blk up"
# a null_blk made through configfs is named after its configfs directory
zdev=/dev/cov
wait_until 10 test -b "$zdev" || fail "no $zdev (have: $(echo /sys/block/*))"
zb=/sys/block/${zdev#/dev/}/queue
cov_msg "$zdev: $(cat "$zb/zoned") $(cat "$zb/nr_zones") zones"
if command -v dmzadm >/dev/null; then
	dmzadm --format "$zdev" --force >/dev/null || fail "dmzadm --format failed"
	len=$(blockdev --getsz "$zdev")
else
	len=$(s61-covhelper dmz-format "$zdev" 4 256 4) || fail "dmz-format failed"
fi
dmsetup create cov-dmz --table "0 $len zoned $zdev" || fail "dmsetup create (zoned target) failed"
maj=$((16#$(stat -c %t "$zdev"))) min=$((16#$(stat -c %T "$zdev")))
cov_entry "dm-zoned-meta:($maj:$min)"; zm=$COV_DIR
fill() {
	# one 4 kB write in each of 200 chunks: 200 zone bitmap blocks
	local i
	for i in $(seq 0 199); do
		dd if=/dev/zero of=/dev/mapper/cov-dmz bs=4k count=1 seek=$((i * 1024)) oflag=direct status=none
	done
	sync
}
fill
cov_count_min "$zm" 1 "writes to 200 chunks"
# dm-zoned trims its metadata cache itself, down to min_nr_mblks (2 + map
# blocks + 16 bitmap blocks), on every block release: what stays cached is
# the floor that its shrinker may not go below either.
cov_scan "$zm" try
cov_skip_check "$zm" scan-frees "dm-zoned trims its own cache to min_nr_mblks on every metadata block release; nothing above it is left for the shrinker"
fill
cov_reclaim "$zm" try
dmsetup remove cov-dmz || cov_bad "dmsetup remove failed"
cov_gone "$zm"
echo 0 >$nb/power
rmdir $nb
cov_end
