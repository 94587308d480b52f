#!/bin/bash
# A reclaimer blocked inside a shrinker's scan_objects() must neither stall
# mount/umount (which register and unregister a superblock shrinker) nor keep
# a second reclaimer from the other shrinkers.
#
# With the lockless shrink, reclaim holds no lock across the callbacks and
# both hold: mount and umount finish while the scan is still held (within
# the 10 s window below; their latency is reported, not judged). Without it
# (base, and the branches before "lockless"), shrink_slab() holds
# shrinker_rwsem for read across the scan: the mount's down_write() waits
# behind it, and while that writer waits every other
# reclaimer's down_read_trylock() fails, so slab shrinking stops system-wide.
# There this is an expected failure (XFAIL); not seeing the stall there means
# the test does not reproduce what it is about (FAIL).
#
# Uses the test module (testmod/, block=1: the first scan waits for release).
. /s61/lib.sh

N=20000
dbg=/sys/kernel/debug/s61_shrinker_test
ext=/mnt/ll-ext4
tmp=/mnt/ll-tmpfs

# Without module support (only there may the .ko be missing): SKIP.
testmod_ready || skip "$S61_NOMOD"

drop_slab() {
	echo 2 >/proc/sys/vm/drop_caches
}

in_scan() {
	[ "$(cat "$dbg/in_scan")" = 1 ]
}

# Whatever happens, release the scan, unload the module and unmount, all
# with bounded waits (a task stuck in the kernel is left behind, reported).
# mounted_tmp: 0 no, 1 mount started, 2 umount started.
loaded=0 mounted_tmp=0 mounted_ext=0
cleanup() {
	if [ $loaded = 1 ]; then
		echo 1 >"$dbg/release" 2>/dev/null
		[ -z "${reclaim1_pid:-}" ] || bg_wait reclaim1 20 || kill -KILL "$reclaim1_pid" 2>/dev/null
		bounded 20 rmmod s61_shrinker_test || echo "cleanup: rmmod did not finish in 20 s"
	fi
	case $mounted_tmp in
	1) bg_wait mount 20 && { bounded 10 umount "$tmp" || echo "cleanup: umount $tmp failed or hung"; } ;;
	2) bg_wait umount 20 || echo "cleanup: umount $tmp did not finish" ;;
	esac
	[ $mounted_ext = 0 ] || bounded 10 umount "$ext" || echo "cleanup: umount $ext did not finish"
	rm -f "/tmp/ext4-$$.img"	# mount_ext4's image
}
trap cleanup EXIT

# The module first, then the ext4 file system: its shrinkers then sit behind
# the module's on the shrinker list, where the blocked reclaimer does not get
# to them, and the negative dentries can be made before anything blocks
# (keeping the stall on base short). block is set only right before the
# reclaimer starts, so that no other reclaim blocks earlier.
insmod "$S61_KO" nr_objects=100000 block=0 || fail "insmod $S61_KO failed"
loaded=1
api=$(cat "$dbg/api")
lockless=$(cat "$dbg/lockless")
sname=none
for d in /sys/kernel/debug/shrinker/s61-test-*; do
	[ -d "$d" ] && sname=${d##*/}
done
echo "module: api=$api lockless=$lockless debugfs=$sname"
[ "$sname" != none ] || fail "no s61-test-<id> entry in /sys/kernel/debug/shrinker"
expect_lockless=0
[ "$api" = new ] && [ "$lockless" = yes ] && expect_lockless=1

mount_ext4 "$ext" || fail "cannot make an ext4 file system"
mounted_ext=1
mkdir -p "$ext/d" "$tmp"
before=$(nr_negative)
make_negative_dentries "$ext/d" $N
made=$(nr_negative)
created=$((made - before))
[ $created -ge $((N * 9 / 10)) ] || fail "only $created of $N negative dentries were created"

# 1. A reclaimer that blocks in our scan.
echo 1 >"$dbg/block"
bg_start reclaim1 drop_slab
reclaim1_pid=$BG_PID
wait_until 20 in_scan || fail "no scan blocked within 20 s (scans: $(cat "$dbg/scans"))"
blocked_neg=$(nr_negative)
echo "reclaimer blocked in scan (scans so far: $(cat "$dbg/scans")); negative dentries: $made made, $blocked_neg now"
[ $((made - blocked_neg)) -lt $((created / 10)) ] ||
	fail "the blocked reclaimer freed the ext4 dentries first: the module's shrinker is not ahead of ext4's on the list (test setup)"

# 2. mount and umount a fresh tmpfs meanwhile.
stalled=0 umount_ms=-1
mounted_tmp=1
bg_start mount mount -t tmpfs s61-ll "$tmp"
bg_wait mount 10
rc=$?
mount_ms=$BG_MS
case $rc in
0)
	mount_desc="mount took ${mount_ms} ms"
	mounted_tmp=2
	bg_start umount umount "$tmp"
	bg_wait umount 10
	rc=$?
	umount_ms=$BG_MS
	case $rc in
	0) mounted_tmp=0; mount_desc="$mount_desc, umount ${umount_ms} ms" ;;
	124) mount_desc="$mount_desc, umount still blocked after 10 s" ;;
	*) mounted_tmp=0; fail "umount $tmp failed ($rc)" ;;
	esac
	[ $mounted_tmp = 0 ] || stalled=1
	;;
