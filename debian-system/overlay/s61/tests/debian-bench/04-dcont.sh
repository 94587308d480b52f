#!/bin/bash
# dcont: the containers scenario the series exists for, at N = s61.n=
# (default 50). N transient scopes ('systemd-run --scope', slice
# s61dc.slice, MemoryMax= s61.dcont_memmax= 64M, MemoryHigh=
# s61.dcont_memhigh= 48M), each in a mount namespace of its own (unshare
# -m) with a tmpfs and an ext4 mounted and files written into both
# (s61.dcont_files= 4 files of 64 KiB each, s61.dcont_inodes= 100 empty
# files on the ext4), all charged to its memcg: two superblock shrinkers
# per scope, memcg-aware. The ext4 file systems are loop devices the host
# side attaches before the scopes start, one per s61.dcont_k= scopes (1:
# one each; K > 1 shares one ext4 superblock among K scopes, for when loop
# devices run out); each is a sparse copy of one s61.dcont_ext4_mb= (16)
# MiB mkfs.ext4 image. Scopes start s61.dcont_batch= (16) at a time.
#
# Then the reclaim phase: a mounter (/s61/dbench.py loop) mounts and
# unmounts a tmpfs in a fresh mount namespace per round, every system call
# timed alone, s61.dcont_gap_ms= (10) between rounds; meanwhile scope 1 is
# pushed into its limit (dd of s61.dcont_push_mb= MiB, default twice its
# MemoryMax, to a file of the root file system from a process in its
# cgroup) and memory.reclaim (s61.dcont_reclaim= 1M) is written to every
# s61.dcont_rstep=-th (5th) scope from scope 2 on. Then the teardown: every
# scope's last process ends, its namespace and mounts with it.
#
# Samples, each with "n":N: setup_ms (the first systemd-run until every
# scope has mounted and written its files), reclaim_ms (the memory.reclaim
# writes of the pass, their time alone), mount_p50_ms, mount_p99_ms,
# umount_p99_ms (the mounter's calls during the reclaim phase),
# limit_events (memory.events high + max of the pushed scope, during the
# push), teardown_ms (the end signal until no scope's cgroup is left).
#
# It fails when a scope does not get ready (s61.dcont_ready_secs=, default
# 60 + 3 s per scope), runs in another cgroup than its unit's, has other
# memory.max/memory.high, does not see its own two mounts or sees another
# scope's, when a scope mount shows in the host's namespace, the mounter
# fails a call or makes none, the push fails, is OOM-killed or never
# reaches its limit, memory.reclaim frees nothing of the scopes it was
# written to, a scope exits other than 0, a unit of the scopes is left, a
# mount of the scenario is left in any namespace, or a loop device does
# not detach.
. /s61/lib.sh
. /s61/dbench.sh
shopt -s nullglob

n=$(cmdline_arg s61.n 50)
k=$(cmdline_arg s61.dcont_k 1)
max=$(cmdline_arg s61.dcont_memmax 64M)
high=$(cmdline_arg s61.dcont_memhigh 48M)
files=$(cmdline_arg s61.dcont_files 4)
inodes=$(cmdline_arg s61.dcont_inodes 100)
ext4mb=$(cmdline_arg s61.dcont_ext4_mb 16)
batch=$(cmdline_arg s61.dcont_batch 16)
rstep=$(cmdline_arg s61.dcont_rstep 5)
ramount=$(cmdline_arg s61.dcont_reclaim 1M)
gap=$(cmdline_arg s61.dcont_gap_ms 10)
ready_secs=$(cmdline_arg s61.dcont_ready_secs $((60 + 3 * n)))
is_uint "$n" "$k" "$files" "$inodes" "$ext4mb" "$batch" "$rstep" "$gap" "$ready_secs" ||
	fail "a s61.n=/s61.dcont_* parameter is no whole number"
if [ "$n" -lt 2 ] || [ "$k" = 0 ] || [ "$batch" = 0 ] || [ "$rstep" = 0 ]; then
	fail "want s61.n >= 2, s61.dcont_k/batch/rstep >= 1"
fi
if ! max_b=$(numfmt --from=iec "$max") || ! high_b=$(numfmt --from=iec "$high"); then
	fail "s61.dcont_memmax='$max' s61.dcont_memhigh='$high': want sizes (64M)"
fi
push=$(cmdline_arg s61.dcont_push_mb $((2 * max_b / 1048576)))
is_uint "$push" || fail "s61.dcont_push_mb='$push': want MiB"
sub_tools_ok=1
for c in systemd-run unshare losetup mkfs.ext4 python3 dd numfmt; do
	command -v "$c" >/dev/null || { echo "tool missing: $c"; sub_tools_ok=0; }
