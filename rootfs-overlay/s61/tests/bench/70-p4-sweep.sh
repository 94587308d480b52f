#!/bin/bash
# P4 at scale and P6 (issue #16): the upstream cover letter's scenario,
# cgroup v2, swept over the number of memcgs N (s61.bench_p4s_ns, default
# 250,500,1000,2000,4000; QUICK 100,200). The memcgs are added step by step
# under one parent, p4s: each gets a tmpfs mount with a small file charged
# to it (do_create/do_mount of the cover letter: N memcg-aware superblock
# shrinkers), and a directory on one shared ext4 file system. At each N:
#
# - the write phase (do_touch): WRITERS processes at once write a file of
#   TOTAL/N into every memcg's ext4 directory, each from inside that memcg,
#   while the parent's memory.max is its usage plus HEADROOM: every charge
#   beyond it is memcg limit reclaim of p4s, which walks all N memcgs and
#   runs shrink_slab() for each. Measured: the wall time of the phase, the
#   latency of the writers' write() calls, the parent's limit events,
#   pages scanned and stolen, slab objects scanned, reclaimable slab before
#   and after, and a CPU profile (perf, cpu-clock) with the self shares of
#   the rwsem, RCU, bitmap and shrink_slab functions;
# - P6, at the same time: a process in another memcg, outside p4s, mounts
#   and unmounts a tmpfs in a loop (container start and stop), each call
#   timed: the registration latency that memcg reclaim imposes. Its idle
#   latency (2 s before the writers start) is recorded too;
# - after the phase, timed memory.reclaim passes of the parent (the cost of
#   one walk over the N memcgs).
#
# When a step cannot be set up (mount or mkdir fails, memory runs out), the
# sweep stops there and says so in a "skipped" sample for each N not done.
# make bench-sweep runs it in boots of its own (tools/bench/bench.sh --only
# 70-p4-sweep): the memcgs and mounts of the other bench tests would add to
# the walk (the "shrinkers" sample counts what is registered at each N).
#
# A whole sweep takes minutes per boot, so it runs in `make bench-sweep`
# (s61.bench_p4s=1), and in QUICK runs with two small N; a full
# `make bench` skips it.
. /s61/tests/bench/bench.lib

[ "$QUICK" = 1 ] || [ "$(barg p4s 0)" = 1 ] ||
	skip "the P4-at-scale sweep runs in make bench-sweep (s61.bench_p4s=1) and QUICK runs"
if [ "$QUICK" = 1 ]; then
	ns=$(barg p4s_ns 100,200) total=$(barg p4s_total_mb 64)
else
	ns=$(barg p4s_ns 250,500,1000,2000,4000) total=$(barg p4s_total_mb 256)
fi
headroom=$(barg p4s_headroom_mb 32) writers=$(barg p4s_writers 64)
passes=$(barg p4s_passes 3) profile=$(barg p4s_profile 1) freq=$(barg p4s_freq 250)
p6=$(barg p4s_p6 1)

root=$(memcg_create p4s) || fail "cannot create the p4s memcg"
echo +memory >"$root/cgroup.subtree_control" || fail "cannot enable memory in $root"
other=$(memcg_create p6) || fail "cannot create the p6 memcg"
mnt=/mnt/p4s ext=/mnt/p4s-ext p6dir=/mnt/p6
mkdir -p "$mnt" "$p6dir"
mount_ext4 "$ext" $((total + 96)) || fail "cannot make the shared ext4 file system"
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid

vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
mstat() { memcg_stat "$root" "$1"; }
events_max() { awk '$1 == "max" { print $2 }' "$root/memory.events"; }
# "name value" lines of a s61-bench output file as samples of workload $1.
samples_of() {
	local w=$1 file=$2 n=$3 k v rest
	while read -r k v rest; do
		case $k in
		*_dist) sample "$w" "$k" "$(wc -w <<<"$v $rest")" \
			"\"n\":$n,\"ms\":[$(tr ' ' ',' <<<"$v${rest:+ $rest}")]" ;;
		writes) ;;
		*) sample "$w" "$k" "$v" "\"n\":$n" ;;
		esac
	done <"$file"
}
# P6's mount loop in the p6 memcg, in the background; its pid in $p6pid.
p6_start() {
	(echo "$BASHPID" >"$other/cgroup.procs" && exec s61-bench mount-loop "$p6dir") >"$1" &
	p6pid=$!
}
p6_stop() {
	kill -TERM "$p6pid" 2>/dev/null
	wait "$p6pid" || fail "the P6 mount loop failed: $(cat "$1")"
}

