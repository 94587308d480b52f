# shellcheck shell=bash
# Helpers of the suite debian-subsys (issue #27, section 2): each subsystem
# whose shrinker the series converted, driven with its Debian userspace tool
# on loop devices (or loopback), under memory pressure, and what can be seen
# of its shrinkers: registered (the shrinker's directory under
# /sys/kernel/debug/shrinker, CONFIG_SHRINKER_DEBUG), called and freed (its
# debugfs count after the work, after memory.reclaim of the memcg that did
# the work, after drop_caches; without the debugfs, the subsystem's slab
# cache or its own counters). Sourced after /s61/lib.sh.
#
# A test fails when its work did not happen (a tool missing, mkfs, mount,
# the fill or the read-back failing); it SKIPs only when the kernel has no
# such module (sub_module), and the host's manifest (debian-system/expected)
# decides whether that SKIP is acceptable for the kernel's config.
#
# Kernel command line: s61.subsys_memmax= (MemoryMax of the scope that does
# the work, default 32M), s61.subsys_dirs= (20), s61.subsys_files= (files
# per directory, 100), s61.subsys_mib= (MiB of data files, 24).

SUB_MEMMAX=$(cmdline_arg s61.subsys_memmax 32M)
SUB_DIRS=$(cmdline_arg s61.subsys_dirs 20)
SUB_FILES=$(cmdline_arg s61.subsys_files 100)
SUB_MIB=$(cmdline_arg s61.subsys_mib 24)
SUB_W=/var/tmp/s61-subsys
SDBG=/sys/kernel/debug/shrinker
SUB_CLEAN=()
SUB_T0=$(now_ms)

