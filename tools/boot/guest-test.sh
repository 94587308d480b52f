#!/usr/bin/env bash
# Build a branch (or commit) of the stack, make the initramfs, boot it in QEMU
# and run guest suites; prints the KTAP summary.
#
# Usage: tools/boot/guest-test.sh [options] BRANCH|COMMIT|.
#   --config NAME     kernel config fragment (default: boot)
#   --suites LIST     guest suites (default: smoke)
#   --only NAMES      only these tests
#   --append ARGS     extra kernel command line
#   --timeout S       guest time limit (default: 600)
#   --accel A         tcg (default), kvm, auto
#   --mem SIZE        guest memory (default: qemu/run's, 1G)  --smp N (2)
#   --qemu-arg ARG    one more QEMU argument (repeatable; see qemu/run)
#   --verbose         show the console while the guest runs
#   --expect-target NAME  judge the results as those of branch NAME (base or
#                     a branch of branch-stack.txt) by qemu/expected; default:
#                     the branch itself, or for a commit (or ".") the branch
#                     of the stack that contains it (stack_branch_of): its
#                     tip as the branch, one short of it as PARENT..BRANCH
#                     (either end's outcome accepted), one above the top as
#                     the top
#   --expect-rule R   one more qemu/expected rule (repeatable; see qemu/run)
#   --expect-splat RE a negative control: pass only with a splat matching RE
#                     (repeatable; see qemu/run)
#   --expect-in-splat RE  a line the report of the --expect-splat before it
#                     must have (repeatable; see qemu/run)
#   --allow-taint LETTERS  taint flags the run may end with besides O and N
#                     (a control that taints on purpose; see qemu/run)
#   --allow-lockdep-off  lockdep may be off at the end (see qemu/run)
# The test module (testmod/) must build: if it does not, this fails (exit
# 1) naming the log, also when the kernel comes from the cache with the
# failure recorded. Only a kernel without module support (tools/build/testmod.sh
# exit 2) runs without it: its tests SKIP, and the manifest allows that.
# Environment: S61_KCACHE=0 builds the kernel even if the kernel cache has
# it, and stores nothing there (tools/build/kcache.sh).
# Exit: as qemu/run (0 pass, 1 test failure, unexpected outcome or splat,
#       2 hang/no result, 3 harness error), 1 when the test module does not
#       build, 125 when the kernel does not build (git bisect run's "skip").
. "$(dirname "$0")/../lib/lib.sh"

config=boot
runargs=()
etarget=
target=
quiet=--quiet
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) sed -n '2,40s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--config) config=${2:?}; shift ;;
	--suites|--only|--append|--timeout|--accel|--mem|--smp|--qemu-arg) runargs+=("$1" "${2?}"); shift ;;
	--verbose) quiet= ;;
	--expect-target) etarget=${2:?--expect-target needs a branch name}; shift ;;
	--expect-rule|--expect-splat|--expect-in-splat|--allow-taint) runargs+=("$1" "${2:?$1 needs an argument}"); shift ;;
	--allow-lockdep-off) runargs+=("$1") ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) target=$1 ;;
	esac
	shift
done
[ -n "$target" ] || die "which branch or commit? (see --help)"

# What the arguments name exists, before any build.
branches="base $(stack_branches | paste -sd' ')"
[ -f "$S61_ROOT/qemu/configs/$config" ] ||
	die "no config fragment qemu/configs/$config (have: $(cd "$S61_ROOT/qemu/configs" && echo *))"
require_checkout
if [ "$target" != . ] && ! kgit rev-parse -q --verify "$target^{commit}" >/dev/null; then
	if stack_has_branch "$target"; then
		die "branch '$target' of branch-stack.txt is not in $S61_LINUX yet; run 'tools/stack/stack.sh apply'"
	fi
	die "'$target' is neither a branch of branch-stack.txt nor a commit of $S61_LINUX (branches: $branches; or '.' for the checkout as it is)"
fi
# --expect-target: base, top, a branch or LOWER..HIGHER (qemu/ktap-summary).
for e in ${etarget/../ }; do
	[ "$e" = top ] || stack_has_branch "$e" ||
		die "--expect-target: '$e' is not base, top or a branch of branch-stack.txt (branches: $branches)"
done

# Which branch the results are judged as (qemu/expected), before any build.
# --expect-target is for a commit that is on none of the branches (a
# scratch commit off the stack): which branch's expectations apply is
# then the caller's choice.
if [ -z "$etarget" ]; then
	if [ "$target" != . ] && stack_has_branch "$target"; then
		etarget=$target
	else
		ref=$target
		[ "$target" != . ] || ref=HEAD
		etarget=$(stack_branch_of "$ref") ||
			die "cannot tell which branch of the stack '$target' belongs to (none of branch-stack.txt contains it or lies below it in $S61_LINUX); pass --expect-target BRANCH to judge it as one of: $branches"
		# A commit inside a branch, short of its tip, is part way from the
		# parent branch to it: either end's outcome is accepted per test.
		c=$(kgit rev-parse "$ref^{commit}")
		if [ "$etarget" != base ] && [ "$c" != "$(kgit rev-parse "$etarget^{commit}")" ] &&
			kgit merge-base --is-ancestor "$c" "$etarget"; then
			etarget=$(stack_parent "$etarget")..$etarget
		fi
		info "$target: judged as $etarget (the stack's branch that holds it; qemu/expected)"
	fi
