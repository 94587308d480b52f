#!/bin/bash
# P2: shrinker register/unregister throughput, LKP's case: stress-ng
# --ramfs with one instance per vCPU (every ramfs mount registers a
# superblock shrinker, every umount frees it). Bogo ops per second of wall
# clock time, from stress-ng's YAML report. The runs are /s61/stress-ramfs.sh's,
# the same code as debian-bench's dp2 on the Debian system.
. /s61/tests/bench/bench.lib
. /s61/stress-ramfs.sh

# Several shorter runs per boot (their median is the boot's value) damp
# the host's load changes; rounds alternate the kernels.
if [ "$QUICK" = 1 ]; then secs=$(barg p2_secs 10) reps=$(barg p2_reps 1)
else secs=$(barg p2_secs 15) reps=$(barg p2_reps 3); fi
stress_ramfs_runs p2 "$(nproc)" "$secs" "$reps"
pass
