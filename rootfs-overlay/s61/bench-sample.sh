# shellcheck shell=bash
# The S61BENCH sample line, one definition for the two suites that
# measure: the initramfs bench suite (tests/bench/bench.lib; tools/bench/bench.sh
# reads its lines) and the Debian system's debian-bench
# (debian-system/overlay/s61/dbench.sh; tools/bench/benchlib reads them), for
# which tools/debian/image.sh copies this file to the image's /s61/. Both read
# the lines from result.ktap as "# S61BENCH ..." diagnostics:
#   S61BENCH {"w":"p1","m":"mount_ms","v":12.3}

# sample WORKLOAD METRIC VALUE [EXTRA_JSON_MEMBERS]
sample() {
	echo "S61BENCH {\"w\":\"$1\",\"m\":\"$2\",\"v\":$3${4:+,$4}}"
}
