#!/bin/bash
# Negative control for KASAN (debug config), only when the kernel command
# line has s61.control=kasan (check-top's KASAN control run): load the test
# module and write its debugfs kasan_uaf, which reads 8 bytes of a
# 128-byte object the module has just freed. The test itself passes; the
# host requires KASAN's report of it (qemu/run --expect-splat "BUG: KASAN:
# use-after-free in s61_kasan_uaf_write" with --expect-in-splat for the
# read and the object, --allow-taint B --allow-lockdep-off: the report
# taints B and turns lockdep off), so a kernel whose KASAN does not see it
# fails the run. Without s61.control=kasan it SKIPs (qemu/expected).
. /s61/lib.sh
control_load kasan KASAN kasan_uaf
echo 1 >"$CONTROL_FILE" || fail "the write to $CONTROL_FILE failed"
grep -q 'kasan_uaf: read ' <<<"$(dmesg)" || fail "the module did not read the freed object (no message)"
rmmod s61_shrinker_test || fail "cannot unload the test module"
pass "read a freed object once; the host must see KASAN report it"
