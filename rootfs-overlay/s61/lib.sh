# shellcheck shell=bash
# Helpers for guest tests. A test is a bash script in /s61/tests/<suite>/;
# its output becomes KTAP diagnostics. Exit status: 0 pass, 1 fail,
# 2 skip, 3 expected failure (XFAIL, e.g. the old behaviour on base).

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 2
}

xfail() {
	echo "XFAIL: $*"
	exit 3
}

pass() {
	[ $# -eq 0 ] || echo "$*"
	exit 0
}

# The test module (testmod/: tools/build/testmod.sh builds it, tools/boot/guest-test.sh puts
# it into the initramfs) and why a test that needs it SKIPs on a kernel
# without module support, the one kernel that has none: tools/boot/guest-test.sh
# allows that SKIP (its --expect-rule, "^no test module in the initramfs")
# only when tools/build/testmod.sh said so.
S61_KO=/s61/modules/s61_shrinker_test.ko
# shellcheck disable=SC2034  # for the tests
S61_NOMOD="no test module in the initramfs: the kernel has no module support (no /proc/modules)"

# For a test that needs the test module: 0 when $S61_KO is there and not
# loaded; 1 on a kernel without module support (the test then does what it
# can without the module and SKIPs with $S61_NOMOD). The .ko missing from
# a kernel with module support, or the module loaded already, fails the test.
testmod_ready() {
	[ -e /proc/modules ] || return 1
	[ -f "$S61_KO" ] || fail "the test module $S61_KO is not in the initramfs, on a kernel with module support (/proc/modules): tools/build/testmod.sh did not build it or tools/boot/guest-test.sh did not add it"
	[ ! -d /sys/module/s61_shrinker_test ] || fail "s61_shrinker_test is loaded already"
}

# For a negative control (tests/controls/) that fires on a write to the
# test module's debugfs file $3: SKIP ("$2 control not asked for") unless
# the kernel command line asks for it (s61.control=$1, or a comma list
# with $1), then load the module; fails when that cannot be done. Sets
# CONTROL_FILE to the debugfs file.
control_load() {
	local word=$1 what=$2
	case ",$(cmdline_arg s61.control)," in
	*,"$word",*) ;;
	*) skip "$what control not asked for (s61.control=$word)" ;;
	esac
	CONTROL_FILE=/sys/kernel/debug/s61_shrinker_test/$3
	testmod_ready || fail "the $what control needs the test module: the kernel has no module support"
	insmod "$S61_KO" || fail "cannot load the test module"
	[ -w "$CONTROL_FILE" ] || fail "no $CONTROL_FILE: the test module has no $what control"
}

# Shrinker names in debugfs without their "-<id>" suffix, one per line.
shrinker_names() {
	local d
	for d in /sys/kernel/debug/shrinker/*; do
		[ -d "$d" ] || continue
		d=${d##*/}
		echo "${d%-*}"
	done | sort
}

# Number of debugfs shrinker entries called $1.
shrinker_count() {
	shrinker_names | grep -cx "$1"
}

# Value of NAME=VALUE on the kernel command line, else $2 (or nothing).
cmdline_arg() {
	local a
	# shellcheck disable=SC2013  # split on blanks, as the kernel does
	for a in $(cat /proc/cmdline); do
		case $a in "$1="*) echo "${a#*=}"; return 0 ;; esac
	done
	[ $# -lt 2 ] || echo "$2"
}

# Fields of /proc/sys/fs/dentry-state.
nr_dentry() { awk '{ print $1 }' /proc/sys/fs/dentry-state; }
nr_negative() { awk '{ print $5 }' /proc/sys/fs/dentry-state; }

# A small ext4 file system on a loop device at $1 (ext4 keeps negative
# dentries, tmpfs does not).
mount_ext4() {
	local mnt=$1 size=${2:-32}
	local img=/tmp/ext4-$$.img
	dd if=/dev/zero of="$img" bs=1M count="$size" status=none || return 1
	mkfs.ext4 -q -F "$img" || return 1
	mkdir -p "$mnt"
	mount -o loop "$img" "$mnt"
}

# Create $2 negative dentries below directory $1 (stat of missing names)
# with s61-negdent (guest-src/negdent.c; qemu/mkinitramfs puts every
# guest-src helper into every initramfs). A bash loop took ~5 s per 100000
# names under TCG.
make_negative_dentries() {
	s61-negdent "$1" "$2"
}

# Make memcg $1 under the cgroup2 root, with the memory controller enabled.
memcg_create() {
	local cg=/sys/fs/cgroup/$1
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p "$cg"
	echo "$cg"
}

# Value of key $2 in memory.stat of cgroup directory $1.
memcg_stat() {
	awk -v k="$2" '$1 == k { print $2 }' "$1/memory.stat"
}

