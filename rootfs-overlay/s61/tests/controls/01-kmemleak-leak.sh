#!/bin/bash
# Negative control for the leak check (debug config, kmemleak): load the
# test module with leak=1, which leaks one 256-byte object from
# s61_leak_object() on purpose, and leave it loaded, so that kmemleak's
# backtrace of the object still names that function when the init prints
# it. The test itself passes; the init's closing scan (6 s after the last
# test, past kmemleak's minimum age of 5 s, twice) must report the object
# on the console, and make check runs this test with --expect-splat for
# that object's size and --expect-in-splat for the function's frame, so a
# run WITHOUT that report is the failure. If this control ever passes as a
# plain run, a real leak would pass too.
. /s61/lib.sh
ko=/s61/modules/s61_shrinker_test.ko
[ -f "$ko" ] || fail "no test module in the initramfs (tools/build/testmod.sh did not build it)"
[ -w /sys/kernel/debug/kmemleak ] || fail "no kmemleak in this kernel (debug config)"
[ ! -d /sys/module/s61_shrinker_test ] || fail "s61_shrinker_test is loaded already"
insmod "$ko" leak=1 || fail "cannot load the test module with leak=1"
grep -q 'leak=1: leaked a 256-byte object' <<<"$(dmesg)" || fail "the module did not leak (no message)"
pass "leaked one 256-byte object from s61_leak_object; the module stays loaded; the host must see kmemleak report it"
