# shellcheck shell=bash
# P2's workload, one copy for both suites that run it: the initramfs bench
# suite's tests/bench/30-p2-ramfs.sh and the Debian system's debian-bench
# dp2 (debian-system/overlay/s61/tests/debian-bench/03-dp2.sh), for which
# tools/debian/image.sh copies this file to the image's /s61/. Sourced after
# /s61/lib.sh (fail) and the suite's helpers (tests/bench/bench.lib,
# /s61/dbench.sh), which source sample from /s61/bench-sample.sh.

# stress_ramfs_runs W N SECS REPS: REPS runs of stress-ng --ramfs with N
# instances (every ramfs mount registers a superblock shrinker, every
# umount frees it) of SECS seconds each, in /tmp (its files /tmp/W.yaml and
# /tmp/W.log). After each run, stress-ng's own ramfs lines and the sample
#   S61BENCH {"w":"W","m":"ops_per_s","v":OPS,"bogo_ops":B,"secs":SECS,"instances":N}
# OPS: bogo-ops-per-second-real-time of stress-ng's YAML report (bogo ops
# per second of wall-clock time), B: its bogo-ops. Fails the test when
# stress-ng fails (its log printed), its YAML has no rate (the YAML
# printed) or no bogo ops above 0 (no work done: no figure to measure;
# a leading 0 would not be JSON either).
stress_ramfs_runs() {
	local w=$1 n=$2 secs=$3 reps=$4 r ops bogo
	cd /tmp || fail "no /tmp"
	for ((r = 1; r <= reps; r++)); do
		rm -f "/tmp/$w.yaml"
		stress-ng --times --metrics-brief --ramfs "$n" --timeout "${secs}s" \
			--yaml "/tmp/$w.yaml" >"/tmp/$w.log" 2>&1 || { cat "/tmp/$w.log"; fail "stress-ng --ramfs failed (run $r)"; }
		grep ramfs "/tmp/$w.log" | grep -v dispatching
		ops=$(awk '$1 == "bogo-ops-per-second-real-time:" { print $2; exit }' "/tmp/$w.yaml")
		bogo=$(awk '$1 == "bogo-ops:" { print $2; exit }' "/tmp/$w.yaml")
		[ -n "$ops" ] || { cat "/tmp/$w.yaml"; fail "no bogo-ops-per-second-real-time in stress-ng's YAML (run $r)"; }
		case $bogo in '' | *[!0-9]* | 0*) fail "stress-ng --ramfs did no work (bogo-ops '${bogo}', run $r)" ;; esac
		sample "$w" ops_per_s "$ops" "\"bogo_ops\":$bogo,\"secs\":$secs,\"instances\":$n"
	done
}
