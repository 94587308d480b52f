#!/usr/bin/env bash
# A deliberately broken kernel as a Debian package, seen failing the Debian
# system's suites (issue #27; the rule of issue #14: a test that cannot
# fail is a defect). The diff tests/broken/NAME.diff is built into the top
# of the stack with Debian's reduced config (tools/debian/deb.sh --broken
# NAME: linux-image-6.1.N-s61brk and its s61-testmod package), installed
# into the Debian image with dpkg like any .deb of ours, booted with
# systemd (tools/debian/boot.sh, judged as the top under config debian-s61:
# every test must PASS there) and the run must FAIL, with the tests the
# diff's header names among the failures.
#
# Usage: tools/debian/broken.sh [--deb FILE...] [--timeout S] NAME
#   NAME         a diff of tests/broken/ (without .diff) with a line in
#                debian-system/broken-variants:
#                  NAME  TEST[,TEST...]  OPTIONS...
#                TESTs: the Debian tests (SUITE.NAME) that must be "not ok"
#                in the run's result; OPTIONS: for tools/debian/boot.sh
#                (--suites, which is required, --only, --append ...; split
#                on blanks, no quotes). debian-smoke is added to --suites
#                and its shrinker-debugfs test to --only, as in every boot
#                of tools/debian/compare.sh. The diff itself is the one tools/boot/broken-variants.sh
#                runs in QEMU; its header stays that tool's.
#   --deb FILE.deb...  the broken .debs (linux-image-*-s61brk_* and its
#                s61-testmod-*) instead of building them
#   --timeout S  passed to tools/debian/boot.sh (default 1800)
# Record: docs/debian-broken.tsv, one line per variant (replaced when it
# runs again): name, sha1 of the diff, the stack id (stack_id of
# tools/lib/lib.sh; "-" for given .debs whose version does not name the
# checkout's top, or a checkout that is not the stack of patches/:
# tools/boot/check-claims.sh calls such a record stale), verdict (caught: the run
# failed, exit 1, and every named test with it, each by its own assertion,
# its FAIL: line; MISSED: it passed, or a named test did not fail or
# failed by a timeout or an exit of its shell; error: no build, no image,
# a hang or harness error), caught_by (per named test, "; "-separated:
# "assertion: TEST: REASON", "timeout: TEST: ...", "exit: TEST: ...",
# "TEST: pass"...), the tests that failed, the kernel's package version,
# seconds, date.
# Logs: .work/logs/debian-broken-NAME.log; the run: .work/debian-broken/NAME.
# A build (no --deb) is of the kernel checkout's top, which must be the
# stack of patches/ (tools/stack/stack.sh status: every branch exported, none behind).
# Exit: 0 caught; 1 MISSED or error; 2 bad usage (nothing built or booted).
. "$(dirname "$0")/../lib/lib.sh"
set -u

usage_error() {
	printf 'debian-broken: error: %s\n' "$*" >&2
	exit 2
}

name='' timeout=1800 debs=()
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	--deb)
		while [ $# -ge 2 ] && [[ $2 == *.deb ]]; do debs+=("$2"); shift; done
		[ ${#debs[@]} -gt 0 ] || usage_error "--deb needs the .deb files" ;;
	--timeout)
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage_error "--timeout '${2:-}': want a whole number of seconds above 0"
		timeout=$2; shift ;;
	-*) usage_error "unknown option '$1' (tools/debian/broken.sh --help)" ;;
	*)
		[ -z "$name" ] || usage_error "one variant at a time ('$name' and '$1')"
		name=${1%.diff} ;;
	esac
	shift
done
[ -n "$name" ] || usage_error "which variant? a NAME of debian-system/broken-variants (see --help)"
diff=$S61_ROOT/tests/broken/$name.diff
[ -f "$diff" ] || usage_error "no tests/broken/$name.diff"
list=$S61_ROOT/debian-system/broken-variants
[ -f "$list" ] || usage_error "no debian-system/broken-variants"
line=$(awk -v n="$name" '$1 == n { print; exit }' "$list")
[ -n "$line" ] ||
	usage_error "$name has no line in debian-system/broken-variants (NAME TESTS OPTIONS; the ones there: $(awk '!/^#/ && NF { printf "%s ", $1 }' "$list"))"