# Undo what the test set up, last first, also when it fails (exit trap).
sub_cleanup() {
	local i
	for ((i = ${#SUB_CLEAN[@]} - 1; i >= 0; i--)); do
		eval "${SUB_CLEAN[i]}" >/dev/null 2>&1
	done
	SUB_CLEAN=()
}
trap sub_cleanup EXIT
# sub_atexit CMD: run the shell text CMD at the end of the test.
sub_atexit() { SUB_CLEAN+=("$1"); }

# sub_timing WHAT: a "timing:" line with the ms since the last one.
sub_timing() {
	local t
	t=$(now_ms)
	echo "timing: $1: $((t - SUB_T0)) ms"
	SUB_T0=$t
}

# sub_tools CMD...: fail naming each tool that is missing.
sub_tools() {
	local c miss=()
	for c in "$@"; do command -v "$c" >/dev/null || miss+=("$c"); done
	[ ${#miss[@]} = 0 ] || fail "tool missing: ${miss[*]} (debian-system/packages has its package?)"
}

# sub_config SYM: the kernel config's line of CONFIG_SYM.
sub_config() {
	grep -E "^(CONFIG_$1=|# CONFIG_$1 is not set)" "/boot/config-$(uname -r)" 2>/dev/null ||
		echo "no CONFIG_$1 in /boot/config-$(uname -r)"
}

# sub_module SYM MOD...: load the first of the modules MOD that the kernel
# has (built in or a module file); SKIP when it has none of them (reason:
# "kernel lacks MOD: CONFIG line"), fail when modprobe fails.
sub_module() {
	local sym=$1 m
	shift
	for m in "$@"; do
		if [ -d "/sys/module/$m" ]; then
			echo "module $m: $(modinfo -F filename "$m" 2>/dev/null || echo built in), loaded"
			return 0
		fi
		modinfo -F filename "$m" >/dev/null 2>&1 || continue
		modprobe "$m" || fail "modprobe $m failed"
		echo "module $m: $(modinfo -F filename "$m"), loaded now"
		return 0
	done
	skip "kernel lacks ${*// /|}: $(sub_config "$sym")"
}

# sub_debugfs: SDBG_ON=1 with the shrinker debugfs. Whether the kernel
# must have it is its own config's word (/boot/config-KVER): with
# CONFIG_SHRINKER_DEBUG=y a missing directory fails the test (the debugfs
# is broken: every registered/gone/freed check would pass unseen). Else
# SDBG_ON=0, the test judges the subsystem and its own counters only, and
# says so in a line "not judged: ..." with the config line: the host's
# manifest (debian-system/expected) decides for which kernels that is
# acceptable (Debian's stock config), never the guest alone.
sub_debugfs() {
	local line
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	line=$(sub_config SHRINKER_DEBUG)
	if [ -d "$SDBG" ]; then
		SDBG_ON=1
		echo "shrinker debugfs: $(find "$SDBG" -mindepth 1 -maxdepth 1 | wc -l) shrinkers"
	elif [ "$line" = CONFIG_SHRINKER_DEBUG=y ]; then
		fail "/boot/config-$(uname -r) has CONFIG_SHRINKER_DEBUG=y, but there is no $SDBG: the shrinker debugfs is broken"
	else
		SDBG_ON=0
		echo "no shrinker debugfs ($line): registered/called/freed from the subsystem's own counters only"
		echo "not judged: shrinker registration, counts and freeing: no $SDBG ($line)"
	fi
}

# sub_sdirs GLOB: the debugfs directories of the shrinkers whose name
# (without its "-ID") matches the shell glob GLOB.
sub_sdirs() {
	local d n
	[ "${SDBG_ON:-0}" = 1 ] || return 0
	for d in "$SDBG"/*/; do
		d=${d%/}
		n=${d##*/}
		# shellcheck disable=SC2053  # a glob on purpose
		[[ ${n%-*} == $1 ]] && echo "$d"
	done
}

# sub_scount GLOB: how many shrinkers match GLOB; "-" without the debugfs.
sub_scount() {
	[ "${SDBG_ON:-0}" = 1 ] || { echo -; return; }
	sub_sdirs "$1" | wc -l
}

# sub_sobjs GLOB: the objects the matching shrinkers count (their debugfs
# "count": "MEMCG-INO COUNT-PER-NODE..." lines), summed; "-" without it.
sub_sobjs() {
	local d s=0 c
	[ "${SDBG_ON:-0}" = 1 ] || { echo -; return; }
	for d in $(sub_sdirs "$1"); do
		c=$(awk '{ for (i = 2; i <= NF; i++) s += $i } END { print s + 0 }' "$d/count" 2>/dev/null)
		s=$((s + ${c:-0}))
	done
	echo "$s"
}

# sub_slab CACHE: objects in use of slab cache CACHE (/sys/kernel/slab, which
# has merged caches under their own name too); "-" if there is none. On a
# kernel with KASAN (the debug flavour of tools/debian/deb.sh) a freed object
# waits in KASAN's quarantine and still counts as in use: the cache's
# "shrink" (kmem_cache_shrink(), which takes the cache's objects out of
# the quarantine first) is written before the reading, so that the count
# is of the objects not freed. Seen needed: debian-subsys.f2fs on the
# debug .deb read f2fs_inode_cache 2058 -> 2058 -> 2058 while sb-f2fs
# freed 2046 (2026-12-06).
SUB_KASAN=0
[ "$(sub_config KASAN)" != CONFIG_KASAN=y ] || SUB_KASAN=1
sub_slab() {
	local v
	[ "$SUB_KASAN" = 0 ] || echo 1 2>/dev/null >"/sys/kernel/slab/$1/shrink"
	v=$(cut -d' ' -f1 "/sys/kernel/slab/$1/objects" 2>/dev/null)
	echo "${v:--}"
}

# The shrinkers (SUB_SHRINK: globs) and slab caches (SUB_SLABS) a test
# watches; sub_reading LABEL records them as R_<label>_<i> and prints them.
SUB_SHRINK=()
SUB_SLABS=()
declare -A SUB_R
sub_reading() {
	local label=$1 g c line="reading $1:"
	for g in "${SUB_SHRINK[@]}"; do
		SUB_R[$label:s:$g]=$(sub_sobjs "$g")
		SUB_R[$label:n:$g]=$(sub_scount "$g")
		[ "$SDBG_ON" = 0 ] || line="$line $g=${SUB_R[$label:s:$g]}(x${SUB_R[$label:n:$g]})"
	done
	for c in "${SUB_SLABS[@]}"; do
		SUB_R[$label:c:$c]=$(sub_slab "$c")
		line="$line slab:$c=${SUB_R[$label:c:$c]}"
	done
	echo "$line"
}

# sub_reading_given LABEL FROM GLOB=COUNT...: a reading the workload took
# itself, at a moment the shell cannot see (binder-pages.py's, while its
# receiver holds pages on binder's LRU): COUNT is the debugfs count of the
# watched shrinker GLOB ('-' without the debugfs), recorded as reading
# LABEL with the number of shrinkers of reading FROM, and printed as
# sub_reading prints a reading.
sub_reading_given() {
	local label=$1 from=$2 a g line="reading $1:"
	shift 2
	for a in "$@"; do
		g=${a%%=*}
		SUB_R[$label:s:$g]=${a#*=}
		SUB_R[$label:n:$g]=${SUB_R[$from:n:$g]}
		[ "$SDBG_ON" = 0 ] || line="$line $g=${SUB_R[$label:s:$g]}(x${SUB_R[$label:n:$g]})"
	done
	echo "$line"
}

# sub_report A B C: per watched shrinker, "registered / called / freed"
# from the readings A (after the work), B (after memory.reclaim), C (after
# drop_caches); per slab cache its objects A -> B -> C.
sub_report() {
	local a=$1 b=$2 c=$3 g s
	for g in "${SUB_SHRINK[@]}"; do
		if [ "$SDBG_ON" = 0 ]; then
			echo "shrinker $g: no shrinker debugfs"
			continue
		fi
		s="shrinker $g: ${SUB_R[$a:n:$g]} registered; count ${SUB_R[$a:s:$g]} -> ${SUB_R[$b:s:$g]} (memory.reclaim) -> ${SUB_R[$c:s:$g]} (drop_caches)"
		if [ "${SUB_R[$a:n:$g]}" = 0 ]; then
			s="$s: NOT REGISTERED"
		elif [ "${SUB_R[$c:s:$g]}" -lt "${SUB_R[$a:s:$g]}" ]; then
			s="$s: freed $((${SUB_R[$a:s:$g]} - ${SUB_R[$c:s:$g]}))"
		fi
		echo "$s"
	done
	for g in "${SUB_SLABS[@]}"; do
		echo "slab $g: ${SUB_R[$a:c:$g]} -> ${SUB_R[$b:c:$g]} -> ${SUB_R[$c:c:$g]} objects"
	done
}

# sub_need_registered GLOB...: with the debugfs, fail unless each GLOB
# matched a shrinker in reading $SUB_AT (default "work").
sub_need_registered() {
	local g miss=()
	[ "$SDBG_ON" = 1 ] || return 0
	for g in "$@"; do
		[ "${SUB_R[${SUB_AT:-work}:n:$g]:-0}" -gt 0 ] || miss+=("$g")
	done
	[ ${#miss[@]} = 0 ] || fail "shrinker debugfs has no ${miss[*]} while the subsystem works"
}

# sub_need_gone GLOB...: with the debugfs, fail if a GLOB still matched a
# shrinker in the reading "after" (the teardown unregisters them).
sub_need_gone() {
	local g
	[ "$SDBG_ON" = 1 ] || return 0
	for g in "$@"; do
		[ "${SUB_R[after:n:$g]:-0}" = 0 ] || fail "shrinker $g still registered after the teardown"
	done
}

# sub_need_freed KIND NAME [A C]: fail unless the objects of the watched
# shrinker (KIND s) or slab cache (KIND c) NAME went down from reading A
# (default work) to C (default dropped). A shrinker is judged only with the
# debugfs.
sub_need_freed() {
	local k=$1 n=$2 a=${3:-work} c=${4:-dropped} va vc
	[ "$k" = c ] || [ "$SDBG_ON" = 1 ] || return 0
	va=${SUB_R[$a:$k:$n]:--} vc=${SUB_R[$c:$k:$n]:--}
	if [ "$va" = - ] || [ "$vc" = - ]; then
		fail "no reading of $n ($va, $vc)"
	fi
	[ "$vc" -lt "$va" ] || fail "$n: $va objects after the work, $vc after memory.reclaim and drop_caches: nothing freed"
}

# sub_loopfile NAME MIB: a sparse file of MIB MiB in $SUB_W, attached to a
# loop device; LOOP is the device (detached at the end).
sub_loopfile() {
	local f=$SUB_W/$1.img
	mkdir -p "$SUB_W"
	rm -f "$f"
	truncate -s "$2M" "$f" || fail "cannot make $f"
	LOOP=$(losetup -f --show "$f") || fail "losetup of $f failed"
	sub_atexit "losetup -d $LOOP; rm -f $f"
}

# sub_mount TYPE DEV DIR [OPTIONS]: mount, unmounted at the end.
sub_mount() {
	mkdir -p "$3"
	mount -t "$1" ${4:+-o "$4"} "$2" "$3" || fail "mount -t $1 ${4:+-o $4 }$2 $3 failed"
	sub_atexit "umount $3"
}

# sub_umount DIR: unmount now (a failure fails the test).
sub_umount() {
	umount "$1" || fail "umount $1 failed"
}

# The work in a memory cgroup: sub_scope NAME SCRIPT ARGS... runs the bash
# text SCRIPT (with ARGS as $1...) in a transient scope s61-sub-NAME with
# MemoryMax=$SUB_MEMMAX, so what it allocates (page cache, inodes,
# dentries, the subsystem's objects) is charged there and its limit is
# pressure; the scope holds until sub_scope_end, with the work's memory.
# SUB_CG is its cgroup. Fails the test when SCRIPT fails.
sub_scope() {
	local name=$1 script=$2 w=/run/s61-sub-$1 rc
	shift 2
	rm -rf "$w"
	mkdir -p "$w"
	# shellcheck disable=SC2016  # expanded by the scope's bash
	systemd-run --quiet --scope --unit="s61-sub-$name" -p MemoryMax="$SUB_MEMMAX" -- \
		bash -c '. /s61/lib.sh; w=$1; shift; ( eval "$0" ) >"$w/log" 2>&1; echo $? >"$w/rc.tmp"
		cut -d: -f3- /proc/self/cgroup >"$w/cg"; mv "$w/rc.tmp" "$w/rc"
		while [ ! -e "$w/stop" ]; do sleep 0.2; done' "$script" "$w" "$@" &
	SUB_SCOPE_PID=$!
	sub_atexit "touch $w/stop; wait $SUB_SCOPE_PID"
	wait_until 400 test -e "$w/rc" || { touch "$w/stop"; fail "the work in scope s61-sub-$name did not end in 400 s"; }
	rc=$(cat "$w/rc")
	SUB_CG=/sys/fs/cgroup$(cat "$w/cg")
	sed 's/^/scope: /' "$w/log"
	[ "$rc" = 0 ] || fail "the work in scope s61-sub-$name failed (exit $rc; its output above)"
	[ -f "$SUB_CG/memory.max" ] || fail "scope s61-sub-$name: no memcg $SUB_CG"
	echo "scope s61-sub-$name: MemoryMax $(cat "$SUB_CG/memory.max"), memory.current $(($(cat "$SUB_CG/memory.current") / 1024)) KiB, slab_reclaimable $(($(memcg_stat "$SUB_CG" slab_reclaimable) / 1024)) KiB, events: $(awk '{ printf "%s=%s ", $1, $2 }' "$SUB_CG/memory.events")"
}

# sub_reclaim: memory.reclaim of what the scope holds (its memory.current);
# EAGAIN (not all of it could be reclaimed) is fine.
sub_reclaim() {
	local cur slab
	cur=$(cat "$SUB_CG/memory.current")
	slab=$(memcg_stat "$SUB_CG" slab_reclaimable)
	echo "$cur" >"$SUB_CG/memory.reclaim" 2>/dev/null
	echo "memory.reclaim $((cur / 1024)) KiB: memory.current -> $(($(cat "$SUB_CG/memory.current") / 1024)) KiB, slab_reclaimable $((slab / 1024)) -> $(($(memcg_stat "$SUB_CG" slab_reclaimable) / 1024)) KiB"
}

# sub_scope_end NAME: end the scope (its memcg goes offline).
sub_scope_end() {
	touch "/run/s61-sub-$1/stop"
	wait "$SUB_SCOPE_PID"
}

# sub_cycle NAME SCRIPT: the work SCRIPT in scope s61-sub-NAME (sub_scope),
# then the readings "work", "reclaimed" (after memory.reclaim of the
# scope) and "dropped" (after the scope ended and drop_caches), with
# timing lines and the report of the watched shrinkers and caches. A test
# may define sub_on_reading: called with the label before each reading
# (for the subsystem's own counters).
sub_cycle() {
	local l
	sub_scope "$1" "$2"
	sub_timing "the work in scope s61-sub-$1"
	for l in work reclaimed dropped; do
		case $l in
		reclaimed) sub_reclaim ;;
		dropped) sub_scope_end "$1"; sub_drop ;;
		esac
		! declare -F sub_on_reading >/dev/null || sub_on_reading "$l"
		sub_reading "$l"
	done
	sub_timing "memory.reclaim and drop_caches"
	sub_report work reclaimed dropped
}

# sub_drop: write back, then drop_caches (3: page cache and slab, every
# shrinker of every memcg); the freed inodes go through RCU first.
sub_drop() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
}

# sub_text FILE: 1 MiB of text (numbers, one a line) in FILE.
sub_text() {
	seq 1 250000 2>/dev/null | head -c 1048576 >"$1" && [ "$(stat -c %s "$1")" = 1048576 ]
}
export -f sub_text

# The fill, run in the scope (export -f): $SUB_DIRS directories of
# $SUB_FILES empty files each, owned by 8 users (quota: a dquot each), and
# $SUB_MIB files of 1 MiB of text (compressible, never zero pages), the
# first 16 with an extended attribute of 2000 bytes (too big for the inode:
# ext4 puts it in a block, mbcache). Prints what it made.
sub_fill() {
	local dir=$1 d u t0 t1 t2 t3
	t0=$(now_ms)
	sub_text "$dir/.text" || return 1
	for ((d = 0; d < SUB_DIRS; d++)); do
		u=$((1000 + d % 8))
		mkdir "$dir/d$d" || return 1
		(cd "$dir/d$d" && eval "touch f{1..$SUB_FILES}") || return 1
		chown -R "$u:$u" "$dir/d$d" || return 1
	done
	t1=$(now_ms)
	mkdir "$dir/data" || return 1
	for ((d = 0; d < SUB_MIB; d++)); do
		cp "$dir/.text" "$dir/data/t$d" || return 1
	done
	t2=$(now_ms)
	python3 - "$dir/data" <<'EOF' || return 1
import os, sys
for i in range(16):
    p = "%s/t%d" % (sys.argv[1], i)
    if not os.path.exists(p):
        break
    os.setxattr(p, "user.s61", b"x" * 2000)
EOF
	t3=$(now_ms)
	sync
	echo "fill: $SUB_DIRS dirs x $SUB_FILES files (8 owners): $((t1 - t0)) ms; $SUB_MIB x 1 MiB text: $((t2 - t1)) ms; 16 xattrs: $((t3 - t2)) ms; sync: $(($(now_ms) - t3)) ms"
}
export -f sub_fill
export SUB_DIRS SUB_FILES SUB_MIB

# sub_check_fill DIR: everything sub_fill made is there and reads back
# (after drop_caches: from the device).
sub_check_fill() {
	local dir=$1 n want sum
	n=$(find "$dir" -path "$dir/lost+found" -prune -o -type f -print | wc -l)
	want=$((SUB_DIRS * SUB_FILES + SUB_MIB + 1))
	[ "$n" = "$want" ] || fail "$dir has $n files after reclaim, the fill made $want"
	sum=$(cat "$dir"/data/* | cksum)
	[ "$sum" = "$(for ((i = 0; i < SUB_MIB; i++)); do cat "$dir/.text"; done | cksum)" ] ||
		fail "$dir: the data files do not read back as written"
	echo "read back: $n files, the data's checksum as written"
}