124) stalled=1; mount_desc="mount still blocked after 10 s" ;;
*) mounted_tmp=0; fail "mount -t tmpfs failed ($rc)" ;;
esac
# The property is "completes while the scan is held", not a latency bound:
# on base neither completes before the release (below), however long one
# waits, while a loaded or debug (KASAN, lockdep) guest under TCG can take
# seconds for a mount that does not wait for anything.
if [ $stalled = 0 ]; then
	in_scan || fail "the scan was released before the mount and umount finished (test setup)"
	[ "$mount_ms" -lt 1000 ] && [ "$umount_ms" -lt 1000 ] ||
		echo "note: slow ($mount_desc), but both finished while the scan was held"
fi
echo "while blocked: $mount_desc"

# 3. A second reclaimer (still blocked scan, and on base a waiting mount)
#    must reach the ext4 superblock shrinker and free its negative dentries.
made=$blocked_neg
bg_start reclaim2 timeout 15 bash -c 'echo 2 >/proc/sys/vm/drop_caches'
bg_wait reclaim2 20
rc2=$?
reclaim2_ms=$BG_MS
after=$(nr_negative)
freed2=$((made - after))
echo "second reclaimer: rc $rc2 in ${reclaim2_ms} ms, freed $freed2 of $created negative dentries"

# 4. Release the scan; everything must finish now.
problems=()
echo 1 >"$dbg/release"
bg_wait reclaim1 30 || { kill -KILL "$reclaim1_pid" 2>/dev/null; problems+=("the first reclaimer did not finish 30 s after release"); }
reclaim1_pid=
if [ $mounted_tmp = 1 ]; then	# the mount had not finished
	if bg_wait mount 20; then
		mount_ms=$BG_MS
		mount_desc="mount took $((mount_ms / 1000)).$((mount_ms % 1000 / 100)) s (blocked until release)"
		bounded 10 umount "$tmp" && mounted_tmp=0 || problems+=("umount after release did not finish")
		umount_ms=$BG_MS
	else
		problems+=("the mount did not finish 20 s after release")
	fi
elif [ $mounted_tmp = 2 ]; then
	bg_wait umount 20 && mounted_tmp=0 || problems+=("the umount did not finish 20 s after release")
	umount_ms=$BG_MS
fi
scans=$(cat "$dbg/scans")
bounded 20 rmmod s61_shrinker_test && loaded=0 || problems+=("rmmod did not finish in 20 s")
bounded 20 umount "$ext" && mounted_ext=0 || problems+=("umount $ext did not finish in 20 s")

echo "metric mount_ms=$mount_ms umount_ms=$umount_ms second_reclaim_freed=$freed2 created=$created second_reclaim_ms=$reclaim2_ms scans=$scans"
[ ${#problems[@]} = 0 ] || fail "${problems[*]}"

if [ $expect_lockless = 1 ]; then
	[ $stalled = 0 ] || fail "lockless shrink, yet a shrinker blocked in scan stalled registration: $mount_desc"
	[ $freed2 -ge $((created * 8 / 10)) ] ||
		fail "lockless shrink, yet a second reclaimer freed only $freed2 of $created dentries"
	pass "no stall: $mount_desc; the second reclaimer freed $freed2 of $created dentries"
fi
[ $stalled = 1 ] ||
	fail "no lockless shrink (api=$api), yet no stall behind the blocked scan ($mount_desc): the test does not reproduce the old behaviour"
xfail "stall without lockless shrink (api=$api): $mount_desc; the second reclaimer freed $freed2 of $created dentries"
