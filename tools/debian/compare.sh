#!/usr/bin/env bash
# Boot one Debian 12 image alternately on up to three kernels and compare
# them (issue #27, section 3): Debian's stock 6.1.192-3 ("stock", from apt:
# tools/debian/image.sh --kernel stock), base built with Debian's reduced
# config ("base", linux-image-*-s61base_*.deb of tools/debian/deb.sh) and the
# series built with the same config ("top", linux-image-*-s61_*.deb):
# base/stock shows the config, top/base the series.
#
# Usage: tools/debian/compare.sh [options]
#   --kernels LIST   some of stock,base,top (default: stock and each of base
#                    and top whose .deb is found; one not found is named in
#                    the report as not in the comparison)
#   --debs DIR       where the .debs are looked for (default .work/debs): the
#                    newest linux-image-*-s61base_*.deb and -s61_*.deb
#   --deb FILE...    the .debs instead (the package name tells base from top)
#   --rounds R       rounds (default 3); each boots every kernel once, the
#                    order rotated by one per round (stock base top, then
#                    base top stock, then top stock base, ...)
#   --n N            passed to the guest as s61.n= (tools/debian/boot.sh --n);
#                    without it none is given, so tools/debian/boot.sh's and
#                    the tests' own defaults hold (debian-bench's dcont: 50)
#   --suites LIST    guest suites (default debian-bench); debian-smoke is
#                    added after them to every boot (with --only NAMES:
#                    its shrinker-debugfs test)   --only NAMES
#   --append ARGS    more kernel command line for every boot
#   --timeout S      limit of one boot (default 1800)
#   --out DIR        the run directory (default .work/debian-compare/<stamp>)
#   --no-docs        the report into the run directory, not docs/
#   --report-only DIR  boot nothing: the report of run directory DIR anew
# The image: one tools/debian/image.sh call with --kernel stock and the .debs
# (with the companion s61-testmod-* package of each kernel found beside its
# .deb: package s61-testmod-KVER, or one that depends on linux-image-KVER);
# each boot is tools/debian/boot.sh --image IMG --kver KVER (judged as target
# base/config debian for stock, base/debian-s61 and top/debian-s61 for the
# .debs: their config has CONFIG_SHRINKER_DEBUG; tools/debian/boot.sh allows
# the known splats of debian-system/known-splats for that target and
# config: such a run passes and counts, the report names the splat and its
# count per run). Every run, failed or not,
# stays in DIR: meta.env, runs.env (a line per boot: round, order, kernel,
# rc, load), runs/r<N>-<kernel>/ (tools/debian/boot.sh's --out) and
# runs/r<N>-<kernel>.log. The report (tools/debian/report.py): per metric
# of debian-bench the kernels' medians and the ratios top/base, base/stock,
# top/stock round by round, a verdict only when a ratio's spread excludes
# 1.0; failed runs named, never counted. Written to
# docs/debian-bench/<stamp>.{md,json,png}, then the page
# docs/results/debian-compare.md anew. The report names the run (its
# stamp), the commit and stack id of this clone and the kind of machine
# (S61_MACHINE, e.g. "CI (fresh Debian 12, 2 cores)"; default the host's
# architecture and CPU count), not the run directory's path.
# Exit: 0 every boot passed and the report is written; 1 a boot failed (the
# report names it); 2 bad usage (nothing built or booted); 3 harness error
# (the image, the report); 130 interrupted (Ctrl-C: the boot running is
# stopped, the runs so far are kept, --report-only DIR reports them).
. "$(dirname "$0")/../lib/lib.sh"
set -u

DEBIAN_IMAGE=$S61_ROOT/tools/debian/image.sh
DEBIAN_BOOT=$S61_ROOT/tools/debian/boot.sh
REPORT=$S61_ROOT/tools/debian/report.py
TESTS=$S61_ROOT/debian-system/overlay/s61/tests
DOCS=$S61_ROOT/docs
# Debian's kernel: the package tools/debian/image.sh installs for --kernel stock.
STOCK_PKG=$(sed -n 's/^STOCK=//p' "$DEBIAN_IMAGE" | head -n 1)

