#!/bin/bash
# Negative control for the leak check (debug config, kmemleak): load the
# test module with leak=1, which leaks one 200-byte object on purpose, and
# wait past kmemleak's minimum object age. The test itself passes; the run
# must FAIL on the host, which sees kmemleak's report on the console after
# the init's closing scan (make check runs this suite with
# --expect-splat, so a run WITHOUT the report is the failure). If this
# control ever passes as a plain run, a real leak would pass too.
. /s61/lib.sh
ko=/s61/modules/s61_shrinker_test.ko
[ -f "$ko" ] || fail "no test module in the initramfs (tools/testmod did not build it)"
[ -w /sys/kernel/debug/kmemleak ] || fail "no kmemleak in this kernel (debug config)"
insmod "$ko" leak=1 || fail "cannot load the test module with leak=1"
rmmod s61_shrinker_test || fail "cannot unload the test module"
dmesg | grep -q 'leak=1: leaked a 200-byte object' || fail "the module did not leak (no message)"
# kmemleak reports objects older than 5 s only.
sleep 6
pass "leaked one object; the host must see kmemleak report it"
