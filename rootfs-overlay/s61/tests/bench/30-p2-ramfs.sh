#!/bin/bash
# P2: shrinker register/unregister throughput, LKP's case: stress-ng
# --ramfs with one instance per vCPU (every ramfs mount registers a
# superblock shrinker, every umount frees it). Bogo ops per second of wall
# clock time, from stress-ng's YAML report.
. /s61/tests/bench/bench.lib

# Several shorter runs per boot (their median is the boot's value) damp
# the host's load changes; rounds alternate the kernels.
if [ "$QUICK" = 1 ]; then secs=$(barg p2_secs 10) reps=$(barg p2_reps 1)
else secs=$(barg p2_secs 15) reps=$(barg p2_reps 3); fi
n=$(nproc)
cd /tmp || fail "no /tmp"
for ((r = 1; r <= reps; r++)); do
	rm -f /tmp/p2.yaml
	stress-ng --times --metrics-brief --ramfs "$n" --timeout "${secs}s" \
		--yaml /tmp/p2.yaml >/tmp/p2.log 2>&1 || { cat /tmp/p2.log; fail "stress-ng --ramfs failed"; }
	grep ramfs /tmp/p2.log | grep -v dispatching
	ops=$(awk '$1 == "bogo-ops-per-second-real-time:" { print $2; exit }' /tmp/p2.yaml)
	bogo=$(awk '$1 == "bogo-ops:" { print $2; exit }' /tmp/p2.yaml)
	[ -n "$ops" ] || { cat /tmp/p2.yaml; fail "no bogo-ops-per-second-real-time in stress-ng's YAML"; }
	sample p2 ops_per_s "$ops" "\"bogo_ops\":${bogo:-0},\"secs\":$secs,\"instances\":$n"
done
pass