usage_error() {
	printf 'debian-compare: error: %s\n' "$*" >&2
	exit 2
}
harness_error() {
	printf 'debian-compare: error: %s\n' "$*" >&2
	exit 3
}
value() {
	if [ $# -lt 3 ] || [ -z "$3" ]; then usage_error "$2 needs a value (see --help)"; fi
	printf -v "$1" '%s' "$3"
}

kernels_opt='' debdir=$S61_WORK/debs rounds=3 n='' suites=debian-bench only='' append=''
timeout=1800 out='' docs=1 report_only='' debs_given=0
given=()
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	--kernels) value kernels_opt "$@"; shift ;;
	--debs) value debdir "$@"; debs_given=1; shift ;;
	--deb)
		if [ $# -lt 2 ] || [ "${2#-}" != "$2" ]; then usage_error "--deb needs at least one .deb file"; fi
		while [ $# -ge 2 ] && [ "${2#-}" = "$2" ]; do given+=("$2"); shift; done ;;
	--rounds) value rounds "$@"; shift ;;
	--n) value n "$@"; shift ;;
	--suites) value suites "$@"; shift ;;
	--only) value only "$@"; shift ;;
	--append) value append "$@"; shift ;;
	--timeout) value timeout "$@"; shift ;;
	--out) value out "$@"; shift ;;
	--no-docs) docs=0 ;;
	--report-only) value report_only "$@"; shift ;;
	*) usage_error "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
for v in rounds:"$rounds" ${n:+n:"$n"} timeout:"$timeout"; do
	[[ ${v#*:} =~ ^[1-9][0-9]*$ ]] || usage_error "--${v%%:*} '${v#*:}': want a whole number above 0"
done

# The report of run directory $1: into docs/debian-bench/<stamp>.* and the
# page docs/results/debian-compare.md, or (--no-docs) into the directory.
report() {
	local dir=$1 stamp md js png
	if [ "$docs" = 1 ]; then
		stamp=$(sed -n 's/^stamp=//p' "$dir/meta.env" | head -n 1)
		[[ $stamp =~ ^[0-9]{8}-[0-9]{6}$ ]] || harness_error "$dir/meta.env has no stamp=YYYYMMDD-HHMMSS"
		md=$DOCS/debian-bench/$stamp.md js=$DOCS/debian-bench/$stamp.json png=$DOCS/debian-bench/$stamp.png
	else
		md=$dir/report.md js=$dir/report.json png=$dir/report.png
	fi
	python3 "$REPORT" --runs "$dir" --md "$md" --json "$js" --png "$png" ||
		harness_error "tools/debian/report.py failed on $dir (above)"
	[ "$docs" = 0 ] || python3 "$REPORT" --page "$DOCS/results/debian-compare.md" --dir "$DOCS/debian-bench" ||
		harness_error "tools/debian/report.py --page failed (above)"
}

if [ -n "$report_only" ]; then
	[ -f "$report_only/meta.env" ] ||
		usage_error "--report-only: $report_only is not a tools/debian/compare.sh run directory (no meta.env)"
	report "$report_only"
	exit 0
fi

# ---- the suites -----------------------------------------------------------
have_suites=$(cd "$TESTS" && for d in */; do printf '%s ' "${d%/}"; done)
for s in ${suites//,/ }; do
	[ -d "$TESTS/$s" ] || usage_error "--suites: no suite '$s' in $TESTS (have: $have_suites)"
done
[ -n "${suites//,/}" ] || usage_error "--suites is empty (have: $have_suites)"
# debian-smoke in every boot (with --only, its shrinker-debugfs test).
with_debian_smoke

# ---- the kernels and their packages ---------------------------------------
# role FILE: base, top, testmod or nothing, from the package name.
role() {
	local p
	p=$(deb_field "$1" Package) || return 0
	case $p in
	linux-image-*-dbg) ;;
	linux-image-*-s61base) echo base ;;
	linux-image-*-s61) echo top ;;
	s61-testmod-*) echo testmod ;;
	esac
}
declare -A deb kver testmod missing
testmods=()
if [ ${#given[@]} -gt 0 ]; then
	for f in "${given[@]}"; do
		[ -f "$f" ] || usage_error "--deb $f: no such file (make deb writes them to .work/debs)"
		deb_field "$f" Package >/dev/null ||
			usage_error "--deb $f: not a .deb (dpkg-deb -f cannot read it)"
		r=$(role "$f")
		case $r in
		base|top)
			[ -z "${deb[$r]:-}" ] || usage_error "--deb: two .debs of $r: ${deb[$r]} and $f; give one"
			deb[$r]=$f ;;
		testmod) testmods+=("$f") ;;
		*) usage_error "--deb $f: package '$(deb_field "$f" Package)' is none of linux-image-*-s61base (base), linux-image-*-s61 (top) or s61-testmod-*" ;;
		esac
	done
	for r in base top; do
		[ -n "${deb[$r]:-}" ] || missing[$r]="no --deb of it given"
	done
	debdir=''
