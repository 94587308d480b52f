#!/bin/bash
# dp2 (P2 of the bench suite, rootfs-overlay/s61/tests/bench/30-p2-ramfs.sh,
# on the Debian system): shrinker register/unregister throughput, LKP's
# case: stress-ng --ramfs with one instance per vCPU (every ramfs mount
# registers a superblock shrinker, every umount frees it). Sample
# ops_per_s: bogo ops per second of wall-clock time from stress-ng's YAML
# report, s61.dp2_reps= runs (3) of s61.dp2_secs= seconds (15) each: the
# runs are P2's own code, /s61/stress-ramfs.sh (rootfs-overlay/s61/, which
# tools/debian/image.sh copies into the image). Fails when stress-ng fails or
# reports no rate or no work, or when a ramfs mount is left behind in any
# mount namespace.
. /s61/lib.sh
. /s61/dbench.sh
. /s61/stress-ramfs.sh

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
echo "stress-ng $(stress-ng --version 2>&1 | head -n 1); $n instances, ${secs}s x $reps"
stress_ramfs_runs dp2 "$n" "$secs" "$reps"
after=$(ramfs_mounts)
echo "ramfs mounts in all namespaces: $before before, $after after"
[ "$after" -le "$before" ] || fail "$((after - before)) ramfs mounts left after stress-ng"
pass