fi
# The test module's tests SKIP on a kernel without module support, and
# only for that reason (the guest tests' own message): the blocked mount,
# the race tests (their module churn) and the nokmem case (where it runs).
nomod_why='SKIP ^no test module in the initramfs'
nomod_rules=(--expect-rule "* * lockless.blocked-shrinker-mount $nomod_why"
	--expect-rule "* * races.* $nomod_why"
	--expect-rule "* *:cgroup.memory=*nokmem* lockless.nokmem-umount $nomod_why")

# A kernel built before from the same tree and recipe comes from
# the kernel cache (tools/build/kcache.sh); otherwise build it and store it there.
adds=()
mods=()
if entry=$("$S61_ROOT/tools/build/kcache.sh" get "$config" "$target"); then
	kernel=$entry/bzImage
	info "$target [$config]: kernel from the cache, built earlier from the same tree ($entry; S61_KCACHE=0 rebuilds)"
	[ ! -d "$entry/modinst" ] || mods=(--modules "$entry/modinst")
	for ko in "$entry"/*.ko; do
		[ -f "$ko" ] && adds+=(--add "$ko:/s61/modules/$(basename "$ko")")
	done
	if [ ! -f "$entry/s61_shrinker_test.ko" ]; then
		if grep -qs '^SKIP: ' "$entry/testmod-failed.log"; then
			info "$target [$config]: no test module: $(grep '^SKIP: ' "$entry/testmod-failed.log" | tail -1); its tests SKIP"
			runargs+=("${nomod_rules[@]}")
		elif [ -f "$entry/testmod-failed.log" ]; then
			die "test module did not build against $target [$config] when this kernel was built (see $entry/testmod-failed.log); fix testmod/ (a change there misses the cache) or rebuild with S61_KCACHE=0"
		else
			die "the cached kernel $entry has no test module and no record of why; rebuild it with S61_KCACHE=0"
		fi
	fi
else
	kernel=$("$S61_ROOT/tools/build/kbuild.sh" --config "$config" "$target") || exit 125
	build=$(dirname "$(dirname "$(dirname "$(dirname "$kernel")")")")
	put=()
	if [ -d "$build/modinst" ]; then
		mods=(--modules "$build/modinst")
		put+=(--modules "$build/modinst")
	fi
	# The out-of-tree test module, when the tree has one to build against.
	if [ -x "$S61_ROOT/tools/build/testmod.sh" ]; then
		tmlog=$S61_WORK/logs/testmod-$config.log
		mkdir -p "$S61_WORK/logs"
		ko=$("$S61_ROOT/tools/build/testmod.sh" --build "$build" 2>"$tmlog")
		tmrc=$?
		case $tmrc in
		0)
			adds+=(--add "$ko:/s61/modules/$(basename "$ko")")
			put+=(--testmod "$ko")
			;;
		2)	# no module support: recorded (with its SKIP: line) for the cache
			info "$target [$config]: $(grep '^SKIP: ' "$tmlog" | tail -1 || echo "SKIP: tools/build/testmod.sh exit 2"); its tests SKIP"
			grep -q '^SKIP: ' "$tmlog" || echo "SKIP: tools/build/testmod.sh exit 2 (no module support)" >>"$tmlog"
			put+=(--testmod-failed "$tmlog")
			runargs+=("${nomod_rules[@]}")
			;;
		*) put+=(--testmod-failed "$tmlog") ;;
		esac
	fi
	"$S61_ROOT/tools/build/kcache.sh" put "$config" "$target" "$kernel" "${put[@]}" ||
		warn "could not store $target [$config] in the kernel cache; the run goes on"
	case ${tmrc:-0} in
	0|2) ;;
	*) tail -n 5 "$tmlog" >&2
	   die "test module did not build against $target [$config] (tools/build/testmod.sh exit $tmrc; log: $tmlog); its tests cannot run, so the run fails" ;;
	esac
fi
# Suites that need more user space name it in qemu/bins/<suite>.list; their
# initramfs is kept apart, so that the common one stays small.
lists=() imgname=$config
for s in $(printf '%s\n' "${runargs[@]}" | awk 'p { gsub(/,/, " "); print; exit } /^--suites$/ { p = 1 }'); do
	if [ -f "$S61_ROOT/qemu/bins/$s.list" ]; then
		lists+=(--bins "$S61_ROOT/qemu/bins/$s.list")
		imgname=$imgname-$s
	fi
done
img=$("$S61_ROOT/qemu/mkinitramfs" -o "$S61_WORK/initramfs/$imgname.img" "${mods[@]}" "${adds[@]}" "${lists[@]}") || exit 2
if [ "$target" = . ]; then
	label="$(kgit symbolic-ref -q --short HEAD || kgit rev-parse --short HEAD)+edits [$config]"
else
	label="$target [$config]"
fi
"$S61_ROOT/qemu/run" --kernel "$kernel" --initrd "$img" --label "$label" $quiet \
	--config "$config" --expect-target "$etarget" "${runargs[@]}"
