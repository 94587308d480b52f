#!/bin/bash
# dm-bufio through dm-thin: the pool's metadata block manager is a dm-bufio
# client (dm-bufio:(<major>:<minor>) of the metadata device); the scan frees
# from a work item, so the freeing is checked on dm-bufio's own allocation
# counter (its count already drops when a scan is queued).
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
cov_need dmsetup dmsetup
export DM_DISABLE_UDEV=1
p=/sys/module/dm_bufio/parameters
[ -d $p ] || skip "no dm-bufio (CONFIG_DM_BUFIO)"
# Keep nothing back: by default dm-bufio retains 256 kB per client.
echo 0 >$p/retain_bytes
meta=$(cov_loop thin-meta 16) || fail "no loop device"
data=$(cov_loop thin-data 128) || fail "no loop device"
dmsetup create cov-pool --table "0 $((128 * 2048)) thin-pool $meta $data 128 0" ||
	fail "dmsetup create thin-pool failed"
dmsetup message cov-pool 0 "create_thin 0" || fail "create_thin failed"
dmsetup create cov-thin --table "0 $((96 * 2048)) thin /dev/mapper/cov-pool 0" ||
	fail "dmsetup create thin failed"
cov_entry "dm-bufio:($((16#$(stat -c %t "$meta"))):$((16#$(stat -c %T "$meta"))))"; bu=$COV_DIR
fill() {
	# scattered 64 kB writes: a mapping btree of some hundred blocks
	local i
	for i in $(seq 0 3 1400); do
		dd if=/dev/zero of=/dev/mapper/cov-thin bs=64k count=1 seek="$i" oflag=direct status=none
	done
	dmsetup message cov-pool 0 reserve_metadata_snap 2>/dev/null
	dmsetup message cov-pool 0 release_metadata_snap 2>/dev/null
	sync
}
fill
cov_count_min "$bu" 4 "scattered writes to a thin device"
a0=$(cat $p/current_allocated_bytes)
# dm-bufio queues the scan's nr_to_scan as a debt that its count then
# subtracts until paid: ask for exactly what it counts.
cov_scan "$bu" must 3 5 count
sleep 1
a1=$(cat $p/current_allocated_bytes)
cov_msg "dm-bufio current_allocated_bytes: $a0 -> $a1 after the scan"
[ "$a1" -lt "$a0" ] || cov_bad "dm-bufio scan freed no buffer memory ($a0 -> $a1)"
fill
a0=$(cat $p/current_allocated_bytes)
cov_reclaim "$bu" must
sleep 1
a1=$(cat $p/current_allocated_bytes)
cov_msg "dm-bufio current_allocated_bytes: $a0 -> $a1 after drop_caches"
[ "$a1" -lt "$a0" ] || cov_bad "reclaim freed no dm-bufio buffer memory ($a0 -> $a1)"
dmsetup remove cov-thin || cov_bad "dmsetup remove cov-thin failed"
dmsetup remove cov-pool || cov_bad "dmsetup remove cov-pool failed"
cov_gone "$bu"
cov_unloop "$data"
cov_unloop "$meta"
echo 262144 >$p/retain_bytes
cov_end