done
[ $sub_tools_ok = 1 ] || fail "tools missing (above)"

slice=s61dc.slice
scg=/sys/fs/cgroup/$slice
w=/run/s61-dc
img=/var/tmp/s61-dc
mnt=/run/s61-dc-mnt
pushf=/var/tmp/s61-dc-push
rm -rf "$w" "$img" "$pushf"
mkdir -p "$w" "$img" "$mnt"
mkfifo "$w/stop" || fail "mkfifo $w/stop failed"
pids=() loops=() mpid=''
fifo_open=0
cleanup() {
	[ $fifo_open = 0 ] || exec 5>&-
	[ -z "$mpid" ] || kill -TERM "$mpid" 2>/dev/null
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	sleep 1
	systemctl stop "$slice" 2>/dev/null
	[ ${#loops[@]} = 0 ] || losetup -d "${loops[@]}" 2>/dev/null
	rm -rf "$img" "$pushf"
}
trap cleanup EXIT

# ---- the ext4 images and their loop devices ------------------------------
t0=${EPOCHREALTIME/./}
mkfs.ext4 -q -F "$img/template" "${ext4mb}M" >/dev/null || fail "mkfs.ext4 of a ${ext4mb} MiB image failed"
groups=$(((n + k - 1) / k))
for ((g = 0; g < groups; g++)); do
	cp --sparse=always "$img/template" "$img/e$g.img" || fail "cannot copy the ext4 image ($((g + 1)) of $groups)"
	dev=$(losetup -f --show "$img/e$g.img") ||
		fail "losetup of image $((g + 1)) of $groups failed (out of loop devices? s61.dcont_k= shares one among K scopes)"
	loops+=("$dev")
done
echo "dcont: N=$n scopes, $groups ext4 loop devices (s61.dcont_k=$k), MemoryMax=$max MemoryHigh=$high, $files x 64 KiB per file system, $inodes inodes; images ready in $(ms_between "$t0" "${EPOCHREALTIME/./}") ms"

# ---- setup: N scopes ------------------------------------------------------
# The body of scope $1 (in its own mount namespace): a tmpfs on /mnt, the
# ext4 on /mnt/e, the files; a line in $w/ready.$1 with the mounts it sees
# (its tmpfs, its ext4, any other scope's tmpfs) and its cgroup; then it
# waits in cat on the fifo $w/stop until the host closes it (EOF: exit 0).
# shellcheck disable=SC2016  # expanded by the scope's bash
body='i=$1 w=$2 dev=$3 files=$4 inodes=$5
mount -t tmpfs -o size=8m "s61-dc-t$i" /mnt || exit 11
mkdir /mnt/e && mount -t ext4 "$dev" /mnt/e || exit 12
mkdir -p "/mnt/e/s$i" || exit 13
printf -v chunk "%65536s" ""
for ((f = 0; f < files; f++)); do
	printf "%s" "$chunk" >"/mnt/f$f" && printf "%s" "$chunk" >"/mnt/e/s$i/f$f" || exit 14
done
for ((f = 0; f < inodes; f++)); do : >"/mnt/e/s$i/i$f" || exit 15; done
t=0 e=0 o=0
while read -r l; do
	case $l in
	*" /mnt "*" - tmpfs s61-dc-t$i "*) t=$((t + 1)) ;;
	*" - tmpfs s61-dc-t"*) o=$((o + 1)) ;;
	*" /mnt/e "*" - ext4 $dev "*) e=$((e + 1)) ;;
	esac
done </proc/self/mountinfo
read -r cg </proc/self/cgroup
echo "$t $e $o ${cg#0::}" >"$w/.r$i" && mv "$w/.r$i" "$w/ready.$i" || exit 16
exec cat "$w/stop"'

