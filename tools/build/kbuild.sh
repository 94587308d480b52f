#!/usr/bin/env bash
# Build a kernel of the stack out of tree, with ccache.
#
# Usage: tools/build/kbuild.sh [options] BRANCH|COMMIT|.
#   BRANCH|COMMIT  checked out in the kernel checkout first (it must be clean);
#                  "." builds the checkout as it is, uncommitted edits included.
#   --config NAME  fragment(s) from qemu/configs/ (default: boot)
#   -j N           parallel jobs (default: number of CPUs)
#   --quiet        no progress line
#   --target "T.." build these kbuild targets (e.g. fs/xfs/xfs_buf.o) instead
#                  of bzImage and modules; W=1 may be given as a target too
# Output: O=.work/build/<config>; prints the bzImage path on stdout.
# Log: .work/logs/kbuild-<config>.log (its tail is shown on failure).
. "$(dirname "$0")/../lib/lib.sh"

config=boot
jobs=$(nproc)
quiet=0
target=
targets=
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--config) config=${2:?--config needs a name}; shift ;;
	--config=*) config=${1#*=} ;;
	-j) jobs=${2:?-j needs a number}; shift ;;
	-j*) jobs=${1#-j} ;;
	--quiet) quiet=1 ;;
	--target) targets=${2:?--target needs kbuild targets}; shift ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) [ -z "$target" ] || die "only one BRANCH|COMMIT please"; target=$1 ;;
	esac
	shift
done
[ -n "$target" ] || die "which branch or commit? (see --help)"
case $jobs in ''|*[!0-9]*|0) die "-j wants a positive number, not '$jobs'" ;; esac
# Everything the arguments name is checked here, before the build lock
# below, so that a mistake never waits for (or blocks) another build.
require_checkout
if [ "$target" != . ] && ! kgit rev-parse -q --verify "$target^{commit}" >/dev/null; then
	if stack_has_branch "$target"; then
		die "branch '$target' of branch-stack.txt is not in $S61_LINUX yet; run 'tools/stack/stack.sh apply'"
	fi
	die "'$target' is neither a branch of branch-stack.txt nor a commit of $S61_LINUX (branches: base $(stack_branches | paste -sd' '); or '.' for the checkout as it is)"
fi

# Resolve fragments: "#include NAME" lines pull in other fragments first.
fragments=()
resolve_fragment() {
	local f=$S61_ROOT/qemu/configs/$1 inc
	[ -f "$f" ] || die "no config fragment qemu/configs/$1 (have: $(cd "$S61_ROOT/qemu/configs" && echo *))"
	# shellcheck disable=SC2013  # fragment names have no blanks
	for inc in $(sed -n 's/^#include[[:space:]]\{1,\}//p' "$f"); do
		resolve_fragment "$inc"
	done
	case " ${fragments[*]} " in *" $f "*) ;; *) fragments+=("$f") ;; esac
}
resolve_fragment "$config"
command -v ccache >/dev/null || die "ccache is missing; run tools/build/deps.sh"

# One kernel build at a time on this machine (tools/lib/lib.sh build_lock).
build_lock "${target} [$config]"

if [ "$target" != . ]; then
	if [ "$(kgit rev-parse HEAD)" != "$(kgit rev-parse "$target^{commit}")" ]; then
		[ -z "$(kgit status --porcelain --untracked-files=no)" ] ||
			die "the kernel checkout has uncommitted changes; commit them, or build them as they are with 'tools/build/kbuild.sh .'"
		if kgit show-ref -q --verify "refs/heads/$target"; then
			kgit checkout -q "$target" || die "cannot check out $target"
		else
			kgit checkout -q --detach "$target" || die "cannot check out $target"
		fi
	fi
fi

out=$S61_WORK/build/$config
logdir=$S61_WORK/logs
log=$logdir/kbuild-$config.log
mkdir -p "$out" "$logdir"
: >"$log"

