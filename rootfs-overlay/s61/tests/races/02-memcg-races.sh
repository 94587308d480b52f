#!/bin/bash
# The memcg lockless path, raced: shrink_slab_memcg() walking a memcg's
# shrinker map without a lock while memcg-aware shrinkers whose bits are set
# in that map are freed. For s61.memcg_race_secs (default: s61.race_secs,
# at least 180 s unless s61.race_short=1), at the same time:
#  - tenants: child memcgs, each with a worker that mounts a tmpfs and an
#    ext4 (loop) file system, fills them with files and negative dentries
#    charged to the memcg, and unmounts them (every superblock shrinker is
#    memcg-aware, so each umount frees a shrinker whose bit is set);
#  - memory.reclaim of those same memcgs in a loop, and drop_caches (which
#    runs shrink_slab() for every memcg);
#  - the test module's churn (testmod: debugfs "churn"): memcg-aware
#    shrinkers registered and freed in a loop, 8 to 150 at a time (their ids
#    cross the 64-id units of the maps, so shrinker_info expands while
#    memcgs exist), with objects charged to a fresh memcg that is removed
#    (reparented) after every round;
#  - debugfs "scan" writes that name a tenant memcg's inode, to every
#    shrinker, while they come and go.
# Passes when every worker finishes, each having done its work at least
# once (a count above zero), reclaim still works afterwards, and the
# churn counters show that the memcg path called the shrinkers that were
# being freed (memcg_counts > 0). Splats (KASAN, lockdep, RCU) and leaks
# are judged by the host from the console.
# Seen to fail by its own assertion: on no kernel defect yet (no count it
# reads shows an unpinned or a freed shrinker called). The race is what the
# splat scan catches these variants by (docs/testing.md, "splat scan:";
# tests/broken/, each "# fails: splat"; record in docs/broken-variants.tsv):
# memcg-no-tryget-race, a core whose shrink_slab_memcg() calls a shrinker
# without shrinker_try_get(): KASAN use-after-free or "BUG: kernel NULL
# pointer dereference", and the guest dies before this test reports;
# free-without-rcu: "BUG: KASAN: use-after-free in shrink_slab_memcg",
# this test passing.
. /s61/lib.sh
secs=$(cmdline_arg s61.memcg_race_secs)
if [ -z "$secs" ]; then
	secs=$(cmdline_arg s61.race_secs 60)
	[ "$(cmdline_arg s61.race_short)" = 1 ] || [ "$secs" -ge 180 ] || secs=180
fi
# Without module support (only there may the .ko be missing): SKIP.
testmod_ready || skip "$S61_NOMOD"
grep -qw memory /sys/fs/cgroup/cgroup.controllers || fail "no memory controller in cgroup v2"
insmod "$S61_KO" nr_objects=0 || fail "cannot load the test module"
tm=/sys/kernel/debug/s61_shrinker_test
trap 'rmmod s61_shrinker_test 2>/dev/null' EXIT
# Before the "api" branch the test module has no shrinker_alloc() to churn
# with; qemu/expected allows this SKIP there and nowhere else.
[ "$(cat $tm/api)" = new ] || skip "the test module was built for the old shrinker API: no churn"
[ -w $tm/churn ] || fail "the test module has no churn file"

work=/tmp/memcg-races
mkdir -p "$work"
tenants=3
# One ext4 image per tenant (one more for the check afterwards): an image
# mounted twice at once would be two file systems writing one disk.
for i in $(seq 0 $tenants); do
	dd if=/dev/zero of="$work/ext4-$i.img" bs=1M count=16 status=none || fail "no room for an ext4 image"
	mkfs.ext4 -q -F "$work/ext4-$i.img" || fail "mkfs.ext4 failed"
done
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
for i in $(seq $tenants); do mkdir -p "/sys/fs/cgroup/tenant$i"; done
end=$(($(date +%s) + secs))
export end work

# In tenant memcg $1: mount, fill, umount, until the end.
tenant_fs() {
	local i=$1 n=0 t=$work/t$1 e=$work/e$1 j
	mkdir -p "$t" "$e"
	while running; do
		mount -t tmpfs "tenant$i" "$t" || break
		mount -o loop "$work/ext4-$i.img" "$e" || { umount "$t"; break; }
		mkdir -p "$t/d" "$e/d"
		for ((j = 0; j < 100; j++)); do : >"$t/d/f$j"; done
		s61-negdent "$e/d" 2000
		s61-negdent "$t/d" 500
		umount "$t" || break
		umount "$e" || break
		n=$((n + 1))
	done
	echo "$n" >"$work/fs$i"
}
export -f tenant_fs