else
	[ "$debs_given" = 0 ] || [ -d "$debdir" ] ||
		usage_error "--debs $debdir: no such directory (make deb writes the .debs to .work/debs)"
	# The newest of each kind in --debs (tools/debian/deb.sh leaves older ones).
	for r in base top; do
		if [ "$r" = base ]; then glob='linux-image-*-s61base_*.deb'; else glob='linux-image-*-s61_*.deb'; fi
		ofrole=()
		for f in "$debdir"/$glob; do
			[ ! -f "$f" ] || [ "$(role "$f")" != "$r" ] || ofrole+=("$f")
		done
		best=$(deb_newest "${ofrole[@]}")
		if [ -n "$best" ]; then
			deb[$r]=$best
			[ ${#ofrole[@]} = 1 ] || info "$r: the newest of ${#ofrole[@]} $glob in $debdir: ${best##*/}"
		else
			missing[$r]="no $glob in $debdir (make deb makes it)"
		fi
	done
	for f in "$debdir"/s61-testmod-*.deb; do
		[ ! -f "$f" ] || testmods+=("$f")
	done
fi
if [ -n "$kernels_opt" ]; then
	kernels=()
	for k in ${kernels_opt//,/ }; do
		case $k in stock|base|top) ;; *) usage_error "--kernels: '$k' is none of stock, base, top" ;; esac
		case " ${kernels[*]} " in *" $k "*) usage_error "--kernels: $k twice" ;; esac
		if [ "$k" != stock ] && [ -z "${deb[$k]:-}" ]; then
			usage_error "--kernels $kernels_opt: no .deb for $k: ${missing[$k]}; give --deb FILE or --debs DIR, or leave $k out"
		fi
		kernels+=("$k")
	done
	[ ${#kernels[@]} -gt 0 ] || usage_error "--kernels is empty: want some of stock,base,top"
	# the canonical order: stock base top
	sorted=()
	for k in stock base top; do
		case " ${kernels[*]} " in *" $k "*) sorted+=("$k") ;; esac
	done
	kernels=("${sorted[@]}")
	for k in base top; do
		case " ${kernels[*]} " in *" $k "*) ;; *) [ -n "${missing[$k]:-}" ] || missing[$k]="left out (--kernels $kernels_opt)" ;; esac
	done
else
	kernels=(stock)
	for k in base top; do
		[ -z "${deb[$k]:-}" ] || kernels+=("$k")
	done