IFS=, read -r -a steps <<<"$ns"
have=0 stopped=''
for n in "${steps[@]}"; do
	case $n in ''|*[!0-9]*) fail "s61.bench_p4s_ns: '$n' is not a number" ;; esac
	if [ -n "$stopped" ]; then
		sample p4s skipped "$n" "\"n\":$n,\"why\":\"$stopped\""
		continue
	fi
	# Grow to n memcgs: tmpfs + small file (memcg-tmpfs), ext4 directory.
	t0=$(now_us)
	if [ "$n" -gt "$have" ]; then
		if ! s61-bench memcg-tmpfs "$root" "$mnt" "$have" "$n" 4 >/tmp/p4s-setup.log 2>&1 ||
			! s61-bench mkdirs "$ext" "$have" "$n" >>/tmp/p4s-setup.log 2>&1; then
			stopped="setting up $n memcgs failed: $(tail -1 /tmp/p4s-setup.log)"
			echo "P4 at scale: $stopped; MemAvailable $(meminfo_kb MemAvailable) kB"
			sample p4s skipped "$n" "\"n\":$n,\"why\":\"$stopped\""
			continue
		fi
		have=$n
	fi
	t1=$(now_us)
	sample p4s setup_ms "$(ms_between "$t0" "$t1")" "\"n\":$n"
	sample p4s shrinkers "$(shrinker_names | wc -l)" "\"n\":$n"

	# The same start for every N: no dirty or cached data of the last step.
	sync
	echo 3 >/proc/sys/vm/drop_caches
	kb=$((total * 1024 / n))
	cur=$(cat "$root/memory.current")
	echo $((cur + headroom * 1024 * 1024)) >"$root/memory.max" || fail "cannot set $root/memory.max"

	if [ "$p6" = 1 ]; then
		p6_start /tmp/p6-idle.txt
		sleep 2
		p6_stop /tmp/p6-idle.txt
		awk '$1 ~ /_p50_ms$|_p99_ms$/ { print "idle_" $1, $2 }' /tmp/p6-idle.txt >/tmp/p6-idle.s
		samples_of p6 /tmp/p6-idle.s "$n"
		p6_start /tmp/p6.txt
	fi
	ev0=$(events_max) sc0=$(mstat pgscan) st0=$(mstat pgsteal) ss0=$(vmstat slabs_scanned)
	sl0=$(($(mstat slab_reclaimable) / 1024))
	wcmd=(s61-bench memcg-write "$root" "$ext" 0 "$n" "$kb" "$writers")
	if [ "$profile" = 1 ]; then
		perf record -q -a -g -e cpu-clock -F "$freq" -o /tmp/p4s.data -- "${wcmd[@]}" \
			>/tmp/p4s-write.txt 2>/tmp/p4s-perf.log
	else
		"${wcmd[@]}" >/tmp/p4s-write.txt 2>/tmp/p4s-perf.log
	fi
	rc=$?
	ev1=$(events_max) sc1=$(mstat pgscan) st1=$(mstat pgsteal) ss1=$(vmstat slabs_scanned)
	sl1=$(($(mstat slab_reclaimable) / 1024))
	[ "$p6" = 1 ] && p6_stop /tmp/p6.txt
	echo max >"$root/memory.max"
	[ $rc = 0 ] || { cat /tmp/p4s-perf.log; fail "the write phase at N=$n failed ($rc)"; }
	grep -q '^write_ms ' /tmp/p4s-write.txt || fail "the write phase at N=$n printed no time"

	samples_of p4s /tmp/p4s-write.txt "$n"
	sample p4s limit_events $((ev1 - ev0)) "\"n\":$n"
	sample p4s pgscan $((sc1 - sc0)) "\"n\":$n"
	sample p4s pgsteal $((st1 - st0)) "\"n\":$n"
	sample p4s slabs_scanned $((ss1 - ss0)) "\"n\":$n"
	sample p4s slab_kb_before "$sl0" "\"n\":$n"
	sample p4s slab_kb_after "$sl1" "\"n\":$n"
	[ "$p6" = 1 ] && samples_of p6 /tmp/p6.txt "$n"
	p6txt=''
	[ "$p6" = 1 ] && p6txt="; P6 $(grep -E '^(ops|mount_p50_ms|mount_p99_ms|mount_max_ms) ' /tmp/p6.txt | tr '\n' ' ')"
	echo "N=$n: $(tr '\n' ' ' </tmp/p4s-write.txt)limit events $((ev1 - ev0)), pages scanned" \
		"$((sc1 - sc0)), stolen $((st1 - st0)), slab objects scanned $((ss1 - ss0))," \
		"reclaimable slab $sl0 -> $sl1 KiB$p6txt"

	if [ "$profile" = 1 ]; then
		perf report -i /tmp/p4s.data --stdio --no-children --sort sym -g none 2>/dev/null |
			grep '%' | grep -v '^#' >/tmp/p4s-report.txt
		[ -s /tmp/p4s-report.txt ] || fail "perf report printed no symbols at N=$n"
		for s in down_read_trylock up_read shrink_slab shrink_slab_memcg do_shrink_slab \
			__rcu_read_lock __rcu_read_unlock _find_next_bit; do
			v=$(awk -v s="$s" '$3 == s { gsub("%", "", $1); p += $1 } END { printf "%.2f", p + 0 }' \
				/tmp/p4s-report.txt)
			sample p4s "pct_$s" "$v" "\"n\":$n"
		done
		sample p4s profile_samples "$(perf script -i /tmp/p4s.data -F ip -G 2>/dev/null | grep -c .)" "\"n\":$n"
		echo "N=$n profile (self, top 8):"
		head -8 /tmp/p4s-report.txt
	fi

	for ((p = 1; p <= passes; p++)); do
		t0=$(now_us)
		echo 1G >"$root/memory.reclaim" 2>/dev/null
		t1=$(now_us)
		sample p4s reclaim_ms "$(ms_between "$t0" "$t1")" "\"n\":$n,\"pass\":$p"
	done
done
[ "$have" -gt 0 ] || fail "no step of the sweep could be set up"
pass
