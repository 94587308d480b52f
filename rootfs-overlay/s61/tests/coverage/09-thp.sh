#!/bin/bash
# THP: thp-zero (the huge zero page, freed once no mm maps it) and
# thp-deferred_split (partly unmapped THPs, per memcg).
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
t=/sys/kernel/mm/transparent_hugepage
[ -d $t ] || skip "no THP (CONFIG_TRANSPARENT_HUGEPAGE)"
echo always >$t/enabled
echo 1 >$t/use_zero_page
cov_entry 'thp-zero'; zero=$COV_DIR
cov_entry 'thp-deferred_split'; split=$COV_DIR

s61-covhelper thp-zero || cov_bad "thp-zero helper failed"
cov_count_min "$zero" 512 "a read fault on THP memory (the huge zero page, now unused)"
cov_scan "$zero" must
s61-covhelper thp-zero || cov_bad "thp-zero helper failed"
cov_reclaim "$zero" must
cov_permanent "$zero" "global, registered at THP init"

cg=$(memcg_create cov-thp) || fail "cannot create a memcg"
rm -f /tmp/thp.ready
cov_exec_in "$cg" s61-covhelper thp-split /tmp/thp.ready &
pid=$!
wait_until 60 test -e /tmp/thp.ready || cov_bad "thp-split helper not ready"
cov_msg "AnonHugePages: $(awk '/AnonHugePages/ { print $2, $3 }' /proc/meminfo); memcg ino $(stat -c %i "$cg")"
cov_msg "count: $(tr '\n' ';' <"$split/count")"
cov_count_min "$split" 4 "16 partly unmapped THPs in memcg cov-thp"
v0=$(grep -E '^thp_(split_page|deferred_split_page) ' /proc/vmstat | tr '\n' ' ')
cov_scan "$split" must
cov_msg "vmstat before the scan: $v0; after: $(grep -E '^thp_(split_page|deferred_split_page) ' /proc/vmstat | tr '\n' ' ')"
kill "$pid"; wait "$pid" 2>/dev/null
rm -f /tmp/thp.ready
cov_exec_in "$cg" s61-covhelper thp-split /tmp/thp.ready &
pid=$!
wait_until 60 test -e /tmp/thp.ready || cov_bad "thp-split helper not ready"
cov_reclaim "$split" must "$cg"
kill "$pid"; wait "$pid" 2>/dev/null
rmdir "$cg"
cov_permanent "$split" "global (per-memcg queues), registered at THP init"
cov_end