read -r _ fails runline <<<"$line"
[ -n "$runline" ] || usage_error "debian-system/broken-variants: the line of $name has no tools/debian/boot.sh options (NAME TESTS OPTIONS)"
case $runline in *[\"\']*) usage_error "debian-system/broken-variants: the line of $name has a quote; it is split on blanks (one word per value)" ;; esac
fails=${fails//,/ }
for t in $fails; do
	[[ $t =~ ^debian-[a-z]+\.[A-Za-z0-9_-]+$ ]] ||
		usage_error "debian-system/broken-variants: '$t' of $name is not a Debian test SUITE.NAME (e.g. debian-subsys.binder)"
done
read -r -a runopts <<<"$runline"
# debian-smoke in every boot, as tools/debian/compare.sh has it: the line's
# --suites (debian-boot's default when it has none) gain debian-smoke, its
# --only the shrinker-debugfs test, so a variant that breaks the shrinker
# debugfs fails a run of any line.
suites='' only='' opts=()
for ((i = 0; i < ${#runopts[@]}; i++)); do
	case ${runopts[i]} in
	--suites) suites=${runopts[i + 1]:-}; i=$((i + 1)) ;;
	--only) only=${runopts[i + 1]:-}; i=$((i + 1)) ;;
	*) opts+=("${runopts[i]}") ;;
	esac
done
[ -n "$suites" ] || usage_error "debian-system/broken-variants: the line of $name has no --suites (NAME TESTS --suites LIST [OPTIONS])"
with_debian_smoke
runopts=("${opts[@]}" --suites "$suites")
[ -z "$only" ] || runopts+=(--only "$only")
for d in "${debs[@]}"; do [ -f "$d" ] || usage_error "--deb $d: no such file"; done

# stack_ok: the kernel checkout is the stack of patches/ (its output in $st).
stack_ok() { st=$("$S61_ROOT/tools/stack/stack.sh" status 2>&1) && ! grep -q 'behind patches/' <<<"$st"; }
sid=-
if [ ${#debs[@]} = 0 ]; then
	if ! stack_ok; then
		printf '%s\n' "$st" >&2
		usage_error "the kernel checkout is not the stack of patches/ (tools/stack/stack.sh status, above): 'tools/stack/stack.sh apply' when patches/ moved on, 'tools/stack/stack.sh export' when it has commits patches/ lacks; a record must name the stack it ran on"
	fi
	sid=$(stack_id) || usage_error "cannot compute the stack id (branch-stack.txt, patches/)"
fi

log=$S61_WORK/logs/debian-broken-$name.log
out=$S61_WORK/debian-broken/$name
mkdir -p "$S61_WORK/logs" "$S61_WORK/debian-broken" || die "cannot make $S61_WORK/logs"
: >"$log"
sha=$(sha1sum "$diff" | cut -c1-12)
t0=$SECONDS
trap 'echo "debian-broken: interrupted" >&2; exit 130' INT TERM

record() {
	local verdict=$1 why=$2 failed=${3:--} version=${4:--}
	info "[$name] $verdict: $why; $((SECONDS - t0)) s"
	record_put "$S61_ROOT/docs/debian-broken.tsv" \
		"$(printf '# name\tdiff_sha1\tstack_id\tverdict\tcaught_by\tfailed\tversion\tseconds\tdate')" \
		"$name" "$sha" "$sid" "$verdict" "${by:--}" "$failed" "$version" "$((SECONDS - t0))" "$(date -u +%F)" ||
		die "cannot write docs/debian-broken.tsv"
	results_pages debian-broken
	[ "$verdict" = caught ]
	exit $?
}

if [ ${#debs[@]} = 0 ]; then
	info "[$name] building it as Debian packages (tools/debian/deb.sh --broken $name); log $log"
	mapfile -t debs < <("$S61_ROOT/tools/debian/deb.sh" --broken "$name" 2>>"$log" | grep '\.deb$')
	[ ${#debs[@]} -gt 0 ] || record error "tools/debian/deb.sh --broken $name built nothing (log: $log)"
fi
kimgs=()
for d in "${debs[@]}"; do
	case ${d##*/} in linux-image-*-s61brk_*.deb) kimgs+=("$d") ;; esac
done
kdeb=$(deb_newest "${kimgs[@]}")
[ -n "$kdeb" ] || record error "no linux-image-*-s61brk_*.deb among: ${debs[*]##*/}"
kpkg=$(deb_field "$kdeb" Package) || record error "cannot read $kdeb"
version=$(deb_field "$kdeb" Version) || record error "cannot read $kdeb"
kver=${kpkg#linux-image-}
# Given .debs are of today's stack when their version names the top's
# commit (tools/debian/deb.sh: VERSION+s61brk.COMMIT.NAME) and the checkout
# is the stack of patches/.
if [ "$sid" = - ]; then
	commit=${version##*+s61brk.}
	commit=${commit%%.*}
	if [ -e "$S61_LINUX/.git" ] && [ "$(kgit rev-parse -q --verify --short=8 "$(stack_top)" 2>/dev/null)" = "$commit" ] && stack_ok; then
		sid=$(stack_id) || sid=-
	fi
	[ "$sid" != - ] ||
		warn "$kdeb: not known to be of today's stack (its commit '$commit' is not the top of an exported kernel checkout): the record names no stack, and tools/boot/check-claims.sh calls it stale"
fi
tdeb=$(deb_testmod "$kver" "$version" "${debs[@]}")
[ -n "$tdeb" ] || record error "no s61-testmod-${kver}_${version}_*.deb beside $kdeb" - "$version"
inst=("$kdeb" "$tdeb")
img=$("$S61_ROOT/tools/debian/image.sh" --deb "${inst[@]}" 2>>"$log" | tail -n 1)
[ -f "$img" ] || record error "tools/debian/image.sh made no image (log: $log)" - "$version"

info "[$name] booting $kver ($version): tools/debian/boot.sh ${runopts[*]}"
rm -rf "$out"
"$S61_ROOT/tools/debian/boot.sh" --image "$img" --kver "$kver" --target top --config debian-s61 \
	--timeout "$timeout" --out "$out" --quiet "${runopts[@]}" >>"$log" 2>&1
rc=$?
failed=-
[ ! -f "$out/result.ktap" ] ||
	failed=$(awk '$1 == "not" && $2 == "ok" { print $4 }' "$out/result.ktap" | sort -u | paste -sd, -)
[ -n "$failed" ] || failed=-
case $rc in
0) record MISSED "the run passed" "$failed" "$version" ;;
1) ;;
*) record error "tools/debian/boot.sh exit $rc: a hang, crash or harness error, not a judged failure (log: $log)" "$failed" "$version" ;;
esac
# What failed each named test: its own assertion, or a timeout or an exit
# of its shell (ktap_caught_by, tools/lib/lib.sh), which is no catch of it.
cb=() notin=() other=()
for t in $fails; do
	state=$(ktap_caught_by "$out/result.ktap" "$t")
	case $state in
	assertion:*) cb+=("assertion: $t: ${state#assertion: }") ;;
	timeout:*|exit:*) cb+=("${state%%:*}: $t: ${state#*: }"); other+=("$t (${state})") ;;
	*) cb+=("$t: $state"); notin+=("$t") ;;
	esac
done
by=$(printf '%s; ' "${cb[@]}" | sed 's/; $//' | tr '\t\n' '  ' | cut -c1-300)
[ ${#notin[@]} = 0 ] ||
	record MISSED "the run failed (exit 1), but ${notin[*]} is not among its failures ($failed)" "$failed" "$version"
[ ${#other[@]} = 0 ] ||
	record MISSED "the run failed (exit 1), but by no assertion of its own: ${other[*]}" "$failed" "$version"
record caught "the run failed (exit 1) with $fails, each by its own assertion" "$failed" "$version"
