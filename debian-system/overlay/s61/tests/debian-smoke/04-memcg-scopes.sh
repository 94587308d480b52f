#!/bin/bash
# A small memory-cgroup workload under systemd: s61.n= (default 20)
# transient scopes, 'systemd-run --scope -p MemoryMax=' (s61.memmax=,
# default 64M), each in its own mount namespace (unshare -m) mounts a tmpfs
# (a shrinker registered), writes s61.files= (default 50) files of 64 KiB
# into it and makes 2000 negative dentries on the root ext4, charged to its
# memcg. While they hold, memory.reclaim is written on every other scope
# (memcg slab shrinking); then every scope ends, its tmpfs unmounted with its
# namespace (the shrinker freed). A "timing:" line per phase.
. /s61/lib.sh
n=$(cmdline_arg s61.n 20)
max=$(cmdline_arg s61.memmax 64M)
files=$(cmdline_arg s61.files 50)
w=/run/s61-scopes
rm -rf "$w" /var/tmp/s61-neg
mkdir -p "$w" /var/tmp/s61-neg
# sb-tmpfs shrinkers now (none without CONFIG_SHRINKER_DEBUG).
tmpfs_shrinkers() { [ -d /sys/kernel/debug/shrinker ] && shrinker_count sb-tmpfs || echo -; }
sh0=$(tmpfs_shrinkers)
# The body of scope $1: a tmpfs of its own, files, negative dentries, a
# line in $w/ready.$1, then wait for $w/stop.
# shellcheck disable=SC2016  # expanded by the scope's bash
body='i=$1 w=$2 files=$3
mount -t tmpfs -o size=16m "s61-scope-$i" /mnt || exit 11
for ((k = 0; k < files; k++)); do head -c 65536 /dev/zero >"/mnt/f$k" || exit 12; done
mkdir "/var/tmp/s61-neg/$i" || exit 13
for ((k = 0; k < 2000; k++)); do [ ! -e "/var/tmp/s61-neg/$i/n$k" ] || exit 14; done
echo "$(grep -c s61-scope- /proc/self/mountinfo) $(cat /proc/self/cgroup)" >"$w/ready.$i"
while [ ! -e "$w/stop" ]; do sleep 0.2; done'

t0=$(now_ms)
pids=()
for ((i = 1; i <= n; i++)); do
	systemd-run --quiet --scope --unit="s61-w$i" -p MemoryMax="$max" -- \
		unshare -m --propagation private bash -c "$body" scope "$i" "$w" "$files" &
	pids+=($!)
done
all_ready() { [ "$(find "$w" -name 'ready.*' | wc -l)" -ge "$n" ]; }
wait_until 300 all_ready || { touch "$w/stop"; fail "only $(find "$w" -name 'ready.*' | wc -l) of $n scopes got ready in 300 s"; }
echo "timing: start: $n scopes up, each with its tmpfs filled and 2000 negative dentries: $(($(now_ms) - t0)) ms"

want_max=$(numfmt --from=iec "$max")
cgs=()
for ((i = 1; i <= n; i++)); do
	read -r mounts cgline <"$w/ready.$i"
	cg=/sys/fs/cgroup${cgline#0::}
	[ "$cg" = "/sys/fs/cgroup$(systemctl show -P ControlGroup "s61-w$i.scope")" ] ||
		{ touch "$w/stop"; fail "scope $i runs in $cg, not in s61-w$i.scope"; }
	[ "$(cat "$cg/memory.max")" = "$want_max" ] || { touch "$w/stop"; fail "$cg/memory.max is $(cat "$cg/memory.max"), not $want_max"; }
	[ "$mounts" = 1 ] || { touch "$w/stop"; fail "scope $i sees $mounts s61-scope tmpfs mounts, not its own one"; }
	cgs+=("$cg")
done
host_mounts=$(grep -c s61-scope- /proc/self/mountinfo)
[ "$host_mounts" = 0 ] || { touch "$w/stop"; fail "$host_mounts scope tmpfs mounts leaked into the host's namespace"; }
sh1=$(tmpfs_shrinkers)
echo "sb-tmpfs shrinkers: $sh0 before, $sh1 with the scopes up"

t0=$(now_ms)
slab0=0 slab1=0 cur0=0 cur1=0 ok=0 tried=0
neg0=$(nr_negative)
for ((i = 1; i <= n; i += 2)); do
	cg=${cgs[i - 1]}
	slab0=$((slab0 + $(memcg_stat "$cg" slab_reclaimable))) cur0=$((cur0 + $(cat "$cg/memory.current")))
	tried=$((tried + 1))
	! echo 8M >"$cg/memory.reclaim" 2>/dev/null || ok=$((ok + 1))
	slab1=$((slab1 + $(memcg_stat "$cg" slab_reclaimable))) cur1=$((cur1 + $(cat "$cg/memory.current")))
done
neg1=$(nr_negative)
echo "timing: reclaim: memory.reclaim 8M on $tried scopes ($ok fully met, the rest EAGAIN): $(($(now_ms) - t0)) ms"
echo "reclaimed scopes: memory.current $((cur0 / 1024)) -> $((cur1 / 1024)) KiB, slab_reclaimable $((slab0 / 1024)) -> $((slab1 / 1024)) KiB; negative dentries (all) $neg0 -> $neg1"

t0=$(now_ms)
touch "$w/stop"
bad=0
for ((i = 1; i <= n; i++)); do
	wait "${pids[i - 1]}" || { echo "scope $i exited $?"; bad=$((bad + 1)); }
done
echo "timing: stop: $n scopes ended, their tmpfs unmounted with their namespaces: $(($(now_ms) - t0)) ms"
left=$(systemctl list-units --all --no-legend --plain 's61-w*' | awk '{ print $1 }')
sh2=$(tmpfs_shrinkers)
echo "sb-tmpfs shrinkers after: $sh2"
rm -rf "$w" /var/tmp/s61-neg
[ "$bad" = 0 ] || fail "$bad of $n scopes failed"
[ -z "$left" ] || fail "units left after the scopes ended: ${left//$'\n'/ }"
[ "$slab1" -lt "$slab0" ] || fail "memory.reclaim freed no reclaimable slab of the scopes ($((slab0 / 1024)) -> $((slab1 / 1024)) KiB)"
if [ "$sh0" != - ]; then
	[ "$sh1" -ge $((sh0 + n)) ] || fail "$n tmpfs mounts, but sb-tmpfs shrinkers went only $sh0 -> $sh1"
	[ "$sh2" = "$sh0" ] || fail "sb-tmpfs shrinkers $sh0 before, $sh2 after the scopes ended"
fi
pass