# Milliseconds since the epoch (bash's EPOCHREALTIME; no fork).
now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

# Start "$@" in the background as job $1 (a name); bg_wait collects it.
# Sets BG_PID (the subshell that runs the command).
bg_start() {
	local f=/tmp/s61-bg.$1
	shift
	rm -f "$f" "$f.tmp"
	(
		t0=${EPOCHREALTIME/./}
		"$@"
		rc=$?
		t1=${EPOCHREALTIME/./}
		echo "$rc $(((t1 - t0) / 1000))" >"$f.tmp"
		mv "$f.tmp" "$f"
	) &
	# shellcheck disable=SC2034  # for the caller
	BG_PID=$!
}

# Wait at most $2 seconds for background job $1 of bg_start. Unlike
# timeout(1), this returns at the deadline even when the command sleeps
# uninterruptibly in the kernel (a mount waiting for a kernel lock cannot be
# killed); the command then keeps running, and a later bg_wait may still
# collect it. Sets BG_MS: the command's run time in ms, or how long this
# call waited. Returns the command's exit status, or 124 if still running.
bg_wait() {
	local f=/tmp/s61-bg.$1 limit=$(($2 * 1000)) t0 rc ms
	t0=$(now_ms)
	while [ ! -e "$f" ]; do
		BG_MS=$(($(now_ms) - t0))
		[ "$BG_MS" -lt "$limit" ] || return 124
		sleep 0.1
	done
	read -r rc ms <"$f"
	BG_MS=$ms
	return "$rc"
}

# Run "$@" for at most $1 seconds (see bg_wait). Sets BG_MS and BG_PID.
bounded() {
	local secs=$1
	shift
	bg_start bounded "$@"
	bg_wait bounded "$secs"
}

# Poll "$@" every 0.1 s until it succeeds, for at most $1 seconds.
wait_until() {
	local limit=$(($1 * 1000)) t0
	shift
	t0=$(now_ms)
	until "$@"; do
		[ $(($(now_ms) - t0)) -lt "$limit" ] || return 1
		sleep 0.1
	done
}

# Reclaim from memcg directory $1 through memory.reclaim, $2 rounds
# (default 3) of 64M; failures (EAGAIN: nothing more to reclaim) are fine.
memcg_try_reclaim() {
	local cg=$1 n=${2:-3} i
	for ((i = 0; i < n; i++)); do
		echo 64M >"$cg/memory.reclaim" 2>/dev/null
	done
	return 0
}

# Run "$@" in a new bash that first joins cgroup directory $1, so that what
# it allocates is charged there. The functions of this file are available;
# the caller's own must be exported (export -f).
in_memcg() {
	local cg=$1
	shift
	# shellcheck disable=SC2016  # expanded by the inner bash
	bash -c '. /s61/lib.sh && echo $$ >"$0/cgroup.procs" && "$@"' "$cg" "$@"
}

# Race workers: "running" is true until $end (seconds since the epoch, set
# by the caller); results go to files in $work.
# shellcheck disable=SC2154  # end: set by the race test
running() { [ "$(date +%s)" -lt "$end" ]; }

# Worker: drop_caches=2 every $1 seconds until the end; the count goes to
# $work/drops.
race_drop_caches() {
	local n=0
	while running; do echo 2 >/proc/sys/vm/drop_caches; n=$((n + 1)); sleep "$1"; done
	# shellcheck disable=SC2154  # work: set by the race test
	echo "$n" >"$work/drops"
}

# The count race worker NAME ($1) left in $work/NAME; 0 if it left none.
race_count() {
	local v
	v=$(cat "$work/$1" 2>/dev/null)
	case $v in '' | *[!0-9]*) echo 0 ;; *) echo "$((10#$v))" ;; esac
}

# Fail unless every race worker named "$@" left a count above zero in
# $work/NAME (a worker that died or never got its work done leaves none, or
# 0); names each that did not.
race_require_counts() {
	local n bad=()
	for n in "$@"; do
		[ "$(race_count "$n")" -gt 0 ] || bad+=("$n=$(cat "$work/$n" 2>/dev/null || echo none)")
	done
	[ ${#bad[@]} -eq 0 ] || fail "race workers with nothing done: ${bad[*]}"
}

# Wait for the worker PIDs "$@" until $1 (seconds since the epoch); a
# worker still running then fails the test as hung, with the processes and
# the worker's kernel stack.
race_wait_workers() {
	local deadline=$1 p
	shift
	for p in "$@"; do
		while kill -0 "$p" 2>/dev/null; do
			if [ "$(date +%s)" -ge "$deadline" ]; then
				ps -o pid,stat,args 2>/dev/null | head -30
				cat /proc/"$p"/stack 2>/dev/null
				fail "worker $p still running at the deadline, $((deadline - end)) s after the end: hung"
			fi
			sleep 1
		done
	done
}
