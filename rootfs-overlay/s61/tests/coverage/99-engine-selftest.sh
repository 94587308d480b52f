#!/bin/bash
# The coverage checks can fail: the engine must report FAIL for a name that
# does not exist, for a scan that frees nothing, and for an entry that is
# still there after "teardown". (This test passes when all three fail.)
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
bad=0
( cov_entry 'sb-ext4:no-such-device'; x=$COV_DIR; cov_end ) >/tmp/cov-st.log 2>&1
rc=$?
echo "wrong name: exit $rc: $(grep -m1 FAIL /tmp/cov-st.log)"
[ $rc = 1 ] || bad=1
mkdir -p /mnt/cov-st
mount -t tmpfs covst /mnt/cov-st || fail "mount tmpfs failed"
( cov_entry 'sb-tmpfs'; x=$COV_DIR; cov_scan "$x" must 1 1; cov_end ) >/tmp/cov-st.log 2>&1
rc=$?
echo "scan of an empty tmpfs with 'must': exit $rc: $(grep -m1 FAIL /tmp/cov-st.log)"
[ $rc = 1 ] || bad=1
( cov_entry 'sb-tmpfs'; x=$COV_DIR; cov_gone "$x"; cov_end ) >/tmp/cov-st.log 2>&1
rc=$?
echo "teardown check while still mounted: exit $rc: $(grep -m1 FAIL /tmp/cov-st.log)"
[ $rc = 1 ] || bad=1
umount /mnt/cov-st
[ $bad = 0 ] || fail "the engine passed a check that must fail"
pass "all three deliberate failures were reported as FAIL"