fi
kver[stock]=${STOCK_PKG#linux-image-}
image_debs=()
for k in base top; do
	case " ${kernels[*]} " in *" $k "*) ;; *) continue ;; esac
	p=$(deb_field "${deb[$k]}" Package)
	kver[$k]=${p#linux-image-}
	image_debs+=("${deb[$k]}")
done
# Each kernel's test-module package (deb_testmod, of any version: --deb
# may give one built apart); the newest when there are several.
for k in "${kernels[@]}"; do
	best=$(deb_testmod "${kver[$k]}" '' "${testmods[@]}")
	if [ -n "$best" ]; then
		testmod[$k]=$best
		image_debs+=("$best")
	fi
done
for k in base top; do
	[ -z "${missing[$k]:-}" ] || info "$k: not in this comparison: ${missing[$k]}"
done

[ -z "$out" ] || [ ! -e "$out" ] || [ -d "$out" ] || usage_error "--out $out exists and is not a directory"
[ -z "$out" ] || [ ! -e "$out/meta.env" ] ||
	usage_error "--out $out already holds a comparison (meta.env); give a new directory (its report: --report-only $out)"
for c in dpkg-deb python3; do
	command -v "$c" >/dev/null || usage_error "$c is missing: apt-get install dpkg python3"
done

# ---- the image: every kernel in one ----------------------------------------
now=$(date -u +%s)
stamp=$(date -u -d "@$now" +%Y%m%d-%H%M%S)
[ -n "$out" ] || out=$S61_WORK/debian-compare/$stamp
imgargs=(--kernel stock)
[ ${#image_debs[@]} = 0 ] || imgargs+=(--deb "${image_debs[@]}")
info "the image: tools/debian/image.sh ${imgargs[*]}"
image=$("$DEBIAN_IMAGE" "${imgargs[@]}") || harness_error "tools/debian/image.sh ${imgargs[*]} failed (above); nothing booted"
image=$(tail -n 1 <<<"$image")
[ -f "$image" ] || harness_error "tools/debian/image.sh printed '$image', which is no file"
have=$("$DEBIAN_BOOT" --image "$image" --list-kernels) || harness_error "tools/debian/boot.sh --list-kernels failed on $image"
for k in "${kernels[@]}"; do
	grep -qxF -- "${kver[$k]}" <<<"$have" ||
		harness_error "the image has no kernel ${kver[$k]} ($k); it has: $(tr '\n' ' ' <<<"$have")"
done
mkdir -p "$out/runs" || harness_error "cannot create $out"
out=$(cd "$out" && pwd) || harness_error "cannot enter $out"

{
	echo "date=$(date -u -d "@$now" +%Y-%m-%dT%H:%M:%SZ)"
	echo "stamp=$stamp"
	echo "kernels=$(IFS=,; echo "${kernels[*]}")"
	for k in "${kernels[@]}"; do
		echo "kver_$k=${kver[$k]}"
		if [ "$k" = stock ]; then echo "deb_stock=$STOCK_PKG (apt)"; else echo "deb_$k=${deb[$k]##*/}"; fi
		[ -z "${testmod[$k]:-}" ] || echo "testmod_$k=${testmod[$k]##*/}"
	done
	for k in base top; do
		[ -z "${missing[$k]:-}" ] || echo "missing_$k=${missing[$k]}"
	done
	echo "image=$image"
	echo "image_key=$(basename "$(dirname "$image")")"
	echo "rounds=$rounds"
	echo "n=$n"
	echo "suites=$suites"
	echo "only=$only"
	echo "append=$append"
	echo "timeout=$timeout"
	echo "order=rotate"
	echo "mem=2048M"
	echo "smp=2"
	echo "accel=tcg"
	echo "host_cpus=$(nproc)"
	echo "run=$stamp"
	echo "commit=$(git -C "$S61_ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo -)"
	echo "stack_id=$(stack_id || echo -)"
	echo "machine=${S61_MACHINE:-$(uname -m), $(nproc) CPUs}"
	echo "out=$out"
} >"$out/meta.env"

# ---- the boots --------------------------------------------------------------
# Ctrl-C (or TERM): stop the boot that runs (tools/debian/boot.sh, its timeout
# and QEMU, by their process ids), record it, keep the runs so far.
bpid='' cur=''
# shellcheck disable=SC2317  # these run from the INT/TERM trap
# descendants PID: every process below PID, children first listed last.
descendants() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		echo "$c"
		descendants "$c"
	done
}
# shellcheck disable=SC2317
interrupted() {
	trap '' INT TERM
	if [ -n "$bpid" ]; then
		# shellcheck disable=SC2046  # a list of process ids
		kill -TERM "$bpid" $(descendants "$bpid") 2>/dev/null
		wait "$bpid" 2>/dev/null
	fi
	[ -z "$cur" ] || echo "$cur rc=130 interrupted=1" >>"$out/runs.env"
	echo "interrupted=1" >>"$out/meta.env"
	info "interrupted: the boot running was stopped; the runs so far are kept in $out (tools/debian/compare.sh --report-only $out reports them)"
	exit 130
}
trap interrupted INT TERM

nk=${#kernels[@]}
failed=()
t0=$SECONDS
for ((r = 1; r <= rounds; r++)); do
	for ((i = 0; i < nk; i++)); do
		k=${kernels[$(((i + r - 1) % nk))]}
		run=$out/runs/r$r-$k
		if [ "$k" = stock ]; then jargs=(--target base --config debian)
		else jargs=(--target "$k" --config debian-s61); fi
		bargs=(--image "$image" --kver "${kver[$k]}" --suites "$suites" --timeout "$timeout"
			--out "$run" --quiet "${jargs[@]}")
		[ -z "$n" ] || bargs+=(--n "$n")
		[ -z "$only" ] || bargs+=(--only "$only")
		[ -z "$append" ] || bargs+=(--append "$append")
		load=$(cut -d' ' -f1-3 /proc/loadavg)
		cur="round=$r order=$((i + 1)) kernel=$k load_before=\"$load\""
		info "round $r/$rounds, boot $((i + 1))/$nk: $k (${kver[$k]}); run $run"
		# In the background, so that a signal reaches the trap at once.
		"$DEBIAN_BOOT" "${bargs[@]}" >"$out/runs/r$r-$k.log" 2>&1 &
		bpid=$!
		wait "$bpid"
		rc=$?
		bpid=''
		echo "$cur rc=$rc load_after=\"$(cut -d' ' -f1-3 /proc/loadavg)\"" >>"$out/runs.env"
		cur=''
		if [ "$rc" != 0 ]; then
			failed+=("r$r-$k")
			warn "round $r $k: tools/debian/boot.sh exit $rc; kept: $run, $out/runs/r$r-$k.log"
			tail -n 6 "$out/runs/r$r-$k.log" >&2
		fi
		grep -a -c 'S61BENCH' "$run/result.ktap" 2>/dev/null | xargs printf '  %s samples\n' >&2
		sed -n 's/^known splat of /  known splat of /p' "$out/runs/r$r-$k.log" >&2
	done
done
trap - INT TERM
echo "total_secs=$((SECONDS - t0))" >>"$out/meta.env"
info "boots done in $((SECONDS - t0)) s; run directory $out"
report "$out"
if [ ${#failed[@]} -gt 0 ]; then
	warn "${#failed[@]} boot(s) failed: ${failed[*]} (named in the report, in no figure)"
	exit 1
fi
exit 0
