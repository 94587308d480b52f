#!/usr/bin/env bash
# Build a branch of the stack as Debian packages, with Debian's own config
# (issue 27, section 1): "make deb".
#
# Usage: tools/debian/deb.sh [options] [BRANCH|base]
#   BRANCH|base    what to build (default: the top of the stack)
#   --flavour F    plain (default) or debug (qemu/debian/debug.config on top)
#   --broken NAME  build BRANCH with tests/broken/NAME.diff applied (a
#                  deliberately broken kernel, to see the Debian suites fail
#                  on it: tools/debian/broken.sh); the checkout is given back
#                  with the diff reverted however the build ends
#   --config-only  write the config and stop (no build): to look at it
#   --out DIR      where the .debs go (default: .work/debs)
#   -j N           parallel jobs (default: number of CPUs)
# The config: Debian's amd64 config of the stack's upload (package
# linux-config-6.1 of the version in branch-stack.txt, fetched with
# apt-get download into the shared cache, never installed), then
# "make localmodconfig" against qemu/debian/modules.list (Debian's
# built-in options stay, its modules are cut to the list), then
# qemu/debian/fixups.config (and debug.config for --flavour debug), then
# olddefconfig. The repository keeps the list and the fragments, not a
# copied config; the result is .work/build/debian-FLAVOUR/.config.
# Packages: "make bindeb-pkg" out of tree in .work/build/debian-FLAVOUR,
# with ccache. Kernel release 6.1.N-s61 for the series, 6.1.N-s61base for
# base (both installable side by side with Debian's 6.1.0-K-amd64);
# package version VERSION+s61.COMMIT (base: +s61base), e.g.
# 6.1.192-3+s61.4bab327c: it sorts after Debian's VERSION and names the
# commit. The debug flavour is 6.1.N-s61dbg (base: -s61basedbg), version
# VERSION+s61dbg.COMMIT; a --broken build 6.1.N-s61brk, version
# VERSION+s61brk.COMMIT.NAME (NAME's other characters than letters and
# digits as dots): each its own package, never one of the plain's name. With them s61-testmod-KVER: the test modules built against the
# same tree, installed and signed with its key by kbuild's modules_install
# (tools/build/testmod.sh --install), checked by tools/debian/deb-check.sh. Log:
# .work/logs/debian-deb-FLAVOUR.log. One kernel build at a time: the same
# lock as tools/build/kbuild.sh.
# Exit: 0 and the .deb paths on stdout; 1 on failure or bad input.
. "$(dirname "$0")/../lib/lib.sh"

usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
flavour=plain config_only=0 out=$S61_WORK/debs jobs=$(nproc) target='' broken=''
while [ $# -gt 0 ]; do
	case $1 in
	--flavour)
		[ $# -ge 2 ] || die "--flavour needs plain or debug"
		flavour=$2; shift ;;
	--broken)
		[ $# -ge 2 ] || die "--broken needs the name of a diff of tests/broken/ (without .diff)"
		broken=$2; shift ;;
	--config-only) config_only=1 ;;
	--out)
		[ $# -ge 2 ] || die "--out needs a directory"
		out=$2; shift ;;
	-j)
		[ $# -ge 2 ] || die "-j needs a number"
		jobs=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) die "unknown option '$1' (tools/debian/deb.sh --help)" ;;
	*)
		[ -z "$target" ] || die "one branch at a time ('$target' and '$1'); run it once per branch"
		target=$1 ;;
	esac
	shift
done
case $flavour in plain|debug) ;; *) die "--flavour is plain or debug, not '$flavour'" ;; esac
case $jobs in ''|*[!0-9]*|0) die "-j needs a positive number, not '$jobs'" ;; esac
[ -n "$target" ] || target=$(stack_top)
bdiff=
if [ -n "$broken" ]; then
	broken=${broken%.diff}
	bdiff=$S61_ROOT/tests/broken/$broken.diff
	[ -f "$bdiff" ] ||
		die "no tests/broken/$broken.diff (the variants: $(for v in "$S61_ROOT"/tests/broken/*.diff; do v=${v##*/}; printf '%s ' "${v%.diff}"; done))"
	[ "$flavour" = plain ] || die "--broken builds the plain flavour only"
	[ "$target" != base ] || die "--broken applies to a branch of the stack, not to base"
fi
if [ "$target" != base ]; then
	stack_has_branch "$target" ||
		die "'$target' is not a branch of branch-stack.txt (branches: $(stack_branches | tr '\n' ' ')base)"
fi
require_checkout
kgit rev-parse -q --verify "refs/heads/$target" >/dev/null ||
	die "the kernel checkout has no branch '$target': run 'tools/stack/stack.sh apply'"

mods=$S61_ROOT/qemu/debian/modules.list
fixups=$S61_ROOT/qemu/debian/fixups.config
debugcfg=$S61_ROOT/qemu/debian/debug.config
for f in "$mods" "$fixups" "$debugcfg"; do
	[ -f "$f" ] || die "missing $f (a broken clone? git checkout -- ${f#"$S61_ROOT"/})"
