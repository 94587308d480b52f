#!/bin/bash
# P5: kernel memory of shrinker_info per memcg.
#
# Creating a memcg allocates a shrinker_info per node, sized by the number
# of memcg-aware shrinker ids (shrinker_nr_max, which never shrinks). The
# memory of M memcgs is measured (MemFree before/after the mkdirs: kvmalloc
# may go past the kmalloc caches) twice: with the shrinkers of the boot, and
# after S more memcg-aware shrinkers (S tmpfs mounts, each superblock has
# one). The difference per memcg is what S shrinkers cost each memcg; the
# rest of a memcg's memory cancels out.
. /s61/tests/bench/bench.lib

M=$(barg p5_memcgs 1000) S=$(barg p5_shrinkers 512)
root=$(memcg_create p5) || fail "cannot create the p5 memcg"
echo +memory >"$root/cgroup.subtree_control" || fail "cannot enable memory in $root"
mnt=/mnt/p5

settle() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 2
}

# mkdir M memcgs under $root/$1 (kept); prints the kB of slab they took.
measure() {
	local tag=$1 before after
	settle
	before=$(meminfo_kb SUnreclaim)
	mkdir -p "$root/$tag"
	echo +memory >"$root/$tag/cgroup.subtree_control" || return 1
	s61-bench mkdirs "$root/$tag" 0 "$M" >&2 || return 1
	after=$(meminfo_kb SUnreclaim)
	echo $((after - before))
}

cleanup() {
	s61-bench rmdirs "$root/a" 0 "$M" 2>/dev/null
	s61-bench rmdirs "$root/b" 0 "$M" 2>/dev/null
	s61-bench umounts "$mnt" 0 "$S" 2>/dev/null
}
trap cleanup EXIT

# No memcg is removed in between: freed objects would be reused by the next
# mkdirs and hide part of their cost.
shrinkers_before=$(shrinker_names | wc -l)
kb0=$(measure a) || fail "mkdir of $M memcgs failed"
mkdir -p "$mnt"
s61-bench mounts "$mnt" 0 "$S" || fail "mounting $S tmpfs failed"
shrinkers_after=$(shrinker_names | wc -l)
kb1=$(measure b) || fail "mkdir of $M memcgs failed"
per=$(((kb1 - kb0) * 1024 / M))
echo "memcgs $M: ${kb0} kB of slab with $shrinkers_before shrinkers, ${kb1} kB with $shrinkers_after; $per bytes per memcg for $S more memcg-aware shrinkers"
sample p5 kb_memcgs_boot "$kb0" "\"memcgs\":$M,\"shrinkers\":$shrinkers_before"
sample p5 kb_memcgs_more "$kb1" "\"memcgs\":$M,\"shrinkers\":$shrinkers_after"
sample p5 bytes_per_memcg "$per" "\"memcgs\":$M,\"more_shrinkers\":$S"
pass
