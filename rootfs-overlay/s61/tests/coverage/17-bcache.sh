#!/bin/bash
# bcache: a cache set registers md-bcache:<set uuid> over its btree node
# cache (fixed uuid here, so the name is the same on every run); stopping
# the set unregisters it.
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
cov_need make-bcache bcache-tools
[ -e /sys/fs/bcache/register ] || skip "no bcache (CONFIG_BCACHE)"
uuid=5361c0de-0000-4000-8000-000000000061
cache=$(cov_loop bcache-c 64) || fail "no loop device"
back=$(cov_loop bcache-b 64) || fail "no loop device"
make-bcache --cset-uuid $uuid --writeback -b 64k -C "$cache" -B "$back" >/dev/null || fail "make-bcache failed"
echo "$cache" >/sys/fs/bcache/register || fail "cannot register the cache device"
echo "$back" >/sys/fs/bcache/register || fail "cannot register the backing device"
wait_until 10 test -e /dev/bcache0 || cov_bad "no /dev/bcache0"
cov_entry "md-bcache:$uuid"; bc=$COV_DIR
for i in $(seq 0 7 2000); do
	dd if=/dev/zero of=/dev/bcache0 bs=4k count=1 seek="$i" oflag=direct status=none
done
sync
cov_msg "btree_cache_size $(cat /sys/fs/bcache/$uuid/btree_cache_size 2>/dev/null)"
cov_count_min "$bc" 0
cov_scan "$bc" try
cov_reclaim "$bc" try
cov_msg "md-bcache: freeable btree nodes exist only beyond the node reserve, which a small cache set does not outgrow"
echo 1 >/sys/block/bcache0/bcache/stop 2>/dev/null
echo 1 >/sys/fs/bcache/$uuid/unregister || cov_bad "cannot unregister the cache set"
cov_gone "$bc"
sleep 1
cov_unloop "$back"
cov_unloop "$cache"
cov_end
