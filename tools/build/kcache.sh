#!/usr/bin/env bash
# The kernel cache: what tools/boot/guest-test.sh and tools/bench/bench.sh built before
# (bzImage, installed modules and the out-of-tree test modules), kept per
# source tree and build recipe, so that booting a tip that was built before
# needs no rebuild (the boot test's 13 tips, check-top's base run, the two
# bench kernels). It is to whole kernels
# what ccache is to objects: same inputs, same build.
#
# Usage: tools/build/kcache.sh key CONFIG BRANCH|COMMIT   print the cache key
#        tools/build/kcache.sh get CONFIG BRANCH|COMMIT   print the entry's directory;
#                                                exit 1 when there is none
#        tools/build/kcache.sh put CONFIG BRANCH|COMMIT BZIMAGE [--modules DIR]
#                                    [--testmod KO... | --testmod-failed LOG]
#                                    (--testmod may be given more than once)
#        tools/build/kcache.sh list | prune [--keep N] | clear
# The key covers the commit's tree (not its id: a rebase that changes no
# file hits), every fragment in qemu/configs/, testmod/, the build recipe
# (tools/build/kbuild.sh, tools/build/testmod.sh) and the compiler and linker versions.
# "." (the checkout as it is, edits included) is never cached.
# S61_KCACHE=0: get always misses and put stores nothing (a full rebuild).
# Entries live in $S61_CACHE/kernels/ (shared by the clones of a machine);
# put keeps the newest 48 (S61_KCACHE_KEEP), a hit counts as new.
. "$(dirname "$0")/../lib/lib.sh"

kdir=$S61_CACHE/kernels
keep=${S61_KCACHE_KEEP:-48}

usage() {
	sed -n '9,15s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

# key CONFIG TARGET
key() {
	local config=$1 target=$2 tree
	[ "$target" != . ] || { info "'.' (uncommitted edits) is not cached"; return 1; }
	[ -f "$S61_ROOT/qemu/configs/$config" ] || die "no config fragment qemu/configs/$config"
	require_checkout
	tree=$(kgit rev-parse -q --verify "$target^{tree}") ||
		die "'$target' is neither a branch nor a commit of $S61_LINUX"
	{
		echo "kcache 1"
		echo "tree $tree"
		echo "config $config"
		(cd "$S61_ROOT" && for f in qemu/configs/* testmod/* tools/build/kbuild.sh tools/build/testmod.sh; do
			echo "== $f"
			cat "$f"
		done)
		gcc --version 2>/dev/null | head -n 1
		ld --version 2>/dev/null | head -n 1
	} | sha256sum | cut -c1-24 | sed "s/^/$config-/"
}

# Keep the newest $keep entries (a hit counts as new: get touches it).
prune() {
	[ -d "$kdir" ] || return 0
	# shellcheck disable=SC2012  # entry names are ours: no blanks
	ls -1dt "$kdir"/*/ 2>/dev/null | tail -n +$((keep + 1)) | xargs -r rm -rf
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
-h|--help|'') sed -n '2,23s/^# \{0,1\}//p' "$0"; [ -n "$cmd" ] || exit 2; exit 0 ;;
key)
	[ $# = 2 ] || usage
	key "$1" "$2"
	;;
get)
	[ $# = 2 ] || usage
	[ "${S61_KCACHE:-1}" != 0 ] || exit 1
	k=$(key "$1" "$2" 2>/dev/null) || exit 1
	[ -f "$kdir/$k/bzImage" ] && [ -f "$kdir/$k/complete" ] || exit 1
	touch "$kdir/$k"
	echo "$kdir/$k"
	;;
put)
	[ $# -ge 3 ] || usage
	config=$1 target=$2 bz=$3
	shift 3
	mods='' kos=() kofail=''
	while [ $# -gt 0 ]; do
		case $1 in
		--modules) mods=${2:?--modules needs a directory}; shift ;;
		--testmod) kos+=("${2:?--testmod needs a .ko}"); shift ;;
		--testmod-failed) kofail=${2:?--testmod-failed needs a log}; shift ;;
		*) usage ;;
		esac
		shift
	done
	[ "${S61_KCACHE:-1}" != 0 ] || exit 0
	k=$(key "$config" "$target") || exit 0
	[ -f "$bz" ] || die "put: no kernel image $bz"
	mkdir -p "$kdir" || die "cannot create $kdir"
	tmp=$(mktemp -d "$kdir/.put-XXXXXX") || die "cannot create a directory in $kdir"
	trap 'rm -rf "$tmp"' EXIT
	cp "$bz" "$tmp/bzImage" || die "put: cannot copy $bz"
	if [ -n "$mods" ]; then
		cp -a "$mods" "$tmp/modinst" || die "put: cannot copy $mods"
	fi
	if [ ${#kos[@]} -gt 0 ]; then
		cp "${kos[@]}" "$tmp/" || die "put: cannot copy ${kos[*]}"
	elif [ -n "$kofail" ]; then
		tail -n 40 "$kofail" >"$tmp/testmod-failed.log" 2>/dev/null || : >"$tmp/testmod-failed.log"
	fi
	{
		echo "target=$target"
		echo "commit=$(kgit rev-parse "$target^{commit}")"
		echo "tree=$(kgit rev-parse "$target^{tree}")"
		echo "config=$config"
		echo "stored=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	} >"$tmp/info"
	touch "$tmp/complete"
	# Replace an entry of the same key as a whole: a reader sees the old
	# one or the new one, never a half-written directory.
	rm -rf "$kdir/$k.old"
	[ ! -e "$kdir/$k" ] || mv "$kdir/$k" "$kdir/$k.old"
	mv "$tmp" "$kdir/$k" || die "put: cannot move the entry into $kdir"
	trap - EXIT
	rm -rf "$kdir/$k.old"
	prune
	;;
list)
	[ -d "$kdir" ] || { echo "kernel cache empty ($kdir)"; exit 0; }
	for e in "$kdir"/*/; do
		[ -f "$e/info" ] || continue
		# shellcheck disable=SC1091,SC2154  # info sets target, commit, stored
		(. "$e/info" && printf '%-34s %-16s %.12s  %s  %s\n' "$(basename "$e")" "$target" "$commit" "$stored" \
			"$(du -sh "$e" | cut -f1)")
	done
	;;
prune)
	[ "${1:-}" != --keep ] || { keep=${2:?--keep needs a number}; shift 2; }
	[ $# = 0 ] || usage
	case $keep in ''|*[!0-9]*) die "--keep wants a number, not '$keep'" ;; esac
	prune
	;;
clear)
	[ $# = 0 ] || usage
	rm -rf "$kdir"
	info "kernel cache cleared ($kdir)"
	;;
*) die "unknown command '$cmd' (see --help)" ;;
esac
