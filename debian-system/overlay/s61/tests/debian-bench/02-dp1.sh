#!/bin/bash
# dp1 (P1 of the bench suite, rootfs-overlay/s61/tests/bench/20-p1-blocked.sh,
# on the Debian system): registration latency while a shrinker is held in
# its scan callback. The project's test module (testmod/s61_shrinker_test.c,
# installed by a package of the series' and base .debs as
# /lib/modules/VERSION/updates/s61_shrinker_test.ko) is loaded with block=0;
# for each operation its "block" is set, drop_caches (in the background)
# enters the module's scan and is held there for s61.dp1_hold= seconds (2);
# meanwhile one system call is timed alone (/s61/dbench.py, started and
# ready before the hold): the mount of a tmpfs, then its umount. On 6.1
# each waits in down_write(&shrinker_rwsem) until the hold ends; with the
# lockless shrink it does not. s61.dp1_rounds= rounds (3); samples mount_ms
# and umount_ms per round. "while held: yes/no" says whether the call ended
# before the release.
#
# Debian's stock kernel has no such module: the test SKIPs ("no
# s61_shrinker_test module ..."); debian-system/expected accepts that SKIP
# for target base under config debian only. It fails when the module does
# not load, no scan gets held within 20 s, a call fails or does not finish
# 30 s after the release, the held reclaimer does not finish, the module's
# scan is still held after the release, the tmpfs stays mounted, or the
# module does not unload.
. /s61/lib.sh
. /s61/dbench.sh

ko=/lib/modules/$(uname -r)/updates/s61_shrinker_test.ko
[ -f "$ko" ] || skip "no s61_shrinker_test module: $ko is not installed (the package of the series' and base .debs installs it; Debian's stock kernel has none)"
hold=$(cmdline_arg s61.dp1_hold 2)
rounds=$(cmdline_arg s61.dp1_rounds 3)
is_pos "$hold" "$rounds" ||
	fail "s61.dp1_hold='$hold' s61.dp1_rounds='$rounds': want whole numbers above 0"
[ ! -d /sys/module/s61_shrinker_test ] || fail "s61_shrinker_test is loaded already"
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug || fail "cannot mount debugfs"
dbg=/sys/kernel/debug/s61_shrinker_test
mnt=/run/s61-dp1
w=/run/s61-dp1.work
rm -rf "$w"
mkdir -p "$mnt" "$w"

loaded=0
cleanup() {
	[ $loaded = 1 ] || return
	echo 1 >"$dbg/release" 2>/dev/null
	bg_wait reclaim 20
	bg_wait op 20
	touch "$w/go"
	mountpoint -q "$mnt" && bounded 10 umount "$mnt"
	bounded 20 rmmod s61_shrinker_test
}
trap cleanup EXIT

insmod "$ko" nr_objects=100000 block=0 || fail "insmod $ko failed"
loaded=1
echo "module $ko: api=$(cat "$dbg/api") lockless=$(cat "$dbg/lockless"); hold ${hold}s, $rounds rounds"

in_scan() { [ "$(cat "$dbg/in_scan")" = 1 ]; }
reclaim() { echo 2 >/proc/sys/vm/drop_caches; }

# hold_op OP ARGS...: dbench.py ready to make the call OP ARGS; a reclaimer
# held in the module's scan; the call made; the hold kept for its full
# time, then released. Sets OP_MS and HELD (yes: the call ended before the
# release).
hold_op() {
	local t_block deadline t_rel end_us
	rm -f "$w/go" "$w/op" "$w/op.ready"
	bg_start op python3 "$DBENCH_PY" timed "$w/go" "$w/op" "$@"
	wait_until 60 test -e "$w/op.ready" || fail "dbench.py did not get ready within 60 s"
	echo 100000 >"$dbg/nr_objects"
	echo 1 >"$dbg/block"
	bg_start reclaim reclaim
	wait_until 20 in_scan || fail "no scan held within 20 s (scans: $(cat "$dbg/scans"))"
	t_block=${EPOCHREALTIME/./}
	deadline=$((t_block + hold * 1000000))
	touch "$w/go"
	while [ "${EPOCHREALTIME/./}" -lt "$deadline" ]; do
		sleep 0.05
	done
	t_rel=${EPOCHREALTIME/./}
	echo 1 >"$dbg/release"
	bg_wait reclaim 30 || fail "the held reclaimer did not finish 30 s after the release ($?)"
	bg_wait op 30 || fail "$* failed or did not finish 30 s after the release ($?)"
	read -r OP_MS end_us <"$w/op" || fail "dbench.py left no time for $*"
	is_ms "$OP_MS" || fail "dbench.py's time for $* is '$OP_MS'"
	if [ "$end_us" -lt "$t_rel" ]; then HELD=yes; else HELD=no; fi
	! in_scan || fail "the module's scan is still held after the release"
}

for ((r = 1; r <= rounds; r++)); do
	hold_op mount s61-dp1 "$mnt" tmpfs
	mount_ms=$OP_MS mount_held=$HELD
	grep -q " $mnt .* - tmpfs s61-dp1 " /proc/self/mountinfo || fail "round $r: the tmpfs is not mounted on $mnt after its mount"
	hold_op umount "$mnt"
	umount_ms=$OP_MS umount_held=$HELD
	! grep -q " - tmpfs s61-dp1 " /proc/self/mountinfo || fail "round $r: the tmpfs is still mounted after its umount"
	echo "round $r: mount $mount_ms ms (ended while held: $mount_held), umount $umount_ms ms (while held: $umount_held); scans $(cat "$dbg/scans")"
	sample dp1 mount_ms "$mount_ms"
	sample dp1 umount_ms "$umount_ms"
done
loaded=0
bounded 20 rmmod s61_shrinker_test || fail "rmmod s61_shrinker_test failed or hung ($?)"
[ ! -d /sys/module/s61_shrinker_test ] || fail "s61_shrinker_test is still loaded after rmmod"
rm -rf "$w"
rmdir "$mnt"
pass
