# shellcheck shell=bash
# Helpers of the suite debian-bench (issue #27, sections 2 and 3): the
# workload the series exists for, measured on a Debian system. Sourced
# after /s61/lib.sh. Results are lines in the format of the initramfs
# bench suite (rootfs-overlay/s61/tests/bench/bench.lib):
#   S61BENCH {"w":"dcont","m":"setup_ms","v":1234.5,"n":50}
# which the runner (/s61/debian-run) forwards as "# S61BENCH ..."
# diagnostics to the result port; tools/bench/benchlib reads them from
# result.ktap. A test measures and judges correctness (every unit ended,
# every mount gone, ...): it fails when the workload went wrong, never
# because a figure is slow. Parameters come from the kernel command line
# (tools/debian/boot.sh --n, --append).

# The helper that times a system call alone (a fork and exec under TCG
# cost tens of ms): /s61/dbench.py.
# shellcheck disable=SC2034  # for the tests
DBENCH_PY=/s61/dbench.py

# sample WORKLOAD METRIC VALUE [EXTRA_JSON_MEMBERS]: one S61BENCH line, as
# the initramfs bench suite writes it (rootfs-overlay/s61/bench-sample.sh,
# which tools/debian/image.sh copies to the image's /s61/).
# shellcheck source=rootfs-overlay/s61/bench-sample.sh
. /s61/bench-sample.sh

# Milliseconds between two times in microseconds since the epoch (taken
# as ${EPOCHREALTIME/./}: no fork, unlike a $(...) of a function), with
# three decimals.
ms_between() {
	local d=$(($2 - $1))
	printf '%d.%03d' $((d / 1000)) $((d % 1000))
}

# is_uint VALUE...: every VALUE is a whole number.
is_uint() {
	local v
	for v in "$@"; do
		case $v in '' | *[!0-9]*) return 1 ;; esac
	done
}

# is_pos VALUE...: every VALUE is a whole number above 0.
is_pos() {
	local v
	for v in "$@"; do
		case $v in '' | *[!0-9]* | 0 | 00*) return 1 ;; esac
	done
}

# is_ms VALUE: a number as dbench.py and ms_between print them (D.DDD).
is_ms() {
	[[ $1 =~ ^[0-9]+\.[0-9]+$ ]]
}
