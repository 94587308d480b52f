#!/usr/bin/env bash
# Runtime coverage of the converted shrinkers: boot the `coverage` config
# with the coverage suite (rootfs-overlay/s61/tests/coverage/) on each
# branch, then check that every branch saw the same debugfs shrinker names.
#
# Usage: tools/boot/coverage.sh [options] [BRANCH...]     (default: tests base)
#   --compare RUN RUN  only compare two finished runs (.work/runs/<dir>)
#   --summary RUN      print the per-shrinker results of a finished run
#   --timeout S        guest time limit (default: 3000)
# The guest gets 2 GB, a virtio-balloon with free page hinting (which QEMU
# runs in an iothread) and a bochs display (-vga std), so that those drivers
# register their shrinkers, and a 128 MB large-page nandsim for UBI.
# Exit: 0 every run passed, reported shrinker names and the names match;
# 1 otherwise.
. "$(dirname "$0")/../lib/lib.sh"

timeout=3000
branches=()
cmp=()
summary=
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--compare) cmp=("${2:?}" "${3:?}"); shift 2 ;;
	--summary) summary=${2:?}; shift ;;
	--timeout) timeout=${2:?}; shift ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) branches+=("$1") ;;
	esac
	shift
done

# The shrinker names a run saw: at boot (COVBOOT) and set up by the tests
# (COVNAME), one per line, sorted. A run without results or without a
# single name fails: an empty list has nothing to compare.
names() {
	local k=$1/result.ktap n
	[ -s "$k" ] || { warn "no results in $1"; return 1; }
	n=$({
		sed -n 's/^# COVBOOT \([^ ]*\) .*/\1/p' "$k"
		sed -n 's/^# COVNAME //p' "$k"
	} | tr -d '\r' | LC_ALL=C sort -u)
	[ -n "$n" ] || { warn "no shrinker names (# COVBOOT, # COVNAME) in $k"; return 1; }
	printf '%s\n' "$n"
}

# Per-shrinker results of a run: "name checks...".
results() {
	sed -n 's/^# COV name=//p' "$1/result.ktap" | tr -d '\r'
}

compare() {
	local a=$1 b=$2 na nb d
	na=$(names "$a") || return 1
	nb=$(names "$b") || return 1
	d=$(diff <(printf '%s\n' "$na") <(printf '%s\n' "$nb")) && {
		info "same $(wc -l <<<"$na") shrinker names in $(basename "$a") and $(basename "$b")"
		return 0
	}
	info "the shrinker names differ between $a (<) and $b (>):"
	printf '%s\n' "$d" | grep '^[<>]' >&2
	return 1
}

if [ -n "$summary" ]; then
	results "$summary"
	exit 0
fi
if [ ${#cmp[@]} -gt 0 ]; then
	compare "${cmp[@]}"
	exit
fi
[ ${#branches[@]} -gt 0 ] || branches=(tests base)

# nandsim: a 128 MB large-page NAND (2 kB pages, 128 kB blocks) for UBI.
nandsim="nandsim.first_id_byte=0x20 nandsim.second_id_byte=0xa1"
nandsim="$nandsim nandsim.third_id_byte=0x00 nandsim.fourth_id_byte=0x15"
rc=0
runs=()
for br in "${branches[@]}"; do
	log=$S61_WORK/logs/coverage-$br.log
	mkdir -p "$S61_WORK/logs"
	info "coverage suite on $br (log: $log)"
	"$S61_ROOT/tools/boot/guest-test.sh" --config coverage --suites coverage --mem 2G \
		--timeout "$timeout" --append "s61.test_timeout=900 $nandsim" \
		--qemu-arg -object --qemu-arg iothread,id=s61io \
		--qemu-arg -device --qemu-arg virtio-balloon-pci,free-page-hint=on,iothread=s61io \
		--qemu-arg -vga --qemu-arg std "$br" 2>&1 | tee "$log"
	[ "${PIPESTATUS[0]}" = 0 ] || { rc=1; warn "the coverage run on $br failed"; }
	run=$(sed -n 's/^run: //p' "$log" | tail -1)
	if [ -z "$run" ] || [ ! -s "$run/result.ktap" ]; then
		rc=1
		warn "no coverage results for $br"
		continue
	fi
	echo "---- per-shrinker results on $br ----"
	results "$run"
	names "$run" >/dev/null || { rc=1; continue; }
	runs+=("$run")
done
for ((i = 1; i < ${#runs[@]}; i++)); do
	compare "${runs[0]}" "${runs[i]}" || rc=1
done
exit $rc
