#!/usr/bin/env bash
# The debug flavour's run on the Debian system (issue #27: the same
# workload for >= 10 minutes with zero reports): the debug .deb
# (tools/debian/deb.sh --flavour debug: KASAN, lockdep, PROVE_RCU, kmemleak)
# installed in the Debian image with dpkg, booted with systemd, and every
# test of debian-smoke, debian-subsys and debian-bench run but the ones
# debian-system/debug-left-out names (a report of 6.1.192 itself, fixed
# upstream, not in 6.1.y). tools/debian/boot.sh judges it as every run: the
# manifest, the splat scan, taint; a KASAN, lockdep, RCU or kmemleak report
# fails it.
#
# Usage: tools/debian/debug-run.sh [--base] [--left-out] [options]
#   --base         base's debug flavour (linux-image-*-s61basedbg_*.deb,
#                  judged as target base) instead of the top's (-s61dbg_,
#                  target top); config debian-s61 for both
#   --left-out     run only the tests of debian-system/debug-left-out (to
#                  show their report is still there, on top and on base);
#                  such a run is expected to fail
#   --debs DIR     where the .debs are looked for (default .work/debs): the
#                  newest kernel package of the flavour and its
#                  s61-testmod package of the same version
#   --deb FILE...  the kernel .deb and its s61-testmod .deb instead
#   --machine M    QEMU's machine, passed to tools/debian/boot.sh: q35 (the
#                  default) or pc. On pc the debug kernel under TCG can
#                  take longer than ACPICA's 30 s While-loop limit in the
#                  DSDT's _PRT, and the virtio-balloon device is then left
#                  without an interrupt route (docs/debian-system.md)
#   --timeout S    passed to tools/debian/boot.sh (default 5400)
#   --test-timeout S  each test's limit in the guest (s61.test_timeout=,
#                  default 1800; the runner's own default of 600 s is what
#                  memcg-scopes takes on this flavour: 562-599 s on pc,
#                  over 600 s once on q35)
#   --out DIR      tools/debian/boot.sh's --out (default
#                  .work/debian-runs/debug-<time>)
# Record: docs/debian-debug.tsv, a line per run, every run kept: date,
# kernel package version, what ran (all-but-left-out or left-out), the
# tests left out, tools/debian/boot.sh's exit, seconds, the run directory,
# QEMU's machine, and the known splats and reports of
# debian-system/known-splats the run carried ("UPSTREAM-ID:COUNT", comma
# separated, from tools/debian/boot.sh's OUT/known-splats; "-" none; "?" no
# such file: the boot ended before its scan), then the stack id (stack_id
# of tools/lib/lib.sh) and this clone's commit, so that
# docs/results/debian-debug.md (tools/lib/results.py debian-debug) marks a
# row of another stack. A file whose header lacks those columns gets them.
# Exit: tools/debian/boot.sh's (0 pass; 1 a test failed or a splat; 2 hang or
# crash; 3 harness error); 2 bad usage (nothing booted).
. "$(dirname "$0")/../lib/lib.sh"
set -u

usage_error() {
	printf 'debian-debug-run: error: %s\n' "$*" >&2
	exit 2
}

base=0 leftout=0 debsdir=$S61_WORK/debs timeout=5400 ttimeout=1800 machine=q35 out='' debs=()
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	--base) base=1 ;;
	--left-out) leftout=1 ;;
	--debs)
		[ -d "${2:-}" ] || usage_error "--debs '${2:-}': no such directory"
		debsdir=$2; shift ;;
	--deb)
		while [ $# -ge 2 ] && [[ $2 == *.deb ]]; do debs+=("$2"); shift; done
		[ ${#debs[@]} = 2 ] || usage_error "--deb needs two files: the kernel .deb and its s61-testmod .deb"
		;;
	--machine)
		case ${2:-} in pc|q35) ;; *) usage_error "--machine '${2:-}': want q35 or pc" ;; esac
		machine=$2; shift ;;
	--timeout)
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage_error "--timeout '${2:-}': want a whole number of seconds above 0"
		timeout=$2; shift ;;
	--test-timeout)
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage_error "--test-timeout '${2:-}': want a whole number of seconds above 0"
		ttimeout=$2; shift ;;
	--out)
		[ -n "${2:-}" ] || usage_error "--out needs a directory"
		out=$2; shift ;;
	*) usage_error "unknown argument '$1' (tools/debian/debug-run.sh --help)" ;;
	esac
	shift
