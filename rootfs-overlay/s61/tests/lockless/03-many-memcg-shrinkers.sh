#!/bin/bash
# Memcg shrinker ids past 128: with 3 memcgs in place, 140 tmpfs mounts each
# register a memcg-aware superblock shrinker, so the shrinker id space grows
# and every memcg's shrinker_info is expanded across three 64-id units. An
# ext4 mounted last gets the highest id; negative dentries made on it from
# inside one memcg must be freed by that memcg's memory.reclaim, i.e. the
# memcg's map bit in the third unit is set and found. Passes on base too
# (a regression test). Broken variant: tests/broken/broken-expand-root-only.diff
# (expansion skips the memcgs that exist); its runs: docs/broken-variants.tsv.
. /s61/lib.sh

N=20000
M=140
top=/mnt/many
ext=$top/ext4

cgs=()
# Mount points under $top, from /proc/mounts.
our_mounts() {
	awk -v t="$top/" 'index($2, t) == 1 { print $2 }' /proc/mounts
}
umount_all() {
	local m
	for m in $(our_mounts); do
		umount "$m" || return 1
	done
}
cleanup() {
	local c
	bounded 300 umount_all || echo "cleanup: umount failed or hung; left: $(our_mounts | wc -l) mounts"
	rm -f "/tmp/ext4-$$.img"	# mount_ext4's image
	for c in "${cgs[@]}"; do
		rmdir "$c" 2>/dev/null || echo "cleanup: rmdir $c failed"
	done
}
trap cleanup EXIT

for i in 1 2 3; do
	cg=$(memcg_create "lockless-many-$i") || fail "cannot create memcg $i"
	cgs+=("$cg")
done
cg=${cgs[1]}

dirs=()
for ((i = 0; i < M; i++)); do
	dirs+=("$top/t$i")
done
mkdir -p "${dirs[@]}" || fail "mkdir failed"
mount_all() {
	local d
	for d in "${dirs[@]}"; do
		mount -t tmpfs s61-many "$d" || return 1
	done
}
bounded 300 mount_all || fail "mounting $M tmpfs failed or took over 300 s ($(our_mounts | wc -l) mounted)"
echo "$M tmpfs mounts in ${BG_MS} ms; sb-tmpfs shrinkers: $(shrinker_count sb-tmpfs), all shrinkers: $(shrinker_names | wc -l)"

old_ext4=$(shrinker_names | grep -c '^sb-ext4:')
declare -A seen=()
for d in /sys/kernel/debug/shrinker/sb-ext4:*; do
	[ -d "$d" ] && seen[$d]=1
done
mount_ext4 "$ext" || fail "cannot make an ext4 file system"
mkdir "$ext/d"
sdir=
for d in /sys/kernel/debug/shrinker/sb-ext4:*; do
	[ -d "$d" ] && [ -z "${seen[$d]:-}" ] && sdir=$d
done
if [ -z "$sdir" ]; then
	grep " $ext " /proc/mounts
	find /sys/kernel/debug/shrinker -maxdepth 1 ! -name 'sb-tmpfs-*' | sort
	fail "no new sb-ext4:<dev>-<id> shrinker in debugfs (there were $old_ext4)"
fi
id=${sdir##*-}
echo "ext4 superblock shrinker: ${sdir##*/} (debugfs id $id)"
# Ids are handed out lowest-free-first, and the 140 mounts did not free any:
# the ext4 shrinker's memcg id, like its debugfs id, is at least 140.
[ "$id" -gt 128 ] || fail "debugfs id $id <= 128: the ids did not grow past two map units"

before=$(nr_negative)
in_memcg "$cg" make_negative_dentries "$ext/d" $N || fail "cannot create dentries from the memcg"
made=$(nr_negative)
created=$((made - before))
ino=$(stat -c %i "$cg")
echo "negative dentries created in ${cg##*/}: $created; shrinker count for it: $(awk -v i="$ino" '$1 == i { print $2 }' "$sdir/count")"
[ $created -ge $((N * 9 / 10)) ] || fail "only $created of $N negative dentries were created"

after=$made
for round in 1 2 3 4 5; do
	bounded 20 memcg_try_reclaim "$cg" || fail "memory.reclaim did not finish in 20 s"
	after=$(nr_negative)
	echo "memory.reclaim round $round (${BG_MS} ms): negative dentries $after"
	[ $((made - after)) -lt $((created * 8 / 10)) ] || break
done
freed=$((made - after))
echo "metric shrinker_debugfs_id=$id created=$created memcg_reclaim_freed=$freed"
[ $freed -ge $((created * 8 / 10)) ] ||
	fail "memory.reclaim freed only $freed of $created dentries behind shrinker id >= $id"
pass