done

# Debian's config of the stack's upload, from the shared cache.
version=$(stack_base_version)
[ -n "$version" ] || die "branch-stack.txt names no base version"
cfgdir=$S61_CACHE/debian-config/$version
if [ ! -s "$cfgdir/config.amd64_none_amd64" ]; then
	mkdir -p "$S61_DEBS" || die "cannot make $S61_DEBS"
	deb=$S61_DEBS/linux-config-6.1_${version}_amd64.deb
	if [ ! -s "$deb" ]; then
		info "fetching linux-config-6.1 $version (apt-get download, not installed)"
		(cd "$S61_DEBS" && apt-get download -q "linux-config-6.1=$version") >&2 ||
			die "apt-get download linux-config-6.1=$version failed: is $version still in the archive ('apt-cache madison linux-config-6.1'), and 'apt-get update' done?"
	fi
	tmp=$(mktemp -d "$S61_CACHE/debian-config.XXXXXX") || die "cannot make a temporary directory"
	trap 'rm -rf "$tmp"' EXIT
	dpkg-deb -x "$deb" "$tmp/x" || die "cannot unpack $deb"
	xz -dc "$tmp/x/usr/src/linux-config-6.1/config.amd64_none_amd64.xz" >"$tmp/config.amd64_none_amd64" ||
		die "$deb has no config.amd64_none_amd64.xz"
	{ mkdir -p "$cfgdir" && mv "$tmp/config.amd64_none_amd64" "$cfgdir/"; } || die "cannot store the config in $cfgdir"
fi
debcfg=$cfgdir/config.amd64_none_amd64

# One kernel build at a time (the lock of tools/build/kbuild.sh).
build_lock "$target [debian-$flavour]"

if [ "$(kgit rev-parse HEAD)" != "$(kgit rev-parse "$target^{commit}")" ]; then
	[ -z "$(kgit status --porcelain --untracked-files=no)" ] ||
		die "the kernel checkout has uncommitted changes; commit them (or export them with tools/stack/stack.sh export) first"
	kgit checkout -q "$target" || die "cannot check out $target"
fi
commit=$(kgit rev-parse --short=8 HEAD)
if [ "$target" = base ]; then lv=-s61base pv=$version+s61base; else lv=-s61 pv=$version+s61.$commit; fi
if [ "$flavour" = debug ]; then
	if [ "$target" = base ]; then lv=-s61basedbg pv=$version+s61basedbg; else lv=-s61dbg pv=$version+s61dbg.$commit; fi
fi
if [ -n "$bdiff" ]; then
	[ -z "$(kgit status --porcelain --untracked-files=no)" ] ||
		die "the kernel checkout has uncommitted changes; commit them (or export them with tools/stack/stack.sh export) first"
	kgit apply --check "$bdiff" 2>/dev/null ||
		die "tests/broken/$broken.diff does not apply to $target ($commit): 'tools/boot/broken-variants.sh --dry-run' lists the ones that do"
	kgit apply "$bdiff" || die "git apply of tests/broken/$broken.diff failed"
	# Given back however the build ends (the checkout was clean above).
	trap 'kgit apply -R "$bdiff" 2>/dev/null || kgit checkout -q -- .; [ -z "${tmp:-}" ] || rm -rf "$tmp"' EXIT
	trap 'exit 130' INT TERM
	lv=-s61brk pv=$version+s61brk.$commit.$(printf '%s' "$broken" | tr -c 'A-Za-z0-9' '.')
fi

bdir=$S61_WORK/build/debian-$flavour
log=$S61_WORK/logs/debian-deb-$flavour.log
mkdir -p "$bdir" "$S61_WORK/logs" "$out" || die "cannot make $bdir or $out"
: >"$log"
build_env
mk=(make -C "$S61_LINUX" O="$bdir" -j"$jobs" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION="$lv")
fail() {
	echo "---- last lines of $log ----" >&2
	tail -n 25 "$log" >&2
	die "$1 failed for $target [debian-$flavour]; full log: $log"
}

# lsmod's format for localmodconfig: a header line, then "name size users".
lsmod=$bdir/s61-modules.lsmod
{
	echo "Module                  Size  Used by"
	sed -e 's/#.*//' -e 's/[[:space:]]//g' "$mods" | awk 'NF { print $1 " 0 0" }'
} >"$lsmod"

t0=$SECONDS
[ -f "$bdir/.config" ] && cp -p "$bdir/.config" "$bdir/.config.prev"
frags=("$fixups")
[ "$flavour" = debug ] && frags+=("$debugcfg")
{
	cp "$debcfg" "$bdir/.config" &&
	"${mk[@]}" olddefconfig &&
	"${mk[@]}" LSMOD="$lsmod" localmodconfig </dev/null &&
	"$S61_LINUX/scripts/kconfig/merge_config.sh" -m -O "$bdir" "$bdir/.config" "${frags[@]}" &&
	"${mk[@]}" olddefconfig
} >>"$log" 2>&1 || fail "configuration"
if [ -f "$bdir/.config.prev" ]; then
	cmp -s "$bdir/.config" "$bdir/.config.prev" && touch -r "$bdir/.config.prev" "$bdir/.config"
	rm -f "$bdir/.config.prev"
