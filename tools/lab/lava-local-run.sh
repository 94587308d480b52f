#!/usr/bin/env bash
# A real LAVA run on this machine, without a LAVA server: the job that
# tools/lab/lava-jobs.sh writes for one branch tip, run by Debian's lava-run
# (lava-dispatcher) with our device configuration lava/device-qemu-tcg.yaml
# and file:// artifacts staged from the kernel cache; then LAVA's test
# cases compared with our own judged run of the same kernel (tools/lab/kcidb.py
# compare). Takes as long as two guest runs (TCG); see docs/lava.md.
#
# Usage: tools/lab/lava-local-run.sh [options] BRANCH
#   --config NAME    boot (default) or debug
#   --job-id N       LAVA job id (default: 1)
#   --out DIR        work directory (default: .work/lava/<branch>-<config>-<time>)
#   --ours RUNDIR    our own run to compare with (a .work/runs/ directory of
#                    this branch and config); default: boot it now with
#                    tools/boot/guest-test.sh (same kernel, same suites)
#   --validate-only  stage and write the job, then only `lava-run --validate`
#                    (nothing boots)
# The kernel must be in the kernel cache (tools/boot/guest-test.sh --config NAME
# BRANCH puts it there). Staged: OUT/artifacts/kernels/<key>/bzImage (the
# cached kernel) and initramfs.cpio (qemu/mkinitramfs with the entry's
# modules and test modules), as a lab publishes them. lava-run runs as
#   lava-run --job-id N --output-dir OUT/lava OUT/jobs/JOB.yaml
#            --device lava/device-qemu-tcg.yaml
# its log in OUT/lava-run.log; KCIDB JSON of both runs in OUT/.
# Exit: 0 when LAVA's results match ours; 1 on a difference or an error.
. "$(dirname "$0")/../lib/lib.sh"

config=boot job_id=1 out='' ours='' validate_only=0 branch=''
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	--config) config=${2:?--config needs boot or debug}; shift ;;
	--job-id) job_id=${2:?--job-id needs a number}; shift ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--ours) ours=${2:?--ours needs a run directory}; shift ;;
	--validate-only) validate_only=1 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) [ -z "$branch" ] || die "one branch only ('$branch' and '$1')"; branch=$1 ;;
	esac
	shift
done
[ -n "$branch" ] || die "which branch? (see --help)"
stack_has_branch "$branch" || die "unknown branch '$branch'; branch-stack.txt has: base $(stack_branches | tr '\n' ' ')"
case $job_id in ''|*[!0-9]*) die "--job-id wants a number, not '$job_id'" ;; esac
[ -z "$ours" ] || [ -f "$ours/result.ktap" ] || die "--ours: no result.ktap in '$ours'"
command -v lava-run >/dev/null || die "lava-run is missing; run 'tools/build/deps.sh lava-run' (lava-dispatcher)"
[ "$(id -u)" = 0 ] || die "lava-run must run as root"
require_checkout
entry=$("$S61_ROOT/tools/build/kcache.sh" get "$config" "$branch") ||
	die "$branch [$config] is not in the kernel cache; build and boot it once: tools/boot/guest-test.sh --config $config $branch"
key=$(basename "$entry")
[ -n "$out" ] || out=$S61_WORK/lava/$branch-$config-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)

# --- artifacts, as a lab would publish them ---------------------------------
art=$out/artifacts/kernels/$key
mkdir -p "$art"
cp "$entry/bzImage" "$art/bzImage" || die "cannot copy $entry/bzImage"
args=()
[ ! -d "$entry/modinst" ] || args+=(--modules "$entry/modinst")
for ko in "$entry"/*.ko; do
	[ -f "$ko" ] && args+=(--add "$ko:/s61/modules/$(basename "$ko")")
done
img=$("$S61_ROOT/qemu/mkinitramfs" -o "$out/initramfs.img" "${args[@]}") || die "qemu/mkinitramfs failed"
cp "$img" "$art/initramfs.cpio" || die "cannot copy $img"

# --- the job and lava-run ---------------------------------------------------
"$S61_ROOT/tools/lab/lava-jobs.sh" "$branch" --config "$config" -o "$out/jobs" \
	--artifacts "file://$out/artifacts" || exit 1
job=$out/jobs/$branch-$config.yaml
device=$S61_ROOT/lava/device-qemu-tcg.yaml
lr=(lava-run --job-id "$job_id" --output-dir "$out/lava" "$job" --device "$device")
if [ $validate_only = 1 ]; then
	"${lr[@]}" --validate >"$out/lava-run.log" 2>&1 ||
		{ tail -5 "$out/lava-run.log" >&2; die "lava-run --validate failed (log: $out/lava-run.log)"; }
	info "job valid for lava-run ($job); log: $out/lava-run.log"
	exit 0
fi
info "lava-run: ${lr[*]}"
t0=$SECONDS
"${lr[@]}" >"$out/lava-run.log" 2>&1
lrc=$?
info "lava-run exit $lrc after $((SECONDS - t0)) s; log: $out/lava-run.log"
/usr/bin/python3 "$S61_ROOT/tools/lab/kcidb.py" lava "$out/lava-run.log" --job "$job" --job-id "$job_id" \
	-o "$out/kcidb-lava.json" || warn "no KCIDB document from the LAVA run"

# --- our own judged run of the same kernel ------------------------------------
if [ -z "$ours" ]; then
	suites=$(awk '/^  s61.suites:/ { print $2 }' "$job")
	append=$(sed -n 's/.*s61\.suites=[^ ]* \(.*\) s61\.lava=1.*/\1/p' "$job")
	ga=(--config "$config" --suites "$suites")
	[ -z "$append" ] || ga+=(--append "$append")
	[ "$config" != debug ] || ga+=(--timeout 1800)
	t0=$SECONDS
	"$S61_ROOT/tools/boot/guest-test.sh" "${ga[@]}" "$branch" | tee "$out/guest-test.log"
	info "tools/boot/guest-test.sh took $((SECONDS - t0)) s"
	ours=$(sed -n 's/^run: //p' "$out/guest-test.log" | tail -1)
	[ -f "${ours:-/nonexistent}/result.ktap" ] || die "tools/boot/guest-test.sh left no run directory (see $out/guest-test.log)"
fi
/usr/bin/python3 "$S61_ROOT/tools/lab/kcidb.py" run "$ours" --branch "$branch" \
	--commit "$(kgit rev-parse "$branch^{commit}")" --config "$config" --kcache-key "$key" \
	-o "$out/kcidb-ours.json" || warn "no KCIDB document from our run"
/usr/bin/python3 "$S61_ROOT/tools/lab/kcidb.py" compare --lava "$out/lava-run.log" --ktap "$ours/result.ktap" |
	tee "$out/compare.txt"
rc=${PIPESTATUS[0]}
[ $lrc = 0 ] || { warn "lava-run failed (exit $lrc): see $out/lava-run.log"; rc=1; }
exit "$rc"
