#!/usr/bin/env bash
# A negative control with its option off: run one of check-top's controls
# (tools/boot/guest-test.sh ... --expect-splat RE) on a kernel whose config lacks
# the option that control proves, and pass only when that run FAILS for
# the one reason the control exists for: its expected splat is missing.
# So a control that passes with the option on (check-top) and fails with
# it off (here) is shown to depend on that option and nothing else.
#
# Usage: tools/boot/control-off.sh --off CONFIG_X [--off ...] -- GUEST-TEST-ARGS...
#   --off CONFIG_X   a config option the run's kernel must NOT have: its boot
#                    banner (CONFIG_KASAN, CONFIG_LOCKDEP, CONFIG_DEBUG_KMEMLEAK)
#                    must be absent from the console, and the config's build
#                    directory, if there is one, must not set it
#   GUEST-TEST-ARGS  as for tools/boot/guest-test.sh, with --config and at least one
#                    --expect-splat (the control's arguments in check-top)
# Passes (exit 0) only when guest-test exits 1 and its run shows all of:
# the guest's results passed (qemu/run's judged record: ktap 0, no run
# problem, s61-exit 0), the console scan failed (splat 1), the scan's
# output names every --expect-splat RE as EXPECTED SPLAT MISSING, and the
# console has no splat at all and no dropped printk messages (qemu/run
# --scan-console without expectations exits 0).
# Environment: S61_GUEST_TEST, the guest-test to run (default
# tools/boot/guest-test.sh; the tests give a stub).
# Exit: 0 the control failed as it must, 1 it did not (it passed, or failed
# for another reason), 3 bad usage or a harness error.
. "$(dirname "$0")/../lib/lib.sh"

usage() { echo "tools/boot/control-off.sh: $*" >&2; exit 3; }
offs=()
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) sed -n '2,25s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--off)
		[[ ${2:-} =~ ^CONFIG_[A-Z0-9_]+$ ]] || usage "--off wants a config option name like CONFIG_KASAN, not '${2:-}'"
		offs+=("$2"); shift ;;
	--) shift; break ;;
	*) usage "unknown argument $1 (options go before --, guest-test's after it; see --help)" ;;
	esac
	shift
done
[ ${#offs[@]} -gt 0 ] || usage "which option must be off? (--off CONFIG_X, see --help)"
[ $# -gt 0 ] || usage "no guest-test arguments after -- (see --help)"
config='' res=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	case ${args[i]} in
	--config) config=${args[i + 1]:-} ;;
	--expect-splat) res+=("${args[i + 1]:-}") ;;
	esac
done
[ -n "$config" ] || usage "the guest-test arguments need --config NAME (the config without the option)"
[ ${#res[@]} -gt 0 ] || usage "the guest-test arguments have no --expect-splat: there is no control to turn off"

gt=${S61_GUEST_TEST:-$S61_ROOT/tools/boot/guest-test.sh}
tmp=$(mktemp) || die "cannot make a temporary file"
trap 'rm -f "$tmp"' EXIT
"$gt" "$@" 2>&1 | tee "$tmp"
rc=${PIPESTATUS[0]}
bad() { echo "CONTROL-OFF FAILED: $*"; exit 1; }
run=$(sed -n 's/^run: //p' "$tmp" | tail -1)
case $rc in
0) bad "the run passed on [$config]: the expected splat was seen without ${offs[*]}, so the control does not prove that option is on" ;;
1) ;;
*) bad "guest-test exited $rc (2: hang or no result, 3: harness error, 125: no kernel), not 1: the control did not run to its judgement" ;;
esac
{ [ -n "$run" ] && [ -f "$run/judged" ]; } || bad "guest-test's output names no run directory with a judged record (qemu/run's 'run: DIR')"
# The booted kernel lacks the option: its boot banner is not on the console
# (these three print one at boot), and the build's .config, where
# guest-test built it here rather than taking it from the kernel cache,
# does not set it. (Were the option on, its report would have passed the
# run above; this names the cause when something else hid it.)
declare -A banner=([CONFIG_KASAN]='KernelAddressSanitizer initialized'
	[CONFIG_LOCKDEP]='Lock dependency validator'
	[CONFIG_DEBUG_KMEMLEAK]='kmemleak: Kernel memory leak detector')
bdir=$S61_WORK/build/$config
for o in "${offs[@]}"; do
	if [ -n "${banner[$o]:-}" ] && grep -qaF "${banner[$o]}" "$run/console.log"; then
		bad "the console of $run has '${banner[$o]}': the kernel has $o, so this run proves nothing"
	fi
	if [ -f "$bdir/.config" ] && grep -q "^$o=[ym]" "$bdir/.config"; then
		bad "$bdir/.config has $(grep "^$o=" "$bdir/.config"): the option is on, so this run proves nothing"
	fi
done
declare -A j=()
while read -r k v; do j[$k]=${v:-}; done <"$run/judged"
[ "${j[ktap]:-x}" = 0 ] || bad "the guest's results did not pass (ktap-summary exit ${j[ktap]:-missing}): the run failed for another reason"
[ -z "${j[problem]:-}" ] || bad "the run had a problem (hang or no result): see above"
[ "${j[exit]:-x}" = 0 ] || bad "the guest init exited ${j[exit]:-nothing}, not 0"
[ "${j[splat]:-x}" = 1 ] || bad "the console scan returned ${j[splat]:-nothing}, not 1 (the missing splat)"
for re in "${res[@]}"; do
	grep -qF "EXPECTED SPLAT MISSING: no kernel line on the console ($run/console.log) matches /$re/" "$tmp" ||
		bad "no 'EXPECTED SPLAT MISSING' for /$re/ in the run's output"
done
if ! scan=$("$S61_ROOT/qemu/run" --scan-console "$run/console.log" 2>&1); then
	printf '%s\n' "$scan"
	bad "the console of $run has a splat or dropped messages of its own: the run failed for another reason too"
fi
echo "control-off: PASS: on [$config] without ${offs[*]} the control failed for its missing splat only ($run)"