fi
# Every option the fragments ask for must have stuck (as in tools/build/kbuild.sh).
missing=$(cat "${frags[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=' | while IFS= read -r l; do
	k=${l%%=*}
	if [ "${l#*=}" = n ]; then
		grep -q "^$k=" "$bdir/.config" && echo "$l"
	else
		grep -qxF "$l" "$bdir/.config" || echo "$l"
	fi
done)
[ -z "$missing" ] || { printf '%s\n' "$missing" >&2; die "the options above did not stick on Debian's config (a dependency missing?): fix qemu/debian/*.config"; }
nmod=$(grep -c '=m$' "$bdir/.config" || :)
info "config: Debian $version amd64 reduced to $nmod modules ($(grep -c '=y$' "$bdir/.config") built-in options) in $bdir/.config"
[ $config_only = 0 ] || exit 0

info "building $target ($commit) as Debian packages [debian-$flavour], -j$jobs; log $log"
rm -f "$bdir"/../*.deb "$bdir"/../*.buildinfo "$bdir"/../*.changes
"${mk[@]}" KDEB_PKGVERSION="$pv" bindeb-pkg >>"$log" 2>&1 </dev/null || fail "bindeb-pkg"
kver=$("${mk[@]}" -s kernelrelease 2>>"$log") || fail "make kernelrelease"
echo "$(kgit rev-parse HEAD) $target debian-$flavour${broken:+ broken=$broken}" >"$bdir/s61-build-info"

# The test module (testmod/) and its second copy (s61_shrinker_aux, which
# the P1 workload loads while the first holds its shrinker), built against
# this tree and installed by kbuild's own modules_install for external
# modules (tools/build/testmod.sh --install): under lib/modules/KVER/updates/ of the
# package root, signed as the kernel's own modules are (the build's key,
# CONFIG_MODULE_SIG_ALL in fixups.config), no depmod (the postinst runs
# it). Packed as s61-testmod-KVER: dpkg installs them as a user installs an
# out-of-tree module package.
tm_pkg=s61-testmod-$kver
tm_root=$bdir/s61-testmod-deb
rm -rf "$tm_root"
mkdir -p "$tm_root/DEBIAN" || die "cannot make $tm_root"
for name in s61_shrinker_test s61_shrinker_aux; do
	"$S61_ROOT/tools/build/testmod.sh" --build "$bdir" --name "$name" --install "$tm_root" >/dev/null 2>>"$log" ||
		fail "the test module ($name)"
done
cat >"$tm_root/DEBIAN/control" <<CONTROL
Package: $tm_pkg
Version: $pv
Architecture: amd64
Maintainer: $S61_IDENT_NAME <$S61_IDENT_EMAIL>
Depends: linux-image-$kver (= $pv)
Section: kernel
Priority: optional
Description: shrinker test modules of the lockless-shrink 6.1 series
 s61_shrinker_test.ko and s61_shrinker_aux.ko for linux-image-$kver:
 a shrinker whose scan can be held, for the Debian system workload.
CONTROL
printf '#!/bin/sh\nset -e\ndepmod -a %s\n' "$kver" >"$tm_root/DEBIAN/postinst"
printf '#!/bin/sh\nset -e\n[ -d /lib/modules/%s/kernel ] && depmod -a %s || true\n' "$kver" "$kver" >"$tm_root/DEBIAN/postrm"
chmod 0755 "$tm_root/DEBIAN/postinst" "$tm_root/DEBIAN/postrm"
tm_deb=$bdir/../${tm_pkg}_${pv}_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$tm_root" "$tm_deb" >>"$log" 2>&1 ||
	fail "dpkg-deb of $tm_pkg"
# What the package must hold (its fields, both modules, their vermagic and
# signatures, depmod in the postinst), checked before it leaves the tree.
"$S61_ROOT/tools/debian/deb-check.sh" "$tm_deb" "$bdir/../linux-image-${kver}_${pv}_amd64.deb" >>"$log" 2>&1 ||
	fail "the check of $tm_pkg (tools/debian/deb-check.sh)"

debs=()
for f in "$bdir"/../linux-*.deb "$bdir"/../s61-testmod-*.deb; do
	[ -e "$f" ] || continue
	mv "$f" "$out/" || die "cannot move $f to $out"
	debs+=("$out/${f##*/}")
done
[ ${#debs[@]} -gt 0 ] || fail "bindeb-pkg made no package"
info "built $target [debian-$flavour] in $((SECONDS - t0)) s: ${debs[*]##*/}"
echo "$(date -u +%FT%TZ) $target $commit debian-$flavour${broken:+ broken=$broken} $((SECONDS - t0))s" >>"$S61_WORK/logs/debian-deb-times.log"
printf '%s\n' "${debs[@]}"