# The host holds the fifo open (read-write, so that no open blocks) until
# the teardown; every process it starts closes its copy (5>&-).
exec 5<>"$w/stop"
fifo_open=1
# NR: the scopes ready (a glob, no fork).
count_ready() { local r=("$w"/ready.*); NR=${#r[@]}; }
# check_scopes: fail when a scope ended before it was ready.
check_scopes() {
	local i
	for ((i = 1; i <= ${#pids[@]}; i++)); do
		[ -e "$w/ready.$i" ] || kill -0 "${pids[i - 1]}" 2>/dev/null ||
			{ wait "${pids[i - 1]}"; fail "scope $i ended before it was ready (exit $?): $(tr '\n' ' ' <"$w/log.$i")"; }
	done
}
t0=${EPOCHREALTIME/./}
deadline=$((t0 + ready_secs * 1000000))
for ((i = 1; i <= n; i++)); do
	count_ready
	while [ $((i - 1 - NR)) -ge "$batch" ]; do
		[ "${EPOCHREALTIME/./}" -lt "$deadline" ] || fail "only $NR of $n scopes got ready in ${ready_secs} s (still starting scope $i)"
		check_scopes
		sleep 0.05
		count_ready
	done
	systemd-run --quiet --scope --unit="s61-dc-$i" --slice="$slice" -p MemoryMax="$max" -p MemoryHigh="$high" -- \
		unshare -m --propagation private bash -c "$body" scope "$i" "$w" "${loops[(i - 1) / k]}" "$files" "$inodes" \
		5>&- </dev/null >"$w/log.$i" 2>&1 &
	pids+=($!)
done
count_ready
while [ "$NR" -lt "$n" ] && [ "${EPOCHREALTIME/./}" -lt "$deadline" ]; do
	check_scopes
	sleep 0.05
	count_ready
done
t1=${EPOCHREALTIME/./}
setup_ms=$(ms_between "$t0" "$t1")
[ "$NR" = "$n" ] || fail "only $NR of $n scopes got ready in ${ready_secs} s"
echo "timing: setup: $n scopes up, each with its tmpfs and ext4 mounted and filled: $setup_ms ms"
echo "with the scopes up: $(awk '$1 ~ /^(MemTotal|MemAvailable|Slab|SReclaimable):$/ { printf "%s %s kB ", $1, $2 }' /proc/meminfo)"

# ---- every scope where it should be --------------------------------------
cgs=()
for ((i = 1; i <= n; i++)); do
	read -r t e o cg <"$w/ready.$i"
	[ "$cg" = "/$slice/s61-dc-$i.scope" ] || fail "scope $i runs in the cgroup $cg, not /$slice/s61-dc-$i.scope"
	cg=/sys/fs/cgroup$cg
	read -r v <"$cg/memory.max"
	[ "$v" = "$max_b" ] || fail "scope $i: memory.max is $v, not $max_b"
	read -r v <"$cg/memory.high"
	[ "$v" = "$high_b" ] || fail "scope $i: memory.high is $v, not $high_b"
	[ "$t $e $o" = "1 1 0" ] || fail "scope $i sees its tmpfs $t times, its ext4 $e times and $o tmpfs of other scopes (want 1 1 0)"
	cgs+=("$cg")
done
hm=$(grep -c -e ' - tmpfs s61-dc-' -e ' /mnt/e ' /proc/self/mountinfo)
[ "$hm" = 0 ] || fail "$hm mounts of the scopes show in the host's namespace"

# ---- the reclaim phase ------------------------------------------------------
rm -f "$w/mounter" "$w/mounter.ready"
python3 "$DBENCH_PY" loop "$mnt" "$gap" "$w/mounter" 5>&- >"$w/mounter.log" 2>&1 &
mpid=$!
wait_until 60 test -e "$w/mounter.ready" || fail "the mounter did not start within 60 s: $(cat "$w/mounter.log")"
ev() { awk '$1 == "high" || $1 == "max" { s += $2 } $1 == "oom_kill" { k = $2 } END { print s + 0, k + 0 }' "${cgs[0]}/memory.events"; }
read -r ev0 oom0 <<<"$(ev)"
# shellcheck disable=SC2016  # expanded by the pushing bash
bg_start push bash -c 'exec 5>&- && echo $$ >"$0/cgroup.procs" && exec dd if=/dev/zero of="$1" bs=1M count="$2" status=none' \
	"${cgs[0]}" "$pushf" "$push"
rsub=()
for ((i = 2; i <= n; i += rstep)); do rsub+=("${cgs[i - 1]}"); done
cur0=0
for cg in "${rsub[@]}"; do read -r v <"$cg/memory.current"; cur0=$((cur0 + v)); done
met=0
t0=${EPOCHREALTIME/./}
for cg in "${rsub[@]}"; do
	! echo "$ramount" >"$cg/memory.reclaim" 2>/dev/null || met=$((met + 1))
done
t1=${EPOCHREALTIME/./}
reclaim_ms=$(ms_between "$t0" "$t1")
cur1=0
for cg in "${rsub[@]}"; do read -r v <"$cg/memory.current"; cur1=$((cur1 + v)); done
echo "timing: reclaim: memory.reclaim $ramount on ${#rsub[@]} scopes ($met met, the rest EAGAIN): $reclaim_ms ms; their memory.current $((cur0 / 1024)) -> $((cur1 / 1024)) KiB"
bg_wait push 600
prc=$?
push_ms=$BG_MS
read -r ev1 oom1 <<<"$(ev)"
kill -TERM "$mpid"
wait "$mpid"
mrc=$?
mpid=''
rm -f "$pushf"
echo "timing: push: $push MiB written in scope 1: $push_ms ms; memory.events high+max $ev0 -> $ev1, oom_kill $oom0 -> $oom1"
[ -s "$w/mounter" ] || fail "the mounter left no statistics (exit $mrc): $(cat "$w/mounter.log")"
declare -A ms
while read -r key val _; do ms[$key]=$val; done <"$w/mounter"
echo "mounter: ${ms[ops]} rounds; mount p50 ${ms[mount_p50_ms]:-} p99 ${ms[mount_p99_ms]:-} max ${ms[mount_max_ms]:-} ms; umount p50 ${ms[umount_p50_ms]:-} p99 ${ms[umount_p99_ms]:-} max ${ms[umount_max_ms]:-} ms"
[ "$mrc" = 0 ] || fail "the mounter failed (exit $mrc): $(grep '^error' "$w/mounter") $(cat "$w/mounter.log")"
[ "${ms[ops]:-0}" -gt 0 ] || fail "the mounter made no mount during the reclaim phase"
for m in mount_p50_ms mount_p99_ms umount_p99_ms; do is_ms "${ms[$m]:-}" || fail "the mounter's $m is '${ms[$m]:-}'"; done
[ "$prc" = 0 ] || fail "the push into scope 1 failed or did not end in 600 s ($prc)"
[ "$oom1" = "$oom0" ] || fail "the push into scope 1 was OOM-killed ($oom0 -> $oom1 oom_kill)"
[ "$ev1" -gt "$ev0" ] || fail "the push of $push MiB into scope 1 never reached its memory.high or memory.max"
[ "$cur1" -lt "$cur0" ] || fail "memory.reclaim freed nothing of ${#rsub[@]} scopes ($cur0 -> $cur1 bytes)"

# ---- teardown ----------------------------------------------------------------
t0=${EPOCHREALTIME/./}
exec 5>&-
fifo_open=0
bad=()
for ((i = 1; i <= n; i++)); do
	wait "${pids[i - 1]}" || bad+=("$i:$?")
done
left=("$scg"/s61-dc-*.scope)
deadline=$((${EPOCHREALTIME/./} + 120000000))
while [ ${#left[@]} -gt 0 ] && [ "${EPOCHREALTIME/./}" -lt "$deadline" ]; do
	sleep 0.05
	left=("$scg"/s61-dc-*.scope)
done
t1=${EPOCHREALTIME/./}
teardown_ms=$(ms_between "$t0" "$t1")
pids=()
echo "timing: teardown: $n scopes ended, their cgroups gone: $teardown_ms ms"
[ ${#bad[@]} = 0 ] || fail "${#bad[@]} of $n scopes did not exit 0 (scope:status): ${bad[*]}"
[ ${#left[@]} = 0 ] || fail "${#left[@]} scope cgroups still there 120 s after the end: ${left[*]}"
units=$(systemctl list-units --all --no-legend --plain 's61-dc-*' | awk '{ print $1 }')
[ -z "$units" ] || fail "units left after the scopes ended: ${units//$'\n'/ }"
# Any mount of the scenario in any namespace: the scopes' tmpfs and ext4,
# the mounter's tmpfs.
pat=" - tmpfs s61-dc-"
for dev in "${loops[@]}"; do pat="$pat| - ext4 $dev "; done
lm=$(cat /proc/[0-9]*/mountinfo 2>/dev/null | grep -cE -e "$pat")
[ "$lm" = 0 ] || fail "$lm mounts of the scenario left in some mount namespace"
losetup -d "${loops[@]}" || fail "losetup -d of the ext4 loop devices failed"
stuck=()
for dev in "${loops[@]}"; do
	wait_until 10 test ! -e "/sys/block/${dev#/dev/}/loop/backing_file" || stuck+=("$dev")
done
loops=()
[ ${#stuck[@]} = 0 ] || fail "loop devices still bound 10 s after losetup -d: ${stuck[*]}"
systemctl stop "$slice"

sample dcont setup_ms "$setup_ms" "\"n\":$n"
sample dcont reclaim_ms "$reclaim_ms" "\"n\":$n"
sample dcont mount_p50_ms "${ms[mount_p50_ms]}" "\"n\":$n"
sample dcont mount_p99_ms "${ms[mount_p99_ms]}" "\"n\":$n"
sample dcont umount_p99_ms "${ms[umount_p99_ms]}" "\"n\":$n"
sample dcont limit_events $((ev1 - ev0)) "\"n\":$n"
sample dcont teardown_ms "$teardown_ms" "\"n\":$n"
rm -rf "$w" "$img"
pass