done
if [ "$base" = 1 ]; then flav=s61basedbg target=base; else flav=s61dbg target=top; fi
tests=$S61_ROOT/debian-system/overlay/s61/tests
suites=debian-smoke,debian-subsys,debian-bench

# debian-system/debug-left-out, checked whole before anything boots.
list=$S61_ROOT/debian-system/debug-left-out
[ -f "$list" ] || usage_error "no debian-system/debug-left-out (an empty list is a file with comments only)"
left=() n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	case $line in '#'*|'') continue ;; esac
	[[ $line =~ ^(debian-[a-z]+)\.([A-Za-z0-9_-]+)[[:blank:]]+([0-9a-f]{12,40})[[:blank:]]+\"([^\"]+)\"[[:blank:]]+[^[:blank:]] ]] ||
		usage_error "debian-system/debug-left-out line $n does not parse (want: SUITE.NAME UPSTREAM-ID \"TITLE\" REASON): $line"
	[[ ,$suites, == *",${BASH_REMATCH[1]},"* ]] ||
		usage_error "debian-system/debug-left-out line $n: suite ${BASH_REMATCH[1]} is not one of the run's ($suites)"
	set -- "$tests/${BASH_REMATCH[1]}"/[0-9]*-"${BASH_REMATCH[2]}".sh
	[ -f "$1" ] || usage_error "debian-system/debug-left-out line $n: no test ${BASH_REMATCH[1]}.${BASH_REMATCH[2]} in debian-system/overlay/s61/tests"
	[[ " ${left[*]} " != *" ${BASH_REMATCH[1]}.${BASH_REMATCH[2]} "* ]] ||
		usage_error "debian-system/debug-left-out line $n: ${BASH_REMATCH[1]}.${BASH_REMATCH[2]} is there twice"
	left+=("${BASH_REMATCH[1]}.${BASH_REMATCH[2]}")
done <"$list"

# The guest's s61.only= takes test names (without the suite): the run's
# list, and no left-out name that a kept test of another suite also has.
keep=() lnames=()
for t in "${left[@]}"; do lnames+=("${t#*.}"); done
for s in ${suites//,/ }; do
	for f in "$tests/$s"/[0-9]*-*.sh; do
		nm=${f##*/}; nm=${nm#*-}; nm=${nm%.sh}
		[[ " ${left[*]} " == *" $s.$nm "* ]] && continue
		[[ " ${lnames[*]} " != *" $nm "* ]] ||
			usage_error "debian-system/debug-left-out: $s.$nm is kept but has the name of a left-out test (s61.only= matches names, not SUITE.NAME)"
		[[ " ${keep[*]} " == *" $nm "* ]] || keep+=("$nm")
	done
done
if [ "$leftout" = 1 ]; then
	[ ${#left[@]} -gt 0 ] || usage_error "--left-out: debian-system/debug-left-out names no test"
	only=$(IFS=,; echo "${lnames[*]}") what=left-out
else
	only=$(IFS=,; echo "${keep[*]}") what=all-but-left-out
fi

# The packages: the kernel of the flavour and its test module.
if [ ${#debs[@]} = 0 ]; then
	kdeb=$(deb_newest "$debsdir"/linux-image-*-"$flav"_*.deb)
	[ -n "$kdeb" ] || usage_error "no linux-image-*-${flav}_*.deb in $debsdir (build it: tools/debian/deb.sh --flavour debug$([ "$base" = 1 ] && echo ' base'))"
	kpkg=$(deb_field "$kdeb" Package) || usage_error "cannot read $kdeb"
	version=$(deb_field "$kdeb" Version) || usage_error "cannot read $kdeb"
	tdeb=$(deb_testmod "${kpkg#linux-image-}" "$version" "$debsdir"/s61-testmod-*.deb)
	[ -n "$tdeb" ] || usage_error "no s61-testmod-${kpkg#linux-image-}_${version}_amd64.deb beside ${kdeb##*/} (tools/debian/deb.sh builds both)"
	debs=("$kdeb" "$tdeb")
fi
for d in "${debs[@]}"; do [ -f "$d" ] || usage_error "--deb $d: no such file"; done
kpkg=$(deb_field "${debs[0]}" Package) || usage_error "cannot read ${debs[0]}"
version=$(deb_field "${debs[0]}" Version) || usage_error "cannot read ${debs[0]}"
[[ $kpkg == linux-image-*-"$flav" ]] ||
	usage_error "${debs[0]##*/} is $kpkg, not a linux-image-*-$flav (the first --deb is the kernel of the flavour$([ "$base" = 1 ] || echo '; base: --base'))"
kver=${kpkg#linux-image-}
[ -n "$(deb_testmod "$kver" '' "${debs[1]}")" ] ||
	usage_error "${debs[1]##*/} is not s61-testmod-$kver (nor a package that depends on $kpkg)"

[ -n "$out" ] || out=$S61_WORK/debian-runs/debug-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$(dirname "$out")" || die "cannot make $(dirname "$out")"
img=$("$S61_ROOT/tools/debian/image.sh" --deb "${debs[@]}" | tail -n 1)
[ -f "$img" ] || die "tools/debian/image.sh made no image"
info "$kver ($version), target $target, machine $machine: $what: --only $only${left[*]:+ (left out: ${left[*]})}"
t0=$SECONDS
# The record reads OUT/known-splats of this boot only: an earlier run's
# file in a reused OUT (--out, or two runs in one second) is not this one's.
rm -f "$out/known-splats" || die "cannot remove $out/known-splats of an earlier run"
"$S61_ROOT/tools/debian/boot.sh" --machine "$machine" --image "$img" --kver "$kver" --target "$target" --config debian-s61 \
	--suites "$suites" --only "$only" --append "s61.test_timeout=$ttimeout" --timeout "$timeout" --out "$out" --quiet
rc=$?
rec=$S61_ROOT/docs/debian-debug.tsv
[ -f "$rec" ] || printf '# date\tversion\tran\tleft_out\trc\tseconds\trun\tmachine\tallowed\tstack_id\tcommit\n' >"$rec"
sed -i -e '1s/\tmachine$/\tmachine\tallowed/' -e '1s/\tallowed$/\tallowed\tstack_id\tcommit/' "$rec" || die "cannot write docs/debian-debug.tsv"
sid=$(stack_id) || sid=-
commit=$(git -C "$S61_ROOT" rev-parse --short=12 HEAD 2>/dev/null) || commit=-
allowed='?'
if [ -f "$out/known-splats" ]; then
	allowed=$(awk -F'\t' '$1 > 0 { printf "%s%s:%s", s, $2, $1; s = "," }' "$out/known-splats")
	[ -n "$allowed" ] || allowed=-
fi
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%F)" "$version" "$what" "$(IFS=,; echo "${left[*]:--}")" \
	"$rc" "$((SECONDS - t0))" "${out##*/}" "$machine" "$allowed" "$sid" "$commit" >>"$rec" || die "cannot write docs/debian-debug.tsv"
results_pages debian-debug timings
info "tools/debian/boot.sh exit $rc after $((SECONDS - t0)) s; run $out; known splats and reports carried: $allowed; recorded in docs/debian-debug.tsv"
exit "$rc"
