#!/bin/bash
# P1: registration latency while a shrinker is blocked in its scan callback.
#
# The test module's shrinker (testmod/, block=1) holds the first reclaimer
# inside scan_objects() for a fixed hold time (s61.bench_hold, default 2 s).
# Meanwhile one operation that registers or unregisters a shrinker is timed:
# a tmpfs mount, its umount, loading and unloading a second module with a
# shrinker (s61_shrinker_aux, the test module under another name). On 6.1
# each waits in down_write(&shrinker_rwsem) behind the reader until the hold
# ends; with the lockless shrink it does not wait. In the mount's hold a
# second reclaimer (drop_caches) also runs while the mount is in flight: on
# 6.1 its down_read_trylock() fails behind the waiting writer and it frees
# nothing; the negative ext4 dentries it frees are counted.
. /s61/tests/bench/bench.lib

hold=$(barg hold 2)
if [ "$QUICK" = 1 ]; then rounds=$(barg p1_samples 2); else rounds=$(barg p1_samples 3); fi
N=$(barg p1_dentries 20000)
ko=/s61/modules/s61_shrinker_test.ko
ko2=/s61/modules/s61_shrinker_aux.ko
dbg=/sys/kernel/debug/s61_shrinker_test
ext=/mnt/p1-ext4
tmp=/mnt/p1-tmpfs

[ -f "$ko" ] || fail "no test module in the initramfs (tools/build/testmod.sh did not build it)"
[ -f "$ko2" ] || fail "no $ko2 in the initramfs (tools/bench/bench.sh builds it)"

loaded=0 ext_mounted=0
cleanup() {
	[ $loaded = 1 ] || return
	echo 1 >"$dbg/release" 2>/dev/null
	bg_wait reclaim1 20
	bg_wait op 20
	mountpoint -q "$tmp" && bounded 10 umount "$tmp"
	[ -d /sys/module/s61_shrinker_aux ] && bounded 10 rmmod s61_shrinker_aux
	bounded 20 rmmod s61_shrinker_test
	[ $ext_mounted = 0 ] || bounded 10 umount "$ext"
	rm -f "/tmp/ext4-$$.img"
}
trap cleanup EXIT

# The module first, then ext4, so that its shrinkers sit behind the
# module's on the list (the blocked reclaimer does not reach them).
insmod "$ko" nr_objects=100000 block=0 || fail "insmod $ko failed"
loaded=1
echo "module: api=$(cat "$dbg/api") lockless=$(cat "$dbg/lockless") hold=${hold}s samples=$rounds"
mount_ext4 "$ext" 64 || fail "cannot make an ext4 file system"
ext_mounted=1
mkdir -p "$tmp"

in_scan() {
	[ "$(cat "$dbg/in_scan")" = 1 ]
}

# One system call, timed by s61-bench around the call alone (a fork and
# exec cost tens of ms under TCG); its milliseconds go to /tmp/p1-op.ms.
timed_op() {
	s61-bench timed "$@" >/tmp/p1-op.ms
}

# hold_op OP ARGS...: block a reclaimer in the module's scan, run
# "s61-bench timed OP ARGS..." while it is held, release at the end of the
# hold time. Sets OP_MS (the system call's time), and for OP=mount
# FREED2/MADE2/MS2 (the second reclaimer).
hold_op() {
	local op=$1 t_block deadline rc
	echo 100000 >"$dbg/nr_objects"
	echo 1 >"$dbg/block"
	bg_start reclaim1 bash -c 'echo 2 >/proc/sys/vm/drop_caches'
	wait_until 20 in_scan || fail "no scan blocked within 20 s (scans: $(cat "$dbg/scans"))"
	t_block=$(now_us)
	deadline=$((t_block + hold * 1000000))
	rm -f /tmp/p1-op.ms
	bg_start op timed_op "$@"
	if [ "$op" = mount ]; then
		# The second reclaimer, while the mount is in flight (on 6.1 it
		# waits for the rwsem): how many negative dentries does it free?
		sleep 0.2
		MADE2=$(nr_negative)
		bg_start reclaim2 timeout 15 bash -c 'echo 2 >/proc/sys/vm/drop_caches'
		bg_wait reclaim2 20
		MS2=$BG_MS
		FREED2=$((MADE2 - $(nr_negative)))
	fi
	# Whatever the operation did, the hold lasts its full time.
	while [ "$(now_us)" -lt "$deadline" ]; do
		sleep 0.05
	done
	echo 1 >"$dbg/release"
	bg_wait reclaim1 30 || fail "the first reclaimer did not finish 30 s after release"
	bg_wait op 30
	rc=$?
	[ $rc = 0 ] || fail "$op failed or hung after release ($rc)"
	OP_MS=$(cat /tmp/p1-op.ms)
}

for ((r = 1; r <= rounds; r++)); do
	mkdir -p "$ext/d$r"
	s61-bench negdentries "$ext/d$r" "$N" || fail "cannot make $N negative dentries"
	hold_op mount "p1-$r" "$tmp" tmpfs
	mount_ms=$OP_MS
	hold_op umount "$tmp"
	umount_ms=$OP_MS
	hold_op insmod "$ko2" nr_objects=0
	insmod_ms=$OP_MS
	hold_op rmmod s61_shrinker_aux
	rmmod_ms=$OP_MS
	echo "sample $r: mount ${mount_ms} ms, umount ${umount_ms} ms, insmod ${insmod_ms} ms, rmmod ${rmmod_ms} ms; second reclaimer freed $FREED2 of $N dentries in ${MS2} ms"
	sample p1 mount_ms "$mount_ms"
	sample p1 umount_ms "$umount_ms"
	sample p1 insmod_ms "$insmod_ms"
	sample p1 rmmod_ms "$rmmod_ms"
	sample p1 second_freed "$FREED2" "\"made\":$N,\"ms\":$MS2"
done
sample p1 hold_ms $((hold * 1000))
pass
