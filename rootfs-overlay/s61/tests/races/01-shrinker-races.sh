#!/bin/bash
# For a fixed time (s61.race_secs=, default 60), run at the same time: tmpfs
# mount/umount storms, drop_caches, memory.reclaim in several memcgs, memcg
# mkdir/rmdir with charged dentries (nr_deferred reparenting), test-module
# load/unload, reads of every debugfs shrinker "count" and writes of "scan"
# while shrinkers come and go, and stress-ng --ramfs. Every worker must stop
# by itself and have done its work at least once (a count above zero each;
# stress-ng must exit 0 with ramfs bogo ops above zero; every module load
# and unload must succeed); afterwards reclaim must still work. Splats and
# leaks are judged by the host from the console (the init runs a kmemleak
# scan at the end). The test module is required, except on a kernel without
# module support: there the rest runs and the test SKIPs ($S61_NOMOD).
# Broken variant: tests/broken/broken-no-relock-wide.diff (shrink_slab()
# unpinned outside RCU for 10 ms: KASAN use-after-free in shrink_slab); its
# runs: docs/broken-variants.tsv.
. /s61/lib.sh
modules=1
testmod_ready || modules=0
command -v stress-ng >/dev/null || fail "stress-ng is not in the initramfs (qemu/mkinitramfs puts it there)"
trap '[ ! -d /sys/module/s61_shrinker_test ] || rmmod s61_shrinker_test' EXIT
secs=$(cmdline_arg s61.race_secs 60)
end=$(($(date +%s) + secs))
work=/tmp/races
mkdir -p "$work"
mount_ext4 /mnt/race 64 || fail "cannot make an ext4 file system"
mkdir -p /mnt/race/d
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
for i in 1 2 3; do mkdir -p /sys/fs/cgroup/race$i; done

count() { echo $(($(cat "$work/$1" 2>/dev/null || echo 0) + 1)) >"$work/$1"; }

mount_storm() {
	local n=0 m=$work/mnt$1
	mkdir -p "$m"
	while running; do
		mount -t tmpfs race "$m" && touch "$m/f" && umount "$m" && n=$((n + 1))
	done
	echo "$n" >"$work/mounts$1"
}
memcg_reclaim() {
	local n=0 cg=/sys/fs/cgroup/race$1 i=0
	while running; do
		# charge some dentries to this memcg, then reclaim them
		bash -c "echo \$\$ >$cg/cgroup.procs; for ((j = 0; j < 500; j++)); do [ -e /mnt/race/d/r$1-$i-\$j ]; done"
		echo 8M >"$cg/memory.reclaim" 2>/dev/null
		n=$((n + 1)) i=$((i + 1))
	done
	echo "$n" >"$work/reclaims$1"
}
memcg_churn() {
	local n=0 cg
	while running; do
		cg=/sys/fs/cgroup/churn$n
		mkdir "$cg" || break
		bash -c "echo \$\$ >$cg/cgroup.procs; for ((j = 0; j < 300; j++)); do [ -e /mnt/race/d/c$n-\$j ]; done"
		rmdir "$cg" 2>/dev/null || { sleep 0.1; rmdir "$cg"; }
		n=$((n + 1))
	done
	echo "$n" >"$work/memcgs"
}
# Stops at the first load or unload that fails (modules.err says which).
module_churn() {
	local n=0
	while running; do
		insmod "$S61_KO" nr_objects=1000 || { echo "insmod failed (round $((n + 1)))" >"$work/modules.err"; break; }
		rmmod s61_shrinker_test || { echo "rmmod failed (round $((n + 1)))" >"$work/modules.err"; break; }
		n=$((n + 1))
	done
	echo "$n" >"$work/modules"
}
debugfs_poke() {
	local n=0 gone=0 d
	while running; do
		for d in /sys/kernel/debug/shrinker/*; do
			cat "$d/count" >/dev/null 2>&1
			# The entry may be gone by now (its shrinker was freed):
			# that is the race this worker is for. The braces make
			# the shell's own open error go to /dev/null too.
			{ echo "0 0 100" >"$d/scan"; } 2>/dev/null || gone=$((gone + 1))
		done
		n=$((n + 1))
	done
	echo "$n" >"$work/debugfs"
	echo "$gone" >"$work/debugfs_gone"
}
# Its exit status to stress-ng.rc, its ramfs bogo ops (mount/umount cycles,
# from the YAML report) to stress.
stress_ramfs() {
	stress-ng --ramfs 2 --timeout "${secs}s" --quiet --metrics-brief --yaml "$work/stress-ng.yaml" >"$work/stress-ng.log" 2>&1
	echo $? >"$work/stress-ng.rc"
	awk '$1 == "-" && $2 == "stressor:" { s = $3 } s == "ramfs" && $1 == "bogo-ops:" { print $2; exit }' \
		"$work/stress-ng.yaml" >"$work/stress" 2>/dev/null
}

pids=()
mount_storm 1 & pids+=($!)
mount_storm 2 & pids+=($!)
race_drop_caches 0.2 & pids+=($!)
for i in 1 2 3; do memcg_reclaim $i & pids+=($!); done
memcg_churn & pids+=($!)
[ $modules = 0 ] || { module_churn & pids+=($!); }
debugfs_poke & pids+=($!)
stress_ramfs & pids+=($!)

# Every worker checks the clock; allow one minute past the end for the
# slowest step (TCG), then call it a hang.
race_wait_workers $((end + 60)) "${pids[@]}"
c() { race_count "$1"; }
mods=none
[ $modules = 0 ] || mods=$(c modules)
echo "metric secs=$secs mounts=$(($(c mounts1) + $(c mounts2))) drops=$(c drops)" \
	"reclaims=$(($(c reclaims1) + $(c reclaims2) + $(c reclaims3)))" \
	"memcgs=$(c memcgs) modules=$mods debugfs_rounds=$(c debugfs) debugfs_gone=$(c debugfs_gone) stress_ramfs_ops=$(c stress)"
if [ "$(cat "$work/stress-ng.rc" 2>/dev/null)" != 0 ] || [ "$(c stress)" = 0 ]; then
	cat "$work/stress-ng.log"
	fail "stress-ng --ramfs: exit $(cat "$work/stress-ng.rc" 2>/dev/null || echo none), $(c stress) bogo ops (its output above)"
fi
[ ! -s "$work/stress-ng.log" ] || { cat "$work/stress-ng.log"; echo "stress-ng printed the above"; }
[ ! -e "$work/modules.err" ] || fail "module churn: $(cat "$work/modules.err") after $(c modules) load/unload cycles"
workers=(mounts1 mounts2 drops reclaims1 reclaims2 reclaims3 memcgs debugfs)
[ $modules = 0 ] || workers+=(modules)
race_require_counts "${workers[@]}"

# Reclaim still works afterwards.
echo 2 >/proc/sys/vm/drop_caches
before=$(nr_negative)
make_negative_dentries /mnt/race/d 10000
echo 2 >/proc/sys/vm/drop_caches
after=$(nr_negative)
echo "after the race: negative dentries $before -> +10000 -> $after"
[ $((before + 10000 - after)) -ge 9000 ] || fail "drop_caches no longer frees dentries"
umount /mnt/race || fail "umount after the race failed"
for i in 1 2 3; do rmdir /sys/fs/cgroup/race$i; done
[ $modules = 1 ] || skip "$S61_NOMOD; the rest of the race passed without the module churn"
pass
