#!/bin/bash
# P3: reclaim under registration churn. Negative ext4 dentries (memcg
# charged slab) are made in K memcgs; then, while stress-ng --ramfs mounts
# and unmounts ramfs (shrinker registration) on every vCPU, each memcg is
# reclaimed through memory.reclaim and finally the whole machine through
# drop_caches. Reported: dentries (slab) freed and latency of each reclaim,
# and how many memcg reclaims freed (almost) nothing although the memcg had
# dentries to free ("skipped": on 6.1 shrink_slab_memcg() gives up when the
# shrinker_rwsem trylock fails behind a mount).
. /s61/tests/bench/bench.lib

if [ "$QUICK" = 1 ]; then K=$(barg p3_memcgs 2) N=$(barg p3_dentries 5000) passes=$(barg p3_passes 2)
else K=$(barg p3_memcgs 4) N=$(barg p3_dentries 10000) passes=$(barg p3_passes 3); fi
ext=/mnt/p3-ext4
root=$(memcg_create p3) || fail "cannot create the p3 memcg"
echo +memory >"$root/cgroup.subtree_control" || fail "cannot enable memory in $root"

spid=
cleanup() {
	[ -z "$spid" ] || { kill "$spid" 2>/dev/null; wait "$spid"; }
	umount "$ext" 2>/dev/null
	rm -f "/tmp/ext4-$$.img"
}
trap cleanup EXIT
mount_ext4 "$ext" 64 || fail "cannot make an ext4 file system"
for ((i = 0; i < K; i++)); do
	mkdir -p "$root/m$i" "$ext/m$i"
done

skipped=0 reclaims=0
for ((p = 1; p <= passes; p++)); do
	for ((i = 0; i < K; i++)); do
		mkdir -p "$ext/m$i/p$p"
		s61-bench negdentries "$ext/m$i/p$p" "$N" "$root/m$i" || fail "cannot make negative dentries in memcg m$i"
	done
	(cd /tmp && exec stress-ng --ramfs "$(nproc)" --timeout 600s --quiet) >/tmp/p3-stress.log 2>&1 &
	spid=$!
	sleep 1
	pass_freed=0
	for ((i = 0; i < K; i++)); do
		cg=$root/m$i
		# memory.stat is flushed lazily: count the negative dentries instead
		# (only this memcg's are reclaimed here). Ask for far more than the
		# memcg has, so that reclaim goes down to priority 0 (it ends with
		# EAGAIN when nothing is left).
		before=$(nr_negative)
		t0=$(now_us)
		echo 64M >"$cg/memory.reclaim" 2>/dev/null
		t1=$(now_us)
		freed=$((before - $(nr_negative)))
		ms=$(ms_between "$t0" "$t1")
		reclaims=$((reclaims + 1))
		sk=0
		[ $freed -ge $((N / 10)) ] || { sk=1; skipped=$((skipped + 1)); }
		pass_freed=$((pass_freed + freed))
		sample p3 memcg_reclaim_ms "$ms" "\"pass\":$p,\"memcg\":$i"
		sample p3 memcg_freed_dentries "$freed" "\"pass\":$p,\"memcg\":$i,\"made\":$N,\"skipped\":$sk"
	done
	sample p3 pass_freed_dentries "$pass_freed" "\"pass\":$p,\"made\":$((K * N))"
	# Then the global pass, still under churn.
	neg=$(nr_negative)
	t0=$(now_us)
	echo 2 >/proc/sys/vm/drop_caches
	t1=$(now_us)
	dfreed=$((neg - $(nr_negative)))
	sample p3 drop_caches_ms "$(ms_between "$t0" "$t1")" "\"pass\":$p"
	sample p3 drop_caches_freed_dentries "$dfreed" "\"pass\":$p,\"negative_before\":$neg"
	kill "$spid"
	wait "$spid"
	spid=
	echo "pass $p: memcg reclaims freed $pass_freed of $((K * N)) negative dentries; then drop_caches freed $dfreed of $neg"
done
sample p3 skipped "$skipped" "\"reclaims\":$reclaims"
echo "$skipped of $reclaims memcg reclaims freed less than 10% of the memcg's $N negative dentries"
pass
