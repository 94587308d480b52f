#!/bin/bash
# android-binder: pages of freed binder buffers wait on a global LRU; a
# one-way transaction to ourselves through binderfs fills it.
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
mkdir -p /dev/binderfs
mount -t binder binder /dev/binderfs 2>/dev/null || grep -q binder /proc/filesystems ||
	skip "no binderfs (CONFIG_ANDROID_BINDERFS)"
[ -e /dev/binderfs/binder ] || fail "binderfs has no binder device"
cov_entry 'android-binder'; bi=$COV_DIR
run() {
	rm -f /tmp/binder.ready
	s61-covhelper binder /dev/binderfs/binder /tmp/binder.ready &
	pid=$!
	wait_until 30 test -e /tmp/binder.ready || cov_bad "binder helper not ready"
}
run
cov_count_min "$bi" 16 "4 one-way transactions of 64 kB, buffers freed"
cov_scan "$bi" must
kill "$pid"; wait "$pid" 2>/dev/null
run
cov_reclaim "$bi" must
kill "$pid"; wait "$pid" 2>/dev/null
umount /dev/binderfs
cov_permanent "$bi" "global, registered at binder init"
cov_end
