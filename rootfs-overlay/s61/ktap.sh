# shellcheck shell=bash
# The guest init's mapping of a test script's exit status to its KTAP result
# line. Sourced by /s61/init; the host's tests (tests/boot/test-judge.sh) source
# it too and feed it fake test scripts. No side effects, no guest paths.
#
# A test (lib.sh) exits 0 pass, 1 fail, 2 skip, 3 expected failure. Exit
# 2 and 3 are believed only with the line lib.sh's skip/xfail print: bash
# itself exits 2 on a syntax error, and any command's status can leak out
# of a script, so a bare status is never taken for a SKIP or an XFAIL.

# ktap_reason WORD LOG: the text after the last "WORD: " line of LOG;
# returns 1 when LOG has no such line.
ktap_reason() {
	local line
	line=$(grep -E "^$1: " "$2" 2>/dev/null | tail -n 1)
	[ -n "$line" ] || return 1
	printf '%s\n' "${line#"$1": }"
}

# ktap_result NUM NAME RC LOG SECS TIMEOUT: print the KTAP line of test
# NUM (NAME: suite.test) that exited RC after SECS seconds, its output in
# LOG, preceded by a "# " diagnostic when the status is not believed.
# TIMEOUT is the per-test limit (for the message). Returns 0 for "ok",
# 1 for "not ok".
ktap_result() {
	local i=$1 name=$2 rc=$3 log=$4 dt=$5 tmo=$6 reason
	case $rc in
	0)
		echo "ok $i $name # ${dt}s"
		return 0
		;;
	2)
		if reason=$(ktap_reason SKIP "$log"); then
			echo "ok $i $name # SKIP $reason"
			return 0
		fi
		echo "# exit 2 without a SKIP: line (shell error?)"
		;;
	3)
		if reason=$(ktap_reason XFAIL "$log"); then
			echo "ok $i $name # XFAIL $reason"
			return 0
		fi
		echo "# exit 3 without an XFAIL: line"
		;;
	124|137) echo "# timed out after ${tmo}s" ;;
	1) ;;
	*) echo "# exit $rc" ;;
	esac
	echo "not ok $i $name"
	return 1
}

# ktap_lava_line LINE: for a KTAP result LINE ("ok 3 smoke.boot # 4s",
# "not ok 2 x", "ok 1 y # SKIP why", "ok 1 z # XFAIL why"), the line a LAVA
# test monitor matches (docs/lava.md): "s61-lava-result: NAME STATE", STATE
# one of PASS FAIL SKIP XFAIL (the directive right after the name decides;
# TODO counts as XFAIL, as qemu/ktap-summary does). Returns 1 (printing
# nothing) for a line that is no KTAP result.
ktap_lava_line() {
	local re='^(not ok|ok) [0-9]+ ([^ #]+)( # ([A-Z]+))?' state
	[[ $1 =~ $re ]] || return 1
	case ${BASH_REMATCH[1]}:${BASH_REMATCH[4]} in
	"not ok":*) state=FAIL ;;
	ok:SKIP) state=SKIP ;;
	ok:XFAIL|ok:TODO) state=XFAIL ;;
	*) state=PASS ;;
	esac
	printf 's61-lava-result: %s %s\n' "${BASH_REMATCH[2]}" "$state"
}

# ktap_state TAINTED LOCKDEP_STATS: the init's closing report of the
# kernel's state, which the host judges (qemu/ktap-summary): the taint mask
# from TAINTED (/proc/sys/kernel/tainted) and lockdep's debug_locks from
# the "debug_locks:" line of LOCKDEP_STATS (/proc/lockdep_stats), "absent"
# when that file is not there (a kernel without lockdep). A value it cannot
# read is "unreadable", which the host fails.
ktap_state() {
	local ta dl=absent
	ta=$(cat "$1" 2>/dev/null) || ta=
	case $ta in '' | *[!0-9]*) ta=unreadable ;; esac
	if [ -e "$2" ]; then
		dl=$(awk '$1 == "debug_locks:" { print $2; exit }' "$2" 2>/dev/null)
		case $dl in 0 | 1) ;; *) dl=unreadable ;; esac
	fi
	echo "# s61-tainted: $ta"
	echo "# s61-debug-locks: $dl"
}

# A kmemleak scan at the end of a run (the initramfs init, the Debian
# image's runner), on a kernel with kmemleak (FILE, its debugfs file,
# /sys/kernel/debug/kmemleak unless given, is there): an object is
# reported only once it is 5 s old (MSECS_MIN_AGE), and one whose contents
# changed since the scan before (every object, at its first scan) only at
# the next scan: so wait past that age, then scan twice (each write
# returns when its scan is done) and print what was found. The kernel's
# own "N new suspected memory leaks" line goes to the console either way.
# Returns 1, saying why, when a scan or the read of its findings failed:
# kmemleak that switched itself off ("kmemleak: Kernel memory leak
# detector disabled", on an internal error) refuses "scan" (EPERM), and a
# run that lost its leak detector is not clean.
kmemleak_final_scan() {
	local f=${1:-/sys/kernel/debug/kmemleak} n
	[ -e "$f" ] || return 0
	sleep 6
	for n in first second; do
		echo scan 2>/dev/null >"$f" && continue
		echo "s61: kmemleak: the $n 'echo scan >$f' failed: kmemleak is off (it disables itself on an internal error); the run has no leak detector"
		return 1
	done
	cat "$f" && return 0
	echo "s61: kmemleak: cannot read $f: the findings of the final scan are unknown"
	return 1
}
