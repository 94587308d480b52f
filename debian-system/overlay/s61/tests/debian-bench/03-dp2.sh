#!/bin/bash
# dp2 (P2 of the bench suite, rootfs-overlay/s61/tests/bench/30-p2-ramfs.sh,
# on the Debian system): shrinker register/unregister throughput, LKP's
# case: stress-ng --ramfs with one instance per vCPU (every ramfs mount
# registers a superblock shrinker, every umount frees it). Sample
# ops_per_s: bogo ops per second of wall-clock time from stress-ng's YAML
# report, s61.dp2_reps= runs (3) of s61.dp2_secs= seconds (15) each.
# Fails when stress-ng fails or reports no rate, or when a ramfs mount is
# left behind in any mount namespace.
. /s61/lib.sh
. /s61/dbench.sh

secs=$(cmdline_arg s61.dp2_secs 15)
reps=$(cmdline_arg s61.dp2_reps 3)
is_pos "$secs" "$reps" ||
	fail "s61.dp2_secs='$secs' s61.dp2_reps='$reps': want whole numbers above 0"
command -v stress-ng >/dev/null || fail "stress-ng is missing (debian-system/packages has it)"
n=$(nproc)
# ramfs mounts in all mount namespaces, each namespace read once (through
# one of its processes, lsns); systemd's services have ramfs mounts of
# their own (credentials).
ramfs_mounts() {
	local p f=()
	for p in $(lsns -t mnt -n -o PID); do f+=("/proc/$p/mountinfo"); done
	awk '$0 ~ / - ramfs / { n++ } END { print n + 0 }' "${f[@]}" 2>/dev/null
}
before=$(ramfs_mounts)
cd /tmp || fail "no /tmp"
echo "stress-ng $(stress-ng --version 2>&1 | head -n 1); $n instances, ${secs}s x $reps"
for ((r = 1; r <= reps; r++)); do
	rm -f /tmp/dp2.yaml
	stress-ng --times --metrics-brief --ramfs "$n" --timeout "${secs}s" \
		--yaml /tmp/dp2.yaml >/tmp/dp2.log 2>&1 || { cat /tmp/dp2.log; fail "stress-ng --ramfs failed (run $r)"; }
	grep ramfs /tmp/dp2.log | grep -v dispatching
	ops=$(awk '$1 == "bogo-ops-per-second-real-time:" { print $2; exit }' /tmp/dp2.yaml)
	bogo=$(awk '$1 == "bogo-ops:" { print $2; exit }' /tmp/dp2.yaml)
	[ -n "$ops" ] || { cat /tmp/dp2.yaml; fail "no bogo-ops-per-second-real-time in stress-ng's YAML (run $r)"; }
	if ! is_uint "${bogo:-x}" || [ "$bogo" = 0 ]; then
		fail "stress-ng --ramfs did no work (bogo-ops '${bogo}', run $r)"
	fi
	sample dp2 ops_per_s "$ops" "\"bogo_ops\":$bogo,\"secs\":$secs,\"instances\":$n"
done
after=$(ramfs_mounts)
echo "ramfs mounts in all namespaces: $before before, $after after"
[ "$after" -le "$before" ] || fail "$((after - before)) ramfs mounts left after stress-ng"
pass
