#!/bin/bash
# P4: the cost of memcg slab shrinking with many memcgs (the scenario of
# the upstream cover letter, scaled to the guest): M memcgs, each with a
# tmpfs mount (a memcg-aware superblock shrinker) and a 1 MiB file written
# from inside the memcg. Then full reclaim passes over the hierarchy:
# drop_caches (shrink_slab() for every memcg) and memory.reclaim of the
# parent memcg, timed; and a CPU profile (perf, software cpu-clock event)
# of the guest kernel during repeated passes: the share of the rwsem
# operations (down_read_trylock, up_read) against shrink_slab.
. /s61/tests/bench/bench.lib

if [ "$QUICK" = 1 ]; then M=$(barg p4_memcgs 200) passes=$(barg p4_passes 3) psecs=$(barg p4_profile_secs 5)
else M=$(barg p4_memcgs 1000) passes=$(barg p4_passes 5) psecs=$(barg p4_profile_secs 10); fi
root=$(memcg_create p4) || fail "cannot create the p4 memcg"
echo +memory >"$root/cgroup.subtree_control" || fail "cannot enable memory in $root"
mnt=/mnt/p4

# Each memcg: its tmpfs, and a 1 MiB file written from inside the memcg.
t0=$(now_us)
mkdir -p "$mnt"
s61-bench memcg-tmpfs "$root" "$mnt" 0 "$M" 1024 || fail "setting up the memcgs failed"
t1=$(now_us)
echo "$M memcgs, each with a tmpfs mount and a 1 MiB file, set up in $(ms_between "$t0" "$t1") ms"
sample p4 setup_ms "$(ms_between "$t0" "$t1")" "\"memcgs\":$M"
sample p4 shrinkers "$(shrinker_names | wc -l)"

# What a pass does, to tell a slower walk from more work: objects the
# shrinkers were asked to scan (vmstat slabs_scanned), pages scanned, and
# the reclaimable slab of the p4 memcgs before and after.
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
slab_kb() { awk '$1 == "slab_reclaimable" { print int($2 / 1024) }' "$root/memory.stat"; }
for ((p = 1; p <= passes; p++)); do
	t0=$(now_us)
	echo 2 >/proc/sys/vm/drop_caches
	t1=$(now_us)
	ss0=$(vmstat slabs_scanned) ps0=$(vmstat pgscan_direct) sl0=$(slab_kb)
	echo 1G >"$root/memory.reclaim" 2>/dev/null
	t2=$(now_us)
	ss1=$(vmstat slabs_scanned) ps1=$(vmstat pgscan_direct) sl1=$(slab_kb)
	sample p4 drop_caches_ms "$(ms_between "$t0" "$t1")" "\"pass\":$p,\"memcgs\":$M"
	sample p4 memcg_reclaim_ms "$(ms_between "$t1" "$t2")" "\"pass\":$p,\"memcgs\":$M"
	sample p4 reclaim_slabs_scanned $((ss1 - ss0)) "\"pass\":$p"
	sample p4 reclaim_pgscan $((ps1 - ps0)) "\"pass\":$p"
	sample p4 reclaim_slab_kb_before "$sl0" "\"pass\":$p"
	sample p4 reclaim_slab_kb_after "$sl1" "\"pass\":$p"
	echo "pass $p: drop_caches $(ms_between "$t0" "$t1") ms, memory.reclaim of the parent $(ms_between "$t1" "$t2") ms" \
		"(slab objects scanned $((ss1 - ss0)), pages scanned $((ps1 - ps0)), reclaimable slab ${sl0} -> ${sl1} KiB)"
done

# The profile: whole system, software clock, kernel call chains.
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
cat >/tmp/p4-load.sh <<EOS
end=\$((SECONDS + $psecs))
while [ \$SECONDS -lt \$end ]; do
	echo 2 >/proc/sys/vm/drop_caches
	echo 1G >$root/memory.reclaim 2>/dev/null
done
exit 0
EOS
perf record -q -N -a -g -e cpu-clock -F 1000 -o /tmp/p4.data -- bash /tmp/p4-load.sh \
	>/tmp/p4-perf.log 2>&1