tenant_reclaim() {
	local n=0 cg=/sys/fs/cgroup/tenant$1
	while running; do
		echo 4M >"$cg/memory.reclaim" 2>/dev/null
		n=$((n + 1))
	done
	echo "$n" >"$work/reclaims$1"
}
# Churn rounds, each in a fresh memcg that is reclaimed while the round runs
# and removed afterwards: the tmpfs files it made stay, charged, and their
# dentries and inodes move to the parent's lists (reparenting).
churn() {
	local n=0 w cg pid widths=(8 80 150 24)
	while running; do
		cg=/sys/fs/cgroup/churn$1-$n
		mkdir "$cg" || break
		w=${widths[$((n % ${#widths[@]}))]}
		# (The memcg may go between the test and the write: quietly.)
		( while [ -d "$cg" ]; do { echo 2M >"$cg/memory.reclaim"; } 2>/dev/null; done ) &
		pid=$!
		bash -c "echo \$\$ >$cg/cgroup.procs && mkdir -p $work/cr$1-$n && for j in \$(seq 50); do : >$work/cr$1-$n/f\$j; done && echo '4 $w 16 20' >$tm/churn" ||
			{ echo "churn round $n (width $w) failed" >"$work/churn$1.err"; }
		rmdir "$cg" 2>/dev/null || { sleep 0.2; rmdir "$cg"; }
		wait "$pid"
		n=$((n + 1))
	done
	echo "$n" >"$work/churn$1"
}
# debugfs: scan every shrinker in a tenant memcg (memcg-aware ones need the
# memcg's inode, the others 0). The count files of the churn shrinkers are
# left alone: a count there would be counted as the memcg path's.
debugfs_scan() {
	local n=0 gone=0 d ino
	local inos=()
	for i in $(seq $tenants); do inos+=("$(stat -c %i "/sys/fs/cgroup/tenant$i")"); done
	while running; do
		for d in /sys/kernel/debug/shrinker/*; do
			ino=${inos[$((RANDOM % ${#inos[@]}))]}
			case ${d##*/} in s61-churn-*) ;; *) cat "$d/count" >/dev/null 2>&1 ;; esac
			{ echo "$ino 0 64" >"$d/scan"; } 2>/dev/null ||
				{ echo "0 0 64" >"$d/scan"; } 2>/dev/null || gone=$((gone + 1))
		done
		n=$((n + 1))
	done
	echo "$n $gone" >"$work/debugfs"
}

pids=()
for i in $(seq $tenants); do
	in_memcg "/sys/fs/cgroup/tenant$i" tenant_fs "$i" & pids+=($!)
	tenant_reclaim "$i" & pids+=($!)
done
race_drop_caches 0.5 & pids+=($!)
churn 1 & pids+=($!)
churn 2 & pids+=($!)
debugfs_scan & pids+=($!)

# Allow two minutes past the end for the slowest step under TCG and the
# debug checks, then call it a hang.
race_wait_workers $((end + 120)) "${pids[@]}"
sum() { local f s=0; for f in "$@"; do s=$((s + $(cat "$f" 2>/dev/null || echo 0))); done; echo $s; }
stats=$(cat $tm/churn_stats)
read -r rounds gone <"$work/debugfs"
echo "metric secs=$secs umount_pairs=$(sum "$work"/fs?) reclaims=$(sum "$work"/reclaims?)" \
	"drops=$(cat "$work/drops") churn_memcgs=$(sum "$work"/churn?) debugfs_rounds=$rounds debugfs_gone=$gone"
echo "churn $stats"
cat "$work"/churn?.err 2>/dev/null && fail "a churn round failed"
val() { echo "$stats" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# Every worker did its work at least once (a tenant's first round, for one).
workers=(drops churn1 churn2)
for i in $(seq $tenants); do workers+=("fs$i" "reclaims$i"); done
race_require_counts "${workers[@]}"
[ "${rounds:-0}" -gt 0 ] || fail "the debugfs worker finished no round over the shrinkers"
[ "$(val cycles)" -gt 0 ] || fail "no churn round completed"
[ "$(val memcg_counts)" -gt 0 ] ||
	fail "the memcg path never called a churn shrinker: the race did not happen"
# Calls that reached a shrinker whose owner had started shrinker_free():
# the overlap itself. 46 in the first 180 s run; a short run may see none.
[ "$(cmdline_arg s61.race_short)" = 1 ] || [ "$(val counts_while_freeing)" -gt 0 ] ||
	fail "no memcg-path call overlapped a shrinker_free() in ${secs}s"

# Reclaim still works afterwards, through the memcg path too.
rmdir /sys/fs/cgroup/tenant* /sys/fs/cgroup/churn* 2>/dev/null
rm -rf "$work"/cr*
cg=$(memcg_create after) || fail "cannot make a memcg"
mkdir -p /mnt/after
mount -o loop "$work/ext4-0.img" /mnt/after || fail "cannot mount ext4"
mkdir -p /mnt/after/d
before=$(nr_negative)
in_memcg "$cg" s61-negdent /mnt/after/d 10000 || fail "s61-negdent failed"
made=$(nr_negative)
memcg_try_reclaim "$cg" 3
after=$(nr_negative)
echo "after the race: negative dentries $before -> $made -> $after (memory.reclaim of the memcg)"
umount /mnt/after
rmdir "$cg"
[ $((made - before)) -ge 9000 ] || fail "s61-negdent made $((made - before)) negative dentries, not 10000"
[ $((made - after)) -ge 9000 ] || fail "memory.reclaim no longer frees the memcg's dentries"
pass