build_env
mk=(make -C "$S61_LINUX" O="$out" -j"$jobs" CC="ccache gcc" HOSTCC="ccache gcc")

desc=$(kgit symbolic-ref -q --short HEAD) || desc=
[ -n "$desc" ] || desc=$(kgit rev-parse --short HEAD)
[ "$target" = . ] && [ -n "$(kgit status --porcelain --untracked-files=no)" ] && desc="$desc+dirty"

fail() {
	echo >&2
	echo "---- last lines of $log ----" >&2
	grep -E 'error|Error|ERROR' "$log" | head -20 >&2
	echo "----" >&2
	tail -n 25 "$log" >&2
	die "$1 failed for $desc [$config]; full log: $log"
}

t0=$SECONDS
# Configuration: allnoconfig + fragments + olddefconfig. An unchanged result
# keeps the old .config's time stamp, so nothing is rebuilt for it.
[ -f "$out/.config" ] && cp -p "$out/.config" "$out/.config.prev"
(
	cd "$out" &&
	"${mk[@]}" KCONFIG_ALLCONFIG=/dev/null allnoconfig &&
	"$S61_LINUX/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${fragments[@]}" &&
	"${mk[@]}" olddefconfig
) >>"$log" 2>&1 || fail "configuration"
if [ -f "$out/.config.prev" ]; then
	cmp -s "$out/.config" "$out/.config.prev" && touch -r "$out/.config.prev" "$out/.config"
	rm -f "$out/.config.prev"
fi

# Every option a fragment asks for must have stuck.
missing=$(cat "${fragments[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=' | while IFS= read -r l; do
	k=${l%%=*}; v=${l#*=}
	if [ "$v" = n ]; then
		grep -q "^$k=" "$out/.config" && echo "$l"
	elif ! grep -qxF "$l" "$out/.config"; then
		# An option this tree does not define (e.g. the KUnit suite below
		# the tests branch) is not an error; one it defines must stick.
		kgit grep -q -E "^[[:space:]]*(menu)?config ${k#CONFIG_}\$" -- '*Kconfig*' && echo "$l"
	fi
done)
[ -z "$missing" ] || { printf '%s\n' "$missing" >&2; die "config '$config' on $desc: the options above did not stick (dependencies missing?)"; }

if [ -n "$targets" ]; then
	[ $quiet = 1 ] || printf 'building %s [%s]: %s\n' "$desc" "$config" "$targets" >&2
	# shellcheck disable=SC2086  # a list of kbuild targets
	"${mk[@]}" $targets >>"$log" 2>&1 || fail "build of $targets"
	exit 0
fi
[ $quiet = 1 ] || printf 'building %s [%s] with -j%s...\n' "$desc" "$config" "$jobs" >&2
if [ $quiet = 1 ] || [ ! -t 2 ]; then
	"${mk[@]}" bzImage >>"$log" 2>&1 || fail "build"
else
	"${mk[@]}" bzImage 2>&1 | tee -a "$log" | while IFS= read -r l; do
		case $l in *" CC "*|*" LD "*|*" AR "*) printf '\r\033[K  %s' "${l:0:100}" >&2 ;; esac
	done
	printf '\r\033[K' >&2
	[ "${PIPESTATUS[0]}" = 0 ] || fail "build"
fi
if grep -q '=m$' "$out/.config"; then
	"${mk[@]}" modules >>"$log" 2>&1 || fail "modules build"
	rm -rf "$out/modinst"
	"${mk[@]}" INSTALL_MOD_PATH="$out/modinst" modules_install >>"$log" 2>&1 || fail "modules_install"
fi
echo "$(kgit rev-parse HEAD) $desc $config $((SECONDS - t0))s" >"$out/s61-build-info"
[ $quiet = 1 ] || info "built $desc [$config] in $((SECONDS - t0)) s"
echo "$out/arch/x86/boot/bzImage"
