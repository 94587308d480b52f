#!/bin/bash
# Negative control for lockdep (debug config), only when the kernel
# command line has s61.control=lockdep (check-top's lockdep control run):
# load the test module and write its debugfs lockdep_abba, which takes its
# mutexes s61_lock_a and s61_lock_b in both orders in this one task (under
# a third lock, so nothing can deadlock). The test itself passes; the host
# requires lockdep's report (qemu/run --expect-splat "WARNING: possible
# circular locking dependency detected" with --expect-in-splat for both
# lock names and the function, --allow-lockdep-off: the report turns
# lockdep off), so a kernel whose lockdep does not see it fails the run.
# Without s61.control=lockdep it SKIPs (qemu/expected).
. /s61/lib.sh
control_load lockdep lockdep lockdep_abba
bounded 60 sh -c "echo 1 >$CONTROL_FILE"
rc=$?
[ $rc != 124 ] || fail "the write to $CONTROL_FILE did not return in 60 s (a deadlock?)"
[ $rc = 0 ] || fail "the write to $CONTROL_FILE failed (exit $rc)"
grep -q 'lockdep_abba: took s61_lock_a and s61_lock_b in both orders' <<<"$(dmesg)" ||
	fail "the module did not take its locks (no message)"
rmmod s61_shrinker_test || fail "cannot unload the test module"
pass "took two mutexes in both orders; the host must see lockdep report it"