rc=$?
[ -s /tmp/p4.data ] || { cat /tmp/p4-perf.log; fail "perf record failed ($rc): no /tmp/p4.data"; }
perf report -i /tmp/p4.data --stdio --no-children --sort sym --percent-limit 0.3 -g none \
	2>/dev/null | grep '%' | grep -v '^#' | head -25 >/tmp/p4-report.txt
[ -s /tmp/p4-report.txt ] || fail "perf report printed no symbols"
echo "perf report (self, top symbols):"
cat /tmp/p4-report.txt
# "  12.34%  [k] down_read_trylock" -> share of that symbol.
self_pct() {
	awk -v s="$1" '$3 == s { gsub("%", "", $1); p += $1 } END { printf "%.2f", p + 0 }' /tmp/p4-report.txt
}
for s in down_read_trylock up_read shrink_slab shrink_slab_memcg do_shrink_slab; do
	sample p4 "pct_$s" "$(self_pct "$s")"
done
# Samples whose leaf is an rwsem operation called from the slab shrink path
# (shrink_slab() and shrink_slab_memcg() are static and inlined into
# shrink_node() and drop_slab_node(), so those count as callers too), and
# samples with do_shrink_slab()/shrink_slab*() anywhere on the stack.
perf script -i /tmp/p4.data -F ip,sym 2>/dev/null | awk '
	/^$/ { if (n) { tot++; if (rw == 2) rws++; if (sh) shs++ } n = 0; rw = 0; sh = 0; next }
	{ n++; if (n == 1 && ($2 == "down_read_trylock" || $2 == "up_read")) rw = 1
	  if (n == 2 && rw == 1 && $2 ~ /^(shrink_slab|shrink_slab_memcg|do_shrink_slab|shrink_node|drop_slab_node|drop_slab)$/) rw = 2
	  if ($2 ~ /^(shrink_slab|shrink_slab_memcg|do_shrink_slab)$/) sh = 1 }
	END { if (n) { tot++; if (rw == 2) rws++; if (sh) shs++ }
	      printf "%d %d %d\n", tot, rws, shs }' >/tmp/p4-chains.txt
read -r tot rws shs </tmp/p4-chains.txt
[ "$(barg p4_debug 0)" = 0 ] || perf script -i /tmp/p4.data -F ip,sym 2>/dev/null | grep -B3 -A8 -m3 'down_read_trylock' 
# s61.bench_p4_symoff=1: where in the slab shrink walk the samples fall
# (symbol+offset; tools/bench-symoff maps them to source lines on the host).
if [ "$(barg p4_symoff 0)" = 1 ]; then
	echo "samples by symbol+offset in shrink_slab*, do_shrink_slab, shrink_node:"
	perf script -i /tmp/p4.data -F ip,sym,symoff -G 2>/dev/null |
		awk 'NF >= 2 && $2 ~ /^(shrink_slab|shrink_slab_memcg|do_shrink_slab|shrink_node|_find_next_bit)\+/ { c[$2]++ }
		     END { for (k in c) print c[k], k }' | sort -rn | head -40 | sed 's/^/symoff /'
fi
echo "call chains: $tot samples, $rws with down_read_trylock/up_read called from the slab shrink path, $shs with do_shrink_slab/shrink_slab* on the stack"
sample p4 profile_samples "${tot:-0}"
sample p4 pct_rwsem_in_shrink "$(awk -v a="${rws:-0}" -v t="${tot:-0}" 'BEGIN { printf "%.2f", t ? 100 * a / t : 0 }')"
sample p4 pct_shrink_on_stack "$(awk -v a="${shs:-0}" -v t="${tot:-0}" 'BEGIN { printf "%.2f", t ? 100 * a / t : 0 }')"
top=$(awk 'NR <= 12 { gsub("%", "", $1); printf "%s[\"%s\",%s]", (NR > 1 ? "," : ""), $3, $1 }' /tmp/p4-report.txt)
sample p4 profile_top 0 "\"top\":[$top]"
pass
